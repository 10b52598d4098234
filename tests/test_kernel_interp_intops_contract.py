"""Integer arithmetic of the tracer (PTX ISA 8.x "Integer Arithmetic Instructions") against Python-int
translations of the ISA: saturation, carry chains at 32 and 64 bits, mul/mad .lo/.hi/.wide, mul24/mad24,
sad, abs/neg, min/max (.relu), and the malformed forms the tracer refuses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_interp_scalar_harness import op, run_lines, value

from layoutalg.errors import KernelError

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)
U32 = st.integers(0, 2**32 - 1)
U64 = st.integers(0, 2**64 - 1)
EDGE32 = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x00800000, 0xFF800000, 12345]


def signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def clamp32(x: int) -> int:
    return min(max(x, -(2**31)), 2**31 - 1) & 0xFFFFFFFF


@SETTINGS
@given(U32, U32)
def test_add_sub_sat_clamp_to_the_s32_range(a: int, b: int) -> None:
    for x, y in ((a, b), (b, a), (0x7FFFFFFF, a | 1), (0x80000000, a | 1)):
        assert op("add.sat.s32", [x, y]) == clamp32(signed(x, 32) + signed(y, 32))
        assert op("sub.sat.s32", [x, y]) == clamp32(signed(x, 32) - signed(y, 32))


def test_add_sub_sat_read_both_operands_as_32_bit_signed() -> None:
    for x in EDGE32 + [0x40000000, 0xBFFFFFFF]:
        for y in EDGE32 + [0x40000000, 0xBFFFFFFF]:
            assert op("add.sat.s32", [x, y]) == clamp32(signed(x, 32) + signed(y, 32))
            assert op("sub.sat.s32", [x, y]) == clamp32(signed(x, 32) - signed(y, 32))


@SETTINGS
@given(U64, U64, U64, U64)
def test_carry_chains_add_and_subtract_128_bit_numbers(a_lo: int, a_hi: int, b_lo: int, b_hi: int) -> None:
    a, b = a_lo | (a_hi << 64), b_lo | (b_hi << 64)
    lines = [f"mov.b64 %rd1, {a_lo};", f"mov.b64 %rd2, {a_hi};", f"mov.b64 %rd3, {b_lo};", f"mov.b64 %rd4, {b_hi};",
             "add.cc.u64 %rd5, %rd1, %rd3;", "addc.u64 %rd6, %rd2, %rd4;"]
    m = run_lines(lines)
    s = (value(m, "%rd5") or 0) | ((value(m, "%rd6") or 0) << 64)
    assert s == (a + b) % 2**128
    m = run_lines(lines[:4] + ["sub.cc.u64 %rd5, %rd1, %rd3;", "subc.u64 %rd6, %rd2, %rd4;"])
    d = (value(m, "%rd5") or 0) | ((value(m, "%rd6") or 0) << 64)
    assert d == (a - b) % 2**128


def test_carry_out_of_a_64_bit_add_chains_into_a_third_word() -> None:
    m = run_lines(["mov.b64 %rd1, -1;", "mov.b64 %rd2, 1;", "mov.b64 %rd3, 0;", "add.cc.u64 %rd4, %rd1, %rd2;",
                   "addc.cc.u64 %rd5, %rd3, %rd3;", "addc.u64 %rd6, %rd3, %rd3;"])
    assert (value(m, "%rd4"), value(m, "%rd5"), value(m, "%rd6")) == (0, 1, 0)


@SETTINGS
@given(U32, U32, U32)
def test_mad_forms_match_exact_products(a: int, b: int, c: int) -> None:
    sa, sb, sc = signed(a, 32), signed(b, 32), signed(c, 32)
    assert op("mad.lo.u32", [a, b, c]) == (a * b + c) & 0xFFFFFFFF
    assert op("mad.hi.u32", [a, b, c]) == ((a * b >> 32) + c) & 0xFFFFFFFF
    assert op("mad.hi.s32", [a, b, c]) == ((sa * sb >> 32) + sc) & 0xFFFFFFFF
    assert op("mad.hi.sat.s32", [a, b, c]) == clamp32((sa * sb >> 32) + sc)
    m = run_lines([f"mov.b32 %r1, {a};", f"mov.b32 %r2, {b};", f"mov.b64 %rd1, {c << 20};",
                   "mad.wide.s32 %rd2, %r1, %r2, %rd1;", "mad.wide.u32 %rd3, %r1, %r2, %rd1;"])
    assert value(m, "%rd2") == (sa * sb + (c << 20)) % 2**64
    assert value(m, "%rd3") == (a * b + (c << 20)) % 2**64


def test_mad_hi_sat_saturates_at_both_ends() -> None:
    big = 0x7FFFFFFF
    assert op("mad.hi.sat.s32", [big, big, big]) == 0x7FFFFFFF  # (2^62 >> 32) + big overflows upward
    assert op("mad.hi.sat.s32", [0x80000000, big, 0x80000000]) == 0x80000000


@SETTINGS
@given(U64, U64, U64)
def test_mad_64_bit_lo_and_hi(a: int, b: int, c: int) -> None:
    assert op("mad.lo.u64", [a, b, c], 64) == (a * b + c) % 2**64
    assert op("mad.hi.u64", [a, b, c], 64) == ((a * b >> 64) + c) % 2**64
    assert op("mad.hi.s64", [a, b, c], 64) == ((signed(a, 64) * signed(b, 64) >> 64) + c) % 2**64


@SETTINGS
@given(U32, U32, U32)
def test_mul24_and_mad24_use_the_low_24_bits(a: int, b: int, c: int) -> None:
    """ISA: the 48-bit product of the low 24 bits (sign-extended for .s32); .lo its bits 0..31, .hi 16..47."""
    ua, ub = a & 0xFFFFFF, b & 0xFFFFFF
    sa, sb = signed(a, 24), signed(b, 24)
    assert op("mul24.lo.u32", [a, b]) == (ua * ub) & 0xFFFFFFFF
    assert op("mul24.hi.u32", [a, b]) == (ua * ub >> 16) & 0xFFFFFFFF
    assert op("mul24.lo.s32", [a, b]) == (sa * sb) & 0xFFFFFFFF
    assert op("mul24.hi.s32", [a, b]) == (sa * sb >> 16) & 0xFFFFFFFF
    assert op("mad24.lo.u32", [a, b, c]) == (ua * ub + c) & 0xFFFFFFFF
    assert op("mad24.hi.s32", [a, b, c]) == ((sa * sb >> 16) + c) & 0xFFFFFFFF


@SETTINGS
@given(U64, U64, U64)
def test_sad_adds_the_absolute_difference(a: int, b: int, c: int) -> None:
    """ISA: ``sad d, a, b, c``: d = c + ((a < b) ? b - a : a - b), compared in the type's signedness."""
    for t, w in (("u64", 64), ("s64", 64), ("u32", 32), ("s32", 32), ("u16", 16), ("s16", 16)):
        m = (1 << w) - 1
        x, y = (signed(a, w), signed(b, w)) if t[0] == "s" else (a & m, b & m)
        assert op(f"sad.{t}", [a & m, b & m, c & m], w) == (c + abs(x - y)) & m, t  # w-bit registers (ptxas)


def test_sad_of_a_smaller_first_operand_is_positive() -> None:
    assert op("sad.u64", [3, 10, 0], 64) == 7
    assert op("sad.u32", [3, 10, 100]) == 107
    assert op("sad.s32", [0xFFFFFFFF, 1, 0]) == 2


@pytest.mark.parametrize("a", EDGE32)
def test_abs_neg_and_min_max_follow_signedness(a: int) -> None:
    for b in EDGE32:
        sa, sb = signed(a, 32), signed(b, 32)
        assert op("abs.s32", [a]) == abs(sa) & 0xFFFFFFFF
        assert op("neg.s32", [a]) == -sa & 0xFFFFFFFF
        assert op("min.s32", [a, b]) == min(sa, sb) & 0xFFFFFFFF
        assert op("max.u32", [a, b]) == max(a, b)
        assert op("min.u32", [a, b]) == min(a, b)
        assert op("max.relu.s32", [a, b]) == max(sa, sb, 0)
        assert op("min.relu.s32", [a, b]) == max(min(sa, sb), 0)


def test_64_and_16_bit_abs_min_max() -> None:
    assert op("abs.s64", [2**64 - 5], 64) == 5
    assert op("abs.s64", [2**63], 64) == 2**63  # the most negative value is its own absolute value
    assert op("min.u64", [2**63, 5], 64) == 5
    assert op("min.s64", [2**63, 5], 64) == 2**63
    assert op("max.s16", [0x8000, 1], 16) == 1
    assert op("abs.s16", [0xFFFE], 16) == 2


@pytest.mark.parametrize(("line", "message"), [
    ("add.sat.u32 %r7, %r1, %r1;", ".sat applies to .s32 only"),
    ("add.cc.u16 %h7, %h1, %h1;", "carry arithmetic is .32/.64 only"),
    ("mad.lo.sat.s32 %r7, %r1, %r1, %r1;", "mad.sat is .hi.s32 only"),
    ("mul.wide.u64 %rd7, %rd1, %rd1;", "mul.wide takes 16- or 32-bit operands"),
    ("mul.u32 %r7, %r1, %r1;", "needs .lo, .hi or .wide"),
    ("rem.f32 %r7, %r1, %r1;", "rem has no float form"),
    ("add.u32 %r7, %r1;", "expects 2 source operands"),
    ("add.u32 %r7, %r1, %r1, %r1;", "expects 2 source operands"),  # ptxas: too many operands; none ignored
    ("mad.lo.u32 %r7, %r1, %r1, %r1, %r1;", "expects 3 source operands"),
])
def test_malformed_integer_forms_are_refused_naming_the_line(line: str, message: str) -> None:
    with pytest.raises(KernelError, match=message) as e:
        run_lines(["mov.b32 %r1, 0;", "mov.b64 %rd1, 0;", "mov.b16 %h1, 0;", line])
    assert e.value.line == 10


def test_16_bit_mad_wraps_the_low_and_high_halves_of_the_product() -> None:
    assert op("mad.lo.u16", [300, 300, 5], 16) == (300 * 300 + 5) % 65536
    assert op("mad.hi.u16", [300, 300, 5], 16) == (300 * 300 >> 16) + 5
    assert op("mad.lo.s16", [-3 & 0xFFFF, 7, 1], 16) == (-20) & 0xFFFF


def test_32_bit_carry_chains_add_and_subtract_64_bit_numbers() -> None:
    a, b = 0x1_FFFF_FFFF, 0x2_0000_0001  # the low words carry out of bit 31
    lines = [f"mov.b32 %r1, {a & 0xFFFFFFFF};", f"mov.b32 %r2, {a >> 32};", f"mov.b32 %r3, {b & 0xFFFFFFFF};",
             f"mov.b32 %r4, {b >> 32};"]
    m = run_lines(lines + ["add.cc.u32 %r5, %r1, %r3;", "addc.u32 %r6, %r2, %r4;"])
    assert (value(m, "%r5") or 0) | ((value(m, "%r6") or 0) << 32) == a + b
    m = run_lines(lines + ["sub.cc.u32 %r5, %r3, %r1;", "subc.u32 %r6, %r4, %r2;"])
    assert (value(m, "%r5") or 0) | ((value(m, "%r6") or 0) << 32) == b - a


def test_mul_hi_u64_carries_between_partial_products_exactly() -> None:
    top = 2**64 - 1
    assert op("mul.hi.u64", [top, top], 64) == top * top >> 64
    assert op("mul.hi.u64", [top, 2**32 + 1], 64) == top * (2**32 + 1) >> 64
    low = 2**32 - 1  # a product just below 2**64: its high half is 0 (no carry out of the low words)
    assert op("mul.hi.u64", [low, low], 64) == 0


def test_div_rem_truncate_toward_zero_and_a_zero_divisor_gives_an_unknown_result() -> None:
    assert op("div.u32", [7, 2]) == 3 and op("rem.u32", [7, 2]) == 1
    assert op("div.s32", [2**32 - 7, 2]) == 2**32 - 3 and op("rem.s32", [2**32 - 7, 2]) == 2**32 - 1
    assert op("div.u32", [7, 0]) is None and op("div.s32", [7, 0]) is None


def test_integer_arithmetic_on_a_never_written_register_is_unknown() -> None:
    # %r2 is declared but never written: its value is undefined, so no result computed from it is known
    for text in ("add.u32 %r7, %r1, %r2;", "mul.lo.u32 %r7, %r1, %r2;", "neg.s32 %r7, %r2;"):
        m = run_lines(["mov.b32 %r1, 0;", text])
        assert value(m, "%r7") is None, text


def test_mul_hi_s64_treats_only_bit_63_as_the_sign() -> None:
    for a, b in ((2**62, 4), (4, 2**62), (2**62 + 12345, 2**62 + 7), (2**63 + 2**62, 6), (2**63 - 1, 2**63 - 1)):
        assert op("mul.hi.s64", [a, b], 64) == (signed(a, 64) * signed(b, 64) >> 64) % 2**64, (a, b)


def test_mad_hi_sat_reads_the_high_half_and_the_addend_as_32_bit_signed_values() -> None:
    # (-2**31)**2 = 2**62: the high half 0x40000000 is positive, bit 30 set; so is the addend 0x40000000
    for a, b, c in ((1, 1, 0x40000000), (0x10000, 0x10000, 0x7FFFFFFF), (3, 5, 0x40000001), (1, 1, 0xC0000000),
                    (0x80000000, 0x80000000, 0), (0x80000000, 0x80000000, 5), (0x80000000, 0x80000000, 0x40000000)):
        want = clamp32((signed(a, 32) * signed(b, 32) >> 32) + signed(c, 32))
        assert op("mad.hi.sat.s32", [a, b, c]) == want, (a, b, c)

"""Bit instructions of the tracer against the PTX ISA's own pseudocode, written here in Python ints:
prmt's named modes (the ISA's selector table), bmsk and szext (.clamp/.wrap), cnot, and the refused forms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_interp_scalar_harness import op, run_lines, value

from layoutalg.errors import KernelError

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
U32 = st.integers(0, 2**32 - 1)
SMALL = st.one_of(st.integers(0, 40), st.integers(0, 2**32 - 1))
M32 = 0xFFFFFFFF

#: The ISA's prmt mode table: for selector c[1:0] = 0..3, the source bytes of d.b3 d.b2 d.b1 d.b0.
PRMT_TABLE = {"f4e": ("3210", "4321", "5432", "6543"), "b4e": ("5670", "6701", "7012", "0123"),
              "rc8": ("0000", "1111", "2222", "3333"), "ecl": ("3210", "3211", "3222", "3333"),
              "ecr": ("0000", "1110", "2210", "3210"), "rc16": ("1010", "3232", "1010", "3232")}


def prmt_mode_ref(a: int, b: int, c: int, mode: str) -> int:
    src = (b << 32) | a  # bytes 0..3 from a, 4..7 from b
    digits = PRMT_TABLE[mode][c & 3]
    out = 0
    for pos, ch in enumerate(digits):  # digits[0] is d.b3
        byte = (src >> (8 * int(ch))) & 0xFF
        out |= byte << (8 * (3 - pos))
    return out


def bmsk_ref(a: int, b: int, clamp: bool) -> int:
    """PTX ISA bmsk semantics, line by line."""
    a1 = a & 0x1F
    mask0 = (M32 << a1) & M32
    b1 = b & 0x1F
    total = a1 + b1
    mask1 = (M32 << total) & M32
    sum_overflow = total >= 32
    pos_overflow = width_overflow = False
    if clamp:
        if a >= 32:
            pos_overflow = True
            mask0 = 0
        if b >= 32:
            width_overflow = True
    if sum_overflow or pos_overflow or width_overflow:
        mask1 = 0
    elif b1 == 0:
        mask1 = M32
    return mask0 & ~mask1 & M32


def szext_ref(a: int, b: int, clamp: bool, is_signed: bool) -> int:
    """PTX ISA szext semantics, line by line."""
    b1 = b & 0x1F
    too_large = b >= 32 and clamp
    mask = 0 if too_large else (M32 << b1) & M32
    sign_pos = (b1 - 1) & 0x1F
    sign_bit = 0 if (b1 == 0 or too_large or not is_signed) else (a >> sign_pos) & 1
    return ((a & ~mask) | (mask if sign_bit else 0)) & M32


@SETTINGS
@given(U32, U32, U32, st.sampled_from(sorted(PRMT_TABLE)))
def test_prmt_named_modes_follow_the_isa_table(a: int, b: int, c: int, mode: str) -> None:
    assert op(f"prmt.b32.{mode}", [a, b, c]) == prmt_mode_ref(a, b, c, mode)


def test_prmt_mode_selector_uses_only_the_two_low_bits() -> None:
    a, b = 0x33221100, 0x77665544
    for mode in PRMT_TABLE:
        for c in range(4):
            assert op(f"prmt.b32.{mode}", [a, b, c | 0xFFF0]) == prmt_mode_ref(a, b, c, mode), (mode, c)


@SETTINGS
@given(SMALL, SMALL, st.booleans())
def test_bmsk_matches_the_isa(a: int, b: int, clamp: bool) -> None:
    mode = "clamp" if clamp else "wrap"
    assert op(f"bmsk.{mode}.b32", [a, b]) == bmsk_ref(a, b, clamp)


def test_bmsk_isa_examples_and_edges() -> None:
    assert op("bmsk.wrap.b32", [1, 2]) == 0x6  # the ISA's example
    assert op("bmsk.clamp.b32", [32, 4]) == 0
    assert op("bmsk.clamp.b32", [4, 32]) == 0xFFFFFFF0
    assert op("bmsk.wrap.b32", [4, 32]) == 0
    assert op("bmsk.wrap.b32", [36, 4]) == 0xF0
    for a, b in ((0x80000005, 4), (4, 0x80000001), (0x80000005, 0x80000001), (0xFFFFFFFF, 3)):
        for mode in ("clamp", "wrap"):
            assert op(f"bmsk.{mode}.b32", [a, b]) == bmsk_ref(a, b, mode == "clamp"), (hex(a), hex(b), mode)


@SETTINGS
@given(U32, SMALL, st.booleans(), st.booleans())
def test_szext_matches_the_isa(a: int, b: int, clamp: bool, is_signed: bool) -> None:
    text = f"szext.{'clamp' if clamp else 'wrap'}.{'s32' if is_signed else 'u32'}"
    assert op(text, [a, b]) == szext_ref(a, b, clamp, is_signed)


def test_szext_edges() -> None:
    assert op("szext.wrap.u32", [M32, 0]) == 0  # the ISA's example
    assert op("szext.clamp.s32", [0x80, 8]) == 0xFFFFFF80
    assert op("szext.clamp.u32", [0x180, 8]) == 0x80
    assert op("szext.clamp.s32", [0x12345678, 40]) == 0x12345678
    assert op("szext.wrap.s32", [0x1F, 36]) == 0xFFFFFFFF  # N wraps to 4: 0b1111 is -1


def shf_isa(a: int, b: int, c: int, left: bool, clamp: bool) -> int:
    """ISA shf: n = clamp ? min(c, 32) : c & 0x1f; .l: upper word of (b:a) << n, .r: lower word of (b:a) >> n."""
    n = min(c, 32) if clamp else c & 0x1F
    both = (b << 32) | a
    return ((both << n) >> 32) & M32 if left else (both >> n) & M32


@pytest.mark.parametrize("mode", ["l.wrap", "l.clamp", "r.wrap", "r.clamp"])
def test_funnel_shift_amounts_wrap_or_clamp_as_the_isa_says(mode: str) -> None:
    a, b = 0x89ABCDEF, 0x01234567
    for c in (0, 1, 31, 32, 33, 63, 64, 100, 0xFFFFFFFF):
        want = shf_isa(a, b, c, mode[0] == "l", mode.endswith("clamp"))
        assert op(f"shf.{mode}.b32", [a, b, c]) == want, c


@pytest.mark.parametrize(("a", "want"), [(0, 1), (1, 0), (0x80000000, 0), (M32, 0)])
def test_cnot_is_one_exactly_for_zero(a: int, want: int) -> None:
    assert op("cnot.b32", [a]) == want
    assert op("cnot.b16", [a & 0xFFFF], 16) == (1 if a & 0xFFFF == 0 else 0)
    assert op("not.b32", [a]) == ~a & M32


@pytest.mark.parametrize(("line", "message"), [
    ("shf.l.b32 %r7, %r1, %r1, %r1;", "shf needs .wrap or .clamp"),
    ("lop3.b32 %r7, %r1, %r1, %r1;", "lop3 needs d, a, b, c, immLut"),
    ("lop3.b32 %r7, %r1, %r1, %r1, %r1;", "lop3 needs d, a, b, c, immLut"),
])
def test_malformed_bit_forms_are_refused_naming_the_line(line: str, message: str) -> None:
    with pytest.raises(KernelError, match=message) as e:
        run_lines(["mov.b32 %r1, 0;", line])
    assert e.value.line == 8


def test_bmsk_reads_only_the_low_32_bits_of_a_wider_source_register() -> None:
    # PTX ISA, "Operand Size Exceeding Instruction-Type Size": a wider register source of a .b32 op is chopped
    m = run_lines(["mov.b64 %rd1, 0x100000004;", "bmsk.clamp.b32 %r7, 4, %rd1;", "bmsk.clamp.b32 %r6, %rd1, 4;"])
    assert value(m, "%r7") == 0xF0 and value(m, "%r6") == 0xF0


def bfi_ref(a: int, b: int, c: int, d: int, width: int) -> int:
    """PTX ISA bfi: f = b; for (i = 0; i < len && pos + i <= msb; i++) f[pos + i] = a[i]."""
    pos, ln, f = c & 0xFF, d & 0xFF, b
    i = 0
    while i < ln and pos + i <= width - 1:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


@SETTINGS
@given(U32, U32, SMALL, SMALL)
def test_bfi_matches_the_isa(a: int, b: int, c: int, d: int) -> None:
    assert op("bfi.b32", [a, b, c, d]) == bfi_ref(a, b, c, d, 32)


def test_bfi_inserts_odd_length_fields() -> None:
    assert op("bfi.b32", [0b10110, 0, 3, 5]) == 0b10110 << 3
    assert op("bfi.b32", [M32, 0, 0x104, 0x101]) == 0x10  # pos and len are their low bytes

"""Float instructions of the tracer (PTX ISA 8.x "Floating-Point" and "Half Precision" instructions) against
an exact rational oracle (``float_oracle.round_rne``): rounding, ``.sat``, ``.ftz``, NaN/inf/-0, packed
``.f16x2``/``.bf16x2`` halves, min/max zero ordering, and which forms the tracer must call unknown."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from float_oracle import decode_float, encode_float, round_rne, to_fraction
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from kernel_interp_scalar_harness import op, run_lines, value

from layoutalg.errors import KernelError

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)
F32 = st.integers(0, 2**32 - 1)
F16 = st.integers(0, 2**16 - 1)
F64 = st.integers(0, 2**64 - 1)
ONE, TWO, HALF = 0x3F800000, 0x40000000, 0x3F000000
NAN32, INF32, NEG0 = 0x7FC00000, 0x7F800000, 0x80000000
SUB32 = 0x00000001  # smallest f32 subnormal


def finite(bits: int, fmt: str) -> bool:
    x = decode_float(bits, fmt)
    return not (math.isnan(x) or math.isinf(x))


def q(bits: int, fmt: str) -> Fraction:
    v = to_fraction(bits, fmt)
    assert isinstance(v, Fraction)
    return v


def is_nan(bits: int | None, fmt: str) -> bool:
    return bits is not None and math.isnan(decode_float(bits, fmt))


# ----------------------------------------------------------------- rounding of add/sub/mul/fma/div
@SETTINGS
@given(F32, F32, F32)
def test_f32_add_sub_fma_round_the_exact_result_once(a: int, b: int, c: int) -> None:
    assume(all(finite(x, "f32") for x in (a, b, c)))
    x, y, z = q(a, "f32"), q(b, "f32"), q(c, "f32")
    for text, exact in (("add.f32", x + y), ("sub.f32", x - y), ("add.rn.f32", x + y)):
        got = op(text, [a, b])
        if exact != 0:
            assert got == round_rne(exact, "f32"), text
    got = op("fma.rn.f32", [a, b, c])
    if x * y + z != 0:
        assert got == round_rne(x * y + z, "f32")


@SETTINGS
@given(F64, F64, F64)
def test_f64_add_and_fma_round_the_exact_result_once(a: int, b: int, c: int) -> None:
    assume(all(finite(v, "f64") for v in (a, b, c)))
    x, y, z = q(a, "f64"), q(b, "f64"), q(c, "f64")
    if x + y != 0:
        assert op("add.f64", [a, b], 64) == round_rne(x + y, "f64")
    if x - y != 0:
        assert op("sub.f64", [a, b], 64) == round_rne(x - y, "f64")
    got = op("fma.rn.f64", [a, b, c], 64)
    if got is not None and x * y + z != 0:  # known only where the float64 steps were exact
        assert got == round_rne(x * y + z, "f64")
    assert op("mul.rn.f64", [a, b], 64) == round_rne(x * y, "f64") or x * y == 0


def test_f64_fma_of_exact_operands_is_known_and_exact() -> None:
    three, five, seven = (encode_float(v, "f64") for v in (3.0, 5.0, 7.0))
    assert op("fma.rn.f64", [three, five, seven], 64) == encode_float(22.0, "f64")
    assert op("mad.rn.f64", [three, five, seven], 64) == encode_float(22.0, "f64")


@SETTINGS
@given(F32, F32)
def test_f32_mul_is_known_where_exact_or_explicitly_rounded(a: int, b: int) -> None:
    assume(finite(a, "f32") and finite(b, "f32"))
    exact = q(a, "f32") * q(b, "f32")
    assume(exact != 0)
    want = round_rne(exact, "f32")
    assert op("mul.rn.f32", [a, b]) == want
    contractible = op("mul.f32", [a, b])
    if q(want, "f32") == exact:
        assert contractible == want
    else:  # ptxas may fuse an unrounded mul into an fma: the tracer must not claim a value
        assert contractible is None


def test_f32_mul_of_inexact_product_is_unknown_and_of_exact_product_known() -> None:
    x = 0x3F8CCCCD  # 1.1f: its square needs 48 bits
    assert op("mul.f32", [x, x]) is None
    assert op("mul.f32", [TWO, x]) == x + (1 << 23)


@SETTINGS
@given(F32, F32)
def test_f32_div_rn_rounds_the_exact_quotient(a: int, b: int) -> None:
    assume(finite(a, "f32") and finite(b, "f32"))
    x, y = q(a, "f32"), q(b, "f32")
    assume(y != 0 and x != 0)
    assert op("div.rn.f32", [a, b]) == round_rne(x / y, "f32")


def test_approximate_and_directed_forms_are_unknown() -> None:
    for text, n in (("div.approx.f32", 2), ("div.full.f32", 2), ("div.rz.f32", 2), ("add.rz.f32", 2),
                    ("sub.rm.f32", 2), ("add.rp.f64", 2), ("mul.rz.f32", 2), ("mul.rm.f64", 2),
                    ("fma.rz.f32", 3), ("fma.rp.f64", 3), ("rcp.approx.f32", 1), ("rcp.rz.f32", 1),
                    ("sqrt.approx.f32", 1), ("sqrt.rm.f32", 1), ("ex2.approx.f32", 1), ("lg2.approx.f32", 1),
                    ("sin.approx.f32", 1), ("cos.approx.f32", 1), ("tanh.approx.f32", 1),
                    ("rsqrt.approx.f32", 1)):
        width = 64 if text.endswith("f64") else 32
        one = ONE if width == 32 else encode_float(1.0, "f64")
        assert op(text, [one] * n, width) is None, text


@SETTINGS
@given(F32)
def test_rcp_and_sqrt_rn_round_the_exact_value(a: int) -> None:
    assume(finite(a, "f32") and q(a, "f32") > 0)
    x = q(a, "f32")
    assert op("rcp.rn.f32", [a]) == round_rne(1 / x, "f32")
    got = op("sqrt.rn.f32", [a])
    assert got is not None
    r = q(got, "f32")  # correctly rounded: r is the f32 nearest to sqrt(x) (checked by squares of neighbours)
    below, above = q(got - 1, "f32"), q(got + 1, "f32")
    assert ((r + below) / 2) ** 2 <= x <= ((r + above) / 2) ** 2


def test_sqrt_of_a_negative_number_is_nan_and_of_minus_zero_minus_zero() -> None:
    assert is_nan(op("sqrt.rn.f32", [encode_float(-4.0, "f32")]), "f32")
    assert op("sqrt.rn.f32", [NEG0]) == NEG0
    assert op("sqrt.rn.f32", [encode_float(6.25, "f32")]) == encode_float(2.5, "f32")


# ----------------------------------------------------------------- special values
def test_special_values_follow_ieee() -> None:
    neg_inf = 0xFF800000
    assert is_nan(op("add.f32", [INF32, neg_inf]), "f32")
    assert is_nan(op("mul.rn.f32", [INF32, 0]), "f32")
    assert is_nan(op("add.f32", [NAN32, ONE]), "f32")
    assert op("add.f32", [NEG0, NEG0]) == NEG0
    assert op("add.f32", [NEG0, 0]) == 0
    assert op("sub.f32", [0, 0]) == 0
    assert op("div.rn.f32", [ONE, 0]) == INF32
    assert op("div.rn.f32", [ONE, NEG0]) == neg_inf
    big = 0x7F7FFFFF  # max finite f32
    assert op("add.f32", [big, big]) == INF32


def test_f32_nan_results_are_the_canonical_nan() -> None:
    """CUDA Programming Guide, Floating-Point Standard: an f32 operation with a NaN input gives 0x7fffffff."""
    payload_nan = 0xFFC00123
    assert op("add.f32", [payload_nan, ONE]) == 0x7FFFFFFF
    assert op("fma.rn.f32", [ONE, payload_nan, ONE]) == 0x7FFFFFFF
    assert op("min.NaN.f32", [ONE, payload_nan]) == 0x7FFFFFFF
    assert op("mul.rn.f32", [INF32, 0]) == 0x7FFFFFFF
    assert op("neg.f32", [payload_nan]) == payload_nan ^ NEG0  # neg/abs change the sign bit only


def test_sat_clamps_to_zero_one_and_maps_nan_to_zero() -> None:
    three_q = encode_float(0.75, "f32")
    assert op("add.sat.f32", [three_q, three_q]) == ONE
    assert op("sub.sat.f32", [HALF, ONE]) == 0
    assert op("add.sat.f32", [HALF, 0]) == HALF
    assert op("add.sat.f32", [NAN32, ONE]) == 0
    assert op("fma.rn.sat.f32", [TWO, TWO, ONE]) == ONE
    assert op("mul.rn.sat.f32", [HALF, HALF]) == encode_float(0.25, "f32")


def test_ftz_flushes_subnormal_inputs_and_results_keeping_the_sign() -> None:
    assert op("add.f32", [SUB32, 0]) == SUB32
    assert op("add.ftz.f32", [SUB32, 0]) == 0
    assert op("add.ftz.f32", [SUB32 | NEG0, NEG0]) == NEG0
    tiny = 0x00800000  # smallest normal: half of it is subnormal
    assert op("mul.rn.f32", [tiny, HALF]) == 0x00400000
    assert op("mul.rn.ftz.f32", [tiny, HALF]) == 0
    assert op("add.ftz.f32", [SUB32, ONE]) == ONE
    assert op("add.ftz.f64", [1, 0], 64) == 1  # .ftz applies to .f32 only


# ----------------------------------------------------------------- packed halves
@SETTINGS
@given(F16, F16, F16, F16, F16, F16)
def test_f16x2_arithmetic_works_on_each_half(a0: int, a1: int, b0: int, b1: int, c0: int, c1: int) -> None:
    assume(all(finite(v, "f16") for v in (a0, a1, b0, b1, c0, c1)))
    a, b, c = a0 | (a1 << 16), b0 | (b1 << 16), c0 | (c1 << 16)
    pairs = ((a0, b0, c0), (a1, b1, c1))
    for text, f in (("add.rn.f16x2", lambda x, y, z: x + y), ("sub.rn.f16x2", lambda x, y, z: x - y),
                    ("mul.rn.f16x2", lambda x, y, z: x * y), ("fma.rn.f16x2", lambda x, y, z: x * y + z)):
        exact = [f(q(x, "f16"), q(y, "f16"), q(z, "f16")) for x, y, z in pairs]
        assume(all(e != 0 for e in exact))
        n = 3 if text.startswith("fma") else 2
        got = op(text, [a, b, c][:n])
        assert got == round_rne(exact[0], "f16") | (round_rne(exact[1], "f16") << 16), text


@SETTINGS
@given(F16, F16, F16, F16)
def test_bf16x2_fma_rounds_each_half_once(a0: int, a1: int, b0: int, b1: int) -> None:
    assume(all(finite(v, "bf16") for v in (a0, a1, b0, b1)))
    one_pair = 0x3F80 | (0x3F80 << 16)
    exact = [q(a0, "bf16") + q(b0, "bf16"), q(a1, "bf16") + q(b1, "bf16")]
    assume(all(e != 0 for e in exact))
    got = op("fma.rn.bf16x2", [a0 | (a1 << 16), one_pair, b0 | (b1 << 16)])
    assert got == round_rne(exact[0], "bf16") | (round_rne(exact[1], "bf16") << 16)


def test_scalar_f16_and_bf16_add() -> None:
    assert op("add.rn.f16", [0x3C00, 0x3C00], 16) == 0x4000  # 1 + 1 = 2
    assert op("add.rn.bf16", [0x3F80, 0x3F80], 16) == 0x4000
    assert op("add.rn.f16", [0x7BFF, 0x7BFF], 16) == 0x7C00  # 65504 + 65504 overflows to inf


def test_neg_and_abs_change_only_sign_bits_of_every_half() -> None:
    assert op("neg.f32", [ONE]) == ONE | NEG0
    assert op("neg.f32", [NAN32]) == NAN32 | NEG0
    assert op("abs.f32", [ONE | NEG0]) == ONE
    assert op("abs.f64", [encode_float(-2.0, "f64")], 64) == encode_float(2.0, "f64")
    assert op("neg.f16x2", [0x3C00BC00]) == 0xBC003C00
    assert op("abs.bf16x2", [0xBF80BF80]) == 0x3F803F80
    assert op("neg.f16", [0x3C00], 16) == 0xBC00
    assert op("abs.ftz.f32", [SUB32 | NEG0]) == 0
    assert op("neg.ftz.f32", [SUB32]) == NEG0
    assert op("abs.f32", [SUB32 | NEG0]) == SUB32


# ----------------------------------------------------------------- min / max
def test_min_max_order_minus_zero_below_plus_zero() -> None:
    """PTX ISA min/max semantics: "-0.0 < +0.0 here", whichever operand order."""
    assert op("min.f32", [0, NEG0]) == NEG0
    assert op("min.f32", [NEG0, 0]) == NEG0
    assert op("max.f32", [NEG0, 0]) == 0
    assert op("max.f32", [0, NEG0]) == 0
    assert op("min.NaN.f32", [0, NEG0]) == NEG0
    zero64, neg0_64 = 0, 1 << 63
    assert op("min.f64", [zero64, neg0_64], 64) == neg0_64
    assert op("max.f64", [neg0_64, zero64], 64) == zero64
    assert op("min.f16x2", [0x00008000, 0x80000000]) == 0x80008000


def test_min_max_return_the_number_unless_nan_is_asked_for() -> None:
    assert op("min.f32", [NAN32, TWO]) == TWO
    assert op("max.f32", [ONE, NAN32]) == ONE
    assert is_nan(op("min.f32", [NAN32, NAN32]), "f32")
    assert is_nan(op("min.NaN.f32", [NAN32, TWO]), "f32")
    assert is_nan(op("max.NaN.f32", [ONE, NAN32]), "f32")
    assert op("min.f32", [ONE, TWO]) == ONE
    assert op("max.f32", [ONE, TWO]) == TWO
    assert op("max.f16x2", [0x3C004000, 0x40003C00]) == 0x40004000


# ----------------------------------------------------------------- copysign, testp
def test_copysign_takes_the_sign_of_the_first_operand() -> None:
    """PTX: ``copysign d, a, b`` copies the sign bit of a into b."""
    assert op("copysign.f32", [NEG0, TWO]) == TWO | NEG0
    assert op("copysign.f32", [0, TWO | NEG0]) == TWO
    assert op("copysign.f64", [1 << 63, encode_float(3.0, "f64")], 64) == encode_float(-3.0, "f64")


@pytest.mark.parametrize(("bits", "width", "fmt"), [
    (ONE, 32, "f32"), (SUB32, 32, "f32"), (0x00800000, 32, "f32"), (0, 32, "f32"), (INF32, 32, "f32"),
    (NAN32, 32, "f32"), (0x007FFFFF | NEG0, 32, "f32"), (1, 64, "f64"), (encode_float(2.0**-1022, "f64"), 64, "f64"),
    (encode_float(-math.inf, "f64"), 64, "f64"), (encode_float(math.nan, "f64"), 64, "f64"),
])
def test_testp_classifies_like_ieee(bits: int, width: int, fmt: str) -> None:
    x = decode_float(bits, fmt)
    tiny = 2.0 ** -126 if fmt == "f32" else 2.0 ** -1022
    expected = {"finite": math.isfinite(x), "infinite": math.isinf(x), "number": not math.isnan(x),
                "notanumber": math.isnan(x), "normal": math.isfinite(x) and abs(x) >= tiny,
                "subnormal": x != 0 and abs(x) < tiny}
    reg = "%r1" if width == 32 else "%rd1"
    for name, want in expected.items():
        m = run_lines([f"mov.b{width} {reg}, {bits};", f"testp.{name}.{fmt} %p1, {reg};"])
        assert value(m, "%p1") == int(want), name


# ----------------------------------------------------------------- refusals
def test_missing_operands_and_testp_without_a_test_are_refused_naming_the_line() -> None:
    with pytest.raises(KernelError, match="expects 2 source operands") as e:
        run_lines(["mov.b32 %r1, 0;", "add.f32 %r2, %r1;"])
    assert e.value.line == 8
    with pytest.raises(KernelError, match="testp needs") as e:
        run_lines(["mov.b32 %r1, 0;", "testp.f32 %p1, %r1;"])
    assert e.value.line == 8


@pytest.mark.parametrize("root", ["ex2", "lg2", "sin", "cos", "tanh", "rsqrt"])
def test_an_approximate_function_without_its_source_operand_is_refused_naming_the_line(root: str) -> None:
    # PTX ISA: ex2/lg2/sin/cos/tanh/rsqrt take one source (``ex2.approx.f32 d, a``); the result is unknown, but
    # a missing source is still an error
    with pytest.raises(KernelError, match="expects 1 source operands") as e:
        run_lines(["mov.b32 %r1, 0;", f"{root}.approx.f32 %r2;"])
    assert e.value.line == 8


def test_f64_fma_recovers_the_rounding_error_of_the_product() -> None:
    # fma(a, b, -fl(a*b)) is exactly a*b - fl(a*b) (representable): the tracer knows it and gets every bit
    a = 1.5 + 2.0**-30
    c = -(a * a)
    exact = Fraction(a) * Fraction(a) + Fraction(c)
    assert exact != 0
    bits = [encode_float(v, "f64") for v in (a, a, c)]
    assert op("fma.rn.f64", bits, 64) == round_rne(exact, "f64")


# ----------------------------------------------------------------- .sat with an inexact sum, fma.f64 error terms
def test_sat_of_a_negative_inexact_result_is_plus_zero() -> None:
    # PTX ISA .sat: the result is clamped to [0.0, 1.0] (libdevice __nv_saturatef: +0.0 for x < 0); -1 - 2**-149 is
    # not a float64, so the sum carries a rounding error that must not survive the clamp as a -0.0
    assert op("add.sat.f32", [ONE | NEG0, SUB32 | NEG0]) == 0
    assert op("fma.rn.sat.f32", [ONE | NEG0, ONE, SUB32 | NEG0]) == 0


def test_sat_of_a_result_inside_zero_one_rounds_the_exact_value_once() -> None:
    # a*b + c = 0.5 + 2**-24 + 2**-25 - 2**-71: just below the f32 tie between 0.5 + 2**-24 (odd) and 0.5 + 2**-23,
    # while its float64 sum is the tie itself; .sat must not lose the error term that breaks the false tie
    a, b, c = encode_float(2.0**-25 * (1 + 2.0**-23), "f32"), encode_float(1 - 2.0**-23, "f32"), \
        encode_float(0.5 + 2.0**-24, "f32")
    exact = q(a, "f32") * q(b, "f32") + q(c, "f32")
    assert round_rne(exact, "f32") == encode_float(0.5 + 2.0**-24, "f32")
    assert op("fma.rn.sat.f32", [a, b, c]) == round_rne(exact, "f32")


def test_min_max_of_a_zero_and_a_number_and_of_two_minus_zeros() -> None:
    assert op("max.f32", [0, TWO]) == TWO
    assert op("max.f32", [TWO | NEG0, 0]) == 0
    assert op("min.f32", [0, TWO | NEG0]) == TWO | NEG0
    assert op("min.f32", [TWO, NEG0]) == NEG0
    assert op("min.f32", [NEG0, NEG0]) == NEG0
    assert op("max.f32", [NEG0, NEG0]) == NEG0


def test_f64_fma_of_a_product_with_a_large_rounding_error_is_exact() -> None:
    # fma(a, b, -fl(a*b)) = a*b - fl(a*b) exactly; a is near 2**41, so the product's error is near 2**-12
    a, b = float.fromhex("0x1.f72dea34889d9p+40"), float.fromhex("0x1.01f80dbc0915ap+0")
    c = -(a * b)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    assert exact != 0
    assert op("fma.rn.f64", [encode_float(v, "f64") for v in (a, b, c)], 64) == round_rne(exact, "f64")


def test_f64_fma_whose_float64_steps_round_twice_is_not_reported_wrong() -> None:
    # 3 * b is a tie in float64 (b * 2**53 = 2 mod 4) and fl(3b) + c drops a half-ulp too: the two halves land on
    # an odd float64, while the exact a*b + c rounds to its even neighbour.  Known only if right.
    k = int(0.7 * 2**53)
    k += (2 - k % 4) % 4
    a, b, c = 3.0, k * 2.0**-53, -(0.75 + 2.0**-53)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    got = op("fma.rn.f64", [encode_float(v, "f64") for v in (a, b, c)], 64)
    assert got is None or got == round_rne(exact, "f64")


def test_a_float_instruction_with_more_sources_than_the_tracer_reads_is_refused_naming_the_line() -> None:
    # PTX ISA 8.8 / sm_100: min.f32 and max.f32 take a third source (d = min(a, b, c)); read as a two-source min
    # it would be known and wrong (min(2, 3) = 2, not 1), so the tracer refuses the form it does not model
    for text in ("min.f32 %r7, %r1, %r2, %r3;", "max.NaN.f32 %r7, %r1, %r2, %r3;", "add.f32 %r7, %r1, %r2, %r3;"):
        with pytest.raises(KernelError, match="expects 2 source operands") as e:
            run_lines([f"mov.b32 %r1, {TWO};", "mov.b32 %r2, 0x40400000;", f"mov.b32 %r3, {ONE};", text])
        assert e.value.line == 10, text


# ----------------------------------------------------------------- min/max .xorsign.abs and .relu
@SETTINGS
@given(st.integers(0, 0x7FFFFFFF), st.integers(0, 0x7FFFFFFF), st.booleans(), st.booleans(),
       st.sampled_from(["min", "max"]))
def test_xorsign_abs_picks_by_magnitude_and_signs_the_result_with_the_xor_of_the_signs(
        magnitude_a: int, magnitude_b: int, negative_a: bool, negative_b: bool, root: str) -> None:
    """PTX ISA min/max ``.xorsign.abs`` (sm_86): min/max of |a| and |b|, sign bit = sign(a) XOR sign(b); a NaN input
    leaves the result unknown (the ISA does not say which NaN).  Signs are drawn apart from magnitudes so that
    every sign pair occurs."""
    a, b = magnitude_a | (negative_a << 31), magnitude_b | (negative_b << 31)
    got = op(f"{root}.xorsign.abs.f32", [a, b])
    x, y = decode_float(a, "f32"), decode_float(b, "f32")
    if math.isnan(x) or math.isnan(y):
        assert got is None
        return
    magnitudes = sorted([(abs(x), a & 0x7FFFFFFF), (abs(y), b & 0x7FFFFFFF)], key=lambda pair: pair[0])
    picked = (magnitudes[0] if root == "min" else magnitudes[1])[1]
    assert got == picked | ((a ^ b) & 0x80000000)


def test_xorsign_abs_examples_and_relu_clamps_negative_halves_to_plus_zero() -> None:
    three, minus = 0x40400000, 0x80000000
    assert op("min.xorsign.abs.f32", [TWO, 0x40400000 | minus]) == TWO | minus  # min(2, -3) -> -2
    assert op("max.xorsign.abs.f32", [TWO | minus, three | minus]) == three  # max(-2, -3) -> +3
    # f16x2 halves (-1.0, 2.0) and (-3.0, 1.0): max is (-1.0, 2.0), .relu makes the -1.0 +0
    assert op("max.relu.f16x2", [0x4000BC00, 0x3C00C200]) == 0x40000000
    assert op("min.relu.bf16x2", [0x3F80BF80, 0x4000C040]) == 0x3F800000  # min(-1, -3) -> 0, min(1, 2) -> 1


def test_abs_keeps_a_positive_value_and_clears_only_negative_signs() -> None:
    """PTX ISA abs: |a| -- a positive operand is unchanged, in every half of a packed operand."""
    assert op("abs.f32", [ONE]) == ONE
    assert op("abs.f32", [NAN32]) == NAN32  # abs changes the sign bit only
    assert op("abs.f16x2", [0x3C00BC00]) == 0x3C003C00  # halves (-1.0, 1.0) -> (1.0, 1.0)
    assert op("abs.f64", [encode_float(2.0, "f64")], 64) == encode_float(2.0, "f64")


def test_xorsign_abs_and_relu_leave_the_result_unknown_when_either_or_both_inputs_are_nan() -> None:
    """The modified min/max forms: which NaN (or number) a NaN operand gives is not stated, so the result is
    unknown whether one input or both are NaN."""
    for text in ("min.xorsign.abs.f32", "max.xorsign.abs.f32", "min.relu.f32", "max.relu.f32"):
        assert op(text, [NAN32, TWO]) is None, text
        assert op(text, [TWO, NAN32]) is None, text
        assert op(text, [NAN32, NAN32 | NEG0]) is None, text
    assert op("max.relu.f32", [TWO, ONE]) == TWO  # both numbers: known

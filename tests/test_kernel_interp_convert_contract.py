"""Comparisons, selections and conversions of the tracer (PTX ISA 8.x setp, set, slct, cvt, cvta) against
Python oracles: IEEE ordered/unordered comparisons, the cvt rounding modifiers with saturation (NaN -> 0,
out-of-range -> the type's bound, 64-bit bounds included), exact single rounding of 64-bit integers to float."""

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
ONE, TWO, NAN32, NEG0 = 0x3F800000, 0x40000000, 0x7FC00000, 0x80000000
INT_TYPES = ["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"]
FLOAT_CMPS = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
F32_SAMPLES = [0, NEG0, ONE, TWO, 0xBF800000, NAN32, 0x7F800000, 0xFF800000, 0x00000001]


def float_cmp_ref(cmp: str, x: float, y: float) -> bool:
    """ISA: ordered comparisons are false with a NaN operand, the ``u`` forms true; num/nan test both."""
    unordered = math.isnan(x) or math.isnan(y)
    if cmp == "num":
        return not unordered
    if cmp == "nan":
        return unordered
    base = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[cmp.rstrip("u")]
    if cmp.endswith("u") and cmp != "num":
        return unordered or base
    return (not unordered) and base


@pytest.mark.parametrize("cmp", FLOAT_CMPS)
def test_setp_float_comparisons_follow_ieee_ordering(cmp: str) -> None:
    for a in F32_SAMPLES:
        for b in F32_SAMPLES:
            want = float_cmp_ref(cmp, decode_float(a, "f32"), decode_float(b, "f32"))
            assert op(f"setp.{cmp}.f32", [a, b], dest="%p1") == int(want), (hex(a), hex(b))


def test_setp_ftz_compares_subnormals_as_zero() -> None:
    assert op("setp.gt.f32", [1, 0], dest="%p1") == 1
    assert op("setp.gt.ftz.f32", [1, 0], dest="%p1") == 0
    assert op("setp.eq.ftz.f32", [0x80000001, 0], dest="%p1") == 1


def test_setp_f64_and_half_comparisons() -> None:
    one64, two64 = encode_float(1.0, "f64"), encode_float(2.0, "f64")
    assert op("setp.lt.f64", [one64, two64], 64, dest="%p1") == 1
    assert op("setp.ltu.f64", [encode_float(math.nan, "f64"), two64], 64, dest="%p1") == 1
    assert op("setp.lt.f16", [0xBC00, 0x3C00], 16, dest="%p1") == 1  # -1 < 1 (unsigned bits would say no)


def test_setp_combines_with_a_predicate_and_writes_the_complement_pair() -> None:
    lines = ["mov.b32 %r1, 1;", "mov.b32 %r2, 2;", "setp.eq.u32 %p3, %r1, %r1;", "setp.eq.u32 %p4, %r1, %r2;",
             "setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;",   # (1<2) and T, !(1<2) and T
             "setp.lt.or.s32 %p5|%p6, %r2, %r1, %p4;",    # (2<1) or F, !(2<1) or F
             "setp.lt.xor.s32 %p7, %r1, %r2, %p3;"]       # T xor T
    m = run_lines(lines)
    assert [value(m, f"%p{k}") for k in (1, 2, 5, 6, 7)] == [1, 0, 0, 1, 0]
    m = run_lines(["mov.b32 %r1, 1;", "mov.b32 %r2, 2;", "setp.eq.u32 %p3, %r1, %r1;",
                   "setp.lt.and.s32 %p1, %r1, %r2, !%p3;"])
    assert value(m, "%p1") == 0


@pytest.mark.parametrize(("dtype", "true_bits"), [("u32", 0xFFFFFFFF), ("s32", 0xFFFFFFFF), ("f32", ONE)])
def test_set_writes_all_ones_or_one_point_zero(dtype: str, true_bits: int) -> None:
    assert op(f"set.lt.{dtype}.f32", [ONE, TWO]) == true_bits
    assert op(f"set.lt.{dtype}.f32", [TWO, ONE]) == 0
    assert op(f"set.nan.{dtype}.f32", [NAN32, ONE]) == true_bits
    assert op(f"set.lo.{dtype}.u32", [1, 0xFFFFFFFF]) == true_bits
    assert op(f"set.lt.{dtype}.s32", [1, 0xFFFFFFFF]) == 0  # 1 < -1 is false signed
    m = run_lines(["mov.b32 %r1, 1;", "mov.b32 %r2, 2;", "setp.ne.u32 %p1, %r1, %r1;",
                   f"set.lt.and.{dtype}.u32 %r7, %r1, %r2, %p1;", f"set.lt.or.{dtype}.u32 %r8, %r2, %r1, !%p1;"])
    assert (value(m, "%r7"), value(m, "%r8")) == (0, true_bits)


def test_slct_picks_on_the_sign_of_the_third_operand() -> None:
    """ISA: ``slct d, a, b, c``: d = (c >= 0) ? a : b; the .f32 form compares c as a float (-0.0 >= 0)."""
    assert op("slct.u32.s32", [7, 9, 0]) == 7
    assert op("slct.u32.s32", [7, 9, 0xFFFFFFFF]) == 9
    assert op("slct.u32.s32", [7, 9, 0x7FFFFFFF]) == 7
    assert op("slct.s32.f32", [7, 9, NEG0]) == 7
    assert op("slct.s32.f32", [7, 9, 0xBF800000]) == 9
    assert op("slct.f32.f32", [ONE, TWO, ONE]) == ONE


# ----------------------------------------------------------------- cvt float -> int
def f2i_ref(x: Fraction | float, mode: str, dtype: str) -> int:
    w = int(dtype[1:])
    lo, hi = (-(2 ** (w - 1)), 2 ** (w - 1) - 1) if dtype[0] == "s" else (0, 2 ** w - 1)
    if isinstance(x, float):  # NaN -> 0, infinities saturate
        n = 0 if math.isnan(x) else (hi if x > 0 else lo)
    else:
        n = {"rni": round(x), "rzi": int(x), "rmi": math.floor(x), "rpi": math.ceil(x)}[mode]
    return min(max(n, lo), hi) & ((1 << w) - 1)


SPECIAL64 = [encode_float(v, "f64") for v in (0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e30, -1e30, 2.0**63, 2.0**64,
                                               2.0**63 - 1024, -(2.0**63), 255.5, -129.0, 65535.7, math.nan,
                                               math.inf, -math.inf, 2.0**32, 4294967295.5)]


@pytest.mark.parametrize("dtype", INT_TYPES)
@pytest.mark.parametrize("mode", ["rni", "rzi", "rmi", "rpi"])
def test_cvt_float_to_int_rounds_then_saturates(dtype: str, mode: str) -> None:
    w = int(dtype[1:])
    dest = "%rd7" if w == 64 else "%r7"
    for bits in SPECIAL64:
        got = op(f"cvt.{mode}.{dtype}.f64", [bits], 64, dest=dest)
        assert got is not None
        assert got & ((1 << w) - 1) == f2i_ref(to_fraction(bits, "f64"), mode, dtype), decode_float(bits, "f64")


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from(["rni", "rzi", "rmi", "rpi"]), st.sampled_from(["s32", "u32"]))
def test_cvt_f32_to_32_bit_int_matches_the_isa(bits: int, mode: str, dtype: str) -> None:
    assert op(f"cvt.{mode}.{dtype}.f32", [bits]) == f2i_ref(to_fraction(bits, "f32"), mode, dtype)


def test_cvt_ftz_flushes_a_subnormal_source() -> None:
    assert op("cvt.rpi.s32.f32", [1]) == 1  # ceil of a tiny positive number
    assert op("cvt.rpi.ftz.s32.f32", [1]) == 0


# ----------------------------------------------------------------- cvt int -> float
@SETTINGS
@given(st.integers(0, 2**64 - 1), st.sampled_from(["f16", "f32", "f64"]), st.booleans())
def test_cvt_64_bit_int_to_float_rounds_once(bits: int, dtype: str, is_signed: bool) -> None:
    x = bits - (1 << 64) if is_signed and bits >> 63 else bits
    stype = "s64" if is_signed else "u64"
    dest = {"f16": "%h7", "f32": "%r7", "f64": "%rd7"}[dtype]
    want = round_rne(Fraction(x), dtype)
    assert op(f"cvt.rn.{dtype}.{stype}", [bits], 64, dest=dest) == want
    exact = to_fraction(want, dtype) == x
    assert (op(f"cvt.rz.{dtype}.{stype}", [bits], 64, dest=dest) is not None) == exact


@pytest.mark.parametrize("x", [2**63 + 2**39 + 1, 2**63 + 2**39, 2**64 - 1, 2**24 + 1, (1 << 62) + (1 << 38) + 1])
def test_cvt_u64_to_f32_is_not_rounded_twice(x: int) -> None:
    """2**63 + 2**39 + 1 lies just above an f32 tie; through float64 first it becomes the tie and rounds down."""
    assert op("cvt.rn.f32.u64", [x], 64) == round_rne(Fraction(x), "f32")
    assert op("cvt.rn.f32.s64", [(-x) % 2**64], 64) == round_rne(Fraction(-x), "f32") or x >= 2**63


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from(["s32", "u32"]))
def test_cvt_32_bit_int_to_f16_and_f32(bits: int, stype: str) -> None:
    x = bits - (1 << 32) if stype == "s32" and bits >> 31 else bits
    assert op(f"cvt.rn.f32.{stype}", [bits]) == round_rne(Fraction(x), "f32")
    assert op(f"cvt.rn.f16.{stype}", [bits], dest="%h7") == round_rne(Fraction(x), "f16")
    assert op(f"cvt.rn.f64.{stype}", [bits], dest="%rd7") == encode_float(float(x), "f64")


# ----------------------------------------------------------------- cvt float -> float
@SETTINGS
@given(st.integers(0, 2**64 - 1))
def test_cvt_f64_to_narrow_floats_rounds_to_nearest_even(bits: int) -> None:
    v = to_fraction(bits, "f64")
    assume(isinstance(v, Fraction) and v != 0)
    x = Fraction(v)
    assert op("cvt.rn.f32.f64", [bits], 64, dest="%r7") == round_rne(x, "f32")
    assert op("cvt.rn.f16.f64", [bits], 64, dest="%h7") == round_rne(x, "f16")
    assert op("cvt.rn.bf16.f64", [bits], 64, dest="%h7") == round_rne(x, "bf16")


def test_cvt_float_to_float_modifiers() -> None:
    assert op("cvt.f32.f16", [0x3C00], 16, dest="%r7") == ONE  # widening is exact, no rounding modifier needed
    assert op("cvt.f64.f32", [ONE], dest="%rd7") == encode_float(1.0, "f64")
    two_and_half = encode_float(2.5, "f32")
    assert op("cvt.rni.f32.f32", [two_and_half]) == TWO
    assert op("cvt.rpi.f32.f32", [two_and_half]) == encode_float(3.0, "f32")
    assert op("cvt.rmi.f32.f32", [encode_float(-2.5, "f32")]) == encode_float(-3.0, "f32")
    assert op("cvt.rzi.f32.f32", [encode_float(-2.5, "f32")]) == encode_float(-2.0, "f32")
    assert op("cvt.sat.f32.f32", [encode_float(1.5, "f32")]) == ONE
    assert op("cvt.sat.f32.f32", [NAN32]) == 0
    assert op("cvt.sat.f32.f32", [0xBF800000]) == 0
    assert op("cvt.ftz.f32.f32", [1]) == 0
    assert op("cvt.f32.f32", [1]) == 1
    assert op("cvt.rn.relu.f16.f32", [0xBF800000], dest="%h7") == 0
    assert math.isnan(decode_float(op("cvt.rn.relu.f16.f32", [NAN32], dest="%h7") or 0, "f16"))
    assert op("cvt.rn.f16.f32", [encode_float(65520.0, "f32")], dest="%h7") == 0x7C00  # past f16 max: inf
    assert op("cvt.rz.f16.f32", [encode_float(1.0 + 2.0**-12, "f32")], dest="%h7") is None  # inexact, directed
    assert op("cvt.rz.f16.f32", [ONE], dest="%h7") == 0x3C00  # exact: known


def test_cvt_packs_two_f32_into_f16x2_and_bf16x2_first_operand_high() -> None:
    assert op("cvt.rn.f16x2.f32", [ONE, TWO]) == (0x3C00 << 16) | 0x4000
    assert op("cvt.rn.bf16x2.f32", [ONE, 0xBF800000]) == (0x3F80 << 16) | 0xBF80
    assert op("cvt.rn.relu.f16x2.f32", [0xBF800000, ONE]) == 0x3C00
    assert op("cvt.rz.f16x2.f32", [ONE, TWO]) is None


def test_fp8_and_packed_source_conversions_are_unknown() -> None:
    assert op("cvt.rn.satfinite.e4m3x2.f32", [ONE, TWO], dest="%h7") is None
    assert op("cvt.f32.f16x2", [0x3C003C00]) is None


def test_cvta_round_trips_between_shared_and_generic() -> None:
    m = run_lines(["mov.b64 %rd1, 1024;", "cvta.shared.u64 %rd2, %rd1;", "cvta.to.shared.u64 %rd3, %rd2;",
                   "cvta.global.u64 %rd4, %rd1;"])
    assert value(m, "%rd3") == 1024
    assert value(m, "%rd2") != 1024
    assert value(m, "%rd4") == 1024  # global addresses are generic ones


@pytest.mark.parametrize(("line", "message"), [
    ("cvt.s32 %r7, %r1;", "cvt needs .dtype.atype"),
    ("cvt.s32.f32 %r7, %r1;", "float-to-int cvt needs"),
    ("cvta.u64 %rd7, %rd1;", "cvta needs a state space"),
    ("set.lt.f32 %r7, %r1, %r1;", "set needs .dtype.stype"),
    ("set.u32.f32 %r7, %r1, %r1;", "set needs a comparison"),
    ("slct.u32 %r7, %r1, %r1, %r1;", "slct needs .dtype.ctype"),
    ("setp.f32 %p1, %r1, %r1;", "no comparison operator"),
    ("setp.lt.f16x2 %p1, %r1, %r1;", "packed half comparisons"),
    ("selp.b32 %r7, %r1, %r1, %p1, %r1;", "selp expects d, a, b, c"),  # an extra operand is not ignored
    ("selp.b32 %r7, %r1, %r1;", "selp expects d, a, b, c"),
    ("cvt.rm.tf32.f32 %r7, %r1;", "cvt to .tf32 needs .rna, .rn or .rz"),  # the ISA's tf32 roundings
    ("cvt.rna.tf32.f16 %r7, %h1;", "cvt to .tf32 needs .rna, .rn or .rz and an .f32 source"),
])
def test_malformed_comparisons_and_conversions_are_refused_naming_the_line(line: str, message: str) -> None:
    with pytest.raises(KernelError, match=message) as e:
        run_lines(["mov.b32 %r1, 0;", "mov.b64 %rd1, 0;", line])
    assert e.value.line == 9


def test_saturating_int_conversion_clamps_to_the_signed_destination_range() -> None:
    m = run_lines(["mov.b32 %r1, 20000;", "cvt.sat.s16.s32 %h1, %r1;", "mov.b32 %r2, 40000;", "cvt.sat.s16.s32 %h2, %r2;",
                   "mov.b32 %r3, 100;", "cvt.sat.s8.s32 %r4, %r3;", "mov.b32 %r5, -300;", "cvt.sat.s8.s32 %r6, %r5;"])
    assert value(m, "%h1") == 20000 and value(m, "%h2") == 0x7FFF
    assert value(m, "%r4") == 100 and value(m, "%r6") == (-128) & 0xFFFFFFFF


# ----------------------------------------------------------------- survivors (kernel_full sweep, convert.py)
UNSIGNED_CMP_TYPES = ["u16", "u32", "u64", "b16", "b32", "b64"]


@pytest.mark.parametrize("t", UNSIGNED_CMP_TYPES)
@pytest.mark.parametrize("cmp", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_setp_on_unsigned_and_bit_types_compares_unsigned(t: str, cmp: str) -> None:
    """ISA setp: .u and .b types compare as unsigned integers (the top bit is no sign)."""
    w = int(t[1:])
    samples = [0, 1, 1 << (w - 1), (1 << w) - 1]
    for a in samples:
        for b in samples:
            want = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[cmp]
            assert op(f"setp.{cmp}.{t}", [a, b], w, dest="%p1") == int(want), (hex(a), hex(b))


def test_selp_under_an_unknown_predicate_is_known_only_where_both_choices_agree() -> None:
    from kernel_interp_harness import lanes, launch

    m = launch("ld.global.u32 %r20, [%rd14];\nsetp.ne.u32 %p1, %r20, 0;\n"
               "selp.u32 %r1, 7, 7, %p1;\nselp.u32 %r2, 7, 9, %p1;\nselp.u32 %r3, %r20, 7, %p1;")
    assert lanes(m, "%r1") == [7] * 32
    assert lanes(m, "%r2") == [None] * 32
    assert lanes(m, "%r3") == [None] * 32


def int_cvt_ref(bits: int, atype: str, dtype: str, sat: bool) -> int:
    """ISA cvt int->int: the source read as atype; .sat clamps to dtype's MININT..MAXINT, else the low bits."""
    aw, dw = int(atype[1:]), int(dtype[1:])
    x = bits & ((1 << aw) - 1)
    if atype[0] == "s" and x >> (aw - 1):
        x -= 1 << aw
    if sat:
        lo, hi = (-(1 << (dw - 1)), (1 << (dw - 1)) - 1) if dtype[0] == "s" else (0, (1 << dw) - 1)
        x = min(max(x, lo), hi)
    return x & ((1 << dw) - 1)


EDGE_INTS = sorted({v for k in (7, 8, 15, 16, 31, 32, 63, 64) for v in ((1 << k) - 1, 1 << k, (1 << k) + 1)}
                   | {0, 1, 2, 100})


@pytest.mark.parametrize("atype", INT_TYPES)
@pytest.mark.parametrize("dtype", INT_TYPES)
def test_cvt_int_to_int_saturates_to_the_destination_range(dtype: str, atype: str) -> None:
    aw, dw = int(atype[1:]), int(dtype[1:])
    width = 64 if aw == 64 else 32
    dest = "%rd7" if dw == 64 else "%r7"
    mask = (1 << aw) - 1
    for v in sorted({v & mask for v in EDGE_INTS} | {(-v) & mask for v in EDGE_INTS}):
        for sat in (True, False):
            got = op(f"cvt{'.sat' if sat else ''}.{dtype}.{atype}", [v], width, dest=dest)
            assert got is not None
            assert got & ((1 << dw) - 1) == int_cvt_ref(v, atype, dtype, sat), (hex(v), sat)


HALF_SOURCES = {
    "f16": [0x0000, 0x8000, 0x3C00, 0x7C00, 0xFC00, 0x7E00, 0x3C01, 0xBC03, 0x7BFF, 0x0001, 0x8001, 0x3C02],
    "bf16": [0x0000, 0x8000, 0x3F80, 0x7F80, 0xFF80, 0x7FC0, 0x3F81, 0x4780, 0xC780, 0x477F, 0x3380, 0x3300,
             0x33C0, 0x0001, 0x8001],
}


@pytest.mark.parametrize(("dtype", "atype"), [("bf16", "f16"), ("f16", "bf16"), ("f32", "f16"), ("f32", "bf16")])
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_cvt_between_half_formats_rounds_and_directed_modes_are_known_only_when_exact(
        dtype: str, atype: str, mode: str) -> None:
    """bf16 <-> f16 neither holds the other (range vs precision): .rn rounds to nearest even (overflow to
    infinity, ties to even), a directed rounding of an inexact value is documented as unknown."""
    dest = "%r7" if dtype == "f32" else "%h7"
    for bits in HALF_SOURCES[atype]:
        x = decode_float(bits, atype)
        got = op(f"cvt.{mode}.{dtype}.{atype}", [bits], 16, dest=dest)
        if math.isnan(x):
            assert got is not None and math.isnan(decode_float(got, dtype)), hex(bits)
            continue
        if math.isinf(x):
            want = encode_float(x, dtype)
            exact = True
        else:
            want = round_rne(Fraction(x), dtype, negative_zero=math.copysign(1.0, x) < 0)
            exact = decode_float(want, dtype) == x
        if mode == "rn" or exact:
            assert got == want, (hex(bits), hex(want), got)
        else:
            assert got is None, hex(bits)


F32_MIN_NORMAL = 2.0 ** -126


@pytest.mark.parametrize("x", [1.0, -1.5, 2.0 ** -20, -(2.0 ** -24), 2.0 ** -130, -(2.0 ** -140), 0.0, -0.0,
                               F32_MIN_NORMAL, math.inf])
def test_cvt_ftz_flushes_f32_subnormals_only_source_to_f16_and_result_from_f64(x: float) -> None:
    """ISA cvt .ftz: .f32 subnormal inputs and results become sign-preserving zero; other formats' subnormals
    (an f16 result such as 2**-20) are kept."""
    def flushed(v: float) -> float:
        return math.copysign(0.0, v) if v != 0 and abs(v) < F32_MIN_NORMAL else v

    f32_bits = encode_float(x, "f32") if x == 0 or abs(x) >= 2.0 ** -149 else None
    if f32_bits is not None and decode_float(f32_bits, "f32") == x:
        src = flushed(x)
        want16 = round_rne(Fraction(src), "f16", math.copysign(1.0, src) < 0) if math.isfinite(src) \
            else encode_float(src, "f16")
        assert op("cvt.rn.ftz.f16.f32", [f32_bits], dest="%h7") == want16
    # f64 -> f32: the rounded f32 result is flushed when subnormal
    want32 = round_rne(Fraction(x), "f32", math.copysign(1.0, x) < 0) if math.isfinite(x) else encode_float(x, "f32")
    want32 = encode_float(flushed(decode_float(want32, "f32")), "f32")
    assert op("cvt.rn.ftz.f32.f64", [encode_float(x, "f64")], 64, dest="%r7") == want32


TF32_MAX = (2 - Fraction(1, 2**10)) * Fraction(2) ** 127


def tf32_ref(bits: int, mode: str, satfinite: bool = False) -> int:
    """PTX ISA cvt to .tf32 (1 sign, 8 exponent, 10 fraction bits, held as an f32): the f32 value rounded to
    10 fraction bits at its exponent (subnormals at 2**-136), .rna ties away, .rn ties to even, .rz toward
    zero; past the largest tf32 it overflows to infinity, .satfinite clamps to the largest finite."""
    sign = -1 if bits >> 31 else 1
    exp = (bits >> 23) & 0xFF
    if exp == 0xFF:  # infinity (NaN is not asked)
        return (bits & 0x80000000) | 0x7F7FE000 if satfinite else bits
    a = abs(Fraction(to_fraction(bits, "f32")))  # finite here
    quantum = Fraction(2) ** ((exp - 127 if exp else -126) - 10)
    q = a / quantum
    n = math.floor(q)
    rest = q - n
    if mode == "rna":
        n += rest >= Fraction(1, 2)
    elif mode == "rn":
        n += rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1)
    r = n * quantum
    if r > TF32_MAX:
        if satfinite or mode == "rz":
            r = TF32_MAX
        else:
            return (bits & 0x80000000) | 0x7F800000
    return encode_float(float(sign * r), "f32") if r else bits & 0x80000000


TF32_EDGES = [0, NEG0, ONE, 0x3F800FFF, 0x3F801000, 0x3F801001, 0x3F802000, 0x3F803000, 0x3F801FFF, 0xBF801000,
              0xBF803000, 0x7F7FFFFF, 0x7F7FF000, 0x7F7FEFFF, 0x7F7FE000, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
              0x00000001, 0x00001000, 0x00001001, 0x00003000, 0x807FFFFF, 0x007FF000, 0x007FFFFF, 0x00800FFF]


@pytest.mark.parametrize("form", ["rna", "rn", "rz", "rna.satfinite"])
def test_cvt_to_tf32_rounds_away_the_low_13_fraction_bits(form: str) -> None:
    mode, satfinite = form.split(".")[0], form.endswith("satfinite")
    lines = [f"mov.b32 %r{2 * k}, {x};\ncvt.{form}.tf32.f32 %r{2 * k + 1}, %r{2 * k};" for k, x in enumerate(TF32_EDGES)]
    m = run_lines(lines, f".reg .b32 %r<{2 * len(TF32_EDGES)}>;")
    got = [value(m, f"%r{2 * k + 1}") for k in range(len(TF32_EDGES))]
    want = [tf32_ref(x, mode, satfinite) for x in TF32_EDGES]
    bad = [(hex(x), g and hex(g), hex(w)) for x, g, w in zip(TF32_EDGES, got, want) if g != w]
    assert not bad, bad


@SETTINGS
@given(st.integers(0, 2**32 - 1).filter(lambda b: (b >> 23) & 0xFF != 0xFF), st.sampled_from(["rna", "rn", "rz"]))
def test_cvt_to_tf32_matches_the_isa_rounding(bits: int, mode: str) -> None:
    assert op(f"cvt.{mode}.tf32.f32", [bits]) == tf32_ref(bits, mode)


def test_cvt_to_tf32_matches_recorded_h100_results() -> None:
    # recorded on an H100 (sm_90): input, then cvt.rna / .rn / .rz / .rna.satfinite .tf32.f32
    rows = [(0x3F801000, 0x3F802000, 0x3F800000, 0x3F800000, 0x3F802000),
            (0x3F803000, 0x3F804000, 0x3F804000, 0x3F802000, 0x3F804000),
            (0x7F7FF000, 0x7F800000, 0x7F800000, 0x7F7FE000, 0x7F7FE000),
            (0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF7FE000),
            (0x00001000, 0x00002000, 0x00000000, 0x00000000, 0x00002000),
            (0x807FFFFF, 0x80800000, 0x80800000, 0x807FE000, 0x80800000),
            (0xDA49A04F, 0xDA49A000, 0xDA49A000, 0xDA49A000, 0xDA49A000)]
    for x, *want in rows:
        got = [op(f"cvt.{form}.tf32.f32", [x]) for form in ("rna", "rn", "rz", "rna.satfinite")]
        assert got == want, hex(x)

"""Bit-level float helpers (layoutalg.kernel.interp.floats) against the rational oracle: decode of every
format, single RNE rounding by encode (bf16 through round-to-odd f32), ftz flushing, and unknown formats."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from float_oracle import decode_float, round_rne
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from kernel_interp_scalar_harness import op

from layoutalg.kernel.interp.floats import bf16_from_f32_bits, decode, encode, flush_subnormal

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


@SETTINGS
@given(st.integers(0, 2**16 - 1), st.sampled_from(["f16", "bf16"]))
def test_decode_of_half_formats_is_exact(bits: int, fmt: str) -> None:
    got = float(decode(np.uint64(bits), fmt))
    want = decode_float(bits, fmt)
    assert (math.isnan(got) and math.isnan(want)) or (got == want and math.copysign(1, got) == math.copysign(1, want))


@SETTINGS
@given(st.integers(0, 2**64 - 1), st.sampled_from(["f16", "bf16", "f32"]))
def test_encode_rounds_a_float64_once_to_nearest_even(bits: int, fmt: str) -> None:
    x = decode_float(bits, "f64")
    assume(math.isfinite(x) and x != 0)
    assert int(encode(np.float64(x), fmt)) == round_rne(Fraction(x), fmt)


def test_bf16_encode_breaks_a_double_rounding_tie_correctly() -> None:
    """1 + 2**-8 + 2**-30 is just above a bf16 tie: rounding to f32 first (RNE) would make it the tie."""
    x = 1 + 2.0**-8 + 2.0**-30
    assert int(encode(np.float64(x), "bf16")) == round_rne(Fraction(x), "bf16") == 0x3F81


def test_flush_subnormal_zeroes_f32_subnormals_keeping_their_sign() -> None:
    xs = np.array([2.0**-149, -(2.0**-149), 2.0**-126, -1.5, 0.0])
    out = flush_subnormal(xs)
    assert list(out) == [0.0, 0.0, 2.0**-126, -1.5, 0.0]
    assert list(np.signbit(out)) == [False, True, False, True, False]


@pytest.mark.parametrize("fmt", ["f8", "e4m3", ""])
def test_unknown_formats_are_refused(fmt: str) -> None:
    with pytest.raises(ValueError, match=fmt or "^$"):
        decode(np.uint64(0), fmt)
    with pytest.raises(ValueError, match=fmt or "^$"):
        encode(np.float64(0.0), fmt)


def test_every_f32_nan_rounds_to_the_gpus_canonical_bf16_nan() -> None:
    """An H100 gives 0x7FFF for every NaN whatever its sign and payload (tests/data/h100_half_nan.json), also for
    NaNs whose payload would carry into the exponent (or vanish) under plain rounding."""
    nans = np.array([0x7FFFFFFF, 0x7F800001, 0xFF800001, 0xFFFFFFFF, 0x7FC00000, 0xFFC00000], dtype=np.uint32)
    assert [int(b) for b in bf16_from_f32_bits(nans)] == [0x7FFF] * 6
    assert [int(b) for b in encode(np.array([math.nan, -math.nan]), "f16")] == [0x7FFF] * 2
    assert [int(b) for b in encode(np.array([math.nan, -math.nan]), "bf16")] == [0x7FFF] * 2


def _f32_grid() -> list[int]:
    """f32 bit patterns around every bf16 rounding decision: low 16 bits below, at and above the tie, with an even
    and an odd bf16 last bit, both signs, normal/subnormal/largest exponents, plus zeros and infinities."""
    lows = [0x0000, 0x0001, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF]
    out = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000]
    for sign in (0, 0x80000000):
        for exp in (0, 1, 100, 126, 127, 128, 200, 254):
            for top in (0x00, 0x01, 0x40, 0x41, 0x7E, 0x7F):
                out += [sign | exp << 23 | top << 16 | low for low in lows]
    return out


def test_bf16_from_f32_bits_rounds_every_f32_to_nearest_even_and_keeps_infinities():
    """IEEE 754 roundTiesToEven from f32 to bf16 (the rational oracle), overflow of the largest finite values to
    infinity, infinities and zeros unchanged."""
    grid = _f32_grid()
    got = [int(b) for b in bf16_from_f32_bits(np.array(grid, dtype=np.uint32))]
    for f32, bf16 in zip(grid, got):
        x = decode_float(f32, "f32")
        want = (0x7F80 | (f32 >> 16 & 0x8000)) if math.isinf(x) else round_rne(Fraction(x), "bf16", f32 >> 31 == 1)
        assert bf16 == want, (hex(f32), hex(bf16), hex(want))


def test_encode_bf16_rounds_once_around_every_tie_also_off_the_f32_grid():
    """encode(x, "bf16") equals the single RNE rounding of x (rational oracle), for x on the f32 grid above and for
    x one float64 ulp either side of it -- where rounding to f32 first would round twice."""
    xs = []
    for f32 in _f32_grid():
        x = decode_float(f32, "f32")
        if math.isfinite(x) and x != 0:
            xs += [x, math.nextafter(x, math.inf), math.nextafter(x, -math.inf), x * (1 + 2.0**-40)]
    got = [int(b) for b in encode(np.array(xs), "bf16")]
    for x, bf16 in zip(xs, got):
        want = round_rne(Fraction(x), "bf16")
        assert bf16 == want, (x.hex(), hex(bf16), hex(want))


def test_a_signalling_f32_nan_becomes_a_quiet_bf16_nan():
    """IEEE 754 (7.2): converting a signalling NaN delivers a quiet NaN; the GPU's is the canonical 0x7FFF (an H100's
    cvt.rn.bf16.f32 of 0x7F800001 and 0xFF800001, tests/data/h100_half_nan.json)."""
    snans = np.array([0x7F800001, 0x7F810000, 0xFFBFFFFF, 0x7F800100], dtype=np.uint32)
    for f32, bf16 in zip(snans, bf16_from_f32_bits(snans)):
        assert int(bf16) == 0x7FFF, (hex(int(f32)), hex(int(bf16)))


RECORDED_HALF_NAN = json.loads((Path(__file__).parent / "data" / "h100_half_nan.json").read_text())["results"]


@pytest.mark.parametrize("form", ["cvt.rn.bf16.f32", "cvt.rn.f16.f32", "cvt.rn.bf16x2.f32(a,a)", "add.rn.bf16(raw_hi,1.0)",
                                  "mul.rn.bf16(raw_hi,1.0)", "add.f16(raw_hi,1.0)"])
def test_half_results_of_nan_operands_are_the_bits_an_h100_gave(form: str) -> None:
    """Every f16/bf16 NaN result is the canonical 0x7FFF on the GPU, whatever the NaN's sign and payload."""
    for source, result in RECORDED_HALF_NAN[form].items():
        bits, want = int(source, 16), int(result, 16)
        if form.startswith("cvt.rn.bf16x2"):
            assert op("cvt.rn.bf16x2.f32", [bits, bits]) == want | (want << 16), source
        elif form.startswith("cvt"):
            assert op(form, [bits], dest="%h7") == want, source
        else:  # the high half of the input, then 1.0 of the format
            one = 0x3C00 if "f16" in form and "bf16" not in form else 0x3F80
            assert op(form.split("(")[0], [bits >> 16, one], 16) == want, source

"""Bit-level float helpers (layoutalg.kernel.interp.floats) against the rational oracle: decode of every
format, single RNE rounding by encode (bf16 through round-to-odd f32), ftz flushing, and unknown formats."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from float_oracle import decode_float, round_rne
from hypothesis import assume, given, settings
from hypothesis import strategies as st

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


def test_every_f32_nan_rounds_to_a_bf16_nan_of_its_sign() -> None:
    # NaNs whose payload would carry into the exponent (or vanish) under plain rounding stay NaNs
    nans = np.array([0x7FFFFFFF, 0x7F800001, 0xFF800001, 0xFFFFFFFF, 0x7FC00000], dtype=np.uint32)
    out = [int(b) for b in bf16_from_f32_bits(nans)]
    for f32, bf16 in zip(nans, out):
        assert (bf16 >> 7) & 0xFF == 0xFF and bf16 & 0x7F != 0, (hex(int(f32)), hex(bf16))
        assert bf16 >> 15 == int(f32) >> 31

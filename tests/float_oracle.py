"""Exact IEEE round-to-nearest-even of rational numbers, written from the IEEE 754 definition (an oracle
for the float instruction tests; independent of ``layoutalg.kernel.interp.floats``)."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

#: (significand bits incl. the hidden one, minimum normal exponent, maximum exponent, width)
FORMATS = {"f16": (11, -14, 15, 16), "bf16": (8, -126, 127, 16), "f32": (24, -126, 127, 32),
           "f64": (53, -1022, 1023, 64)}


def to_fraction(bits: int, fmt: str) -> Fraction | float:
    """The value of ``fmt`` bits: a Fraction, or a float inf/nan (signed zero: see :func:`is_negative`)."""
    x = decode_float(bits, fmt)
    return x if math.isinf(x) or math.isnan(x) else Fraction(x)


def decode_float(bits: int, fmt: str) -> float:
    if fmt == "f64":
        return float(struct.unpack("<d", struct.pack("<Q", bits & (2**64 - 1)))[0])
    if fmt == "f32":
        return float(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])
    if fmt == "f16":
        return float(struct.unpack("<e", struct.pack("<H", bits & 0xFFFF))[0])
    return float(struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0])


def encode_float(x: float, fmt: str) -> int:
    """Bits of a float64 value that is exactly representable in ``fmt`` (or inf/nan/signed zero)."""
    if fmt == "f64":
        return int(struct.unpack("<Q", struct.pack("<d", x))[0])
    if fmt == "f32":
        return int(struct.unpack("<I", struct.pack("<f", x))[0])
    if fmt == "f16":
        return int(struct.unpack("<H", struct.pack("<e", x))[0])
    f32 = int(struct.unpack("<I", struct.pack("<f", x))[0])
    assert f32 & 0xFFFF == 0 or math.isnan(x)
    return f32 >> 16


def round_rne(q: Fraction, fmt: str, negative_zero: bool = False) -> int:
    """Bits of the exact rational ``q`` rounded to nearest-even in ``fmt`` (overflow to infinity)."""
    p, emin, emax, _ = FORMATS[fmt]
    if q == 0:
        return encode_float(-0.0 if negative_zero else 0.0, fmt)
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - p + 1)
    n = round(a / ulp)  # Fraction.__round__ rounds half to even
    r = n * ulp
    if r >= Fraction(2) ** (emax + 1):
        return encode_float(sign * math.inf, fmt)
    if r == 0:
        return encode_float(-0.0 if sign < 0 else 0.0, fmt)
    return encode_float(sign * float(r), fmt)

"""Exact IEEE encodings and roundings for f16, bf16, tf32, f32, f64 bit patterns held in uint64.

:func:`decode` turns bits into float64 numbers (exact: every f16/bf16/f32 value is a
float64).  :func:`encode` rounds a float64 to the target format once, round-to-nearest-even,
and takes an optional *error term* (the exact result minus the float64 one, as from
TwoSum): where it is non-zero the float64 is first moved one ulp toward the exact value,
which makes the single rounding correct (a target-format rounding boundary is a float64
number, and the float64 result lies within half a float64 ulp of the exact one, so the
nudge never crosses a boundary but breaks a false tie).  With this, ``add``/``sub``/``fma``
are exact in every format; ``mul`` of f32 and narrower is exact in float64; ``div``/``sqrt``
round twice innocuously (53 >= 2*24 + 2, Figueroa's condition).  bf16 rounding goes through
f32 with round-to-odd, which is exact for the same reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np

U64 = np.uint64
#: The NaN every f16/bf16 NaN result is on the GPU, whatever the NaN operand's sign and payload (recorded on an
#: H100: cvt.rn.f16.f32, cvt.rn.bf16.f32, cvt.rn.bf16x2.f32, add.rn.bf16, mul.rn.bf16, add.f16;
#: tests/data/h100_half_nan.json): the canonical NaN 0x7FFF (CUDA's CUDART_NAN_FP16 / CUDART_NAN_BF16).
HALF_NAN = 0x7FFF


def decode(bits: Any, t: str) -> np.ndarray:
    """float64 values of ``t``-format bit patterns (``t`` in f16 bf16 tf32 f32 f64)."""
    b = np.asarray(bits, dtype=np.uint64)
    if t == "f64":
        return b.view(np.float64) if b.ndim else np.asarray(b.reshape(1).view(np.float64)[0])
    if t in ("f32", "tf32"):
        return (b & U64(0xFFFFFFFF)).astype(np.uint32).view(np.float32).astype(np.float64)
    if t == "f16":
        return (b & U64(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float64)
    if t == "bf16":
        return ((b & U64(0xFFFF)).astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    raise ValueError(t)


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth's TwoSum)."""
    with np.errstate(all="ignore"):
        s = a + b
        bb = s - a
        e = (a - (s - bb)) + (b - bb)
    e = np.where(np.isfinite(s), e, 0.0)
    return s, e


def nudge(x: np.ndarray, err: Any) -> np.ndarray:
    """``x`` moved one float64 ulp toward ``x + err`` where ``err != 0``."""
    if err is None:
        return x
    err = np.asarray(err, dtype=np.float64)
    toward = np.where(err > 0, np.inf, -np.inf)
    return np.where(err != 0, np.nextafter(x, toward), x)


def _f32_round_to_odd(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 bits rounded to odd (truncate, then set the last bit if inexact)."""
    with np.errstate(all="ignore"):
        r = x.astype(np.float32)
        back = r.astype(np.float64)
        over = np.abs(back) > np.abs(x)
        r = np.where(over & np.isfinite(x), np.nextafter(r, np.float32(0)), r).astype(np.float32)
        inexact = (r.astype(np.float64) != x) & np.isfinite(x)
    bits = r.view(np.uint32)
    return np.where(inexact, bits | np.uint32(1), bits)


def encode(x: Any, t: str, err: Any = None) -> Any:
    """Bits of float64 ``x`` (plus error term ``err``) rounded to ``t`` (RNE, see the module doc)."""
    x = nudge(np.asarray(x, dtype=np.float64), err)
    with np.errstate(all="ignore"):
        if t == "f64":
            return x.view(np.uint64) if x.ndim else np.asarray(x.reshape(1).view(np.uint64)[0])
        if t in ("f32", "tf32"):
            return x.astype(np.float32).view(np.uint32).astype(np.uint64)
        if t == "f16":
            return np.where(np.isnan(x), U64(HALF_NAN), x.astype(np.float16).view(np.uint16).astype(np.uint64))
        if t == "bf16":
            return bf16_from_f32_bits(_f32_round_to_odd(x))
    raise ValueError(t)


def bf16_from_f32_bits(bits32: np.ndarray) -> np.ndarray:
    """Round f32 bit patterns to bf16 (RNE; a NaN becomes the canonical :data:`HALF_NAN`, as on the GPU)."""
    b = np.asarray(bits32, dtype=np.uint32).astype(np.uint64)
    nan = ((b >> U64(23)) & U64(0xFF)) == U64(0xFF)
    nan &= (b & U64(0x7FFFFF)) != 0
    lsb = (b >> U64(16)) & U64(1)
    rounded = ((b + U64(0x7FFF) + lsb) >> U64(16)) & U64(0xFFFF)
    return np.where(nan, U64(HALF_NAN), rounded)


def flush_subnormal(x: np.ndarray) -> np.ndarray:
    """f32 ``.ftz``: subnormal values become zero of the same sign."""
    tiny = (x != 0) & (np.abs(x) < np.float64(np.finfo(np.float32).tiny))
    return np.where(tiny, np.copysign(0.0, x), x)

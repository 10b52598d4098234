"""Bit encodings of small exact integers in the PTX element types, and register packing.

The one-hot mma runs put small non-negative integers into operands; every
value used is exactly representable in its type (f16 integers up to 2048,
bf16 up to 256, e4m3 up to 16, e5m2 up to 8, s4 up to 7, u4 up to 15, ...),
so products and single-term sums come back exact.  numpy is imported inside
the functions (layer rule: no numpy at import time).
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.validate import describe
from layoutalg.errors import InstructionError
from layoutalg.gpu.suite import TYPE_BITS

#: Largest digit base usable per element type: values 1..base must be exact.
DIGIT_BASE: dict[str, int] = {
    "f16": 256, "bf16": 256, "tf32": 256, "f32": 256, "f64": 256,
    "s8": 127, "u8": 255, "s4": 7, "u4": 15, "e4m3": 16, "e5m2": 8,
}

_FP8 = {"e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}  # exponent bits, mantissa bits, bias


def _fp8_bits(value: int, fmt: str) -> int:
    """Bits of the non-negative integer ``value`` in an fp8 format (exact or error)."""
    if value == 0:
        return 0
    ebits, mbits, bias = _FP8[fmt]
    exp = value.bit_length() - 1
    frac = value - (1 << exp)  # value = 2^exp * (1 + frac / 2^exp)
    mant = frac << mbits
    if mant % (1 << exp):
        raise InstructionError(f"{value} is not exact in {fmt}")
    return ((exp + bias) << mbits) | (mant >> exp)


def encode(values: Any, elem_type: str) -> Any:
    """Raw bit patterns (uint64 array) of the small non-negative integers ``values`` in ``elem_type``."""
    import numpy as np

    v = np.asarray(values, dtype=np.int64)
    if elem_type == "f16":
        return v.astype(np.float16).view(np.uint16).astype(np.uint64)
    if elem_type in ("f32", "tf32"):
        return v.astype(np.float32).view(np.uint32).astype(np.uint64)
    if elem_type == "bf16":
        return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
    if elem_type == "f64":
        return v.astype(np.float64).view(np.uint64)
    if elem_type in ("s8", "u8", "s4", "u4", "s32"):
        mask = (1 << TYPE_BITS[elem_type]) - 1
        return (v & mask).astype(np.uint64)
    if elem_type in _FP8:
        table = np.array([_fp8_bits(i, elem_type) for i in range(int(v.max(initial=0)) + 1)], dtype=np.uint64)
        return table[v]
    raise InstructionError(f"unknown element type {describe(elem_type)}")


def decode(units: Any, elem_type: str, elems: int) -> Any:
    """Values (float64 array, shape ``(..., elems)``) of a lane's registers ``units`` (uint32 or uint64)."""
    import numpy as np

    u = np.asarray(units)
    if elem_type == "f64":
        return u.astype(np.uint64).view(np.float64).astype(np.float64)
    words = u.astype(np.uint32)
    bits = TYPE_BITS[elem_type]
    per = 32 // bits
    shifts = (np.arange(per, dtype=np.uint32) * bits)
    raw = (words[..., :, None] >> shifts) & np.uint32((1 << bits) - 1 if bits < 32 else 0xFFFFFFFF)
    raw = raw.reshape(*words.shape[:-1], words.shape[-1] * per)[..., :elems]
    if elem_type == "f16":
        return raw.astype(np.uint16).view(np.float16).astype(np.float64)
    if elem_type == "f32":
        return raw.astype(np.uint32).view(np.float32).astype(np.float64)
    if elem_type == "s32":
        return raw.astype(np.uint32).view(np.int32).astype(np.float64)
    raise InstructionError(f"cannot decode outputs of type {describe(elem_type)}")


def pack(elements: Any, elem_type: str) -> Any:
    """Pack per-lane element bit patterns (shape ``(..., elems)``) into registers.

    Returns uint32 words (``(..., elems * bits / 32)``) or, for f64, uint64 units.
    """
    import numpy as np

    e = np.asarray(elements, dtype=np.uint64)
    bits = TYPE_BITS[elem_type]
    if bits == 64:
        return e.astype(np.uint64)
    per = 32 // bits
    grouped = e.reshape(*e.shape[:-1], e.shape[-1] // per, per)
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(bits))
    return np.bitwise_or.reduce(grouped << shifts, axis=-1).astype(np.uint32)

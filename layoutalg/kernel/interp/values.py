"""Register values over threads: raw bits plus a per-thread "known" mask.

A :class:`Value` holds, for every traced thread, the register's bits (``numpy.uint64``,
zero-extended; predicates are ``bool``) and whether those bits are *known* at trace
time.  Either field may be a scalar that stands for every thread (an immediate, a
kernel parameter, a register never written): ``known`` is then the Python bool
``True`` / ``False``.  Values loaded from global memory, results of approximate
float instructions, ``%clock`` and the like are unknown; every operation's result is
known exactly where all of its inputs are (:func:`known_and`).

The representation is meant to grow: a data-flow layer can add a third plane (a tag
per thread saying where the value came from) beside ``bits`` and ``known``; every
operation builds its result through :class:`Value`, so such a plane has one place
to be threaded through.
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np

Known = Union[bool, np.ndarray]

U64 = np.uint64
MASKS = {1: 1, 8: 0xFF, 16: 0xFFFF, 32: 0xFFFF_FFFF, 64: 0xFFFF_FFFF_FFFF_FFFF}


class Value:
    """``bits`` (uint64 or bool; array over threads or a scalar) and ``known`` (bool or bool array)."""

    __slots__ = ("bits", "known")

    def __init__(self, bits: Any, known: Known = True) -> None:
        self.bits = bits
        self.known = known

    def __repr__(self) -> str:
        return f"Value({self.bits!r}, known={self.known!r})"


def known_and(*ks: Known) -> Known:
    """All inputs known (scalars short-circuit so the common all-known case costs nothing)."""
    out: Known = True
    for k in ks:
        if k is True:
            continue
        if k is False:
            return False
        out = k if out is True else (out & k)
    return out


def known_all(k: Known, mask: np.ndarray | None = None) -> bool:
    """True when every thread (of ``mask``, if given) is known."""
    if k is True:
        return True
    if k is False:
        return mask is not None and not mask.any()
    if mask is None:
        return bool(k.all())
    return bool(k[mask].all())


def unknown_lanes(k: Known, mask: np.ndarray | None, n: int) -> np.ndarray | None:
    """Bool array of threads (within ``mask``) whose value is unknown, or None when there are none."""
    if k is True:
        return None
    if k is False:
        out = np.ones(n, dtype=bool) if mask is None else mask.copy()
    else:
        out = ~k if mask is None else (mask & ~k)
    return out if out.any() else None


def width_mask(width: int) -> np.uint64:
    return U64(MASKS[width])


def as_u(bits: Any, width: int) -> Any:
    """The low ``width`` bits, as uint64."""
    if width == 64:
        return bits
    return np.bitwise_and(bits, U64((1 << width) - 1))


def as_s(bits: Any, width: int) -> Any:
    """The low ``width`` bits read as a two's-complement signed number (int64)."""
    if width == 64:
        return np.asarray(bits).astype(np.int64) if np.ndim(bits) else np.int64(np.uint64(bits).astype(np.int64))
    sign = np.int64(1 << (width - 1))
    low = np.bitwise_and(bits, U64((1 << width) - 1)).astype(np.int64)
    return (low ^ sign) - sign


def from_int(values: Any, width: int) -> Any:
    """int64/uint64 numbers wrapped to ``width`` bits, as uint64."""
    arr = np.asarray(values)
    if arr.dtype != np.uint64:
        arr = arr.astype(np.int64).astype(np.uint64)
    return as_u(arr, width) if arr.ndim else as_u(U64(arr), width)


def broadcast(bits: Any, n: int) -> np.ndarray:
    """``bits`` as an array of ``n`` threads (a copy when it was a scalar)."""
    arr = np.asarray(bits)
    if arr.ndim == 0:
        return np.full(n, arr, dtype=arr.dtype)
    return arr


def broadcast_known(k: Known, n: int) -> np.ndarray:
    if k is True or k is False:
        return np.full(n, bool(k))
    return k

"""Tag planes of registers: per register an int64 array ``(threads, units)``, or nothing (every unit NONE).

Writes follow the interpreter's: ``mask`` None writes every thread (the machine ran converged), else
only the threads of ``mask`` keep the new tags.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.interp.decode import type_bits


class RegisterTags:
    """The tag plane of every register of one traced batch (see the module doc)."""

    def __init__(self, n: int, registers: dict[str, str]) -> None:
        self.n = n
        self.planes: dict[str, np.ndarray] = {}
        self.units = {name: (0 if t == "pred" else tg.units_of_bits(type_bits(t))) for name, t in registers.items()}

    def get(self, name: str) -> np.ndarray | None:
        return self.planes.get(name)

    def units_of(self, name: str) -> int:
        return self.units.get(name, 4)

    def full(self, name: str) -> np.ndarray:
        """The plane of ``name`` as an array (all NONE when it has none)."""
        p = self.planes.get(name)
        if p is None:
            return np.full((self.n, self.units_of(name)), tg.NONE, dtype=np.int64)
        return p

    def put(self, name: str, new: np.ndarray | None, mask: np.ndarray | None) -> None:
        """Store ``new`` ((threads, units) or None = all NONE) for the threads of ``mask``."""
        u = self.units.get(name)
        if u is None or u == 0:
            return  # predicates and sinks carry no tags
        if new is not None:
            new = _fit(new, self.n, u)
        if mask is None:
            if new is None:
                self.planes.pop(name, None)
            else:
                self.planes[name] = new
            return
        old = self.planes.get(name)
        if new is None and old is None:
            return
        if old is None:
            old = np.full((self.n, u), tg.NONE, dtype=np.int64)
        self.planes[name] = np.where(mask[:, None], tg.NONE if new is None else new, old)

    def set_opaque(self, names: list[str], code: np.int64, lanes: np.ndarray) -> None:
        for name in names:
            u = self.units.get(name, 0)
            if u:
                self.put(name, np.full((self.n, u), code, dtype=np.int64), lanes)


def _fit(arr: np.ndarray, n: int, u: int) -> np.ndarray:
    """``arr`` as (n, u): extra units are dropped, missing ones ZERO (the zero extension of a narrower value)."""
    arr = np.asarray(arr, dtype=np.int64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.shape[0] != n:
        arr = np.broadcast_to(arr, (n, arr.shape[1]))
    have = arr.shape[1]
    if have == u:
        return arr
    if have > u:
        return arr[:, :u]
    out = np.full((n, u), tg.ZERO, dtype=np.int64)
    out[:, :have] = arr
    return out


def join_units(parts: list[np.ndarray | None], widths: list[int], n: int) -> np.ndarray | None:
    """Concatenate per-part planes (None = NONE) of ``widths`` units each, low part first."""
    if all(p is None for p in parts):
        return None
    cols = []
    for p, w in zip(parts, widths):
        cols.append(np.full((n, w), tg.NONE, dtype=np.int64) if p is None else _fit(p, n, w))
    return np.concatenate(cols, axis=1)


def value_units(value: Any, n: int, units: int) -> tuple[np.ndarray, np.ndarray]:
    """(16-bit unit values (n, units) uint64, known (n,) bool) of an interpreter :class:`Value`."""
    bits = np.broadcast_to(np.asarray(value.bits, dtype=np.uint64), (n,))
    known = np.broadcast_to(np.asarray(value.known, dtype=bool), (n,))
    shifts = (np.arange(units, dtype=np.uint64) * np.uint64(16))
    return (bits[:, None] >> shifts[None, :]) & np.uint64(0xFFFF), known

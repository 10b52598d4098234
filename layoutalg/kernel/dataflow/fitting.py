"""Fit a layout to samples ``coordinate -> offset`` taken in several instances, each with its own base.

The samples come in *instances* (one warp's execution of one instruction); within an instance every
offset is ``base + f(c)`` for one unknown ``base``.  ``f`` is sought as

1. a layout (integer-linear in the bits of the coordinate: ``f(c) = sum_j bit_j(c) * s_j``): the bit
   strides solve ``y - y_ref = (bits - bits_ref) @ s`` by least squares, rounded, then checked exactly
   on every sample;
2. otherwise linear over GF(2) (``y ^ y_ref = F (bits ^ bits_ref)``, solved by elimination and
   checked on every sample), then factored as ``Swizzle o Layout`` trying the swizzles with fewest
   bits first.

A bit no sample pair varies is *undetermined*: the fit then says so instead of guessing.  The
coordinate has ``mode_bits`` bits per mode (mode 0 lowest, as CuTe's colexicographic index).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutalg.core.layout import Layout
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.f2 import BitMatrix, from_f2
from layoutalg.swizzle.swizzle import Swizzle


@dataclass
class Fit:
    """A fitted ``f`` (Layout or ComposedLayout with offset 0) and each instance's base, or why none fits."""

    layout: Any
    bases: dict[int, int]
    how: str  # "layout" or "gf2"
    note: str = ""


def _bits(index: np.ndarray, nbits: int) -> np.ndarray:
    return ((index[:, None] >> np.arange(nbits)[None, :]) & 1).astype(np.int64)


def _references(instance: np.ndarray) -> np.ndarray:
    """For every sample, the position of its instance's first sample."""
    _, first, inv = np.unique(instance, return_index=True, return_inverse=True)
    return first[inv]


def _group_modes(strides: list[int], mode_bits: list[int]) -> Layout:
    """The layout with bit strides ``strides``: consecutive bits of a mode whose strides continue merge
    (``d, 2d`` into ``(4):(d)``; zero strides into one broadcast mode, as CuTe's coalesce and the swizzle
    layer's ``from_f2`` group them)."""
    shapes: list[Any] = []
    out: list[Any] = []
    j = 0
    for nb in mode_bits:
        ext: list[int] = []
        st: list[int] = []
        for s in strides[j:j + nb]:
            if ext and st[-1] * ext[-1] == s:
                ext[-1] *= 2
            else:
                ext.append(2)
                st.append(s)
        j += nb
        if not ext:
            shapes.append(1)
            out.append(0)
        elif len(ext) == 1:
            shapes.append(ext[0])
            out.append(st[0])
        else:
            shapes.append(tuple(ext))
            out.append(tuple(st))
    return Layout(tuple(shapes), tuple(out)) if len(shapes) > 1 else Layout(shapes[0], out[0])


def fit_integer(index: np.ndarray, offset: np.ndarray, instance: np.ndarray, mode_bits: list[int]) -> Fit | None:
    """Step 1 of the module doc; None when no layout fits or a bit is undetermined."""
    nb = sum(mode_bits)
    bits = _bits(index, nb)
    ref = _references(instance)
    d = bits - bits[ref]
    dy = offset - offset[ref]
    varies = (d != 0).any(axis=0)
    if not varies.all():
        return None
    sol, *_ = np.linalg.lstsq(d.astype(np.float64), dy.astype(np.float64), rcond=None)
    s = np.rint(sol).astype(np.int64)
    if not np.array_equal(d @ s, dy):
        return None
    base = offset[ref] - bits[ref] @ s
    bases = {int(i): int(b) for i, b in zip(instance[ref], base)}
    return Fit(_group_modes([int(x) for x in s], mode_bits), bases, "layout")


def _solve_gf2(v: np.ndarray, w: np.ndarray, nb: int) -> list[int] | None:
    """Columns F e_j with F v = w for every (v, w) pair (ints), or None when inconsistent/undetermined."""
    pairs = np.unique(np.stack([v, w], axis=1), axis=0)
    basis: dict[int, tuple[int, int]] = {}  # pivot bit -> (vector, image)
    for vv, ww in pairs.tolist():
        while vv:
            top = vv.bit_length() - 1
            if top not in basis:
                basis[top] = (vv, ww)
                break
            bv, bw = basis[top]
            vv ^= bv
            ww ^= bw
        else:
            if ww:
                return None
    if len(basis) != nb:
        return None
    cols: list[int] = []
    for j in range(nb):  # reduce e_j over the basis (pivots are the top bits)
        vv, ww = 1 << j, 0
        while vv:
            bv, bw = basis[vv.bit_length() - 1]
            vv ^= bv
            ww ^= bw
        cols.append(ww)
    return cols


def fit_gf2(index: np.ndarray, offset: np.ndarray, instance: np.ndarray, mode_bits: list[int]) -> Fit | None:
    """Step 2 of the module doc; None when no ``Swizzle o Layout`` fits or a bit is undetermined."""
    nb = sum(mode_bits)
    if (offset < 0).any():
        return None
    ref = _references(instance)
    cols = _solve_gf2(index ^ index[ref], offset ^ offset[ref], nb)
    if cols is None:
        return None
    image = np.zeros(index.size, dtype=np.int64)
    for j, c in enumerate(cols):
        image ^= ((index >> j) & 1) * c
    base = offset ^ image
    if not (base == base[ref]).all():
        return None
    bases = {int(i): int(b) for i, b in zip(instance[ref], base[ref])}
    layout = factor(cols, mode_bits)
    if layout is None:
        return None
    return Fit(layout, bases, "gf2")


def factor(cols: list[int], mode_bits: list[int]) -> Any:
    """``Layout`` or ``Swizzle o _0 o Layout`` with these bit columns (fewest swizzle bits first)."""
    n = max([c.bit_length() for c in cols] + [1])
    if _disjoint(cols):
        return _group_modes(cols, mode_bits)
    for b in range(1, n + 1):
        for m in range(0, n):
            for s in range(b, n + 1):
                if m + s + b > n + 1:
                    continue
                sw = Swizzle(b, m, s)
                plain = [sw(c) for c in cols]
                if _disjoint(plain):
                    inner = from_f2(BitMatrix.from_columns(plain), mode_bits=mode_bits)
                    return ComposedLayout(sw, 0, inner)
    return None


def _disjoint(cols: list[int]) -> bool:
    seen = 0
    for c in cols:
        if c & seen:
            return False
        seen |= c
    return True

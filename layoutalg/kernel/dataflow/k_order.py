"""An mma whose A and B fragments hold the k index in an order other than the PTX one, the same in both.

``mma`` computes ``D[i, j] = C[i, j] + sum_c Afrag[i, c] * Bfrag[c, j]`` over the fragment's k positions ``c``
(PTX ISA, "Matrix Multiply-Accumulate Operation using mma Instruction").  If ``Afrag[i, c] = A(m0 + i, kappa(c))``
and ``Bfrag[c, j] = B(kappa(c), n0 + j)`` for one map ``kappa`` from k positions to distinct k of the problem, then
``D[i, j] = C[i, j] + sum_c A(m0 + i, kappa(c)) * B(kappa(c), n0 + j)``: every product belongs to C(m0 + i,
n0 + j), each k of ``kappa`` once, exactly as with the PTX order (``kappa(c) = k0 + c``); the products of one C
element are counted with these k (:mod:`.products`), so a k used twice or never is still found.  Conversely,
for A and B elements of arbitrary values the sum is ``sum_k A(m, k) B(k, n)`` over the mma's k only if each
column ``c`` of A's fragment holds one k in every row and B's row ``c`` that same k in every column: a column
holding two k, or B's row another k than A's column, forms a product ``A(m, k) * B(k', n)`` with ``k != k'``,
which belongs to no C element.

Used by the end-to-end check of C (:func:`~layoutalg.kernel.dataflow.check_mma`) only where the PTX order
fails; a claim about fragments themselves (:func:`~layoutalg.kernel.dataflow.check_mma_fragments`,
:func:`layoutalg.prove.fragment_delivers`) keeps the PTX positions.

A is the reference: :func:`a_order` reads ``kappa`` off A's fragment (each k position's column must hold one k
of A's matrix in every row it holds an element, its rows ``m0 + i`` of one ``m0``, the k distinct), and
:func:`b_against` judges B's fragment against it.  A k position where A holds only known zeros (a zero-filled
tile past the matrix edge) has no k: it adds no product, and B's row there must be known zeros too (strict, as
the PTX-order check is about zero-filled elements).  An element that is not an element of its matrix (untagged,
OPAQUE, another buffer) is never accepted here: the PTX-order check's finding stands.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NO_K = -1


@dataclass
class Mismatch:
    """Why a fragment admits no k order: the element (lane, fragment element index) and what it must be."""

    lane: int
    element: int
    need: str
    why: str


def _mode(values: np.ndarray) -> int:
    vals, counts = np.unique(values, return_counts=True)
    return int(vals[int(np.argmax(counts))])


def a_order(r: np.ndarray, c: np.ndarray, ok: np.ndarray, zero: np.ndarray, fr: np.ndarray, fc: np.ndarray, kt: int,
            rows: int) -> tuple[int, np.ndarray] | Mismatch | None:
    """(m0, kappa) of one warp's A fragment, ``kappa[c]`` the k of fragment column ``c`` (``NO_K``: A holds only
    known zeros there), or a :class:`Mismatch` naming an element that fits no k order, or None where the fragment
    holds a non-A element that is not a known zero (not decided here).

    ``r``, ``c``, ``ok``: the A coordinates of each (lane, element) and whether it is an element of A; ``zero``:
    known zeros; ``fr``, ``fc``: the fragment table (32, elements); ``rows``: M."""
    if (~ok & ~zero).any() or not ok.any():
        return None
    m0 = _mode((r - fr)[ok])
    off_row = ok & (r != m0 + fr)
    if off_row.any():
        lane, e = (int(x[0]) for x in np.nonzero(off_row))
        return Mismatch(lane, e, f"an element of row {m0 + int(fr[lane, e])} of A",
                        f"its row in the tile is {m0 + int(fr[lane, e])} (most elements give the tile row {m0})")
    kappa = np.full(kt, NO_K, dtype=np.int64)
    first: dict[int, tuple[int, int]] = {}
    for col in range(kt):
        here = ok & (fc == col)
        if not here.any():
            continue
        ks = c[here]
        k = int(ks[0])
        lane0, e0 = (int(x[0]) for x in np.nonzero(here))
        if (ks != k).any():
            lane, e = (int(x[0]) for x in np.nonzero(here & (c != k)))
            return Mismatch(lane, e, f"A({int(r[lane, e])}, {k})",
                            f"lane {lane0} holds A({int(r[lane0, e0])}, {k}) at the same k position {col} of the "
                            "fragment, and a k position meets one row of B")
        if k in first:
            lane, e = (int(x[0]) for x in np.nonzero(here))
            pl, pe = first[k]
            return Mismatch(lane, e, f"an element of A at a k other than {k}",
                            f"lane {pl} holds A({int(r[pl, pe])}, {k}) at k position {int(fc[pl, pe])}: k = {k} "
                            "would be accumulated twice")
        first[k] = (lane0, e0)
        kappa[col] = k
        inside_zero = ~ok & (fc == col) & (m0 + fr >= 0) & (m0 + fr < rows)
        if inside_zero.any():
            lane, e = (int(x[0]) for x in np.nonzero(inside_zero))
            return Mismatch(lane, e, f"A({m0 + int(fr[lane, e])}, {k})",
                            f"k position {col} of the fragment holds k = {k} and row {m0 + int(fr[lane, e])} lies "
                            "inside the matrix")
    return m0, kappa


def b_against(r: np.ndarray, c: np.ndarray, ok: np.ndarray, zero: np.ndarray, fr: np.ndarray, fc: np.ndarray,
              kappa: np.ndarray, cols: int) -> tuple[int, Mismatch | None]:
    """(n0, None) when one warp's B fragment holds, at fragment (row c, column j), ``B(kappa[c], n0 + j)`` (or a
    known zero where ``n0 + j`` lies outside the matrix or ``kappa[c]`` is ``NO_K``); else (n0, the first
    element that does not, in lane order).  ``cols``: N."""
    n0 = _mode((c - fc)[ok]) if ok.any() else 0
    k_need = kappa[fr]  # (32, elements)
    n_need = n0 + fc
    n_inside = (n_need >= 0) & (n_need < cols)
    right = np.where(k_need == NO_K, zero & ~ok,
                     np.where(ok, (r == k_need) & (c == n_need), zero & ~n_inside))
    if right.all():
        return n0, None
    lane, e = (int(x[0]) for x in np.nonzero(~right))
    pos = int(fr[lane, e])
    k = int(k_need[lane, e])
    if k == NO_K:
        return n0, Mismatch(lane, e, "0", f"A's fragment holds no element of A at k position {pos}, only zeros")
    return n0, Mismatch(lane, e, f"B({k}, {int(n_need[lane, e])})",
                        f"A's fragment holds k = {k} at k position {pos} (its k order is not the PTX one)")

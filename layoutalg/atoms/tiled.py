"""Tiled MMAs and tiled copies with CuTe's semantics (cute/atom/mma_atom.hpp, copy_atom.hpp).

Everything here is defined **pointwise**, exactly as CuTe's layout expressions
evaluate, and the TV layouts are then synthesised as :class:`Layout` values and
checked against the pointwise definition at every point.

TiledMMA (``make_tiled_mma(atom, atom_layout, permutations)``)
    ``thr_layout_vmnk = tiled_product(ThrID, atom_layout)``: (v, m, n, k) -> thread index
    (``v + V*(m + AM*(n + AN*k))`` for a compact ``atom_layout``).  ``get_slice(t)`` takes
    CuTe's ``get_flat_coord(t)`` (leaf ``j`` of a mode gets ``(t // d_j) % s_j``), and the
    TV layouts ``get_layoutX_TV`` compose with ``right_inverse(thr_layout_vmnk)``, as CuTe
    does.  Partitioning an ``(M, K)`` tensor for A (CuTe ``thrfrg_A``)::

        (v, tm, tk), (fv, fm, fk)  ->  m' = am + AtomM*(tm + ThrM*fm),  k' = ak + AtomK*(tk + ThrK*fk)
        where am + AtomM*ak = ALayout(v, fv)      (the atom's TV layout)
        m = P_M(m')  with P_M = (perm_M, complement(perm_M, M)) (identity without a permutation)
        value = tensor(m, k)   (m, k: 1-D indices into the tensor's two modes)

    and likewise B over (N, K) and C over (M, N).  ``partition_A`` returns the
    values in CuTe's order ``(MMA, MMA_M, MMA_K) = (fv, fm, fk)``.

TiledCopy (``make_tiled_copy``, ``make_tiled_copy_A/B/C``)
    A TV layout ``(tid, vid) -> tile index`` and a tiler ``(M, N)``; partitioning
    (CuTe ``tidfrg_S`` / ``tile2thrfrg``), for thread ``thr`` and value
    ``val = tv + NumValSrc*rv`` of an ``(M*RM, N*RN)`` tensor::

        j = right_inverse(AtomRef)(AtomSrc(thr % AtomNumThr, tv))
        tid = j % AtomNumThr + AtomNumThr*(thr // AtomNumThr),   vid = j // AtomNumThr + AtomNumVal*rv
        (tm, tn) = idx2crd(layout_tv(tid, vid), (M, N))
        value (val, rm, rn) = tensor(tm + M*rm, tn + N*rn)

The result of a partition is a :class:`Partition`: for one thread, the shape
``(V, Rest...)`` and, for every value, the coordinate in the tensor and the
offset the tensor's layout (plain or swizzled :class:`ComposedLayout`) gives it.

Static checks become :class:`~layoutalg.errors.LayoutError` with what to change:
too few threads or values for the copy atom, a memory side that does not
vectorise (each atom call must touch ``NumVal`` contiguous, aligned elements),
element widths that differ between the atom and the data, tensors that do not
divide into the tile.
"""

from __future__ import annotations

from layoutalg.atoms.partition import Partition
from layoutalg.atoms.tiled_copy import (
    ThrCopy,
    TiledCopy,
    make_tiled_copy,
    make_tiled_copy_A,
    make_tiled_copy_B,
    make_tiled_copy_C,
)
from layoutalg.atoms.tiled_mma import ThrMMA, TiledMMA, make_tiled_mma

__all__ = [
    "TiledMMA", "ThrMMA", "TiledCopy", "ThrCopy", "Partition",
    "make_tiled_mma", "make_tiled_copy", "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C",
]

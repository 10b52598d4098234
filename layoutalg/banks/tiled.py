"""An :class:`~layoutalg.banks.access.Access` from a CuTe-style ``TiledCopy`` (layoutalg.atoms.tiled).

The shared-memory side of the copy (``S`` for ldmatrix / ld.shared, ``D`` for stmatrix / st.shared / cp.async) is
partitioned over the smem layout (as CuTe's ``partition_S/D`` of the smem tensor, including its check that each
atom call's values are contiguous) for every thread; thread ``t`` is lane ``t % 32`` of warp ``t // 32``,
and its ``k``-th atom call accesses the coordinate of its value ``k * V`` (``V`` = the atom's values per
thread on that side, which CuTe requires to be contiguous: one vector, or one ldmatrix row).  Instances are
``(warp, call)``.  A cp.async copy's global side lies over the same tile coordinates: ``analyze`` takes it as
``global_layout``.
"""

from __future__ import annotations

from typing import Any

from layoutalg.banks.access import Access
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError

_MEMORY_SIDE = {"ldmatrix": "S", "stmatrix": "D", "ld.shared": "S", "st.shared": "D", "cp.async": "D"}


def access_from_tiled_copy(tiled_copy: Any, smem_layout: Any, side: str | None = None) -> Access:
    """Every warp-wide instruction ``tiled_copy`` issues over the tile ``smem_layout``, as an Access."""
    import numpy as np

    atom: Any = getattr(tiled_copy, "atom", None)
    base: Any = getattr(atom, "atom", None)
    kind = getattr(base, "kind", None)
    if kind not in _MEMORY_SIDE:
        raise LayoutError(f"tiled copy of kind {describe(kind)}: only ldmatrix, stmatrix, ld.shared, st.shared and cp.async "
                          "copies have a tile-sweep shared-memory model")
    side = side or _MEMORY_SIDE[kind]
    if side not in ("S", "D"):
        raise LayoutError(f"side must be 'S' or 'D', got {describe(side)}")
    nthr = tiled_copy.num_threads
    if nthr % 32:
        raise LayoutError(f"a tiled copy of {nthr} threads is not a whole number of warps")
    per_call = (atom.val_layout_src if side == "S" else atom.val_layout_dst)[1].size()
    instruction = base.ptx
    if kind in ("ld.shared", "st.shared"):
        nbytes = per_call * atom.bits // 8
        width = {1: "u8", 2: "u16", 4: "b32", 8: "v2.b32", 16: "v4.b32"}.get(nbytes)
        if width is None:
            raise LayoutError(f"{atom.name}: {nbytes} bytes per thread is not a shared-memory access width")
        instruction = f"{kind}.{width}"
    elif kind == "cp.async":  # 'cp.async.ca.shared.global [dst], [src], 16' -> 'cp.async.ca.shared.global, 16'
        instruction = f"{instruction.split(' [')[0]}, {instruction.rsplit(',', 1)[1].strip()}"
    coords = []
    for t in range(nthr):
        part = tiled_copy.partition(side, smem_layout, t)
        coords.append([part.coords[k] for k in range(0, part.size(), per_call)])
    arr = np.array(coords, dtype=np.int64)  # (threads, calls, rank)
    calls, rank = arr.shape[1], arr.shape[2]
    arr = arr.reshape(nthr // 32, 32, calls, rank).transpose(0, 2, 1, 3)  # (warp, call, lane, rank)
    return Access(instruction, arr, ("warp", "call"))

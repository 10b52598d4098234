"""The thread axis of a traced launch and the special registers it defines.

Threads of all traced CTAs lie on one axis: thread ``t = c * slots + lin`` where ``c``
is the traced CTA's index (0 .. n_ctas-1), ``lin = x + y*bx + z*bx*by`` the linear
thread id in the CTA, and ``slots = 32 * warps_per_cta`` (a CTA whose size is not a
multiple of 32 gets padding threads that never run).  So ``reshape(-1, 32)`` of any
per-thread array gives one row per warp, lane ``lin % 32`` in column ``lin % 32``,
exactly as the hardware forms warps (CUDA Programming Guide, "Thread Hierarchy").

``%warpid`` is the warp's index in its CTA (``lin // 32``) -- the PTX ISA says the
hardware slot may differ and change; every kernel that uses it for indexing
assumes this.  ``%nwarpid`` is the sm_80/sm_90 maximum, 64.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from layoutalg.core.validate import describe
from layoutalg.errors import KernelError

Dim3 = tuple[int, int, int]


#: CUDA's launch limits (CUDA Programming Guide, "Technical Specifications per Compute Capability"): the largest
#: grid and block dimensions, x, y, z.
MAX_GRID: Dim3 = ((1 << 31) - 1, 65535, 65535)
MAX_BLOCK: Dim3 = (1024, 1024, 64)
#: The most threads a whole-grid trace covers (4096 CTAs of 256 threads; a 4096^3 GEMM in 128 x 128 tiles has
#: 1024 CTAs): a larger launch is refused up front, and traced in part with ``ctas=``.
MAX_WHOLE_GRID_THREADS = 1 << 20


def dim3(value: int | Sequence[int], what: str) -> Dim3:
    """``8`` or ``(8, 2)`` or ``(8, 2, 1)`` -> ``(8, 2, 1)``; positive ints within CUDA's limits
    (:data:`MAX_GRID` for ``what == "grid"``, :data:`MAX_BLOCK` otherwise)."""
    items = [value] if isinstance(value, (int, np.integer)) else list(value) if isinstance(value, (tuple, list)) else []
    if not 1 <= len(items) <= 3 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in items):
        raise KernelError(f"{what} must be 1 to 3 positive integers, got {describe(value)}")
    if any(v < 1 for v in items):
        raise KernelError(f"{what} must be positive, got {describe(value)}")
    limits = MAX_GRID if what == "grid" else MAX_BLOCK
    for axis, v, top in zip("xyz", items, limits):
        if v > top:
            raise KernelError(f"{what}.{axis} = {describe(int(v))}: CUDA allows at most {top}")
    items += [1] * (3 - len(items))
    if what != "grid" and items[0] * items[1] * items[2] > MAX_BLOCK[0]:
        raise KernelError(f"a CTA of {items[0] * items[1] * items[2]} threads; CUDA allows at most {MAX_BLOCK[0]}")
    return (int(items[0]), int(items[1]), int(items[2]))


@dataclass
class Geometry:
    """Grid, block, the traced CTAs and per-thread arrays of the special registers."""

    grid: Dim3
    block: Dim3
    ctas: list[Dim3]

    def __post_init__(self) -> None:
        bx, by, bz = self.block
        self.threads_per_cta = bx * by * bz
        if self.threads_per_cta > 1024:
            raise KernelError(f"a CTA of {self.threads_per_cta} threads; CUDA allows at most 1024")
        self.warps_per_cta = -(-self.threads_per_cta // 32)
        self.slots = 32 * self.warps_per_cta
        self.n_ctas = len(self.ctas)
        self.n = self.n_ctas * self.slots
        lin = np.tile(np.arange(self.slots, dtype=np.int64), self.n_ctas)
        self.cta_index = np.repeat(np.arange(self.n_ctas, dtype=np.int64), self.slots)
        self.valid = lin < self.threads_per_cta
        self.lin = lin
        self.tid = (lin % bx, (lin // bx) % by, lin // (bx * by))
        c = np.array(self.ctas, dtype=np.int64).reshape(-1, 3)
        self.ctaid = tuple(np.repeat(c[:, k], self.slots) for k in range(3))
        self.laneid = lin % 32
        self.warpid = lin // 32
        self.global_warp = self.cta_index * self.warps_per_cta + self.warpid

    @property
    def n_warps(self) -> int:
        return self.n_ctas * self.warps_per_cta


def all_ctas(grid: Dim3, block: Dim3 = (1, 1, 1)) -> list[Dim3]:
    """Every CTA of the grid, x fastest (the order ``%ctaid`` linearises in); a KernelError before any work
    when they hold more than :data:`MAX_WHOLE_GRID_THREADS` threads of ``block``."""
    gx, gy, gz = grid
    threads = gx * gy * gz * block[0] * block[1] * block[2]
    if threads > MAX_WHOLE_GRID_THREADS:
        raise KernelError(f"grid {grid} of blocks {block} has {gx * gy * gz} CTAs, {threads} threads; a whole-grid "
                          f"trace covers at most {MAX_WHOLE_GRID_THREADS} threads: trace a few of its CTAs "
                          "(ctas=[(0, 0), (1, 0)] traces two)")
    return [(x, y, z) for z in range(gz) for y in range(gy) for x in range(gx)]


def check_ctas(ctas: Iterable[int | Sequence[int]], grid: Dim3) -> list[Dim3]:
    """Validated CTA indices ``(x, y, z)`` (missing trailing coordinates are 0), each inside ``grid``."""
    if not isinstance(ctas, Iterable) or isinstance(ctas, (str, bytes)):
        raise KernelError(f"ctas must be a list of CTA indices (each 1 to 3 integers), got {describe(ctas)}")
    out: list[Dim3] = []
    for c in ctas:
        items = ([c] if isinstance(c, (int, np.integer)) else list(c)
                 if isinstance(c, (tuple, list)) or isinstance(c, np.ndarray) and c.ndim == 1 else [])
        if not 1 <= len(items) <= 3 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in items):
            raise KernelError(f"a CTA index must be 1 to 3 integers (x, y, z), got {describe(c)}")
        items += [0] * (3 - len(items))
        if any(v < 0 or v >= g for v, g in zip(items, grid)):
            raise KernelError(f"CTA {describe(tuple(items))} is outside the grid {grid}")
        out.append((int(items[0]), int(items[1]), int(items[2])))
    if not out:
        raise KernelError("ctas is empty; give at least one CTA (x, y, z) or leave it out to trace the whole grid")
    if len(set(out)) != len(out):
        raise KernelError("ctas lists a CTA twice")
    return out

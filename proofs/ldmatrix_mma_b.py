"""ldmatrix.x2.trans / .x4.trans feeding the B operand of mma.m16n8k16 from a row-major K x N tile.

Kernel pattern: B is stored N-contiguous (``row-major K x N``, e.g. the V tile of
attention or a "NN" GEMM's B); the mma wants B fragments whose pairs of halfs
run along K, so the load must transpose each 8x8 block: ``ldmatrix...trans``.
Lane ``l`` supplies the address of K-row ``l % 16`` of the 16-row slab and, for
``.x4``, N-column block ``(l / 16) * 8``::

    ldmatrix.x4.trans {b0,b1,b2,b3}, [&sB[k_tile*16 + lane%16][n_tile*16 + (lane/16)*8]]
    mma.m16n8k16 ... {b0,b1} (n-block 0) ... {b2,b3} (n-block 1)

``fragment_delivers`` proves it for every lane, register, half and tile
(``k_tile``, ``n_tile``); the same load without ``.trans`` is refuted with the
lane whose value is the wrong element.
"""

from __future__ import annotations

from layoutalg.core.layout import Layout
from layoutalg.prove import fragment_delivers, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

ROW_MAJOR = Layout((32, 64), (64, 1))  # the CTA's B tile (K x N), halfs, N contiguous


def ldmatrix_vs_mma_b(num: int, trans: bool, swizzle: Swizzle | None = None) -> object:
    """``num`` = 2 (one n8 block) or 4 (two n8 blocks)."""
    smem = ROW_MAJOR if swizzle is None else ComposedLayout(swizzle, 0, ROW_MAJOR)
    return fragment_delivers(f"ldmatrix.x{num}{'.trans' if trans else ''}", smem, "mma.m16n8k16.f16", "B",
                             addresses=lambda lane: (lane % 16, 8 * (lane // 16)))  # the kernel's row addresses


@theorem
def ldmatrix_x2_trans_gives_mma_b_fragment():
    """Row-major K x N fp16 B tile: ldmatrix.x2.trans delivers exactly b0..b3 of mma.m16n8k16."""
    return ldmatrix_vs_mma_b(2, trans=True)


@theorem
def ldmatrix_x4_trans_gives_two_mma_b_fragments():
    """ldmatrix.x4.trans delivers the B fragments of two adjacent n8 blocks (registers 0-1 and 2-3)."""
    return ldmatrix_vs_mma_b(4, trans=True)


@theorem(expect="refuted")
def ldmatrix_x2_without_trans_is_not_the_b_fragment():
    """Forgetting .trans on a row-major (N-contiguous) B tile: each lane gets a row fragment, not a K pair."""
    return ldmatrix_vs_mma_b(2, trans=False)


@theorem
def ldmatrix_x4_trans_b_fragment_under_swizzle_3_3_3():
    """The B load under Swizzle<3,3,3> on the 64-column tile still delivers the exact fragment."""
    return ldmatrix_vs_mma_b(4, trans=True, swizzle=Swizzle(3, 3, 3))


@theorem
def ldmatrix_x2_trans_b_fragment_under_swizzle_2_3_3():
    """The x2.trans B load under Swizzle<2,3,3>."""
    return ldmatrix_vs_mma_b(2, trans=True, swizzle=Swizzle(2, 3, 3))


@theorem
def ldmatrix_x4_trans_b_fragment_under_swizzle_2_3_3():
    """The x4.trans B load under Swizzle<2,3,3>."""
    return ldmatrix_vs_mma_b(4, trans=True, swizzle=Swizzle(2, 3, 3))


@theorem
def ldmatrix_x2_trans_b_fragment_under_swizzle_3_3_3():
    """The x2.trans B load under Swizzle<3,3,3>."""
    return ldmatrix_vs_mma_b(2, trans=True, swizzle=Swizzle(3, 3, 3))


@theorem(expect="refuted")
def ldmatrix_x4_trans_breaks_under_swizzle_3_2_3():
    """Swizzle<3,2,3> splits each 16-byte row into swapped 8-byte halves: the transposed load reads wrong columns."""
    return ldmatrix_vs_mma_b(4, trans=True, swizzle=Swizzle(3, 2, 3))

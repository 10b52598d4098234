"""ldmatrix.x4 feeding the A operand of mma.m16n8k16 (fp16) from a row-major M x K shared-memory tile.

Kernel pattern (CUTLASS sm80 / hand-written Ampere GEMMs): the CTA's A tile is
``128 x 64`` halfs in shared memory, row-major (``K`` contiguous), possibly
XOR-swizzled.  Each warp reads a 16 x 16 sub-tile per k-step with one
``ldmatrix.sync.aligned.m8n8.x4.shared.b16``, lane ``l`` supplying the address of
row ``l % 16``, column ``(l / 16) * 8``::

    ldmatrix.x4 {a0,a1,a2,a3}, [&sA[m_tile*16 + lane%16][k_tile*16 + (lane/16)*8]]
    mma.m16n8k16 ... {a0,a1,a2,a3}, ...

``fragment_delivers`` states, from the PTX ISA, that for every 16 x 16 sub-tile
(``m_tile``, ``k_tile``), lane, register and half, the element ldmatrix delivers
is exactly the element of A the mma fragment needs; a refutation names the first
lane, register and half that gets the wrong element, and which one it should be.
"""

from __future__ import annotations

from layoutalg.core.layout import Layout
from layoutalg.prove import fragment_delivers, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

ROW_MAJOR = Layout((128, 64), (64, 1))  # the CTA's A tile (M x K), halfs


def ldmatrix_vs_mma(swizzle: Swizzle | None) -> object:
    smem = ROW_MAJOR if swizzle is None else ComposedLayout(swizzle, 0, ROW_MAJOR)
    return fragment_delivers("ldmatrix.x4", smem, "mma.m16n8k16.f16", "A",
                             addresses=lambda lane: (lane % 16, 8 * (lane // 16)))  # the kernel's row addresses


@theorem
def ldmatrix_x4_gives_mma_m16n8k16_a_fragment():
    """Row-major 128x64 fp16 A tile, no swizzle: ldmatrix.x4 delivers exactly a0..a7 of mma.m16n8k16."""
    return ldmatrix_vs_mma(None)


@theorem
def ldmatrix_x4_gives_a_fragment_under_swizzle_3_3_3():
    """The same under Swizzle<3,3,3> (CUTLASS's sm80 fp16 K-major smem atom): 16-byte rows stay intact."""
    return ldmatrix_vs_mma(Swizzle(3, 3, 3))


@theorem
def ldmatrix_x4_gives_a_fragment_under_swizzle_2_3_3():
    """The same under Swizzle<2,3,3> (the 64-byte-row variant): still exact."""
    return ldmatrix_vs_mma(Swizzle(2, 3, 3))


@theorem(expect="refuted")
def ldmatrix_x4_breaks_under_swizzle_3_2_3():
    """Swizzle<3,2,3> permutes 8-byte chunks, so the 16 bytes after a row address are not one row of A:
    refuted, with the lane/register whose value comes from the wrong column."""
    return ldmatrix_vs_mma(Swizzle(3, 2, 3))

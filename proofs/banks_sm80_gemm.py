"""Bank conflicts of the CUTLASS sm80 fp16 GEMM shared-memory scheme, for every warp, MMA step and k-tile.

Kernel pattern (CuTe ``sgemm_sm80``-style, 128 x 128 x 64 CTA tile, 2 x 2 warps of 64 x 64):

    SmemLayoutAtom = composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})
    SmemLayoutA    = tile_to_shape(SmemLayoutAtom{}, Shape<_128,_64,_3>{})     // 3 stages, K-major
    SmemCopyAtomA  = Copy_Atom<SM75_U32x4_LDSM_N, half_t>                       // ldmatrix.x4

Warp ``wm`` reads A rows ``64*wm + 16*mi`` (``mi`` < 4) at k-step ``ks`` (< 4, 16 columns each) with
ldmatrix.x4: lane ``l`` gives row ``l % 16``, column ``(l // 16) * 8`` of its 16 x 16 block.  The costs come
from the measured Hopper model (layoutalg.banks.model); the same ldmatrix rules hold on sm80.

The producer fills the tile with ``cp.async.cg`` (``SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>``, 128 threads as
16 x 8, 8 halves each): warp ``w``'s copy ``j`` moves rows ``16*j + 4*w .. +3``, lane ``l`` the 16 bytes at
row ``l // 8``, column ``8 * (l % 8)``, from a row-major global A (``ld`` halves per row).  Its cost comes from
the measured cp.async.cg rule (layoutalg.banks.cp_async), which depends on the global rows too.
"""

from __future__ import annotations

from layoutalg.atoms.smem import tile_to_shape
from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free, symbolic_access
from layoutalg.core.layout import Layout
from layoutalg.prove import param, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

LDSM_X4 = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
CP_ASYNC_CG = "cp.async.cg.shared.global"
ATOM = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
TILE = tile_to_shape(ATOM, (128, 64))
STAGED = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((128, 64, 3), (64, 1, 8192)))  # row-major 64 halves per row
PLAIN = Layout((128, 64), (64, 1))


def a_operand(lane, wm, mi, ks):
    return 64 * wm + 16 * mi + lane % 16, 16 * ks + (lane // 16) * 8


A_READS = Access.from_fn(LDSM_X4, a_operand, wm=2, mi=4, ks=4)


@theorem
def sm80_a_tile_ldmatrix_reads_are_conflict_free():
    """Every ldmatrix.x4 of every warp and k-step over the tiled Swizzle<3,3,3> A tile costs its ideal 4."""
    return conflict_free(TILE, A_READS, "f16")


@theorem
def sm80_a_tile_conflict_free_for_every_k_tile_of_the_3_stage_ring():
    """The same reads for every k-tile (stage = k_tile % 3, k_tile unbounded), proved by z3."""
    k_tile = param("k_tile", lo=0, hi=1 << 24)

    def fn(lane, wm, mi, ks):
        row, col = a_operand(lane, wm, mi, ks)
        return row, col, k_tile % 3

    return conflict_free(STAGED, symbolic_access(LDSM_X4, fn, wm=2, mi=4, ks=4), "f16", method="z3")


@theorem(expect="refuted")
def sm80_a_tile_without_swizzle_is_8_way_conflicted():
    """Dropping the swizzle (128-byte rows) makes each 8-row matrix hit one 4-bank group: 32 wavefronts."""
    return conflict_free(PLAIN, A_READS, "f16")


def a_fill(lane, w, j):
    return 16 * j + 4 * w + lane // 8, 8 * (lane % 8)


A_FILL = Access.from_fn(CP_ASYNC_CG, a_fill, w=4, j=8)


@theorem
def sm80_a_tile_cp_async_fill_is_conflict_free_from_128_byte_aligned_rows():
    """Every cp.async.cg of the producer (4 warps x 8 copies) costs its ideal 4 when A's rows are 8 KiB apart."""
    return conflict_free(TILE, A_FILL, "f16", global_layout=Layout((128, 64), (4096, 1)))


@theorem(expect="refuted")
def sm80_a_tile_cp_async_fill_from_16_byte_padded_rows_costs_extra():
    """Padding A's leading dimension by 8 halves (16 bytes) makes each shared row straddle two global lines."""
    return conflict_free(TILE, A_FILL, "f16", global_layout=Layout((128, 64), (4104, 1)))

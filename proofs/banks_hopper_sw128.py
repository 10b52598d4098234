"""Bank conflicts of Hopper SW128 tiles when threads (not the wgmma/TMA engines) touch them.

Kernel pattern (CUTLASS sm90 epilogue / mainloop with GMMA::Layout_K_SW128_Atom<bf16>):

    SmemLayoutAtom = GMMA::Layout_K_SW128_Atom<bfloat16_t>   // Sw<3,4,3> o smem_ptr o (8,1024 bits)
                   = Sw<3,3,3> o (8,64):(64,1) in bf16 elements
    sC: 64 x 64 bf16 = tile_to_shape(SmemLayoutAtom, (64, 64))
    epilogue: stmatrix.x4 (SM90_U32x4_STSM_N): lane l gives row 16*mi + ln % 16, col 16*ni + (ln // 16) * 8
    readback: ld.shared.v4 of 16 bytes, 8 lanes per 128-byte row

TMA and wgmma read the tile through their own swizzle hardware; these theorems are about the SIMT accesses.
"""

from __future__ import annotations

from layoutalg.atoms.smem import gmma_atom, tile_to_shape
from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free
from layoutalg.core.layout import Layout
from layoutalg.prove import theorem
from layoutalg.prove.result import combine

STSM = "stmatrix.sync.aligned.m8n8.x4.shared.b16"
SW128 = tile_to_shape(gmma_atom("Layout_K_SW128_Atom", 16), (64, 64))
INTER = tile_to_shape(gmma_atom("Layout_K_INTER_Atom", 16), (64, 64))
SW64 = tile_to_shape(gmma_atom("Layout_K_SW64_Atom", 16), (64, 64))

STSM_WRITES = Access.from_fn(STSM, lambda ln, mi, ni: (16 * mi + ln % 16, 16 * ni + (ln // 16) * 8), mi=4, ni=4)
ROW_READS = Access.from_fn("ld.shared.v4.b32", lambda ln, r: (4 * r + ln // 8, (ln % 8) * 8), r=16)


@theorem
def sw128_epilogue_stmatrix_and_row_reads_are_conflict_free():
    """stmatrix.x4 of the accumulators and ld.shared.v4 row reads of the SW128 tile cost their ideal."""
    return combine([conflict_free(SW128, STSM_WRITES, "bf16"), conflict_free(SW128, ROW_READS, "bf16")])


@theorem
def inter_and_sw64_tiles_take_stmatrix_without_conflict():
    """The K-major INTER and SW64 tiles are built from 8x8 core matrices (16-byte rows, contiguous or 2-bit
    swizzled), so each stmatrix.x4 matrix still spreads over all 32 banks."""
    return combine([conflict_free(INTER, STSM_WRITES, "bf16"), conflict_free(SW64, STSM_WRITES, "bf16")])


@theorem(expect="refuted")
def inter_tile_row_reads_are_8_way_conflicted():
    """Reading a row of the INTER tile with ld.shared.v4 (8 lanes x 16 bytes) hits chunks 1024 bytes apart:
    the same 4 banks, 8-way (512 wavefronts for 16 instructions instead of 64)."""
    return conflict_free(INTER, ROW_READS, "bf16")


@theorem(expect="refuted")
def unswizzled_row_major_tile_stmatrix_is_8_way_conflicted():
    """Without a GMMA atom (plain 64 x 64 row-major, 128-byte rows) the stmatrix.x4 epilogue is 8-way conflicted."""
    return conflict_free(Layout((64, 64), (64, 1)), STSM_WRITES, "bf16")

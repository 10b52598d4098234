"""Kernel 1: the CUTLASS sm80 fp16 GEMM mainloop (shared memory side).

The kernel (CUTLASS ``sm80`` ``DefaultGemmConfigurationToCutlass3Types`` style,
or any hand-written Ampere GEMM):

* CTA tile 128 x 128 x 64, 128 threads (4 warps as 2 x 2), 3-stage pipeline;
* A and B live in shared memory K-major (row-major M x K), each stage a
  128 x 64 half tile built from CUTLASS's atom
  ``composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{})``
  tiled 16 times down M;
* global -> shared with ``cp.async.cg ... 16``: thread ``t`` copies 8 halfs
  (16 bytes) at row ``t / 8 + 16 * j``, columns ``8 * (t % 8) ..`` for
  ``j = 0..7``;
* shared -> registers with ``ldmatrix.sync.aligned.m8n8.x4.shared.b16``, lane
  ``l`` pointing at row ``l % 16``, column ``8 * (l / 16)`` of the warp's
  16 x 16 sub-tile, feeding ``mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32``.

Run it: ``layoutalg prove examples/sm80_gemm_mainloop_thm.py``.
"""

from __future__ import annotations

from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free
from layoutalg.core.layout import Layout
from layoutalg.prove import aligned, bijective_onto, contiguous, fragment_delivers, in_bounds, param, sym, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

STAGES = 3
TILE = 128 * 64  # halfs per stage
# tile_to_shape(atom, (128, 64)): the 8 x 64 atom repeated 16 times down M (512 halfs apart).
SMEM_A = ComposedLayout(Swizzle(3, 3, 3), 0, Layout(((8, 16), 64), ((64, 512), 1)))
UNSWIZZLED_A = Layout((128, 64), (64, 1))


@theorem
def smem_tile_is_a_bijection():
    """Every (row, k) of the 128 x 64 stage has its own half in [0, 8192): the swizzle loses nothing."""
    return bijective_onto(SMEM_A, TILE, {"row": 128, "k": 64})


def cp_async_offset(t, j, e, stage):
    """The smem element thread ``t`` writes in copy ``j``, element ``e`` of its 16 bytes, in ``stage``."""
    return stage * TILE + sym(SMEM_A)(t // 8 + 16 * j, 8 * (t % 8) + e)


@theorem
def cp_async_writes_are_whole_aligned_16_byte_chunks():
    """Each cp.async of 16 bytes lands on 8 consecutive, 16-byte-aligned halfs inside its stage buffer,
    for every thread, copy and pipeline stage (the stage is a symbolic parameter)."""
    stage = param("stage", STAGES)
    domain = {"t": 128, "j": 8, "e": 8}
    start = {"t": 128, "j": 8}
    return [
        aligned(lambda t, j: cp_async_offset(t, j, 0, stage), 16, start, element_bytes=2),
        contiguous(lambda t, j, e: cp_async_offset(t, j, e, stage), 8, domain, along="e"),
        in_bounds(lambda t, j, e: cp_async_offset(t, j, e, stage), STAGES * TILE, domain),
    ]


def ldmatrix_feeds_mma_a(smem):
    """ldmatrix.x4, lane l pointing at row l % 16, column 8 * (l / 16) of a 16 x 16 block, delivers the
    mma.m16n8k16 A fragment a0..a7, for every block (m_tile, k_tile) of the stage, lane, register and half."""
    return fragment_delivers("ldmatrix.x4", smem, "mma.m16n8k16.f16", "A",
                             addresses=lambda lane: (lane % 16, 8 * (lane // 16)))


@theorem
def ldmatrix_x4_feeds_the_mma_a_fragment():
    """For every warp, 16-row block and k-step: ldmatrix.x4 on the swizzled tile delivers exactly a0..a7."""
    return ldmatrix_feeds_mma_a(SMEM_A)


@theorem(expect="refuted")
def ldmatrix_x4_breaks_under_a_64_bit_swizzle():
    """The same with Swizzle<3,2,3> (an 8-byte-granular swizzle, e.g. copied from a 32-bit kernel): the 16 bytes
    after a row address are no longer one row of A, and the counterexample names the lane and register."""
    return ldmatrix_feeds_mma_a(ComposedLayout(Swizzle(3, 2, 3), 0, Layout(((8, 16), 64), ((64, 512), 1))))


LDMATRIX_X4 = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"


def mainloop_ldmatrix_access():
    """Every ldmatrix.x4 of the mainloop: warp row warp_m, 16-row block mi, k-step k_step; lane -> (row, col)."""
    return Access.from_fn(LDMATRIX_X4, lambda lane, warp_m, mi, k_step: (64 * warp_m + 16 * mi + lane % 16,
                                                                         16 * k_step + 8 * (lane // 16)),
                          warp_m=2, mi=4, k_step=4)


@theorem
def ldmatrix_reads_are_bank_conflict_free():
    """Every ldmatrix.x4 of every warp, block and k-step costs its ideal 4 wavefronts on the swizzled stage."""
    return conflict_free(SMEM_A, mainloop_ldmatrix_access(), "f16")


@theorem(expect="refuted")
def unswizzled_ldmatrix_reads_conflict():
    """Without the swizzle the same reads are 8-way conflicted: the counterexample names two lanes of one phase
    whose rows, 128 bytes apart, hit the same bank."""
    return conflict_free(UNSWIZZLED_A, mainloop_ldmatrix_access(), "f16")

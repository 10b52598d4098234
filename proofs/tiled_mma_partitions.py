"""TiledMMA partitions: what each of the 128 threads of a 2x2-warp tiled mma.m16n8k16 holds.

Kernel pattern (every CuTe sm80 GEMM): ``make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{},
Layout<Shape<_2,_2,_1>>{})`` -- four warps arranged 2 (M) x 2 (N), a 32 x 16 x 16
tile per step; ``partition_C`` / ``partition_A`` hand each thread its fragment.
The tiled TV layouts come from ``layoutalg.atoms.tiled`` (CuTe's ``thrfrg_C`` /
``thrfrg_A``); the expected positions come from the PTX ISA fragment tables
(``_ptx.py``) and the warp arrangement (warp ``w`` computes M-block ``w % 2``,
N-block ``w / 2``, CuTe's column-major ``atom_layout``).
"""

from __future__ import annotations

from _ptx import mma_a, mma_c

from layoutalg.atoms import catalog
from layoutalg.atoms.tiled import make_tiled_mma
from layoutalg.prove import bijective_onto, equivalent, injective, sym, theorem

TILED = make_tiled_mma(catalog.mma("m16n8k16", a="f16", c="f32"), (2, 2, 1))
M, N, K = TILED.tile_shape_mnk  # 32, 16, 16
C_TV = TILED.get_layoutC_TV()  # (thread, value) -> m + M*n
A_TV = TILED.get_layoutA_TV()  # (thread, value) -> m + M*k


@theorem
def tiled_mma_c_partition_covers_the_tile_exactly_once():
    """The 128 threads x 4 accumulator values of the 2x2-warp tiled MMA own every element of the
    32 x 16 C tile exactly once (no element computed twice, none missing)."""
    return bijective_onto(C_TV, M * N, {"thread": 128, "value": 4}, name="c_index")


@theorem
def tiled_mma_c_values_follow_the_ptx_fragment_of_each_warp():
    """Thread t's accumulator value v sits at the PTX c_v position of its lane inside the 16 x 8 block of
    warp t/32 (M-block (t/32) % 2, N-block (t/32) / 2)."""

    def ptx(thread: object, value: object) -> dict[str, object]:
        warp, lane = thread // 32, thread % 32
        row, col = mma_c(lane, value)
        return {"m": 16 * (warp % 2) + row, "n": 8 * (warp // 2) + col}

    def cute(thread: object, value: object) -> dict[str, object]:
        index = sym(C_TV)(thread, value)
        return {"m": index % M, "n": index // M}

    return equivalent(cute, ptx, {"thread": 128, "value": 4}, names=("partition_C", "ptx_fragment"))


@theorem
def tiled_mma_a_values_follow_the_ptx_fragment():
    """partition_A: thread t's value v is the PTX a_v element of its lane in M-block (t/32) % 2."""

    def ptx(thread: object, value: object) -> dict[str, object]:
        warp, lane = thread // 32, thread % 32
        row, col = mma_a(lane, value)
        return {"m": 16 * (warp % 2) + row, "k": col}

    def cute(thread: object, value: object) -> dict[str, object]:
        index = sym(A_TV)(thread, value)
        return {"m": index % M, "k": index // M}

    return equivalent(cute, ptx, {"thread": 128, "value": 8}, names=("partition_A", "ptx_fragment"))


@theorem(expect="refuted")
def tiled_mma_a_partition_is_shared_between_n_warps():
    """The A partition is not one-to-one: the two warps of an M-row (N-blocks 0 and 1) hold the same A
    values (each loads its own copy) -- refuted, with the two threads that share a value."""
    return injective(A_TV, {"thread": 128, "value": 8}, name="a_index")

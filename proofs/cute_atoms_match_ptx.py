"""CuTe's thread-value layouts of the sm80/sm90 atoms say the same thing as the PTX ISA fragment tables.

Kernel pattern: every CuTe kernel that partitions with ``TiledMMA`` trusts that
``SM80_16x8x16_F32F16F16F32_TN``'s TV layouts (``(thr, val) -> m + M*k`` for A,
``n + N*k`` for B, ``m + M*n`` for C) place each value where the hardware puts it.
These theorems check CuTe's encoding (``layoutalg.atoms``, copied from
cute/atom/mma_traits_sm80.hpp and mma_traits_sm90_gmma.hpp) against the PTX ISA
formulas re-stated in ``_ptx.py``, for every lane and value.  Since ``ThrID`` is
``32:1`` (``128:1`` for wgmma), CuTe's thread index is the lane (thread) index.
"""

from __future__ import annotations

from _ptx import group_id, matrix_fragment, mma_a, mma_b, mma_c, thread_in_group

from layoutalg.atoms import catalog
from layoutalg.prove import equivalent, sym, theorem

MMA = catalog.mma("m16n8k16", a="f16", c="f32")  # SM80_16x8x16_F32F16F16F32_TN


@theorem
def cute_sm80_16x8x16_a_layout_is_the_ptx_a_fragment():
    """SM80_16x8x16 ALayout (thr, val) -> m + 16*k equals PTX's a_i at (groupID-derived row, col)."""

    def ptx(lane: object, v: object) -> object:
        row, col = mma_a(lane, v)
        return row + 16 * col

    return equivalent(MMA.a_layout, ptx, {"lane": 32, "v": 8}, names=("cute_ALayout", "ptx_a_fragment"))


@theorem
def cute_sm80_16x8x16_b_layout_is_the_ptx_b_fragment():
    """SM80_16x8x16 BLayout (thr, val) -> n + 8*k equals PTX's b_i (k = 2*tig + (i&1) + 8*(i>>1), n = groupID)."""

    def ptx(lane: object, v: object) -> object:
        k, n = mma_b(lane, v)
        return n + 8 * k

    return equivalent(MMA.b_layout, ptx, {"lane": 32, "v": 4}, names=("cute_BLayout", "ptx_b_fragment"))


@theorem
def cute_sm80_16x8x16_c_layout_is_the_ptx_c_fragment():
    """SM80_16x8x16 CLayout (thr, val) -> m + 16*n equals PTX's c_i."""

    def ptx(lane: object, v: object) -> object:
        row, col = mma_c(lane, v)
        return row + 16 * col

    return equivalent(MMA.c_layout, ptx, {"lane": 32, "v": 4}, names=("cute_CLayout", "ptx_c_fragment"))


@theorem
def cute_sm90_wgmma_64x64_c_layout_is_the_ptx_d_fragment():
    """SM90_64x64x16 CLayout ((4,8,4),(2,2,8)):((128,1,16),(64,8,512)) equals the PTX wgmma D fragment:
    row = 16*warp + groupID + 8*((i>>1)&1), col = 8*(i>>2) + 2*tig + (i&1), index row + 64*col."""
    layout = catalog.wgmma(64).c_layout

    def ptx(tid: object, i: object) -> object:
        lane, warp = tid % 32, tid // 32
        row = 16 * warp + group_id(lane) + 8 * ((i >> 1) & 1)
        col = 8 * (i >> 2) + 2 * thread_in_group(lane) + (i & 1)
        return row + 64 * col

    return equivalent(layout, ptx, {"tid": 128, "i": 32}, names=("cute_CLayout", "ptx_d_fragment"))


@theorem
def ldmatrix_x4_trans_fragment_layout_matches_the_isa():
    """layoutalg's ldmatrix.x4.trans fragment layout (lane, (half, reg)) -> 64*matrix + 8*row + col
    agrees with the PTX statement of .trans re-typed in _ptx.py."""
    layout = sym(catalog.ldmatrix(4, trans=True).fragment_layout)

    def ptx(lane: object, half: object, reg: object) -> object:
        matrix, row, col = matrix_fragment(lane, reg, half, trans=True)
        return 64 * matrix + 8 * row + col

    return equivalent(
        lambda lane, half, reg: layout(lane, (half, reg)), ptx, {"lane": 32, "half": 2, "reg": 4}, names=("atoms_fragment_layout", "ptx_isa")
    )

"""ldmatrix.x2.trans / .x4.trans feeding the B operand of mma.m16n8k16 from a row-major K x N tile.

Kernel pattern: B is stored N-contiguous (``row-major K x N``, e.g. the V tile of
attention or a "NN" GEMM's B); the mma wants B fragments whose pairs of halfs
run along K, so the load must transpose each 8x8 block: ``ldmatrix...trans``.
Lane ``l`` supplies the address of K-row ``l % 16`` of the warp's 16-row slab
and, for ``.x4``, N-column block ``(l / 16) * 8``::

    ldmatrix.x4.trans {b0,b1,b2,b3}, [&sB[k_step*16 + lane%16][warp_n*16 + (lane/16)*8]]
    mma.m16n8k16 ... {b0,b1} (n-block 0) ... {b2,b3} (n-block 1)

Proved for every lane, register, half, warp and k-step; the same load without
``.trans`` is refuted with the lane whose value is the wrong element.
"""

from __future__ import annotations

from _ptx import matrix_access_offset, mma_b

from layoutalg.core.layout import Layout
from layoutalg.prove import equivalent, param, sym, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

K_ROWS, N_COLS = 32, 64  # the CTA's B tile, halfs, N contiguous
ROW_MAJOR = Layout((K_ROWS, N_COLS), (N_COLS, 1))


def ldmatrix_vs_mma_b(num: int, trans: bool, swizzle: Swizzle | None = None) -> object:
    """``num`` = 2 (one n8 block) or 4 (two n8 blocks)."""
    n_width = 8 * (num // 2)
    warp_n, k_step = param("warp_n", N_COLS // n_width), param("k_step", K_ROWS // 16)
    S = sym(ROW_MAJOR if swizzle is None else ComposedLayout(swizzle, 0, ROW_MAJOR))

    def address_of(s: object) -> object:
        return S(k_step * 16 + (s % 16), warp_n * n_width + (s // 16) * 8)

    def ldmatrix(lane: object, reg: object, half: object) -> object:
        return matrix_access_offset(address_of, lane, reg, half, trans=trans)

    def logical(offset: object) -> object:  # row-major index of the element at ``offset`` (a swizzle is an involution)
        return offset if swizzle is None else sym(swizzle)(offset)

    def mma_fragment(lane: object, reg: object, half: object) -> object:
        k, n = mma_b(lane, 2 * (reg % 2) + half)
        return S(k_step * 16 + k, warp_n * n_width + 8 * (reg // 2) + n)

    return equivalent(
        ldmatrix,
        mma_fragment,
        {"lane": 32, "reg": num, "half": 2},
        names=("ldmatrix_reads_smem", "mma_needs_smem"),
        show={
            "ldmatrix_k": lambda lane, reg, half: logical(ldmatrix(lane, reg, half)) // N_COLS,
            "ldmatrix_n": lambda lane, reg, half: logical(ldmatrix(lane, reg, half)) % N_COLS,
            "mma_k": lambda lane, reg, half: k_step * 16 + mma_b(lane, 2 * (reg % 2) + half)[0],
            "mma_n": lambda lane, reg, half: warp_n * n_width + 8 * (reg // 2) + mma_b(lane, 2 * (reg % 2) + half)[1],
        },
    )


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

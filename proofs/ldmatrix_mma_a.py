"""ldmatrix.x4 feeding the A operand of mma.m16n8k16 (fp16) from a row-major M x K shared-memory tile.

Kernel pattern (CUTLASS sm80 / hand-written Ampere GEMMs): the CTA's A tile is
``128 x 64`` halfs in shared memory, row-major (``K`` contiguous), possibly
XOR-swizzled.  Warp ``warp_m`` reads its 16 x 16 sub-tile for k-step ``k_step``
with one ``ldmatrix.sync.aligned.m8n8.x4.shared.b16``, lane ``l`` supplying the
address of row ``l % 16``, column ``(l / 16) * 8``::

    ldmatrix.x4 {a0,a1,a2,a3}, [&sA[warp_m*16 + lane%16][k_step*16 + (lane/16)*8]]
    mma.m16n8k16 ... {a0,a1,a2,a3}, ...

The theorems say: for every lane, register and half, and every warp and k-step,
the element ldmatrix delivers is exactly the element of A the mma fragment needs
(compared as shared-memory offsets of the same tile).
"""

from __future__ import annotations

from _ptx import matrix_access_offset, mma_a

from layoutalg.core.layout import Layout
from layoutalg.prove import equivalent, param, sym, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

ROWS, COLS = 128, 64  # the CTA's A tile (M x K), halfs
FRAGMENT = {"lane": 32, "reg": 4, "half": 2}
ROW_MAJOR = Layout((ROWS, COLS), (COLS, 1))


def smem(swizzle: Swizzle | None) -> object:
    """``sA(row, col)``: the element offset of A[row][col] in shared memory."""
    return ROW_MAJOR if swizzle is None else ComposedLayout(swizzle, 0, ROW_MAJOR)


def ldmatrix_vs_mma(swizzle: Swizzle | None) -> object:
    warp_m, k_step = param("warp_m", ROWS // 16), param("k_step", COLS // 16)
    S = sym(smem(swizzle))

    def address_of(s: object) -> object:  # the address lane s supplies, as an element offset
        return S(warp_m * 16 + (s % 16), k_step * 16 + (s // 16) * 8)

    def ldmatrix(lane: object, reg: object, half: object) -> object:
        return matrix_access_offset(address_of, lane, reg, half, trans=False)

    def logical(offset: object) -> object:  # row-major index of the element at ``offset`` (a swizzle is an involution)
        return offset if swizzle is None else sym(swizzle)(offset)

    def mma_fragment(lane: object, reg: object, half: object) -> object:
        row, col = mma_a(lane, 2 * reg + half)
        return S(warp_m * 16 + row, k_step * 16 + col)

    return equivalent(
        ldmatrix,
        mma_fragment,
        FRAGMENT,
        names=("ldmatrix_reads_smem", "mma_needs_smem"),
        show={
            "ldmatrix_row": lambda lane, reg, half: logical(ldmatrix(lane, reg, half)) // COLS,
            "ldmatrix_col": lambda lane, reg, half: logical(ldmatrix(lane, reg, half)) % COLS,
            "mma_row": lambda lane, reg, half: warp_m * 16 + mma_a(lane, 2 * reg + half)[0],
            "mma_col": lambda lane, reg, half: k_step * 16 + mma_a(lane, 2 * reg + half)[1],
        },
    )


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

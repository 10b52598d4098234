"""What happens to mma accumulators: stmatrix epilogues, movmatrix transposes, register reuse.

Kernel patterns certified here:

* **stmatrix epilogue** (Hopper/Ampere+ GEMM epilogues): each warp converts its two
  m16n8 f16 accumulators (a 16 x 16 block of C) to ``f16x2`` registers and stores
  them with ``stmatrix.sync.aligned.m8n8.x4.shared.b16``, lane ``l`` giving the
  address of row ``l % 16``, column ``(l / 16) * 8`` of the warp's block of a
  row-major C tile;
* **movmatrix.trans** (attention backward, transposed reuse of ``dS``): a 16 x 8
  accumulator tile ``S`` becomes the B operand (K x N = 16 x 8, ``B = S``) of the
  next mma.m16n8k16 after one ``movmatrix.sync.aligned.m8n8.trans.b16`` per
  register; reusing the registers without the transpose is refuted;
* **FlashAttention-2 P reuse**: the accumulators of two adjacent m16n8k16 MMAs
  (n-blocks 2j, 2j+1 of ``S = Q K^T``) are, register for register, the A fragment
  of the next ``mma.m16n8k16`` (``O += P V``), so no shuffle is needed.
"""

from __future__ import annotations

from _ptx import matrix_access_offset, mma_a, mma_b, mma_c, movmatrix_trans

from layoutalg.core.layout import Layout
from layoutalg.prove import equivalent, param, sym, theorem

C_ROWS, C_COLS = 128, 128
C_ROW_MAJOR = Layout((C_ROWS, C_COLS), (C_COLS, 1))


@theorem
def stmatrix_x4_writes_the_f16_accumulators_row_major():
    """stmatrix.x4 of two m16n8 f16 accumulators (registers c0c1, c2c3 of n-blocks 0 and 1) writes
    each element to its row-major position in the 128 x 128 C tile, for every warp position."""
    warp_m, warp_n = param("warp_m", C_ROWS // 16), param("warp_n", C_COLS // 16)
    S = sym(C_ROW_MAJOR)

    def address_of(s: object) -> object:
        return S(warp_m * 16 + s % 16, warp_n * 16 + (s // 16) * 8)

    def stmatrix(lane: object, reg: object, half: object) -> object:
        return matrix_access_offset(address_of, lane, reg, half, trans=False)

    def accumulator(lane: object, reg: object, half: object) -> object:
        # stmatrix register reg = accumulator of n-block reg // 2, its f16x2 register reg % 2
        row, col = mma_c(lane, 2 * (reg % 2) + half)
        return S(warp_m * 16 + row, warp_n * 16 + 8 * (reg // 2) + col)

    return equivalent(stmatrix, accumulator, {"lane": 32, "reg": 4, "half": 2}, names=("stmatrix_writes_smem", "c_row_major_smem"))


def _movmatrix_b(transpose: bool) -> object:
    def result(lane: object, reg: object, half: object) -> dict[str, object]:
        # register reg of the accumulator holds rows 8*reg .. 8*reg+7 of S (c0c1 / c2c3)
        src, dst = movmatrix_trans(lane, half)
        row, col = dst if transpose else src
        return {"s_row": 8 * reg + row, "s_col": col}

    def b_fragment(lane: object, reg: object, half: object) -> dict[str, object]:
        k, n = mma_b(lane, 2 * reg + half)  # B = S: B[k][n] = S[k][n]
        return {"s_row": k, "s_col": n}

    return equivalent(result, b_fragment, {"lane": 32, "reg": 2, "half": 2}, names=("register_holds", "mma_b_needs"))


@theorem
def movmatrix_trans_turns_accumulator_into_b_fragment():
    """movmatrix.trans on each f16x2 accumulator register of a 16x8 tile S gives exactly the
    mma.m16n8k16 B fragment of S (b0..b3), for every lane and half."""
    return _movmatrix_b(transpose=True)


@theorem(expect="refuted")
def accumulator_registers_are_not_a_b_fragment_without_movmatrix():
    """Passing the accumulator registers straight in as B (no movmatrix) reads S at transposed positions."""
    return _movmatrix_b(transpose=False)


@theorem
def flash_attention_p_reuses_accumulators_as_a_fragment():
    """FlashAttention-2: the C fragments of n-blocks 2j and 2j+1 of S = Q K^T, packed to f16x2 in order
    (c0c1, c2c3 of block 2j, then of block 2j+1), are exactly a0..a7 of mma.m16n8k16 for P V."""

    def accumulators(lane: object, reg: object, half: object) -> dict[str, object]:
        block, i = reg // 2, 2 * (reg % 2) + half
        row, col = mma_c(lane, i)
        return {"p_row": row, "p_col": 8 * block + col}

    def a_fragment(lane: object, reg: object, half: object) -> dict[str, object]:
        row, col = mma_a(lane, 2 * reg + half)
        return {"p_row": row, "p_col": col}

    return equivalent(accumulators, a_fragment, {"lane": 32, "reg": 4, "half": 2}, names=("accumulator_holds", "mma_a_needs"))

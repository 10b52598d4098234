"""Kernel 2: FlashAttention-2-style forward pass, the Q/K/V shared-memory tiles on sm80.

The kernel (one CTA: kBlockM = 128 query rows, kBlockN = 64 key rows, head dim 64, fp16, 4 warps):

* Q (128 x 64), K (64 x 64) and V (64 x 64) are stored row-major in shared memory (head dim
  contiguous), each built from the sm80 atom ``Swizzle<3,3,3> o (8,64):(64,1)``;
* ``S = Q K^T`` is an mma.m16n8k16 with A = Q (M x K = rows x d) and B = K^T: B is K x N = d x keys,
  and the smem tile of K is keys x d, i.e. N x K with K contiguous, so ``ldmatrix`` *without*
  ``.trans`` yields the B fragment (lane ``l`` points at key row ``n0 + l % 8 + 8 * (l / 16)``,
  column ``k0 + 8 * ((l / 8) % 2)``);
* ``O = P V`` has B = V, which is K x N = keys x d with N contiguous in smem, so it needs
  ``ldmatrix.trans`` (lane ``l`` points at key row ``k0 + l % 8 + 8 * ((l / 8) % 2)``, column
  ``n0 + 8 * (l / 16)``).

The bug every FlashAttention port meets once: loading V with plain ``ldmatrix`` (no ``.trans``),
as for K.  It compiles, runs, and produces wrong attention outputs.  The last theorem pins it down.

Run it: ``layoutalg prove examples/flash_attention2_smem_thm.py``.
"""

from __future__ import annotations

from layoutalg.atoms.catalog import ldmatrix, mma
from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free
from layoutalg.core.layout import Layout
from layoutalg.prove import bijective_onto, equivalent, param, sym, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

HEAD_DIM = 64


def smem_tile(rows):
    """``rows`` x 64 halfs, row-major, the 8 x 64 Swizzle<3,3,3> atom repeated down the rows."""
    return ComposedLayout(Swizzle(3, 3, 3), 0, Layout(((8, rows // 8), HEAD_DIM), ((64, 512), 1)))


SQ, SK, SV = smem_tile(128), smem_tile(64), smem_tile(64)
MMA = mma("m16n8k16", a="f16", b="f16", c="f32")
FRAGMENT = {"lane": 32, "reg": 4, "half": 2}


def ldmatrix_coords(trans, supplier_row, supplier_col):
    """The (row, col) of the smem tile that ldmatrix.x4[.trans] delivers to (lane, reg, half), from the PTX ISA:
    register ``reg`` holds matrix ``reg``; element (row r, col c) of it (``fragment_layout``) lies ``c`` halfs after
    the address that lane ``8 * reg + r`` supplied (``supplier_row/col(lane)`` say where each lane points)."""
    frag = sym(ldmatrix(num=4, trans=trans).fragment_layout)

    def coords(lane, reg, half):
        index = frag(lane, (half, reg))  # 64 * matrix + 8 * row + col, rows as they lie in smem
        supplier = 8 * (index // 64) + (index // 8) % 8
        return supplier_row(supplier), supplier_col(supplier) + index % 8

    return coords


def ldmatrix_reads(smem, trans, supplier_row, supplier_col):
    """The smem offset ldmatrix.x4[.trans] delivers to (lane, reg, half): the row address plus the column."""
    coords = ldmatrix_coords(trans, supplier_row, supplier_col)
    S = sym(smem)

    def reads(lane, reg, half):
        row, col = coords(lane, reg, half)
        return S(row, col - col % 8) + col % 8  # ldmatrix reads 16 contiguous bytes from the row's address

    return reads


def b_fragment(smem, n_major):
    """The smem offset of B element b_{2*(reg%2)+half} of n-block reg//2 that mma.m16n8k16 needs at (lane, reg, half).

    ``n_major``: the tile is stored N x K (K's rows are keys, K^T is B); else K x N (V)."""
    n0, k0 = param("n_block", 4), param("k_block", 4)
    S = sym(smem)

    def needs(lane, reg, half):
        index = sym(MMA.ptx_layout("B"))(lane, 2 * (reg % 2) + half)  # n + 8 * k in the 8 x 16 B tile (CuTe: (N, K))
        n, k = 16 * n0 + 8 * (reg // 2) + index % 8, 16 * k0 + index // 8
        return S(n, k) if n_major else S(k, n)

    return needs, n0, k0


@theorem
def q_k_v_tiles_are_bijections():
    """Each smem tile stores every element exactly once."""
    return [bijective_onto(SQ, 128 * 64, {"row": 128, "d": 64}),
            bijective_onto(SK, 64 * 64, {"key": 64, "d": 64}),
            bijective_onto(SV, 64 * 64, {"key": 64, "d": 64})]


@theorem
def k_via_ldmatrix_x4_is_the_b_fragment_of_q_kt():
    """S = Q K^T: ldmatrix.x4 (no .trans) on K's keys x d tile gives B = K^T's fragment, for every 16 x 16 block."""
    needs, n0, k0 = b_fragment(SK, n_major=True)
    reads = ldmatrix_reads(SK, False, lambda s: 16 * n0 + s % 8 + 8 * (s // 16), lambda s: 16 * k0 + 8 * ((s // 8) % 2))
    return equivalent(reads, needs, FRAGMENT, names=("ldmatrix_reads", "mma_needs"))


@theorem
def v_via_ldmatrix_x4_trans_is_the_b_fragment_of_p_v():
    """O = P V: ldmatrix.x4.trans on V's keys x d tile gives B = V's fragment, for every 16 x 16 block."""
    needs, n0, k0 = b_fragment(SV, n_major=False)
    reads = ldmatrix_reads(SV, True, lambda s: 16 * k0 + s % 8 + 8 * ((s // 8) % 2), lambda s: 16 * n0 + 8 * (s // 16))
    return equivalent(reads, needs, FRAGMENT, names=("ldmatrix_reads", "mma_needs"))


@theorem(expect="refuted")
def bug_v_without_trans():
    """The bug: V loaded like K, with plain ldmatrix.x4.  Refuted: the counterexample names the lane, register and
    half that receive V[k][n] where the mma needs V[n][k]-transposed data."""
    needs, n0, k0 = b_fragment(SV, n_major=False)
    row, col = (lambda s: 16 * k0 + s % 8 + 8 * ((s // 8) % 2)), (lambda s: 16 * n0 + 8 * (s // 16))
    reads = ldmatrix_reads(SV, False, row, col)
    coords = ldmatrix_coords(False, row, col)

    def needed(lane, reg, half):  # (key, d) of b_{2*(reg%2)+half} of n-block reg//2
        index = sym(MMA.ptx_layout("B"))(lane, 2 * (reg % 2) + half)
        return 16 * k0 + index // 8, 16 * n0 + 8 * (reg // 2) + index % 8

    return equivalent(reads, needs, FRAGMENT, names=("ldmatrix_reads", "mma_needs"), show={
        "got_V_key": lambda lane, reg, half: coords(lane, reg, half)[0],
        "got_V_d": lambda lane, reg, half: coords(lane, reg, half)[1],
        "needed_V_key": lambda lane, reg, half: needed(lane, reg, half)[0],
        "needed_V_d": lambda lane, reg, half: needed(lane, reg, half)[1],
    })


@theorem
def k_and_v_loads_are_bank_conflict_free():
    """Every ldmatrix.x4 of K and every ldmatrix.x4.trans of V, for every 16 x 16 block, costs its ideal."""
    k_loads = Access.from_fn("ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                             lambda lane, n_block, k_block: (16 * n_block + lane % 8 + 8 * (lane // 16),
                                                             16 * k_block + 8 * ((lane // 8) % 2)),
                             n_block=4, k_block=4)
    v_loads = Access.from_fn("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                             lambda lane, n_block, k_block: (16 * k_block + lane % 8 + 8 * ((lane // 8) % 2),
                                                             16 * n_block + 8 * (lane // 16)),
                             n_block=4, k_block=4)
    return [conflict_free(SK, k_loads, "f16"), conflict_free(SV, v_loads, "f16")]

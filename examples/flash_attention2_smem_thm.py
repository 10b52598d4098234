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

from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free
from layoutalg.core.layout import Layout
from layoutalg.prove import bijective_onto, fragment_delivers, theorem
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

HEAD_DIM = 64


def smem_tile(rows):
    """``rows`` x 64 halfs, row-major, the 8 x 64 Swizzle<3,3,3> atom repeated down the rows."""
    return ComposedLayout(Swizzle(3, 3, 3), 0, Layout(((8, rows // 8), HEAD_DIM), ((64, 512), 1)))


SQ, SK, SV = smem_tile(128), smem_tile(64), smem_tile(64)
MMA = "mma.m16n8k16.f16"


def as_b_operand(tile):
    """K's keys x d tile read as B = K^T: (k, n) = (d, key) -> the same element offset."""
    inner = tile.inner
    return ComposedLayout(tile.outer, tile.offset, Layout((inner.shape[1], inner.shape[0]), (inner.stride[1], inner.stride[0])))


def k_addresses(lane):
    """ldmatrix.x4 of K: lane l points at key n0 + l % 8 + 8 (l / 16), d k0 + 8 ((l / 8) % 2); as B's (k, n)."""
    return 8 * ((lane // 8) % 2), lane % 8 + 8 * (lane // 16)


def v_addresses(lane):
    """ldmatrix.x4.trans of V: lane l points at key k0 + l % 16, d n0 + 8 (l / 16); V is B's (k, n) as stored."""
    return lane % 16, 8 * (lane // 16)


@theorem
def q_k_v_tiles_are_bijections():
    """Each smem tile stores every element exactly once."""
    return [bijective_onto(SQ, 128 * 64, {"row": 128, "d": 64}),
            bijective_onto(SK, 64 * 64, {"key": 64, "d": 64}),
            bijective_onto(SV, 64 * 64, {"key": 64, "d": 64})]


@theorem
def k_via_ldmatrix_x4_is_the_b_fragment_of_q_kt():
    """S = Q K^T: ldmatrix.x4 (no .trans) on K's keys x d tile gives B = K^T's fragment, for every 16 x 16 block."""
    return fragment_delivers("ldmatrix.x4", as_b_operand(SK), MMA, "B", addresses=k_addresses)


@theorem
def v_via_ldmatrix_x4_trans_is_the_b_fragment_of_p_v():
    """O = P V: ldmatrix.x4.trans on V's keys x d tile gives B = V's fragment, for every 16 x 16 block."""
    return fragment_delivers("ldmatrix.x4.trans", SV, MMA, "B", addresses=v_addresses)


@theorem(expect="refuted")
def bug_v_without_trans():
    """The bug: V loaded like K, with plain ldmatrix.x4.  Refuted: the counterexample names the lane, register and
    half that receive V[key][d] where the mma needs V[d][key]-transposed data."""
    return fragment_delivers("ldmatrix.x4", SV, MMA, "B", addresses=v_addresses)


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

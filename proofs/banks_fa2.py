"""Bank conflicts of a FlashAttention-2-style forward kernel's shared-memory reads (head_dim 64, fp16).

Kernel pattern (FA2 on sm80/sm90, Kernel_traits with kBlockM = 128, kBlockN = 64, kHeadDim = 64, 4 warps):

    SmemLayoutAtomQ = composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})
    sQ: 128 x 64, sK: 64 x 64, sV: 64 x 64, all tile_to_shape(SmemLayoutAtomQ)
    S = Q K^T : Q by ldmatrix.x4 (A operand), K by ldmatrix.x4 (B operand, rows = keys)
    O = P V   : V by ldmatrix.x4.trans (B operand from a row-major seq x head_dim tile)

Lane patterns (CuTe's SM75_U32x4_LDSM_N / _T retiling for m16n8k16):
  Q   : row 16*mi + ln % 16 (+ 16*warp*2), col 16*ks + (ln // 16) * 8
  K   : key 16*ni + (ln // 16) * 8 + ln % 8, col 16*ks + ((ln // 8) % 2) * 8
  V^T : seq 16*ks + (ln // 8 % 2) * 8 + ln % 8, col 16*ni + (ln // 16) * 8
"""

from __future__ import annotations

from layoutalg.atoms.smem import tile_to_shape
from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free
from layoutalg.core.layout import Layout
from layoutalg.prove import theorem
from layoutalg.prove.result import combine
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

LDSM = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
LDSM_T = "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
ATOM = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
SQ = tile_to_shape(ATOM, (128, 64))
SKV = tile_to_shape(ATOM, (64, 64))

Q_READS = Access.from_fn(LDSM, lambda ln, w, mi, ks: (32 * w + 16 * mi + ln % 16, 16 * ks + (ln // 16) * 8),
                         w=4, mi=2, ks=4)
K_READS = Access.from_fn(LDSM, lambda ln, ni, ks: (16 * ni + (ln // 16) * 8 + ln % 8, 16 * ks + ((ln // 8) % 2) * 8),
                         ni=4, ks=4)
V_READS = Access.from_fn(LDSM_T, lambda ln, ks, ni: (16 * ks + (ln // 8 % 2) * 8 + ln % 8, 16 * ni + (ln // 16) * 8),
                         ks=4, ni=4)


@theorem
def fa2_q_k_v_ldmatrix_reads_are_conflict_free():
    """Q (A operand), K (B operand) and V^T (ldmatrix.trans) reads all cost their ideal 4 wavefronts."""
    return combine([conflict_free(SQ, Q_READS, "f16"), conflict_free(SKV, K_READS, "f16"),
                    conflict_free(SKV, V_READS, "f16")])


@theorem(expect="refuted")
def fa2_v_trans_reads_conflict_without_swizzle():
    """With plain 128-byte rows the V^T reads put the 8 rows of each matrix in one bank group."""
    return conflict_free(Layout((64, 64), (64, 1)), V_READS, "f16")


@theorem
def fa2_v_trans_reads_conflict_free_with_padding_instead():
    """The pre-swizzle fix, 8 halves of padding per row (pitch 72), is conflict-free too."""
    return conflict_free(Layout((64, 64), (72, 1)), V_READS, "f16")

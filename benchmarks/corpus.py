"""A fixed corpus of realistic GEMM and attention layouts, as plain ``(shape, stride)`` pairs.

Shared by the benchmarks (and usable by tests): every entry is something a
CUTLASS/CuTe kernel builds.  Sources: CuTe's SM80 ``mma.sync m16n8k16`` and
SM90 ``wgmma m64nNk16`` thread-value layouts (``mma_traits_sm80.hpp``,
``mma_traits_sm90_gmma.hpp``), the SM80 / SM90 shared-memory layout atoms, and
the global-memory tensors of a GEMM and of FlashAttention (Q/K/V/O with
``(seq, head_dim, heads, batch)`` modes).
"""

from __future__ import annotations

from typing import Any

Pair = tuple[Any, Any]

# -- global memory tensors ---------------------------------------------------
GEMM_A_MK = ((4096, 4096), (1, 4096))  # column-major M x K
GEMM_B_NK = ((4096, 4096), (4096, 1))  # row-major N x K
GEMM_C_MN = ((8192, 8192), (8192, 1))
ATTN_Q = ((4096, 128, 32, 4), (128, 1, 4096 * 128, 32 * 4096 * 128))  # (seq, d, heads, batch)
ATTN_O = ((4096, 64, 16, 8), (64 * 16, 1, 64, 4096 * 64 * 16))  # heads interleaved in rows

# -- thread-value layouts (CuTe's MMA traits) ---------------------------------
SM80_16x8x16_A = (((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128)))
SM80_16x8x16_B = (((4, 8), (2, 2)), ((16, 1), (8, 64)))
SM80_16x8x16_C = (((4, 8), (2, 2)), ((32, 1), (16, 8)))
SM90_64x128x16_C = (((4, 8, 4), (2, 2, 16)), ((128, 1, 16), (64, 8, 512)))
SM90_64x64x16_A = (((4, 8, 4), (2, 2, 2)), ((128, 1, 16), (64, 8, 512)))

# -- shared-memory atoms and tiles --------------------------------------------
SMEM_K_MAJOR_128B = ((8, 64), (64, 1))
SMEM_MN_MAJOR_128B = ((64, 8), (1, 64))
SMEM_TILE_128x64 = (((8, 16), (64, 1)), ((64, 512), (1, 0)))  # tile_to_shape of the 8x64 atom
SMEM_STAGES = ((128, 64, 3), (64, 1, 8192))
THREADS_128 = ((32, 4), (4, 1))
THREADS_16x8 = ((16, 8), (8, 1))
VALUES_1x8 = ((1, 8), (8, 1))

# -- tilers ------------------------------------------------------------------
CTA_128x128 = ((128,), (1,))
TILE_128x64 = ((128, 64), (1, 128))
WARP_TILE = ((64, 32), (1, 64))

COMPOSITIONS: list[tuple[str, Pair, Any]] = [
    ("gmemA o tile(128x64)", GEMM_A_MK, ("bymode", (((128,), (1,)), ((64,), (1,))))),
    ("gmemB o tile(128x64)", GEMM_B_NK, ("bymode", (((128,), (1,)), ((64,), (1,))))),
    ("smem128x64 o TV(sm80 A)", ((128, 64), (64, 1)), SM80_16x8x16_A),
    ("smem atom o TV(sm80 C)", ((16, 8), (8, 1)), SM80_16x8x16_C),
    ("sm90 C tile o TV", ((64, 128), (1, 64)), SM90_64x128x16_C),
    ("smem stages o (128,64)", SMEM_STAGES, ((128, 64), (1, 128))),
    ("attnQ o (128 rows)", ATTN_Q, ("bymode", (((128,), (1,)), ((128,), (1,))))),
    ("thread layout o values", ((128, 8), (8, 1)), ((32, 4), (1, 32))),
    ("K-major atom o 4:16", SMEM_K_MAJOR_128B, ((4,), (16,))),
    ("C tile o warp tile", ((128, 128), (1, 128)), WARP_TILE),
]

LAYOUTS: list[tuple[str, Pair]] = [
    ("gemm A", GEMM_A_MK),
    ("gemm C", GEMM_C_MN),
    ("attn Q", ATTN_Q),
    ("attn O", ATTN_O),
    ("sm80 A TV", SM80_16x8x16_A),
    ("sm80 C TV", SM80_16x8x16_C),
    ("sm90 C TV", SM90_64x128x16_C),
    ("sm90 A TV", SM90_64x64x16_A),
    ("smem K-major", SMEM_K_MAJOR_128B),
    ("smem tile", SMEM_TILE_128x64),
    ("smem stages", SMEM_STAGES),
    ("threads 32x4", THREADS_128),
]

INJECTIVE: list[tuple[str, Pair]] = [
    ("gemm A", GEMM_A_MK),
    ("gemm C", GEMM_C_MN),
    ("attn Q", ATTN_Q),
    ("sm80 C TV", SM80_16x8x16_C),
    ("sm90 C TV", SM90_64x128x16_C),
    ("smem K-major", SMEM_K_MAJOR_128B),
    ("smem MN-major", SMEM_MN_MAJOR_128B),
    ("smem stages", SMEM_STAGES),
    ("threads 32x4", THREADS_128),
    ("threads 16x8", THREADS_16x8),
]

COMPLEMENTS: list[tuple[str, Pair, int]] = [
    ("threads 32x4 in 1024", THREADS_128, 1024),
    ("values 1x8 in 128", VALUES_1x8, 128),
    ("tile 128x64 in 4096^2", TILE_128x64, 4096 * 4096),
    ("warp tile in 128^2", WARP_TILE, 128 * 128),
    ("sm80 C TV in 256", SM80_16x8x16_C, 256),
    ("K-major atom in 8192", SMEM_K_MAJOR_128B, 8192),
    ("(4,8):(8,1) in 64", ((4, 8), (8, 1)), 64),
    ("strided 16:4 in 512", ((16,), (4,)), 512),
]

DIVIDES: list[tuple[str, Pair, Any]] = [
    ("gemm A / (128,64)", GEMM_A_MK, ("bymode", (((128,), (1,)), ((64,), (1,))))),
    ("gemm C / (128,128)", GEMM_C_MN, ("bymode", (((128,), (1,)), ((128,), (1,))))),
    ("attn Q / (128,128)", ATTN_Q, ("bymode", (((128,), (1,)), ((128,), (1,))))),
    ("smem tile / threads", ((128, 64), (64, 1)), ("bymode", (((32,), (1,)), ((4,), (1,))))),
    ("1-D 4096 / 128", ((4096,), (1,)), ((128,), (1,))),
    ("smem stages / (64,32)", SMEM_STAGES, ("bymode", (((64,), (1,)), ((32,), (1,))))),
    ("C tile / warp", ((128, 128), (1, 128)), ("bymode", (((64,), (1,)), ((32,), (1,))))),
    ("1-D 8192 / 16:8", ((8192,), (1,)), ((16,), (8,))),
]

PRODUCTS: list[tuple[str, Pair, Pair]] = [
    ("smem atom x (2,4)", SMEM_K_MAJOR_128B, ((2, 4), (1, 2))),
    ("mma atom x (2,2)", ((16, 8), (1, 16)), ((2, 2), (1, 2))),
    ("threads x values", THREADS_128, ((2, 4), (1, 2))),
    ("values x threads", ((4, 2), (1, 4)), ((8, 16), (16, 1))),
    ("1-D 32 x 4", ((32,), (1,)), ((4,), (1,))),
    ("mn-major atom x (1,8)", SMEM_MN_MAJOR_128B, ((1, 8), (0, 1))),
    ("block (8,8) x (4,4)", ((8, 8), (8, 1)), ((4, 4), (1, 4))),
    ("tile x stages", ((64, 64), (1, 64)), ((1, 1, 3), (0, 0, 1))),
]

COMMON_VECTORS: list[tuple[str, Pair, Pair]] = [
    ("row-major vs row-major", ((128, 64), (64, 1)), ((128, 64), (64, 1))),
    ("col vs row", ((128, 64), (1, 128)), ((128, 64), (64, 1))),
    ("smem atom vs tile", ((8, 64), (64, 1)), ((8, (8, 8)), (8, (1, 64)))),
    ("TV vs compact", ((32, 8), (8, 1)), ((32, (2, 4)), (8, (1, 2)))),
]

EVALUATE_2_20: Pair = (((32, 32), (32, 32)), ((1, 32768), (32, 1024)))  # a 1024x1024 tile, 32x32 blocks

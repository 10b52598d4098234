// Kernel corpus entry cute_gemm_cg_sw233: tools/kernel_corpus/cute_gemm_cg.cu with the macros below
// (written by tools/build_kernels.py; edit the source there, not this copy).
#define SWIZZLE_BITS 2
// A CuTe GEMM whose global -> shared copies are cp.async.cg (SM80_CP_ASYNC_CACHEGLOBAL, 16 B per
// thread) into K-major tiles built from the 8 x 64 half atom under Swizzle<SWIZZLE_BITS,3,3>, read
// back with ldmatrix (SM75_U32x4_LDSM_N) into mma.m16n8k16 (f16 in, f32 accumulate).
//   SWIZZLE_BITS 3: the conflict-free Swizzle<3,3,3>;  2: Swizzle<2,3,3>;  0: no swizzle.
// The same (possibly wrong) layout serves the write and the read, so the result is right for every
// choice; only the bank conflicts change.
//   C = alpha * A @ B + beta * C;  A: M x K row-major, B given as N x K row-major (TN),
//   C: M x N row-major f32.  M, N multiples of 64, K a multiple of 64.
#include <cute/tensor.hpp>

#ifndef SWIZZLE_BITS
#define SWIZZLE_BITS 3
#endif
#ifndef KERNEL_NAME
#define KERNEL_NAME cute_gemm_cg
#endif

using namespace cute;

using TileM = Int<64>;
using TileN = Int<64>;
using TileK = Int<64>;
using SmemAtom = decltype(composition(Swizzle<SWIZZLE_BITS, 3, 3>{},
                                      Layout<Shape<_8, _64>, Stride<_64, _1>>{}));
using SmemLayoutA = decltype(tile_to_shape(SmemAtom{}, Shape<TileM, TileK>{}));
using SmemLayoutB = decltype(tile_to_shape(SmemAtom{}, Shape<TileN, TileK>{}));
using G2SCopy = decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, half_t>{},
                                         Layout<Shape<_16, _8>, Stride<_8, _1>>{},   // 16 x 8 threads, k-major
                                         Layout<Shape<_1, _8>>{}));                  // 8 halves each
using Mma = decltype(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{},
                                    Layout<Shape<_2, _2>>{},                         // 2 x 2 warps
                                    Tile<_32, _32, _16>{}));
using S2RAtom = Copy_Atom<SM75_U32x4_LDSM_N, half_t>;

extern "C" __global__ void __launch_bounds__(128)
KERNEL_NAME(int M, int N, int K, half_t const* A, half_t const* B, float* C, float alpha, float beta)
{
  __shared__ alignas(128) half_t smem_a[cosize_v<SmemLayoutA>];
  __shared__ alignas(128) half_t smem_b[cosize_v<SmemLayoutB>];

  Tensor mA = make_tensor(make_gmem_ptr(A), make_shape(M, K), make_stride(K, Int<1>{}));
  Tensor mB = make_tensor(make_gmem_ptr(B), make_shape(N, K), make_stride(K, Int<1>{}));
  Tensor mC = make_tensor(make_gmem_ptr(C), make_shape(M, N), make_stride(N, Int<1>{}));

  auto tiler = make_shape(TileM{}, TileN{}, TileK{});
  auto coord = make_coord(blockIdx.x, blockIdx.y, _);
  Tensor gA = local_tile(mA, tiler, coord, Step<_1, X, _1>{});   // (BM, BK, k)
  Tensor gB = local_tile(mB, tiler, coord, Step<X, _1, _1>{});   // (BN, BK, k)
  Tensor gC = local_tile(mC, tiler, coord, Step<_1, _1, X>{});   // (BM, BN)

  Tensor sA = make_tensor(make_smem_ptr(smem_a), SmemLayoutA{});
  Tensor sB = make_tensor(make_smem_ptr(smem_b), SmemLayoutB{});

  G2SCopy g2s;
  ThrCopy thr_g2s = g2s.get_slice(threadIdx.x);
  Tensor tAgA = thr_g2s.partition_S(gA);
  Tensor tAsA = thr_g2s.partition_D(sA);
  Tensor tBgB = thr_g2s.partition_S(gB);
  Tensor tBsB = thr_g2s.partition_D(sB);

  Mma mma;
  ThrMMA thr_mma = mma.get_slice(threadIdx.x);
  Tensor tCgC = thr_mma.partition_C(gC);
  Tensor tCrA = thr_mma.partition_fragment_A(sA);
  Tensor tCrB = thr_mma.partition_fragment_B(sB);
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);
  clear(tCrC);

  TiledCopy s2r_a = make_tiled_copy_A(S2RAtom{}, mma);
  ThrCopy thr_s2r_a = s2r_a.get_slice(threadIdx.x);
  Tensor tXsA = thr_s2r_a.partition_S(sA);
  Tensor tXrA = thr_s2r_a.retile_D(tCrA);
  TiledCopy s2r_b = make_tiled_copy_B(S2RAtom{}, mma);
  ThrCopy thr_s2r_b = s2r_b.get_slice(threadIdx.x);
  Tensor tXsB = thr_s2r_b.partition_S(sB);
  Tensor tXrB = thr_s2r_b.retile_D(tCrB);

  int k_tiles = size<2>(gA);
  for (int kt = 0; kt < k_tiles; ++kt) {
    copy(g2s, tAgA(_, _, _, kt), tAsA);
    copy(g2s, tBgB(_, _, _, kt), tBsB);
    cp_async_fence();
    cp_async_wait<0>();
    __syncthreads();
    CUTE_UNROLL
    for (int kb = 0; kb < size<2>(tCrA); ++kb) {
      copy(s2r_a, tXsA(_, _, kb), tXrA(_, _, kb));
      copy(s2r_b, tXsB(_, _, kb), tXrB(_, _, kb));
      gemm(mma, tCrA(_, _, kb), tCrB(_, _, kb), tCrC);
    }
    __syncthreads();
  }
  axpby(alpha, tCrC, beta, tCgC);
}

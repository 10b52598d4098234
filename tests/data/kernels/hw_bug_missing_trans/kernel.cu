// Kernel corpus entry hw_bug_missing_trans: tools/kernel_corpus/hw_mma.cu with the macros below
// (written by tools/build_kernels.py; edit the source there, not this copy).
#define HW_SWIZZLED 0
#define HW_COPY 0
#define HW_B_MOVMATRIX 0
#define HW_EPILOGUE 0
#define BUG_MISSING_TRANS 1
#define KERNEL_NAME hw_bug_missing_trans
// Hand-written tensor-core GEMM in inline PTX, in the style of the classic ldmatrix/mma articles.
//
//   C[M][N] = A[M][K] @ B[K][N], all row-major, f16 in, f32 accumulate.
//   CTA tile 64 x 64, k-tile 32, 4 warps in a 2 x 2 grid, each warp 32 x 32 (2 x 4 mma.m16n8k16).
//   A fragments: ldmatrix.x4 (lanes 0-15 rows 0-15 at k 0, lanes 16-31 the same rows at k 8).
//   B fragments: B is stored k-major in shared memory ([k][n]), so each 8 x 8 block is transposed on
//   the way: ldmatrix.x4.trans, or (HW_B_MOVMATRIX) ldmatrix.x4 followed by movmatrix.trans.
//
// Build-time switches (tools/build_kernels.py writes them at the top of each corpus copy):
//   HW_SWIZZLED      0: padded tiles (A rows 80 B, B and C rows 144 B); 1: unpadded tiles with a
//                    16-byte-chunk XOR swizzle (A: Swizzle<2,3,3>, B and C: Swizzle<3,3,3>, on
//                    element offsets).
//   HW_COPY          0: ld.global.v4 + st.shared.v4; 1: cp.async.cg 16 B; 2: cp.async.ca 8 B.
//   HW_B_MOVMATRIX   0: ldmatrix.trans; 1: ldmatrix + movmatrix.trans.
//   HW_EPILOGUE      0: f16 C through stmatrix.x4 into shared, then 16-byte rows out;
//                    1: f32 C through st.shared.v2.f32 into a padded f32 tile (272 B rows), then out.
//   Planted bugs (each makes the result wrong, except possibly the race):
//   BUG_MISSING_TRANS      B loaded with ldmatrix.x4 without .trans (HW_B_MOVMATRIX 0).
//   BUG_SWIZZLE_WRITE_ONLY A is written swizzled but the ldmatrix reads it unswizzled.
//   BUG_SWAPPED_ROWS       lanes 1 and 2 swap the row addresses they give A's ldmatrix.
//   BUG_EPILOGUE_COLSWAP   lanes with lane % 4 == 1 swap their two columns when packing for stmatrix
//                          (C columns 8j+2 and 8j+3 come out exchanged).
//   BUG_MISSING_BARSYNC    no bar.sync between the shared-memory fill and the first ldmatrix.
#include <cstdint>
#include <cuda_fp16.h>

#ifndef HW_SWIZZLED
#define HW_SWIZZLED 0
#endif
#ifndef HW_COPY
#define HW_COPY 0
#endif
#ifndef HW_B_MOVMATRIX
#define HW_B_MOVMATRIX 0
#endif
#ifndef HW_EPILOGUE
#define HW_EPILOGUE 0
#endif
#ifndef KERNEL_NAME
#define KERNEL_NAME hw_gemm
#endif

constexpr int BM = 64, BN = 64, BK = 32, THREADS = 128;

#if HW_SWIZZLED
constexpr int A_PITCH = BK;       // halves: 64 B rows
constexpr int B_PITCH = BN;       // 128 B rows
constexpr int C_PITCH = BN;
#else
constexpr int A_PITCH = BK + 8;   // 80 B rows
constexpr int B_PITCH = BN + 8;   // 144 B rows
constexpr int C_PITCH = BN + 8;
#endif
constexpr int CF_PITCH = BN + 4;  // f32 epilogue tile: 272 B rows

// Byte offset of half element (row, col) in the A tile.
__device__ __forceinline__ uint32_t a_off(int row, int col, bool swizzle = true)
{
#if HW_SWIZZLED
  int chunk = swizzle ? ((col >> 3) ^ ((row >> 1) & 3)) : (col >> 3);
  return uint32_t(row * A_PITCH + chunk * 8 + (col & 7)) * 2u;
#else
  (void)swizzle;
  return uint32_t(row * A_PITCH + col) * 2u;
#endif
}

// Byte offset of half element (row, col) in a 64-wide tile (B, and the f16 C tile).
__device__ __forceinline__ uint32_t w_off(int row, int col)
{
#if HW_SWIZZLED
  int chunk = (col >> 3) ^ (row & 7);
  return uint32_t(row * B_PITCH + chunk * 8 + (col & 7)) * 2u;
#else
  return uint32_t(row * B_PITCH + col) * 2u;
#endif
}

__device__ __forceinline__ void copy_global_to_shared(uint32_t dst, const void* src)
{
#if HW_COPY == 0
  uint32_t v0, v1, v2, v3;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "l"(src));
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n"
               :: "r"(dst), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
#elif HW_COPY == 1
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src) : "memory");
#else
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" :: "r"(dst), "l"(src) : "memory");
#endif
}

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

__device__ __forceinline__ void ldsm_x4_trans(uint32_t (&r)[4], uint32_t addr)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

__device__ __forceinline__ uint32_t movmatrix_trans(uint32_t x)
{
  uint32_t y;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(y) : "r"(x));
  return y;
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ uint32_t pack_half2(float lo, float hi)
{
  uint32_t r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));   // first source -> upper half
  return r;
}

extern "C" __global__ void __launch_bounds__(THREADS)
KERNEL_NAME(const __half* __restrict__ A, const __half* __restrict__ B,
#if HW_EPILOGUE == 0
            __half* __restrict__ C,
#else
            float* __restrict__ C,
#endif
            int M, int N, int K)
{
  __shared__ __align__(128) __half sA[BM * A_PITCH];
  __shared__ __align__(128) __half sB[BK * B_PITCH];
#if HW_EPILOGUE == 0
  __shared__ __align__(128) __half sC[BM * C_PITCH];
#else
  __shared__ __align__(128) float sC[BM * CF_PITCH];
#endif
  (void)M;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const uint32_t sA_base = uint32_t(__cvta_generic_to_shared(sA));
  const uint32_t sB_base = uint32_t(__cvta_generic_to_shared(sB));
  const uint32_t sC_base = uint32_t(__cvta_generic_to_shared(sC));

  float acc[2][4][4];
  for (int mi = 0; mi < 2; ++mi)
    for (int ni = 0; ni < 4; ++ni)
      for (int r = 0; r < 4; ++r) acc[mi][ni][r] = 0.f;

#if HW_COPY == 2
  constexpr int CHUNK = 4;   // halves per copy (8 B)
#else
  constexpr int CHUNK = 8;   // halves per copy (16 B)
#endif

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = tid; i < BM * BK / CHUNK; i += THREADS) {
      int row = i / (BK / CHUNK), col = (i % (BK / CHUNK)) * CHUNK;
      copy_global_to_shared(sA_base + a_off(row, col), A + size_t(m0 + row) * K + k0 + col);
    }
    for (int i = tid; i < BK * BN / CHUNK; i += THREADS) {
      int row = i / (BN / CHUNK), col = (i % (BN / CHUNK)) * CHUNK;
      copy_global_to_shared(sB_base + w_off(row, col), B + size_t(k0 + row) * N + n0 + col);
    }
#if HW_COPY != 0
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
#ifndef BUG_MISSING_BARSYNC
    __syncthreads();
#endif
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t a[2][4], b[4][2];
      for (int mi = 0; mi < 2; ++mi) {
        int row = wm + mi * 16 + (lane & 15);
#ifdef BUG_SWAPPED_ROWS
        if (lane == 1) row += 1;
        if (lane == 2) row -= 1;
#endif
        int col = kk + (lane >> 4) * 8;
#ifdef BUG_SWIZZLE_WRITE_ONLY
        ldsm_x4(a[mi], sA_base + a_off(row, col, false));
#else
        ldsm_x4(a[mi], sA_base + a_off(row, col));
#endif
      }
      for (int nj = 0; nj < 2; ++nj) {
        int j = lane >> 3;
        int krow = kk + (j & 1) * 8 + (lane & 7);
        int ncol = wn + nj * 16 + (j >> 1) * 8;
        uint32_t r[4];
#if HW_B_MOVMATRIX
        ldsm_x4(r, sB_base + w_off(krow, ncol));
        for (int q = 0; q < 4; ++q) r[q] = movmatrix_trans(r[q]);
#elif defined(BUG_MISSING_TRANS)
        ldsm_x4(r, sB_base + w_off(krow, ncol));
#else
        ldsm_x4_trans(r, sB_base + w_off(krow, ncol));
#endif
        b[2 * nj][0] = r[0];
        b[2 * nj][1] = r[1];
        b[2 * nj + 1][0] = r[2];
        b[2 * nj + 1][1] = r[3];
      }
      for (int mi = 0; mi < 2; ++mi)
        for (int ni = 0; ni < 4; ++ni) mma_16816(acc[mi][ni], a[mi], b[ni]);
    }
    __syncthreads();
  }

#if HW_EPILOGUE == 0
  // Accumulator fragment (row g / g + 8, columns 2t, 2t + 1) -> f16 pairs -> stmatrix.x4:
  // matrices 0, 1 = rows 0-7, 8-15 of n8 tile 2nj; matrices 2, 3 = the same rows of tile 2nj + 1.
  for (int mi = 0; mi < 2; ++mi) {
    for (int nj = 0; nj < 2; ++nj) {
      uint32_t r[4];
      for (int h = 0; h < 2; ++h) {
        const float* c = acc[mi][2 * nj + h];
#ifdef BUG_EPILOGUE_COLSWAP
        bool swap = (lane & 3) == 1;
        r[2 * h]     = swap ? pack_half2(c[1], c[0]) : pack_half2(c[0], c[1]);
        r[2 * h + 1] = swap ? pack_half2(c[3], c[2]) : pack_half2(c[2], c[3]);
#else
        r[2 * h]     = pack_half2(c[0], c[1]);
        r[2 * h + 1] = pack_half2(c[2], c[3]);
#endif
      }
      int j = lane >> 3;
      int row = wm + mi * 16 + (j & 1) * 8 + (lane & 7);
      int col = wn + nj * 16 + (j >> 1) * 8;
      asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                   :: "r"(sC_base + w_off(row, col)), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                   : "memory");
    }
  }
  __syncthreads();
  for (int i = tid; i < BM * BN / 8; i += THREADS) {
    int row = i / (BN / 8), col = (i % (BN / 8)) * 8;
    uint32_t v0, v1, v2, v3;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(sC_base + w_off(row, col)));
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};\n"
                 :: "l"(C + size_t(m0 + row) * N + n0 + col), "r"(v0), "r"(v1), "r"(v2), "r"(v3)
                 : "memory");
  }
#else
  // f32 accumulators straight into a padded f32 tile: (row g, cols 2t, 2t+1) and (row g + 8, ...).
  const int g = lane >> 2, t = lane & 3;
  for (int mi = 0; mi < 2; ++mi) {
    for (int ni = 0; ni < 4; ++ni) {
      int row = wm + mi * 16 + g, col = wn + ni * 8 + 2 * t;
      asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n"
                   :: "r"(sC_base + uint32_t(row * CF_PITCH + col) * 4u),
                      "f"(acc[mi][ni][0]), "f"(acc[mi][ni][1]) : "memory");
      asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n"
                   :: "r"(sC_base + uint32_t((row + 8) * CF_PITCH + col) * 4u),
                      "f"(acc[mi][ni][2]), "f"(acc[mi][ni][3]) : "memory");
    }
  }
  __syncthreads();
  for (int i = tid; i < BM * BN / 4; i += THREADS) {
    int row = i / (BN / 4), col = (i % (BN / 4)) * 4;
    float v0, v1, v2, v3;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(v0), "=f"(v1), "=f"(v2), "=f"(v3)
                 : "r"(sC_base + uint32_t(row * CF_PITCH + col) * 4u));
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};\n"
                 :: "l"(C + size_t(m0 + row) * N + n0 + col), "f"(v0), "f"(v1), "f"(v2), "f"(v3)
                 : "memory");
  }
#endif
}

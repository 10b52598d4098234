// Fresh tensor-core GEMMs for the data-flow check (tests/test_kernel_dataflow_fresh.py): written apart
// from the measured corpus (tools/kernel_corpus/hw_mma.cu) so that check_mma meets code it was not
// developed on.  Built by tests/data/kernels_fresh/build.py: one PTX per manifest entry, with the
// entry's -D macros.
//
//   C = A @ B, f16 or bf16 in, f32 accumulate.  A: M x K row-major with leading dimension lda.
//   B: K x N row-major (N-major, FR_BKMAJOR 0) or stored as N x K row-major (K-major, FR_BKMAJOR 1).
//   CTA tile 32 x (16 FR_WN), k-tile 32, 2 x FR_WN warps (FR_WN 2: 128 threads, 4: 256 threads), each
//   warp 16 x 16 (two n8 mma tiles).
//
// Switches:
//   FR_BF16     0 f16, 1 bf16 operands.
//   FR_MMAK     16: mma.m16n8k16; 8: mma.m16n8k8.
//   FR_ALOAD    0: ldmatrix (k16: .x4 with the matrices in (row block, k block) = (j >> 1, j & 1) order,
//               registers permuted for the mma; k8: .x2); 1: ld.shared.u32 per fragment register.
//   FR_BKMAJOR  see above; the shared B tile keeps the global order ([k][n] or [n][k]).
//   FR_BLOAD    0: ldmatrix (N-major: .x2.trans per n8 tile for k16, .x1.trans for k8; K-major: .x4 for
//               k16, .x2 for k8, no .trans); 1: plain shared loads (K-major: ld.shared.u32; N-major: two
//               16-bit loads packed into one register).
//   FR_SWZ      0: padded rows (80 B); 1: 64-byte rows with the 16-byte chunk XORed with (row & 3)
//               (Swizzle<2,3,2> on element offsets).
//   FR_STAGES   1: ld.global + st.shared, one buffer; 2: cp.async.cg double buffer with wait_group 1.
//   FR_EPI      0: st.global.v2.f32 from the accumulators; 1: f32 staging tile in shared memory that
//               aliases the A/B tiles, then ld.shared.v4 + st.global.v4; 2: f16/bf16 pairs, st.global.b32.
//   FR_PACK     (FR_BLOAD 1, N-major) how two 16-bit loads become one register: 0 C++ (nvcc emits
//               mov.b32 {lo, hi}); 1 inline prmt.b32 0x5410; 2 inline shl.b32 16 + or.b32.
//   FR_GUARD    1: M, N, K need not be multiples of the tile: out-of-range 16-byte chunks are zero-filled
//               (cp.async src-size 0, or a zero store), the epilogue stores only inside C.
//   FR_JUNK     1: lanes whose ldmatrix addresses the instruction ignores (x1: 8-31, x2: 16-31) point into
//               the other stage, which the cp.async of the next k-tile is filling (no race: not read).
//   FR_KREV     1: k-tiles in descending order (FR_STAGES 1).
//   FR_ACONV    1: A is f32 in global memory, converted to f16 on the way to shared memory (FR_STAGES 1;
//               the check does not follow conversions of operands: expected "unknown").
//   FR_CINIT    1: C = A @ B + C: the accumulators start from C's old values (FR_EPI 0, f32 C).
//   FR_EPI 3:   f16 C stored column-major (C(m, n) at n * M + m): stmatrix.x2.trans into a [n][m] tile,
//               then 16-byte rows out.
//   Planted bugs: BUG_MISSING_TRANS, BUG_SWZ_WRITE_ONLY (A), BUG_SWAP_ROWS (A ldmatrix lanes 3 and 12),
//   BUG_EPI_COLSWAP (lanes t == 2), BUG_EPI_ROWSWAP (lanes g == 5), BUG_NO_BARSYNC (FR_STAGES 1),
//   BUG_NO_WAIT (FR_STAGES 2), BUG_NO_TRAILING_SYNC (FR_STAGES 2: next fill overwrites a buffer being
//   read), BUG_EPI_NOSYNC (FR_EPI 1), BUG_KTILE_TWICE (k-tile 1 replaced by k-tile 0), BUG_KTILE_SKIP
//   (last k-tile not computed), BUG_AB_SWAP (A read from B's pointer and B from A's), BUG_K_OFF_BY_ONE
//   (FR_BLOAD 1, N-major: the upper half of b0 from k + 2 instead of k + 1), BUG_B_KTILE_AHEAD (B's fill
//   reads k-tile kt + 1 wrapped), BUG_C_SWAP (the mma's C operand lists c1 before c0), BUG_A_REG_ORDER
//   (the permuted ldmatrix.x4's registers passed unpermuted), BUG_PACK_SWAP (FR_PACK 1: prmt 0x1054 swaps the
//   halves), BUG_NO_KGUARD (FR_GUARD: the k bound is not checked), BUG_GUARD_A_ROWS / BUG_GUARD_B_K
//   (FR_GUARD: a bound 16 too tight zero-fills whole A / B fragments that lie inside the matrix), BUG_STMATRIX_NO_TRANS (FR_EPI 3), BUG_CINIT_ROW (FR_CINIT: lanes g == 2 start rows g and g + 8
//   from each other's old C).
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#ifndef FR_BF16
#define FR_BF16 0
#endif
#ifndef FR_MMAK
#define FR_MMAK 16
#endif
#ifndef FR_ALOAD
#define FR_ALOAD 0
#endif
#ifndef FR_BKMAJOR
#define FR_BKMAJOR 0
#endif
#ifndef FR_BLOAD
#define FR_BLOAD 0
#endif
#ifndef FR_SWZ
#define FR_SWZ 0
#endif
#ifndef FR_STAGES
#define FR_STAGES 1
#endif
#ifndef FR_EPI
#define FR_EPI 0
#endif
#ifndef FR_PACK
#define FR_PACK 0
#endif
#ifndef FR_GUARD
#define FR_GUARD 0
#endif
#ifndef FR_JUNK
#define FR_JUNK 0
#endif
#ifndef FR_KREV
#define FR_KREV 0
#endif
#ifndef FR_WN
#define FR_WN 2
#endif
#ifndef FR_CINIT
#define FR_CINIT 0
#endif
#ifndef FR_ACONV
#define FR_ACONV 0
#endif
#ifndef KERNEL_NAME
#define KERNEL_NAME fresh_gemm
#endif

#if FR_BF16
typedef __nv_bfloat16 elem_t;
#define FR_TYPE "bf16"
#else
typedef __half elem_t;
#define FR_TYPE "f16"
#endif

#if FR_EPI == 2 || FR_EPI == 3
typedef elem_t out_t;
#else
typedef float out_t;
#endif
#if FR_ACONV
typedef float a_t;
#else
typedef elem_t a_t;
#endif

constexpr int BM = 32, BN = 16 * FR_WN, BK = 32, THREADS = 64 * FR_WN;
constexpr int PITCH = FR_SWZ ? 32 : 40;          // halves per shared row of A (and of a K-major B)
constexpr int TILE = 32 * PITCH;                  // halves of the A tile
#if FR_BKMAJOR
constexpr int BPITCH = PITCH, TILE_B = BN * PITCH;                        // [n][k]
#else
constexpr int BPITCH = FR_SWZ ? BN : BN + 8, TILE_B = BK * BPITCH;        // [k][n]
#endif
constexpr int STAGE = TILE + TILE_B;
constexpr int CPITCH = BN + 4;                    // f32 staging rows
constexpr int SMEM_HALVES = FR_STAGES * STAGE > 2 * BM * CPITCH ? FR_STAGES * STAGE : 2 * BM * CPITCH;

// Element offset of (row, col) in a tile with rows of `pitch` halves.
__device__ __forceinline__ int p_off(int row, int col, int pitch, bool swizzle)
{
#if FR_SWZ
  int chunk = swizzle ? ((col >> 3) ^ (row & 3)) : (col >> 3);
  return row * pitch + chunk * 8 + (col & 7);
#else
  (void)swizzle;
  return row * pitch + col;
#endif
}
__device__ __forceinline__ int t_off(int row, int col, bool swizzle = true) { return p_off(row, col, PITCH, swizzle); }
__device__ __forceinline__ int b_off(int row, int col) { return p_off(row, col, BPITCH, true); }

__device__ __forceinline__ uint32_t lds32(const elem_t* p)
{
  return *reinterpret_cast<const uint32_t*>(p);
}

__device__ __forceinline__ void mma(float (&d)[4], const uint32_t* a, const uint32_t* b)
{
#if FR_MMAK == 16 && defined(BUG_C_SWAP)
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." FR_TYPE "." FR_TYPE ".f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%1, %0, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif FR_MMAK == 16
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." FR_TYPE "." FR_TYPE ".f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(BUG_C_SWAP)
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32." FR_TYPE "." FR_TYPE ".f32 "
               "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%1, %0, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
#else
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32." FR_TYPE "." FR_TYPE ".f32 "
               "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
#endif
}

extern "C" __global__ void __launch_bounds__(THREADS)
KERNEL_NAME(const a_t* __restrict__ A, const elem_t* __restrict__ B, out_t* __restrict__ C,
            int M, int N, int K, int lda)
{
  __shared__ __align__(128) elem_t smem[SMEM_HALVES];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int wm = (warp / FR_WN) * 16, wn = (warp % FR_WN) * 16;
#ifdef BUG_AB_SWAP
  const elem_t* Ap = B;
  const elem_t* Bp = A;
#else
  const a_t* Ap = A;
  const elem_t* Bp = B;
#endif
  const int KT = (K + BK - 1) / BK;

  float acc[2][4];
  for (int j = 0; j < 2; ++j)
    for (int r = 0; r < 4; ++r) acc[j][r] = 0.f;
#if FR_CINIT
  for (int j = 0; j < 2; ++j) {
    float2 lo = *reinterpret_cast<const float2*>(C + size_t(m0 + wm + g) * N + n0 + wn + j * 8 + 2 * t);
    float2 hi = *reinterpret_cast<const float2*>(C + size_t(m0 + wm + g + 8) * N + n0 + wn + j * 8 + 2 * t);
#ifdef BUG_CINIT_ROW
    if (g == 2) { float2 x = lo; lo = hi; hi = x; }
#endif
    acc[j][0] = lo.x; acc[j][1] = lo.y; acc[j][2] = hi.x; acc[j][3] = hi.y;
  }
#endif

  // one 16-byte chunk of A (threads 0-127) and one of B per thread per k-tile
  const int frow = tid >> 2, fcol = (tid & 3) * 8;
#if FR_BKMAJOR
  const int brow = tid >> 2, bcol = (tid & 3) * 8;
#else
  const int brow = tid / (BN / 8), bcol = (tid % (BN / 8)) * 8;
#endif
  const bool a_thread = tid < 128;
  auto fill = [&](int kt, int stage) {
    elem_t* sA = smem + stage * STAGE;
    elem_t* sB = sA + TILE;
    int bkt = kt;
#ifdef BUG_B_KTILE_AHEAD
    bkt = (kt + 1) % KT;
#endif
    bool a_in = true, b_in = true;
#if FR_GUARD
    a_in = m0 + frow < M;
#if FR_BKMAJOR
    b_in = n0 + brow < N;
#else
    b_in = n0 + bcol < N;
#endif
#ifdef BUG_GUARD_A_ROWS
    a_in = m0 + frow < M - 16;     // zero-fills the last 16 rows of A that exist
#endif
#ifndef BUG_NO_KGUARD
    a_in = a_in && kt * BK + fcol < K;
#if FR_BKMAJOR && defined(BUG_GUARD_B_K)
    b_in = b_in && bkt * BK + bcol < K - 16;   // zero-fills the last 16 k of B that exist
#elif FR_BKMAJOR
    b_in = b_in && bkt * BK + bcol < K;
#else
    b_in = b_in && bkt * BK + brow < K;
#endif
#endif
#endif
    const a_t* ga = Ap + (a_in ? size_t(m0 + frow) * lda + kt * BK + fcol : 0);
#if FR_BKMAJOR
    const elem_t* gb = Bp + (b_in ? size_t(n0 + brow) * K + bkt * BK + bcol : 0);   // [n][k]
#else
    const elem_t* gb = Bp + (b_in ? size_t(bkt * BK + brow) * N + n0 + bcol : 0);   // [k][n]
#endif
#if FR_STAGES == 1
#if FR_ACONV
    {
      float4 lo = *reinterpret_cast<const float4*>(ga), hi = *reinterpret_cast<const float4*>(ga + 4);
      __half2 h0 = __floats2half2_rn(lo.x, lo.y), h1 = __floats2half2_rn(lo.z, lo.w);
      __half2 h2 = __floats2half2_rn(hi.x, hi.y), h3 = __floats2half2_rn(hi.z, hi.w);
      uint4 v;
      v.x = *reinterpret_cast<uint32_t*>(&h0); v.y = *reinterpret_cast<uint32_t*>(&h1);
      v.z = *reinterpret_cast<uint32_t*>(&h2); v.w = *reinterpret_cast<uint32_t*>(&h3);
      if (a_thread) *reinterpret_cast<uint4*>(sA + t_off(frow, fcol)) = v;
    }
#else
    if (a_thread)
      *reinterpret_cast<uint4*>(sA + t_off(frow, fcol)) = a_in ? *reinterpret_cast<const uint4*>(ga) : make_uint4(0, 0, 0, 0);
#endif
    *reinterpret_cast<uint4*>(sB + b_off(brow, bcol)) = b_in ? *reinterpret_cast<const uint4*>(gb) : make_uint4(0, 0, 0, 0);
#else
    uint32_t da = uint32_t(__cvta_generic_to_shared(sA + t_off(frow, fcol)));
    uint32_t db = uint32_t(__cvta_generic_to_shared(sB + b_off(brow, bcol)));
#if FR_GUARD
    if (a_thread)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(da), "l"(ga), "r"(a_in ? 16 : 0) : "memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(db), "l"(gb), "r"(b_in ? 16 : 0) : "memory");
#else
    if (a_thread) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(da), "l"(ga) : "memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(db), "l"(gb) : "memory");
#endif
#endif
  };

  auto compute = [&](int stage) {
    const elem_t* sA = smem + stage * STAGE;
    const elem_t* sB = sA + TILE;
    for (int kk = 0; kk < BK; kk += FR_MMAK) {
      uint32_t a[4], b[2][2];
      // ---- A fragment
#if FR_ALOAD == 0
#if FR_MMAK == 16
      {
        int j = lane >> 3, r = lane & 7;
        int row = wm + (j >> 1) * 8 + r, col = kk + (j & 1) * 8;
#ifdef BUG_SWAP_ROWS
        if (lane == 3) { row = wm + 4; col = kk + 8; }
        if (lane == 12) { row = wm + 3; col = kk; }
#endif
#ifdef BUG_SWZ_WRITE_ONLY
        uint32_t addr = uint32_t(__cvta_generic_to_shared(sA + t_off(row, col, false)));
#else
        uint32_t addr = uint32_t(__cvta_generic_to_shared(sA + t_off(row, col)));
#endif
        uint32_t q0, q1, q2, q3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(q0), "=r"(q1), "=r"(q2), "=r"(q3) : "r"(addr));
#ifdef BUG_A_REG_ORDER
        a[0] = q0; a[1] = q1; a[2] = q2; a[3] = q3;
#else
        a[0] = q0; a[1] = q2; a[2] = q1; a[3] = q3;
#endif   // (rows 0-7, k 0-7), (rows 8-15, k 0-7), ...
      }
#else
      {
        int row = wm + (lane & 15), col = kk;
#if FR_JUNK
        const elem_t* other = smem + ((stage + 1) % FR_STAGES) * STAGE + TILE;
        if (lane >= 16) row = int((other - sA) / PITCH) + (lane & 15);
#endif
#ifdef BUG_SWZ_WRITE_ONLY
        uint32_t addr = uint32_t(__cvta_generic_to_shared(sA + t_off(row, col, false)));
#else
        uint32_t addr = uint32_t(__cvta_generic_to_shared(sA + t_off(row, col)));
#endif
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(a[0]), "=r"(a[1]) : "r"(addr));
      }
#endif
#else
      a[0] = lds32(sA + t_off(wm + g, kk + 2 * t));
      a[1] = lds32(sA + t_off(wm + g + 8, kk + 2 * t));
#if FR_MMAK == 16
      a[2] = lds32(sA + t_off(wm + g, kk + 2 * t + 8));
      a[3] = lds32(sA + t_off(wm + g + 8, kk + 2 * t + 8));
#endif
#endif
      // ---- B fragments (two n8 tiles)
#if FR_BLOAD == 0
#if FR_BKMAJOR
      {
        int j = lane >> 3, r = lane & 7;
#if FR_MMAK == 16
        int nrow = wn + (j >> 1) * 8 + r, kcol = kk + (j & 1) * 8;
        uint32_t addr = uint32_t(__cvta_generic_to_shared(sB + b_off(nrow, kcol)));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(b[0][0]), "=r"(b[0][1]), "=r"(b[1][0]), "=r"(b[1][1]) : "r"(addr));
#else
        int nrow = wn + (j & 1) * 8 + r, kcol = kk;
        uint32_t addr = uint32_t(__cvta_generic_to_shared(sB + b_off(nrow, kcol)));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(b[0][0]), "=r"(b[1][0]) : "r"(addr));
#endif
      }
#else
      for (int nj = 0; nj < 2; ++nj) {
#if FR_MMAK == 16
        int krow = kk + (lane & 15), ncol = wn + nj * 8;
        uint32_t addr = uint32_t(__cvta_generic_to_shared(sB + b_off(krow, ncol)));
#ifdef BUG_MISSING_TRANS
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(b[nj][0]), "=r"(b[nj][1]) : "r"(addr));
#else
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(b[nj][0]), "=r"(b[nj][1]) : "r"(addr));
#endif
#else
        int krow = kk + (lane & 7), ncol = wn + nj * 8;
        uint32_t addr = uint32_t(__cvta_generic_to_shared(sB + b_off(krow, ncol)));
#if FR_JUNK
        if (lane >= 8)
          addr = uint32_t(__cvta_generic_to_shared(smem + ((stage + 1) % FR_STAGES) * STAGE + t_off(lane, 8)));
#endif
#ifdef BUG_MISSING_TRANS
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(b[nj][0]) : "r"(addr));
#else
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(b[nj][0]) : "r"(addr));
#endif
#endif
      }
#endif
#else
      for (int nj = 0; nj < 2; ++nj) {
        int n = wn + nj * 8 + g;
#if FR_BKMAJOR
        b[nj][0] = lds32(sB + b_off(n, kk + 2 * t));
#if FR_MMAK == 16
        b[nj][1] = lds32(sB + b_off(n, kk + 2 * t + 8));
#endif
#else
        for (int h = 0; h < FR_MMAK / 8; ++h) {
          int k = kk + 8 * h + 2 * t;
#ifdef BUG_K_OFF_BY_ONE
          int k1 = (h == 0) ? k + 2 : k + 1;
#else
          int k1 = k + 1;
#endif
#if FR_PACK == 0
          unsigned short lo = *reinterpret_cast<const unsigned short*>(sB + b_off(k, n));
          unsigned short hi = *reinterpret_cast<const unsigned short*>(sB + b_off(k1, n));
          b[nj][h] = uint32_t(lo) | (uint32_t(hi) << 16);
#else
          uint32_t lo, hi, r;
          asm volatile("ld.shared.u16 %0, [%1];\n" : "=r"(lo) : "r"(uint32_t(__cvta_generic_to_shared(sB + b_off(k, n)))));
          asm volatile("ld.shared.u16 %0, [%1];\n" : "=r"(hi) : "r"(uint32_t(__cvta_generic_to_shared(sB + b_off(k1, n)))));
#if FR_PACK == 1 && defined(BUG_PACK_SWAP)
          asm("prmt.b32 %0, %1, %2, 0x1054;\n" : "=r"(r) : "r"(lo), "r"(hi));
#elif FR_PACK == 1
          asm("prmt.b32 %0, %1, %2, 0x5410;\n" : "=r"(r) : "r"(lo), "r"(hi));
#else
          asm("{\n .reg .b32 t;\n shl.b32 t, %2, 16;\n or.b32 %0, %1, t;\n}\n" : "=r"(r) : "r"(lo), "r"(hi));
#endif
          b[nj][h] = r;
#endif
        }
#endif
      }
#endif
      mma(acc[0], a, b[0]);
      mma(acc[1], a, b[1]);
    }
  };

#if FR_STAGES == 1
  for (int kq = 0; kq < KT; ++kq) {
    const int kt = FR_KREV ? KT - 1 - kq : kq;
#ifdef BUG_KTILE_TWICE
    fill(kt == 1 ? 0 : kt, 0);
#else
    fill(kt, 0);
#endif
#ifndef BUG_NO_BARSYNC
    __syncthreads();
#endif
#ifdef BUG_KTILE_SKIP
    if (kt != KT - 1)
#endif
    compute(0);
    __syncthreads();
  }
#else
  fill(0, 0);
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  for (int kt = 0; kt < KT; ++kt) {
    if (kt + 1 < KT) {
#ifdef BUG_KTILE_TWICE
      fill(kt + 1 == 1 ? 0 : kt + 1, (kt + 1) & 1);
#else
      fill(kt + 1, (kt + 1) & 1);
#endif
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#ifndef BUG_NO_WAIT
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
#endif
    __syncthreads();
#ifdef BUG_KTILE_SKIP
    if (kt != KT - 1)
#endif
    compute(kt & 1);
#ifndef BUG_NO_TRAILING_SYNC
    __syncthreads();
#endif
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif

  // ---- epilogue: c0, c1 at (g, 2t), (g, 2t + 1); c2, c3 at (g + 8, ...)
  for (int nj = 0; nj < 2; ++nj) {
    float c0 = acc[nj][0], c1 = acc[nj][1], c2 = acc[nj][2], c3 = acc[nj][3];
#ifdef BUG_EPI_COLSWAP
    if (t == 2) { float x = c0; c0 = c1; c1 = x; }
#endif
    int r0 = wm + g, r1 = wm + g + 8;
#ifdef BUG_EPI_ROWSWAP
    if (g == 5) { r0 = wm + g + 8; r1 = wm + g; }
#endif
    int col = wn + nj * 8 + 2 * t;
#if FR_GUARD && FR_EPI == 0
    if (m0 + r0 < M && n0 + col < N)
      *reinterpret_cast<float2*>(C + size_t(m0 + r0) * N + n0 + col) = make_float2(c0, c1);
    if (m0 + r1 < M && n0 + col < N)
      *reinterpret_cast<float2*>(C + size_t(m0 + r1) * N + n0 + col) = make_float2(c2, c3);
#elif FR_EPI == 3
    {
      // matrices: (rows 0-7, n8 tile nj) and (rows 8-15, ...); stored transposed: sCt[n][m]
      __half2 p0 = __floats2half2_rn(c0, c1), p1 = __floats2half2_rn(c2, c3);
      (void)r0; (void)r1; (void)col;
      int nrow = wn + nj * 8 + (lane & 7), mcol = wm + ((lane >> 3) & 1) * 8;
      uint32_t addr = uint32_t(__cvta_generic_to_shared(smem + nrow * (BM + 8) + mcol));
#ifdef BUG_STMATRIX_NO_TRANS
      asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n"
                   :: "r"(addr), "r"(*reinterpret_cast<uint32_t*>(&p0)), "r"(*reinterpret_cast<uint32_t*>(&p1)) : "memory");
#else
      asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n"
                   :: "r"(addr), "r"(*reinterpret_cast<uint32_t*>(&p0)), "r"(*reinterpret_cast<uint32_t*>(&p1)) : "memory");
#endif
    }
#elif FR_EPI == 0
    *reinterpret_cast<float2*>(C + size_t(m0 + r0) * N + n0 + col) = make_float2(c0, c1);
    *reinterpret_cast<float2*>(C + size_t(m0 + r1) * N + n0 + col) = make_float2(c2, c3);
#elif FR_EPI == 1
    float* sC = reinterpret_cast<float*>(smem);
    *reinterpret_cast<float2*>(sC + r0 * CPITCH + col) = make_float2(c0, c1);
    *reinterpret_cast<float2*>(sC + r1 * CPITCH + col) = make_float2(c2, c3);
#else
#if FR_BF16
    *reinterpret_cast<__nv_bfloat162*>(C + size_t(m0 + r0) * N + n0 + col) = __floats2bfloat162_rn(c0, c1);
    *reinterpret_cast<__nv_bfloat162*>(C + size_t(m0 + r1) * N + n0 + col) = __floats2bfloat162_rn(c2, c3);
#else
    *reinterpret_cast<__half2*>(C + size_t(m0 + r0) * N + n0 + col) = __floats2half2_rn(c0, c1);
    *reinterpret_cast<__half2*>(C + size_t(m0 + r1) * N + n0 + col) = __floats2half2_rn(c2, c3);
#endif
#endif
  }
#if FR_EPI == 3
  __syncthreads();
  {
    int n = tid >> 2, m = (tid & 3) * 8;   // 32 n-rows of 32 halves: one 16-byte chunk per thread
    *reinterpret_cast<uint4*>(C + size_t(n0 + n) * M + m0 + m) =
        *reinterpret_cast<const uint4*>(smem + n * (BM + 8) + m);
  }
#endif
#if FR_EPI == 1
#ifndef BUG_EPI_NOSYNC
  __syncthreads();
#endif
  const float* sC = reinterpret_cast<const float*>(smem);
  for (int i = tid; i < BM * BN / 4; i += THREADS) {
    int row = i / (BN / 4), col = (i % (BN / 4)) * 4;
    *reinterpret_cast<float4*>(C + size_t(m0 + row) * N + n0 + col) =
        *reinterpret_cast<const float4*>(sC + row * CPITCH + col);
  }
#endif
}

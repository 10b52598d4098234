// Hunt GEMMs for the data-flow check (tests/test_kernel_dataflow_fresh_hunt.py, built by build_hunt.py).
// Hunt GEMMs: C = A @ B, CTA 64 x 64, 128 (HW_WN 2) or 256 (HW_WN 4) threads, k-tile 128 bytes of K.
// All addressing in bytes: a k-step is 32 bytes of K (m16n8k16 f16/bf16, m16n8k8 tf32, m16n8k32 s8).
#include <cstdint>
#ifndef HW_DT
#define HW_DT 0            // 0 f16, 1 bf16, 2 tf32, 3 s8
#endif
#ifndef HW_ACOL
#define HW_ACOL 0          // A stored K x M (m contiguous): ldmatrix.x4.trans (16-bit only)
#endif
#ifndef HW_BKMAJOR
#define HW_BKMAJOR 1       // B stored N x K (k contiguous); 0: K x N, ldmatrix.x4.trans (16-bit only)
#endif
#ifndef HW_SWB
#define HW_SWB 3           // Swizzle<B,M,S> on byte offsets of each tile (0 bits: none)
#endif
#ifndef HW_SWM
#define HW_SWM 4
#endif
#ifndef HW_SWS
#define HW_SWS 3
#endif
#ifndef HW_PAD
#define HW_PAD 0           // bytes of padding per 128-byte smem row
#endif
#ifndef HW_STAGES
#define HW_STAGES 3        // 1: ld.global.v4 + st.shared.v4; >= 2 cp.async.cg pipeline
#endif
#ifndef HW_FRAG
#define HW_FRAG 0          // 0 ldmatrix; 1 ld.shared.b32 (K-major tiles only)
#endif
#ifndef HW_EPI
#define HW_EPI 0           // 0 st.global.v2 direct; 1 smem staging + ld.shared.v4 + st.global.v4; 2 cvt f16 + stmatrix.x4 + st.global.v4
#endif
#ifndef HW_WN
#define HW_WN 2
#endif
#ifndef KNAME
#define KNAME hunt_gemm
#endif

#if HW_DT == 0
#define MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
typedef float acc_t; typedef uint16_t el_t;
#elif HW_DT == 1
#define MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
typedef float acc_t; typedef uint16_t el_t;
#elif HW_DT == 2
#define MMA_OP "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
typedef float acc_t; typedef uint32_t el_t;
#else
#define MMA_OP "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
typedef int acc_t; typedef int8_t el_t;
#endif
constexpr int ES = sizeof(el_t);
constexpr int BM = 64, BN = 64, KB = 128, BK = KB / ES, THREADS = 64 * HW_WN;
constexpr int ROWB = 128 + HW_PAD, TILEB = 64 * ROWB, STAGEB = 2 * TILEB;
constexpr int WTM = 32, WTN = 64 / HW_WN, NT = WTN / 8;    // warp tile; n8 tiles per warp
constexpr int CPITCH = 64 + 4;
constexpr int SMEMB = HW_STAGES * STAGEB > BM * CPITCH * 4 ? HW_STAGES * STAGEB : BM * CPITCH * 4;

__device__ __forceinline__ uint32_t swz(uint32_t x)
{
#if HW_SWB
  return x ^ (((x >> (HW_SWM + HW_SWS)) & ((1u << HW_SWB) - 1)) << HW_SWM);
#else
  return x;
#endif
}
// byte offset in a tile of (row, column byte)
__device__ __forceinline__ uint32_t toff(int row, int cb) { return swz(row * ROWB + cb); }
__device__ __forceinline__ uint32_t toff_r(int row, int cb)
{
#ifdef BUG_SWZ_WRITE_ONLY
  return row * ROWB + cb;
#elif defined(BUG_WRONG_XOR)
  uint32_t x = row * ROWB + cb;
  return x ^ (((x >> (HW_SWM + HW_SWS)) & 3u) << HW_SWM);
#elif defined(BUG_PAD_OFF)
  return row * (ROWB - 16) + cb;
#else
  return toff(row, cb);
#endif
}

extern "C" __global__ void __launch_bounds__(THREADS)
KNAME(const el_t* __restrict__ A, const el_t* __restrict__ B, acc_t* __restrict__ C, int M, int N, int K)
{
  __shared__ __align__(1024) unsigned char smem[SMEMB];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int wm = (warp / HW_WN) * WTM, wn = (warp % HW_WN) * WTN;
  const int KT = K / BK;
  const uint32_t sbase = uint32_t(__cvta_generic_to_shared(smem));
  const char* Ab = reinterpret_cast<const char*>(A);
  const char* Bb = reinterpret_cast<const char*>(B);

  acc_t acc[2][NT][4];
  for (int i = 0; i < 2; ++i) for (int j = 0; j < NT; ++j) for (int r = 0; r < 4; ++r) acc[i][j][r] = 0;

  // tile copy: 64 rows x 128 bytes = 512 chunks of 16 bytes per operand
  auto gsrc = [&](int op, int kt, int row, int cb) -> const char* {
    if (op == 0) {
#if HW_ACOL
      return Ab + (size_t(kt * BK + row) * M + m0) * ES + cb;           // A[k][m]
#else
      size_t r = size_t(m0 + row);
#ifdef BUG_GSTRIDE_ROW
      if (row == 37) r += 1;
#endif
      return Ab + (r * K + size_t(kt) * BK) * ES + cb;                  // A[m][k]
#endif
    }
    int bkt = kt;
#ifdef BUG_B_NEXT_KTILE
    bkt = (kt + 1) % KT;
#endif
#if HW_BKMAJOR
    return Bb + (size_t(n0 + row) * K + size_t(bkt) * BK) * ES + cb;    // B[n][k]
#else
    return Bb + (size_t(bkt * BK + row) * N + n0) * ES + cb;            // B[k][n]
#endif
  };
  auto fill = [&](int kt, int stage) {
    for (int c = tid; c < 1024; c += THREADS) {
      int op = c >> 9, row = (c >> 3) & 63, cb = (c & 7) * 16;
      uint32_t dst = sbase + stage * STAGEB + op * TILEB + toff(row, cb);
      const char* src = gsrc(op, kt, row, cb);
#if HW_STAGES == 1
      uint4 v = *reinterpret_cast<const uint4*>(src);
      asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" :: "r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
#else
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src) : "memory");
#endif
    }
  };

  auto compute = [&](int stage) {
#ifdef BUG_ACC_RESET
    for (int i = 0; i < 2; ++i) for (int j = 0; j < NT; ++j) for (int r = 0; r < 4; ++r) acc[i][j][r] = 0;
#endif
    const uint32_t sA = sbase + stage * STAGEB, sB = sA + TILEB;
    for (int ks = 0; ks < KB; ks += 32) {
      uint32_t a[2][4], b[NT][2];
      const int j = lane >> 3, i = lane & 7;
      for (int mt = 0; mt < 2; ++mt) {
        const int r0 = wm + mt * 16;
#if HW_FRAG == 0
#if HW_ACOL
        // smem rows k, columns m: matrix j holds (m block j & 1, k block j >> 1)
        int row = ks / ES + i + 8 * (j >> 1), cb = (r0 + 8 * (j & 1)) * ES;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[mt][0]), "=r"(a[mt][1]), "=r"(a[mt][2]), "=r"(a[mt][3]) : "r"(sA + toff_r(row, cb)));
#else
        int row = r0 + i + 8 * (j & 1), cb = ks + 16 * (j >> 1);
#ifdef BUG_LDSM_LANE
        if (j == 2) cb = ks;
#endif
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[mt][0]), "=r"(a[mt][1]), "=r"(a[mt][2]), "=r"(a[mt][3]) : "r"(sA + toff_r(row, cb)));
#endif
#elif HW_FRAG == 2
        for (int q = 0; q < 2; ++q) {
          uint32_t v0, v1;
          asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(v0), "=r"(v1) : "r"(sA + toff_r(r0 + g + 8 * q, ks + 8 * t)));
          a[mt][q] = v0; a[mt][q + 2] = v1;
        }
#else
        // a0: (g, bytes 4t..4t+3 of k-step), a1: row g + 8, a2: bytes + 16, a3: both
        for (int q = 0; q < 4; ++q) {
          uint32_t v;
          asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(sA + toff_r(r0 + g + 8 * (q & 1), ks + 4 * t + 16 * (q >> 1))));
          a[mt][q] = v;
        }
#endif
      }
      for (int np = 0; np < NT / 2; ++np) {
        const int c0 = wn + np * 16;
#if HW_FRAG == 0
#if HW_BKMAJOR
        int row = c0 + i + 8 * (j >> 1), cb = ks + 16 * (j & 1);
#ifdef BUG_NO_TRANS
#error no trans bug needs an N-major B
#endif
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(b[2 * np][0]), "=r"(b[2 * np][1]), "=r"(b[2 * np + 1][0]), "=r"(b[2 * np + 1][1])
                     : "r"(sB + toff_r(row, cb)));
#else
        // smem rows k, columns n: matrix j holds (k block j & 1, n block j >> 1)
        int row = ks / ES + i + 8 * (j & 1), cb = (c0 + 8 * (j >> 1)) * ES;
#ifdef BUG_NO_TRANS
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
#else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
#endif
                     : "=r"(b[2 * np][0]), "=r"(b[2 * np][1]), "=r"(b[2 * np + 1][0]), "=r"(b[2 * np + 1][1])
                     : "r"(sB + toff_r(row, cb)));
#endif
#elif HW_FRAG == 2
        for (int h = 0; h < 2; ++h) {
          uint32_t v0, v1;
          asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(v0), "=r"(v1) : "r"(sB + toff_r(c0 + 8 * h + g, ks + 8 * t)));
#ifdef BUG_KPERM_B_ONLY
          b[2 * np + h][0] = v0; b[2 * np + h][1] = v1;
          { uint32_t w0, w1; asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(w0), "=r"(w1) : "r"(sB + toff_r(c0 + 8 * h + g, ks + 4 * t)));
            b[2 * np + h][0] = w0; b[2 * np + h][1] = w1 == 0xdeadbeef ? 0 : b[2 * np + h][1]; }
#else
          b[2 * np + h][0] = v0; b[2 * np + h][1] = v1;
#endif
        }
#else
        for (int h = 0; h < 2; ++h)
          for (int q = 0; q < 2; ++q) {
            uint32_t v;
            asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(sB + toff_r(c0 + 8 * h + g, ks + 4 * t + 16 * q)));
            b[2 * np + h][q] = v;
          }
#endif
      }
#ifdef BUG_UNLOADED_REG
      { uint32_t junk; asm volatile("" : "=r"(junk)); b[1][1] = junk; }
#endif
      for (int mt = 0; mt < 2; ++mt)
        for (int nt = 0; nt < NT; ++nt) {
          acc_t* d = acc[mt][nt];
#ifdef BUG_B_NT_SWAP
          const int bn = mt == 1 ? (nt ^ 1) : nt;
#else
          const int bn = nt;
#endif
#if HW_DT == 3
#define CC "r"
#else
#define CC "f"
#endif
#if HW_DT == 2
#ifdef BUG_AB_REG_SWAP
#define BREGS "{%9, %8}"
#else
#define BREGS "{%8, %9}"
#endif
#else
#ifdef BUG_AB_REG_SWAP
#define BREGS "{%9, %8}"
#else
#define BREGS "{%8, %9}"
#endif
#endif
#ifdef BUG_C_PERM
#define CREGS "{%0, %1, %3, %2}"
#else
#define CREGS "{%0, %1, %2, %3}"
#endif
          asm volatile(MMA_OP " {%0, %1, %2, %3}, {%4, %5, %6, %7}, " BREGS ", " CREGS ";\n"
                       : "+" CC(d[0]), "+" CC(d[1]), "+" CC(d[2]), "+" CC(d[3])
                       : "r"(a[mt][0]), "r"(a[mt][1]), "r"(a[mt][2]), "r"(a[mt][3]), "r"(b[bn][0]), "r"(b[bn][1]));
        }
    }
  };

#if HW_STAGES == 1
  for (int kt = 0; kt < KT; ++kt) {
    fill(kt, 0);
#ifndef BUG_NO_SYNC
    __syncthreads();
#endif
    compute(0);
#ifndef BUG_NO_TRAIL
    __syncthreads();
#endif
  }
#else
  for (int s = 0; s < HW_STAGES - 1; ++s) {
    if (s < KT) fill(s, s);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  for (int kt = 0; kt < KT; ++kt) {
#ifdef BUG_PREFETCH_EARLY
    { int nk = kt + HW_STAGES - 1; if (nk < KT) fill(nk, nk % HW_STAGES); asm volatile("cp.async.commit_group;\n" ::: "memory"); }
#endif
#ifdef BUG_NO_WAIT
    asm volatile("cp.async.wait_group %0;\n" :: "n"(HW_STAGES - 1) : "memory");
#else
    asm volatile("cp.async.wait_group %0;\n" :: "n"(HW_STAGES - 2) : "memory");
#endif
#ifndef BUG_NO_SYNC
    __syncthreads();
#endif
#ifndef BUG_PREFETCH_EARLY
    int nk = kt + HW_STAGES - 1;
    if (nk < KT) fill(nk, nk % HW_STAGES);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
#ifdef BUG_NEXT_STAGE
    compute((kt + 1) % HW_STAGES);
#else
    compute(kt % HW_STAGES);
#endif
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif

#if HW_EPI == 0
#ifdef BUG_EPI_PRESYNC
  __syncthreads();
#endif
  for (int mt = 0; mt < 2; ++mt)
    for (int nt = 0; nt < NT; ++nt) {
      int r = m0 + wm + mt * 16 + g, c = n0 + wn + nt * 8 + 2 * t;
      acc_t* d = acc[mt][nt];
#ifdef BUG_EPI_ROW
      if (g == 6) r += 1;
#endif
      *reinterpret_cast<float2*>(C + size_t(r) * N + c) = *reinterpret_cast<float2*>(&d[0]);
      *reinterpret_cast<float2*>(C + size_t(r + 8) * N + c) = *reinterpret_cast<float2*>(&d[2]);
    }
#elif HW_EPI == 1
#ifndef BUG_EPI_PRESYNC
  __syncthreads();
#endif
  acc_t* st = reinterpret_cast<acc_t*>(smem);
  for (int mt = 0; mt < 2; ++mt)
    for (int nt = 0; nt < NT; ++nt) {
      int r = wm + mt * 16 + g, c = wn + nt * 8 + 2 * t;
      acc_t* d = acc[mt][nt];
      st[r * CPITCH + c] = d[0]; st[r * CPITCH + c + 1] = d[1];
      st[(r + 8) * CPITCH + c] = d[2]; st[(r + 8) * CPITCH + c + 1] = d[3];
    }
#ifndef BUG_EPI_NOSYNC
  __syncthreads();
#endif
  for (int q = tid; q < BM * BN / 4; q += THREADS) {
    int r = q / (BN / 4), c = (q % (BN / 4)) * 4;
    uint32_t v0, v1, v2, v3;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                 : "r"(sbase + uint32_t((r * CPITCH + c) * 4)));
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" :: "l"(C + size_t(m0 + r) * N + n0 + c),
                 "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
  }
#else
  // f16 C (el_t is 16-bit): cvt pairs, stmatrix.x4 of a 16 x 16 block (two n8 tiles) into a [64][64+8] tile
  __syncthreads();
  constexpr int HP = 64 + 8;
  for (int mt = 0; mt < 2; ++mt)
    for (int np = 0; np < NT / 2; ++np) {
      uint32_t p[4];
      for (int h = 0; h < 2; ++h) {
        float* d = acc[mt][2 * np + h];
        uint32_t lo, hi;
#ifdef BUG_CVT_SWAP
        asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(lo) : "f"(d[0]), "f"(d[1]));
#else
        asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(lo) : "f"(d[1]), "f"(d[0]));
#endif
        asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(hi) : "f"(d[3]), "f"(d[2]));
        p[2 * h] = lo; p[2 * h + 1] = hi;
      }
      // matrix q: rows (q & 1) * 8, columns (q >> 1) * 8 of the 16 x 16 block
      const int q = lane >> 3, rr = lane & 7;
      int row = wm + mt * 16 + 8 * (q & 1) + rr, col = wn + np * 16 + 8 * (q >> 1);
#ifdef BUG_STSM_LANE
      if (q == 1) row -= 8;
#endif
      asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                   :: "r"(sbase + uint32_t((row * HP + col) * 2)), "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]) : "memory");
    }
  __syncthreads();
  for (int q = tid; q < BM * BN / 8; q += THREADS) {
    int r = q / (BN / 8), c = (q % (BN / 8)) * 8;
    uint32_t v0, v1, v2, v3;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                 : "r"(sbase + uint32_t((r * HP + c) * 2)));
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" :: "l"(reinterpret_cast<uint16_t*>(C) + size_t(m0 + r) * N + n0 + c),
                 "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
  }
#endif
}

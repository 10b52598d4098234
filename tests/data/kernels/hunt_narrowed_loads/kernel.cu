// Kernel corpus entry hunt_narrowed_loads: tools/kernel_corpus/hunt.cu with the macros below
// (written by tools/build_kernels.py; edit the source there, not this copy).
#define HUNT_KIND 14
#define KERNEL_NAME hunt_narrowed_loads
// Fresh kernels of kinds users write (the fresh-kernel hunt): each HUNT_KIND selects one kernel.
//   0 transpose_f64_padded   32x32 tile of doubles, row pitch 33 (64-bit st/ld.shared)
//   1 transpose_f64_xor      32x32 tile of doubles, column index XOR row (no padding)
//   2 transpose_u8_pad4      32x32 tile of bytes, row pitch 36 (8-bit stores: 4 lanes per word)
//   3 scan_block_tail        inclusive Hillis-Steele scan, non-power-of-two block (partial last warp),
//                            double-buffered smem, tail of the input masked by n
//   4 stencil5_halo          5-point 2D stencil, 16x16 block, 18x18 smem tile with divergent halo loads
//   5 softmax_shfl_smem      row softmax: warp shuffles + cross-warp smem reduction, any block size
//   6 block3d_permute        3D block (X,Y,Z): s[z][y][x] written, read as s[x % Z][y][...] (3D thread ids)
//   7 vec_lds_mix            ld.shared.v2.f32, v4.f32 and v4.b16 (short4) reads of one staged tile
//   8 loop_param_trips       trip count read from a parameter: per-thread strided accumulation in smem
//   9 store_subword          16-bit and 8-bit shared stores where lanes share a word, and a broadcast store
//  10 cpasync_zfill_ca       cp.async.ca 4- and 8-byte copies with src-size zero fill past n
//  12 partial_wide           partial warps (n of 100 threads, and every third lane) of 16- and 8-byte accesses
//  13 atomics_smem           shared atomics at known addresses: increments of 1 (red.add.u32 1, ATOMS.POPC.INC),
//                            add with its result used, max, cas, 64-bit exch, and a partial warp's xor
//  11 mma_k8_ldsm_x2_stsm    one warp per 16x8 tile: ldmatrix.x2 (A), ldmatrix.x1.trans (B),
//                            mma.m16n8k8 f16 -> f32, stmatrix.x1 f16 epilogue through smem
//  14 narrowed_loads         inline-asm shared loads whose results are partly unread: ptxas narrows them to
//                            the words read (two LDS for v4 elements 0 and 2), removes a dead ld and ldmatrix
#ifndef HUNT_KIND
#define HUNT_KIND 0
#endif
#include <cuda_fp16.h>

#if HUNT_KIND == 0 || HUNT_KIND == 1
// out (w x h) = in (h x w)^T, doubles; block 32x8, each thread 4 rows.
extern "C" __global__ void KERNEL_NAME(double* __restrict__ out, const double* __restrict__ in, int w, int h)
{
#if HUNT_KIND == 0
  __shared__ double tile[32][33];
#define T(r, c) tile[r][c]
#else
  __shared__ double tile[32][32];
#define T(r, c) tile[r][(c) ^ (r)]
#endif
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < w && y + j < h) T(threadIdx.y + j, threadIdx.x) = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < h && y + j < w) out[(y + j) * h + x] = T(threadIdx.x, threadIdx.y + j);
}
#endif

#if HUNT_KIND == 2
extern "C" __global__ void KERNEL_NAME(unsigned char* __restrict__ out, const unsigned char* __restrict__ in,
                                       int w, int h)
{
  __shared__ unsigned char tile[32][36];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}
#endif

#if HUNT_KIND == 3
// out[i] = sum of in[b*B .. i] within the CTA's chunk of blockDim.x elements; zeros past n.
extern "C" __global__ void KERNEL_NAME(int* __restrict__ out, const int* __restrict__ in, int n)
{
  extern __shared__ int buf[];  // 2 * blockDim.x
  int t = threadIdx.x, B = blockDim.x, i = blockIdx.x * B + t;
  int pout = 0, pin = 1;
  buf[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < B; off *= 2) {
    pout = 1 - pout; pin = 1 - pout;
    if (t >= off) buf[pout * B + t] = buf[pin * B + t] + buf[pin * B + t - off];
    else buf[pout * B + t] = buf[pin * B + t];
    __syncthreads();
  }
  if (i < n) out[i] = buf[pout * B + t];
}
#endif

#if HUNT_KIND == 4
// out = 5-point stencil of in (h x w), borders clamp; block 16x16.
extern "C" __global__ void KERNEL_NAME(float* __restrict__ out, const float* __restrict__ in, int w, int h)
{
  __shared__ float s[18][18];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty;
  int cx = min(x, w - 1), cy = min(y, h - 1);
  s[ty + 1][tx + 1] = in[cy * w + cx];
  if (tx == 0) s[ty + 1][0] = in[cy * w + max(cx - 1, 0)];
  if (tx == 15) s[ty + 1][17] = in[cy * w + min(cx + 1, w - 1)];
  if (ty == 0) s[0][tx + 1] = in[max(cy - 1, 0) * w + cx];
  if (ty == 15) s[17][tx + 1] = in[min(cy + 1, h - 1) * w + cx];
  __syncthreads();
  if (x < w && y < h)
    out[y * w + x] = 0.5f * s[ty + 1][tx + 1] + 0.125f * (s[ty][tx + 1] + s[ty + 2][tx + 1] + s[ty + 1][tx] + s[ty + 1][tx + 2]);
}
#endif

#if HUNT_KIND == 5
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
// One CTA per row of n floats (n <= 4 * blockDim.x); blockDim.x a multiple of 32.
extern "C" __global__ void KERNEL_NAME(float* __restrict__ out, const float* __restrict__ in, int n)
{
  __shared__ float red[32];
  const float* row = in + (size_t)blockIdx.x * n;
  int t = threadIdx.x, lane = t & 31, warp = t >> 5, nw = blockDim.x >> 5;
  float v[4];
  float m = -INFINITY;
  for (int k = 0; k < 4; ++k) { int c = t + k * blockDim.x; v[k] = c < n ? row[c] : -INFINITY; m = fmaxf(m, v[k]); }
  m = warp_max(m);
  if (lane == 0) red[warp] = m;
  __syncthreads();
  m = lane < nw ? red[lane] : -INFINITY;
  m = warp_max(m);
  __syncthreads();
  float s = 0.f;
  for (int k = 0; k < 4; ++k) { v[k] = __expf(v[k] - m); s += v[k]; }
  s = warp_sum(s);
  if (lane == 0) red[warp] = s;
  __syncthreads();
  s = lane < nw ? red[lane] : 0.f;
  s = warp_sum(s);
  for (int k = 0; k < 4; ++k) { int c = t + k * blockDim.x; if (c < n) out[(size_t)blockIdx.x * n + c] = v[k] / s; }
}
#endif

#if HUNT_KIND == 6
// block (8, 4, 3): out[b, z, y, x] = in[b, x % 3, y, (z * 8 + x) % 8 ... ] -- a permutation through smem.
extern "C" __global__ void KERNEL_NAME(float* __restrict__ out, const float* __restrict__ in)
{
  __shared__ float s[3][4][9];
  int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  int t = (z * 4 + y) * 8 + x, base = blockIdx.x * 96;
  s[z][y][x] = in[base + t];
  __syncthreads();
  out[base + t] = s[x % 3][y][(x + z) & 7];
}
#endif

#if HUNT_KIND == 7
// 64 threads; stage 512 floats, then read them back in three vector forms.
extern "C" __global__ void KERNEL_NAME(float* __restrict__ out, const float* __restrict__ in)
{
  __shared__ __align__(16) float s[512];
  int t = threadIdx.x;
#pragma unroll
  for (int j = 0; j < 8; ++j) s[t + 64 * j] = in[blockIdx.x * 512 + t + 64 * j];  // straight-line: PTX = SASS
  __syncthreads();
  float2 a = reinterpret_cast<const float2*>(s)[t * 3 % 256];
  float4 b = reinterpret_cast<const float4*>(s)[(t * 5) & 127];
  short4 c = reinterpret_cast<const short4*>(s)[t ^ 17];
  out[blockIdx.x * 64 + t] = a.x + a.y + b.x + b.y + b.z + b.w + (float)c.x + (float)c.y + (float)c.z + (float)c.w;
}
#endif

#if HUNT_KIND == 8
// Each CTA accumulates, for trips passes, in[...] into s[t * stride_words % 1024]; trips and stride from params.
extern "C" __global__ void KERNEL_NAME(float* __restrict__ out, const float* __restrict__ in, int trips, int stride_words)
{
  __shared__ float s[1024];
  int t = threadIdx.x;
  for (int k = t; k < 1024; k += blockDim.x) s[k] = 0.f;
  __syncthreads();
  int idx = (t * stride_words) & 1023;
  for (int r = 0; r < trips; ++r) {
    s[idx] += in[(blockIdx.x * trips + r) * blockDim.x + t];
    idx = (idx + 1) & 1023;
  }
  __syncthreads();
  for (int k = t; k < 1024; k += blockDim.x) out[blockIdx.x * 1024 + k] = s[k];
}
#endif

#if HUNT_KIND == 9
// 16-bit stores with two lanes per word, 8-bit stores with four lanes per word, a broadcast store.
extern "C" __global__ void KERNEL_NAME(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
  __shared__ unsigned short h[256];
  __shared__ unsigned char c[256];
  __shared__ unsigned bcast[8];
  int t = threadIdx.x;  // 128 threads
  unsigned v = in[blockIdx.x * 128 + t];
  h[t] = (unsigned short)v;
  h[128 + (t ^ 1)] = (unsigned short)(v >> 16);
  c[t] = (unsigned char)v;
  c[128 + ((t * 4) & 127) + (t >> 5)] = (unsigned char)(v >> 8);
  if ((t & 31) < 8) bcast[t >> 5] = (t >> 5) * 7u + blockIdx.x;  // 8 lanes of each warp store one value to one word
  __syncthreads();
  unsigned r = h[t] | ((unsigned)h[255 - t] << 16);
  r ^= ((unsigned)c[t] << 8) ^ c[255 - t] ^ bcast[(t >> 5)];
  out[blockIdx.x * 128 + t] = r;
}
#endif

#if HUNT_KIND == 10
// n floats; each CTA copies a 256-float window with cp.async.ca 4-byte (float) and 8-byte (float2) copies,
// zero-filling past n through src-size; then out[i] = s4[t] + s8[t].
extern "C" __global__ void KERNEL_NAME(float* __restrict__ out, const float* __restrict__ in, int n)
{
  __shared__ __align__(16) float s4[256];
  __shared__ __align__(16) float s8[512];
  int t = threadIdx.x, base = blockIdx.x * 256;  // 256 threads
  {
    int i = base + t;
    unsigned src = i < n ? 4u : 0u;
    const float* g = in + (i < n ? i : 0);
    unsigned dst = (unsigned)__cvta_generic_to_shared(&s4[t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(dst), "l"(g), "r"(src));
  }
  {
    int i = 2 * base + 2 * t;
    unsigned src = i + 2 <= n ? 8u : (i < n ? 4u : 0u);
    const float* g = in + (i < n ? i : 0);
    unsigned dst = (unsigned)__cvta_generic_to_shared(&s8[2 * t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" :: "r"(dst), "l"(g), "r"(src));
  }
  asm volatile("cp.async.commit_group;\n");
  asm volatile("cp.async.wait_group 0;\n");
  __syncthreads();
  out[base + t] = s4[t] + s8[2 * t] + s8[2 * t + 1] + s8[(2 * t + 64) & 511];
}
#endif

#if HUNT_KIND == 11
// C (M x N f16, row-major) = A (M x K f16 row-major) B (K x N f16 row-major), K = 8 per step, one warp per
// 16x8 C tile; A staged as 16 rows of 8 halves padded to 24 halves, B as 8 rows (k) of 8 halves.
extern "C" __global__ void KERNEL_NAME(__half* __restrict__ C, const __half* __restrict__ A, const __half* __restrict__ B,
                                       int M, int N, int K)
{
  __shared__ __align__(16) __half sA[4][16][24];
  __shared__ __align__(16) __half sB[4][8][8];
  __shared__ __align__(16) __half sC[4][16][8];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;  // 4 warps: tiles along N
  int m0 = blockIdx.y * 16, n0 = (blockIdx.x * 4 + warp) * 8;
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  _Pragma("unroll 1") for (int k0 = 0; k0 < K; k0 += 8) {  // one SASS copy per PTX instruction
    for (int e = lane; e < 128; e += 32) sA[warp][e / 8][e % 8] = A[(m0 + e / 8) * K + k0 + e % 8];
    for (int e = lane; e < 64; e += 32) sB[warp][e / 8][e % 8] = B[(k0 + e / 8) * N + n0 + e % 8];
    __syncwarp();
    unsigned a0, a1, b0;
    unsigned pa = (unsigned)__cvta_generic_to_shared(&sA[warp][lane & 15][0]);
    unsigned pb = (unsigned)__cvta_generic_to_shared(&sB[warp][lane & 7][0]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(a0), "=r"(a1) : "r"(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(b0) : "r"(pb));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(b0));
    __syncwarp();
  }
  __half2 lo = __floats2half2_rn(d0, d1), hi = __floats2half2_rn(d2, d3);
  unsigned r0 = *reinterpret_cast<unsigned*>(&lo), r1 = *reinterpret_cast<unsigned*>(&hi);
  unsigned pc = (unsigned)__cvta_generic_to_shared(&sC[warp][lane & 15][0]);
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" :: "r"(pc), "r"(r0), "r"(r1));
  __syncwarp();
#pragma unroll
  for (int j = 0; j < 4; ++j) { int e = lane + 32 * j; C[(m0 + e / 8) * N + n0 + e % 8] = sC[warp][e / 8][e % 8]; }
}
#endif

#if HUNT_KIND == 12
// 100 threads, n of them active: float4 and double stores and loads in partial warps.
extern "C" __global__ void KERNEL_NAME(float4* __restrict__ out, const float4* __restrict__ in, int n)
{
  __shared__ float4 s4[128];
  __shared__ double s8[128];
  __shared__ float4 s4b[128];
  int t = threadIdx.x;
  if (t < n) { s4[t] = in[t]; s8[(t * 5) & 127] = (double)in[t].y; }
  if (t < n && t % 3 == 0) s4b[t] = in[t];  // every third lane: interleaved absent lanes in each phase
  __syncthreads();
  if (t < n) {
    float4 v = s4[(t * 2) & 63];
    v.x += (float)s8[(t * 5) & 127];
    v.y += s4b[(t / 3) * 3].y;  // three lanes per address
    out[t] = v;
  }
}
#endif

#if HUNT_KIND == 13
// s[0..6]: counts of t % 7 (atomicAdd of 1, result unused); s[8..39]: sums of in & 255 at (3t) % 32 (result
// used); s[40..47]: max of in at t/4 % 8; s[48], s[56]: cas targets (the winner is timing: not checked);
// d[0..3]: 64-bit exch (the winner is timing); s[64..68]: xor of in at t % 5 over lanes 0-19 of each warp.
extern "C" __global__ void KERNEL_NAME(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
  __shared__ unsigned s[72];
  __shared__ unsigned long long d[4];
  int t = threadIdx.x;
  if (t < 72) s[t] = 0;
  if (t < 4) d[t] = 0;
  __syncthreads();
  unsigned v = in[blockIdx.x * blockDim.x + t];
  atomicAdd(&s[t % 7], 1u);
  unsigned r = atomicAdd(&s[8 + (t * 3) % 32], v & 255u);
  atomicMax(&s[40 + (t / 4) % 8], v);
  unsigned c = atomicCAS(&s[48 + (t % 2) * 8], 0u, (unsigned)t + 1u);
  unsigned long long e = atomicExch(&d[t % 4], (unsigned long long)v);
  if (t % 32 < 20) atomicXor(&s[64 + t % 5], v);
  __syncthreads();
  if (t < 72) out[blockIdx.x * 72 + t] = (t == 48 || t == 56) ? 0u : s[t];
  out[2 * 72 + blockIdx.x * blockDim.x + t] = r ^ c ^ (unsigned)e;  // the results used (timing: not checked)
}
#endif

#if HUNT_KIND == 14
// ptxas narrows a non-volatile shared load to the words its readers use and removes one nothing reads
// (layoutalg.kernel.interp.narrowing): inline-asm loads with unused outputs, and a volatile control.
extern "C" __global__ void KERNEL_NAME(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
  __shared__ __align__(16) unsigned s[2048];
  int t = threadIdx.x;
  for (int k = t; k < 2048; k += blockDim.x) s[k] = in[blockIdx.x * 2048 + k];
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(s);
  unsigned a0, a1, a2, a3, b0, b1, b2, b3, d0, d1, d2, d3, e0, e1, e2, e3, f;
  unsigned long long g0, g1;
  unsigned short h0, h1, h2, h3;
  // elements 0 and 2 of a v4 at 16 t: two LDS (4-way conflicts each), not one LDS.128
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(base + 16 * t));
  // element 3 of a v4 at 16 ((5 t) & 127) + 2048: one LDS at +12
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3)
               : "r"(base + 2048 + 16 * ((t * 5) & 127)));
  // the low word of element 1 of a v2.u64 at 16 (t & 63) + 4096: one LDS at +8
  asm volatile("ld.shared.v2.u64 {%0,%1}, [%2];" : "=l"(g0), "=l"(g1) : "r"(base + 4096 + 16 * (t & 63)));
  // elements 1 and 2 of a v4.u16 at 8 (t ^ 5): one LDS.64
  asm volatile("ld.shared.v4.u16 {%0,%1,%2,%3}, [%4];" : "=h"(h0), "=h"(h1), "=h"(h2), "=h"(h3)
               : "r"(base + 8 * (t ^ 5)));
  // nothing reads f, nor the ldmatrix: both removed
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(f) : "r"(base + 4 * t));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(e0), "=r"(e1), "=r"(e2), "=r"(e3)
               : "r"(base + 16 * (t & 31)));
  // volatile: element 0 read, the whole LDS.128 stays
  asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
               : "r"(base + 16 * ((t * 3) & 127)));
  out[blockIdx.x * blockDim.x + t] = a0 + a2 + b3 + (unsigned)g1 + h1 + h2 + d0;
}
#endif

// Small kernels exercising the tracer: reductions, divergence, loops, predication, 64-bit address
// math, vector and generic accesses, warp shuffles, a data-dependent address, matrix loads/stores
// and cp.async.  Compiled with: nvcc -ptx -lineinfo -arch=sm_90 features.cu -o features.ptx
#include <cuda_fp16.h>
#include <cstdint>

extern "C" __global__ void reduce_interleaved(const float* in, float* out) {
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned i = 2 * stride * t;
        if (i < blockDim.x) s[i] += s[i + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_sequential(const float* in, float* out) {
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// Divergent branches: even and odd lanes take different arms, each touching shared memory.
extern "C" __global__ void divergent(int* out, int k) {
    __shared__ int s[1024];
    int t = threadIdx.x;
    if (t & 1) {
        s[t * k] = t;
    } else {
        s[(t * 3) & 1023] = -t;
        if (t < 16) s[t + 512] = 1;
    }
    __syncthreads();
    out[t] = s[t];
}

// A loop with a trip count from a kernel argument and a stride from the loop variable.
extern "C" __global__ void loop_stride(float* out, int n, int step) {
    __shared__ float s[2048];
    float acc = 0.f;
    for (int i = threadIdx.x; i < n; i += step) {
        s[(i * 4) % 2048] = (float)i;
        acc += s[(i * 8 + 1) % 2048];
    }
    out[threadIdx.x] = acc;
}

// 64-bit address arithmetic into a global buffer and values kept through shared memory.
extern "C" __global__ void wide_math(const double* in, double* out, long long ld, int beta_bits) {
    __shared__ double s[128];
    __shared__ int idx[128];
    int t = threadIdx.x;
    idx[t] = (t * 37) % 128;           // a known value written to shared memory ...
    __syncthreads();
    int j = idx[(t + 1) % 128];        // ... read back: the address below stays known
    s[j] = in[(long long)blockIdx.x * ld + t];
    __syncthreads();
    __half beta = __ushort_as_half((unsigned short)beta_bits);
    double v = s[t];
    if (__half2float(beta) != 0.0f) v += 1.0;
    out[(long long)blockIdx.x * ld + t] = v;
}

// An address that depends on loaded data: must be reported as data-dependent.
extern "C" __global__ void gather(const int* index, float* out) {
    __shared__ float s[1024];
    int t = threadIdx.x;
    s[t] = (float)t;
    __syncthreads();
    out[t] = s[index[t] & 1023];
}

// Vector (v4, v2) and narrow (u8, u16) accesses, and a warp shuffle feeding an address.
extern "C" __global__ void vectors(float4* out, int pad) {
    __shared__ float4 s4[256];
    __shared__ unsigned char s1[1024];
    __shared__ unsigned short s2[512];
    int t = threadIdx.x;
    s4[t] = make_float4(t, t, t, t);
    s1[t * 4 + pad] = (unsigned char)t;
    s2[t] = (unsigned short)t;
    __syncthreads();
    int other = __shfl_xor_sync(0xffffffffu, t, 1);
    float4 v = s4[(other * 2) % 256];
    float2 w = reinterpret_cast<float2*>(s4)[t ^ 3];
    v.x += s1[t] + s2[(t * 2) % 512] + w.y;
    out[t] = v;
}

// Generic (not .shared) accesses that hit shared memory through a pointer.
__device__ __noinline__ float generic_read(const float* p, int i) { return p[i]; }
extern "C" __global__ void generic_ptr(float* out, int sel) {
    __shared__ float s[512];
    int t = threadIdx.x;
    s[t] = t;
    s[t + 256] = -t;
    __syncthreads();
    const float* p = sel ? s : s + 256;
    volatile float* q = p == s ? s : s + 1;
    out[t] = q[t * 2];
}

// ldmatrix / stmatrix through inline PTX on a padded and on an XOR-swizzled tile of halves.
extern "C" __global__ void matrix_ops(uint32_t* out, int pitch_halves, int swizzle) {
    __shared__ __align__(128) __half tile[64 * 72];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int i = threadIdx.x; i < 64 * 72; i += blockDim.x) tile[i] = __float2half((float)i);
    __syncthreads();
    int row = (lane % 16) + 16 * (warp % 4);
    int col = 8 * (lane / 16);
    int chunk = col / 8;
    if (swizzle) chunk ^= (row % 8);
    uint32_t addr = (uint32_t)__cvta_generic_to_shared(&tile[row * pitch_halves + chunk * 8]);
    uint32_t r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
    uint32_t t0, t1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(t0), "=r"(t1) : "r"(addr));
    __syncthreads();
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
    __syncthreads();
    out[threadIdx.x] = __half_as_ushort(tile[threadIdx.x * 2]) + t0 + t1;
}

// cp.async.cg (16 B) and cp.async.ca (4 B) fills, with a zero-filling src-size.
extern "C" __global__ void async_fill(const float4* g, const float* h, int ld, int valid) {
    __shared__ __align__(128) float4 s[8 * 32];
    __shared__ float f[1024];
    int t = threadIdx.x;
    int row = t / 8, c = t % 8;
    uint32_t dst = (uint32_t)__cvta_generic_to_shared(&s[row * 9 % 32 * 8 + c]);
    const float4* src = g + row * ld + c;
    int bytes = c < valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(dst), "l"(src), "r"(bytes));
    uint32_t dst2 = (uint32_t)__cvta_generic_to_shared(&f[t * 2]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(dst2), "l"(h + t));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
}

// Kernel corpus entry gather_smem: tools/kernel_corpus/data_dependent.cu with the macros below
// (written by tools/build_kernels.py; edit the source there, not this copy).
#define DD_KIND 1
// Kernels whose shared-memory addresses come from data loaded from global memory:
//   DD_KIND 0 (histogram_smem): a 256-bin histogram privatised in shared memory with shared atomics
//             (bin = data[i] & 255), then merged into `hist` with global atomics;
//             hist += bincount(data & 255)  (hist starts at zero).
//   DD_KIND 1 (gather_smem): a 1024-entry table staged in shared memory, then gathered through
//             indices loaded from global memory; out[i] = table[idx[i] & 1023].
#ifndef DD_KIND
#define DD_KIND 0
#endif

#if DD_KIND == 0
extern "C" __global__ void histogram_smem(const unsigned* __restrict__ data, unsigned* __restrict__ hist, int n)
{
  __shared__ unsigned bins[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) bins[i] = 0u;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i] & 255u], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], bins[i]);
}
#else
extern "C" __global__ void gather_smem(const float* __restrict__ table, const unsigned* __restrict__ idx,
                                       float* __restrict__ out, int n)
{
  __shared__ float t[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) t[i] = table[i];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[idx[i] & 1023u];
}
#endif

// Shared-memory tree reduction, in the two classic forms of "Optimizing Parallel Reduction in CUDA":
//   REDUCE_SEQUENTIAL 0: interleaved addressing with a strided index (index = 2 * s * tid), whose
//                        shared accesses become 2-, 4-, ... -way bank conflicts as s grows;
//   REDUCE_SEQUENTIAL 1: sequential addressing (tid < s adds sdata[tid + s]), conflict-free.
// out[b] = sum of in[b * blockDim.x .. (b + 1) * blockDim.x), with zeros past n.
// The buffer is dynamic shared memory of blockDim.x floats.
#ifndef REDUCE_SEQUENTIAL
#define REDUCE_SEQUENTIAL 0
#endif
#ifndef KERNEL_NAME
#define KERNEL_NAME reduce_sum
#endif

extern "C" __global__ void KERNEL_NAME(const float* __restrict__ in, float* __restrict__ out, unsigned n)
{
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.f;
  __syncthreads();
#if REDUCE_SEQUENTIAL
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
#else
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
#endif
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

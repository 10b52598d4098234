// The classic 32 x 32 tiled transpose (as in "An Efficient Matrix Transpose in CUDA C/C++"):
// a 32 x 8 thread block moves a 32 x 32 tile through shared memory, reading rows of `in` and
// writing rows of `out`, so that both global accesses are coalesced.  Without padding the
// column-wise shared reads hit one bank 32 times; TILE_PAD 1 pads each row by one float.
//   out[x][y] = in[y][x],  in: height x width row-major, out: width x height row-major.
#ifndef TILE_PAD
#define TILE_PAD 0
#endif
#ifndef KERNEL_NAME
#define KERNEL_NAME transpose_tile
#endif

constexpr int TILE = 32, BLOCK_ROWS = 8;

extern "C" __global__ void KERNEL_NAME(float* __restrict__ out, const float* __restrict__ in,
                                       int width, int height)
{
  __shared__ float tile[TILE][TILE + TILE_PAD];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

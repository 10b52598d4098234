// The 32 x 32 tiled matrix transpose: a 32 x 8 thread block moves one tile of `in` through shared
// memory so that both global accesses are coalesced (row reads of `in`, row writes of `out`).
//   out[x][y] = in[y][x];  in: height x width, out: width x height, both row-major floats.
//
// Shared memory is read down a column of the tile.  As written, the 32 lanes of a warp then read
// one bank 32 times.  Two fixes, chosen at compile time:
//   -DTILE_PAD=1      one float of padding per tile row (row r starts at bank r);
//   -DTILE_SWIZZLE=1  column c of row r stored at column c ^ r (CuTe's Swizzle<5,0,5> on the
//                     element index): no extra memory.
#ifndef TILE_PAD
#define TILE_PAD 0
#endif
#ifndef TILE_SWIZZLE
#define TILE_SWIZZLE 0
#endif

constexpr int TILE = 32, BLOCK_ROWS = 8;

__device__ __forceinline__ int col(int row, int c) { return TILE_SWIZZLE ? (c ^ row) : c; }

extern "C" __global__ void transpose_tile(float* __restrict__ out, const float* __restrict__ in,
                                          int width, int height)
{
  __shared__ float tile[TILE][TILE + TILE_PAD];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    tile[threadIdx.y + j][col(threadIdx.y + j, threadIdx.x)] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    out[(y + j) * height + x] = tile[threadIdx.x][col(threadIdx.x, threadIdx.y + j)];
}

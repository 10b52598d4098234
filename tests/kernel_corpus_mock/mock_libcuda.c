/* A CPU stand-in for libcuda.so.1, for testing tools/kernel_corpus/launcher.cpp and
 * tools/measure_kernels.py without a GPU.  Memory is malloc'd; a "launch" runs nothing but checks
 * its arguments and appends one line to $MOCK_CUDA_LOG:
 *   launch ENTRY grid X Y Z block X Y Z smem N params HEX,HEX,...
 * (HEX: the bytes of each parameter, sizes from $MOCK_CUDA_PARAM_SIZES "S,S,..." when set, else 8).
 * cuModuleGetFunction fails unless the entry name occurs in the module image (cubin or PTX text). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct { const char* image; size_t size; } Module;
typedef struct { char name[4096]; int max_dyn; } Function;

static int ctx_token;

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDeviceGet(CUdevice* d, int ordinal) { *d = ordinal; return ordinal == 0 ? 0 : 101; }
CUresult cuDeviceGetName(char* name, int len, CUdevice d) { (void)d; snprintf(name, len, "Mock GPU"); return 0; }
CUresult cuDevicePrimaryCtxRetain(void** ctx, CUdevice d) { (void)d; *ctx = &ctx_token; return 0; }
CUresult cuCtxSetCurrent(void* ctx) { return ctx == &ctx_token ? 0 : 201; }
CUresult cuCtxSynchronize(void) { return 0; }

static size_t image_size(const char* image)
{
  if ((unsigned char)image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' && image[3] == 'F') {
    uint64_t shoff; uint16_t shentsize, shnum;   /* ELF64: end of the section header table */
    memcpy(&shoff, image + 0x28, 8); memcpy(&shentsize, image + 0x3a, 2); memcpy(&shnum, image + 0x3c, 2);
    return shoff + (size_t)shentsize * shnum;
  }
  return strlen(image);
}

CUresult cuModuleLoadData(void** mod, const void* image)
{
  Module* m = malloc(sizeof(Module));
  m->image = image; m->size = image_size(image);
  char* copy = malloc(m->size); memcpy(copy, image, m->size); m->image = copy;
  *mod = m;
  return 0;
}
CUresult cuModuleLoadDataEx(void** mod, const void* image, unsigned n, void* opts, void** vals)
{
  (void)n; (void)opts; (void)vals;
  if (strstr((const char*)image, ".entry") == NULL) return 218;   /* CUDA_ERROR_INVALID_PTX */
  return cuModuleLoadData(mod, image);
}
CUresult cuModuleGetFunction(void** fn, void* mod, const char* name)
{
  Module* m = mod;
  if (!memmem(m->image, m->size, name, strlen(name))) return 500;  /* CUDA_ERROR_NOT_FOUND */
  Function* f = calloc(1, sizeof(Function));
  snprintf(f->name, sizeof(f->name), "%s", name);
  f->max_dyn = 48 * 1024;
  *fn = f;
  return 0;
}
CUresult cuFuncSetAttribute(void* fn, int attr, int value)
{
  Function* f = fn;
  if (attr == 8) { if (value > 227 * 1024) return 1; f->max_dyn = value; }  /* MAX_DYNAMIC_SHARED_SIZE_BYTES */
  return 0;
}
CUresult cuFuncGetAttribute(int* v, int attr, void* fn) { (void)attr; (void)fn; *v = 0; return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) { *p = (CUdeviceptr)(uintptr_t)aligned_alloc(256, (n + 255) / 256 * 256); return 0; }
CUresult cuMemFree_v2(CUdeviceptr p) { free((void*)(uintptr_t)p); return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void* s, size_t n) { memcpy((void*)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void* d, CUdeviceptr s, size_t n) { memcpy(d, (void*)(uintptr_t)s, n); return 0; }

CUresult cuLaunchKernel(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, void* stream, void** params, void** extra)
{
  (void)stream; (void)extra;
  Function* f = fn;
  if ((int)smem > f->max_dyn) return 1;               /* CUDA_ERROR_INVALID_VALUE */
  if ((unsigned long long)bx * by * bz > 1024) return 1;
  const char* log = getenv("MOCK_CUDA_LOG");
  if (!log) return 0;
  FILE* out = fopen(log, "a");
  fprintf(out, "launch %s grid %u %u %u block %u %u %u smem %u params ", f->name, gx, gy, gz, bx, by, bz, smem);
  const char* sizes = getenv("MOCK_CUDA_PARAM_SIZES");
  for (int i = 0; sizes && *sizes; ++i) {
    int n = atoi(sizes);
    const unsigned char* p = params[i];
    if (i) fputc(',', out);
    for (int j = 0; j < n; ++j) fprintf(out, "%02x", p ? p[j] : 0);
    sizes = strchr(sizes, ',');
    if (sizes) ++sizes;
  }
  fputc('\n', out);
  fclose(out);
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char** s) { (void)r; *s = "MOCK_ERROR"; return 0; }
CUresult cuGetErrorString(CUresult r, const char** s) { (void)r; *s = "mock error"; return 0; }

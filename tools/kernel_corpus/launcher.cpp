// Generic kernel launcher for the kernel corpus (CUDA driver API, libcuda loaded with dlopen, so it
// builds on a machine without a GPU or a libcuda stub).
//
//   kernel_launcher SPEC MODULE [--ptx] [--launches N] [--dump DIR]
//   kernel_launcher --batch LIST [--dump-root DIR]
//
// SPEC is the launch.txt that tools/kernel_corpus/launchspec.py writes from a corpus launch.json:
//   kernel NAME
//   grid X Y Z
//   block X Y Z
//   smem BYTES
//   buffer ID BYTES DTYPE INIT LO HI SEED        (INIT: uniform | randint | zeros | sentinel)
//   param SIZE HEX NPTR [OFFSET BUFID]...        (HEX: the parameter's bytes, little-endian; '-' if SIZE 0)
// MODULE is a cubin (cuModuleLoadData) or, with --ptx, a PTX file the driver JIT-compiles.
// Each launch re-uploads every buffer's initial contents first, so every launch computes the same
// thing from the same inputs; the default is 2 launches (a warm-up, then the measured one).
// --dump DIR writes DIR/buf<ID>.in (initial contents) and DIR/buf<ID>.out (after the last launch).
//
// --batch LIST: each line "NAME SPEC MODULE cubin|ptx"; loads every kernel, then launches each once
// (warm-ups, in list order), then each once more (the measured launches, in the same order), so
// `ncu --launch-skip <number of kernels>` profiles exactly the measured launches.  With --dump-root,
// each kernel's buffers go to DIR/NAME/.
//
// Every CUDA call is checked; any failure prints the call, the error name and string, and exits 1.
#include <cuda.h>
#include <dlfcn.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#define STR2(x) #x
#define STR(x) STR2(x)

namespace {

struct Api {
  decltype(&::cuInit) init;
  decltype(&::cuDeviceGet) deviceGet;
  decltype(&::cuDeviceGetName) deviceGetName;
  decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent;
  decltype(&::cuCtxSynchronize) ctxSynchronize;
  decltype(&::cuModuleLoadData) moduleLoadData;
  decltype(&::cuModuleLoadDataEx) moduleLoadDataEx;
  decltype(&::cuModuleGetFunction) moduleGetFunction;
  decltype(&::cuFuncSetAttribute) funcSetAttribute;
  decltype(&::cuFuncGetAttribute) funcGetAttribute;
  decltype(&::cuMemAlloc) memAlloc;
  decltype(&::cuMemFree) memFree;
  decltype(&::cuMemcpyHtoD) memcpyHtoD;
  decltype(&::cuMemcpyDtoH) memcpyDtoH;
  decltype(&::cuLaunchKernel) launchKernel;
  decltype(&::cuGetErrorName) getErrorName;
  decltype(&::cuGetErrorString) getErrorString;
};

Api api;

void* need_symbol(void* lib, const char* name)
{
  void* p = dlsym(lib, name);
  if (!p) {
    std::fprintf(stderr, "error: libcuda has no symbol %s\n", name);
    std::exit(1);
  }
  return p;
}

// The macros of cuda.h map e.g. cuMemAlloc to cuMemAlloc_v2; STR(...) expands them first, so the
// versioned symbol this header was written for is the one looked up.
#define LOAD(field, fn) api.field = reinterpret_cast<decltype(api.field)>(need_symbol(lib, STR(fn)))

void load_api()
{
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    std::fprintf(stderr, "error: cannot dlopen libcuda.so.1: %s\n", dlerror());
    std::exit(1);
  }
  LOAD(init, cuInit);
  LOAD(deviceGet, cuDeviceGet);
  LOAD(deviceGetName, cuDeviceGetName);
  LOAD(primaryCtxRetain, cuDevicePrimaryCtxRetain);
  LOAD(ctxSetCurrent, cuCtxSetCurrent);
  LOAD(ctxSynchronize, cuCtxSynchronize);
  LOAD(moduleLoadData, cuModuleLoadData);
  LOAD(moduleLoadDataEx, cuModuleLoadDataEx);
  LOAD(moduleGetFunction, cuModuleGetFunction);
  LOAD(funcSetAttribute, cuFuncSetAttribute);
  LOAD(funcGetAttribute, cuFuncGetAttribute);
  LOAD(memAlloc, cuMemAlloc);
  LOAD(memFree, cuMemFree);
  LOAD(memcpyHtoD, cuMemcpyHtoD);
  LOAD(memcpyDtoH, cuMemcpyDtoH);
  LOAD(launchKernel, cuLaunchKernel);
  LOAD(getErrorName, cuGetErrorName);
  LOAD(getErrorString, cuGetErrorString);
}

void check(CUresult r, const char* what, const std::string& context)
{
  if (r == CUDA_SUCCESS) return;
  const char* name = "?";
  const char* desc = "?";
  if (api.getErrorName) api.getErrorName(r, &name);
  if (api.getErrorString) api.getErrorString(r, &desc);
  std::fprintf(stderr, "error: %s failed (%s): %d %s: %s\n", what, context.c_str(), int(r), name, desc);
  std::exit(1);
}

#define CK(call, ctx) check((call), #call, (ctx))

[[noreturn]] void fail(const std::string& msg)
{
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  std::exit(1);
}

struct Buffer {
  int id = 0;
  size_t bytes = 0;
  std::string dtype, init;
  double lo = 0, hi = 0;
  uint64_t seed = 0;
  std::vector<unsigned char> host;
  CUdeviceptr dev = 0;
};

struct Param {
  std::vector<unsigned char> bytes;
  std::vector<std::pair<size_t, int>> pointers;   // (byte offset, buffer id)
};

struct Kernel {
  std::string name, spec_path, module_path, entry;
  bool ptx = false;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned smem = 0;
  std::vector<Buffer> buffers;
  std::vector<Param> params;
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  std::vector<std::vector<unsigned char>> packed;
  std::vector<void*> arg_ptrs;
};

uint64_t splitmix(uint64_t& s)
{
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint16_t float_to_half_bits(float f)
{
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = int32_t((x >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = x & 0x7FFFFFu;
  if (((x >> 23) & 0xFF) == 0xFF) return uint16_t(sign | 0x7C00u | (mant ? 0x200u : 0u));
  if (exp >= 31) return uint16_t(sign | 0x7C00u);
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    mant |= 0x800000u;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t h = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;   // may carry into the exponent: correct
  return uint16_t(sign | h);
}

uint16_t float_to_bf16_bits(float f)
{
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t lsb = (x >> 16) & 1u;
  return uint16_t((x + 0x7FFFu + lsb) >> 16);
}

size_t dtype_size(const std::string& d)
{
  if (d == "f16" || d == "bf16" || d == "u16" || d == "i16") return 2;
  if (d == "f32" || d == "u32" || d == "i32") return 4;
  if (d == "f64" || d == "u64" || d == "i64") return 8;
  if (d == "u8" || d == "i8") return 1;
  fail("unknown dtype " + d);
}

void fill(Buffer& b)
{
  b.host.assign(b.bytes, 0);
  if (b.init == "zeros") return;
  if (b.init == "sentinel") {
    std::memset(b.host.data(), 0xFF, b.bytes);
    return;
  }
  size_t es = dtype_size(b.dtype);
  size_t n = b.bytes / es;
  uint64_t s = b.seed;
  for (size_t i = 0; i < n; ++i) {
    uint64_t r = splitmix(s);
    unsigned char* p = b.host.data() + i * es;
    if (b.init == "uniform") {
      double u = double(r >> 11) * (1.0 / 9007199254740992.0);
      double v = b.lo + (b.hi - b.lo) * u;
      if (b.dtype == "f16") {
        uint16_t h = float_to_half_bits(float(v));
        std::memcpy(p, &h, 2);
      } else if (b.dtype == "bf16") {
        uint16_t h = float_to_bf16_bits(float(v));
        std::memcpy(p, &h, 2);
      } else if (b.dtype == "f32") {
        float f = float(v);
        std::memcpy(p, &f, 4);
      } else if (b.dtype == "f64") {
        std::memcpy(p, &v, 8);
      } else {
        fail("uniform init needs a float dtype, not " + b.dtype);
      }
    } else if (b.init == "randint") {
      uint64_t span = uint64_t(int64_t(b.hi) - int64_t(b.lo)) + 1u;
      int64_t v = int64_t(b.lo) + int64_t(r % span);
      std::memcpy(p, &v, es);   // little-endian: the low bytes
    } else {
      fail("unknown init " + b.init);
    }
  }
}

std::vector<unsigned char> parse_hex(const std::string& hex, size_t size, const std::string& ctx)
{
  std::vector<unsigned char> out;
  if (hex == "-") {
    if (size) fail(ctx + ": no bytes for a parameter of " + std::to_string(size));
    return out;
  }
  if (hex.size() != 2 * size) fail(ctx + ": hex length does not match size " + std::to_string(size));
  for (size_t i = 0; i < size; ++i) out.push_back((unsigned char)std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

void read_spec(Kernel& k)
{
  std::ifstream in(k.spec_path);
  if (!in) fail("cannot read spec " + k.spec_path);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string key;
    if (!(ls >> key) || key[0] == '#') continue;
    std::string ctx = k.spec_path + ":" + std::to_string(lineno);
    if (key == "kernel") {
      ls >> k.entry;
    } else if (key == "grid") {
      ls >> k.grid[0] >> k.grid[1] >> k.grid[2];
    } else if (key == "block") {
      ls >> k.block[0] >> k.block[1] >> k.block[2];
    } else if (key == "smem") {
      ls >> k.smem;
    } else if (key == "buffer") {
      Buffer b;
      ls >> b.id >> b.bytes >> b.dtype >> b.init >> b.lo >> b.hi >> b.seed;
      if (!ls) fail(ctx + ": bad buffer line");
      k.buffers.push_back(b);
    } else if (key == "param") {
      size_t size = 0, nptr = 0;
      std::string hex;
      ls >> size >> hex >> nptr;
      if (!ls) fail(ctx + ": bad param line");
      Param p;
      p.bytes = parse_hex(hex, size, ctx);
      for (size_t i = 0; i < nptr; ++i) {
        size_t off = 0;
        int id = -1;
        ls >> off >> id;
        if (!ls || off + 8 > size) fail(ctx + ": bad pointer slot");
        p.pointers.emplace_back(off, id);
      }
      k.params.push_back(p);
    } else {
      fail(ctx + ": unknown key " + key);
    }
    if (!ls && key != "param" && key != "buffer") fail(ctx + ": malformed line");
  }
  if (k.entry.empty()) fail(k.spec_path + ": no kernel line");
}

std::string read_file(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void load(Kernel& k)
{
  std::string image = read_file(k.module_path);
  if (k.ptx) {
    static char log[16384], info[16384];
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof(log))),
                    info, reinterpret_cast<void*>(uintptr_t(sizeof(info)))};
    log[0] = info[0] = 0;
    CUresult r = api.moduleLoadDataEx(&k.module, image.c_str(), 4, opts, vals);
    if (r != CUDA_SUCCESS) std::fprintf(stderr, "JIT error log (%s):\n%s\n", k.module_path.c_str(), log);
    CK(r, k.module_path);
  } else {
    CK(api.moduleLoadData(&k.module, image.data()), k.module_path);
  }
  CK(api.moduleGetFunction(&k.fn, k.module, k.entry.c_str()), k.name);
  int static_smem = 0;
  CK(api.funcGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k.fn), k.name);
  if (k.smem > 0)
    CK(api.funcSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(k.smem)), k.name);
  for (Buffer& b : k.buffers) {
    fill(b);
    CK(api.memAlloc(&b.dev, b.bytes ? b.bytes : 1), k.name + " buffer " + std::to_string(b.id));
  }
  k.packed.clear();
  for (const Param& p : k.params) {
    std::vector<unsigned char> bytes = p.bytes;
    for (auto [off, id] : p.pointers) {
      CUdeviceptr ptr = 0;
      bool found = false;
      for (const Buffer& b : k.buffers)
        if (b.id == id) { ptr = b.dev; found = true; }
      if (!found) fail(k.name + ": parameter refers to unknown buffer " + std::to_string(id));
      uint64_t v = uint64_t(ptr);
      std::memcpy(bytes.data() + off, &v, 8);
    }
    k.packed.push_back(bytes);
  }
  k.arg_ptrs.clear();
  for (auto& bytes : k.packed) k.arg_ptrs.push_back(bytes.empty() ? nullptr : bytes.data());
  std::printf("loaded %s: entry %.80s%s, static smem %d, dynamic smem %u, %zu params, %zu buffers\n",
              k.name.c_str(), k.entry.c_str(), k.entry.size() > 80 ? "..." : "", static_smem, k.smem,
              k.params.size(), k.buffers.size());
}

void launch(Kernel& k, int index)
{
  for (Buffer& b : k.buffers)
    if (b.bytes) CK(api.memcpyHtoD(b.dev, b.host.data(), b.bytes), k.name + " upload");
  CK(api.ctxSynchronize(), k.name + " before launch");
  CK(api.launchKernel(k.fn, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.smem,
                      nullptr, k.arg_ptrs.data(), nullptr),
     k.name + " launch " + std::to_string(index));
  CK(api.ctxSynchronize(), k.name + " launch " + std::to_string(index));
  std::printf("launched %s #%d grid (%u,%u,%u) block (%u,%u,%u) smem %u\n", k.name.c_str(), index, k.grid[0],
              k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.smem);
  std::fflush(stdout);
}

void write_file(const std::string& path, const void* data, size_t n)
{
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) fail("cannot write " + path + ": " + std::strerror(errno));
  if (n && std::fwrite(data, 1, n, f) != n) fail("short write " + path);
  std::fclose(f);
}

void dump(Kernel& k, const std::string& dir)
{
  mkdir(dir.c_str(), 0755);
  for (Buffer& b : k.buffers) {
    std::vector<unsigned char> out(b.bytes);
    if (b.bytes) CK(api.memcpyDtoH(out.data(), b.dev, b.bytes), k.name + " download");
    std::string base = dir + "/buf" + std::to_string(b.id);
    write_file(base + ".in", b.host.data(), b.bytes);
    write_file(base + ".out", out.data(), b.bytes);
  }
}

void init_context()
{
  load_api();
  CK(api.init(0), "cuInit");
  CUdevice dev;
  CK(api.deviceGet(&dev, 0), "device 0");
  char name[256] = {0};
  CK(api.deviceGetName(name, sizeof(name), dev), "device name");
  CUcontext ctx;
  CK(api.primaryCtxRetain(&ctx, dev), "primary context");
  CK(api.ctxSetCurrent(ctx), "set context");
  std::printf("device: %s\n", name);
}

int usage()
{
  std::fprintf(stderr,
               "usage: kernel_launcher SPEC MODULE [--ptx] [--launches N] [--dump DIR]\n"
               "       kernel_launcher --batch LIST [--dump-root DIR]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc < 3) return usage();
  std::string first = argv[1];
  if (first == "--batch") {
    std::string root;
    for (int i = 3; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--dump-root" && i + 1 < argc) root = argv[++i];
      else return usage();
    }
    std::vector<Kernel> ks;
    std::ifstream in(argv[2]);
    if (!in) fail(std::string("cannot read ") + argv[2]);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      Kernel k;
      std::string kind;
      if (!(ls >> k.name) || k.name[0] == '#') continue;
      if (!(ls >> k.spec_path >> k.module_path >> kind)) fail("bad batch line: " + line);
      k.ptx = kind == "ptx";
      ks.push_back(std::move(k));
    }
    init_context();
    for (Kernel& k : ks) {
      read_spec(k);
      load(k);
    }
    for (Kernel& k : ks) launch(k, 0);
    for (Kernel& k : ks) launch(k, 1);
    if (!root.empty()) {
      mkdir(root.c_str(), 0755);
      for (Kernel& k : ks) dump(k, root + "/" + k.name);
    }
    std::printf("ok: %zu kernels, 2 launches each\n", ks.size());
    return 0;
  }
  Kernel k;
  k.name = "kernel";
  k.spec_path = argv[1];
  k.module_path = argv[2];
  int launches = 2;
  std::string dump_dir;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--ptx") k.ptx = true;
    else if (a == "--launches" && i + 1 < argc) launches = std::atoi(argv[++i]);
    else if (a == "--dump" && i + 1 < argc) dump_dir = argv[++i];
    else if (a == "--name" && i + 1 < argc) k.name = argv[++i];
    else return usage();
  }
  if (launches < 1) fail("--launches must be >= 1");
  init_context();
  read_spec(k);
  load(k);
  for (int i = 0; i < launches; ++i) launch(k, i);
  if (!dump_dir.empty()) dump(k, dump_dir);
  std::printf("ok: %s, %d launches\n", k.name.c_str(), launches);
  return 0;
}

"""CUDA C++ with inline PTX for every instruction of the hardware suite.

Each generator returns ``(kernel_name, source)``.  The kernels do no
arithmetic of their own: one thread block is one warp running one *case*; it
copies a host-made shared-memory image (16-bit units) into dynamic shared
memory (1024-byte aligned base), takes each lane's byte offset from a table,
executes the one instruction under test, and writes the registers (or the
whole shared memory) back.  Everything that interprets the results lives on
the host, so the kernels stay a transcription of the PTX ISA syntax.
"""

from __future__ import annotations

from layoutalg.gpu.suite import (
    MOVMATRIX_PTX,
    TYPE_BITS,
    MmaVariant,
    ldmatrix_ptx,
    stmatrix_ptx,
)

PRELUDE = r"""
#define SMEM_DECL extern __shared__ __align__(1024) unsigned char smem_raw[]
__device__ __forceinline__ unsigned smem_base(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void load_image(unsigned short* smem, const unsigned short* image, int halves) {
    for (int i = threadIdx.x; i < halves; i += blockDim.x) smem[i] = image[(size_t)blockIdx.x * halves + i];
    __syncthreads();
}
__device__ __forceinline__ void dump_smem(const unsigned short* smem, unsigned short* out, int halves) {
    __syncthreads();
    for (int i = threadIdx.x; i < halves; i += blockDim.x) out[(size_t)blockIdx.x * halves + i] = smem[i];
}
"""


def _regs(count: int, start: int) -> str:
    return "{" + ", ".join(f"%{start + i}" for i in range(count)) + "}"


def ldmatrix_kernel(num: int, trans: bool) -> tuple[str, str]:
    """Per case: image (halves), lane byte offsets (32) -> regs[32][num], base address."""
    name = f"ldsm_x{num}{'_t' if trans else ''}"
    outs = ", ".join(f'"=r"(r[{i}])' for i in range(num))
    src = f"""
extern "C" __global__ void {name}(const unsigned short* image, const unsigned* lane_addr,
                                  unsigned* regs, unsigned* bases, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    load_image(smem, image, halves);
    const int lane = threadIdx.x;
    const unsigned base = smem_base(smem_raw);
    const unsigned addr = base + lane_addr[blockIdx.x * 32 + lane];
    unsigned r[{num}];
    asm volatile("{ldmatrix_ptx(num, trans)} {_regs(num, 0)}, [%{num}];" : {outs} : "r"(addr));
    for (int i = 0; i < {num}; ++i) regs[((size_t)blockIdx.x * 32 + lane) * {num} + i] = r[i];
    if (lane == 0) bases[blockIdx.x] = base;
}}
"""
    return name, src


def stmatrix_kernel(num: int, trans: bool) -> tuple[str, str]:
    """Per case: lane byte offsets, register words (32 x num) -> the whole shared memory after the store."""
    name = f"stsm_x{num}{'_t' if trans else ''}"
    ins = ", ".join(f'"r"(r[{i}])' for i in range(num))
    src = f"""
extern "C" __global__ void {name}(const unsigned short* image, const unsigned* lane_addr,
                                  const unsigned* words, unsigned short* out, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    load_image(smem, image, halves);
    const int lane = threadIdx.x;
    const unsigned addr = smem_base(smem_raw) + lane_addr[blockIdx.x * 32 + lane];
    unsigned r[{num}];
    for (int i = 0; i < {num}; ++i) r[i] = words[((size_t)blockIdx.x * 32 + lane) * {num} + i];
    asm volatile("{stmatrix_ptx(num, trans)} [%0], {_regs(num, 1)};" :: "r"(addr), {ins} : "memory");
    dump_smem(smem, out, halves);
}}
"""
    return name, src


def movmatrix_kernel() -> tuple[str, str]:
    name = "movmatrix_t"
    src = f"""
extern "C" __global__ void {name}(const unsigned* words, unsigned* out) {{
    const size_t t = (size_t)blockIdx.x * 32 + threadIdx.x;
    unsigned d;
    asm volatile("{MOVMATRIX_PTX} %0, %1;" : "=r"(d) : "r"(words[t]));
    out[t] = d;
}}
"""
    return name, src


def _constraint(elem_type: str, is_acc: bool) -> str:
    if TYPE_BITS[elem_type] == 64:
        return "d"
    if is_acc and elem_type == "f32":
        return "f"
    return "r"


_CTYPE = {"d": "double", "f": "float", "r": "unsigned"}
_LOAD = {"d": "__longlong_as_double((long long)({x}))", "f": "__uint_as_float({x})", "r": "({x})"}
_STORE = {"d": "(unsigned long long)__double_as_longlong({x})", "f": "__float_as_uint({x})", "r": "({x})"}


def mma_kernel(v: MmaVariant) -> tuple[str, str]:
    """Per run (one warp): A, B, C registers of every lane -> D registers of every lane."""
    name = "mma_" + v.name()
    lines: list[str] = []
    params: list[str] = []
    ops = {}
    for op in "abcd":
        c = _constraint(v.elem_type(op), op in "cd")
        unit = "unsigned long long" if c == "d" else "unsigned"
        ops[op] = (c, v.units(op))
        params.append(f"{'' if op == 'd' else 'const '}{unit}* {op.upper()}")
    for op in "abc":
        c, n = ops[op]
        for i in range(n):
            load = _LOAD[c].format(x=f"{op.upper()}[t * {n} + {i}]")
            lines.append(f"    {_CTYPE[c]} {op}{i} = {load};")
    cd, nd = ops["d"]
    lines.append(f"    {_CTYPE[cd]} " + ", ".join(f"d{i}" for i in range(nd)) + ";")
    k = 0
    groups = []
    for op in "dabc":
        n = ops[op][1]
        groups.append(_regs(n, k))
        k += n
    outs = ", ".join(f'"={cd}"(d{i})' for i in range(nd))
    ins = ", ".join(f'"{ops[op][0]}"({op}{i})' for op in "abc" for i in range(ops[op][1]))
    lines.append(f'    asm volatile("{v.ptx} {", ".join(groups)};" : {outs} : {ins});')
    for i in range(nd):
        lines.append(f"    D[t * {nd} + {i}] = {_STORE[cd].format(x=f'd{i}')};")
    body = "\n".join(lines)
    src = f"""
extern "C" __global__ void {name}({", ".join(params)}) {{
    const size_t t = (size_t)blockIdx.x * 32 + threadIdx.x;
{body}
}}
"""
    return name, src


def cp_async_kernel(nbytes: int, cache: str) -> tuple[str, str]:
    """Per case: global source words, lane source/destination byte offsets -> shared memory after the copy."""
    name = f"cp_async_{cache}_{nbytes}"
    src = f"""
extern "C" __global__ void {name}(const unsigned short* image, const unsigned char* gsrc, const unsigned* lane_src,
                                  const unsigned* lane_dst, unsigned short* out, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    load_image(smem, image, halves);
    const int lane = threadIdx.x;
    const unsigned dst = smem_base(smem_raw) + lane_dst[blockIdx.x * 32 + lane];
    const unsigned char* src = gsrc + lane_src[blockIdx.x * 32 + lane];
    asm volatile("cp.async.{cache}.shared.global [%0], [%1], {nbytes};" :: "r"(dst), "l"(src) : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    dump_smem(smem, out, halves);
}}
"""
    return name, src


def _ld_st_regs(suffix: str) -> tuple[int, str]:
    """(number of 32/64-bit registers, constraint letter) for a ld/st.shared type suffix."""
    return {"u8": (1, "r"), "u16": (1, "r"), "b32": (1, "r"), "b64": (1, "l"),
            "v2.b32": (2, "r"), "v4.b32": (4, "r")}[suffix]


def ld_shared_kernel(suffix: str) -> tuple[str, str]:
    """Per case: image, lane byte offsets -> each lane's loaded registers (as 64-bit units)."""
    name = "ld_shared_" + suffix.replace(".", "_")
    n, c = _ld_st_regs(suffix)
    ctype = "unsigned long long" if c == "l" else "unsigned"
    outs = ", ".join(f'"={c}"(r[{i}])' for i in range(n))
    regs = _regs(n, 0) if n > 1 else "%0"
    src = f"""
extern "C" __global__ void {name}(const unsigned short* image, const unsigned* lane_addr,
                                  unsigned long long* regs, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    load_image(smem, image, halves);
    const int lane = threadIdx.x;
    const unsigned addr = smem_base(smem_raw) + lane_addr[blockIdx.x * 32 + lane];
    {ctype} r[{n}];
    asm volatile("ld.shared.{suffix} {regs}, [%{n}];" : {outs} : "r"(addr));
    for (int i = 0; i < {n}; ++i) regs[((size_t)blockIdx.x * 32 + lane) * 4 + i] = r[i];
}}
"""
    return name, src


def st_shared_kernel(suffix: str) -> tuple[str, str]:
    """Per case: lane byte offsets and register units -> shared memory after the store."""
    name = "st_shared_" + suffix.replace(".", "_")
    n, c = _ld_st_regs(suffix)
    ctype = "unsigned long long" if c == "l" else "unsigned"
    ins = ", ".join(f'"{c}"(r[{i}])' for i in range(n))
    regs = _regs(n, 1) if n > 1 else "%1"
    src = f"""
extern "C" __global__ void {name}(const unsigned short* image, const unsigned* lane_addr,
                                  const unsigned long long* units, unsigned short* out, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    load_image(smem, image, halves);
    const int lane = threadIdx.x;
    const unsigned addr = smem_base(smem_raw) + lane_addr[blockIdx.x * 32 + lane];
    {ctype} r[{n}];
    for (int i = 0; i < {n}; ++i) r[i] = ({ctype})units[((size_t)blockIdx.x * 32 + lane) * 4 + i];
    asm volatile("st.shared.{suffix} [%0], {regs};" :: "r"(addr), {ins} : "memory");
    dump_smem(smem, out, halves);
}}
"""
    return name, src


def scheme_kernel(b_trans: bool) -> tuple[str, str]:
    """ldmatrix.x4 (A) + ldmatrix.x2[.trans] (B) from one smem image, then mma.m16n8k16 f32.f16.f16.f32."""
    name = f"scheme_ldsm_mma{'_bt' if b_trans else ''}"
    src = f"""
extern "C" __global__ void {name}(const unsigned short* image, const unsigned* a_addr, const unsigned* b_addr,
                                  float* D, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    load_image(smem, image, halves);
    const int lane = threadIdx.x;
    const unsigned base = smem_base(smem_raw);
    const unsigned aa = base + a_addr[blockIdx.x * 32 + lane];
    const unsigned ba = base + b_addr[blockIdx.x * 32 + lane];
    unsigned a0, a1, a2, a3, b0, b1;
    asm volatile("{ldmatrix_ptx(4, False)} {{%0, %1, %2, %3}}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(aa));
    asm volatile("{ldmatrix_ptx(2, b_trans)} {{%0, %1}}, [%2];" : "=r"(b0), "=r"(b1) : "r"(ba));
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{%0, %1, %2, %3}}, {{%4, %5, %6, %7}}, "
                 "{{%8, %9}}, {{%10, %11, %12, %13}};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(d0), "f"(d1), "f"(d2), "f"(d3));
    const size_t t = (size_t)blockIdx.x * 32 + lane;
    D[t * 4 + 0] = d0; D[t * 4 + 1] = d1; D[t * 4 + 2] = d2; D[t * 4 + 3] = d3;
}}
"""
    return name, src


_LDSM4 = 'asm volatile("ldmatrix.sync.aligned.m8n8.x4{t}.shared.b16 {{%0, %1, %2, %3}}, [%4];" : "=r"({r}[0]), "=r"({r}[1]), "=r"({r}[2]), "=r"({r}[3]) : "r"({a}));'
_LDSM2 = 'asm volatile("ldmatrix.sync.aligned.m8n8.x2{t}.shared.b16 {{%0, %1}}, [%2];" : "=r"({r}[0]), "=r"({r}[1]) : "r"({a}));'
_MMA_F16 = ('asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {{%0, %1}}, {{%2, %3, %4, %5}}, {{%6, %7}}, '
            '{{%8, %9}};" : "=r"({d}[0]), "=r"({d}[1]) : "r"({a}[0]), "r"({a}[1]), "r"({a}[2]), "r"({a}[3]), '
            '"r"({b0}), "r"({b1}), "r"(0u), "r"(0u));')
_MMA_F32 = ('asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{%0, %1, %2, %3}}, {{%4, %5, %6, %7}}, '
            '{{%8, %9}}, {{%10, %11, %12, %13}};" : "=f"({d}[0]), "=f"({d}[1]), "=f"({d}[2]), "=f"({d}[3]) : '
            '"r"({a}[0]), "r"({a}[1]), "r"({a}[2]), "r"({a}[3]), "r"({b0}), "r"({b1}), '
            '"f"(0.f), "f"(0.f), "f"(0.f), "f"(0.f));')

_ADDR = """
    const unsigned base = smem_base(smem_raw);
    const size_t slot = (size_t)blockIdx.x * 32 + threadIdx.x;
"""


def stsm_epilogue_kernel(trans: bool) -> tuple[str, str]:
    """A (ldmatrix.x4) x B (ldmatrix.x4.trans, two n-blocks) -> two f16 accumulators -> stmatrix.x4[.trans]."""
    name = f"scheme_stsm_epilogue{'_t' if trans else ''}"
    src = f"""
extern "C" __global__ void {name}(const unsigned short* image, const unsigned* a_addr, const unsigned* b_addr,
                                  const unsigned* c_addr, unsigned short* out, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    load_image(smem, image, halves);{_ADDR}
    unsigned a[4], b[4], c0[2], c1[2];
    {_LDSM4.format(t="", r="a", a="base + a_addr[slot]")}
    {_LDSM4.format(t=".trans", r="b", a="base + b_addr[slot]")}
    {_MMA_F16.format(d="c0", a="a", b0="b[0]", b1="b[1]")}
    {_MMA_F16.format(d="c1", a="a", b0="b[2]", b1="b[3]")}
    asm volatile("stmatrix.sync.aligned.m8n8.x4{'.trans' if trans else ''}.shared.b16 [%0], {{%1, %2, %3, %4}};"
                 :: "r"(base + c_addr[slot]), "r"(c0[0]), "r"(c0[1]), "r"(c1[0]), "r"(c1[1]) : "memory");
    dump_smem(smem, out, halves);
}}
"""
    return name, src


def movmatrix_b_kernel(use_movmatrix: bool) -> tuple[str, str]:
    """S = A x B (f16 accumulators), then [movmatrix.trans of] S's registers as the B operand of A2 x S."""
    name = f"scheme_movmatrix_b{'' if use_movmatrix else '_none'}"
    if use_movmatrix:
        mov = ('asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(t[0]) : "r"(s[0]));\n'
               '    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(t[1]) : "r"(s[1]));')
    else:
        mov = "t[0] = s[0]; t[1] = s[1];"
    src = f"""
extern "C" __global__ void {name}(const unsigned short* image, const unsigned* a_addr, const unsigned* b_addr,
                                  const unsigned* a2_addr, float* D, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    load_image(smem, image, halves);{_ADDR}
    unsigned a[4], b[2], s[2], t[2], a2[4];
    float d[4];
    {_LDSM4.format(t="", r="a", a="base + a_addr[slot]")}
    {_LDSM2.format(t=".trans", r="b", a="base + b_addr[slot]")}
    {_MMA_F16.format(d="s", a="a", b0="b[0]", b1="b[1]")}
    {mov}
    {_LDSM4.format(t="", r="a2", a="base + a2_addr[slot]")}
    {_MMA_F32.format(d="d", a="a2", b0="t[0]", b1="t[1]")}
    for (int i = 0; i < 4; ++i) D[slot * 4 + i] = d[i];
}}
"""
    return name, src


def fa2_p_reuse_kernel() -> tuple[str, str]:
    """S = Q K (two n-blocks, f16 accumulators); their registers in order are the A operand of P V."""
    name = "scheme_fa2_p_reuse"
    src = f"""
extern "C" __global__ void {name}(const unsigned short* image, const unsigned* q_addr, const unsigned* k_addr,
                                  const unsigned* v_addr, float* D, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    load_image(smem, image, halves);{_ADDR}
    unsigned q[4], k[4], s0[2], s1[2], p[4], v[2];
    float d[4];
    {_LDSM4.format(t="", r="q", a="base + q_addr[slot]")}
    {_LDSM4.format(t=".trans", r="k", a="base + k_addr[slot]")}
    {_MMA_F16.format(d="s0", a="q", b0="k[0]", b1="k[1]")}
    {_MMA_F16.format(d="s1", a="q", b0="k[2]", b1="k[3]")}
    p[0] = s0[0]; p[1] = s0[1]; p[2] = s1[0]; p[3] = s1[1];
    {_LDSM2.format(t=".trans", r="v", a="base + v_addr[slot]")}
    {_MMA_F32.format(d="d", a="p", b0="v[0]", b1="v[1]")}
    for (int i = 0; i < 4; ++i) D[slot * 4 + i] = d[i];
}}
"""
    return name, src


def cp_async_tile_kernel() -> tuple[str, str]:
    """128 threads x ``iters`` cp.async.cg of 16 bytes from a global tile, then the whole shared memory."""
    name = "scheme_cp_async_tile"
    src = f"""
extern "C" __global__ void {name}(const unsigned char* gsrc, const unsigned* src_off, const unsigned* dst_off,
                                  int iters, unsigned short* out, int halves) {{
    SMEM_DECL;
    unsigned short* smem = (unsigned short*)smem_raw;
    for (int i = threadIdx.x; i < halves; i += blockDim.x) smem[i] = 0xFFFF;
    __syncthreads();
    const unsigned base = smem_base(smem_raw);
    for (int it = 0; it < iters; ++it) {{
        const size_t j = ((size_t)blockIdx.x * iters + it) * blockDim.x + threadIdx.x;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(base + dst_off[j]), "l"(gsrc + src_off[j]) : "memory");
    }}
    asm volatile("cp.async.wait_all;" ::: "memory");
    dump_smem(smem, out, halves);
}}
"""
    return name, src

"""Measure shared-memory wavefronts with Nsight Compute, one instruction per launch.

How: one CUDA C++ file holds one kernel per instruction (inline PTX); each
kernel runs one warp, reads every lane's shared-memory byte offset (and, for
cp.async, its global source offset) from global memory, so the compiler cannot
fold the addresses, and issues exactly one shared-memory instruction.  A host
program launches the kernel of every case in order; ``ncu --metrics`` reads the
wavefront counters of every launch in one process.  ``check_sass`` confirms
with ``cuobjdump -sass`` that each kernel holds exactly one
LDS/STS/LDSM/STSM/LDGSTS of the expected width.

Nothing here imports CuPy or runs a process at import time.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import struct
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field

from layoutalg.banks.instruction import Instruction, parse_instruction
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError

LD_METRIC = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
ST_METRIC = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
LD_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
ST_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
LDGSTS_BYPASS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_bypass.sum"
LDGSTS_ACCESS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_access.sum"
ALL_SHARED = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
ATOM_METRIC = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"
ATOM_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"
DEFAULT_METRICS = (LD_METRIC, ST_METRIC, LD_CONFLICTS, ST_CONFLICTS, LDGSTS_BYPASS, LDGSTS_ACCESS, ALL_SHARED,
                   ATOM_METRIC, ATOM_CONFLICTS)

# kernel name -> (PTX body, expected SASS opcode regex)
_LD_BODIES = {
    1: ("u32 v; asm volatile(\"ld.shared.u8 %0, [%1];\" : \"=r\"(v) : \"r\"(a)); r = v;", r"LDS\.U8"),
    2: ("u32 v; asm volatile(\"ld.shared.u16 %0, [%1];\" : \"=r\"(v) : \"r\"(a)); r = v;", r"LDS\.U16"),
    4: ("u32 v; asm volatile(\"ld.shared.b32 %0, [%1];\" : \"=r\"(v) : \"r\"(a)); r = v;", r"LDS(?![.\w])"),
    8: ("u32 v0, v1; asm volatile(\"ld.shared.v2.b32 {%0, %1}, [%2];\" : \"=r\"(v0), \"=r\"(v1) : \"r\"(a));"
        " r = v0 ^ v1;", r"LDS\.64"),
    16: ("u32 v0, v1, v2, v3; asm volatile(\"ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\""
         " : \"=r\"(v0), \"=r\"(v1), \"=r\"(v2), \"=r\"(v3) : \"r\"(a)); r = v0 ^ v1 ^ v2 ^ v3;", r"LDS\.128"),
}
_ST_BODIES = {
    1: ("asm volatile(\"st.shared.u8 [%0], %1;\" :: \"r\"(a), \"h\"((unsigned short)t) : \"memory\");",
        r"STS\.U8"),
    2: ("asm volatile(\"st.shared.u16 [%0], %1;\" :: \"r\"(a), \"h\"((unsigned short)t) : \"memory\");",
        r"STS\.U16"),
    4: ("asm volatile(\"st.shared.b32 [%0], %1;\" :: \"r\"(a), \"r\"(t) : \"memory\");", r"STS(?![.\w])"),
    8: ("asm volatile(\"st.shared.v2.b32 [%0], {%1, %2};\" :: \"r\"(a), \"r\"(t), \"r\"(t + 1u) : \"memory\");",
        r"STS\.64"),
    16: ("asm volatile(\"st.shared.v4.b32 [%0], {%1, %2, %3, %4};\" :: \"r\"(a), \"r\"(t), \"r\"(t + 1u),"
         " \"r\"(t + 2u), \"r\"(t + 3u) : \"memory\");", r"STS\.128"),
}


def _matrix_body(kind: str, n: int, trans: bool) -> tuple[str, str]:
    t = ".trans" if trans else ""
    regs = ", ".join(f"%{i}" for i in range(n))
    if kind == "ldmatrix":
        outs = ", ".join(f"\"=r\"(v{i})" for i in range(n))
        decl = "u32 " + ", ".join(f"v{i}" for i in range(n)) + ";"
        body = (f"{decl} asm volatile(\"ldmatrix.sync.aligned.m8n8.x{n}{t}.shared.b16 {{{regs}}}, [%{n}];\""
                f" : {outs} : \"r\"(a)); r = " + " ^ ".join(f"v{i}" for i in range(n)) + ";")
        return body, rf"LDSM\.16\.{'MT' if trans else 'M'}88" + (rf"\.{n}" if n > 1 else "")
    ins = ", ".join(f"\"r\"(t + {i}u)" for i in range(n))
    regs = ", ".join(f"%{i + 1}" for i in range(n))
    body = (f"asm volatile(\"stmatrix.sync.aligned.m8n8.x{n}{t}.shared.b16 [%0], {{{regs}}};\""
            f" :: \"r\"(a), {ins} : \"memory\");")
    return body, rf"STSM\.16\.{'MT' if trans else 'M'}88" + (rf"\.{n}" if n > 1 else "")


INACTIVE = 0xFFFFFFFF
"""The shared offset that marks a lane inactive in a case file (masked cp.async kernels skip the copy)."""
ACTIVE_FLAG = 1
"""Masked ld/st kernels: lane ``t`` accesses only where its global slot ``goff[t]`` holds this flag (ld/st read
no global memory, so the slot is free); an inactive lane keeps its shared offset in its address register, so a
case can ask whether the hardware looks at inactive lanes' addresses (the pairing of rule 2)."""
MASKED = " (masked)"
"""Suffix of the kernel-table key of an instruction's masked kernel (lanes whose offset is INACTIVE do not copy)."""


def _cp_async_body(cache: str, size: int, masked: bool = False) -> tuple[str, str]:
    copy = (f"asm volatile(\"cp.async.{cache}.shared.global [%0], [%1], {size};\" :: \"r\"(a),"
            " \"l\"(src + goff[t]) : \"memory\");")
    if masked:
        copy = f"if (soff[t] != {INACTIVE}u) {{ {copy} }}"
    body = copy + " asm volatile(\"cp.async.wait_all;\" ::: \"memory\");"
    bits = "" if size == 4 else rf"\.{size * 8}"  # ptxas prints the 4-byte form without a size
    if cache == "cg":
        return body, rf"LDGSTS\.E\.BYPASS(\.LTC\w+)?{bits}"
    return body, rf"LDGSTS\.E(\.LTC\w+)?{bits}"


_VECTOR = {1: ("ld.shared.u8", "st.shared.u8", 1, "h"), 2: ("ld.shared.u16", "st.shared.u16", 1, "h"),
           4: ("ld.shared.b32", "st.shared.b32", 1, "r"), 8: ("ld.shared.v2.b32", "st.shared.v2.b32", 2, "r"),
           16: ("ld.shared.v4.b32", "st.shared.v4.b32", 4, "r")}


def _masked_ld_st_body(width: int, store: bool) -> str:
    """One ``@p ld/st.shared`` whose predicate ``p`` is set inside the same asm statement from the lane's flag.

    The address is an input of the asm, so every lane computes it (a C++ ``if`` let the compiler compute the
    address only under the predicate, leaving inactive lanes' address registers undefined).
    """
    load, store_op, count, kind = _VECTOR[width]
    regs = [f"%{i}" for i in range(count)]
    vec = regs[0] if count == 1 else "{" + ", ".join(regs) + "}"
    addr, flag = f"%{count}", f"%{count + 1}"
    guard = f"{{ .reg .pred p; setp.eq.u32 p, {flag}, {ACTIVE_FLAG};"
    if store:
        values = ", ".join(f"\"{kind}\"(({'unsigned short' if kind == 'h' else 'u32'})(t + {i}u))"
                           for i in range(count))
        return (f"asm volatile(\"{guard} @p {store_op} [{addr}], {vec}; }}\" :: {values}, \"r\"(a), "
                "\"r\"((u32)goff[t]) : \"memory\");")
    outs = ", ".join(f"\"+{kind}\"(v{i})" for i in range(count))
    decl = ("unsigned short" if kind == "h" else "u32") + " " + ", ".join(f"v{i} = 0" for i in range(count)) + ";"
    return (f"{decl} asm volatile(\"{guard} @p {load} {vec}, [{addr}]; }}\" : {outs} : \"r\"(a), "
            "\"r\"((u32)goff[t])); r = " + " ^ ".join(f"(u32)v{i}" for i in range(count)) + ";")


def _atomic_body(ptx: str, operands: str, wide: bool = False, masked: bool = False) -> str:
    """One ``atom``/``red`` on shared memory (its result folded into ``r``); ``operands`` follow the address
    (``%2`` is the lane's value).  ``masked``: run only by lanes whose ``goff`` slot holds ACTIVE_FLAG, the
    predicate set inside the asm as for masked ld/st."""
    red = ptx.startswith("red.")
    dest = "" if red else "%0, "
    addr, value, flag = ("%0", "%1", "%2") if red else ("%1", "%2", "%3")
    operands = operands.replace("%2", value)
    guard = f"{{ .reg .pred p; setp.eq.u32 p, {flag}, {ACTIVE_FLAG}; @p " if masked else ""
    asm = f"{guard}{ptx} {dest}[{addr}]{operands};" + (" }" if masked else "")
    inputs = "\"r\"(a), " + ("\"l\"((unsigned long long)t)" if wide else "\"r\"(t)")
    inputs += ", \"r\"((u32)goff[t])" if masked else ""
    if red:
        return f"asm volatile(\"{asm}\" :: {inputs} : \"memory\");"
    if wide:
        return (f"unsigned long long v = 0; asm volatile(\"{asm}\" : \"+l\"(v) : {inputs} : \"memory\"); "
                "r = (u32)v;")
    return f"asm volatile(\"{asm}\" : \"+r\"(r) : {inputs} : \"memory\");"


_RED_INC = "red.shared.add.u32 [%0], 1;"
ATOMICS: dict[str, tuple[str, str]] = {
    # instruction -> (kernel body, expected SASS opcode): the forms ptxas compiles to one ATOMS (an f32 or u64 add
    # becomes a CAS loop, so they are not probed); red.add of the constant 1 becomes ATOMS.POPC.INC
    "atom.shared.add.u32": (_atomic_body("atom.shared.add.u32", ", %2"), r"ATOMS\.ADD"),
    "atom.shared.exch.b32": (_atomic_body("atom.shared.exch.b32", ", %2"), r"ATOMS\.EXCH"),
    "atom.shared.cas.b32": (_atomic_body("atom.shared.cas.b32", ", %2, %2"), r"ATOMS\.CAS"),
    "atom.shared.min.s32": (_atomic_body("atom.shared.min.s32", ", %2"), r"ATOMS\.MIN\.S32"),
    "atom.shared.inc.u32": (_atomic_body("atom.shared.inc.u32", ", %2"), r"ATOMS\.INC"),
    "red.shared.add.u32": (f"asm volatile(\"{_RED_INC}\" :: \"r\"(a) : \"memory\");", r"ATOMS\.POPC\.INC\.32"),
    "red.shared.add.u32 (by lane)": (_atomic_body("red.shared.add.u32", ", %2"), r"ATOMS\.ADD"),
    "atom.shared.exch.b64": (_atomic_body("atom.shared.exch.b64", ", %2", wide=True), r"ATOMS\.EXCH\.64"),
    "atom.shared.cas.b64": (_atomic_body("atom.shared.cas.b64", ", %2, %2", wide=True), r"ATOMS\.CAS\.64"),
    # round 9b (a holdout for rule 6): operations not probed in round 9, and partial warps
    "atom.shared.max.u32": (_atomic_body("atom.shared.max.u32", ", %2"), r"ATOMS\.MAX"),
    "atom.shared.dec.u32": (_atomic_body("atom.shared.dec.u32", ", %2"), r"ATOMS\.DEC"),
    "atom.shared.xor.b32": (_atomic_body("atom.shared.xor.b32", ", %2"), r"ATOMS\.XOR"),
    "atom.shared.add.s32": (_atomic_body("atom.shared.add.s32", ", %2"), r"ATOMS\.ADD\.S32"),
    "red.shared.or.b32": (_atomic_body("red.shared.or.b32", ", %2"), r"ATOMS\.OR"),
    "red.shared.add.s32 (of 1)": ("asm volatile(\"red.shared.add.s32 [%0], 1;\" :: \"r\"(a) : \"memory\");",
                                  r"ATOMS\.ADD\.S32"),
    "atom.shared.add.u32" + MASKED: (_atomic_body("atom.shared.add.u32", ", %2", masked=True), r"ATOMS\.ADD"),
    "atom.shared.cas.b32" + MASKED: (_atomic_body("atom.shared.cas.b32", ", %2, %2", masked=True), r"ATOMS\.CAS"),
    "atom.shared.exch.b64" + MASKED: (_atomic_body("atom.shared.exch.b64", ", %2", wide=True, masked=True),
                                      r"ATOMS\.EXCH\.64"),
    "red.shared.add.u32" + MASKED: ("asm volatile(\"{ .reg .pred p; setp.eq.u32 p, %1, 1; @p red.shared.add.u32 "
                                    "[%0], 1; }\" :: \"r\"(a), \"r\"((u32)goff[t]) : \"memory\");",
                                    r"ATOMS\.POPC\.INC\.32"),
}
"""Shared-memory atomics probed for the bank model (appended to the kernel table, so earlier ids stay)."""
ATOMIC_MODEL_TEXT = {"red.shared.add.u32": "red.shared.add.u32, 1", "red.shared.add.u32 (by lane)": "red.shared.add.u32",
                     "red.shared.add.s32 (of 1)": "red.shared.add.s32, 1"}
"""The bank model's instruction text of the probes whose name is not it (the added value decides the SASS)."""


def kernel_table() -> dict[str, tuple[str, str]]:
    """Canonical instruction -> (kernel body, expected SASS opcode regex) for every measurable access."""
    table: dict[str, tuple[str, str]] = {}
    for width, body in _LD_BODIES.items():
        table[parse_instruction(f"ld.shared.{_width_type(width)}").canonical] = body
    for width, body in _ST_BODIES.items():
        table[parse_instruction(f"st.shared.{_width_type(width)}").canonical] = body
    for kind in ("ldmatrix", "stmatrix"):
        for n in (1, 2, 4):
            for trans in (False, True):
                ins = parse_instruction(f"{kind}.sync.aligned.m8n8.x{n}{'.trans' if trans else ''}.shared.b16")
                table[ins.canonical] = _matrix_body(kind, n, trans)
    table[parse_instruction("cp.async.cg.shared.global").canonical] = _cp_async_body("cg", 16)
    for size in (4, 8, 16):
        table[parse_instruction(f"cp.async.ca.shared.global, {size}").canonical] = _cp_async_body("ca", size)
    # partial warps: the same copies, skipped by lanes marked INACTIVE (appended, so earlier ids are unchanged)
    table[parse_instruction("cp.async.cg.shared.global").canonical + MASKED] = _cp_async_body("cg", 16, True)
    for size in (4, 8, 16):
        table[parse_instruction(f"cp.async.ca.shared.global, {size}").canonical + MASKED] = _cp_async_body(
            "ca", size, True)
    # partial warps of ld/st (appended after the cp.async ones, so every earlier id is unchanged)
    for width, (_, pat) in _LD_BODIES.items():
        table[parse_instruction(f"ld.shared.{_width_type(width)}").canonical + MASKED] = (
            _masked_ld_st_body(width, store=False), pat)
    for width, (_, pat) in _ST_BODIES.items():
        table[parse_instruction(f"st.shared.{_width_type(width)}").canonical + MASKED] = (
            _masked_ld_st_body(width, store=True), pat)
    table.update(ATOMICS)
    return table


def _width_type(width: int) -> str:
    return {1: "u8", 2: "u16", 4: "b32", 8: "v2.b32", 16: "v4.b32"}[width]


def _kernel_name(canonical: str) -> str:
    return "k_" + re.sub(r"[^A-Za-z0-9]+", "_", canonical).strip("_")


def cuda_source() -> str:
    """The CUDA C++ translation unit: one kernel per canonical instruction plus the host driver."""
    table = kernel_table()
    parts = [
        "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <vector>\n",
        "typedef unsigned u32;\n",
        "#define SMEM_BYTES (227 * 1024)\n",
    ]
    names = []
    for canonical, (body, _) in table.items():
        name = _kernel_name(canonical)
        names.append(name)
        parts.append(
            f'extern "C" __global__ void {name}(const u32* __restrict__ soff, const unsigned long long* '
            "__restrict__ goff, const unsigned char* __restrict__ src, u32* out) {\n"
            "  extern __shared__ __align__(1024) unsigned char smem[];\n"
            "  u32 t = threadIdx.x;\n"
            "  u32 a = (u32)__cvta_generic_to_shared(smem) + soff[t];\n"
            "  u32 r = 0u;\n"
            f"  {body}\n"
            "  out[t] = r; if (t == 0) out[32] = (u32)__cvta_generic_to_shared(smem);\n"
            "}\n"
        )
    table_init = ", ".join(f"(const void*){n}" for n in names)
    parts.append(
        "static const void* KERNELS[] = {" + table_init + "};\n"
        "int main(int argc, char** argv) {\n"
        "  if (argc < 2) { fprintf(stderr, \"usage: prog cases.bin\\n\"); return 2; }\n"
        "  FILE* f = fopen(argv[1], \"rb\"); if (!f) { perror(\"cases\"); return 2; }\n"
        "  std::vector<unsigned char> buf; unsigned char tmp[65536]; size_t k;\n"
        "  while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) buf.insert(buf.end(), tmp, tmp + k);\n"
        "  fclose(f);\n"
        "  const size_t rec = 4 + 32 * 4 + 32 * 8; size_t n = buf.size() / rec;\n"
        "  std::vector<u32> ids(n), soff(n * 32); std::vector<unsigned long long> goff(n * 32);\n"
        "  for (size_t i = 0; i < n; ++i) { const unsigned char* p = buf.data() + i * rec;\n"
        "    memcpy(&ids[i], p, 4); memcpy(&soff[i * 32], p + 4, 128); memcpy(&goff[i * 32], p + 132, 256); }\n"
        "  u32 *dsoff, *dout; unsigned long long* dgoff; unsigned char* dsrc;\n"
        "  cudaMalloc(&dsoff, n * 128); cudaMalloc(&dgoff, n * 256); cudaMalloc(&dout, 33 * 4);\n"
        "  cudaMalloc(&dsrc, 1 << 24); cudaMemset(dsrc, 1, 1 << 24);\n"
        "  cudaMemcpy(dsoff, soff.data(), n * 128, cudaMemcpyHostToDevice);\n"
        "  cudaMemcpy(dgoff, goff.data(), n * 256, cudaMemcpyHostToDevice);\n"
        "  const int nk = sizeof(KERNELS) / sizeof(KERNELS[0]);\n"
        "  for (int j = 0; j < nk; ++j) cudaFuncSetAttribute(KERNELS[j],"
        " cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);\n"
        "  for (size_t i = 0; i < n; ++i) {\n"
        "    if (ids[i] >= (u32)nk) { fprintf(stderr, \"bad kernel id\\n\"); return 3; }\n"
        "    const u32* a0 = dsoff + i * 32; const unsigned long long* a1 = dgoff + i * 32;\n"
        "    void* args[] = {(void*)&a0, (void*)&a1, (void*)&dsrc, (void*)&dout};\n"
        "    cudaError_t e = cudaLaunchKernel(KERNELS[ids[i]], dim3(1), dim3(32), args, SMEM_BYTES, 0);\n"
        "    if (e == cudaSuccess) e = cudaDeviceSynchronize();\n"
        "    if (e != cudaSuccess) { fprintf(stderr, \"case %zu: %s\\n\", i, cudaGetErrorString(e)); return 4; }\n"
        "  }\n"
        "  u32 base; cudaMemcpy(&base, dout + 32, 4, cudaMemcpyDeviceToHost);\n"
        "  fprintf(stderr, \"smem base %u, %zu launches\\n\", base, n);\n"
        "  return 0;\n}\n"
    )
    return "".join(parts)


@dataclass(frozen=True)
class Case:
    """One launch: an instruction, 32 shared-memory byte offsets, and (cp.async) 32 global byte offsets.

    ``active`` (cp.async, ld, st: not ldmatrix/stmatrix, whose ``.sync.aligned`` needs the whole warp): which
    lanes access; a case with a mask (even an all-True one, as a control) runs the instruction's masked kernel,
    whose inactive lanes skip the access.  A masked cp.async marks an inactive lane by INACTIVE in its shared
    offset; a masked ld/st keeps every lane's shared offset (inactive lanes still compute their address) and
    passes the mask in the global slots (ACTIVE_FLAG).
    """

    name: str
    instruction: str
    lane_byte_addresses: tuple[int, ...]
    global_byte_addresses: tuple[int, ...] | None = None
    tags: tuple[str, ...] = field(default=())
    active: tuple[bool, ...] | None = None

    @property
    def masked(self) -> bool:
        return self.active is not None


def _table_key(case: Case) -> str:
    """The case's kernel-table key: its canonical instruction (an atomic: its text), masked or not."""
    if case.instruction in ATOMICS:
        key = case.instruction + (MASKED if case.active is not None else "")
        if len(case.lane_byte_addresses) != 32 or key not in ATOMICS:
            raise LayoutError(f"case {describe(case.name)}: an atomic probe needs 32 lane addresses (and a masked kernel "
                              "for a mask)")
        return key
    ins = _canonical(case)
    return ins.canonical + (MASKED if case.masked else "")


def _canonical(case: Case) -> Instruction:
    ins = parse_instruction(case.instruction)
    if len(case.lane_byte_addresses) != 32:
        raise LayoutError(f"case {describe(case.name)}: needs 32 lane addresses, got {len(case.lane_byte_addresses)}")
    if case.active is not None and (len(case.active) != 32 or ins.matrices):
        raise LayoutError(f"case {describe(case.name)}: an active mask needs 32 lanes and a cp.async, ld or st "
                          "(ldmatrix/stmatrix need the whole warp)")
    return ins


def write_cases(cases: Sequence[Case], path: str) -> None:
    """Binary case file for the host driver: per case u32 kernel id, 32 u32 smem offsets, 32 u64 global offsets."""
    names = list(kernel_table())
    with open(path, "wb") as fh:
        for case in cases:
            key = _table_key(case)
            goff = case.global_byte_addresses or tuple(16 * i for i in range(32))
            soff = case.lane_byte_addresses
            if case.active is not None and key.startswith("cp.async"):
                soff = tuple(s if on else INACTIVE for s, on in zip(soff, case.active))
            elif case.active is not None:
                goff = tuple(ACTIVE_FLAG if on else 0 for on in case.active)
            fh.write(struct.pack("<I", names.index(key)))
            fh.write(struct.pack("<32I", *soff))
            fh.write(struct.pack("<32Q", *goff))


def build(workdir: str, nvcc: str = "nvcc", arch: str = "sm_90") -> str:
    """Compile the driver into ``workdir``; returns the executable's path."""
    import subprocess

    src = os.path.join(workdir, "smem_probe.cu")
    exe = os.path.join(workdir, "smem_probe")
    with open(src, "w") as fh:
        fh.write(cuda_source())
    subprocess.run([nvcc, "-O3", f"-arch={arch}", "-o", exe, src], check=True)
    return exe


def check_sass(exe: str, cuobjdump: str = "cuobjdump") -> dict[str, dict[str, object]]:
    """Per kernel: the shared-memory opcodes in its SASS and whether they are exactly the one expected."""
    import subprocess

    text = subprocess.run([cuobjdump, "-sass", exe], check=True, capture_output=True, text=True).stdout
    expected = {_kernel_name(c): pat for c, (_, pat) in kernel_table().items()}
    report: dict[str, dict[str, object]] = {}
    for block in re.split(r"\n\s*Function : ", text)[1:]:
        name = block.split("\n", 1)[0].strip()
        # '@!PT LDS RZ, [RZ]' is a never-executed placeholder ptxas emits around cp.async.wait_all
        live = "\n".join(line for line in block.splitlines() if "@!PT" not in line)
        ops = re.findall(r"\b(LDS[\w.]*|STS[\w.]*|LDSM[\w.]*|STSM[\w.]*|LDGSTS[\w.]*|ATOMS[\w.]*)\b", live)
        pat = expected.get(name)
        ok = pat is not None and len(ops) == 1 and re.fullmatch(pat, ops[0]) is not None
        report[name] = {"opcodes": ops, "ok": ok}
    return report


def available_metrics(ncu: str = "ncu", wanted: Sequence[str] = DEFAULT_METRICS) -> list[str]:
    """The metrics of ``wanted`` that this ncu knows for the current GPU."""
    import subprocess

    out = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True).stdout
    names = set(re.findall(r"^(\S+)", out, flags=re.M))
    return [m for m in wanted if m.rsplit(".", 1)[0] in names]


def run_ncu(exe: str, cases_path: str, metrics: Sequence[str], ncu: str = "ncu",
            log_path: str | None = None) -> list[dict[str, float]]:
    """Profile every launch of ``exe cases_path``; one dict metric -> value per launch, in launch order."""
    import subprocess

    log_path = log_path or cases_path + ".csv"
    cmd = [ncu, "--metrics", ",".join(metrics), "--csv", "--page", "raw", "--print-units", "base",
           "--clock-control", "none", "--log-file", log_path, exe, cases_path]
    subprocess.run(cmd, check=True)
    with open(log_path) as fh:
        return parse_ncu_csv(fh.read(), metrics)


def parse_ncu_csv(text: str, metrics: Sequence[str]) -> list[dict[str, float]]:
    """The rows of ``ncu --csv --page raw`` output (any preamble skipped): metric -> value per kernel launch.

    A metric ncu reports as empty or ``n/a`` is -1.0; thousands separators are dropped.
    """
    start = text.find('"ID"')
    if start < 0:
        raise RuntimeError(f"no CSV in ncu output: {text[:2000]}")
    rows = list(csv.reader(io.StringIO(text[start:])))
    header = rows[0]
    results = []
    for row in rows[1:]:
        if not row or not row[0].strip().isdigit():
            continue
        rec = dict(zip(header, row))
        results.append({m: float(rec[m].replace(",", "")) if rec.get(m, "").strip() not in ("", "n/a") else -1.0
                        for m in metrics if m in rec})
    return results


def measure(cases: Sequence[Case], workdir: str | None = None, ncu: str = "ncu", nvcc: str = "nvcc",
            metrics: Sequence[str] | None = None, exe: str | None = None) -> list[dict[str, object]]:
    """Build (unless ``exe``), profile every case, and return one record per case with the raw metrics.

    Each record holds ``name, instruction, lane_byte_addresses, global_byte_addresses, metrics`` and
    ``wavefronts``: the ld/st counter for ld/st/ldmatrix/stmatrix and the ldgsts counter for cp.async.
    """
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="smem_probe_")
    try:
        exe = exe or build(workdir, nvcc=nvcc)
        metrics = list(metrics or available_metrics(ncu))
        path = os.path.join(workdir, "cases.bin")
        write_cases(cases, path)
        values = run_ncu(exe, path, metrics, ncu=ncu)
        if len(values) != len(cases):
            raise RuntimeError(f"ncu reported {len(values)} launches for {len(cases)} cases")
        out: list[dict[str, object]] = []
        for case, vals in zip(cases, values):
            if case.instruction in ATOMICS:
                key = ATOM_METRIC
            elif (ins := parse_instruction(case.instruction)).kind == "cp.async":
                key = LDGSTS_BYPASS if ins.cache == "cg" else LDGSTS_ACCESS
            else:
                key = ST_METRIC if ins.is_store else LD_METRIC
            out.append({
                "name": case.name,
                "instruction": case.instruction,
                "lane_byte_addresses": list(case.lane_byte_addresses),
                "global_byte_addresses": list(case.global_byte_addresses) if case.global_byte_addresses else None,
                "tags": list(case.tags),
                **({"active": list(case.active)} if case.active is not None else {}),
                "wavefronts": int(vals[key]) if key in vals else None,
                "metrics": vals,
            })
        return out
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)

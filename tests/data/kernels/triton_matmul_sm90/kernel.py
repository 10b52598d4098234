"""Triton tl.dot matmul (the tutorial's blocked form, no grouping): C = A @ B, f16 in, f32 acc, f16 out.

A: M x K row-major, B: K x N row-major, C: M x N row-major; one program per 64 x 64 tile of C,
pid = pid_m * (N / 64) + pid_n.  Compiled CPU-only for an explicit target:

    python kernel.py OUT_DIR [--arch 80|90]

writes OUT_DIR/kernel.ptx and OUT_DIR/triton_meta.json (entry name, shared bytes, warps, scratch).
"""

from __future__ import annotations

import json
import os
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16))


SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
             "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
             "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
OPTIONS = {"num_warps": 4, "num_stages": 3}


def compile_kernel(arch: int):
    """Compile for sm_<arch> without a GPU; every pointer and integer is marked 16-divisible."""
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(9)}
    src = ASTSource(matmul_kernel, SIGNATURE, constexprs=CONSTEXPRS, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", arch, 32), options=OPTIONS)


def main(argv: list[str]) -> int:
    out = argv[1]
    arch = int(argv[argv.index("--arch") + 1]) if "--arch" in argv else 80
    k = compile_kernel(arch)
    with open(os.path.join(out, "kernel.ptx"), "w") as fh:
        fh.write(k.asm["ptx"])
    md = k.metadata
    meta = {"name": md.name, "shared": md.shared, "num_warps": md.num_warps, "arch": arch,
            "global_scratch_size": md.global_scratch_size, "global_scratch_align": md.global_scratch_align,
            "profile_scratch_size": md.profile_scratch_size, "triton_version": triton.__version__}
    with open(os.path.join(out, "triton_meta.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Triton tl.dot matmul through device-side tensor descriptors (Hopper: TMA loads and stores, wgmma).

C = A @ B, f16 in, f32 acc, f16 out; A: M x K, B: K x N, C: M x N, all row-major and contiguous.
One program per 64 x 64 tile of C, pid = pid_m * (N / 64) + pid_n.  The descriptors are built on the
device in the global scratch buffer (the kernel's second-to-last parameter: global_scratch_size
bytes per program).  Compiled CPU-only:

    python kernel.py OUT_DIR [--arch 90]
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
def matmul_tma_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
             "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
OPTIONS = {"num_warps": 4, "num_stages": 3}


def compile_kernel(arch: int):
    """Compile for sm_<arch> (90 gives sm_90a) without a GPU; pointers and sizes marked 16-divisible."""
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(6)}
    src = ASTSource(matmul_tma_kernel, SIGNATURE, constexprs=CONSTEXPRS, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", arch, 32), options=OPTIONS)


def main(argv: list[str]) -> int:
    out = argv[1]
    arch = int(argv[argv.index("--arch") + 1]) if "--arch" in argv else 90
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

"""Fresh Triton matmuls for the data-flow check (compiled CPU-only for an explicit target; PTX committed).

    python tests/data/kernels_fresh/triton/build_triton.py

Unlike the corpus's Triton matmul: the tutorial's masked form (M, N, K not multiples of the block: masked
loads with other=0, masked store), grouped program order, B given by two strides (column-major B),
bf16, and a tf32 dot on f32 inputs.  Writes NAME.ptx.gz and triton.json (entry, shared bytes, warps, launch).
"""

from __future__ import annotations

import json
import os
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from build import gzip_ptx  # noqa: E402  (tests/data/kernels_fresh/build.py)


@triton.jit
def masked_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  TF32: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * num_pid_n
    first_m = (pid // group) * GROUP_M
    size_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % group) % size_m)
    pid_n = (pid % group) // size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kmask = offs_k < K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & kmask[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=kmask[:, None] & (offs_n[None, :] < N), other=0.0)
        if TF32:
            acc = tl.dot(a, b, acc, input_precision="tf32")
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def blocks(name: str) -> dict:
    return {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32 if "tf32" not in name else 16, "GROUP_M": 2,
            "TF32": "tf32" in name}


#: name -> (element type, arch, warps, stages, M, N, K, B column-major)
KERNELS = {
    "t1_f16_masked_grouped_sm80": ("fp16", 80, 4, 3, 72, 80, 56, False),
    "t2_bf16_colmajor_b_sm80": ("bf16", 80, 4, 2, 64, 64, 96, True),
    "t3_tf32_masked_sm80": ("fp32", 80, 4, 2, 40, 48, 40, False),
}


def compile_one(name: str) -> dict:
    ty, arch, warps, stages, m, n, k, colb = KERNELS[name]
    sig = {"a_ptr": f"*{ty}", "b_ptr": f"*{ty}", "c_ptr": f"*{ty}" if ty != "fp32" else "*fp32"}
    sig.update({x: "i32" for x in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm")})
    sig.update({x: "constexpr" for x in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "TF32")})
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(3)}
    src = ASTSource(masked_matmul, sig, constexprs=blocks(name), attrs=attrs)
    compiled = triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"num_warps": warps,
                                                                                  "num_stages": stages})
    with open(os.path.join(HERE, name + ".ptx"), "w") as fh:
        fh.write(compiled.asm["ptx"])
    gzip_ptx(os.path.join(HERE, name + ".ptx"))
    md = compiled.metadata
    bm, bn = 32, 32
    grid = -(-m // bm) * -(-n // bn)
    strides = (k, 1, 1, k, n) if colb else (k, 1, n, 1, n)
    args = {"3": m, "4": n, "5": k, **{str(6 + i): s for i, s in enumerate(strides)}}
    b = f"1@({k},{n}):(1,{k})" if colb else f"1@({k},{n}):({n},1)"
    return {"kernel": md.name, "shared": md.shared, "warps": md.num_warps, "grid": [grid, 1, 1],
            "block": [32 * md.num_warps, 1, 1], "args": args, "dynamic_smem": md.shared,
            "check_mma": [f"A=0@({m},{k}):({k},1)", f"B={b}", f"C=2@({m},{n}):({n},1)"],
            "triton": triton.__version__}


def main() -> int:
    out = {name: compile_one(name) for name in KERNELS if len(sys.argv) < 2 or name in sys.argv[1:]}
    path = os.path.join(HERE, "triton.json")
    old = json.load(open(path)) if os.path.exists(path) else {}
    old.update(out)
    with open(path, "w") as fh:
        json.dump(old, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

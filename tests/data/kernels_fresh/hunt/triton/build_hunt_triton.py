"""Hunt Triton kernels (compiled CPU-only for an explicit target; PTX committed, hunt_triton.json the launches).

    python tests/data/kernels_fresh/hunt/triton/build_hunt_triton.py

A batched matmul whose A is stored K x M and transposed in the kernel (tl.trans), f32 and f16 accumulators
(``out_dtype``), sm_80, and sm_90 with 2 warps and a 16-row block (mma.sync, no wgmma).  The check runs one
batch (grid z = 1): a batch is no GEMM of the check's A (M x K), B (K x N), C (M x N).
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
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from build import gzip_ptx  # noqa: E402  (tests/data/kernels_fresh/build.py)


@triton.jit
def bmm_at(a_ptr, b_ptr, c_ptr, M, N, K, s_ab, s_bb, s_cb, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           F16ACC: tl.constexpr):
    # C[z] = A[z]^T-stored (A kept K x M: A(m, k) at k*M + m) @ B[z] (K x N row-major)
    pm, pn, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    om = pm * BM + tl.arange(0, BM)
    on = pn * BN + tl.arange(0, BN)
    ok = tl.arange(0, BK)
    a_ptrs = a_ptr + z * s_ab + ok[:, None] * M + om[None, :]       # BK x BM
    b_ptrs = b_ptr + z * s_bb + ok[:, None] * N + on[None, :]
    if F16ACC:
        acc = tl.zeros((BM, BN), dtype=tl.float16)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _k in range(0, K, BK):
        at = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        if F16ACC:
            acc = tl.dot(tl.trans(at), b, acc, out_dtype=tl.float16)
        else:
            acc = tl.dot(tl.trans(at), b, acc)
        a_ptrs += BK * M
        b_ptrs += BK * N
    tl.store(c_ptr + z * s_cb + om[:, None] * N + on[None, :], acc.to(c_ptr.dtype.element_ty))


#: name: (fn, types, arch, warps, stages, M, N, K, Z, blocks)
KERNELS = {
    "tt1_f16_bmm_at_sm80": ("bmm_at", "fp16", "fp32", 80, 4, 3, 64, 64, 128, 2,
                            dict(BM=32, BN=64, BK=32, F16ACC=False)),
    "tt2_f16_bmm_at_f16acc_sm80": ("bmm_at", "fp16", "fp16", 80, 4, 2, 64, 64, 64, 2,
                                   dict(BM=64, BN=32, BK=16, F16ACC=True)),
    "tt3_bf16_bmm_at_sm90_2warps": ("bmm_at", "bf16", "fp32", 90, 2, 3, 32, 64, 96, 1,
                                    dict(BM=16, BN=32, BK=32, F16ACC=False)),
}


def compile_one(name: str) -> dict:
    fn, ty, cty, arch, warps, stages, m, n, k, z, blocks = KERNELS[name]
    f = {"bmm_at": bmm_at}[fn]
    sig = {"a_ptr": f"*{ty}", "b_ptr": f"*{ty}", "c_ptr": f"*{cty}", "M": "i32", "N": "i32", "K": "i32"}
    sig.update({"s_ab": "i32", "s_bb": "i32", "s_cb": "i32"})
    sig.update({x: "constexpr" for x in blocks})
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(3)}
    src = ASTSource(f, sig, constexprs=blocks, attrs=attrs)
    c = triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"num_warps": warps, "num_stages": stages})
    with open(os.path.join(HERE, name + ".ptx"), "w") as fh:
        fh.write(c.asm["ptx"])
    gzip_ptx(os.path.join(HERE, name + ".ptx"))
    md = c.metadata
    grid = [m // blocks["BM"], n // blocks["BN"], 1]
    args = {"3": m, "4": n, "5": k, "6": m * k, "7": k * n, "8": m * n}
    a, b, cc = f"0@({m},{k}):(1,{m})", f"1@({k},{n}):({n},1)", f"2@({m},{n}):({n},1)"
    return {"kernel": md.name, "warps": md.num_warps, "grid": grid, "block": [32 * md.num_warps, 1, 1],
            "args": args, "dynamic_smem": md.shared, "check_mma": [f"A={a}", f"B={b}", f"C={cc}"],
            "has_wgmma": "wgmma" in c.asm["ptx"], "triton": triton.__version__}


if __name__ == "__main__":
    out = {name: compile_one(name) for name in KERNELS}
    with open(os.path.join(HERE, "hunt_triton.json"), "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")

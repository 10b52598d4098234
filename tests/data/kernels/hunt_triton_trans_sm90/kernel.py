"""Fresh Triton kernels for the kernel-layer hunt, compiled CPU-only for an explicit target:

    python kernel.py OUT_DIR --arch 80|90 --kind layernorm|trans|attn

- layernorm: one program per row of n_cols (masked to BLOCK 1024, 8 warps): mean and variance as
  block reductions through shared memory, y = (x - mean) * rstd * w + b (f32).
- trans: out = in^T on 64x64 f16 tiles through tl.trans (a layout conversion through shared memory).
- attn: one program per 64-row block of Q: S = Q K^T (64x64x64 f16 dot), row softmax, O = P V
  (f16 dots, f32 accumulate), f16 out; one K/V block (seq 64).
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
def layernorm_kernel(y_ptr, x_ptr, w_ptr, b_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + offs, d * rstd * w + b, mask=mask)


@triton.jit
def trans_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK + tl.arange(0, BLOCK)
    rn = pid_n * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(in_ptr + rm[:, None] * n + rn[None, :])
    tl.store(out_ptr + rn[:, None] * n + rm[None, :], tl.trans(x))


@triton.jit
def attn_kernel(o_ptr, q_ptr, k_ptr, v_ptr, scale, D: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rm = pid * BLOCK + tl.arange(0, BLOCK)
    rn = tl.arange(0, BLOCK)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    k = tl.load(k_ptr + rn[:, None] * D + rd[None, :])
    v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])
    s = tl.dot(q, tl.trans(k)) * scale
    p = tl.exp(s - tl.max(s, axis=1)[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    o = tl.dot(p.to(tl.float16), v)
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], o.to(tl.float16))


KINDS = {
    "layernorm": (layernorm_kernel, {"y_ptr": "*fp32", "x_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                                     "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"}, {"BLOCK": 1024}, 4, 8),
    "trans": (trans_kernel, {"out_ptr": "*fp16", "in_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"},
              {"BLOCK": 64}, 2, 4),
    "attn": (attn_kernel, {"o_ptr": "*fp16", "q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "scale": "fp32",
                           "D": "constexpr", "BLOCK": "constexpr"}, {"D": 64, "BLOCK": 64}, 4, 4),
}


def compile_kernel(kind: str, arch: int):
    """Compile one kind for sm_<arch> without a GPU; pointers marked 16-divisible."""
    fn, sig, consts, nptr, warps = KINDS[kind]
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(nptr)}
    src = ASTSource(fn, sig, constexprs=consts, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"num_warps": warps, "num_stages": 1})


def main(argv: list[str]) -> int:
    out = argv[1]
    arch = int(argv[argv.index("--arch") + 1]) if "--arch" in argv else 80
    kind = argv[argv.index("--kind") + 1] if "--kind" in argv else "layernorm"
    k = compile_kernel(kind, arch)
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

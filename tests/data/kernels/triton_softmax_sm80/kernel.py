"""Triton fused row softmax (the tutorial's kernel): out[r, :] = softmax(in[r, :]) over n_cols columns.

One program per row; BLOCK (a power of two >= n_cols) lanes of the row, masked past n_cols; the max
and the sum are block reductions that go through shared memory across the warps.  f32 in and out,
rows of in_row_stride / out_row_stride elements.  Compiled CPU-only:

    python kernel.py OUT_DIR [--arch 80|90]
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
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_row_stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + offs, y, mask=mask)


SIGNATURE = {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32", "out_row_stride": "i32",
             "n_cols": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 256}
OPTIONS = {"num_warps": 4, "num_stages": 1}


def compile_kernel(arch: int):
    """Compile for sm_<arch> without a GPU; pointers and row strides marked 16-divisible."""
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(4)}
    src = ASTSource(softmax_kernel, SIGNATURE, constexprs=CONSTEXPRS, attrs=attrs)
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

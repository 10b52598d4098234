"""Rebuild the PTX of the hand-written GEMM variants in this folder (needs nvcc; the tests only read the PTX).

    python tests/data/dataflow/build_variants.py

Each variant is tools/kernel_corpus/hw_mma.cu compiled with ``nvcc -ptx -lineinfo -arch=sm_90 -std=c++17`` and
the macros of variants.json; the ``x_`` variants first apply one of the source edits below (planted bugs the
corpus does not have: a short k-loop, a doubled k step, a missing end-of-loop barrier, accumulators that start
at 1.0).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "..", "tools", "kernel_corpus", "hw_mma.cu")
EDITS = {
    "x_xb_skip_last": ("for (int k0 = 0; k0 < K; k0 += BK) {", "for (int k0 = 0; k0 < K - BK; k0 += BK) {"),
    "x_xb_double_k": ("for (int kk = 0; kk < BK; kk += 16) {",
                      "for (int kk = 0; kk < BK; kk += 8) { if (kk % 16 && kk + 16 > BK) break;"),
    "x_xb_no_tail_sync": ("    __syncthreads();\n  }\n", "  }\n"),
    "x_init_one": ("acc[mi][ni][r] = 0.f;", "acc[mi][ni][r] = 1.f;"),
}


def main() -> None:
    with open(os.path.join(HERE, "variants.json")) as fh:
        variants = json.load(fh)
    text = open(SOURCE).read()
    for name, meta in variants.items():
        src = text
        if name in EDITS:
            old, new = EDITS[name]
            assert old in src, name
            src = src.replace(old, new, 1)
        macros = [m for m in meta["built_from"].split()[1:] if m.isupper() or "=" in m]
        with tempfile.TemporaryDirectory() as tmp:
            cu, ptx = os.path.join(tmp, "k.cu"), os.path.join(tmp, "k.ptx")
            open(cu, "w").write(src)
            subprocess.run(["nvcc", "-ptx", "-lineinfo", "-arch=sm_90", "-std=c++17", f"-DKERNEL_NAME={name}",
                            *[f"-D{m}" for m in macros], cu, "-o", ptx], check=True)
            with open(ptx, "rb") as fin, gzip.GzipFile(os.path.join(HERE, name + ".ptx.gz"), "wb", mtime=0) as fout:
                fout.write(fin.read())


if __name__ == "__main__":
    main()

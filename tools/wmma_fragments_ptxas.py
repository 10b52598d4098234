"""Record which fragment vector lengths ptxas accepts for every ``wmma.load`` / ``wmma.store`` form.

Run where ``ptxas`` is installed: ``python3 tools/wmma_fragments_ptxas.py > tests/data/wmma_fragments_ptxas.json``.
For each fragment (``a``, ``b``, ``c`` loads, ``d`` stores), shape, element type and layout of the PTX ISA's
wmma tables (9.7.14.4.1 "Matrix Fragments for WMMA") it tries vectors of 1, 2, 4, 8 and 16 registers (``.b32``;
``.f64`` for f64) in a one-instruction sm_90 kernel on shared memory and lists the lengths ptxas accepts.
``tests/test_kernel_interp_wmma_fragments.py`` replays the table against layoutalg.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

MULTIPLICANDS = {"m16n16k16": ("f16", "bf16", "s8", "u8"), "m8n32k16": ("f16", "bf16", "s8", "u8"),
                 "m32n8k16": ("f16", "bf16", "s8", "u8"), "m16n16k8": ("tf32",), "m8n8k4": ("f64",),
                 "m8n8k32": ("s4", "u4"), "m8n8k128": ("b1",)}
ACCUMULATORS = {"m16n16k16": ("f16", "f32", "s32"), "m8n32k16": ("f16", "f32", "s32"),
                "m32n8k16": ("f16", "f32", "s32"), "m16n16k8": ("f32",), "m8n8k4": ("f64",),
                "m8n8k32": ("s32",), "m8n8k128": ("s32",)}
LENGTHS = (1, 2, 4, 8, 16)
KERNEL = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{{
.reg .b32 %r<16>;
.reg .b64 %rd<2>;
.reg .f64 %fd<16>;
.shared .align 16 .b8 tile[8192];
mov.u64 %rd1, tile;
{body}
ret;
}}
"""


def statement(fragment: str, shape: str, dtype: str, layout: str, n: int) -> str:
    reg = "%fd" if dtype == "f64" else "%r"
    vec = "{" + ", ".join(f"{reg}{i}" for i in range(n)) + "}"
    if fragment == "d":
        return f"wmma.store.d.sync.aligned.{layout}.{shape}.shared.{dtype} [%rd1], {vec}, 16;"
    return f"wmma.load.{fragment}.sync.aligned.{layout}.{shape}.shared.{dtype} {vec}, [%rd1], 16;"


def accepts(text: str, folder: str) -> bool:
    path = os.path.join(folder, "k.ptx")
    with open(path, "w") as f:
        f.write(text)
    done = subprocess.run(["ptxas", "-arch=sm_90", path, "-o", os.path.join(folder, "k.cubin")],
                          capture_output=True, text=True)
    return done.returncode == 0


def forms() -> list[tuple[str, str, str]]:
    out = [(f, s, t) for s, ts in MULTIPLICANDS.items() for t in ts for f in ("a", "b")]
    return out + [(f, s, t) for s, ts in ACCUMULATORS.items() for t in ts for f in ("c", "d")]


def main() -> None:
    banner = subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    version = " ".join(banner[-2:])  # "Cuda compilation tools, release X, VX.Y.Z Build ..."
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for fragment, shape, dtype in forms():
            for layout in ("row", "col"):
                ok = [n for n in LENGTHS
                      if accepts(KERNEL.format(body=statement(fragment, shape, dtype, layout, n)), folder)]
                rows.append({"fragment": fragment, "shape": shape, "type": dtype, "layout": layout,
                             "register": "f64" if dtype == "f64" else "b32", "accepted_lengths": ok,
                             "statement": statement(fragment, shape, dtype, layout, ok[0] if ok else 1)})
    json.dump({"meta": {"ptxas": version, "arch": "sm_90", "lengths_tried": list(LENGTHS)}, "forms": rows},
              sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

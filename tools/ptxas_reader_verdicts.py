"""Record ptxas's verdicts on PTX the reader must accept or refuse: tests/data/ptxas_reader_verdicts.json.

Run where ptxas is installed: ``python3 tools/ptxas_reader_verdicts.py`` (rewrites the JSON).  Each case is a
whole module with an entry ``k``, compiled with ``ptxas -v -arch=ARCH``; the JSON keeps its return code, the
first error (and the PTX line ptxas names) and the static shared memory ptxas reports (``N bytes smem``).
tests/test_kernel_ptx_ptxas_verdicts.py replays every case through ``layoutalg.kernel.trace``: a module ptxas
refuses must be refused with a KernelError naming the same line; one it accepts must trace.  Items:

* ``extern``: ``.extern`` (any linkage directive) inside a function body; a sized ``.extern .shared`` variable;
* ``tensormap``: forms of ``tensormap.replace`` and ``tensormap.cp_fenceproxy`` (sm_90a);
* ``pair``: setp's ``p|q`` destination with other than two names;
* ``address_size``: a module without ``.address_size``, and ``.address_size 32``.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "ptxas_reader_verdicts.json"

SMEM_HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
USE = ".visible .entry k(.param .u64 g)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{body}\nret;\n}}\n"


def smem(decls: str, body: str) -> str:
    return SMEM_HEAD + decls + USE.format(body=body)


TM_HEAD = (".version {version}\n.target {target}\n.address_size 64\n.extern .shared .align 128 .b8 smem[];\n"
           ".visible .entry k(.param .u64 g)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\tmov.u32 %r1, smem;\n"
           "\tmov.u64 %rd2, smem;\n\tmov.u32 %r2, %tid.x;\n\tld.param.u64 %rd1, [g];\n\t{line}\n\tret;\n}}\n")


def tm(line: str, target: str = "sm_90a", version: str = "8.5") -> str:
    return TM_HEAD.format(line=line, target=target, version=version)


CP = "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned"
RP = "tensormap.replace.tile"

CASES: list[tuple[str, str, str]] = [  # (item, id, ptx)
    ("extern", "body_extern_shared_unsized",
     smem("", ".extern .shared .align 16 .b8 s[];\nmov.u32 %r0, s;\nst.shared.u32 [s], %r0;")),
    ("extern", "body_extern_shared_sized",
     smem("", ".extern .shared .align 16 .b8 s[128];\nmov.u32 %r0, s;\nst.shared.u32 [s], %r0;")),
    ("extern", "body_visible_shared", smem("", ".visible .shared .align 16 .b8 s[16];\nmov.u32 %r0, s;")),
    ("extern", "body_weak_global", smem("", ".weak .global .align 16 .b8 s[16];\nmov.u64 %rd0, s;")),
    ("extern", "body_common_global", smem("", ".common .global .align 16 .b8 s[16];\nmov.u64 %rd0, s;")),
    ("extern", "body_extern_local", smem("", ".extern .local .align 16 .b8 s[16];\nmov.u64 %rd0, s;")),
    ("extern", "body_extern_func", smem("", ".extern .func f (.param .b32 a);")),
    ("extern", "module_extern_shared_sized",
     smem(".extern .shared .align 16 .b8 s[128];\n", "mov.u32 %r0, s;\nst.shared.u32 [s], %r0;")),
    ("extern", "module_extern_shared_scalar",
     smem(".extern .shared .align 4 .b32 x;\n", "mov.u32 %r0, x;\nst.shared.u32 [x], %r0;")),
    ("extern", "module_extern_sized_between_statics",
     smem(".shared .align 16 .b8 t[64];\n.extern .shared .align 16 .b8 s[128];\n.shared .align 16 .b8 u[16];\n",
          "mov.u32 %r0, t;\nmov.u32 %r1, s;\nmov.u32 %r2, u;\nst.shared.u32 [t], %r1;\nst.shared.u32 [s], %r2;\n"
          "st.shared.u32 [u], %r0;")),
    ("extern", "module_extern_unsized_is_dynamic",
     smem(".shared .align 16 .b8 t[64];\n.extern .shared .align 16 .b8 d[];\n",
          "mov.u32 %r0, t;\nmov.u32 %r1, d;\nst.shared.u32 [t], %r1;")),
    ("pair", "setp_two_names", smem("", ".reg .pred %p<4>;\nsetp.lt.s32 %p1|%p2, %r1, %r2;")),
    ("pair", "setp_three_names", smem("", ".reg .pred %p<4>;\nsetp.lt.s32 %p1|%p2|%p3, %r1, %r2;")),
    ("pair", "setp_empty_second", smem("", ".reg .pred %p<4>;\nsetp.lt.s32 %p1|, %r1, %r2;")),
    ("pair", "setp_empty_first", smem("", ".reg .pred %p<4>;\nsetp.lt.s32 |%p2, %r1, %r2;")),
    ("address_size", "omitted_64_bit_pointers",
     ".version 8.0\n.target sm_90\n.shared .align 4 .b8 s[64];\n" + USE.format(
         body="ld.param.u64 %rd1, [g];\ncvta.to.global.u64 %rd2, %rd1;\nld.global.u32 %r1, [%rd2];\n"
              "mov.u64 %rd3, s;\nst.shared.u32 [%rd3], %r1;")),
    ("address_size", "explicit_32", ".version 8.0\n.target sm_90\n.address_size 32\n" + USE.format(body="")),
]
REPLACE_LINES = [
    f"{RP}.global_address.shared::cta.b1024.b64 [%r1], %rd1;",
    f"{RP}.shared::cta.global_address.b1024.b64 [%r1], %rd1;",
    "tensormap.replace.b64.shared::cta.global_address.b1024.tile [%r1], %rd1;",
    f"{RP}.global_address [%r1], %rd1;",
    f"{RP}.global_address.b1024.b64 [%rd2], %rd1;",
    f"{RP}.global_address.global.b1024.b64 [%rd1], %rd1;",
    f"{RP}.global_address.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.global_address.shared::cta.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.b1024 [%r1], %rd1;",
    "tensormap.replace.global_address.shared::cta.b1024.b64 [%r1], %rd1;",
    "tensormap.replace.im2col.rank.shared::cta.b1024.b32 [%r1], 1;",
    f"{RP}.global_address.shared::cluster.b1024.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared.b1024.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.global.b1024.b64 [%r1], %rd1;",
    f"{RP}.global_address.global_address.shared::cta.b1024.b64 [%r1], %rd1;",
    f"{RP}.tile.global_address.shared::cta.b1024.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.b1024.b64.b64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.b1024.u64 [%r1], %rd1;",
    f"{RP}.global_address.shared::cta.foo.b1024.b64 [%r1], %rd1;",
    f"{RP}.b1024.b64 [%r1], %rd1;",
    "tensormap.replace [%r1], 1;",
    f"{RP} [%r1], 1;",
    f"{RP}.global_address.shared::cta.b1024.b64 [%r1];",
    f"{RP}.global_address.shared::cta.b1024.b64 [%r1], %rd1, %rd1;",
    f"{RP}.global_address.shared::cta.b1024.b64 [%r1], 4096;",
    f"{RP}.rank.shared::cta.b1024.b32 [%r1], 1;",
    f"{RP}.rank.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.rank.shared::cta.b1024.b64 [%r1], 1;",
    f"{RP}.rank.shared::cta.b1024.b32 [%r1], 0, 1;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], 0, 8;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], 4, 8;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], 5, 8;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], 8;",
    f"{RP}.box_dim.shared::cta.b1024.b32 [%r1], %r2, 8;",
    f"{RP}.box_dim.shared::cta.b1024.b64 [%r1], 0, 8;",
    f"{RP}.global_dim.shared::cta.b1024.b32 [%r1], 0, %r2;",
    f"{RP}.global_dim.shared::cta.b1024.b64 [%r1], 0, 8;",
    f"{RP}.global_stride.shared::cta.b1024.b64 [%r1], 0, 64;",
    f"{RP}.global_stride.shared::cta.b1024.b64 [%r1], 4, %rd1;",
    f"{RP}.global_stride.shared::cta.b1024.b32 [%r1], 0, 64;",
    f"{RP}.element_stride.shared::cta.b1024.b32 [%r1], 0, 1;",
    f"{RP}.element_stride.shared::cta.b1024.b64 [%r1], 0, 1;",
    f"{RP}.elemtype.shared::cta.b1024.b32 [%r1], 1;",
    f"{RP}.elemtype.shared::cta.b1024.b64 [%r1], 1;",
    f"{RP}.elemtype.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.interleave_layout.shared::cta.b1024.b32 [%r1], 0;",
    f"{RP}.interleave_layout.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.swizzle_mode.shared::cta.b1024.b32 [%r1], 1;",
    f"{RP}.swizzle_mode.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.fill_mode.shared::cta.b1024.b32 [%r1], 0;",
    f"{RP}.fill_mode.shared::cta.b1024.b32 [%r1], %r2;",
    f"{RP}.swizzle_atomicity.shared::cta.b1024.b32 [%r1], 0;",
]
COPY_LINES = [
    f"{CP} [%rd1], [%r1], 128;",
    f"{CP} [%rd1], [%rd2], 128;",
    f"{CP} [%rd1], [%r1], 0x80;",
    f"{CP} [%rd1], [%r1], 64;",
    f"{CP} [%rd1], [%r1], %r2;",
    f"{CP} [%rd1], [%r1];",
    f"{CP}.aligned [%rd1], [%r1], 128;",
    f"{CP}.foo [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.shared::cta.global.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cluster.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.release.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.acquire.gpu.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.cta.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.aligned [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy.sync.aligned.global.shared::cta.tensormap::generic.release.gpu [%rd1], [%r1], 128;",
    "tensormap.cp_fenceproxy [%rd1], [%r1], 128;",
]


def all_cases() -> list[tuple[str, str, str, str]]:
    """(item, id, arch, ptx) of every case."""
    out = [(item, cid, "sm_90", ptx) for item, cid, ptx in CASES]
    for k, line in enumerate(REPLACE_LINES + COPY_LINES):
        target, version = ("sm_100a", "8.6") if "swizzle_atomicity" in line else ("sm_90a", "8.5")
        out.append(("tensormap", f"tensormap_{k:02d}", target, tm(line, target, version)))
    return out


def run_ptxas(ptx: str, arch: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "case.ptx"
        src.write_text(ptx)
        r = subprocess.run(["ptxas", "-v", f"-arch={arch}", str(src), "-o", str(Path(d) / "case.cubin")],
                           capture_output=True, text=True, check=False)
    errors = [ln for ln in r.stderr.splitlines() if re.search(r"\b(error|fatal)\b", ln)]
    first = errors[0].replace(str(src), "case.ptx") if errors else ""
    line = re.search(r"case\.ptx, line (\d+)", first)
    smem_bytes = re.search(r"(\d+) bytes smem", r.stderr)
    return {"ptxas_rc": r.returncode, "ptxas_error": first, "ptxas_error_line": int(line.group(1)) if line else None,
            "smem_bytes": int(smem_bytes.group(1)) if smem_bytes and r.returncode == 0 else None}


def main() -> None:
    version = subprocess.run(["ptxas", "--version"], capture_output=True, text=True, check=True).stdout
    cases = []
    for item, cid, arch, ptx in all_cases():
        cases.append({"item": item, "id": cid, "arch": arch, "ptx": ptx, **run_ptxas(ptx, arch)})
    meta = {"ptxas": version.strip().splitlines()[-1], "command": "ptxas -v -arch=ARCH case.ptx -o case.cubin",
            "generated_by": "tools/ptxas_reader_verdicts.py"}
    OUT.write_text(json.dumps({"meta": meta, "cases": cases}, indent=1) + "\n")
    print(f"{len(cases)} cases, {sum(c['ptxas_rc'] != 0 for c in cases)} refused by ptxas -> {OUT}")


if __name__ == "__main__":
    main()

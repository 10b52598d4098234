"""Record which register types ptxas accepts in each operand of a spread of PTX instructions.

    python3 tools/probe_ptx_operand_widths.py [--ptxas PATH] [--arch sm_90]

writes ``tests/data/ptxas_operand_widths.json``; ``tests/test_kernel_operand_types.py`` replays every case
through layoutalg's reader and asserts it refuses exactly what ptxas refuses.

Each case is one kernel (``meta.kernel`` with the instruction in ``{instruction}``): one instruction of a
family below with every operand a register of its proper type except one, which is a register of each type
in ``REGISTER_TYPES`` in turn (narrower, equal and wider; integer, bit-size, float and predicate); a vector's
registers are also swapped all together.  Register
``%v_<type>_<k>`` is a ``.reg .<type>`` register; ``k`` is the operand's position, so no two operands share
one.  The rules ptxas applies are the PTX ISA's "Type Checking Rules" (an operand's size must equal the
instruction type's; ``.f`` and ``.s``/``.u`` types do not mix, bit-size types go with either) with the
relaxed rules of "Operand Size Exceeding Instruction-Type Size" for ``ld``/``st``/``cvt`` (a wider register
is allowed).  Run it where ``ptxas`` is installed; CI only replays the recording.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REGISTER_TYPES = ("pred", "b8", "u8", "b16", "u16", "s16", "f16", "b32", "u32", "s32", "f32", "f16x2",
                  "b64", "u64", "s64", "f64")

KERNEL = """.version 8.5
.target {arch}
.address_size 64
.visible .entry k()
{
.reg .b64 %gp;
.shared .align 16 .b8 smem[1024];
{registers}
mov.u64 %gp, 0;
{instruction}
ret;
}
"""


@dataclass(frozen=True)
class Family:
    """An instruction ``text`` whose ``{k}`` is operand ``k``; ``slots[k]``: (role, proper register type);
    ``group``: the slots of one vector, also swapped all together (ptxas wants one size per vector)."""

    family: str
    text: str
    slots: tuple[tuple[str, str], ...]
    group: tuple[int, ...] = ()


def _f(family: str, text: str, *slots: str, group: tuple[int, ...] = ()) -> Family:
    """``slots`` as ``"d:b32"`` (destination) or ``"s:b32"`` (source)."""
    return Family(family, text, tuple((s[0], s[2:]) for s in slots), group)


D32, S32, D64, S64, D16, S16 = "d:b32", "s:b32", "d:b64", "s:b64", "d:b16", "s:b16"
FAMILIES: tuple[Family, ...] = (
    # integer arithmetic
    _f("int-arith", "add.s32 {0}, {1}, {2};", D32, S32, S32),
    _f("int-arith", "add.u64 {0}, {1}, {2};", D64, S64, S64),
    _f("int-arith", "add.s16 {0}, {1}, {2};", D16, S16, S16),
    _f("int-arith", "sub.u32 {0}, {1}, {2};", D32, S32, S32),
    _f("int-arith", "mul.lo.s32 {0}, {1}, {2};", D32, S32, S32),
    _f("int-arith", "mul.hi.u64 {0}, {1}, {2};", D64, S64, S64),
    _f("int-arith", "mul.wide.s32 {0}, {1}, {2};", D64, S32, S32),
    _f("int-arith", "mul.wide.u16 {0}, {1}, {2};", D32, S16, S16),
    _f("int-arith", "mad.lo.s32 {0}, {1}, {2}, {3};", D32, S32, S32, S32),
    _f("int-arith", "mad.wide.u32 {0}, {1}, {2}, {3};", D64, S32, S32, S64),
    _f("int-arith", "min.s32 {0}, {1}, {2};", D32, S32, S32),
    _f("int-arith", "div.u64 {0}, {1}, {2};", D64, S64, S64),
    _f("int-arith", "popc.b64 {0}, {1};", D32, S64),
    _f("int-arith", "clz.b32 {0}, {1};", D32, S32),
    # logic
    _f("logic", "and.b32 {0}, {1}, {2};", D32, S32, S32),
    _f("logic", "and.b64 {0}, {1}, {2};", D64, S64, S64),
    _f("logic", "or.b64 {0}, {1}, {2};", D64, S64, S64),
    _f("logic", "xor.b16 {0}, {1}, {2};", D16, S16, S16),
    _f("logic", "not.b32 {0}, {1};", D32, S32),
    _f("logic", "and.pred {0}, {1}, {2};", "d:pred", "s:pred", "s:pred"),
    _f("logic", "lop3.b32 {0}, {1}, {2}, {3}, 0x96;", D32, S32, S32, S32),
    # shifts
    _f("shift", "shl.b64 {0}, {1}, {2};", D64, S64, S32),
    _f("shift", "shl.b32 {0}, {1}, {2};", D32, S32, S32),
    _f("shift", "shr.u64 {0}, {1}, {2};", D64, S64, S32),
    _f("shift", "shr.s32 {0}, {1}, {2};", D32, S32, S32),
    _f("shift", "shl.b64 {0}, {1}, 2;", D64, S64),
    # comparisons and selects
    _f("setp", "setp.lt.s32 {0}, {1}, {2};", "d:pred", S32, S32),
    _f("setp", "setp.eq.u64 {0}, {1}, {2};", "d:pred", S64, S64),
    _f("setp", "setp.lt.f32 {0}, {1}, {2};", "d:pred", "s:f32", "s:f32"),
    _f("setp", "setp.ne.and.s32 {0}, {1}, {2}, {3};", "d:pred", S32, S32, "s:pred"),
    _f("selp", "selp.b32 {0}, {1}, {2}, {3};", D32, S32, S32, "s:pred"),
    _f("selp", "selp.b64 {0}, {1}, {2}, {3};", D64, S64, S64, "s:pred"),
    _f("selp", "selp.f32 {0}, {1}, {2}, {3};", "d:f32", "s:f32", "s:f32", "s:pred"),
    # moves
    _f("mov", "mov.b32 {0}, {1};", D32, S32),
    _f("mov", "mov.u64 {0}, {1};", D64, S64),
    _f("mov", "mov.u16 {0}, {1};", D16, S16),
    _f("mov", "mov.f32 {0}, {1};", "d:f32", "s:f32"),
    _f("mov", "mov.pred {0}, {1};", "d:pred", "s:pred"),
    _f("mov", "mov.b64 {0}, {{{1}, {2}}};", D64, S32, S32, group=(1, 2)),
    _f("mov", "mov.b32 {{{0}, {1}}}, {2};", D16, D16, S32, group=(0, 1)),
    # conversions
    _f("cvt", "cvt.u32.u16 {0}, {1};", D32, S16),
    _f("cvt", "cvt.u64.u32 {0}, {1};", D64, S32),
    _f("cvt", "cvt.s32.s8 {0}, {1};", D32, S16),
    _f("cvt", "cvt.u16.u32 {0}, {1};", D16, S32),
    _f("cvt", "cvt.rn.f32.s32 {0}, {1};", "d:f32", S32),
    _f("cvt", "cvt.rzi.s32.f32 {0}, {1};", D32, "s:f32"),
    _f("cvt", "cvt.f64.f32 {0}, {1};", "d:f64", "s:f32"),
    _f("cvt", "cvt.rn.f16.f32 {0}, {1};", D16, "s:f32"),
    _f("cvt", "cvt.f32.f16 {0}, {1};", "d:f32", S16),
    _f("cvt", "cvt.rn.f16x2.f32 {0}, {1}, {2};", D32, "s:f32", "s:f32"),
    _f("cvt", "cvt.rn.bf16x2.f32 {0}, {1}, {2};", D32, "s:f32", "s:f32"),
    _f("cvt", "cvt.rna.tf32.f32 {0}, {1};", D32, "s:f32"),
    _f("cvt", "cvt.rn.satfinite.e4m3x2.f32 {0}, {1}, {2};", D16, "s:f32", "s:f32"),
    _f("cvt", "cvt.rn.f16x2.e4m3x2 {0}, {1};", D32, S16),
    # loads and stores
    _f("ld-st", "ld.shared.b32 {0}, [smem];", D32),
    _f("ld-st", "ld.shared.u16 {0}, [smem];", D16),
    _f("ld-st", "ld.shared.u8 {0}, [smem];", D16),
    _f("ld-st", "ld.shared.s8 {0}, [smem];", D32),
    _f("ld-st", "ld.shared.b64 {0}, [smem];", D64),
    _f("ld-st", "ld.shared.f32 {0}, [smem];", "d:f32"),
    _f("ld-st", "ld.shared.v2.b32 {{{0}, {1}}}, [smem];", D32, D32, group=(0, 1)),
    _f("ld-st", "ld.shared.v4.u16 {{{0}, {1}, {2}, {3}}}, [smem];", D16, D16, D16, D16, group=(0, 1, 2, 3)),
    _f("ld-st", "ld.shared.v2.u8 {{{0}, {1}}}, [smem];", D16, D16, group=(0, 1)),
    _f("ld-st", "st.shared.v4.u8 [smem], {{{0}, {1}, {2}, {3}}};", S16, S16, S16, S16, group=(0, 1, 2, 3)),
    _f("ld-st", "ld.global.b32 {0}, [%gp];", D32),
    _f("ld-st", "ld.global.v2.f32 {{{0}, {1}}}, [%gp];", "d:f32", "d:f32", group=(0, 1)),
    _f("ld-st", "st.shared.b32 [smem], {0};", S32),
    _f("ld-st", "st.shared.u8 [smem], {0};", S16),
    _f("ld-st", "st.shared.b16 [smem], {0};", S16),
    _f("ld-st", "st.shared.b64 [smem], {0};", S64),
    _f("ld-st", "st.shared.f32 [smem], {0};", "s:f32"),
    _f("ld-st", "st.shared.v2.b32 [smem], {{{0}, {1}}};", S32, S32, group=(0, 1)),
    _f("ld-st", "st.global.u32 [%gp], {0};", S32),
    _f("ld-st", "st.global.v2.f32 [%gp], {{{0}, {1}}};", "s:f32", "s:f32"),
    _f("address", "ld.shared.b32 {0}, [{1}];", D32, "s:u32"),
    _f("address", "st.shared.b32 [{0}], {1};", "s:u64", S32),
    _f("address", "ld.global.b32 {0}, [{1}];", D32, "s:u64"),
    # matrix moves and MMA
    _f("matrix", "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {{{0}}}, [smem];", D32),
    _f("matrix", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{{0}, {1}}}, [smem];", D32, D32, group=(0, 1)),
    _f("matrix", "stmatrix.sync.aligned.m8n8.x1.shared.b16 [smem], {{{0}}};", S32),
    _f("matrix", "stmatrix.sync.aligned.m8n8.x2.shared.b16 [smem], {{{0}, {1}}};", S32, S32, group=(0, 1)),
    _f("mma", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{0}, %v_f32_10, %v_f32_11, %v_f32_12}}, "
              "{{{1}, %v_b32_10, %v_b32_11, %v_b32_12}}, {{{2}, %v_b32_13}}, {{{3}, %v_f32_13, %v_f32_14, %v_f32_15}};",
       "d:f32", S32, S32, "s:f32"),
    _f("mma", "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {{{0}, %v_b32_10}}, {{{1}, %v_b32_11}}, {{{2}}}, "
              "{{{3}, %v_b32_12}};", D32, S32, S32, S32),
    # floating point
    _f("float", "add.f32 {0}, {1}, {2};", "d:f32", "s:f32", "s:f32"),
    _f("float", "mul.f64 {0}, {1}, {2};", "d:f64", "s:f64", "s:f64"),
    _f("float", "fma.rn.f32 {0}, {1}, {2}, {3};", "d:f32", "s:f32", "s:f32", "s:f32"),
    _f("float", "fma.rn.f64 {0}, {1}, {2}, {3};", "d:f64", "s:f64", "s:f64", "s:f64"),
    _f("float", "fma.rn.f16x2 {0}, {1}, {2}, {3};", D32, S32, S32, S32),
    _f("float", "fma.rn.f16 {0}, {1}, {2}, {3};", D16, S16, S16, S16),
    _f("float", "add.rn.f16x2 {0}, {1}, {2};", "d:f16x2", "s:f16x2", "s:f16x2"),
    _f("float", "neg.f32 {0}, {1};", "d:f32", "s:f32"),
    _f("float", "add.rn.bf16 {0}, {1}, {2};", D16, S16, S16),
    _f("float", "ex2.approx.f32 {0}, {1};", "d:f32", "s:f32"),
    # bit fields and permutes
    _f("bitfield", "bfe.u32 {0}, {1}, {2}, {3};", D32, S32, S32, S32),
    _f("bitfield", "bfe.s64 {0}, {1}, {2}, {3};", D64, S64, S32, S32),
    _f("bitfield", "bfi.b32 {0}, {1}, {2}, {3}, {4};", D32, S32, S32, S32, S32),
    _f("bitfield", "bfi.b64 {0}, {1}, {2}, {3}, {4};", D64, S64, S64, S32, S32),
    _f("bitfield", "prmt.b32 {0}, {1}, {2}, {3};", D32, S32, S32, S32),
    # warp-level
    _f("warp", "shfl.sync.idx.b32 {0}, {1}, {2}, 31, -1;", D32, S32, S32),
    _f("warp", "vote.sync.ballot.b32 {0}, {1}, -1;", D32, "s:pred"),
    # a guard predicate
    _f("guard", "@{0} add.s32 {1}, {2}, 1;", "s:pred", D32, S32),
)


def registers() -> str:
    """One ``.reg`` line per type: ``%v_<type>_0`` .. ``%v_<type>_15``."""
    return "\n".join(f".reg .{t} %v_{t}_<16>;" for t in REGISTER_TYPES)


def cases() -> list[dict[str, object]]:
    """Every (family, operand, register type): the instruction with that operand's register swapped."""
    out: list[dict[str, object]] = []
    for fam in FAMILIES:
        proper = [f"%v_{t}_{k}" for k, (_, t) in enumerate(fam.slots)]
        for k, (role, want) in enumerate(fam.slots):
            for t in REGISTER_TYPES:
                regs = list(proper)
                regs[k] = f"%v_{t}_{k}"
                out.append({"family": fam.family, "instruction": fam.text.format(*regs), "operand": k,
                            "role": "destination" if role == "d" else "source", "proper_type": want,
                            "register": regs[k], "register_type": t})
        for t in REGISTER_TYPES if fam.group else ():
            regs = [f"%v_{t}_{k}" if k in fam.group else r for k, r in enumerate(proper)]
            role, want = fam.slots[fam.group[0]]
            out.append({"family": fam.family, "instruction": fam.text.format(*regs), "operand": fam.group[0],
                        "role": "destination" if role == "d" else "source", "proper_type": want,
                        "register": regs[fam.group[0]], "register_type": t, "whole_vector": True})
    return out


def run_ptxas(ptxas: str, arch: str, text: str) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.ptx"
        src.write_text(text)
        r = subprocess.run([ptxas, f"-arch={arch}", str(src), "-o", str(Path(d) / "k.cubin")],
                           capture_output=True, text=True)
    errors = [line.split(";", 1)[-1].split(":", 1)[-1].strip() for line in r.stderr.splitlines() if "error" in line]
    return r.returncode == 0, re.sub(r"\s+", " ", errors[0] if errors else r.stderr.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxas", default="ptxas")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "tests/data/ptxas_operand_widths.json"))
    args = ap.parse_args()
    template = KERNEL.replace("{arch}", args.arch).replace("{registers}", registers())
    base_ok, base_msg = run_ptxas(args.ptxas, args.arch, template.replace("{instruction}", ""))
    if not base_ok:
        raise SystemExit(f"the empty kernel does not assemble: {base_msg}")
    for fam in FAMILIES:  # each family's instruction with proper registers must assemble, or its cases say nothing
        proper = fam.text.format(*[f"%v_{t}_{k}" for k, (_, t) in enumerate(fam.slots)])
        ok, msg = run_ptxas(args.ptxas, args.arch, template.replace("{instruction}", proper))
        if not ok:
            raise SystemExit(f"{proper!r} with its proper registers does not assemble: {msg}")
    rows = cases()
    for row in rows:
        ok, msg = run_ptxas(args.ptxas, args.arch, template.replace("{instruction}", str(row["instruction"])))
        row["ptxas_accepts"] = ok
        if not ok:
            row["ptxas_error"] = msg
    version = subprocess.run([args.ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    release = [v for v in version if v.startswith("Cuda compilation tools")]
    meta = {"ptxas_version": release[0] if release else " ".join(version), "ptxas_version_full": version,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
            "command": f"python3 tools/probe_ptx_operand_widths.py --arch {args.arch}",
            "ptxas_command": f"ptxas -arch={args.arch} k.ptx -o k.cubin (rc 0 = accepted)",
            "kernel": template, "register_types": list(REGISTER_TYPES)}
    body = ",\n".join(json.dumps(r) for r in rows)  # one case a line
    Path(args.out).write_text(f'{{"meta": {json.dumps(meta, indent=1)},\n"cases": [\n{body}\n]}}\n')
    n_ok = sum(bool(r["ptxas_accepts"]) for r in rows)
    print(f"{len(rows)} cases, {n_ok} accepted, {len(rows) - n_ok} rejected -> {os.path.relpath(args.out)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()

"""Record what ptxas makes of shared-memory loads whose results are partly unread (no GPU needed).

    python3 tools/ptxas_load_narrowing.py [--out tests/data/ptxas_load_narrowing.json]
    python3 tools/ptxas_load_narrowing.py --fresh N --seed S [--out tests/data/ptxas_load_narrowing_fresh.json]

ptxas narrows a non-volatile ``ld.shared`` to the bytes its readers use and removes one nothing reads: a
``ld.shared.v4.b32`` of which only element 2 is read becomes ``LDS [a+0x8]``, one of which elements 0 and 2 are
read becomes two ``LDS``.  Nsight Compute counts the SASS, so the tracer must cost what ptxas emits
(:mod:`layoutalg.kernel.interp.narrowing`).  This tool compiles one kernel per case -- a load form, the set of
its elements read and how each is read -- with ``ptxas -arch=sm_90`` and records the shared-memory SASS
instructions it holds as ``[opcode, bytes, offset]`` (offset from the lane's address).  ``tests/test_kernel_load_narrowing.py``
traces every recorded kernel and checks the tracer's accesses against the SASS.

``--fresh`` writes N random kernels instead (an adversarial check of the rule beyond the cases it was read off):
one to four loads of random forms (volatile ones among them) at ``smem + 2048 k``, every element read in a random
style or not at all; ``tests/test_kernel_load_narrowing.py`` traces them too.

Read styles: ``full`` stores the element to global memory (every bit read); ``low`` stores
``cvt.u32.u64`` of a 64-bit element (its low word); ``high`` stores the low word of ``shr.u64 x, 32`` (its high
word); ``unpack`` splits a 64-bit element with ``mov.b64 {lo, hi}`` and stores ``lo`` only; ``dead_chain`` feeds it to
arithmetic nothing reads; ``guard_dead``/``guard_store`` compare it to 0 to guard a dead ``add`` or a store.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "ptxas_load_narrowing.json")
REG = {1: "b16", 2: "b16", 4: "b32", 8: "b64"}
BYTES = {"u8": 1, "s8": 1, "b16": 2, "u16": 2, "f16": 2, "b32": 4, "u32": 4, "f32": 4, "s32": 4, "b64": 8, "u64": 8,
         "f64": 8}
HEAD = """.version 8.3
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 smem[];
"""


def kernel(load: str, uses: str) -> str:
    """One kernel: lane t loads at ``smem + p_off + 16 t`` (``%r1``); ``uses`` reads the elements."""
    return HEAD + f""".visible .entry k(.param .u64 p_out, .param .u32 p_off)
{{
  .reg .b32 %r<8>;
  .reg .b32 %e<16>;
  .reg .b16 %h<16>;
  .reg .b64 %d<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u32 %r1, [p_off];
  mov.u32 %r2, %tid.x;
  shl.b32 %r2, %r2, 4;
  add.u32 %r1, %r1, %r2;
  mov.u32 %r3, smem;
  add.u32 %r1, %r1, %r3;
  ld.param.u64 %rd1, [p_out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r2, 2;
  add.u64 %rd1, %rd1, %rd2;
  {load}
{uses}
  ret;
}}
"""


def regs(n: int, t: str, first: int = 0) -> list[str]:
    prefix = {1: "%h", 2: "%h", 4: "%e", 8: "%d"}[BYTES[t]]
    return [f"{prefix}{first + i}" for i in range(n)]


def use(reg: str, t: str, style: str, slot: int) -> str:
    at = f"[%rd1+{8 * slot}]"
    size = BYTES[t]
    if style == "full":
        st = {1: "st.global.u8", 2: "st.global.b16", 4: "st.global.b32", 8: "st.global.b64"}[size]
        return f"  {st} {at}, {reg};"
    if style == "low":
        return f"  cvt.u32.u64 %r5, {reg};\n  st.global.b32 {at}, %r5;"
    if style == "high":
        return f"  shr.u64 %rd5, {reg}, 32;\n  cvt.u32.u64 %r5, %rd5;\n  st.global.b32 {at}, %r5;"
    if style == "unpack":
        return f"  mov.b64 {{%r5, %r6}}, {reg};\n  st.global.b32 {at}, %r5;"
    if style == "dead_chain":  # read only by arithmetic whose result nothing reads: ptxas removes all of it
        return f"  add.u32 %r5, {reg}, 1;\n  xor.b32 %r6, %r5, 3;"
    if style == "guard_dead":  # a predicate from it guards only a dead add
        return f"  setp.eq.u32 %p1, {reg}, 0;\n  @%p1 add.u32 %r7, %r2, 1;"
    if style == "guard_store":  # a predicate from it guards a store: read
        return f"  setp.eq.u32 %p1, {reg}, 0;\n  @%p1 st.global.b32 {at}, %r2;"
    raise ValueError(style)


def cases() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    forms = [(2, "b32"), (4, "b32"), (4, "f32"), (2, "u16"), (4, "u16"), (4, "b16"), (2, "u8"), (4, "u8"),
             (2, "b64"), (2, "f64"), (1, "b64"), (1, "u64"), (1, "f64"), (1, "b32"), (1, "u16"), (1, "u8")]
    for n, t, volatile in [(n, t, v) for v in (False, True) for n, t in forms]:
        vec = f".v{n}" if n > 1 else ""
        space = "volatile.shared" if volatile else "shared"
        names = regs(n, t)
        dest = "{" + ", ".join(names) + "}" if n > 1 else names[0]
        styles = ["full"] + (["low", "high", "unpack"] if t in ("b64", "u64") else [])
        for style in styles:
            for k in range(n + 1):
                for live in itertools.combinations(range(n), k):
                    if style != "full" and not live:
                        continue
                    load = f"ld.{space}{vec}.{t} {dest}, [%r1];"
                    uses = "\n".join(use(names[i], t, style, i) for i in live)
                    out.append({"name": f"ld{'.volatile' if volatile else ''}{vec}.{t} {style} {list(live)}",
                                "load": load, "uses": uses})
    # reads by code ptxas removes are no reads (kernel.interp.liveness.Liveness.useful)
    names = regs(4, "b32")
    v4 = f"ld.shared.v4.b32 {{{', '.join(names)}}}, [%r1];"
    for style in ("dead_chain", "guard_dead", "guard_store"):
        for live in ((0,), (1, 2)):
            uses = "\n".join(use(names[i], "b32", style, i) for i in live)
            out.append({"name": f"ld.v4.b32 {style} {list(live)}", "load": v4, "uses": uses})
    out.append({"name": "ld.v4.b32 e0 full, e2 dead_chain", "load": v4,
                "uses": use("%e0", "b32", "full", 0) + "\n" + use("%e2", "b32", "dead_chain", 2)})
    for qual in ("volatile.shared", "relaxed.cta.shared", "acquire.cta.shared", "relaxed.gpu.shared",
                 "acquire.sys.shared", "weak.shared", "shared::cta"):
        names = regs(4, "b32")
        for live in ((), (0,), (0, 2), (1, 2, 3)):
            load = f"ld.{qual}.v4.b32 {{{', '.join(names)}}}, [%r1];"
            uses = "\n".join(use(names[i], "b32", "full", i) for i in live)
            out.append({"name": f"ld.{qual}.v4.b32 full {list(live)}", "load": load, "uses": uses})
    for count in (1, 2, 4):
        for trans in ("", ".trans"):
            names = regs(count, "b32")
            for live in ((), (0,), tuple(range(count))):
                load = (f"ldmatrix.sync.aligned.m8n8.x{count}{trans}.shared.b16 {{{', '.join(names)}}}, [%r1];")
                uses = "\n".join(use(names[i], "b32", "full", i) for i in live)
                out.append({"name": f"ldmatrix.x{count}{trans} full {list(live)}", "load": load, "uses": uses})
    # liveness across control flow: an element overwritten before any read is dead; one read after a branch, or
    # under a predicate, is live
    names = regs(4, "b32")
    v4 = f"ld.shared.v4.b32 {{{', '.join(names)}}}, [%r1];"
    out.append({"name": "ld.v4.b32 e1 overwritten", "load": v4,
                "uses": "  mov.u32 %e1, 7;\n" + use("%e0", "b32", "full", 0) + "\n" + use("%e1", "b32", "full", 1)})
    out.append({"name": "ld.v4.b32 e1 read after a branch", "load": v4,
                "uses": use("%e0", "b32", "full", 0) + "\n  bra.uni L1;\nL1:\n" + use("%e1", "b32", "full", 1)})
    out.append({"name": "ld.v4.b32 e3 read under a predicate", "load": v4,
                "uses": "  setp.eq.u32 %p1, %r2, 0;\n  @%p1 st.global.b32 [%rd1], %e3;"})
    return out


FRESH_FORMS = [(2, "b32"), (4, "b32"), (4, "f32"), (2, "u16"), (4, "u16"), (4, "b16"), (2, "u8"), (4, "u8"),
               (2, "b64"), (2, "f64"), (1, "b64"), (1, "u64"), (1, "b32"), (1, "u16"), (1, "u8")]


def fresh_cases(count: int, seed: int) -> list[dict[str, object]]:
    """``count`` random kernels of 1-4 loads each (module doc); registers are never shared between loads."""
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for n_case in range(count):
        loads, uses, used = [], [], {"%e": 0, "%h": 0, "%d": 0}
        slot = 0
        for k in range(rng.randint(1, 4)):
            n, t = rng.choice(FRESH_FORMS)
            prefix = {1: "%h", 2: "%h", 4: "%e", 8: "%d"}[BYTES[t]]
            names = regs(n, t, used[prefix])
            used[prefix] += n
            qual = rng.choice(["", "", "", "volatile.", "relaxed.cta."])
            dest = "{" + ", ".join(names) + "}" if n > 1 else names[0]
            vec = f".v{n}" if n > 1 else ""
            loads.append(f"ld.{qual}shared{vec}.{t} {dest}, [%r1+{2048 * k}];")
            for name in names:
                styles = {4: ["none", "full", "full", "dead_chain", "guard_store", "guard_dead"],
                          8: ["none", "full", "low", "high", "unpack"] if t != "f64" else ["none", "full"]
                          }.get(BYTES[t], ["none", "full"])
                style = rng.choice(styles)
                if style != "none":
                    uses.append(use(name, t, style, slot))
                    slot += 1
        out.append({"name": f"fresh {seed}/{n_case}", "load": "\n  ".join(loads), "uses": "\n".join(uses)})
    return out


SASS_LINE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?(LDSM|LDS|STS|STSM)(\.[A-Z0-9.]+)?\s+([^;]*);")


def sass_accesses(sass: str) -> list[list[object]]:
    """[opcode, bytes per lane, byte offset] of each shared-memory load in the SASS text."""
    out: list[list[object]] = []
    for m in SASS_LINE.finditer(sass):
        op, mods, operands = m.group(2), m.group(3) or "", m.group(4)
        if op not in ("LDS", "LDSM"):
            continue
        width = 16 if op == "LDSM" else {".U8": 1, ".S8": 1, ".U16": 2, ".S16": 2, ".64": 8, ".128": 16}.get(mods, 4)
        addr = operands[operands.index("[") + 1: operands.index("]")]
        offset = next((int(p, 16) for p in addr.split("+") if p.strip().startswith("0x")), 0)
        out.append([op + mods, width, offset])
    return out


def main() -> int:
    fresh = int(sys.argv[sys.argv.index("--fresh") + 1]) if "--fresh" in sys.argv else 0
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 0
    default = OUT.replace(".json", "_fresh.json") if fresh else OUT
    path = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else default
    ptxas = shutil.which("ptxas") or "ptxas"
    cuobjdump = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump") or "cuobjdump"
    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in (fresh_cases(fresh, seed) if fresh else cases()):
            ptx = kernel(str(case["load"]), str(case["uses"]))
            src, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
            with open(src, "w") as f:
                f.write(ptx)
            built = subprocess.run([ptxas, "-arch=sm_90", src, "-o", cubin], capture_output=True, text=True)
            if built.returncode:
                records.append({**case, "ptxas_error": built.stderr.strip()[:300]})
                continue
            sass = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True, check=True).stdout
            records.append({**case, "sass": sass_accesses(sass)})
    with open(path, "w") as f:
        json.dump({"meta": {"ptxas": version, "arch": "sm_90", "tool": "tools/ptxas_load_narrowing.py" + (
                            f" --fresh {fresh} --seed {seed}" if fresh else ""),
                            "kernel": kernel("LOAD", "USES")}, "cases": records}, f, indent=1)
        f.write("\n")
    print(f"{len(records)} cases -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

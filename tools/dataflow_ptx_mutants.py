"""PTX mutation run for check_mma: every "proved" mutant must be equivalent to the original kernel.

    python tools/dataflow_ptx_mutants.py NAME [LIMIT] [SEED]

NAME: an entry of tests/data/kernels_fresh/manifest.json or (``t...``) of its triton/triton.json.  Mutants:
one integer immediate of an executed instruction changed (+-1, ^8, *2, +16), or the last two registers of an
mma / ldmatrix / stmatrix / st.global / st.shared operand list exchanged.  Instructions the launch never
executes are skipped (their mutants are trivially equivalent).  Prints the verdict counts, every "unknown"
with its reason and every "proved" mutant, to be judged by hand (a proved mutant that is not equivalent is
a false proof).  Runs of the 2026-11-25 session: c1, c2, c9, c10, t1, 90-150 mutants each; the proved
mutants were all equivalent after the src-size fix (bits masked that are zero anyway, the sign fix-ups of
divisions, loop conditions that agree for the traced trip count, a stronger wait_group).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from layoutalg.errors import LayoutError  # noqa: E402
from layoutalg.kernel import check_mma, trace  # noqa: E402
from layoutalg.kernel.ptx import parse_module  # noqa: E402

FRESH = os.path.join(ROOT, "tests", "data", "kernels_fresh")


def mutants(lines: list[str]) -> list[tuple[int, str, str]]:
    """(line index, mutated line, what) for every candidate mutation."""
    out = []
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s or s.startswith(("//", ".", "$", "{", "}")):
            continue
        op = s.split()[0]
        if op.startswith(("ld.param", "mov.u64", "cvta")):
            continue
        for m in re.finditer(r"(?<=[ ,])(-?\d+)(?=[;,\]])", ln):
            v = int(m.group(1))
            for nv in sorted({v + 1, v - 1, v ^ 8, v * 2 if v else 16, v + 16}):
                if nv != v and nv >= 0:
                    out.append((i, ln[:m.start()] + str(nv) + ln[m.end():], f"imm {v}->{nv}"))
        regs = re.findall(r"%r\d+", ln)
        if op.startswith(("mma", "ldmatrix", "st.global", "st.shared", "stmatrix")) and len(regs) >= 3:
            a, b = regs[-2], regs[-1]
            if a != b:
                out.append((i, ln.replace(a, "@@").replace(b, a).replace("@@", b), f"swap {a},{b}"))
    return out


def main(argv: list[str]) -> int:
    name = argv[0]
    limit = int(argv[1]) if len(argv) > 1 else 100
    seed = int(argv[2]) if len(argv) > 2 else 1
    where = os.path.join(FRESH, "triton") if name.startswith("t") else FRESH
    with open(os.path.join(where, "triton.json" if name.startswith("t") else "manifest.json")) as fh:
        entry = json.load(fh)[name]
    kernel, smem = entry.get("kernel", name), entry.get("dynamic_smem", 0)
    with gzip.open(os.path.join(where, name + ".ptx.gz"), "rt") as fh:
        lines = fh.read().split("\n")
    specs = dict(s.split("=", 1) for s in entry["check_mma"])
    kw = dict(kernel=kernel, grid=entry["grid"], block=entry["block"], dynamic_smem=smem,
              args={int(k): v for k, v in entry["args"].items()})
    original = parse_module("\n".join(lines))
    trace(original, **kw)
    fn = original.entries[kernel]
    decoded = next(iter(fn.__dict__["_decoded"].values()))  # ops the launch executed are decoded
    executed = {fn.body[i].line - 1 for i, o in enumerate(decoded) if o is not None}
    cands = [c for c in mutants(lines) if c[0] in executed]
    random.Random(seed).shuffle(cands)
    counts: dict[str, int] = {}
    proved = []
    start = time.time()
    for i, new, what in cands[:limit]:
        mut = list(lines)
        mut[i] = new
        try:
            r = check_mma(trace(parse_module("\n".join(mut)), step_budget=200000, **kw),
                          a=specs["A"], b=specs["B"], c=specs["C"])
            verdict = r.verdict
            if verdict == "unknown":
                print(f"  unknown  line {i + 1} {what}: {lines[i].strip()}  -- {r.reason[:200]}")
        except LayoutError as exc:
            verdict = "bad input: " + type(exc).__name__
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict == "proved":
            proved.append((i + 1, what, lines[i].strip()))
    print(f"{name}: {len(cands)} executed candidates, {min(limit, len(cands))} run in {time.time() - start:.0f} s: "
          f"{counts}")
    for line, what, text in proved:
        print(f"  PROVED   line {line} {what}: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

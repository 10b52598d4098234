"""Benchmark: the algebra's cliffs of issue 13 (each must answer or refuse well under 0.5 s).

Each case runs in a fresh subprocess (numpy imported before the clock starts),
which reports the wall time of the one call, its peak memory (``ru_maxrss``)
and its outcome (the answer, or the LayoutError's class and first words).  A
case that passes ``--limit`` seconds is killed and shown as such.

``--before DIR`` also runs every case against another copy of the package (for
instance ``git archive <commit> layoutalg | tar -x -C DIR``), in the same run,
so the two columns are comparable.  Run:
``python benchmarks/bench_cliffs.py [--before DIR] [--limit 60]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (name, statement evaluated with ``la`` = layoutalg and ``L`` = Layout in scope)
CASES = [
    ("complement, non-chain, 2^22 elements, default cotarget", "la.complement(L((2048, 2048), (1, 2049)))"),
    ("complement, non-chain, 2^22 elements, cotarget 1", "la.complement(L((2097151, 2), (1, 2097152)), 1)"),
    ("complement, non-chain, 2^21 elements, cotarget 1", "la.complement(L((1024, 2048), (1, 1025)), 1)"),
    ("complement, non-chain (3,2^20):(1,4)", "la.complement(L((3, 1 << 20), (1, 4)))"),
    ("composition, CuTe fails, 2^26 points", "la.composition(L((8192, 8192), (1, 16384)), L((8192, 8192), (8193, 1)))"),
    ("composition, carry between modes, 2^26 points", "la.composition(L((8192, 8192), (1, 16384)), L((8192, 8192), (1, 1)))"),
    ("composition, carry inside a mode, 2^26 points", "la.composition(L((8192, 8192), (1, 16384)), L(((8192, 8192),), ((1, 1),)))"),
    ("composition, overlapping leaves, no carry, 2^26 points", "la.composition(L((4, 1 << 26), (1, 5)), L((2, 2, 1 << 24), (1, 1, 4)))"),
    ("composition, CuTe fails, 2^20 points (enumerated)", "la.composition(L((1024, 1024), (1, 2048)), L((1024, 1024), (1025, 1)))"),
    ("left_inverse (8,8):(770,1650)", "la.left_inverse(L((8, 8), (770, 1650)))"),
    ("left_inverse (8,8):(77,165)", "la.left_inverse(L((8, 8), (77, 165)))"),
    ("left_inverse (2,2^19):(3,7)", "la.left_inverse(L((2, 1 << 19), (3, 7)))"),
]

_CHILD = """
import json, resource, sys, time
import numpy
import layoutalg as la
from layoutalg import Layout as L
start = time.perf_counter()
try:
    outcome = str(eval(sys.argv[1]))
except la.LayoutError as exc:
    outcome = type(exc).__name__ + ": " + str(exc)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak, "outcome": outcome[:90]}))
"""


def run_case(statement: str, package_root: Path, limit: float) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(package_root))
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, statement], env=env, cwd=package_root, capture_output=True, text=True,
                              timeout=limit + 30)
    except subprocess.TimeoutExpired:
        return {"seconds": time.perf_counter() - start, "peak_mb": float("nan"), "outcome": f"killed after {limit:g} s"}
    if done.returncode != 0:
        return {"seconds": float("nan"), "peak_mb": float("nan"), "outcome": "crashed: " + done.stderr.strip()[-80:]}
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="directory holding another copy of the layoutalg package")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds before a case is killed")
    args = parser.parse_args()
    columns = [("after", ROOT)] + ([("before", args.before)] if args.before else [])
    header = "| case | " + " | ".join(f"{name} (s) | {name} peak (MB) | {name} outcome" for name, _ in columns) + " |"
    print(header)
    print("|" + "---|" * (1 + 3 * len(columns)))
    worst = 0.0
    for name, statement in CASES:
        cells = []
        for column, root in columns:
            result = run_case(statement, root, args.limit)
            if column == "after":
                worst = max(worst, float(result["seconds"]))  # type: ignore[arg-type]
            cells.append(f"{float(result['seconds']):.3f} | {float(result['peak_mb']):.0f} | "  # type: ignore[arg-type]
                         f"{str(result['outcome']).replace('|', '/')}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nslowest case after the fix: {worst:.3f} s (goal: under 0.5 s)")


if __name__ == "__main__":
    main()

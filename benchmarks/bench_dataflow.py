"""Benchmark: the data-flow proof (``layoutalg.kernel.dataflow.check_mma``) of the CuTe tutorial GEMM.

    python benchmarks/bench_dataflow.py [--write]

The kernel is tests/data/kernels/cute_tutorial_hgemm_tn_256x128x64/kernel.ptx (CUTLASS 4.2's
sgemm_sm80.cu, half TN: cp.async.ca into Swizzle<3,3,3> smem, ldmatrix.x4, mma.m16n8k16, 128 threads,
128x128x64 CTA tiles), launched as tests/data/kernels/cute_tutorial_hgemm_tn_256x256x256 (m = n = k = 256,
so 4 k-tiles per CTA).  Measured in one run, CPU seconds (``time.process_time``: the 2-core machine is
shared), best of ``REPEATS``:

* the proof of one CTA over 4 k-tiles from a parsed module (interpretation with tags, the mma check,
  the final check of C); goal < 5 s;
* the plain trace of the same CTA (bank costs, no tags), for the ratio;
* the layout recovery of that CTA's 40 ldmatrix and 48 cp.async instructions;
* the proof of the whole 2 x 2 grid.

``--write`` stores the table in benchmarks/results/dataflow.md.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from typing import Any, Callable

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from layoutalg.kernel import trace  # noqa: E402
from layoutalg.kernel.dataflow import check_mma  # noqa: E402
from layoutalg.kernel.ptx import parse_module  # noqa: E402

CORPUS = os.path.join(ROOT, "tests", "data", "kernels")
REPEATS = 3
GOAL_SECONDS = 5.0


def best(fn: Callable[[], Any], repeats: int = REPEATS) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        t = time.process_time()
        out = fn()
        times.append(time.process_time() - t)
    return min(times), out


def main(argv: list[str]) -> int:
    with open(os.path.join(CORPUS, "cute_tutorial_hgemm_tn_256x256x256", "launch.json")) as fh:
        launch = json.load(fh)
    with open(os.path.join(CORPUS, "cute_tutorial_hgemm_tn_256x128x64", "kernel.ptx")) as fh:
        module = parse_module(fh.read())
    specs = dict(s.split("=", 1) for s in launch["mma_check"])
    common = dict(kernel=launch["kernel"], grid=launch["grid"], block=launch["block"], args=launch["args"],
                  dynamic_smem=launch["dynamic_smem"])
    one = trace(module, ctas=[(0, 0)], **common)
    whole = trace(module, **common)
    lines: list[str] = []

    def say(s: str = "") -> None:
        print(s)
        lines.append(s)

    prove_s, result = best(lambda: check_mma(one, a=specs["A"], b=specs["B"], c=specs["C"]))
    trace_s, _ = best(lambda: trace(module, ctas=[(0, 0)], **common))
    recover_s, layouts = best(lambda: result.layouts())
    grid_s, grid = best(lambda: check_mma(whole, a=specs["A"], b=specs["B"], c=specs["C"]), repeats=1)
    say(f"# layoutalg.kernel.dataflow benchmark\n\nmachine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs shared with other jobs, Python {platform.python_version()}; CPU seconds "
        f"(process_time), best of {REPEATS}\n")
    say("CuTe tutorial GEMM (half TN, 128x128x64 tiles, 3-stage cp.async, Swizzle<3,3,3>, ldmatrix.x4, "
        "mma.m16n8k16), m = n = k = 256\n")
    say("| measurement | seconds | result |\n|---|---|---|")
    say(f"| data-flow proof, one CTA, 4 k-tiles (goal < {GOAL_SECONDS:.0f} s) | {prove_s:.3f} | {result.verdict} |")
    say(f"| plain trace of the same CTA (no tags) | {trace_s:.3f} | |")
    say(f"| layout recovery of that CTA ({len(layouts)} instructions) | {recover_s:.3f} | "
        f"{sorted({x.text() for x in layouts if x.matrix})} |")
    say(f"| data-flow proof, whole 2x2 grid | {grid_s:.3f} | {grid.verdict} |")
    say(f"\nproof / plain trace: {prove_s / trace_s:.1f}x")
    if "--write" in argv:
        with open(os.path.join(ROOT, "benchmarks", "results", "dataflow.md"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
    ok = result.verdict == "proved" and grid.verdict == "proved" and prove_s < GOAL_SECONDS
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

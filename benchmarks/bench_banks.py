"""Benchmark: analysing every ldmatrix.x4 of a 128x128 fp16 tile read by 4 warps over a 4-step k-loop.

    python benchmarks/bench_banks.py [--write]

The access: warp w reads rows 32w .. 32w+31 (two 16-row blocks i // 2), k-step k reads columns 32k .. 32k+31
(two 16-column blocks i % 2); lane l supplies row l % 16, column (l // 16) * 8 of its 16x16 block (CUTLASS's
A-operand ldmatrix.x4 order): 4 warps x 4 k-steps x 4 instructions = 64 ldmatrix.x4.  Compared, in one run:

* ``banks.analyze`` (vectorised numpy);
* a per-lane Python loop over the same instructions: the layout called per lane, then the scalar model.

Both must agree on every instruction.  Goal: analyze < 50 ms and >= 50x faster.  ``--write`` stores the
numbers in benchmarks/results/banks.md.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from layoutalg.banks import analyze, wavefronts  # noqa: E402
from layoutalg.banks.access import Access  # noqa: E402
from layoutalg.core.layout import Layout  # noqa: E402
from layoutalg.swizzle.composed import ComposedLayout  # noqa: E402
from layoutalg.swizzle.swizzle import Swizzle  # noqa: E402

INSTRUCTION = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"


def coords(lane, warp, k, i):
    return warp * 32 + (i // 2) * 16 + lane % 16, k * 32 + (i % 2) * 16 + (lane // 16) * 8


def vectorised(layout):
    access = Access.from_fn(INSTRUCTION, coords, warp=4, k=4, i=4)
    return analyze(layout, access, dtype="f16").wavefronts.ravel().tolist()


def per_lane_loop(layout):
    out = []
    for warp in range(4):
        for k in range(4):
            for i in range(4):
                addrs = [2 * layout(*coords(lane, warp, k, i)) for lane in range(32)]
                out.append(wavefronts(INSTRUCTION, addrs))
    return out


def best_of(fn, layout, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        result = fn(layout)
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times), result


def main() -> int:
    layouts = {
        "row-major (128,128):(128,1)": Layout((128, 128), (128, 1)),
        "Swizzle<3,3,4> o (128,128):(128,1)": ComposedLayout(Swizzle(3, 3, 4), 0, Layout((128, 128), (128, 1))),
    }
    rows = []
    for name, layout in layouts.items():
        vec_best, vec_med, vec = best_of(vectorised, layout, 20)
        loop_best, loop_med, loop = best_of(per_lane_loop, layout, 5)
        assert vec == loop, "vectorised and per-lane results differ"
        rows.append((name, sum(vec), vec_best, vec_med, loop_best, loop_med, loop_best / vec_best))
    lines = ["| layout | total wavefronts (64 instr.) | analyze best / median | per-lane loop best / median | speed-up |",
             "|---|---|---|---|---|"]
    for name, total, vb, vm, lb, lm, ratio in rows:
        lines.append(f"| {name} | {total} | {vb * 1e3:.2f} / {vm * 1e3:.2f} ms | {lb * 1e3:.1f} / {lm * 1e3:.1f} ms "
                     f"| {ratio:.0f}x |")
    text = "\n".join(lines)
    print(text)
    ok = all(r[2] < 0.050 and r[6] >= 50 for r in rows)
    print("goal (< 50 ms and >= 50x):", "met" if ok else "NOT met")
    if "--write" in sys.argv:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "banks.md")
        with open(path, "w") as fh:
            fh.write("# banks.analyze benchmark\n\n"
                     "Every ldmatrix.x4 of a 128x128 fp16 tile read by 4 warps over a 4-step k-loop (64 instructions), "
                     "`python benchmarks/bench_banks.py --write`, one run, both methods in the same process "
                     "(best of 20 / 5 repeats).\n\n" + text + "\n\ngoal (< 50 ms and >= 50x): "
                     + ("met" if ok else "NOT met") + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

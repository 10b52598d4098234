"""Benchmark: analysing every ldmatrix.x4 of a 128x128 fp16 tile read by 4 warps over a 4-step k-loop, and
every cp.async of the tile fill of an 8-step k-loop.

    python benchmarks/bench_banks.py [--write]

The access: warp w reads rows 32w .. 32w+31 (two 16-row blocks i // 2), k-step k reads columns 32k .. 32k+31
(two 16-column blocks i % 2); lane l supplies row l % 16, column (l // 16) * 8 of its 16x16 block (CUTLASS's
A-operand ldmatrix.x4 order): 4 warps x 4 k-steps x 4 instructions = 64 ldmatrix.x4.  Compared, in one run:

* ``banks.analyze`` (vectorised numpy);
* a per-lane Python loop over the same instructions: the layout called per lane, then the scalar model.

Both must agree on every instruction.  Goal: analyze < 50 ms and >= 50x faster.

cp.async (issue 13: it was 0.46x a per-lane loop): the sm80 producer filling a 128x64 fp16 ``Sw<3,3,3>`` stage
(128 threads, thread ``t`` copies row ``16 i + t // 8``, columns ``8 (t % 8)`` .. +7 in copy ``i`` of 8) from
a row-major global matrix, over 8 k-tiles (k-tile ``k``: global columns ``64 k`` ..): 4 warps x 8 k x 8 copies =
256 instructions, for ``.cg`` and ``.ca`` 16 bytes and ``.ca`` 4 bytes (a warp per row), with 128-byte-aligned
and padded global rows.  The per-lane loop here is the fastest plain one: both layouts tabulated once, then
per instruction 32 table lookups per side and the scalar rule.  Goal: analyze >= 20x the loop, in one run; and
the share of a k-loop analysis (the fill plus the ldmatrix.x4 reads above) spent on the fill.  ``--write``
stores the numbers in benchmarks/results/banks.md.
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


K_TILES = 8
FILLS = {  # name -> (instruction, coordinate function, copies per warp per k-tile)
    "cp.async.cg 16 B": ("cp.async.cg.shared.global", lambda lane, warp, k, i: (16 * i + (32 * warp + lane) // 8,
                                                                               64 * k + 8 * ((32 * warp + lane) % 8)), 8),
    "cp.async.ca 16 B": ("cp.async.ca.shared.global, 16", lambda lane, warp, k, i: (16 * i + (32 * warp + lane) // 8,
                                                                                   64 * k + 8 * ((32 * warp + lane) % 8)), 8),
    "cp.async.ca 4 B": ("cp.async.ca.shared.global, 4", lambda lane, warp, k, i: (4 * i + warp, 64 * k + 2 * lane), 32),
}


def fill_layouts(global_ld):
    """The stage (reused by every k-tile: stride 0) and the global matrix, over (row, column of the k-loop)."""
    smem = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((128, (64, K_TILES)), (64, (1, 0))))
    return smem, Layout((128, (64, K_TILES)), (global_ld, (1, 64)))


def fill_vectorised(instruction, fn, copies, smem, glob):
    access = Access.from_fn(instruction, fn, warp=4, k=K_TILES, i=copies)
    return analyze(smem, access, dtype="f16", global_layout=glob).wavefronts.ravel().tolist()


def fill_per_lane_loop(instruction, fn, copies, smem_table, glob_table):
    out = []
    for warp in range(4):
        for k in range(K_TILES):
            for i in range(copies):
                s, g = [], []
                for lane in range(32):
                    row, col = fn(lane, warp, k, i)
                    s.append(2 * smem_table[row + 128 * col])
                    g.append(2 * glob_table[row + 128 * col])
                out.append(wavefronts(instruction, s, g))
    return out


def timed(fn, repeats, *args):
    times, result = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times), result


def cp_async_rows():
    rows = []
    for name, (instruction, fn, copies) in FILLS.items():
        for global_ld in (4096, 4104):
            smem, glob = fill_layouts(global_ld)
            smem_table, glob_table = smem.to_numpy().tolist(), glob.to_numpy().tolist()
            vb, vm, vec = timed(fill_vectorised, 20, instruction, fn, copies, smem, glob)
            lb, lm, loop = timed(fill_per_lane_loop, 3, instruction, fn, copies, smem_table, glob_table)
            assert vec == loop, f"{name}: vectorised and per-lane results differ"
            rows.append((f"{name}, global rows of {global_ld} f16", len(vec), sum(vec), vb, vm, lb, lm, lb / vb))
    return rows


def k_loop_share():
    """One k-loop analysis: the .cg fill (256 instructions) plus the 64 ldmatrix.x4 reads of the first table."""
    instruction, fn, copies = FILLS["cp.async.cg 16 B"]
    smem, glob = fill_layouts(4096)
    reads = ComposedLayout(Swizzle(3, 3, 4), 0, Layout((128, 128), (128, 1)))
    fill, _, _ = timed(fill_vectorised, 20, instruction, fn, copies, smem, glob)
    read, _, _ = timed(vectorised, 20, reads)
    return fill, read


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
    fills = cp_async_rows()
    flines = ["| fill | instructions | total wavefronts | analyze best / median | per-lane loop best / median "
              "| per instruction | speed-up |", "|---|---|---|---|---|---|---|"]
    for name, count, total, vb, vm, lb, lm, ratio in fills:
        flines.append(f"| {name} | {count} | {total} | {vb * 1e3:.2f} / {vm * 1e3:.2f} ms | {lb * 1e3:.1f} / "
                      f"{lm * 1e3:.1f} ms | {vb / count * 1e6:.1f} us vs {lb / count * 1e6:.0f} us | {ratio:.0f}x |")
    fill, read = k_loop_share()
    ftext = "\n".join(flines) + (f"\n\nk-loop analysis (the .cg fill above plus the 64 ldmatrix.x4 reads): fill "
                                 f"{fill * 1e3:.2f} ms, reads {read * 1e3:.2f} ms, the fill's share "
                                 f"{100 * fill / (fill + read):.0f}%")
    print(ftext)
    fill_ok = all(r[7] >= 20 for r in fills)
    print("cp.async goal (>= 20x the per-lane loop):", "met" if fill_ok else "NOT met")
    if "--write" in sys.argv:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "banks.md")
        with open(path, "w") as fh:
            fh.write("# banks.analyze benchmark\n\n"
                     "Every ldmatrix.x4 of a 128x128 fp16 tile read by 4 warps over a 4-step k-loop (64 instructions), "
                     "`python benchmarks/bench_banks.py --write`, one run, both methods in the same process "
                     "(best of 20 / 5 repeats).\n\n" + text + "\n\ngoal (< 50 ms and >= 50x): "
                     + ("met" if ok else "NOT met") + "\n\n"
                     "## cp.async fills\n\n"
                     "The sm80 producer's tile fill over an 8-step k-loop (see the module doc); the per-lane loop "
                     "looks both layouts up in tables made once, then calls the scalar rule (best of 20 / 3 "
                     "repeats, same run).\n\n" + ftext + "\n\ngoal (>= 20x the per-lane loop): "
                     + ("met" if fill_ok else "NOT met") + "\n")
    return 0 if ok and fill_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

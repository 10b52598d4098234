"""Prover speed: the proofs/ suite, and GF(2) against z3 (and enumeration) on the same claims.

    python benchmarks/bench_prove.py            # prints a markdown report
    python benchmarks/bench_prove.py --write    # also writes benchmarks/results/prove.md

Measured in one run, so the ratios compare like with like.  The equivalence
claims are power-of-two swizzled layouts (CuTe ``Sw<B,M,S> o shape:stride``)
against a re-factored copy of themselves (the same function written with split
modes, so proving it is real work for every engine) and against a copy with one
stride changed (refuted); each engine's time is the median of ``REPEAT`` runs.
"""

from __future__ import annotations

import argparse
import io
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from layoutalg.core.layout import Layout  # noqa: E402
from layoutalg.prove import claims as claims_mod  # noqa: E402
from layoutalg.prove import equivalent, injective  # noqa: E402
from layoutalg.prove.runner import collect  # noqa: E402
from layoutalg.prove.theorem import run_theorem  # noqa: E402
from layoutalg.swizzle.composed import ComposedLayout  # noqa: E402
from layoutalg.swizzle.swizzle import Swizzle  # noqa: E402

REPEAT = 5


def median_time(fn: Callable[[], Any]) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(REPEAT):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def suite() -> tuple[list[tuple[str, str, str, float]], float]:
    theorems, failures = collect([str(ROOT / "proofs")], sys.stderr)
    if failures:
        raise SystemExit(f"cannot load: {failures}")
    rows = []
    start = time.perf_counter()
    for t in theorems:
        o = run_theorem(t)
        rows.append((t.name, o.status, o.result.method if o.result is not None else "-", o.seconds))
    return rows, time.perf_counter() - start


def claims() -> list[tuple[str, Callable[[str], Any], str]]:
    """(label, claim(method), expected) for power-of-two layouts of growing size."""
    out = []
    shapes = ((8, 64, Swizzle(3, 3, 3)), (64, 64, Swizzle(3, 3, 3)), (128, 128, Swizzle(3, 4, 3)), (256, 256, Swizzle(3, 4, 4)), (1024, 1024, Swizzle(5, 4, 5)))
    for rows, cols, sw in shapes:
        flat = Layout((rows, cols), (cols, 1))
        split = Layout(((8, rows // 8), (8, cols // 8)), ((cols, 8 * cols), (1, 8)))  # the same function, re-factored
        wrong = Layout(((8, rows // 8), (8, cols // 8)), ((cols, 8 * cols), (cols // 8, 1)))  # columns permuted
        a = ComposedLayout(sw, 0, flat)
        b = ComposedLayout(sw, 0, split)
        c = ComposedLayout(sw, 0, wrong)
        size = rows * cols
        out.append((f"{sw} o {rows}x{cols} == re-factored ({size} pts)", lambda m, a=a, b=b: equivalent(a, b, method=m), "proved"))
        out.append((f"{sw} o {rows}x{cols} == mutated ({size} pts)", lambda m, a=a, c=c: equivalent(a, c, method=m), "refuted"))
        out.append((f"{sw} o {rows}x{cols} injective ({size} pts)", lambda m, a=a: injective(a, method=m), "proved"))
    return out


def recorded_problem(claim: Callable[[str], Any]) -> Any:
    """The normalised problem a claim hands to the engines (captured by wrapping ``claims.run_problem``)."""
    seen: list[Any] = []
    original = claims_mod.run_problem

    def spy(problem: Any, *args: Any) -> Any:
        seen.append(problem)
        return original(problem, *args)

    claims_mod.run_problem = spy  # type: ignore[assignment]
    try:
        claim("f2")
    finally:
        claims_mod.run_problem = original  # type: ignore[assignment]
    return seen[0]


def engines_table() -> tuple[str, list[float], list[float]]:
    """End-to-end claim time per method, and engine-only time on the same normalised problem."""
    from layoutalg.prove import engine_enum, engine_f2, engine_z3

    lines = [
        "| claim | expected | GF(2) claim s | z3 claim s | z3/GF(2) claim | GF(2) engine s | z3 engine s | enum engine s | z3/GF(2) engine |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    claim_ratios, engine_ratios = [], []
    for label, claim, expected in claims():
        t = {}
        for m in ("f2", "z3"):
            secs, r = median_time(lambda m=m, claim=claim: claim(m))
            assert r.status == expected, (label, m, r)
            t[m] = secs
        problem = recorded_problem(claim)
        e = {}
        for name, decide in (("f2", engine_f2.decide), ("z3", engine_z3.decide), ("enum", engine_enum.decide)):
            try:
                secs, out = median_time(lambda decide=decide, problem=problem: decide(problem))
            except Exception:  # enumeration refuses domains above its limit
                e[name] = float("nan")
                continue
            assert out.status == expected, (label, name, out)
            e[name] = secs
        claim_ratios.append(t["z3"] / t["f2"])
        engine_ratios.append(e["z3"] / e["f2"])
        enum_text = "n/a (too big)" if e["enum"] != e["enum"] else f"{e['enum']:.4f}"
        lines.append(
            f"| {label} | {expected} | {t['f2']:.5f} | {t['z3']:.4f} | {t['z3'] / t['f2']:.0f}x "
            f"| {e['f2']:.6f} | {e['z3']:.4f} | {enum_text} | {e['z3'] / e['f2']:.0f}x |"
        )
    return "\n".join(lines), claim_ratios, engine_ratios


def theorem_problems() -> list[tuple[str, Any]]:
    """Every normalised problem the proofs/ theorems decide with GF(2) (captured while running them)."""
    theorems, _ = collect([str(ROOT / "proofs")], sys.stderr)
    out: list[tuple[str, Any]] = []
    original = claims_mod.run_problem

    for t in theorems:
        seen: list[Any] = []

        def spy(problem: Any, *args: Any, seen: list[Any] = seen) -> Any:
            result = original(problem, *args)
            if result[1] == "f2":
                seen.append(problem)
            return result

        claims_mod.run_problem = spy  # type: ignore[assignment]
        try:
            run_theorem(t)
        finally:
            claims_mod.run_problem = original  # type: ignore[assignment]
        out.extend((t.name, p) for p in seen)
    return out


def theorem_engine_table() -> tuple[str, list[float]]:
    from layoutalg.prove import engine_f2, engine_z3

    lines = ["| theorem (GF(2)-decided claim) | GF(2) engine s | z3 engine s | z3 / GF(2) |", "|---|---|---|---|"]
    ratios = []
    for name, problem in theorem_problems():
        tf, a = median_time(lambda problem=problem: engine_f2.decide(problem))
        tz, b = median_time(lambda problem=problem: engine_z3.decide(problem))
        assert a.status == b.status, (name, a, b)
        ratios.append(tz / tf)
        lines.append(f"| {name} | {tf:.6f} | {tz:.4f} | {tz / tf:.0f}x |")
    return "\n".join(lines), ratios


def report() -> str:
    buf = io.StringIO()
    rows, total = suite()
    buf.write("# Prover benchmark\n\n")
    buf.write(f"Machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
              f"`os.cpu_count()` = {__import__('os').cpu_count()}. Command: `python benchmarks/bench_prove.py --write`.\n\n")
    buf.write("## proofs/ suite (acceptance: whole suite < 30 s, each theorem < 2 s)\n\n")
    buf.write(f"{len(rows)} theorems, {total:.2f} s in all (collection excluded), slowest {max(r[3] for r in rows):.3f} s.\n\n")
    buf.write("| theorem | status | method | seconds |\n|---|---|---|---|\n")
    for name, status, method, secs in sorted(rows, key=lambda r: -r[3]):
        buf.write(f"| {name} | {status} | {method} | {secs:.3f} |\n")
    table, claim_ratios, engine_ratios = engines_table()
    buf.write("\n## GF(2) against z3 and enumeration on the same power-of-two claims\n\n")
    buf.write(
        f"Median of {REPEAT} runs each. *Claim* time is the whole public call (building terms, lowering, deciding,\n"
        "rendering the result); *engine* time is the decision procedure alone on the same normalised problem.\n\n"
        f"- GF(2) over z3, engine only: geometric mean {statistics.geometric_mean(engine_ratios):.0f}x "
        f"(min {min(engine_ratios):.0f}x, max {max(engine_ratios):.0f}x)\n"
        f"- GF(2) over z3, whole claim: geometric mean {statistics.geometric_mean(claim_ratios):.0f}x "
        f"(min {min(claim_ratios):.0f}x, max {max(claim_ratios):.0f}x)\n\n"
    )
    buf.write(table + "\n")
    table2, ratios2 = theorem_engine_table()
    buf.write("\n## GF(2) against z3 on the claims of the proofs/ theorems that GF(2) decides\n\n")
    buf.write(f"Engine only, median of {REPEAT} runs; both engines must agree. Geometric-mean speed-up of GF(2): "
              f"{statistics.geometric_mean(ratios2):.0f}x (min {min(ratios2):.0f}x, max {max(ratios2):.0f}x).\n\n")
    buf.write(table2 + "\n")
    return buf.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    text = report()
    print(text)
    if args.write:
        out = ROOT / "benchmarks" / "results" / "prove.md"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)


if __name__ == "__main__":
    main()

"""Time the operations layoutalg gained from PyCuTe, per call, against the legacy ``pycute`` where it has them.

Run: ``.venv/bin/python benchmarks/bench_pycute_ops.py [--quick] [--ops a,b] [--no-strided] [--out FILE.md]``

Inputs: every recorded PyCuTe test call of each operation (``tests/data/pycute_cases.json``,
literal arguments only), built once outside the timing; int-stride inputs and basis/F2-stride
inputs are separate rows.  Each call is repeated until it has run ``TARGET_SECONDS`` (10 ms); the
calls alternate over 5 rounds and keep their best; where pycute is timed too, over 15 rounds of
about 4 ms each (``COMPARED_ROUNDS``: a shared machine's busy moments then hit both libraries alike).  layoutalg is timed twice: *cold*, every
memo (the composition memo and :mod:`layoutalg.core.memo`'s) cleared before every call and the
clearing cost subtracted, and *warm*, the same call repeated (a memo hit where the operation has
one).  The legacy ``pycute`` package (CUTLASS's, installed as a test dependency)
has counterparts for some operations only; where its answer differs in meaning (its
``complement(A)`` has no rest mode; its ``left_inverse`` of a stride-0 layout is ``1:0``),
the row says so: the time is still for the same call on the same input.  NVIDIA's
PyCuTe is not installable from a package index and its code may not be copied into this
project, so it is not timed here: no PyCuTe comparison was possible.
"""

from __future__ import annotations

import ast
import os
import statistics
import sys
import timeit
from typing import Any, Callable

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

import layoutalg as la  # noqa: E402
from layoutalg.core import algebra as alg  # noqa: E402
from layoutalg.core import memo  # noqa: E402
from tests.oracles import pycute_names as names  # noqa: E402
from tests.oracles.pycute_parity import load_cases  # noqa: E402

QUICK = "--quick" in sys.argv
TARGET_SECONDS = 0.002 if QUICK else 0.01
#: Rounds where only layoutalg is timed, and where it is compared with pycute: a comparison alternates the
#: libraries over more, shorter rounds, so that a busy moment of a shared machine hits both alike and the best
#: round of each is a quiet one (the ratio is what the row reports).
ROUNDS, COMPARED_ROUNDS, COMPARED_SECONDS = 5, 15, 0.004 if not QUICK else 0.001

#: operation -> (layoutalg call, legacy pycute call or None, note)
OPS: dict[str, tuple[Callable[..., Any], str | None, str]] = {
    "layout_add": (la.layout_add, None, ""),
    "nullspace": (la.nullspace, None, ""),
    "greatest_common_domain": (la.greatest_common_domain, None, ""),
    "coalesce_z": (la.coalesce_z, None, ""),
    "common_refinement": (la.common_refinement, None, ""),
    "common_coarsening": (la.common_coarsening, None, ""),
    "compatible": (la.compatible, None, ""),
    "make_layout_like": (la.make_layout_like, None, ""),
    "make_ordered_layout": (la.make_ordered_layout, None, ""),
    "product_each": (la.product_each, None, ""),
    "recast": (la.recast, None, "PyCuTe's recast(L, ratio)"),
    "complement": (la.weak_complement, "complement",
                   "weak_complement(A); pycute's complement(A) (max_idx=1) drops the rest mode"),
    "left_inverse": (la.left_inverse, "left_inverse",
                     "pycute answers 1:0 for layouts with stride-0 modes. Below 2x cold, only the five inputs PyCuTe's "
                     "own tests expect to raise ValueError: (2,2):(2,5) and (2,2):(2,3) do not chain, pycute returns "
                     "(2,2):(4,1), which is no left inverse, where layoutalg finds one (the search's first leaf, solved by substitution) "
                     "((2,4):(0,1), (2,4):(1,1)); the non-injective (2,2):(1,1), (2,3):(2,1), (63,2):(1,1) get the "
                     "generalized inverse read off every offset (pycute's 2:1 for (2,2):(1,1) is wrong). Those answers "
                     "are remembered, so a repeated call is a memo hit (the warm columns)"),
    "right_inverse": (la.right_inverse, "right_inverse", "existing operation, PyCuTe's inputs"),
    "coalesce": (la.coalesce, "coalesce", "existing operation, PyCuTe's inputs"),
    "logical_product": (la.logical_product, "logical_product",
                        "existing operation, now with CuTe's weak-complement fallback; PyCuTe's inputs. (A, None) "
                        "returns A at once in both libraries, a single Python call each (layoutalg also checks A's type): no 2x "
                        "is possible there; (A, (None, None)) returns A too"),
    "prefix_product": (la.prefix_product, "prefix_product",
                       "with the tuple init too. prefix_product(2) returns its init in both libraries and a flat "
                       "tuple takes under 0.5 us: there the Python call itself is most of the time"),
    "crd2idx": (la.crd2idx, "crd2idx", "two-argument form (compact strides)"),
}

EXTRA = {  # inputs PyCuTe's tests lack: the tuple init of prefix_product
    "prefix_product": ["prefix_product(((2, 3), (4, 5)), (1, 10))", "prefix_product(((8, 4), 2, (3, 3)), (1, 7, 5))"],
}


Call = tuple[Callable[..., Any], tuple[Any, ...], bool]  # (function, its arguments, clear the memos first)


def _timer(call: Call) -> timeit.Timer:
    """A :class:`timeit.Timer` whose compiled loop calls ``function(a0, a1, ...)`` directly (after clearing every
    memo when asked): no wrapper call or argument unpacking of the harness is timed, so a call of a few tens of
    nanoseconds is measured as itself."""
    fn, args, clear = call
    names = [f"a{k}" for k in range(len(args))]
    stmt = ("clear(); " if clear else "") + f"fn({', '.join(names)})"
    return timeit.Timer(stmt, globals={"fn": fn, "clear": _clear, **dict(zip(names, args))})


def _reps(timer: timeit.Timer, seconds: float) -> int:
    reps = 1
    while timer.timeit(reps) < seconds:
        reps *= 4
    return reps


def _clear() -> None:
    alg._compose.cache_clear()
    memo.clear_all()


def _time(*calls: Call) -> list[float]:
    """Seconds per call of each call; the first is layoutalg cold (every memo cleared before every call, the
    clearing cost subtracted).  The calls alternate over ROUNDS rounds (COMPARED_ROUNDS shorter ones when
    pycute is timed too) and each keeps its best, so a change in the machine's load affects them alike."""
    compared = len(calls) > 2
    seconds = COMPARED_SECONDS if compared else TARGET_SECONDS
    timers = [_timer(call) for call in calls]
    reps = [_reps(timer, seconds) for timer in timers]
    clearing_timer = timeit.Timer("clear()", globals={"clear": _clear})
    best = [float("inf")] * len(calls)
    clearing = float("inf")
    for _ in range(COMPARED_ROUNDS if compared else ROUNDS):
        for k, timer in enumerate(timers):
            best[k] = min(best[k], timer.timeit(reps[k]) / reps[k])
        clearing = min(clearing, clearing_timer.timeit(reps[0]) / reps[0])  # measured in the rounds it corrects
    best[0] = max(best[0] - clearing, best[0] * 0.05)
    return best


def to_pycute(x: Any) -> Any:
    import pycute

    if isinstance(x, la.Layout):
        return pycute.Layout(x.shape, x.stride)
    if isinstance(x, tuple) and any(isinstance(e, la.Layout) for e in x):
        return tuple(to_pycute(e) for e in x)
    return x


def _strided(args: tuple[Any, ...]) -> bool:
    return any(isinstance(a, (la.StrideLayout, la.Tensor)) for a in args)


def pycute_refuses(op: str) -> set[str]:
    """Sources of the recorded calls of ``op`` that PyCuTe's own tests expect to raise (PyCuTe gives no answer)."""
    return {c["src"] for c in load_cases() if c.get("op") == op and c.get("raises")}


def inputs(op: str, strided: bool = False) -> list[tuple[Any, ...]]:
    """The literal argument tuples of every recorded call (or asserted predicate) of ``op``: those with basis or F2
    strides when ``strided``, else the int-stride ones."""
    return [args for args, _ in inputs_with_sources(op, strided)]


def inputs_with_sources(op: str, strided: bool = False) -> list[tuple[tuple[Any, ...], str]]:
    """:func:`inputs`, each with the source text it was read from."""
    seen, out = set(), []
    srcs = [c.get("src", "") for c in load_cases() if not c.get("derived") and not c.get("symbolic")]
    for src in srcs + EXTRA.get(op, []):
        node = ast.parse(src, mode="eval").body if src else None
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == op):
            continue
        if node.keywords or src in seen:
            continue
        seen.add(src)
        try:
            args = tuple(names.evaluate(ast.unparse(a)) for a in node.args)
            OPS[op][0](*args)
        except Exception:
            continue  # an input both refuse
        if _strided(args) == strided:
            out.append((args, src))
    return out


def main() -> None:
    import pycute

    rows = []
    only = sys.argv[sys.argv.index("--ops") + 1].split(",") if "--ops" in sys.argv else list(OPS)
    plan = [(op, False) for op in only] + [(op, True) for op in only if "--no-strided" not in sys.argv]
    for op, strided in plan:
        ours, theirs_name, note = OPS[op]
        if strided:
            theirs_name, note = None, ("basis (E) or F2 strides: exact by construction where the strides are Z-linear "
                                        "(F2: at a power-of-two size), else checked on the whole domain")
        cases = inputs_with_sources(op, strided)
        refused = pycute_refuses(op)
        ours_t, warm_t, ratios, warm_ratios, theirs_t = [], [], [], [], []
        answered_ratios: list[float] = []  # cold ratios on the inputs PyCuTe answers (its tests expect no raise)
        for args, src in cases:
            theirs = getattr(pycute, theirs_name) if theirs_name else None
            py_args = tuple(to_pycute(a) for a in args)

            try:
                if theirs is None:
                    raise LookupError
                theirs(*py_args)
            except Exception:
                cold, warm = _time((ours, args, True), (ours, args, False))
                ours_t.append(cold)
                warm_t.append(warm)
                continue
            cold, warm, t_theirs = _time((ours, args, True), (ours, args, False), (theirs, py_args, False))
            ours_t.append(cold)
            warm_t.append(warm)
            theirs_t.append(t_theirs)
            ratios.append(t_theirs / cold)
            warm_ratios.append(t_theirs / warm)
            if src not in refused:
                answered_ratios.append(t_theirs / cold)
        if not cases:
            continue

        def fmt(xs: list[float], scale: float = 1e6, worst: bool = False) -> str:
            if not xs:
                return "n/a"
            value = min(xs) if worst else statistics.median(xs)
            return f"{value * scale:.1f}" if scale != 1 else f"{value:.1f}x"

        label = f"{op} (basis/F2 strides)" if strided else op
        rows.append(f"| {label} | {len(cases)} | {fmt(ours_t)} | {fmt(warm_t)} | {fmt(theirs_t)} | "
                    f"{fmt(ratios, 1)} | {fmt(ratios, 1, True)} | {fmt(warm_ratios, 1)} | "
                    f"{fmt(warm_ratios, 1, True)} | {fmt(answered_ratios, 1, True)} | {note} |")
        print(rows[-1], flush=True)
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    header = [
        "# PyCuTe operations in layoutalg: time per call",
        "",
        "Command: `.venv/bin/python benchmarks/bench_pycute_ops.py --out benchmarks/results/pycute_ops.md` "
        "(one run, one process, the machine shared with other jobs; inputs: every recorded PyCuTe test call of "
        "the operation; each call timed as the best of 5 rounds of 10 ms, or of 15 rounds of 4 ms alternating with "
        "pycute where pycute has the operation). cold = every layoutalg memo cleared before each call; warm = the "
        "call repeated. "
        "pycute = the legacy CUTLASS `pycute` package. NVIDIA's PyCuTe is not installable and its code may not be "
        "copied here, so no PyCuTe timing was possible.",
        "",
        "| operation | inputs | layoutalg cold median (us) | layoutalg warm median (us) | pycute median (us) |"
        " pycute / cold (median) | pycute / cold (worst) | pycute / warm (median) | pycute / warm (worst) |"
        " pycute / cold (worst where PyCuTe answers) | note |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write("\n".join(header + rows) + "\n")


if __name__ == "__main__":
    main()

"""Time layoutalg's algebra against pycute on the corpus, in one process.

Run: ``.venv/bin/python benchmarks/bench_algebra.py [--quick]``

For every operation and corpus entry, each library performs the same call
many times (inputs built once, outside the timing); layoutalg's memo caches
are cleared before every call, so the figures are for cold calls (the cost of
the clearing itself, measured on an empty call, is subtracted).  The table
gives, per operation, the median over the corpus of per-entry times and of the
ratio ``pycute / layoutalg`` (higher means layoutalg is faster), and the worst
entry's ratio.

CuTe DSL is not timed: its algebra runs only inside a ``@cute.jit`` trace, where
a Python loop of repeated calls is traced once (not run once per iteration), so
a loop-around-the-call timing measures tracing, not the operation.  It remains
a correctness oracle (``tests/oracles/cute_dsl.py``).  The last line times whole-domain evaluation
(``Layout.to_numpy``) of a 2^20-element layout.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from functools import partial
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import corpus  # noqa: E402

from layoutalg.core import algebra as alg  # noqa: E402
from layoutalg.core import divide_product as dp  # noqa: E402
from layoutalg.core import shape_ops as so  # noqa: E402
from layoutalg.core.layout import Layout  # noqa: E402
from layoutalg.core.recast import recast  # noqa: E402

QUICK = "--quick" in sys.argv
TARGET_SECONDS = 0.004 if QUICK else 0.02


def _clear() -> None:
    alg._compose.cache_clear()


def _time(fn: Callable[[], Any], clear: bool) -> float:
    """Seconds per call (best of 3 rounds), less the cost of clearing the caches between calls."""
    total = _time_raw(fn, clear)
    return max(total - _CLEAR_COST, total * 0.05) if clear else total


def _time_raw(fn: Callable[[], Any], clear: bool) -> float:
    """Seconds per call: repeat until TARGET_SECONDS, best of 3 rounds."""
    reps = 1
    while True:
        start = time.perf_counter()
        for _ in range(reps):
            if clear:
                _clear()
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= TARGET_SECONDS:
            break
        reps *= 4
    best = elapsed / reps
    for _ in range(2):
        start = time.perf_counter()
        for _ in range(reps):
            if clear:
                _clear()
            fn()
        best = min(best, (time.perf_counter() - start) / reps)
    return best


# -- argument builders per library -------------------------------------------
def ours_arg(x: Any) -> Any:
    if isinstance(x, tuple) and len(x) == 2 and x[0] == "bymode":
        return tuple(ours_arg(t) for t in x[1])
    if isinstance(x, tuple) and len(x) == 2:
        return Layout(*x)
    return x


def pycute_arg(x: Any) -> Any:
    import pycute

    if isinstance(x, tuple) and len(x) == 2 and x[0] == "bymode":
        return tuple(pycute_arg(t) for t in x[1])
    if isinstance(x, tuple) and len(x) == 2:
        return pycute.Layout(*x)
    return x


def operations() -> list[tuple[str, list[tuple[str, tuple[Any, ...]]], Any, Any]]:
    """(name, cases, ours, pycute name or None)."""
    one = [(n, (p,)) for n, p in corpus.LAYOUTS]
    inj = [(n, (p,)) for n, p in corpus.INJECTIVE]
    comp = [(n, (a, b)) for n, a, b in corpus.COMPOSITIONS]
    cmpl = [(n, (a, m)) for n, a, m in corpus.COMPLEMENTS]
    div = [(n, (a, t)) for n, a, t in corpus.DIVIDES]
    prod = [(n, (a, b)) for n, a, b in corpus.PRODUCTS]
    mcv = [(n, (a, b)) for n, a, b in corpus.COMMON_VECTORS]
    ops: list[tuple[str, Any, Any, Any]] = [
        ("coalesce", one, alg.coalesce, "coalesce"),
        ("filter", one, alg.filter, "filter"),
        ("filter_zeros", one, alg.filter_zeros, None),
        ("composition", comp, alg.composition, "composition"),
        ("complement", cmpl, alg.complement, "complement"),
        ("right_inverse", inj, alg.right_inverse, "right_inverse"),
        ("left_inverse", inj, alg.left_inverse, "left_inverse"),
        ("max_common_vector", mcv, alg.max_common_vector, None),
        ("max_common_layout", mcv, alg.max_common_layout, None),
        ("logical_divide", div, dp.logical_divide, "logical_divide"),
        ("zipped_divide", div, dp.zipped_divide, "zipped_divide"),
        ("tiled_divide", div, dp.tiled_divide, "tiled_divide"),
        ("flat_divide", div, dp.flat_divide, None),
        ("logical_product", prod, dp.logical_product, "logical_product"),
        ("zipped_product", prod, dp.zipped_product, "zipped_product"),
        ("tiled_product", prod, dp.tiled_product, "tiled_product"),
        ("flat_product", prod, dp.flat_product, None),
        ("blocked_product", prod, dp.blocked_product, None),
        ("raked_product", prod, dp.raked_product, None),
        ("recast 16->32 bits", one, lambda a: recast(a, 16, 32), None),
        ("append", one, lambda a: so.append(a, Layout(4, 0)), None),
        ("select", one, lambda a: so.select(a, 0), None),
    ]
    return ops


_CLEAR_COST = 0.0


def main() -> None:
    import numpy as np
    import pycute

    global _CLEAR_COST
    _CLEAR_COST = _time_raw(lambda: None, clear=True) - _time_raw(lambda: None, clear=False)

    ops = operations()
    rows = []
    for name, cases, ours_fn, py_name in ops:
        ours_t, py_ratio = [], []
        for _, args in cases:
            ours_args = [ours_arg(a) for a in args]
            t_ours = _time(partial(ours_fn, *ours_args), clear=True)
            ours_t.append(t_ours)
            if py_name is not None:
                py_args = [pycute_arg(a) for a in args]
                py_fn = getattr(pycute, py_name)
                try:
                    py_fn(*py_args)
                    py_ratio.append(_time(partial(py_fn, *py_args), clear=False) / t_ours)
                except Exception:
                    pass
        rows.append(
            (
                name,
                len(cases),
                statistics.median(ours_t) * 1e6,
                f"{statistics.median(py_ratio):.1f}x" if py_ratio else "n/a",
                f"{min(py_ratio):.1f}x" if py_ratio else "n/a",
                str(len(py_ratio)),
            )
        )
    print("| operation | corpus entries | layoutalg median (us) | pycute / layoutalg (median) | pycute / layoutalg (worst entry) | entries timed by pycute |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]} | {r[4]} | {r[5]} |")
    big = Layout(*corpus.EVALUATE_2_20)
    times = []
    for _ in range(7):
        start = time.perf_counter()
        values = big.to_numpy()
        times.append(time.perf_counter() - start)
    assert values.size == 1 << 20 and int(values[12345]) == big(12345)
    print()
    print(f"Whole-domain evaluation of {big} ({big.size()} elements, Layout.to_numpy): median {statistics.median(times) * 1e3:.1f} ms (numpy {np.__version__})")


if __name__ == "__main__":
    main()

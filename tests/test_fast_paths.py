"""The algebra's fast paths against the general path or brute force: a fast path may only skip work, never
change an answer or an error (issue 16's speed work; ``benchmarks/bench_pycute_ops.py`` times them)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import strategies as ls
from layoutalg.core import memo
from layoutalg.core.flat import coalesce_extended, from_pairs, leaf_pairs

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


def _outcome(fn: Any, *args: Any) -> Any:
    memo.clear_all()
    try:
        return fn(*args)
    except la.LayoutError as err:
        return type(err)


def _values(pairs: list[tuple[int, int]]) -> list[int]:
    out = [0]
    for s, d in pairs:
        out = [v + k * d for k in range(s) for v in out]
    return out


def _reference_weak_complement(a: la.Layout, cotarget: int | None) -> Any:
    """CuTe's floored gap-filling construction, coalesced by the general routine, and checked by enumeration
    (ordered; ``(A, R)`` injective over two periods of the rest mode): the definition, with no shortcut."""
    modes = sorted((d, s) for s, d in leaf_pairs(a) if d != 0 and s != 1)
    if modes and modes[0][0] < 0:
        return la.LayoutError
    a_vals = _values([(s, d) for d, s in modes])
    gaps, cur = [], 1
    for d, s in modes:
        if d // cur == 0:
            return la.NotInjectiveError if len(set(a_vals)) != len(a_vals) else la.CompositionError
        gaps.append((d // cur, cur))
        cur = s * d
    rest = 1 if cotarget is None else -(-cotarget // cur)
    result = coalesce_extended([g for g in gaps if g[0] > 1] + [(rest, cur)])
    r_vals = _values(result[:-1] + [(result[-1][0] + 1, result[-1][1])])
    if len(set(a_vals)) != len(a_vals):
        return la.NotInjectiveError
    if any(x >= y for x, y in zip(r_vals, r_vals[1:])):
        return la.CompositionError
    if len({x + y for x in a_vals for y in r_vals}) != len(a_vals) * len(r_vals):
        return la.CompositionError
    return from_pairs(result)


@SETTINGS
@given(ls.layouts(max_size=256, max_rank=4, max_stride=96), st.one_of(st.none(), st.integers(1, 4096)))
def test_weak_complement_fast_construction_and_proof_equal_the_enumerated_definition(a: la.Layout,
                                                                                    cotarget: int | None) -> None:
    assert _outcome(la.weak_complement, a, cotarget) == _reference_weak_complement(a, cotarget)

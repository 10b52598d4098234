"""Red team for ``where=``: a parameter that only the condition mentions is still a free variable of the claim.

It is quantified, shown in the claim, and present in every counterexample, whose values must satisfy the
condition and falsify the claim (judged here by plain Python).  Random claims over a few variables and
parameters, with conditions over parameters the predicate never mentions, are judged by brute force in every
engine.  ``LAYOUTALG_ADVERSARIAL_EXAMPLES`` scales the random part (default 40)::

    LAYOUTALG_ADVERSARIAL_EXAMPLES=5000 python -m pytest tests/adversarial

(``LAYOUTALG_ADVERSARIAL_SEED=N`` shifts the fixed seed, for a different sample.)
"""

from __future__ import annotations

import itertools
import os
import random
from typing import Any, Callable

import pytest

from layoutalg.core.layout import Layout
from layoutalg.prove import aligned, equivalent, forall, in_bounds, param, var
from layoutalg.prove.expr import free_vars

EXAMPLES = int(os.environ.get("LAYOUTALG_ADVERSARIAL_EXAMPLES", "0") or 0) or 40
SEED = 5 + int(os.environ.get("LAYOUTALG_ADVERSARIAL_SEED", "0") or 0)
METHODS = ("auto", "f2", "z3", "enum")


@pytest.mark.parametrize("method", ["auto", "z3", "enum"])
def test_a_where_only_parameter_is_in_the_counterexample_and_the_claim(method: str) -> None:
    i, p = var("i", 8), param("p", 16)
    r = forall(i % 4 < 3, [i], where=p * 2 > i, method=method)
    assert r.refuted, r
    cex = r.counterexample or {}
    assert set(cex) >= {"i", "p"}
    assert cex["p"] * 2 > cex["i"] and not cex["i"] % 4 < 3
    assert "p in [0, 16)" in r.claim


@pytest.mark.parametrize("method", ["auto", "z3", "enum"])
def test_every_claim_kind_names_where_only_parameters(method: str) -> None:
    row, col, ld = var("row", 4), var("col", 8), param("ld", lo=8, hi=17)
    where = ld % 8 == 0  # only the condition mentions ld
    r1 = equivalent(Layout((4, 8), (8, 1)), Layout((4, 8), (1, 4)), {"row": row, "col": col}, where=where,
                    method=method)
    r2 = in_bounds(lambda row, col: row * 8 + col, 31, [row, col], where=where, method=method)
    r3 = aligned(lambda row, col: row * 8 + col, 16, [row, col], element_bytes=2, where=where, method=method)
    for r in (r1, r2, r3):
        assert r.refuted, r
        cex = r.counterexample or {}
        assert {"row", "col", "ld"} <= set(cex) and cex["ld"] % 8 == 0, r


Predicate = Callable[[dict[str, int]], bool]


def _random_claim(rng: random.Random) -> tuple[Any, Any, Predicate, Predicate, list[Any]]:
    """(pred, where, python pred, python where, free variables): where mentions only parameters."""
    xs = [var(f"x{k}", rng.choice((4, 8))) for k in range(rng.choice((1, 2)))]
    ps = [param(f"p{k}", lo=rng.choice((0, 1)), hi=rng.choice((4, 8, 16))) for k in range(rng.choice((1, 2)))]
    a, b = rng.choice((1, 2, 3)), rng.choice((0, 1, 5))
    cmp_bound = rng.choice((3, 6, 9, 20))
    x0 = xs[0]

    def py_pred(env: dict[str, int]) -> bool:
        return (a * env[x0.name] + b) % 7 < cmp_bound - (env[ps[0].name] if use_param else 0)

    use_param = rng.random() < 0.5
    pred = (a * x0 + b) % 7 < cmp_bound - (ps[0] if use_param else 0)
    c = rng.choice((1, 2, 3))
    last = ps[-1]
    where = (last * c) % 5 != 1

    def py_where(env: dict[str, int]) -> bool:
        return (env[last.name] * c) % 5 != 1

    used = free_vars(pred, where)
    return pred, where, py_pred, py_where, xs + [p for p in ps if p.key in used]


def test_random_where_only_parameters_match_brute_force() -> None:
    rng = random.Random(SEED)
    problems: list[str] = []
    for _ in range(EXAMPLES):
        pred, where, py_pred, py_where, free = _random_claim(rng)
        points = [dict(zip([v.name for v in free], vals))
                  for vals in itertools.product(*[list(v.values_iter()) for v in free])]
        truth = all(py_pred(p) for p in points if py_where(p))
        xs = [v for v in free if v.kind == "var"]
        for method in METHODS:
            r = forall(pred, xs, where=where, method=method, timeout=5)
            if r.status == "unknown":
                if method != "f2":
                    problems.append(f"{method}: unknown on {r.claim}")
                continue
            if r.status != ("proved" if truth else "refuted"):
                problems.append(f"{method}: {r.status} but brute force says {truth}: {r.claim}")
                continue
            if r.refuted:
                cex = r.counterexample or {}
                missing = [v.name for v in free if v.name not in cex]
                if missing:
                    problems.append(f"{method}: counterexample {cex} lacks {missing}: {r.claim}")
                elif not py_where(cex) or py_pred(cex):
                    problems.append(f"{method}: {cex} does not satisfy where and falsify the claim: {r.claim}")
    assert not problems, "\n".join(problems[:10])

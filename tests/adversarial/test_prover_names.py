"""Red team for variable identity: user names that look like the prover's own cannot change a verdict.

The prover makes variables of its own: the second copy of a domain (``injective``, ``disjoint``), the run and
element of ``contiguous``, the exponent of a power-of-two parameter in z3, the lanes, words and phase of a bank
proof.  They live in a separate namespace (a :class:`~layoutalg.prove.expr.Fresh` identity, not a name), so a
user's ``x__2``, ``col_run``, ``p__log2``, ``phase`` or ``u`` is a different variable whatever it is called.
Each claim below would be decided wrongly if a generated variable were looked up by name; random claims over
names drawn from such a pool are judged by brute force.  ``LAYOUTALG_ADVERSARIAL_EXAMPLES`` scales the random
part (default 30)::

    LAYOUTALG_ADVERSARIAL_EXAMPLES=5000 python -m pytest tests/adversarial

(``LAYOUTALG_ADVERSARIAL_SEED=N`` shifts the fixed seed, for a different sample.)
"""

from __future__ import annotations

import itertools
import os
import random
from typing import Any

import pytest

from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free, symbolic_access
from layoutalg.core.layout import Layout
from layoutalg.prove import contiguous, disjoint, forall, injective, param, var
from layoutalg.prove import settings as prove_settings

EXAMPLES = int(os.environ.get("LAYOUTALG_ADVERSARIAL_EXAMPLES", "0") or 0) or 30
SEED = 2 + int(os.environ.get("LAYOUTALG_ADVERSARIAL_SEED", "0") or 0)
METHODS = ("auto", "f2", "z3", "enum")
LOOKALIKES = ("x", "x__2", "x_2", "x__2__2", "y__2", "lane", "lane_b", "u", "v", "j", "phase", "index",
              "index_run", "index_elem", "x__log2", "i_run")


def _decided(r: Any, truth: bool, method: str) -> bool:
    """True when ``r`` agrees with ``truth`` (GF(2) may decline a non-linear claim)."""
    if r.status == "unknown":
        return method == "f2"
    return r.status == ("proved" if truth else "refuted")


@pytest.mark.parametrize("method", METHODS)
def test_a_user_variable_named_like_the_second_copy_stays_distinct(method: str) -> None:
    """f(x, x__2) = x - x__2 over {0,1}^2 is not injective (f(0,0) == f(1,1)); were the copy of ``x`` the user's
    ``x__2``, the two points would be forced to share a coordinate and no collision would exist."""
    x, x2 = var("x", 2), var("x__2", 2)
    r = injective(lambda x, x__2: x - x__2, [x, x2], method=method)
    assert _decided(r, False, method), r
    if r.refuted:
        cex = r.counterexample or {}
        first, second = (cex["x"], cex["x__2"]), (cex["x'"], cex["x__2'"])
        assert first != second and first[0] - first[1] == second[0] - second[1]


@pytest.mark.parametrize("method", METHODS)
def test_disjoint_with_lookalike_names(method: str) -> None:
    t, t2 = var("t", 4), var("t__2", 4)
    # f = t - t__2 and g = t__2 - t meet (both 0 at t == t__2) -- unless g's copy of t were the user's t__2
    r = disjoint(lambda t, t__2: t - t__2 + 10, lambda t, t__2: t__2 - t + 10, [t, t2], method=method)
    assert _decided(r, False, method), r


@pytest.mark.parametrize("method", METHODS)
def test_contiguous_with_a_user_variable_named_like_the_run_index(method: str) -> None:
    """offset = col + ((col // 8) ^ col_run) * (col % 8) is contiguous in runs of 8 along col only where the run
    index equals the user's ``col_run``; the generated run index must be another variable."""
    col, col_run = var("col", 16), var("col_run", 2)
    r = contiguous(lambda col, col_run: col + ((col // 8) ^ col_run) * (col % 8), 8, [col, col_run], along="col",
                   method=method)
    assert _decided(r, False, method), r
    if r.refuted:
        cex = r.counterexample or {}
        assert {"col", "col_run", "col_run#2", "col_elem"} <= set(cex)  # both run indices are shown


@pytest.mark.parametrize("encoding", ["int", "bv", "auto"])
def test_a_power_of_two_parameter_and_a_user_variable_named_like_its_exponent(encoding: str) -> None:
    """p >= q + 1 fails at p = 1, q = 5; were z3's exponent of p the user's ``p__log2`` (q), p = 2**q would hold."""
    p, q = param("p", hi=64, pow2=True), var("p__log2", 8)
    with prove_settings(z3_encoding=encoding):
        r = forall(p >= q + 1, [q], method="z3")
    assert r.status == "refuted", r
    cex = r.counterexample or {}
    assert not cex["p"] >= cex["p__log2"] + 1


@pytest.mark.parametrize("method", ["auto", "z3"])
def test_bank_proof_with_an_axis_named_like_its_phase(method: str) -> None:
    """ldmatrix.x4 rows 16 bytes apart where the matrix index equals the axis ``phase``, 128 bytes apart
    (8-way conflict) elsewhere: conflicted, as enumeration shows.  Were the proof's own phase the user's axis,
    only the conflict-free instances would be examined."""
    layout = Layout((64, 8), (8, 1))

    def rows(lane: Any, phase: Any) -> Any:
        apart = ((lane // 8) ^ phase) + 3  # 3 where the matrix index equals phase, 4..6 elsewhere
        return (lane % 8) * (1 + 7 * (apart // 4)), 0 * lane

    enumerated = conflict_free(layout, Access.from_fn("ldmatrix.x4", rows, phase=4), "f16")
    assert enumerated.refuted
    symbolic = conflict_free(layout, symbolic_access("ldmatrix.x4", rows, phase=4), "f16", method=method)
    assert symbolic.refuted, symbolic
    cex = symbolic.counterexample or {}
    assert cex["lane"] // 8 != cex["phase"] and cex["lane"] // 8 == cex["lane_b"] // 8


@pytest.mark.parametrize("name", ["u", "v", "j", "lane_b"])
def test_bank_proof_with_axes_named_like_its_words_and_lanes(name: str) -> None:
    """16-byte loads over rows 32 bytes apart conflict 2-way in each quarter-warp whatever the axis is called."""
    layout = Layout((32, 8), (8, 1))

    def fn(lane: Any, **axis: Any) -> Any:
        return lane, 4 * axis[name]

    enumerated = conflict_free(layout, Access.from_fn("ld.shared.v4.b32", fn, **{name: 2}), "f32")
    symbolic = conflict_free(layout, symbolic_access("ld.shared.v4.b32", fn, **{name: 2}), "f32", method="z3")
    assert enumerated.refuted and symbolic.refuted, symbolic


def _brute_injective(f: Any, names: list[str], extents: list[int]) -> bool:
    values = [f(*p) for p in itertools.product(*[range(n) for n in extents])]
    return len(set(values)) == len(values)


def test_random_claims_over_lookalike_names_match_brute_force() -> None:
    rng = random.Random(SEED)
    problems: list[str] = []
    for _ in range(EXAMPLES):
        names = rng.sample(LOOKALIKES, rng.choice((2, 3)))
        extents = [rng.choice((2, 4)) for _ in names]
        coef = [rng.choice((-2, -1, 0, 1, 2, 4)) for _ in names]
        mod = rng.choice((0, 3, 5, 8))

        def f(*vals: Any, coef: list[int] = coef, mod: int = mod) -> Any:
            total = sum(c * v for c, v in zip(coef, vals))
            return total % mod if mod else total

        domain = [var(n, e) for n, e in zip(names, extents)]
        truth = _brute_injective(f, names, extents)
        for method in METHODS:
            r = injective(f, domain, method=method, timeout=5)
            if not _decided(r, truth, method):
                problems.append(f"{method}: injective {coef} mod {mod} over {names}: {r.status}, truth {truth}")
            elif r.refuted:
                cex = r.counterexample or {}
                a = [cex[n] for n in names]
                b = [cex[n + "'"] for n in names]
                if a == b or f(*a) != f(*b):
                    problems.append(f"{method}: {cex} is not a collision of {coef} mod {mod} over {names}")
    assert not problems, "\n".join(problems[:10])

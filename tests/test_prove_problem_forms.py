"""The two problem forms (``Forall``, ``Collision``): the referee ``holds_at``, the point count that picks
enumeration, and the forms' guards.  Truths by enumeration with Python ints."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove.problem import Collision, EngineDisagreementError, Forall, Outcome, holds_at, points
from layoutalg.prove.variables import Var


def _injective_mod(n: int) -> tuple[Collision, Var, Var]:
    x = Var("x", 0, 6)
    y = x.fresh_copy("y")
    return Collision((), (x,), (y,), (x % n,), (y % n,), distinct=True), x, y


def test_holds_at_a_point_paired_with_itself_is_no_collision_of_an_injectivity_claim() -> None:
    problem, x, y = _injective_mod(4)
    for a, b in itertools.product(range(6), repeat=2):
        collides = a != b and a % 4 == b % 4
        assert holds_at(problem, {x.key: a, y.key: b}) is (not collides), (a, b)


def test_holds_at_for_two_functions_counts_equal_values_at_equal_points_as_a_collision() -> None:
    x, y = Var("x", 0, 4), Var("y", 0, 4)
    problem = Collision((), (x,), (y,), (x * 2,), (y + 2,), distinct=False)
    for a, b in itertools.product(range(4), repeat=2):
        assert holds_at(problem, {"x": a, "y": b}) is (a * 2 != b + 2), (a, b)


def test_holds_at_refuses_a_counterexample_missing_a_variable_or_outside_its_range() -> None:
    problem, x, y = _injective_mod(4)
    with pytest.raises(EngineDisagreementError, match="no value for 'y'"):
        holds_at(problem, {x.key: 1})
    with pytest.raises(EngineDisagreementError, match="outside y in \\[0, 6\\)"):
        holds_at(problem, {x.key: 1, y.key: 6})
    even = Var("e", 0, 8, multiple_of=2)
    with pytest.raises(EngineDisagreementError, match="outside"):
        holds_at(Forall((even,), even < 8), {"e": 3})


def test_points_counts_both_sides_of_a_disjointness_claim_and_one_side_of_injectivity() -> None:
    p, x, y = Var("p", 0, 3), Var("x", 0, 5), Var("y", 0, 7, multiple_of=2)
    disjoint = Collision((p,), (x,), (y,), (p + x,), (p + y,), distinct=False)
    evaluated = [("f", pv, xv) for pv in range(3) for xv in range(5)] + [("g", pv, yv) for pv in range(3) for yv in (0, 2, 4, 6)]
    assert points(disjoint) == len(evaluated) == 27
    injective, _, _ = _injective_mod(4)
    assert points(injective) == 6
    assert points(Forall((p, x), p < x)) == 15


def test_a_collision_with_different_output_counts_is_refused_not_truncated() -> None:
    x, y = Var("x", 0, 4), Var("y", 0, 4)
    with pytest.raises(ProofError, match="different numbers of outputs"):
        Collision((), (x,), (y,), (x, x), (y,), distinct=False).as_forall()


def test_problem_forms_and_outcomes_are_immutable() -> None:
    x = Var("x", 0, 4)
    problem, _, _ = _injective_mod(4)
    for value, field in [(Forall((x,), x < 4), "pred"), (problem, "distinct"), (Outcome("proved"), "status")]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)

"""The z3 engine's settings and time split, seen through the public claims (found by mutation testing).

* ``z3_encoding`` accepts only ``auto``, ``int`` and ``bv``; anything else is a ProofError naming it.
* ``z3_encoding="int"`` never falls back to bit-vectors: an integer attempt that runs out of time is
  "unknown" with the integer note only.
* A counterexample from z3 is minimized greedily: each variable, in domain order, at the smallest value
  for which a counterexample still exists.

The claim used: no cube is a sum of two cubes (Fermat, n = 3) -- true, nonlinear, and beyond z3 in
a fraction of a second.
"""

from __future__ import annotations

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import forall
from layoutalg.prove.config import settings


def _no_cube_is_a_sum_of_two_cubes(x, y, z):
    return x * x * x + y * y * y != z * z * z


def test_an_unknown_z3_encoding_setting_is_refused_with_its_name():
    with settings(z3_encoding="fast"), pytest.raises(ProofError, match="z3_encoding.*'fast'"):
        forall(lambda x: x + 1 > x, {"x": 16}, method="z3")


def test_integer_only_z3_that_times_out_is_unknown_and_never_tries_bit_vectors():
    big = {"x": (1, 1 << 12), "y": (1, 1 << 12), "z": (1, 1 << 12)}
    with settings(z3_encoding="int"):
        result = forall(_no_cube_is_a_sum_of_two_cubes, big, method="z3", timeout=0.3)
    assert result.status == "unknown"
    assert any("z3 over the integers" in note for note in result.notes)
    assert not any("bit vectors" in note or "-bit" in note for note in result.notes)


def test_z3_counterexamples_pin_each_variable_to_its_smallest_feasible_value_in_domain_order():
    # x * y == 12: the smallest x with a counterexample is 1 (then y = 12); with x >= 5 it is 6 (y = 2)
    assert forall(lambda x, y: x * y != 12, {"x": 1 << 20, "y": 1 << 20}, method="z3").counterexample == {
        "x": 1, "y": 12}
    assert forall(lambda x, y: x * y != 12, {"x": (5, 1 << 20), "y": 1 << 20},
                  method="z3").counterexample == {"x": 6, "y": 2}
    # a bit operation (bit-vector encoding): x = 0 admits the counterexample y = 4
    assert forall(lambda x, y: (x ^ y) * 3 != 12 + x, {"x": 1 << 20, "y": 1 << 20},
                  method="z3").counterexample == {"x": 0, "y": 4}


# ---- the engine itself: the deadline it is handed, and the readability pass ----------------------------------------

def _fermat_problem():
    from layoutalg.prove import expr as ex
    from layoutalg.prove.problem import Forall
    from layoutalg.prove.variables import var

    x, y, z = (var(name, lo=1, hi=1 << 12) for name in "xyz")
    return Forall((x, y, z), ex.lower(ex.as_pred(_no_cube_is_a_sum_of_two_cubes(x, y, z))))


def test_the_z3_engine_stops_at_the_deadline_it_is_handed_even_when_no_limit_is_open():
    import time

    from layoutalg.prove import budget, engine_z3

    started = time.monotonic()
    outcome = engine_z3.decide(_fermat_problem(), budget.Deadline.after(0.3))
    assert outcome.status == "unknown"
    assert time.monotonic() - started < 5.0


def test_the_z3_engine_without_a_deadline_argument_uses_the_open_limit():
    from layoutalg.prove import budget, engine_z3

    with budget.limit(0.3):
        outcome = engine_z3.decide(_fermat_problem())
    assert outcome.status == "unknown"


def test_minimizing_a_counterexample_with_no_time_left_returns_the_counterexample_unchanged():
    import time

    from layoutalg.prove import budget, engine_z3
    from layoutalg.prove import expr as ex
    from layoutalg.prove.problem import Forall
    from layoutalg.prove.variables import var

    x, y = var("x", 1 << 20), var("y", 1 << 20)
    problem = Forall((x, y), ex.lower(ex.as_pred(x * y != 12)))
    witness = {x.key: 12, y.key: 1}
    with budget.limit(0.001):
        time.sleep(0.01)
        assert engine_z3.minimize(problem, witness) == witness
    with_time = engine_z3.minimize(problem, witness)  # with time, x is pinned below 4 (steps 1, 4, 16, ...)
    assert with_time[x.key] < 4 and with_time[x.key] * with_time[y.key] == 12


def test_the_z3_engine_handed_a_deadline_already_past_answers_unknown_with_no_time_left():
    import time

    from layoutalg.prove import budget, engine_z3

    outcome = engine_z3.decide(_fermat_problem(), budget.Deadline(time.monotonic() - 1.0))
    assert outcome.status == "unknown"
    assert "no time left" in outcome.note

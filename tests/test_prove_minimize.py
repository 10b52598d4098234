"""Readable counterexamples: z3's witness is minimized variable by variable, in domain order.

The contract (``engine_z3.minimize``): with the earlier variables fixed at their chosen values, each
variable takes the smallest value for which a counterexample still exists; every value returned is
part of a real counterexample.  Each case below has few counterexamples, so "smallest" is known by
hand, and starts from the worst witness (the largest).
"""

from __future__ import annotations

from layoutalg.prove import engine_z3, forall
from layoutalg.prove import expr as ex
from layoutalg.prove.problem import Forall
from layoutalg.prove.variables import param, var


def _minimized(pred, variables, witness):
    problem = Forall(tuple(variables), ex.lower(ex.as_pred(pred)))
    return engine_z3.minimize(problem, {v.key: value for v, value in zip(variables, witness)}, seconds=5.0)


def test_a_counterexample_next_to_the_witness_is_found_even_one_below_it():
    x = var("x", 1 << 16)
    assert _minimized((x - 15) * (x - 16) != 0, [x], [16]) == {x.key: 15}


def test_the_smallest_of_two_far_apart_counterexamples_is_chosen():
    x = var("x", 1 << 20)
    assert _minimized((x - 3) * (x - 1000) != 0, [x], [1000]) == {x.key: 3}
    assert _minimized((x - 1) * (x - 1000) != 0, [x], [1000]) == {x.key: 1}


def test_the_lowest_admissible_value_itself_is_reached():
    x = var("x", lo=7, hi=1 << 20)
    assert _minimized((x - 7) * (x - 999) != 0, [x], [999]) == {x.key: 7}


def test_variables_are_minimized_in_domain_order_each_given_the_earlier_choices():
    x, y = var("x", 1 << 20), var("y", 1 << 20)
    assert _minimized(x * y != 12, [x, y], [12, 1]) == {x.key: 1, y.key: 12}
    assert _minimized(x * y != 12, [y, x], [1, 12]) == {y.key: 1, x.key: 12}
    assert _minimized(x * y != 12, [x, y], [4, 3]) == {x.key: 1, y.key: 12}


def test_stepped_and_power_of_two_domains_keep_the_minimized_value_admissible():
    x = var("x", hi=1 << 12, multiple_of=8)
    assert _minimized((x - 24) * (x - 800) != 0, [x], [800]) == {x.key: 24}
    p = param("p", lo=1, hi=1 << 20, pow2=True)
    assert _minimized((p - 64) * (p - 4096) != 0, [p], [4096]) == {p.key: 64}


def test_bit_operations_minimize_through_the_bit_vector_encoding():
    x, y = var("x", 1 << 10), var("y", 1 << 10)
    assert _minimized((x ^ y) != 40, [x, y], [1000, 1000 ^ 40]) == {x.key: 0, y.key: 40}


def test_a_witness_already_smallest_is_returned_as_it_is():
    x, y = var("x", 1 << 20), var("y", 1 << 20)
    assert _minimized(x * y != 12, [x, y], [1, 12]) == {x.key: 1, y.key: 12}


def test_claims_report_the_minimized_counterexample():
    result = forall(lambda x: (x - 5) * (x - 77777) != 0, {"x": 1 << 20}, method="z3")
    assert result.status == "refuted" and result.counterexample == {"x": 5}


def test_a_claim_without_variables_is_decided_and_a_false_one_has_an_empty_counterexample():
    refuted = forall(lambda: False, {}, method="z3")
    assert refuted.status == "refuted" and refuted.counterexample == {}
    assert forall(lambda: True, {}, method="z3").status == "proved"


def test_minimizing_the_counterexample_of_a_problem_without_variables_gives_the_empty_one():
    x = var("x", 4)
    assert _minimized(x * 0 > 1, [], []) == {}

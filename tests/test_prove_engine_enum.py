"""The enumeration engine on its own (``engine_enum.decide``), for inputs the claim layer never hands it.

Claims refuse a divisor whose range holds zero before any engine runs; the engine itself must still
answer such a problem exactly (Python integers: a ProofError naming the division), not with numpy's
silent ``x // 0 == 0``.
"""

from __future__ import annotations

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import budget, engine_enum
from layoutalg.prove import expr as ex
from layoutalg.prove.problem import Forall
from layoutalg.prove.variables import var


def test_the_enumeration_engine_reports_a_division_by_zero_instead_of_computing_zero():
    x, y = var("x", 8), var("y", 4)
    problem = Forall((x, y), ex.lower(ex.as_pred(x // y <= x)))
    with pytest.raises(ProofError, match=r"division by zero in \(x // y\)"):
        engine_enum.decide(problem, budget.UNLIMITED, 1 << 20)


def test_a_problem_whose_divisor_avoids_zero_is_decided_on_int64_blocks_and_refuted_exactly():
    x, y = var("x", 8), var("y", lo=1, hi=4)
    outcome = engine_enum.decide(Forall((x, y), ex.lower(ex.as_pred(x // y < 7))), budget.UNLIMITED, 1 << 20)
    assert outcome.status == "refuted" and outcome.witness == {x.key: 7, y.key: 1}


def test_a_divisor_whose_bound_holds_zero_but_whose_values_never_do_is_evaluated_exactly_past_int64():
    # d = y*y - 2y + 2 >= 1 on 0..3, but its interval [-4, 11] holds 0: no bound on the quotient, so no
    # int64 block can be trusted; (x // d) * 2**64 // 2**64 == x // d holds exactly on Python integers
    x, y = var("x", 8), var("y", 4)
    d = y * y - 2 * y + 2
    problem = Forall((x, y), ex.lower(ex.as_pred((x // d) * (1 << 62) * 4 // (1 << 64) == x // d)))
    outcome = engine_enum.decide(problem, budget.UNLIMITED, 1 << 20)
    assert outcome.status == "proved" and outcome.note == "all 32 points"


def test_the_enumeration_engine_refuses_a_domain_larger_than_its_limit_by_name():
    from layoutalg.prove.problem import NotApplicableError

    x = var("x", 1000)
    with pytest.raises(NotApplicableError, match="domain has 1000 points, more than the enumeration limit 999"):
        engine_enum.decide(Forall((x,), ex.lower(ex.as_pred(x >= 0))), budget.UNLIMITED, 999)
    assert engine_enum.decide(Forall((x,), ex.lower(ex.as_pred(x >= 0))), budget.UNLIMITED, 1000).status == "proved"


def test_collisions_with_a_constant_component_are_checked_across_several_blocks():
    from layoutalg.prove import injective

    # 2**17 points: two int64 blocks of 2**16; the constant second component is broadcast per block
    assert injective(lambda x: (x, 0), {"x": 1 << 17}, method="enum").status == "proved"
    refuted = injective(lambda x: (x % 70000, 0), {"x": 1 << 17}, method="enum")
    assert refuted.status == "refuted"


def test_collisions_of_values_past_int64_are_found_and_excluded_exactly_on_python_integers():
    from layoutalg.prove import disjoint, injective

    big = 1 << 70
    assert injective(lambda x: x * big, {"x": 16}, method="enum").status == "proved"
    assert injective(lambda x: (x % 5) * big, {"x": 16}, method="enum").status == "refuted"
    overlap = disjoint(lambda x: x * big, lambda y: (y + 3) * big, {"x": 16}, {"y": 16}, method="enum")
    assert overlap.status == "refuted"
    assert disjoint(lambda x: x * big, lambda y: (y + 16) * big, {"x": 16}, {"y": 16}, method="enum").status == "proved"


def test_the_proof_note_counts_the_points_of_both_functions_of_a_disjointness_claim():
    from layoutalg.prove.problem import Collision

    x, y = var("x", 16), var("y", 8)
    problem = Collision((), (x,), (y,), (ex.lower(x * 2),), (ex.lower(y * 2 + 1),), False)
    outcome = engine_enum.decide(problem, budget.UNLIMITED, 1 << 20)
    assert outcome.status == "proved" and outcome.note == "all 24 points"


def test_functions_with_different_numbers_of_outputs_are_not_compared():
    from layoutalg.prove.problem import Collision, NotApplicableError

    x, y = var("x", 4), var("y", 4)
    problem = Collision((), (x,), (y,), (ex.lower(x), ex.lower(x + 1)), (ex.lower(y),), False)
    with pytest.raises(NotApplicableError, match="different numbers of outputs"):
        engine_enum.decide(problem, budget.UNLIMITED, 1 << 20)



def test_a_stepped_variable_is_enumerated_at_its_own_values():
    x = var("x", hi=64, multiple_of=8)
    outcome = engine_enum.decide(Forall((x,), ex.lower(ex.as_pred(x != 56))), budget.UNLIMITED, 1 << 20)
    assert outcome.status == "refuted" and outcome.witness == {x.key: 56}
    offset = var("y", lo=3, hi=40, multiple_of=6)  # 6, 12, ..., 36
    outcome = engine_enum.decide(Forall((offset,), ex.lower(ex.as_pred(offset < 36))), budget.UNLIMITED, 1 << 20)
    assert outcome.status == "refuted" and outcome.witness == {offset.key: 36}


def test_the_enumeration_engine_honours_the_deadline_it_is_handed_and_otherwise_the_open_limit():
    import time

    x = var("x", 1 << 20)
    problem = Forall((x,), ex.lower(ex.as_pred(x >= 0)))
    outcome = engine_enum.decide(problem, budget.Deadline(time.monotonic() - 1.0), 1 << 22)
    assert outcome.status == "unknown" and "time limit" in outcome.note
    assert engine_enum.decide(problem, None, 1 << 22).status == "proved"
    with budget.limit(10.0):
        assert engine_enum.decide(problem, None, 1 << 22).status == "proved"



def test_decide_without_a_limit_enumerates_up_to_the_configured_default_of_2_to_the_22_points():
    """The engine's own default is the documented ``enum_limit`` (``prove.config``): 2**22 points."""
    from layoutalg.prove import config
    from layoutalg.prove.problem import NotApplicableError

    assert config.current().enum_limit == 1 << 22
    x, y = var("x", 1 << 11), var("y", 1 << 11)
    outcome = engine_enum.decide(Forall((x, y), ex.lower(ex.as_pred(x + y >= 0))), budget.UNLIMITED)
    assert outcome.status == "proved" and outcome.note == f"all {1 << 22} points"
    z = var("z", (1 << 11) + 1)
    with pytest.raises(NotApplicableError, match=f"domain has {(1 << 11) * ((1 << 11) + 1)} points, more than "
                                                 f"the enumeration limit {1 << 22}"):
        engine_enum.decide(Forall((x, z), ex.lower(ex.as_pred(x + z >= 0))), budget.UNLIMITED)

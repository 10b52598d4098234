"""The dispatcher: engine fallbacks at the enumeration limit, time limits, divisor checks, cross-checking, and
which counterexample a z3 refutation reports (the first in domain order within a small box of low values)."""

from __future__ import annotations

from typing import Any

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import equivalent, forall, settings, var
from layoutalg.prove import expr as ex

ENUM_LIMIT = 1 << 22


def test_auto_enumerates_when_z3_gives_up_on_a_domain_of_exactly_the_enumeration_limit() -> None:
    """``(x ^ 1) % 3`` is neither bit-linear nor exact over z3's integers: z3 (integers only) gives up at once."""
    with settings(z3_encoding="int"):
        at_limit = forall(lambda x: (x ^ 1) % 3 != 2, {"x": ENUM_LIMIT})
        past_limit = forall(lambda x: (x ^ 1) % 3 != 2, {"x": ENUM_LIMIT + 1})
    assert at_limit.refuted and at_limit.method == "enum"
    assert (at_limit.counterexample or {})["x"] == 3
    assert past_limit.status == "unknown" and past_limit.method == "z3"


def test_gf2_running_out_of_time_is_unknown_with_the_engine_named() -> None:
    r = equivalent(Layout((4, 8), (8, 1)), Layout((4, 8), (8, 1)), method="f2", timeout=1e-9)
    assert r.status == "unknown"
    assert any(note.startswith("f2 stopped at the time limit") for note in r.notes)


@pytest.mark.parametrize(("lo", "hi", "shown"), [(0, 4, "[0, 3]"), (-3, 1, "[-3, 0]"), (-2, 3, "[-2, 2]")])
def test_a_divisor_whose_range_holds_zero_is_refused_with_its_range(lo: int, hi: int, shown: str) -> None:
    x, y = var("x", 4), var("y", lo=lo, hi=hi)
    with pytest.raises(ProofError, match=r"^the divisor in .* may be zero") as caught:
        forall(x // y >= -4, [x, y], method="enum")
    assert str(caught.value).endswith(f"(its range is {shown})")


def test_a_divisor_whose_range_excludes_zero_is_accepted() -> None:
    x, y = var("x", 4), var("y", lo=1, hi=3)
    assert forall(x // y <= x, [x, y], method="enum").proved
    z = var("z", lo=-3, hi=0)
    assert forall(x // z <= 0, [x, z], method="enum").proved


def test_without_cross_check_a_claim_is_decided_by_one_engine() -> None:
    r = equivalent(Layout(4), Layout(4), cross_check=False)
    assert r.proved and r.method == "f2"


def test_cross_check_beyond_the_enumeration_limit_asks_z3() -> None:
    """A bit-linear claim over more points than enumeration takes: GF(2) decides, z3 confirms."""
    r = forall(lambda x: x ^ 0 == x, {"x": 1 << 23}, cross_check=True)
    assert r.proved and r.method == "f2+z3"


def test_cross_check_of_a_z3_refutation_over_exactly_the_enumeration_limit_enumerates() -> None:
    r = forall(lambda x: x * x != 9, {"x": ENUM_LIMIT}, method="z3", cross_check=True)
    assert r.refuted and r.method == "z3+enum"
    assert r.counterexample == {"x": 3}


def _staircase(n: int, k: int) -> Any:
    """A claim over ``n`` variables in [0, 64) false exactly where the first n - 2 are 0 and the last two are
    (0, k), (1, k - 1) or (2, 0): its first counterexample in a box of the first ``per_var`` values of each
    variable is (1, k - 1) when per_var == k, (0, k) when per_var > k, (2, 0) when 2 < per_var < k."""
    names = [f"v{i}" for i in range(n)]
    vs = [var(name, 64) for name in names]
    lead = ex.all_of(*[v == 0 for v in vs[:-2]]) if n > 2 else ex.BoolConst(True)
    a, b = vs[-2], vs[-1]
    bad = ex.all_of(lead, ex.any_of(ex.all_of(a == 0, b == k), ex.all_of(a == 1, b == k - 1), ex.all_of(a == 2, b == 0)))
    return ~bad, vs


@pytest.mark.parametrize(("n", "per_var"), [(2, 16), (4, 16), (5, 4), (8, 4), (9, 2)])
def test_a_z3_refutation_reports_the_first_counterexample_among_the_low_values(n: int, per_var: int) -> None:
    """The box of low values has 16 values a variable for up to 4 variables, 4 for up to 8, 2 beyond."""
    pred, vs = _staircase(n, per_var)
    r = forall(pred, vs, method="z3")
    assert r.refuted
    cex = r.counterexample or {}
    assert [cex[v.name] for v in vs] == [0] * (n - 2) + [1, per_var - 1]


def test_a_z3_refutation_over_seventeen_variables_is_minimized_not_enumerated() -> None:
    """2**17 points are too many for the box of low values: z3 minimizes, giving the smallest (0, 2), not (1, 1)."""
    pred, vs = _staircase(17, 2)
    r = forall(pred, vs, method="z3")
    assert r.refuted
    cex = r.counterexample or {}
    assert [cex[v.name] for v in vs] == [0] * 15 + [0, 2]


def test_a_z3_refutation_outside_the_low_values_is_minimized_in_domain_order() -> None:
    """``x * y == 600`` has no solution below 16; the smallest x with one is 5 (5 * 120), whatever z3 picked first."""
    x, y = var("x", 128), var("y", 128)
    r = forall(x * y != 600, [x, y], method="z3")
    assert r.refuted and r.counterexample == {"x": 5, "y": 120}

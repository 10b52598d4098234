"""Plain evaluation of terms (the referee of every counterexample): its refusals name what is wrong."""

from __future__ import annotations

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import expr as ex
from layoutalg.prove import var


def test_evaluate_refuses_a_variable_without_a_value_naming_it() -> None:
    x = var("x", 8)
    with pytest.raises(ProofError, match=r"^no value for variable 'x'$"):
        ex.evaluate(x + 1, {})


def test_evaluate_refuses_a_shift_by_a_variable_amount() -> None:
    x, y = var("x", 8), var("y", 4)
    with pytest.raises(ProofError, match=r"^shift amount must be a non-negative constant in \(x << y\)$"):
        ex.evaluate(x << y, {"x": 1, "y": 2})
    assert ex.evaluate(x << 2, {"x": 3}) == 12


def test_evaluate_refuses_what_is_not_a_term() -> None:
    with pytest.raises(ProofError, match=r"^not a term: 'hello'$"):
        ex.evaluate("hello", {})


@pytest.mark.parametrize("method", ["enum", "z3"])
def test_ite_of_wide_constants_is_exact_in_every_engine(method: str) -> None:
    """Constants past 2**62 put enumeration on Python integers; an ``ite`` over them must stay exact there.

    numpy's ``where`` typed two Python-int branches as int64: ``2**63`` and ``-2**63`` wrapped to the same value
    (so ``ite(x == 7, 2**63, 0) == ite(x == 7, -2**63, 0)`` was "proved"), and ``2**40 * 2**40`` of a small
    int64 branch wrapped to 0.  The truth is Python's, point by point."""
    from layoutalg.prove import forall, ite

    claims = [
        (lambda x: ite(x == 7, 2**63, 0) == ite(x == 7, -(2**63), 0), lambda x: (2**63 if x == 7 else 0) == (-(2**63) if x == 7 else 0)),
        (lambda x: ite(x == 7, 2**40, 0) * 2**40 == 0, lambda x: (2**40 if x == 7 else 0) * 2**40 == 0),
        (lambda x: ite(x == 7, 2**70, 0) >= 0, lambda x: (2**70 if x == 7 else 0) >= 0),
        (lambda x: ite(x == 7, 2**63 + 64, 2**63) == 2**63, lambda x: (2**63 + 64 if x == 7 else 2**63) == 2**63),
    ]
    for term, truth in claims:
        result = forall(term, {"x": 8}, method=method)
        failing = [x for x in range(8) if not truth(x)]
        assert result.status == ("refuted" if failing else "proved")
        if failing:
            assert result.counterexample is not None and result.counterexample["x"] in failing


def test_evaluate_keeps_python_integers_through_ite_on_object_arrays() -> None:
    import numpy as np

    x = var("x", 8)
    values = np.arange(8).astype(object)
    got = ex.evaluate(ex.lower(ex.ite(x == 7, 2**40, 0) * 2**40), {"x": values})
    assert list(got) == [(2**40 if v == 7 else 0) * 2**40 for v in range(8)]

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

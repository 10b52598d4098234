"""The term language's operators on Python values (``layoutalg.prove.ops``): Python's own integer and boolean
semantics, and ProofError (naming the term) for a zero divisor, a negative shift or an unknown operator."""

from __future__ import annotations

import itertools
import operator

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove.ops import bool_op, int_op

PY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
      "&": operator.and_, "|": operator.or_, "^": operator.xor}


def test_int_op_is_pythons_operator_for_every_nonzero_divisor() -> None:
    for op, a, b in itertools.product(PY, range(-9, 10), [-3, -2, -1, 1, 2, 3, 7]):
        assert int_op(op, a, b, "t") == PY[op](a, b), (op, a, b)


@pytest.mark.parametrize("op", ["//", "%"])
def test_int_op_refuses_a_zero_divisor_naming_the_term(op: str) -> None:
    with pytest.raises(ProofError, match=r"^division by zero in 'x // y'"):
        int_op(op, 5, 0, "x // y")


def test_int_op_shifts_by_a_non_negative_int_and_refuses_a_negative_one() -> None:
    assert [int_op("<<", 3, k, "t") for k in range(4)] == [3, 6, 12, 24]
    assert [int_op(">>", -20, k, "t") for k in range(4)] == [-20, -10, -5, -3]
    with pytest.raises(ProofError, match=r"^shift amount must be a non-negative constant in 'x << -1'"):
        int_op("<<", 1, -1, "x << -1")


def test_int_op_refuses_an_unknown_operator() -> None:
    with pytest.raises(ProofError, match=r"^unknown operator '\*\*'"):
        int_op("**", 2, 3, "t")


def test_bool_op_on_python_bools_is_the_truth_table() -> None:
    for a, b in itertools.product([False, True], repeat=2):
        assert bool_op("and", [a, b]) is (a and b)
        assert bool_op("or", [a, b]) is (a or b)
        assert bool_op("implies", [a, b]) is ((not a) or b)
    assert bool_op("and", [True, True, True]) is True and bool_op("and", []) is True
    assert bool_op("not", [False]) is True and bool_op("not", [True]) is False

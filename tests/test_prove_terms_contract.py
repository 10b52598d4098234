"""The term language's nodes (``layoutalg.prove.terms``): every operator means Python's integer operator (checked
by evaluating the built term against plain ints), a term is immutable and has no truth value, bad operands and
unknown operators are refused with ProofError, and the reprs users read in claims and counterexamples."""

from __future__ import annotations

import itertools
import operator
from typing import Any, Callable

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import all_of, any_of, implies, ite, max_, min_, sym, var
from layoutalg.prove.expr import BinOp, BoolOp, Cmp, Const, evaluate
from layoutalg.swizzle.swizzle import Swizzle

OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
}
X_VALUES = [v for v in range(-6, 7) if v != 0]  # nonzero: x is also a divisor below
INTS = [-7, -3, -1, 0, 1, 2, 5, 12]


class Index:
    """An integer-like object that is not an int (as numpy's integers are): it has ``__index__``."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


@pytest.mark.parametrize("op", sorted(OPS))
def test_an_int_on_the_left_of_a_term_means_pythons_operator_with_the_int_first(op: str) -> None:
    x = var("x", lo=-6, hi=7)
    for k in INTS:
        built = OPS[op](k, x)
        assert repr(built) == f"({k} {op} x)"
        for v in X_VALUES:
            assert evaluate(built, {"x": v}) == OPS[op](k, v), (k, op, v)


@pytest.mark.parametrize("op", sorted(OPS))
def test_a_term_on_the_left_of_an_int_means_pythons_operator(op: str) -> None:
    x = var("x", lo=-6, hi=7)
    for k in [k for k in INTS if k != 0]:
        built = OPS[op](x, k)
        assert repr(built) == f"(x {op} {k})"
        for v in range(-6, 7):
            assert evaluate(built, {"x": v}) == OPS[op](v, k), (op, v, k)


def test_shifts_negation_and_unary_plus_mean_pythons_operators() -> None:
    x = var("x", lo=-6, hi=7)
    for v in range(-6, 7):
        env = {"x": v}
        assert evaluate(x << 3, env) == v << 3
        assert evaluate(x >> 2, env) == v >> 2
        assert evaluate(-x, env) == -v
        assert evaluate(+x, env) == v
        assert evaluate(-(x + 3), env) == -(v + 3)


def test_min_and_max_of_terms_are_pythons_min_and_max() -> None:
    x, y = var("x", lo=-3, hi=4), var("y", lo=-3, hi=4)
    for a, b in itertools.product(range(-3, 4), repeat=2):
        env = {"x": a, "y": b}
        assert evaluate(min_(x, y), env) == min(a, b)
        assert evaluate(max_(x, y), env) == max(a, b)
        assert evaluate(min_(x, 1), env) == min(a, 1)
        assert evaluate(max_(2, y), env) == max(2, b)


def test_a_python_bool_on_the_left_of_a_predicate_connective_is_a_boolean_constant() -> None:
    x = var("x", 8)
    for v in range(8):
        env = {"x": v}
        assert evaluate(True & (x < 3), env) is (v < 3)
        assert evaluate(False & (x < 3), env) is False
        assert evaluate(False | (x < 3), env) is (v < 3)
        assert evaluate(True | (x < 3), env) is True
    assert repr(True & (x < 3)) == "(True and (x < 3))"
    assert repr(False | (x < 3)) == "(False or (x < 3))"


def test_an_empty_all_of_is_true_and_an_empty_any_of_is_false() -> None:
    assert evaluate(all_of(), {}) is True
    assert evaluate(any_of(), {}) is False
    x = var("x", 4)
    assert evaluate(all_of(x < 2, x >= 0), {"x": 1}) is True
    assert evaluate(any_of(x > 2, x < 0), {"x": 1}) is False


def test_an_int_like_object_is_a_constant_term() -> None:
    x = var("x", 8)
    for v in range(8):
        assert evaluate(x + Index(5), {"x": v}) == v + 5
        assert evaluate(Index(3) * x, {"x": v}) == 3 * v
    assert repr(x + Index(5)) == "(x + 5)"


@pytest.mark.parametrize("bad", [True, False, 1.5, 2.0])
def test_a_bool_or_a_float_is_refused_as_a_term(bad: Any) -> None:
    x = var("x", 8)
    with pytest.raises(ProofError, match=rf"^a term must be an int or a symbolic term, got {bad!r}$"):
        x + bad
    with pytest.raises(ProofError, match=r"^a term must be an int or a symbolic term"):
        bad * x


def test_a_non_predicate_is_refused_where_a_predicate_is_needed() -> None:
    x = var("x", 8)
    with pytest.raises(ProofError, match=r"^a predicate must be a comparison of terms or a bool, got 5$"):
        (x < 3) & 5
    with pytest.raises(ProofError, match=r"^a predicate must be a comparison of terms or a bool, got 5$"):
        ite(5, x, 1)
    with pytest.raises(ProofError, match=r"^a predicate must be a comparison of terms or a bool, got \(x \+ 1\)$"):
        implies(x < 3, x + 1)


def test_a_term_or_a_predicate_has_no_truth_value() -> None:
    x = var("x", 8)
    with pytest.raises(ProofError, match=r"^a symbolic term has no truth value"):
        bool(x + 1)
    with pytest.raises(ProofError, match=r"^a symbolic predicate has no truth value"):
        bool(x < 1)
    with pytest.raises(ProofError, match=r"^a symbolic term is not a Python int"):
        [0, 1, 2][x]


def test_unknown_operators_comparisons_and_connectives_are_refused_by_name() -> None:
    x = var("x", 8)
    with pytest.raises(ProofError, match=r"^unknown operator '\*\*'$"):
        BinOp("**", x, Const(2))
    with pytest.raises(ProofError, match=r"^unknown comparison '=~'$"):
        Cmp("=~", x, Const(2))
    with pytest.raises(ProofError, match=r"^unknown connective 'xor'$"):
        BoolOp("xor", (x < 1, x > 2))


def _every_kind_of_term() -> list[Any]:
    x = var("x", 8)
    return [Const(3), x + 1, ite(x < 2, x, 5), sym(Layout(8, 1))(x)]


@pytest.mark.parametrize("term", _every_kind_of_term(), ids=["const", "binop", "ite", "apply"])
def test_a_built_term_is_immutable(term: Any) -> None:
    before = repr(term)
    for attribute in ("value", "op", "a", "b", "cond", "fn", "args", "anything"):
        with pytest.raises(AttributeError, match="^terms are immutable$"):
            setattr(term, attribute, Const(0))
    assert repr(term) == before


def test_reprs_read_like_the_python_that_built_the_term() -> None:
    x, y = var("x", 8), var("y", 4)
    assert repr(Const(-3)) == "-3"
    assert repr((x + 1) * y) == "((x + 1) * y)"
    assert repr(ite(x < 3, x, y)) == "ite((x < 3), x, y)"
    assert repr(min_(x, y)) == "ite((x <= y), x, y)"
    assert repr(max_(x, 2)) == "ite((x >= 2), x, 2)"
    assert repr(-x) == "(0 - x)"
    assert repr(~(x < 3)) == "~(x < 3)"
    assert repr((x < 3) & (y != 1)) == "((x < 3) and (y != 1))"
    assert repr((x < 3) | (y == 1)) == "((x < 3) or (y == 1))"
    assert repr(implies(x <= 3, y >= 1)) == "((x <= 3) implies (y >= 1))"
    assert repr(all_of()) == "True" and repr(any_of()) == "False"
    assert repr(all_of(x > 1, x < 5, y == 0)) == "((x > 1) and (x < 5) and (y == 0))"


def test_a_layout_applied_to_terms_reads_as_a_call() -> None:
    x, y = var("x", 8), var("y", 4)
    L = Layout((4, 8), (1, 4))
    assert repr(sym(L)(x, y)) == f"{L}(x, y)"
    assert repr(sym(L)(x)) == f"{L}(x)"
    assert repr(sym(L)(x + 1)) == f"{L}(x + 1)"
    assert repr(sym(L)(3)) == f"{L}(3)"
    assert repr(sym(L)((x, y))) == f"{L}(x, y)"
    assert repr(sym(Swizzle(1, 0, 3))(x)) == f"{Swizzle(1, 0, 3)}(x)"
    assert repr(sym(L)(x) + 1) == f"({L}(x) + 1)"

"""Contract of the stride scalars (``layoutalg.core.stride_scalars``): F2 (GF(2)[x], carry-less products) and
ArithTuple (basis coordinates) are immutable values; F2 orders and hashes as the int of its bits, ArithTuple
orders colexicographically (the last position most significant); foreign operands are refused with a
ShapeError naming them, and comparisons with unrelated objects are simply False."""

from __future__ import annotations

import pytest
from gf2_oracle import xor_fold

from layoutalg import F2, ArithTuple, E
from layoutalg.core.stride_scalars import MAX_BASIS_INDEX, clmul
from layoutalg.errors import ShapeError


@pytest.mark.parametrize("a,b", [(-1, 3), (3, -2), (-4, -5)])
def test_a_carry_less_product_of_a_negative_int_is_refused_naming_it(a: int, b: int) -> None:
    with pytest.raises(ShapeError, match=f"negative {min(a, b)}"):
        clmul(a, b)


def test_an_f2_times_a_negative_int_is_refused() -> None:
    with pytest.raises(ShapeError, match="negative -3"):
        F2(5) * -3


def test_an_f2_times_an_int_is_the_carry_less_product() -> None:
    for a in range(9):
        for b in range(9):
            assert int(F2(a) * b) == xor_fold(a, b) == int(b * F2(a))


@pytest.mark.parametrize("other", ["x", 1.5, None, [1]])
def test_an_f2_times_a_foreign_object_is_refused_naming_it(other: object) -> None:
    with pytest.raises(ShapeError, match="cannot multiply F2"):
        F2(3) * other


def test_scalars_are_immutable() -> None:
    f = F2(3)
    with pytest.raises(AttributeError, match="F2 is immutable"):
        f.value = 4  # type: ignore[misc]
    t = ArithTuple(1, 2)
    with pytest.raises(AttributeError, match="ArithTuple is immutable"):
        t.data = (3,)  # type: ignore[misc]
    assert int(f) == 3 and t == ArithTuple(1, 2)


def test_f2_equals_and_hashes_as_the_int_of_its_bits() -> None:
    assert F2(6) == 6 and hash(F2(6)) == hash(6) == hash(F2(6))
    assert len({F2(6), F2(6), 6}) == 1 and {F2(6): "x"}[F2(6)] == "x"
    assert (F2(1) == "1") is False and (F2(1) == 1.0) is False and F2(1) != None  # noqa: E711


def test_f2_orders_by_its_bits_against_f2_and_ints() -> None:
    for a in range(5):
        for b in range(5):
            assert (F2(a) <= F2(b)) == (a <= b) and (F2(a) <= b) == (a <= b)
            assert (F2(a) > F2(b)) == (a > b) and (F2(a) > b) == (a > b)
            assert (F2(a) < b) == (a < b) and (F2(a) >= b) == (a >= b)


@pytest.mark.parametrize("other", ["a", True, 1.0, None])
def test_f2_refuses_to_order_against_a_non_int_naming_it(other: object) -> None:
    for op in (F2.__lt__, F2.__le__, F2.__gt__, F2.__ge__):
        with pytest.raises(ShapeError, match="cannot order F2 against"):
            op(F2(1), other)


def test_arith_tuples_order_colexicographically() -> None:
    pairs = [((1, 0), (0, 1)), ((1, 1), (1, 1)), ((2, 1), (0, 2)), ((0, 0), (0,)), ((3,), (0, 1))]
    for x, y in pairs:
        a, b = ArithTuple(x), ArithTuple(y)
        key_a = tuple(reversed(x + (0,) * (2 - len(x))))
        key_b = tuple(reversed(y + (0,) * (2 - len(y))))
        assert (a <= b) == (key_a <= key_b), (x, y)
        assert (a >= b) == (key_a >= key_b), (x, y)
        assert (a < b) == (key_a < key_b) and (a > b) == (key_a > key_b), (x, y)
    assert ArithTuple(0, 0) <= 0 and ArithTuple(0, 0) >= 0


@pytest.mark.parametrize("other", ["a", 1.5, None, 3])
def test_an_arith_tuple_refuses_to_order_against_a_non_tuple_naming_it(other: object) -> None:
    for op in (ArithTuple.__lt__, ArithTuple.__le__, ArithTuple.__gt__, ArithTuple.__ge__):
        with pytest.raises(ShapeError, match="cannot order an ArithTuple against"):
            op(ArithTuple(1, 2), other)


def test_an_arith_tuple_is_unequal_to_unrelated_objects_and_iterates_its_entries() -> None:
    t = ArithTuple(1, 2, 3)
    assert (t == "123") is False and (t == 1.5) is False and t != None  # noqa: E711
    assert list(t) == [1, 2, 3] and tuple(ArithTuple(0, (1, 2))) == (0, ArithTuple(1, 2))


def test_basis_paths_are_bounded_by_max_basis_index() -> None:
    assert MAX_BASIS_INDEX == 4096
    top = E(MAX_BASIS_INDEX - 1)
    assert len(top) == MAX_BASIS_INDEX and list(top)[-1] == 1
    with pytest.raises(ShapeError, match=r"mode indices in \[0, 4096\)"):
        E(MAX_BASIS_INDEX)


@pytest.mark.parametrize("value", [-1, -8, "x", 1.5, True], ids=repr)
def test_an_f2_of_a_negative_or_non_integer_value_is_refused_naming_it(value: object) -> None:
    with pytest.raises(ShapeError, match=f"F2 takes a non-negative int, got {value!r}"):
        F2(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("entry", [True, False, 1.5, "x", None], ids=repr)
def test_an_arith_tuple_entry_that_is_no_int_f2_or_tuple_is_refused_naming_it(entry: object) -> None:
    with pytest.raises(ShapeError, match=f"an ArithTuple holds ints, F2 values and tuples, got {entry!r}"):
        ArithTuple((1, entry))


def test_an_arith_tuple_of_one_scalar_is_the_scalar_and_of_one_arith_tuple_nests_it() -> None:
    assert type(ArithTuple(5)) is int and ArithTuple(5) == 5
    assert isinstance(ArithTuple(F2(5)), F2) and ArithTuple(F2(5)).value == 5
    inner = ArithTuple(1, 2)
    nested = ArithTuple(inner)  # CuTe's make_arithmetic_tuple(t): a tuple of one element, the tuple t
    assert isinstance(nested, ArithTuple) and nested[0] == inner
    assert nested.terms() == [(1, (0, 0)), (2, (0, 1))] != inner.terms()


@pytest.mark.parametrize("other", [3, F2(1), -1], ids=repr)
def test_an_arith_tuple_adds_a_nonzero_scalar_by_refusal(other: object) -> None:
    with pytest.raises(ShapeError, match="a tuple adds only tuples \\(or 0\\)"):
        ArithTuple(1, 2) + other
    assert ArithTuple(1, 2) + 0 == ArithTuple(1, 2) == ArithTuple(1, 2) + F2(0)


@pytest.mark.parametrize("k", [ArithTuple(1, 2), True, 1.5, "x"], ids=repr)
def test_an_arith_tuple_scales_only_by_an_int_or_f2(k: object) -> None:
    with pytest.raises(ShapeError, match="an ArithTuple scales only by an int \\(or an F2 leaf\\), got"):
        ArithTuple(1, 2) * k


def test_a_zero_arith_tuple_equals_the_int_zero_but_not_false_or_a_float_zero() -> None:
    zero = ArithTuple(0, 0)
    assert zero == 0 and zero == F2(0)
    assert (zero == False) is False  # noqa: E712 - a bool is no stride
    assert (zero == 0.0) is False
    assert zero != False and zero != 0.0  # noqa: E712


def test_adding_a_nested_leaf_to_a_nonzero_int_at_its_position_is_refused() -> None:
    """((1,),) + (1,): position 0 holds a tuple on one side and a nonzero int on the other; they do not add (a
    zero int there would be the additive identity)."""
    nested = ArithTuple((ArithTuple((1,)),))
    with pytest.raises(ShapeError, match="a tuple adds only tuples"):
        nested + ArithTuple((1,))
    assert nested + ArithTuple((0,)) == nested

"""Contract of `layoutalg.core.tuple_ops` (PyCuTe's tuple utilities): paths, and ShapeError/CoordinateError
naming the problem for incongruent tuples, over-deep nesting and paths that leave the tuple."""

from __future__ import annotations

from typing import Any

import pytest

from layoutalg.core.tuple_ops import get, lift, transform_apply_leaf, transform_leaf
from layoutalg.core.validate import MAX_DEPTH
from layoutalg.errors import CoordinateError, ShapeError


def _nest(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = (value,)
    return value


def test_get_follows_a_path_and_none_or_the_empty_path_is_the_tuple_itself() -> None:
    t = (1, (2, (3, 4)))
    assert get(t, (1, 1, 0)) == 3
    assert get(t, 1) == (2, (3, 4))
    assert get(t, None) == t
    assert get(t, ()) == t


@pytest.mark.parametrize("path, step", [((2,), 0), ((1, 0, 0), 2), ((0, 1), 1)])
def test_get_refuses_a_path_that_leaves_the_tuple_naming_the_step(path: tuple[int, ...], step: int) -> None:
    with pytest.raises(CoordinateError, match=rf"get: path .* at step {step} \(index"):
        get((1, (2, (3, 4))), path)


def test_lift_places_a_value_at_a_path_padded_with_the_default_zero() -> None:
    assert lift(42, (0, 2, 3)) == ((0, 0, (0, 0, 0, 42)),)
    assert lift(7, (1,), pad=None) == (None, 7)
    assert lift(5, None) == 5


def test_transform_leaf_applies_fn_leafwise_and_refuses_incongruent_tuples() -> None:
    assert transform_leaf(lambda a, b: a * b, (2, (3, 4)), (5, (6, 7))) == (10, (18, 28))
    with pytest.raises(ShapeError, match="transform_leaf: .* are not congruent"):
        transform_leaf(lambda a, b: a * b, (2, (3, 4)), (5, 6))


def test_transform_leaf_accepts_the_deepest_nesting_and_refuses_one_level_more() -> None:
    assert transform_leaf(lambda a: a + 1, _nest(1, MAX_DEPTH)) == _nest(2, MAX_DEPTH)
    with pytest.raises(ShapeError, match="transform_leaf: tuples nested more than 64 levels deep"):
        transform_leaf(lambda a: a + 1, _nest(1, MAX_DEPTH + 1))


def test_transform_apply_leaf_combines_each_level_and_refuses_over_deep_nesting() -> None:
    assert transform_apply_leaf(sum, lambda a, b: a * b, (2, (3, 4)), (5, (6, 7))) == 10 + 18 + 28
    assert transform_apply_leaf(sum, lambda a: a, _nest(3, MAX_DEPTH)) == 3
    with pytest.raises(ShapeError, match="transform_apply_leaf: tuples nested more than 64 levels deep"):
        transform_apply_leaf(sum, lambda a: a, _nest(3, MAX_DEPTH + 1))

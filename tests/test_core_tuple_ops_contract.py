"""Contract of `layoutalg.core.tuple_ops` (PyCuTe's tuple utilities): paths, and ShapeError/CoordinateError
naming the problem for incongruent tuples, over-deep nesting and paths that leave the tuple."""

from __future__ import annotations

from typing import Any

import pytest

from layoutalg.core.tuple_ops import dice_, get, lift, slice_, transform_apply_leaf, transform_leaf
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


@pytest.mark.parametrize("bad", [-1, "0", 1.0, True, None])
def test_lift_refuses_a_path_entry_that_is_not_a_non_negative_int_naming_it(bad: Any) -> None:
    with pytest.raises(CoordinateError, match=rf"^lift: path entries must be non-negative ints, got {bad!r}$"):
        lift(7, (0, bad))
    assert get(lift(7, (0, 2)), (0, 2)) == 7  # the good path for comparison


@pytest.mark.parametrize("crd,t", [((None, 1), (2, 3, 4)), ((None, 1, 2), (2, 3)), ((None, 1), 5),
                                   (((None, 1), 2), ((2, 3, 4), 5)), (((None, 1), 2), (5, 6))])
def test_slice_and_dice_refuse_a_coordinate_that_does_not_match_the_tuple_naming_both(crd: Any, t: Any) -> None:
    for fn in (slice_, dice_):
        with pytest.raises(ShapeError, match=r"^slice/dice: coordinate .* does not match "):
            fn(crd, t)


def test_slice_keeps_the_subtrees_under_none_and_dice_the_others() -> None:
    assert slice_((None, (1, None), 2), (4, (5, (6, 7)), 8)) == (4, (6, 7))
    assert dice_((None, (1, None), 2), (4, (5, (6, 7)), 8)) == (5, 8)


def test_transform_leaf_needs_a_tuple() -> None:
    with pytest.raises(ShapeError, match="^transform_leaf needs at least one tuple$"):
        transform_leaf(abs)


@pytest.mark.parametrize("fn", [5, "abs", None])
def test_a_function_argument_that_is_not_callable_is_refused_naming_it(fn: Any) -> None:
    with pytest.raises(ShapeError, match=rf"^transform_leaf: fn must be callable, got {fn!r}$"):
        transform_leaf(fn, (1, 2))
    with pytest.raises(ShapeError, match=rf"^transform_apply_leaf: combine must be callable, got {fn!r}$"):
        transform_apply_leaf(fn, abs, (1, 2))
    with pytest.raises(ShapeError, match=rf"^transform_apply_leaf: fn must be callable, got {fn!r}$"):
        transform_apply_leaf(sum, fn, (1, 2))


def _two_args(a: Any, b: Any) -> Any:
    return a


def test_a_function_that_cannot_take_one_argument_per_tuple_is_refused_naming_the_arity() -> None:
    with pytest.raises(ShapeError, match=r"^transform_leaf: fn .* cannot take 2 positional argument\(s\)$"):
        transform_leaf(lambda a: a, (1, 2), (3, 4))
    with pytest.raises(ShapeError, match=r"^transform_leaf: fn .* cannot take 1 positional argument\(s\)$"):
        transform_leaf(lambda a, b: a, (1, 2))
    with pytest.raises(ShapeError, match=r"^transform_apply_leaf: combine .* cannot take 1 positional argument\(s\)$"):
        transform_apply_leaf(_two_args, abs, (1, 2))  # type: ignore[arg-type]
    with pytest.raises(ShapeError, match=r"^transform_apply_leaf: fn .* cannot take 2 positional argument\(s\)$"):
        transform_apply_leaf(sum, abs, (1, 2), (3, 4))


def test_transform_apply_leaf_takes_any_one_argument_combine() -> None:
    assert transform_apply_leaf(lambda parts: max(parts), lambda a, b: a * b, (1, (2, 3)), (4, (5, 1))) == 10
    assert transform_apply_leaf(sum, lambda a: a, ((1, 2), 3)) == 6


@pytest.mark.parametrize("t,other", [((1, 2), (3,)), ((1, 2), 5), ((1, (2, 3)), (4, (5,))), ((1, (2, 3)), (4, 5))])
def test_transform_apply_leaf_refuses_incongruent_tuples_naming_them(t: Any, other: Any) -> None:
    with pytest.raises(ShapeError, match=r"^transform_apply_leaf: .* are not congruent$"):
        transform_apply_leaf(sum, lambda a, b: a * b, t, other)

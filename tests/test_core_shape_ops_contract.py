"""Contract of ``layoutalg.core.shape_ops`` (CuTe ``append``/``prepend``/``group``/``select``): rank padding
accepts every positive rank and leaves a layout of that rank untouched (an int shape stays an int); grouping
the one mode of an int-shaped layout wraps it once (CuTe DSL); indices count from the end when negative and
past the rank are refused as ``CoordinateError``."""

from __future__ import annotations

from typing import Any

import pytest

import layoutalg as la
from layoutalg.core.shape_ops import append, group, prepend, select
from layoutalg.errors import CoordinateError, ShapeError

L3 = la.Layout((2, 3, 4), (1, 2, 6))


@pytest.mark.parametrize("pad", [append, prepend], ids=lambda f: f.__name__)
def test_padding_to_the_layouts_own_rank_returns_it_unchanged_even_for_an_int_shape(pad: Any) -> None:
    one = la.Layout(4, 1)
    same = pad(one, n=1)
    assert same.shape == 4 and same.stride == 1
    assert pad(L3, n=3) == L3 and pad(L3, n=2) == L3


@pytest.mark.parametrize("pad", [append, prepend], ids=lambda f: f.__name__)
def test_padding_to_rank_zero_or_below_is_refused_naming_n(pad: Any) -> None:
    for n in (0, -1):
        with pytest.raises(ShapeError, match="rank n must be a positive int"):
            pad(L3, n=n)


def test_group_of_the_one_mode_of_an_int_shaped_layout_wraps_it_once() -> None:
    for end in (1, None):
        g = group(la.Layout(4, 1), 0, end)
        assert g.shape == (4,) and g.stride == (1,)


def test_group_of_an_empty_range_is_refused_as_empty() -> None:
    for begin, end in ((1, 1), (3, None), (2, 1)):
        with pytest.raises(CoordinateError, match="must be before end"):
            group(L3, begin, end)


def test_select_takes_indices_as_arguments_or_as_one_sequence() -> None:
    select_any: Any = select  # the annotation names the argument form; one sequence is accepted too
    by_args, by_list, by_tuple = select(L3, 2, 0), select_any(L3, [2, 0]), select_any(L3, (2, 0))
    assert by_args == by_list == by_tuple
    assert by_args.shape == (4, 2) and by_args.stride == (6, 1)


def test_select_counts_negative_indices_from_the_end() -> None:
    for k in range(3):
        assert select(L3, k - 3) == select(L3, k)
    assert select(L3, -1).shape == (4,)


@pytest.mark.parametrize("index", [3, 4, -4], ids=str)
def test_select_past_the_rank_is_refused_as_a_coordinate_error(index: int) -> None:
    with pytest.raises(CoordinateError, match="out of range for a rank-3 layout"):
        select(L3, index)

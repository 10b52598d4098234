"""ComposedLayout's stated contract: its size bounds, argument checks, defaults and the slicing rules at their edges.

Each bound is tested on both sides (the last size accepted, the first refused); expected values are computed
independently (numpy bit arithmetic for the swizzle, the inner layout for the structure).
"""

from __future__ import annotations

import numpy as np
import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import CoordinateError, LayoutError, ShapeError
from layoutalg.swizzle.composed import ComposedLayout, eval_layout_at, fit_affine, make_composed_layout
from layoutalg.swizzle.generic import slice_and_offset
from layoutalg.swizzle.swizzle import Swizzle

LISTED = 1 << 22  # the most elements values(), cosize() and the affine reduction of a slice handle
INT64_REACH = 1 << 62  # vectorised evaluation refuses offsets reaching this
SW_BIT1_INTO_BIT0 = Swizzle(1, 0, 1)  # x ^ ((x >> 1) & 1)


def bit1_into_bit0(x: np.ndarray) -> np.ndarray:
    return x ^ ((x >> 1) & 1)


def test_vectorised_evaluation_accepts_offsets_below_2_to_62_and_refuses_from_2_to_62() -> None:
    # offset + (extent - 1) * stride is the largest position: 1 + (2**62 - 2) = 2**62 - 1 is still evaluated.
    below = ComposedLayout(SW_BIT1_INTO_BIT0, 1, Layout(2, INT64_REACH - 2))
    assert below.to_numpy().tolist() == [SW_BIT1_INTO_BIT0(1), SW_BIT1_INTO_BIT0(INT64_REACH - 1)]
    # 2 + (2**62 - 2) = 2**62, from the offset and the stride together, is refused with a LayoutError.
    at = ComposedLayout(SW_BIT1_INTO_BIT0, 2, Layout(2, INT64_REACH - 2))
    with pytest.raises(LayoutError, match="int64 range"):
        at.to_numpy()
    # a single stride reaching 2**62 (offset 0) is refused too
    with pytest.raises(LayoutError, match="int64 range"):
        ComposedLayout(SW_BIT1_INTO_BIT0, 0, Layout(2, INT64_REACH)).to_numpy()


def test_values_and_cosize_cover_2_to_22_elements_and_refuse_one_more() -> None:
    # Sw<1,0,1> o _0 o n:2 maps i to 2i ^ (i & 1): it reaches 2n - 1, above the inner layout's cosize.
    full = ComposedLayout(SW_BIT1_INTO_BIT0, 0, Layout(LISTED, 2))
    listed = full.values()
    assert isinstance(listed, list) and len(listed) == LISTED
    sample = np.arange(0, LISTED, 4093, dtype=np.int64).tolist() + [LISTED - 2, LISTED - 1]
    assert [listed[i] for i in sample] == bit1_into_bit0(2 * np.array(sample, dtype=np.int64)).tolist()
    assert full.cosize() == 2 * LISTED
    over = ComposedLayout(SW_BIT1_INTO_BIT0, 0, Layout(LISTED + 1, 2))
    with pytest.raises(LayoutError, match="values()"):
        over.values()
    with pytest.raises(LayoutError, match="cosize"):
        over.cosize()


def test_a_slice_of_2_to_22_elements_where_the_swizzle_cancels_becomes_a_plain_layout() -> None:
    # On (n, 2):(4, 1) with the second coordinate 0 every position is a multiple of 4: Sw<1,0,1> leaves it alone.
    exact = ComposedLayout(SW_BIT1_INTO_BIT0, 0, Layout((LISTED, 2), (4, 1)))
    assert exact(None, 0) == Layout((LISTED,), (4,))
    assert slice_and_offset(exact, (None, 0)) == (Layout((LISTED,), (4,)), 0)


def test_a_slice_past_2_to_22_elements_stays_composed_with_its_offset_in_the_function() -> None:
    large = ComposedLayout(SW_BIT1_INTO_BIT0, 0, Layout((LISTED + 1, 2), (4, 1)))
    sliced = large(None, 1)
    assert isinstance(sliced, ComposedLayout) and sliced.size() == LISTED + 1
    function, offset = slice_and_offset(large, (None, 1))
    assert offset == 0 and function == sliced
    for i in (0, 1, 2, 3, LISTED):
        assert function(i) + offset == large(i, 1) == SW_BIT1_INTO_BIT0(4 * i + 1)


def test_an_all_none_slice_returns_the_composed_layout_itself_even_where_it_is_affine() -> None:
    # Sw<1,0,1> cancels on every position of (4,4):(4,16), yet C(None, None) is C, not a plain layout.
    affine = ComposedLayout(SW_BIT1_INTO_BIT0, 0, Layout((4, 4), (4, 16)))
    assert affine(None, None) == affine
    assert affine((None, None)) == affine
    assert slice_and_offset(affine, (None, None)) == (affine, 0)


def test_an_all_none_slice_of_the_wrong_rank_is_a_shape_error() -> None:
    composed = ComposedLayout(SW_BIT1_INTO_BIT0, 0, Layout((4, 4), (4, 16)))
    with pytest.raises(ShapeError, match="rank"):
        composed(None, None, None)
    with pytest.raises(ShapeError, match="rank"):
        composed((None, None), None)


def test_calling_a_composed_layout_without_a_coordinate_is_a_coordinate_error() -> None:
    with pytest.raises(CoordinateError, match="coordinate or an index"):
        ComposedLayout(SW_BIT1_INTO_BIT0, 0, Layout(4, 1))()


def test_an_outer_layout_evaluated_at_a_negative_position_is_a_coordinate_error() -> None:
    # offset -1: the first position handed to the outer layout is -1, outside its domain
    composed = ComposedLayout(Layout(8, 1), -1, Layout(4, 1))
    with pytest.raises(CoordinateError, match="negative"):
        composed.to_numpy()
    with pytest.raises(CoordinateError, match="negative"):
        eval_layout_at(Layout(8, 1), np.array([3, -2]))
    assert eval_layout_at(Layout((2, 4), (4, 1)), np.array([0, 1, 2, 9])).tolist() == [0, 4, 1, 8]


def test_depth_and_with_inner_follow_the_inner_layout() -> None:
    nested = Layout(((2, 2), 4), ((1, 2), 4))
    composed = ComposedLayout(SW_BIT1_INTO_BIT0, 3, Layout(8, 1))
    assert composed.depth() == 0
    swapped = composed.with_inner(nested)
    assert swapped == ComposedLayout(SW_BIT1_INTO_BIT0, 3, nested)
    assert swapped.depth() == nested.depth() == 2
    assert [swapped(i) for i in range(16)] == [SW_BIT1_INTO_BIT0(3 + nested(i)) for i in range(16)]


def test_make_composed_layout_refuses_a_fourth_positional_argument() -> None:
    with pytest.raises(LayoutError, match="takes 3 arguments"):
        make_composed_layout(SW_BIT1_INTO_BIT0, 0, Layout(4, 1), Layout(4, 1))


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((SW_BIT1_INTO_BIT0,), {}),  # no layout
        ((SW_BIT1_INTO_BIT0, 0), {}),  # an offset, no layout
        ((), {"offset": 0, "outer": Layout(4, 1)}),  # an offset and a layout, no function
        ((None, 2, Layout(4, 1)), {}),  # the function passed as None
        ((), {"inner": SW_BIT1_INTO_BIT0, "offset": 1}),
    ],
)
def test_make_composed_layout_names_the_missing_function_or_layout(args: tuple, kwargs: dict) -> None:
    with pytest.raises(LayoutError, match="needs the function applied last"):
        make_composed_layout(*args, **kwargs)


def test_make_composed_layout_defaults_the_offset_to_zero() -> None:
    layout = Layout((2, 4), (4, 1))
    assert make_composed_layout(inner=SW_BIT1_INTO_BIT0, outer=layout) == ComposedLayout(SW_BIT1_INTO_BIT0, 0, layout)
    assert make_composed_layout(SW_BIT1_INTO_BIT0, None, layout) == ComposedLayout(SW_BIT1_INTO_BIT0, 0, layout)


def test_fit_affine_gives_a_mode_of_extent_one_stride_zero() -> None:
    # a mode of extent 1 has no unit coordinate to read a stride at: it gets CuTe's compact stride 0
    assert fit_affine(np.array([5, 9, 13]), (1, 3)) == (Layout((1, 3), (0, 4)), 5)
    assert fit_affine(np.array([7]), 1) == (Layout(1, 0), 7)
    assert fit_affine(np.array([0, 1, 3, 2]), 4) is None

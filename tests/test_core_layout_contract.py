"""Contract of `layoutalg.core.layout`: construction refusals, vectorised evaluation against `L(i)`,
coordinate and slice refusals (CoordinateError naming the coordinate), and `wrap_modes`."""

from __future__ import annotations

import numpy as np
import pytest

from layoutalg.core.layout import Layout, slice_and_offset, wrap_modes
from layoutalg.errors import CoordinateError, LayoutError, ShapeError


def test_an_int_shape_refuses_a_tuple_stride() -> None:
    with pytest.raises(ShapeError, match=r"stride \(1,2\) is not congruent to shape 4"):
        Layout(4, (1, 2))


def test_evaluate_indices_agrees_with_calling_the_layout_past_its_size() -> None:
    layout = Layout(((2, 3), 4), ((1, 10), 100))
    indices = np.arange(0, 3 * layout.size())  # the last mode keeps counting past size
    assert layout.evaluate_indices(indices).tolist() == [layout(int(i)) for i in indices]


def test_evaluate_indices_refuses_a_negative_index_naming_it() -> None:
    with pytest.raises(CoordinateError, match="indices must be non-negative, got -3"):
        Layout((2, 3)).evaluate_indices(np.array([0, 5, -3]))


def test_a_numpy_array_coordinate_is_refused_with_the_coordinate_named() -> None:
    layout = Layout((2, 3))
    with pytest.raises(CoordinateError, match=r"coordinate must be an int or a tuple of ints, got a numpy array"):
        layout(np.array([1, 2]))
    with pytest.raises(CoordinateError, match=r"coordinate\[0\] must be an int or a tuple of ints, got a numpy array"):
        layout((np.array([1]), 0))


def test_a_slice_of_another_rank_is_refused() -> None:
    layout = Layout((2, 3), (1, 2))
    with pytest.raises(CoordinateError, match=r"slice \(None, 1, 2\) does not match the rank of shape \(2,3\)"):
        layout(None, 1, 2)
    with pytest.raises(CoordinateError, match="does not match the rank"):
        slice_and_offset(Layout(((2, 4), 8), ((1, 16), 2)), ((None, 1, 0), None))


def test_slicing_keeps_the_none_modes_and_offsets_by_the_fixed_ones() -> None:
    layout = Layout(((2, 4), 8), ((1, 16), 2))
    sub, offset = slice_and_offset(layout, ((None, 1), None))
    assert (sub, offset) == (Layout((2, 8), (1, 2)), 16)
    for i in range(2):
        for j in range(8):
            assert sub((i, j)) + offset == layout(((i, 1), j))


def test_wrap_modes_lists_the_top_level_modes_and_an_int_layout_as_its_own_mode() -> None:
    assert wrap_modes(Layout((2, (3, 4)), (1, (2, 6)))) == [Layout(2, 1), Layout((3, 4), (2, 6))]
    assert wrap_modes(Layout(4, 2)) == [Layout(4, 2)]


def test_eight_extents_of_two_to_the_512_reach_the_size_limit_and_are_refused() -> None:
    assert Layout(((1 << 511),) * 8).size() == 1 << 4088
    with pytest.raises(ShapeError, match="shape has 4097-bit size; a layout's size is limited to 4096 bits"):
        Layout(((1 << 512),) * 8)
    with pytest.raises(ShapeError, match="has 4097 bits; integers are limited to 4096 bits"):
        Layout(1 << 4096)
    assert Layout((1 << 4096) - 1).size() == (1 << 4096) - 1


def test_whole_domain_evaluation_is_refused_past_its_limits_naming_them() -> None:
    with pytest.raises(LayoutError, match=r"has 67108865 elements; whole-domain evaluation is limited to 67108864 "
                                          r"\(2\*\*26\)"):
        Layout((1 << 26) + 1).to_numpy()
    with pytest.raises(LayoutError, match=r"limited to 4194304 \(2\*\*22, offsets past int64\)"):
        Layout((1 << 22) + 1, 1 << 41).to_numpy()
    with pytest.raises(LayoutError, match="values.* 4194305 elements is over the 4194304"):
        Layout((1 << 22) + 1).values()


def test_offsets_stay_int64_below_two_to_the_62_and_become_python_ints_from_there() -> None:
    below = Layout(2, (1 << 62) - 1).to_numpy()
    assert below.dtype == np.int64 and below.tolist() == [0, (1 << 62) - 1]
    at = Layout(2, 1 << 62).to_numpy()
    assert at.dtype == object and at.tolist() == [0, 1 << 62]

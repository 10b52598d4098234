"""Contract of `layoutalg.core.layout`: construction refusals, vectorised evaluation against `L(i)`,
coordinate and slice refusals (CoordinateError naming the coordinate), and `wrap_modes`."""

from __future__ import annotations

import numpy as np
import pytest

from layoutalg.core.layout import Layout, as_layout, make_layout, slice_and_offset, wrap_modes
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


# -- construction limits at their exact boundaries -----------------------------------------------------

BIG = 1 << 4096


def test_a_nested_shape_of_size_exactly_two_to_the_4096_is_refused_and_one_below_is_not() -> None:
    with pytest.raises(ShapeError, match="4097-bit size"):
        Layout(((1 << 2048, 1 << 2048),))
    assert Layout(((1 << 2048, (1 << 2047) - 1),)).size() == (1 << 4095) - (1 << 2048)


def test_a_zero_extent_is_refused_in_nested_flat_and_int_shapes() -> None:
    for shape in (((2, 0),), (2, 0), 0, (0,)):
        with pytest.raises(ShapeError, match="extent 0 at mode"):
            Layout(shape)


def test_an_int_extent_or_stride_of_two_to_the_4096_is_refused_and_one_below_is_accepted() -> None:
    with pytest.raises(ShapeError, match="extent at mode shape has 4097 bits"):
        Layout(BIG)
    with pytest.raises(ShapeError, match="extent at mode \\[0\\] has 4097 bits"):
        Layout((BIG,))
    with pytest.raises(ShapeError, match="extent at mode \\[1\\] has 4097 bits"):
        Layout((2, BIG))
    for stride in (BIG, -BIG):
        with pytest.raises(ShapeError, match="stride has 4097 bits"):
            Layout(4, stride)
        with pytest.raises(ShapeError, match="stride\\[1\\] has 4097 bits"):
            Layout((2, 4), (1, stride))
        with pytest.raises(ShapeError, match="stride\\[0\\] has 4097 bits"):
            Layout((2,), (stride,))
    assert Layout(4, BIG - 1)(1) == BIG - 1
    assert Layout(4, 1 - BIG)(1) == 1 - BIG
    assert Layout((2, 4), (1, BIG - 1))(2) == BIG - 1
    assert Layout((2, 4), (1, 1 - BIG))(2) == 1 - BIG


def test_nine_extents_below_two_to_the_512_can_pass_the_size_limit_and_are_refused() -> None:
    with pytest.raises(ShapeError, match="4600-bit size"):
        Layout((1 << 511,) * 9)
    assert Layout((1 << 511,) * 8).size() == 1 << 4088


def test_unit_extents_are_accepted_next_to_large_ones_and_in_long_shapes() -> None:
    assert Layout((1, 1 << 600)).stride == (1, 1)
    assert Layout((1,) * 9).size() == 1


def test_a_stride_of_another_length_or_nesting_is_refused_as_not_congruent() -> None:
    for shape, stride in (((2, 3), (1, 2, 3)), ((2, 3), 1), ((2, 3), ((1, 2), 3)), (((2, 3), 4), (1, 2))):
        with pytest.raises(ShapeError, match="is not congruent to shape"):
            Layout(shape, stride)


def test_a_nested_shape_with_default_strides_is_compact_column_major() -> None:
    assert Layout(((2, 3), (4, 5))).stride == ((1, 2), (6, 24))


def test_an_oversized_stride_prints_described_in_the_congruence_error() -> None:
    with pytest.raises(ShapeError, match="stride <an int of 16610 bits> is not congruent"):
        Layout((2, 3), 10**5000)
    with pytest.raises(ShapeError, match="stride <an int of 4097 bits> is not congruent"):
        Layout((2, 3), BIG)
    with pytest.raises(ShapeError, match="stride <an int of 4097 bits> is not congruent"):
        Layout((2, 3), -BIG)


# -- calling, modes, equality ---------------------------------------------------------------------------

def test_calling_a_layout_with_no_argument_is_refused_naming_what_it_takes() -> None:
    with pytest.raises(CoordinateError, match="a layout takes a coordinate or an index"):
        Layout((2, 3))()


def test_len_is_the_rank() -> None:
    assert len(Layout((2, 3, 4))) == 3
    assert len(Layout(4)) == 1


def test_mode_indices_run_from_minus_rank_to_rank_minus_one() -> None:
    L = Layout((2, 3, 4), (1, 10, 100))
    assert L[-3] == L[0] == Layout(2, 1)
    assert L[-1] == L[2] == Layout(4, 100)
    for i in (3, -4):
        with pytest.raises(CoordinateError, match=f"mode {i} out of range for a rank-3 layout"):
            L[i]


def test_an_int_layout_is_its_own_mode_0_and_minus_1_and_has_no_other() -> None:
    L = Layout(4, 3)
    assert L[0] == L and L[-1] == L
    for i in (1, -2, 2):
        with pytest.raises(CoordinateError, match=f"mode {i} out of range for a rank-1 layout 4:3"):
            L[i]


def test_a_mode_index_that_is_no_int_or_too_large_is_refused_as_a_coordinate_error() -> None:
    for L in (Layout(4), Layout((2, 3))):
        with pytest.raises(CoordinateError, match="mode index"):
            L["a"]  # type: ignore[index]
        for i in (BIG, -BIG, 10**5000):
            with pytest.raises(CoordinateError, match="mode index has"):
                L[i]


def test_layouts_of_different_shape_or_stride_are_unequal_and_not_equal_to_other_types() -> None:
    assert Layout(2) != Layout(3)
    assert Layout(4, 1) != Layout(4, 2)
    assert Layout(4) != "4:1"
    assert Layout(4) == Layout(4, 1)


# -- whole-domain and vectorised evaluation at their limits ---------------------------------------------

def test_exactly_two_to_the_22_offsets_past_int64_are_evaluated_whole_and_one_more_domain_bit_is_refused() -> None:
    L = Layout((1 << 21, 2), (1, 1 << 62))
    values = L.values()
    assert len(values) == 1 << 22
    assert values[-1] == L((1 << 22) - 1) == (1 << 21) - 1 + (1 << 62)
    with pytest.raises(LayoutError):
        Layout((1 << 22, 2), (1, 1 << 62)).values()


def test_a_domain_whose_offsets_reach_exactly_two_to_the_62_takes_the_python_int_limit() -> None:
    # offsets bounded by 2**62 exactly: numpy int64 is no longer assumed safe, so 2**23 elements are refused
    with pytest.raises(LayoutError, match="offsets past int64"):
        Layout((1 << 22, 2), (1, (1 << 62) - (1 << 22) + 1)).to_numpy()


def test_evaluate_indices_is_exact_near_the_int64_range() -> None:
    cases = [
        (Layout(4, (1 << 62) - 1), [3, 0, 1]),
        (Layout((3, 4), (1 << 61, (1 << 62) - 1)), [0, 5, 11, 2]),
        (Layout((2, 3, 5), (-(1 << 61), 3, 1 << 60)), [29, 30, 100, 7]),
        (Layout((4, 1, 2), ((1 << 61) + 5, 1 << 62, 1 << 61)), [7, 3, 9]),
        (Layout((5, 3), (1, (1 << 62) - 1)), [14, 40]),
        (Layout((3, 2), ((1 << 62) - 1, 1)), [2, 5, 8]),
        (Layout((2, 2, 2), (1 << 61, 1 << 61, 1 << 61)), [7, 15]),
        (Layout(2, 1), [(1 << 62) + 3, (1 << 63) + 1]),
        (Layout(2, 1 << 61), [7]),  # the last mode counts on past its extent
        (Layout((2, 2), (1, 1 << 61)), [15]),
        (Layout((2, 2, 2), (1 << 62, 1 << 62, 1)), [3]),
    ]
    for L, idx in cases:
        got = L.evaluate_indices(np.array(idx, dtype=object))
        assert [int(v) for v in got] == [L(i) for i in idx], L


def test_evaluate_indices_of_small_offsets_is_int64() -> None:
    L = Layout((2, 3), (5, 7))
    assert L.evaluate_indices([0, 5, 9]).dtype == np.int64
    assert L.evaluate_indices([]).dtype == np.int64
    assert Layout((2, 2), (1 << 62, 1)).evaluate_indices([]).dtype == np.int64


def test_a_layout_given_as_a_coordinate_is_refused_as_no_int_not_as_a_numpy_array() -> None:
    with pytest.raises(CoordinateError, match="coordinate") as info:
        Layout((2, 3))(Layout(2))
    assert "numpy array" not in str(info.value)


def test_make_layout_refuses_a_layout_mixed_with_a_stride_naming_the_argument() -> None:
    with pytest.raises(ShapeError, match="make_layout argument 0 is a Layout among shapes"):
        make_layout(Layout(2), 3)
    with pytest.raises(ShapeError, match="make_layout argument 0 is a Layout among shapes"):
        make_layout(Layout(2), np.int64(3))  # a numpy scalar has a shape but no stride: no stride layout


def test_as_layout_refuses_a_string_naming_what_it_takes() -> None:
    with pytest.raises(ShapeError, match="layout must be a Layout or a shape, got"):
        as_layout("abc")


def test_make_layout_of_a_gf2_strided_layout_and_a_layout_is_a_stride_layout_of_both() -> None:
    from layoutalg.core.stride_layout import stride_layout
    from layoutalg.core.stride_scalars import F2

    made = make_layout(stride_layout(4, F2(1)), Layout(2, 4))
    assert type(made).__name__ == "StrideLayout"
    assert str(made) == "(4,2):(F1,4)"


def test_make_layout_with_a_sympy_stride_on_an_int_shape_is_the_symbolic_layout_of_that_stride() -> None:
    """CuTe's ``L(i) = sum(coord_k * stride_k)`` with the colexicographic coordinate ``(i % 4, i // 4)``:
    ``(4,8):(N,1)`` maps ``i`` to ``N*(i % 4) + i // 4`` for every index."""
    import sympy

    n = sympy.Symbol("N", positive=True, integer=True)
    made = make_layout((4, 8), stride=(n, 1))
    assert made.shape == (4, 8) and made.stride == (n, 1)
    assert [sympy.expand(made(i) - (n * (i % 4) + i // 4)) for i in range(32)] == [0] * 32


@pytest.mark.parametrize("stride", [None, (1, 4)], ids=["compact", "given"])
def test_make_layout_of_int_leaves_refuses_a_negative_extent_naming_it_and_its_mode(stride: object) -> None:
    with pytest.raises(ShapeError, match=r"extent -1 at mode \[1\] must be a positive integer"):
        make_layout((4, -1), stride=stride)
    assert type(make_layout((4, 8), stride=stride)) is Layout


class _TaggedIndex(int):
    """An integer carrying array-like metadata (``shape``, ``dtype``) but no ``ndim``, as some frameworks' scalars
    do: only an array of rank > 0 is refused as a coordinate."""

    shape = ()
    dtype = "int64"


def test_an_integer_with_a_shape_and_dtype_but_no_ndim_is_a_coordinate_not_an_array() -> None:
    layout = Layout((2, 3), (1, 2))
    assert layout(_TaggedIndex(4)) == layout(4) == 4
    assert layout((_TaggedIndex(1), _TaggedIndex(2))) == 5

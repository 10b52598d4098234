"""Contract of ``StrideLayout`` (``layoutalg.core.stride_layout``): construction refuses bad extents and stride
leaves naming the mode; evaluation refuses bad indices and coordinates; modes, depth, length and repr follow
the shape, and a rank-1 layout is its own mode 0 (and -1), as CuTe's ``get<0>`` of a non-tuple."""

from __future__ import annotations

from typing import Any

import pytest

import layoutalg as la
from layoutalg import F2, ArithTuple, E
from layoutalg.core.stride_layout import StrideLayout

A = StrideLayout((2, 3), (E(0), E(1)))


@pytest.mark.parametrize("stride,mode", [((E(0), 1.5), r"\[1\]"), ((E(0), "x"), r"\[1\]"), (None, "stride"),
                                         (2.5, "stride")])
def test_a_stride_leaf_that_is_not_a_scalar_is_refused_naming_its_mode(stride: Any, mode: str) -> None:
    shape = (2, 2) if isinstance(stride, tuple) else 4
    with pytest.raises(la.ShapeError, match=f"stride leaf .* at mode {mode} is not an int, ArithTuple or F2"):
        StrideLayout(shape, stride)


@pytest.mark.parametrize("shape", [(2, 0), 0, ((1, -1), 2)])
def test_non_positive_extents_are_refused(shape: Any) -> None:
    stride = (E(0), E(1)) if isinstance(shape, tuple) and len(shape) == 2 and not isinstance(shape[0], tuple) \
        else ((E(0), E(0)), E(1)) if isinstance(shape, tuple) else E(0)
    with pytest.raises(la.ShapeError, match="must be positive"):
        StrideLayout(shape, stride)


def test_a_stride_layout_is_immutable() -> None:
    with pytest.raises(AttributeError, match="StrideLayout is immutable"):
        A.shape = (3, 2)
    assert A.shape == (2, 3)


@pytest.mark.parametrize("bad", [1.5, "1", None, True])
def test_an_index_that_is_not_an_int_or_coordinate_is_refused_naming_it(bad: Any) -> None:
    with pytest.raises(la.LayoutError):
        A(bad)


def test_a_negative_index_is_refused_naming_it() -> None:
    with pytest.raises(la.CoordinateError, match="index -1 is negative"):
        A(-1)
    with pytest.raises(la.CoordinateError, match="a layout takes an index or a coordinate, got 1.5"):
        A(1.5)


@pytest.mark.parametrize("crd", [(1, 2, 0), ((1, 0), 2), (1,)])
def test_a_coordinate_not_matching_the_shape_is_refused(crd: Any) -> None:
    with pytest.raises(la.CoordinateError, match="does not match shape"):
        A(crd)


def test_values_by_index_and_by_coordinate_are_the_basis_sums() -> None:
    for j in range(3):
        for i in range(2):
            assert A(i + 2 * j) == A((i, j)) == A(i, j) == ArithTuple(i, j)


def test_depth_len_and_modes_follow_the_shape() -> None:
    nested = StrideLayout(((2, 2), 3), ((E(0), E(1)), F2(4)))
    assert nested.depth() == 2 and len(nested) == 2 and A.depth() == 1 and len(A) == 2
    assert StrideLayout(4, E(1)).depth() == 0 and len(StrideLayout(4, E(1))) == 1
    assert nested[1] == StrideLayout(3, F2(4)) and nested[-2] == StrideLayout((2, 2), (E(0), E(1)))
    assert list(A) == [StrideLayout(2, E(0)), StrideLayout(3, E(1))]


def test_a_rank_one_layout_is_its_own_mode_zero_and_minus_one() -> None:
    one = StrideLayout(4, E(1))
    assert one[0] is one and one[-1] is one and list(one) == [one]
    for bad in (1, -2, 2):
        with pytest.raises(la.CoordinateError, match=f"mode {bad} out of range for a rank-1 layout"):
            one[bad]


@pytest.mark.parametrize("bad", [2, -3, "x", 1.0])
def test_a_mode_out_of_range_is_refused_naming_it(bad: Any) -> None:
    with pytest.raises(la.CoordinateError, match="out of range for a rank-2 layout"):
        A[bad]


def test_repr_rebuilds_an_equal_layout() -> None:
    text = repr(A)
    assert text.startswith("StrideLayout((2, 3), ")
    assert eval(text, {"StrideLayout": StrideLayout, "ArithTuple": ArithTuple}) == A  # noqa: S307


@pytest.mark.parametrize("shape, stride, message", [
    ((2, 3), (1,), "is not congruent to shape (2, 3) at mode stride"),
    ((2, 3), 1, "is not congruent to shape (2, 3) at mode stride"),
    (4, "x", "stride leaf 'x' at mode stride is not an int"),
], ids=str)
def test_a_top_level_stride_error_names_the_mode_as_stride(shape: Any, stride: Any, message: str) -> None:
    with pytest.raises(la.ShapeError) as err:
        la.stride_layout(shape, stride)
    assert message in str(err.value)


def test_stride_layout_equality_is_false_for_other_objects_shapes_and_f2_against_int() -> None:
    a = la.stride_layout(2, la.F2(1))
    assert (a == 5) is False
    assert (a == la.stride_layout(4, la.F2(1))) is False
    assert (a == la.Layout(2, 1)) is False          # F2(1) is not the int 1
    assert (a == la.stride_layout(2, la.F2(3))) is False
    assert (a == la.stride_layout(2, la.F2(1))) is True


@pytest.mark.parametrize("shape,stride,mode", [((2, 3), (1, 1 << 5000), r"\[1\]"), (4, 1 << 5000, "stride"),
                                               (((2, 2), 3), ((1, -(1 << 5000)), 2), r"\[0\]\[1\]")])
def test_a_stride_leaf_past_the_integer_limit_is_refused_naming_its_mode(shape: Any, stride: Any, mode: str) -> None:
    with pytest.raises(la.LayoutError, match=f"stride leaf at mode {mode} has 5001 bits"):
        StrideLayout(shape, stride)


@pytest.mark.parametrize("f2_stride,int_stride", [(F2(1), 1), ((F2(2), 4), (2, 4)), ((E(0), F2(3)), (E(0), 3))])
def test_an_f2_stride_is_not_equal_to_the_int_of_its_bits(f2_stride: Any, int_stride: Any) -> None:
    shape = (2, 2) if isinstance(f2_stride, tuple) else 2
    f2, ints = StrideLayout(shape, f2_stride), StrideLayout(shape, int_stride)
    assert f2 != ints and ints != f2
    assert not f2 == ints and not ints == f2  # noqa: SIM201
    assert f2 == StrideLayout(shape, f2_stride)

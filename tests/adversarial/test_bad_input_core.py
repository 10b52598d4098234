"""Bad input to the algebra (issue 13): each case raises the LayoutError family naming the argument, mode or
coordinate, before any large work; numpy integers are ints everywhere."""

from __future__ import annotations

import numpy as np
import pytest

import layoutalg as la
from layoutalg import (
    ComposedLayout,
    CoordinateError,
    InstructionError,
    Layout,
    LayoutError,
    ParseError,
    ShapeError,
    Swizzle,
    atoms,
)

HUGE = 10**5000  # more digits than Python prints or parses (4300)


def test_integers_past_4300_digits_in_notation_are_a_parse_error_at_their_column() -> None:
    for text, column in [("1" * 4400 + ":1", 1), ("(2,2):(1," + "9" * 5000 + ")", 10), ("Sw<3,3,3> o _" + "7" * 4500 + " o 8:1", 14)]:
        with pytest.raises(ParseError, match="digits is too large") as info:
            la.parse(text)
        assert info.value.column == column
    with pytest.raises(ParseError, match="too large"):
        la.parse_triton(" - lane=1 -> (" + "3" * 5000 + ")\nwhere out dims are: [dim0 (size 4)]")


def test_numpy_arrays_as_shape_or_stride_are_refused_naming_the_argument() -> None:
    with pytest.raises(ShapeError, match="shape must be an int or a tuple of ints, got a numpy array"):
        Layout(np.array([4, 8]))
    with pytest.raises(ShapeError, match=r"stride\[1\] must be an int or a tuple of ints, got a numpy array"):
        Layout((4, 8), (1, np.array([4])))
    with pytest.raises(ShapeError, match="stride must be an int or a tuple of ints, got a numpy array"):
        Layout((4, 8), np.array([1, 4]))


def test_numpy_integer_scalars_work_wherever_an_int_does() -> None:
    i = np.int64
    a = Layout((i(4), i(8)), (np.int32(1), np.int16(4)))
    assert a == Layout((4, 8), (1, 4)) and type(a.shape[0]) is int
    assert Layout(i(8), i(2)) == Layout(8, 2)
    assert a(i(9)) == a(9) and a((i(1), np.uint8(2))) == a((1, 2)) and a[i(1)] == a[1] and a.get(i(0)) == a.get(0)
    assert la.composition(a, i(4)) == la.composition(a, 4)
    assert la.complement(Layout(4, 2), i(16)) == la.complement(Layout(4, 2), 16)
    assert la.logical_divide(a, (i(2), None)) == la.logical_divide(a, (2, None))
    assert la.upcast(a, i(2)) == la.upcast(a, 2)
    assert la.select(a, i(1)) == la.select(a, 1) and la.group(a, i(0), i(2)) == la.group(a, 0, 2)
    assert la.append(a, n=i(3)) == la.append(a, n=3)
    assert Swizzle(i(3), i(3), i(3)) == Swizzle(3, 3, 3) and Swizzle(3, 3, 3)(i(70)) == Swizzle(3, 3, 3)(70)
    assert ComposedLayout(Swizzle(3, 3, 3), i(5), a).offset == 5
    assert la.crd2idx((i(1), i(2)), (i(4), i(8)), (1, i(4))) == 9 and la.idx2crd(i(9), (4, 8)) == (1, 2)
    assert atoms.ldmatrix(i(4), np.bool_(True)) is atoms.ldmatrix(4, True)
    assert atoms.ld_shared(np.int32(32)) is atoms.ld_shared(32)
    assert atoms.wgmma(i(64)) is atoms.wgmma(64)


def test_nested_and_empty_tilers_split_by_mode_instead_of_indexing_out_of_range() -> None:
    a = Layout((4, 4))
    for tiler in [((), ()), ((2,),), ((Layout(2),), None)]:
        for divide in (la.zipped_divide, la.tiled_divide, la.flat_divide):
            result = divide(a, tiler)
            assert sorted(result.values()) == sorted(la.logical_divide(a, tiler).values())
        for product in (la.zipped_product, la.tiled_product, la.flat_product):
            assert product(a, tiler).size() == la.logical_product(a, tiler).size()
    tile, offset = la.local_tile(a, ((), ()), 0)
    assert tile.size() == 1 and offset == 0
    assert la.zipped_divide(a, ((2,),)) == Layout((((2,),), ((2,), 4)), (((1,),), ((2,), 4)))


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: la.shape_div(4, 0), ShapeError, "shape_div b: leaf 0 is 0"),
        (lambda: la.shape_div((4, 4), (2,)), ShapeError, "incongruent"),
        (lambda: la.idx2crd(5, (0, 4)), ShapeError, "idx2crd shape: leaf 0 is 0"),
        (lambda: la.crd2idx((1,), (4, 4), (1, 4)), CoordinateError, "does not match the rank"),
        (lambda: la.crd2idx((1, 2), (4, 4), (1,)), ShapeError, "not congruent"),
        (lambda: la.inner_product((1, 2), (1,)), ShapeError, "not congruent"),
        (lambda: la.inner_product(1.5, 2), ShapeError, "inner_product a must be an int"),
        (lambda: la.product("ab"), ShapeError, "product argument must be an int"),
        (lambda: la.flatten(None), ShapeError, "flatten argument must be an int"),
        (lambda: la.prefix_product(((2,), None)), ShapeError, r"prefix_product shape\[1\]"),
        (lambda: la.ceil_div(3.5, 2), ShapeError, "ceil_div a must be an int"),
        (lambda: la.congruent({}, 1), ShapeError, "congruent a"),
        (lambda: la.weakly_congruent(1, [np.array([1, 2])]), ShapeError, r"weakly_congruent b\[0\]"),
    ],
)
def test_int_tuple_helpers_check_their_arguments(call: object, error: type[LayoutError], words: str) -> None:
    with pytest.raises(error, match=words):
        call()  # type: ignore[operator]


def test_an_unhashable_argument_is_checked_before_it_keys_a_memo() -> None:
    with pytest.raises(InstructionError, match="wgmma N must be an int"):
        atoms.wgmma([64])
    with pytest.raises(InstructionError, match="wgmma a must be a str"):
        atoms.wgmma(64, ["f16"])


def test_sizes_are_checked_before_anything_is_allocated() -> None:
    with pytest.raises(LayoutError, match="past int64"):
        Layout(1 << 23, 1 << 62).to_numpy()  # 8M Python ints (before: built, about 0.3 GB)
    with pytest.raises(LayoutError, match="to_numpy"):
        Layout(1 << 23).values()
    with pytest.raises(ShapeError, match="size is limited to 4096 bits"):
        Layout((1 << 4000, 1 << 4000))


def test_integers_too_long_to_print_are_refused_and_described() -> None:
    with pytest.raises(ShapeError, match="extent at mode shape has 16610 bits"):
        Layout(-HUGE)
    with pytest.raises(ShapeError, match=r"stride\[1\] has 16610 bits"):
        Layout((2, 2), (1, HUGE))
    with pytest.raises(CoordinateError, match=r"coordinate\[1\] has 16610 bits"):
        Layout((2, 2))((1, -HUGE))
    with pytest.raises(LayoutError, match="ComposedLayout offset has 16610 bits"):
        ComposedLayout(Swizzle(1, 1, 1), HUGE, Layout(2))
    # found by the 100,000-call fuzz run: a huge mode index reached an error message unchecked
    with pytest.raises(CoordinateError, match="mode index has 16610 bits"):
        ComposedLayout(Swizzle(1, 1, 1), 0, Layout((2, 2)))[HUGE]
    with pytest.raises(LayoutError, match="has 16610 bits"):
        la.complement(Layout(4, 2), HUGE)
    with pytest.raises(LayoutError, match="local_partition index has 16610 bits"):
        la.local_partition(Layout((4, 4)), Layout(2), HUGE)
    with pytest.raises(LayoutError, match="has 16610 bits"):
        la.select(Layout((2, 2)), HUGE)


def test_errors_about_a_mode_or_coordinate_name_it() -> None:
    with pytest.raises(ShapeError, match=r"mode \[1\] must be a positive integer"):
        Layout((4, 0))
    with pytest.raises(ShapeError, match=r"mode \[0\]\[1\] must be a positive"):
        Layout(((2, -1), 3))
    with pytest.raises(CoordinateError, match=r"coordinate\[1\] -1 is negative"):
        Layout((4, 4))((1, -1))
    with pytest.raises(CoordinateError, match=r"coordinate\[0\] must be an int, got 'a'"):
        Layout((4, 4))(("a", 1))
    with pytest.raises(CoordinateError, match="mode index must be an int, got 1.0"):
        Layout((4, 4))[1.0]  # type: ignore[index]

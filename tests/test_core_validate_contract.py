"""Contract of `layoutalg.core.validate`: integers of up to 4096 bits and nesting of up to 64 levels are
accepted, one more is refused naming the argument; `describe` cuts long text at 80 characters."""

from __future__ import annotations

from typing import Any

import pytest

from layoutalg.core.validate import as_int, as_int_tuple, count_text, describe, plain_int
from layoutalg.errors import LayoutError, ShapeError


def _nest(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = (value,)
    return value


def test_integers_below_two_to_the_4096_are_accepted_and_larger_ones_refused() -> None:
    largest = (1 << 4096) - 1
    assert as_int(largest, "n") == largest
    assert as_int(-largest, "n") == -largest
    assert as_int_tuple((2, largest), "shape") == (2, largest)
    with pytest.raises(LayoutError, match="n has 4097 bits; integers are limited to 4096 bits"):
        as_int(1 << 4096, "n")
    with pytest.raises(ShapeError, match=r"shape\[1\] has 4097 bits"):
        as_int_tuple((2, 1 << 4096), "shape")


def test_nesting_of_64_levels_is_accepted_and_65_refused_naming_the_argument() -> None:
    assert as_int_tuple(_nest(3, 64), "shape") == _nest(3, 64)
    assert as_int_tuple(_nest([3], 63), "shape") == _nest((3,), 63)  # lists are converted on the slow path
    with pytest.raises(ShapeError, match="shape.* is nested more than 64 levels deep"):
        as_int_tuple(_nest(3, 65), "shape")


def test_describe_keeps_short_text_and_cuts_long_text_at_80_characters() -> None:
    assert describe("x" * 78) == repr("x" * 78)  # 80 characters with the quotes: kept
    long = "y" * 79  # 81 characters with the quotes
    assert describe(long) == f"{repr(long)[:60]}... (81 characters, str)"
    assert describe(1 << 5000) == "<an int of 5001 bits>"


def test_describe_names_every_int_past_the_limit_by_its_bit_count_from_the_first_refused_one() -> None:
    # as_int refuses |x| >= 2**4096; describe prints exactly those by their size (the largest accepted in full)
    assert describe(1 << 4096) == "<an int of 4097 bits>"
    assert describe(-(1 << 4096)) == "<an int of 4097 bits>"
    assert describe((1 << 4096) - 1).endswith("(1234 characters, int)")
    assert describe(-(1 << 4096) + 1).endswith("(1235 characters, int)")


def test_describe_of_an_object_whose_repr_raises_names_its_type() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    assert describe(Broken()) == "<a Broken>"


@pytest.mark.parametrize("k", [0, 1, 63, 64, 65, 100, 5000])
def test_count_text_prints_up_to_64_bits_in_full_and_larger_counts_as_a_power_of_two_lower_bound(k: int) -> None:
    for n in {(1 << k) - 1, 1 << k, (1 << k) + 1} - {0}:
        text = count_text(n)
        if n < 1 << 64:
            assert text == str(n)
        else:
            assert text.startswith("2**") and text.endswith("+")
            e = int(text[3:-1])
            assert 2**e <= n < 2 ** (e + 1)  # the largest power of two not above n


def test_a_numpy_bool_is_not_an_integer_and_is_refused_as_a_bool() -> None:
    np = pytest.importorskip("numpy")
    with pytest.raises(LayoutError, match=r"^n must be an int, got .*True.* \(bool\)$"):
        as_int(np.True_, "n")
    with pytest.raises(ShapeError, match=r"^shape must be an int or a tuple of ints, got .*False.* \(bool\)$"):
        as_int_tuple(np.False_, "shape")


class _Index:
    """An integer-like object: only ``__index__``."""

    def __init__(self, v: int) -> None:
        self.v = v

    def __index__(self) -> int:
        return self.v


def test_plain_int_turns_integer_like_values_into_python_ints_and_leaves_the_rest() -> None:
    np = pytest.importorskip("numpy")
    for x, v in ((np.int64(5), 5), (np.uint8(7), 7), (_Index(9), 9), (-3, -3)):
        out = plain_int(x, "n")
        assert type(out) is int and out == v
    arr = np.array([1, 2])
    for other in (arr, 1.5, True, np.True_, "7", None):
        assert plain_int(other, "n") is other  # not an integer: the caller's own check reports it


def test_plain_int_refuses_integers_of_more_than_4096_bits_naming_the_argument() -> None:
    np = pytest.importorskip("numpy")
    largest = (1 << 4096) - 1
    assert plain_int(largest, "n") == largest and plain_int(-largest, "n") == -largest
    for big in (1 << 4096, -(1 << 4096), _Index(1 << 4096)):
        with pytest.raises(LayoutError, match=r"^stride has 4097 bits; integers are limited to 4096 bits$"):
            plain_int(big, "stride")
    assert plain_int(np.int64(-(2**63)), "n") == -(2**63)


def test_an_integer_like_object_with_array_attributes_but_no_ndim_is_an_int() -> None:
    class Scalar(_Index):  # shape and dtype, as a numpy scalar has, but no ndim: not an array
        shape = ()
        dtype = "int64"

    assert as_int_tuple(Scalar(6), "shape") == 6
    assert as_int_tuple((Scalar(2), 3), "shape") == (2, 3)


@pytest.mark.parametrize("array", [[1, 2], [[4]], [5]])
def test_a_numpy_array_is_refused_as_an_int_tuple_with_the_conversion_to_use(array: Any) -> None:
    np = pytest.importorskip("numpy")
    with pytest.raises(ShapeError, match=r"^shape must be an int or a tuple of ints, got a numpy array .*; "
                       r"pass tuple\(array.tolist\(\)\) instead$"):
        as_int_tuple(np.array(array), "shape")


@pytest.mark.parametrize("x,kind", [("4", "str"), (True, "bool"), (2.0, "float"), (None, "NoneType"),
                                    ({1: 2}, "dict")])
def test_a_non_integer_leaf_is_refused_naming_the_argument_and_its_type(x: Any, kind: str) -> None:
    with pytest.raises(ShapeError, match=rf"^stride\[1\] must be an int or a tuple of ints, got .* \({kind}\)$"):
        as_int_tuple((1, x), "stride")
    with pytest.raises(LayoutError, match=rf"^stride must be an int or a tuple of ints, got .* \({kind}\)$"):
        as_int_tuple(x, "stride", LayoutError)

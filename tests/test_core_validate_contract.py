"""Contract of `layoutalg.core.validate`: integers of up to 4096 bits and nesting of up to 64 levels are
accepted, one more is refused naming the argument; `describe` cuts long text at 80 characters."""

from __future__ import annotations

from typing import Any

import pytest

from layoutalg.core.validate import as_int, as_int_tuple, describe
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

"""Contract of `layoutalg.core.notation`: CuTe's print notation parses and prints back, integer limits
are refused naming the column, and `to_cpp` writes only the integral-constant aliases CuTe C++ defines
(`cute/numeric/integral_constant.hpp`: `_0`.. `_10`, `_12`, `_16`, `_24`, `_32`, `_64`, `_96`, `_128`,
`_192`, `_256`, `_384`, `_512`, `_768`, then powers of two to `_524288`), `Int<N>` for every other value."""

from __future__ import annotations

import re

import pytest

from layoutalg.core.layout import Layout
from layoutalg.core.notation import parse_layout, to_cpp, to_str
from layoutalg.core.validate import MAX_INT_BITS
from layoutalg.errors import ParseError
from layoutalg.interop import from_cpp
from layoutalg.interop import to_cpp as interop_to_cpp

# The aliases of CUTLASS's integral_constant.hpp present in every release (3.x and 4.x), typed from the header.
CUTE_HEADER_ALIASES = set(range(11)) | {12, 16, 24, 32, 64, 96, 128, 192, 256, 384, 512, 768} | {
    1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288}


def test_to_str_is_cutes_print_notation_and_parses_back() -> None:
    layout = Layout(((2, 4), 8), ((1, 16), 2))
    assert to_str(layout) == "((2,4),8):((1,16),2)"
    assert parse_layout(to_str(layout)) == layout


def test_a_trailing_comma_closes_a_tuple() -> None:
    assert parse_layout("(2,4,):(1,2,)") == Layout((2, 4), (1, 2))
    assert parse_layout("((2,),3):((1,),2)") == Layout(((2,), 3), ((1,), 2))


def test_an_integer_past_the_bit_limit_is_refused_naming_its_digit_count_and_column() -> None:
    digits = len(str(1 << MAX_INT_BITS))  # as many digits as the limit itself, but a larger value
    with pytest.raises(ParseError, match=f"integer of {digits} digits is too large .* at column 2"):
        parse_layout("(" + "9" * digits + "):1")
    with pytest.raises(ParseError, match=f"integer of {digits + 7} digits is too large .* at column 2"):
        parse_layout("(" + "1" * (digits + 7) + "):1")  # refused by its length, before int() reads it


@pytest.mark.parametrize("value", [0, 1, 10, 11, 12, 13, 16, 17, 24, 25, 31, 32, 33, 48, 64, 80, 96, 100, 128, 192,
                                   200, 256, 384, 512, 768, 1000, 1024, 65536, 131072, 524288, 1048576])
def test_to_cpp_uses_an_alias_only_where_cute_defines_one(value: int) -> None:
    text = to_cpp(Layout((2, 3), (value, 1)))
    written = re.search(r"Stride<([^,]+),", text).group(1)  # type: ignore[union-attr]
    assert written == (f"_{value}" if value in CUTE_HEADER_ALIASES else f"Int<{value}>")
    assert from_cpp(text) == Layout((2, 3), (value, 1))


@pytest.mark.parametrize("value", [11, 13, 33, 48, 100, 1000, 2**20])
def test_the_composed_aware_to_cpp_also_writes_undefined_aliases_as_constants(value: int) -> None:
    layout = Layout((value, 2), (1, value))
    text = interop_to_cpp(layout)
    assert f"_{value}" not in re.findall(r"_\d+", text)
    assert from_cpp(text) == layout


def test_parsing_accepts_64_levels_of_nesting_and_refuses_65_naming_the_column() -> None:
    def nested(levels: int, leaf: str) -> str:
        return "(" * levels + leaf + ")" * levels

    assert parse_layout(nested(64, "3") + ":" + nested(64, "1")).size() == 3
    with pytest.raises(ParseError, match="nesting deeper than 64 at column 65"):
        parse_layout(nested(65, "3") + ":" + nested(65, "1"))


def test_an_empty_tuple_ends_right_after_its_closing_parenthesis() -> None:
    from layoutalg.core.notation import parse_int_tuple, parse_int_tuple_at

    assert parse_int_tuple_at("() x", 0) == ((), 2)
    assert parse_int_tuple_at("((),3) x", 0) == (((), 3), 6)
    assert parse_int_tuple("((),(3,()))") == ((), (3, ()))


@pytest.mark.parametrize("text", ["0", "(2,0):(1,1)", "-2:1"])
def test_a_bad_extent_is_reported_as_such_not_as_an_incongruent_stride(text: str) -> None:
    from layoutalg.core.notation import parse_layout_at

    with pytest.raises(ParseError) as err:
        parse_layout_at(text, 0)
    assert "must be a positive integer" in str(err.value) and "congruent" not in str(err.value)


def test_integers_strictly_inside_the_bit_limit_are_read_and_the_limits_refused() -> None:
    from layoutalg.core.notation import _MAX_DIGITS, parse_integer_at

    top = 1 << MAX_INT_BITS
    for value in (top - 1, -(top - 1), 10 ** (_MAX_DIGITS - 1)):
        assert parse_integer_at(str(value), 0) == (value, len(str(value)))
    for value in (top, -top):
        with pytest.raises(ParseError, match="too large"):
            parse_integer_at(str(value), 0)


def test_an_integer_far_into_the_text_is_read() -> None:
    from layoutalg.core.notation import parse_integer_at

    text = " " * 40 + "12345"
    assert parse_integer_at(text, 0) == (12345, 45)


@pytest.mark.parametrize("text, column", [("x", 1), ("-x", 2), ("_x", 2), ("  -_y", 5)])
def test_a_missing_integer_is_reported_where_its_digits_should_start(text: str, column: int) -> None:
    from layoutalg.core.notation import parse_integer_at

    with pytest.raises(ParseError, match="expected an integer") as err:
        parse_integer_at(text, 0)
    assert f"at column {column}:" in str(err.value)

"""The composed-layout notation (layoutalg.swizzle.notation): CUTLASS's smem_ptr[Nb] element conversion at its edges,
offsets, and a ParseError at the right column for each malformed form."""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, ParseError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.notation import parse, to_str
from layoutalg.swizzle.swizzle import Swizzle


def test_a_byte_swizzle_based_exactly_one_element_up_is_the_element_swizzle_of_base_zero() -> None:
    # Sw<3,1,3> on the byte address of 16-bit elements: element bits [3,6) into [0,3), Sw<3,0,3>
    composed = parse("Sw<3,1,3> o smem_ptr[16b](unset) o 64:1")
    assert composed == ComposedLayout(Swizzle(3, 0, 3), 0, Layout(64, 1))
    assert all(2 * composed(i) == Swizzle(3, 1, 3)(2 * i) for i in range(64))


def test_the_identity_swizzle_on_byte_addresses_stays_the_identity_for_any_element_width() -> None:
    assert parse("Sw<0,0,0> o smem_ptr[64b](unset) o 64:1") == ComposedLayout(Swizzle(0, 0, 0), 0, Layout(64, 1))


def test_an_integer_between_two_compositions_is_the_offset() -> None:
    assert parse("Sw<1,0,1> o 3 o 4:1") == ComposedLayout(Swizzle(1, 0, 1), 3, Layout(4, 1))
    assert parse("S<1,0,1> o 4:1") == ComposedLayout(Swizzle(1, 0, 1), 0, Layout(4, 1))


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("Sw<3,0,3> o smem_ptr[16b](unset) o 64:1", "splits 16-bit elements", 13),
        ("Sw<3,4,3> o smem_ptr[0b](unset) o 64:1", "width 0 is not a power of two", 32),
        ("Sw<3,4,3> o smem_ptr[12b](unset) o 64:1", "width 12 is not a power of two", 33),
        ("Sw<3,4,3> o smem_ptr[16](unset) o 64:1", "expected 'b]'", 24),
        ("Sw<3,4,3> o smem_ptr[16b](unset o 64:1", r"unclosed '\('", 26),
        ("8:1 o smem_ptr[16b](unset) o 64:1", "needs a swizzle as the outer function", 7),
        ("Sw<3,4,3> o smem_ptr[16b](unset) 64:1", "expected 'o' and a layout after smem_ptr", 33),
        ("Sw<1,0,1> o (3) o 4:1", "unexpected text after the layout", 17),
        ("Sw<1,0,1 o 4:1", "expected '>' in a swizzle", 10),
        ("Sw<2,0,1> o 4:1", r"must satisfy \|S\| >= B", 1),
    ],
)
def test_a_malformed_composed_layout_is_a_parse_error_at_its_column(text: str, message: str, column: int) -> None:
    with pytest.raises(ParseError, match=message) as info:
        parse(text)
    assert info.value.column == column


def test_parse_and_to_str_refuse_objects_of_the_wrong_type() -> None:
    with pytest.raises(ParseError, match="must be a str, got int"):
        parse(5)  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match="to_str takes a Layout, Swizzle or ComposedLayout, got 5"):
        to_str(5)  # type: ignore[arg-type]


def test_plain_layouts_swizzles_and_cpp_types_parse_and_print_back() -> None:
    assert parse("(4,2):(2,1)") == Layout((4, 2), (2, 1))
    assert parse("Sw<1,0,1>") == Swizzle(1, 0, 1)
    assert parse("  Layout<_4,_1>") == Layout(4, 1)
    for value in (Layout((4, 2), (2, 1)), Swizzle(1, 0, 1), ComposedLayout(Swizzle(3, 3, 3), 8, Layout(64, 1))):
        assert parse(to_str(value)) == value


def test_one_bit_elements_keep_the_byte_swizzle_base_plus_three() -> None:
    # smem_ptr[1b]: element i is bit i, so byte-address bit k is element-index bit k + 3
    assert parse("Sw<3,4,3> o smem_ptr[1b](unset) o 64:1").outer == Swizzle(3, 7, 3)
    assert parse("Sw<3,4,3> o smem_ptr[2b](unset) o 64:1").outer == Swizzle(3, 6, 3)

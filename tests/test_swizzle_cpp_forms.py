"""The CuTe C++ type reader and writer (layoutalg.swizzle.cpp): its bounds on both sides, the integer spellings
it reads, the element-bit conversion of smem_ptr_flag_bits, and a ParseError at the right column for each
malformed form."""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, ParseError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.cpp import MAX_DIGITS, MAX_NESTING, from_cpp, to_cpp
from layoutalg.swizzle.swizzle import Swizzle


def nested_shape(levels: int) -> str:
    """``Shape<Shape<...<_1>...>>`` of ``levels`` template levels."""
    return "Shape<" * levels + "_1" + ">" * levels


def nested_layout(levels: int) -> str:
    """A layout type of ``levels`` template levels in all (``Layout`` itself is one)."""
    return "Layout<" + nested_shape(levels - 1) + ">"


def test_template_nesting_is_read_to_64_levels_and_refused_past_them() -> None:
    assert MAX_NESTING == 64
    deepest = from_cpp(nested_layout(64))
    assert isinstance(deepest, Layout) and deepest.size() == 1 and deepest.depth() == 63
    with pytest.raises(ParseError, match="nesting deeper than 64") as info:
        from_cpp(nested_layout(65))
    assert info.value.column == len("Layout<") + 1 + len("Shape<") * 63  # the 65th level's name


def test_sibling_tuples_do_not_add_to_the_nesting_depth() -> None:
    # 100 tuples side by side are 3 levels deep (Layout, Shape, Shape), not 102
    wide = from_cpp("Layout<Shape<" + ",".join(["Shape<_2>"] * 100) + ">>")
    assert isinstance(wide, Layout) and wide.shape == ((2,),) * 100
    # ...and closing them does not allow a later branch more than 64 levels either
    siblings = "Shape<_1>," * 8
    assert from_cpp("Layout<Shape<" + siblings + nested_shape(62) + ">>").size() == 1
    with pytest.raises(ParseError, match="nesting deeper"):
        from_cpp("Layout<Shape<" + siblings + nested_shape(63) + ">>")


def test_integer_literals_of_1000_digits_are_read_and_longer_ones_refused() -> None:
    assert MAX_DIGITS == 1000
    one = "0" * (MAX_DIGITS - 1) + "1"  # 1000 digits, value 1
    assert from_cpp(f"Layout<_4,_{one}>") == Layout(4, 1)
    assert from_cpp(f"Layout<_4,C<-{one}>>") == Layout(4, -1)  # the minus sign is not a digit
    with pytest.raises(ParseError, match="1001 digits"):
        from_cpp(f"Layout<_4,_0{one}>")


def test_static_integers_in_swizzle_arguments_read_as_their_values() -> None:
    # `_3` is CuTe's Int<3>, `_-3` how CuTe prints C<-3>: both are read where a swizzle takes an integer
    assert from_cpp("Swizzle<_3,_4,_3>") == Swizzle(3, 4, 3)
    assert from_cpp("Swizzle<_1,_3,_-3>") == Swizzle(1, 3, -3)
    assert from_cpp("Swizzle<2,3,-3>") == Swizzle(2, 3, -3)


def test_bare_integers_in_a_layout_type_read_as_their_values() -> None:
    assert from_cpp("Layout<Shape<8,64>,Stride<64,-1>>") == Layout((8, 64), (64, -1))


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("Layout(_8)", "expected '<', found '\\('", 7),
        ("8", "expected a type name, found '8'", 1),
        ("Layout<Shape<integral_constant<5,3>>>", "expected a type name, found '5'", 32),
        ("ComposedLayout<Swizzle<1,0,1>,_0,Swizzle<1,0,1>>", "expected Layout<...> or ComposedLayout<...>", 34),
        ("ComposedLayout<Swizzle<1,0,1>,Shape<_1,_2>,Layout<_4>>", "offset must be a single integer", 31),
        ("Swizzle<3,4,x>", "expected an integer, found 'x'", 13),
        ("Layout<,_1>", "expected a Shape \\(a static integer or a tuple\\), found ','", 8),
    ],
)
def test_a_malformed_cpp_type_is_a_parse_error_at_its_column(text: str, message: str, column: int) -> None:
    with pytest.raises(ParseError, match=message) as info:
        from_cpp(text)
    assert info.value.column == column


def test_a_byte_swizzle_whose_base_is_exactly_one_element_maps_to_base_zero() -> None:
    # Swizzle<3,1,3> on byte addresses of 16-bit elements: byte bits [4,7) into [1,4) are element bits [3,6) into
    # [0,3), the element swizzle Swizzle<3,0,3> (base 1 + 3 - log2(16) = 0, the smallest base with an element form)
    composed = from_cpp("ComposedLayout<Swizzle<3,1,3>,smem_ptr_flag_bits<16>,Layout<_64>>")
    assert composed == ComposedLayout(Swizzle(3, 0, 3), 0, Layout(64, 1))
    byte_swizzle = Swizzle(3, 1, 3)
    assert all(2 * composed(i) == byte_swizzle(2 * i) for i in range(64))


@pytest.mark.parametrize("bits", [0, 3, 12, 24])
def test_element_bits_that_are_not_a_power_of_two_are_refused(bits: int) -> None:
    with pytest.raises(ParseError, match="power of two") as info:
        from_cpp(f"ComposedLayout<Swizzle<3,4,3>,smem_ptr_flag_bits<{bits}>,Layout<_64>>")
    assert info.value.column == 31


def test_from_cpp_refuses_a_non_string_with_a_layout_error() -> None:
    with pytest.raises(LayoutError, match="expected a string, got int"):
        from_cpp(5)  # type: ignore[arg-type]


def test_to_cpp_writes_swizzles_and_composed_layouts_that_read_back() -> None:
    assert to_cpp(Swizzle(3, 4, 3)) == "Swizzle<3,4,3>"
    swizzled = ComposedLayout(Swizzle(2, 3, 3), 8, Layout((8, 32), (32, 1)))
    assert to_cpp(swizzled) == "ComposedLayout<Swizzle<2,3,3>,_8,Layout<Shape<_8,_32>,Stride<_32,_1>>>"
    by_layout = ComposedLayout(Layout(8, 2), -3, Layout((2, 4), (4, 1)))
    assert to_cpp(by_layout) == "ComposedLayout<Layout<_8,_2>,C<-3>,Layout<Shape<_2,_4>,Stride<_4,_1>>>"
    for value in (swizzled, by_layout, Swizzle(3, 4, 3)):
        assert from_cpp(to_cpp(value)) == value


def test_to_cpp_refuses_what_has_no_cpp_type() -> None:
    with pytest.raises(LayoutError, match="to_cpp takes a Layout, Swizzle or ComposedLayout, got str"):
        to_cpp("(8,64):(64,1)")


@pytest.mark.parametrize("text", ["Layout<Shape<", "Layout<Shape<_8, Shape<", "Layout<Shape<_8>, Stride<"])
def test_a_cpp_type_cut_off_inside_a_tuple_is_a_parse_error_at_the_end_of_the_text(text: str) -> None:
    with pytest.raises(ParseError, match=rf"^unexpected end of text at column {len(text) + 1}:"):
        from_cpp(text)

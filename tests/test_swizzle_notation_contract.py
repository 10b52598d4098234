"""Where the composed-layout notation sees a composition ``o``: a lone ``o`` followed by a space, ``(``, ``_`` or the end
of the text, never the first letter of a word; and the errors at those places are ParseErrors at the right column."""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import ParseError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.notation import parse
from layoutalg.swizzle.swizzle import Swizzle


def test_an_o_directly_before_a_parenthesis_or_an_underscore_is_a_composition() -> None:
    assert parse("Sw<1,0,1> o(8,4):(4,1)") == ComposedLayout(Swizzle(1, 0, 1), 0, Layout((8, 4), (4, 1)))
    assert parse("Sw<1,0,1> o_2 o 8:1") == ComposedLayout(Swizzle(1, 0, 1), 2, Layout(8, 1))


@pytest.mark.parametrize(
    "text, message, column",
    [
        # 'o' at the very end is a composition with nothing after it: an integer or a layout is expected there
        ("Sw<1,0,1> o", "expected an integer", 12),
        # 'o' starting a word is not a composition: the text after the swizzle is unexpected from the 'o' on
        ("Sw<1,0,1> oa", "unexpected text after the layout", 11),
        ("Sw<1,0,1> oa_ 8:1", "unexpected text after the layout", 11),
        ("Sw<1,0,1> o 2 o8:1", "unexpected text after the layout", 15),
    ],
)
def test_an_o_at_the_end_or_starting_a_word_is_a_parse_error_at_its_column(text: str, message: str, column: int) -> None:
    with pytest.raises(ParseError, match=message) as info:
        parse(text)
    assert info.value.column == column

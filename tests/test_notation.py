"""Parse / print / to_cpp of plain layouts, and fuzzing the parser with arbitrary text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutalg import strategies as ls
from layoutalg.core.layout import Layout
from layoutalg.core.notation import parse_int_tuple, parse_int_tuple_at, parse_layout, parse_layout_at, to_cpp
from layoutalg.errors import LayoutError, ParseError

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@SETTINGS
@given(ls.layouts(negative=True, max_depth=3))
def test_round_trip(a: Layout) -> None:
    assert parse_layout(str(a)) == a


@SETTINGS
@given(ls.layouts(max_depth=3), st.randoms())
def test_spaces_and_static_ints_anywhere(a: Layout, rnd: object) -> None:
    text = str(a)
    out: list[str] = []
    for ch in text:
        if ch.isdigit() and (not out or not out[-1][-1:].isdigit()) and rnd.random() < 0.5:  # type: ignore[attr-defined]
            out.append("_")
        out.append(ch)
        if ch in "(),:" and rnd.random() < 0.5:  # type: ignore[attr-defined]
            out.append(" " * rnd.randint(1, 3))  # type: ignore[attr-defined]
    assert parse_layout(" " + "".join(out) + " ") == a


def test_examples() -> None:
    assert parse_layout("((2,4),8):((1,16),2)") == Layout(((2, 4), 8), ((1, 16), 2))
    assert parse_layout("(_2, _4):(_1, _16)") == Layout((2, 4), (1, 16))
    assert parse_layout("(2,(4)):(2,(2))") == Layout((2, (4,)), (2, (2,)))
    assert parse_layout("8") == Layout(8, 1)
    assert parse_layout("(4,2)") == Layout((4, 2), (1, 4))
    assert parse_layout("4:_m1") == Layout(4, -1)
    assert parse_layout("4:-2") == Layout(4, -2)
    assert str(Layout(((2, 4), 8), ((1, 16), 2))) == "((2,4),8):((1,16),2)"
    assert parse_int_tuple("((2,4),_8)") == ((2, 4), 8)


def test_to_cpp() -> None:
    assert to_cpp(Layout((2, 4), (1, 16))) == "Layout<Shape<_2,_4>,Stride<_1,_16>>"
    assert to_cpp(Layout(8, 1)) == "Layout<_8,_1>"
    assert to_cpp(Layout(((2, 4), 48), ((1, 1024), -3))) == "Layout<Shape<Shape<_2,_4>,Int<48>>,Stride<Stride<_1,_1024>,Int<-3>>>"


def test_reusable_pieces_report_end_positions() -> None:
    text = "Sw<3,4,3> o _0 o (8,64):(64,1)"
    start = text.index("(")
    layout, end = parse_layout_at(text, start)
    assert layout == Layout((8, 64), (64, 1)) and end == len(text)
    value, end = parse_int_tuple_at("x (1,(2,3)) y", 1)
    assert value == (1, (2, 3)) and end == 11


@pytest.mark.parametrize(
    "text, column",
    [("(2,", 4), ("(2,3):(1)", 7), ("(0,2)", 1), ("abc", 1), ("((2,4),8):((1,16),2) x", 22), ("(2;3)", 3), ("", 1), (":", 1), ("4:", 3)],
)
def test_errors_carry_the_column(text: str, column: int) -> None:
    with pytest.raises(ParseError) as info:
        parse_layout(text)
    assert info.value.column == column


def test_deep_nesting_is_refused_not_recursed() -> None:
    with pytest.raises(ParseError, match="nesting"):
        parse_layout("(" * 5000 + "1" + ")" * 5000)


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.one_of(st.text(), st.text(alphabet="()_,:-0123456789 m", max_size=40)))
def test_fuzz_only_layout_errors_escape(text: str) -> None:
    try:
        parse_layout(text)
    except LayoutError:
        pass


def test_non_string_input() -> None:
    with pytest.raises(ParseError):
        parse_layout(42)  # type: ignore[arg-type]

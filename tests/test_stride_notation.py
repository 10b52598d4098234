"""CuTe's print notation for coordinate (basis-stride) and F2 layouts: ``parse(str(x)) == x``, CuTe's own printed
forms read, and malformed strides refused with the column."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.core.stride_scalars import F2, ArithTuple, E, ScaledBasis

_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@st.composite
def _scalar(draw: Any, depth: int = 0) -> Any:
    """A stride leaf of any kind the library builds: int, F2, a scaled basis vector (nested paths), or an
    ArithTuple of several terms."""
    kind = draw(st.sampled_from(["int", "F2", "basis", "F2 basis", "tuple"] if depth < 2 else ["int", "basis"]))
    if kind == "int":
        return draw(st.integers(-9, 9))
    if kind == "F2":
        return F2(draw(st.integers(0, 40)))
    if kind in ("basis", "F2 basis"):
        path = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)))
        value = F2(draw(st.integers(1, 9))) if kind == "F2 basis" else draw(st.integers(-5, 5).filter(bool))
        return ScaledBasis(value, path)
    return ArithTuple(tuple(draw(st.lists(_scalar(depth + 1), min_size=2, max_size=3))))


@st.composite
def _shapes(draw: Any, depth: int = 0) -> Any:
    if depth >= 2 or draw(st.booleans()):
        return draw(st.integers(1, 6))
    return tuple(draw(st.lists(_shapes(depth + 1), min_size=1, max_size=3)))


def _strides_for(draw: Any, shape: Any) -> Any:
    if isinstance(shape, tuple):
        return tuple(_strides_for(draw, s) for s in shape)
    return draw(_scalar())


@_SETTINGS
@given(st.data())
def test_every_printed_stride_layout_parses_back_to_the_same_layout(data: st.DataObject) -> None:
    shape = data.draw(_shapes())
    try:
        layout = la.stride_layout(shape, _strides_for(data.draw, shape))
    except la.LayoutError:
        return  # kinds the library does not mix in one layout
    text = str(layout)
    back = la.parse(text)
    assert str(back) == text and back == layout, (text, back)
    for i in range(min(layout.size(), 64)):  # the same function, where it evaluates
        try:
            want = layout(i)
        except la.LayoutError:
            continue
        assert back(i) == want, (text, i)


def test_cute_printed_identity_layouts_read_as_make_identity_tensor_builds_them() -> None:
    """CuTe C++ prints ``make_identity_layout(make_shape(4, make_shape(2, 3)))`` with static underscores."""
    built = la.make_identity_tensor((4, (2, 3))).layout
    assert la.parse("(_4,(_2,_3)):(_1@0,(_1@0@1,_1@1@1))") == built
    assert la.parse("(4,(2,3)):(E0,(1@0@1,1@1@1))") == built
    assert la.parse("(4,8):(1@1,1@0)")((3, 5)) == ArithTuple((5, 3))


def test_f2_and_multi_term_strides_evaluate_as_written() -> None:
    assert la.parse("8:F3")(5) == F2(15)  # 5 (x) 3 carry-less: 101 ^ 1010
    assert la.parse("(4,3):((1,(1,0)),2@1@1)")((3, 2)) == ArithTuple((3, (3, 4)))
    assert la.parse("(5,2):(F1@1,F1@0)")((4, 1)) == ArithTuple((F2(1), F2(4)))


@pytest.mark.parametrize("text, column, message", [
    ("(4,3):(1@-1,2)", 10, "non-negative"),
    ("(4,3):(F,2)", 9, "expected an integer"),
    ("(4,3):(E,2)", 9, "expected an integer"),
    ("(4,3):(1@,2)", 10, "expected an integer"),
    ("(4,3):(1,2,3)", 7, "not congruent"),
])
def test_malformed_strides_are_refused_at_their_column(text: str, column: int, message: str) -> None:
    with pytest.raises(la.ParseError, match=message) as err:
        la.parse(text)
    assert f"column {column}" in str(err.value)


def test_a_swizzle_over_a_coordinate_layout_is_refused_naming_the_inner_layout() -> None:
    with pytest.raises(la.LayoutError, match="inner must be a Layout"):
        la.parse("Sw<1,0,1> o (4,8):(1@0,1@1)")


def test_a_basis_path_is_read_to_the_nesting_limit_and_refused_past_it() -> None:
    from layoutalg.core.notation import MAX_DEPTH

    deepest = la.parse("4:1" + "@0" * MAX_DEPTH)
    assert la.parse(str(deepest)) == deepest
    with pytest.raises(la.ParseError, match=f"deeper than {MAX_DEPTH}"):
        la.parse("4:1" + "@0" * (MAX_DEPTH + 1))


@pytest.mark.parametrize("text", [
    "Layout<Shape<_4,Shape<_2,_3>>,Stride<E<0>,Stride<E<1,0>,E<1,1>>>>",
    "cute::Layout<cute::tuple<cute::C<4>, cute::tuple<cute::C<2>, cute::C<3> > >, "
    "cute::tuple<cute::ScaledBasis<cute::C<1>, 0>, cute::tuple<cute::ScaledBasis<cute::C<1>, 1, 0>, "
    "cute::ScaledBasis<cute::ScaledBasis<cute::C<1>, 1>, 1> > > >",
])
def test_cpp_coordinate_strides_read_as_the_identity_layout(text: str) -> None:
    """CuTe C++'s basis strides as source writes them (``E<1,0>``) and as compilers print them (newer CuTe's
    ``ScaledBasis<C<1>, 1, 0>``, older CuTe's nested ``ScaledBasis<ScaledBasis<C<1>,1>,1>``)."""
    assert la.parse(text) == la.make_identity_tensor((4, (2, 3))).layout


def test_cpp_scaled_and_tuple_strides_and_bad_indices() -> None:
    got = la.parse("Layout<Shape<_4,_8>,Stride<ScaledBasis<_2,1>,ArithmeticTuple<_1,_1>>>")
    assert got((3, 1)) == ArithTuple((1, 7))  # 3 * (0,2) + (1,1)
    assert str(la.parse("Layout<_4,ScaledBasis<_2,0,1>>")) == "4:2@1@0"
    with pytest.raises(la.ParseError, match="non-negative"):
        la.parse("Layout<Shape<_4,_8>,Stride<E<-1>,_1>>")
    with pytest.raises(la.ParseError, match="at least one basis index"):
        la.parse("Layout<Shape<_4,_8>,Stride<ScaledBasis<_2>,_1>>")


def test_a_cpp_type_with_many_basis_strides_is_read_whole() -> None:
    """Each basis stride closes its own nesting level: 100 of them in a row stay within the nesting limit."""
    n = 100
    text = f"Layout<Shape<{','.join(['_2'] * n)}>,Stride<{','.join(f'E<{k}>' for k in range(n))}>>"
    layout = la.parse(text)
    assert layout.rank() == n and layout((1,) * n) == sum((E(k) for k in range(n)), ArithTuple((0,)))

"""``complement``'s contract at its edges: what it accepts as a layout and a cotarget, what it refuses and how,
and symbolic inputs routed to the symbolic algebra.  Truths come from the definition (an ordered ``R`` with
``(A, R)`` injective and covering ``[0, M)``), checked by enumeration."""

from __future__ import annotations

from typing import Any

import pytest
import sympy

import layoutalg as la
from layoutalg.core.validate import MAX_INT_BITS

X = sympy.Symbol("X", positive=True, integer=True)
complement: Any = la.complement  # annotated for Layouts; shapes and symbolic layouts are accepted too


def _offsets(layout: la.Layout) -> list[int]:
    return [layout(i) for i in range(layout.size())]


def _is_complement(a: la.Layout, r: la.Layout, m: int) -> bool:
    r_vals = _offsets(r)
    both = [x + y for y in r_vals for x in _offsets(a)]
    return r_vals == sorted(set(r_vals)) and len(set(both)) == len(both) and set(range(m)) <= set(both)


def test_a_shape_given_as_the_layout_means_its_compact_layout() -> None:
    assert complement((4, 2), 32) == complement(la.Layout((4, 2)), 32)
    assert complement(4, 12) == complement(la.Layout(4, 1), 12)


def test_a_shape_cotarget_means_its_size() -> None:
    a = la.Layout((2, 4), (1, 8))
    assert complement(a, (4, 16)) == complement(a, 64)
    assert _is_complement(a, complement(a, (4, 16)), 64)


def test_the_smallest_cotarget_is_one_as_an_int_or_as_a_shape() -> None:
    a = la.Layout(4, 2)
    assert complement(a, 1) == complement(a, (1,))
    assert _is_complement(a, complement(a, (1,)), 1)


@pytest.mark.parametrize("cotarget", [0, -4, (0,), (2, 0)])
def test_a_cotarget_below_one_is_refused_naming_the_cotarget(cotarget: object) -> None:
    with pytest.raises(la.LayoutError, match="cotarget"):
        complement(la.Layout(4, 1), cotarget)


@pytest.mark.parametrize("cotarget", [1 << MAX_INT_BITS, (2, 1 << (MAX_INT_BITS - 1))])
def test_a_cotarget_at_the_integer_limit_is_refused_as_an_int_and_as_a_shapes_size(cotarget: object) -> None:
    with pytest.raises(la.ShapeError, match=f"cotarget .*(below 2\\*\\*{MAX_INT_BITS}|limited to {MAX_INT_BITS} bits)"):
        complement(la.Layout(4, 1), cotarget)


def test_a_cotarget_just_below_the_integer_limit_is_answered() -> None:
    m = (1 << MAX_INT_BITS) - 1
    r = complement(la.Layout(4, 1), m)
    assert r == la.Layout(-(-m // 4), 4)


def test_a_layout_as_the_cotarget_is_refused_naming_it() -> None:
    with pytest.raises(la.ShapeError, match="cotarget must be an int or a shape, not a Layout"):
        complement(la.Layout(4, 1), la.Layout(8, 1))


@pytest.mark.parametrize("stride", [-1, -3])
def test_a_negative_stride_is_refused_naming_the_stride_and_its_extent(stride: int) -> None:
    a = la.Layout((2, 4), (stride, 2))
    with pytest.raises(la.LayoutError, match=f"non-negative strides; .* has stride {stride} \\(extent 2\\)"):
        complement(a, 64)


def test_stride_zero_and_extent_one_modes_are_ignored() -> None:
    a = la.Layout((2, 3, 1, 4), (1, 0, 7, 2))
    assert complement(a, 32) == complement(la.Layout((2, 4), (1, 2)), 32)


def test_a_symbolic_layout_with_a_concrete_cotarget_is_complemented_symbolically() -> None:
    a = la.symbolic_layout((4,), (X,))
    r = complement(a, 16 * X)
    for value in (1, 2, 3):
        concrete_a, concrete_r = a.subs({X: value}), r.subs({X: value})
        assert _is_complement(concrete_a, concrete_r, 16 * value)
    r_default = complement(a)  # the cotarget defaults to A's cosize, symbolic too
    for value in (1, 2, 5):
        assert _is_complement(a.subs({X: value}), r_default.subs({X: value}), 3 * value + 1)


def test_a_concrete_layout_with_a_symbolic_cotarget_is_complemented_symbolically() -> None:
    a = la.Layout((2, 2), (1, 4))
    r = complement(a, 8 * X)
    for value in (1, 2, 3):
        assert _is_complement(a, r.subs({X: value}), 8 * value)


def test_a_symbolic_layout_with_an_int_cotarget_is_still_symbolic_work() -> None:
    a = la.symbolic_layout((2,), (X,))
    r = complement(a, 64)
    assert isinstance(r, la.SymbolicLayout)
    for value in (1, 2, 4):
        assert _is_complement(a.subs({X: value}), r.subs({X: value}), 64)


def test_without_a_cotarget_the_complement_reaches_the_layouts_cosize() -> None:
    a = la.Layout((2, 4), (1, 8))
    assert complement(a) == complement(a, a.cosize())
    assert _is_complement(a, complement(a), a.cosize())


def test_an_extent_one_mode_with_a_negative_stride_is_ignored_like_any_extent_one_mode() -> None:
    assert complement(la.Layout((1, 4), (-3, 1)), 8) == complement(la.Layout(4, 1), 8)

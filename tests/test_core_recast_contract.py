"""Contract of ``layoutalg.core.recast`` and ``recast_ratio``: CuTe's ``downcast<N>`` rule (a unit stride, +1 or -1,
multiplies the shape, any other stride is scaled), a ratio ``p/q`` is ``upcast<p>`` then ``downcast<q>``, and a
ratio that is not a positive int or Fraction is refused as ``ShapeError``."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import layoutalg as la
from layoutalg.core.recast import downcast, recast_layout
from layoutalg.core.recast_ratio import recast_by, upcast_covering


@pytest.mark.parametrize("layout, n, shape, stride", [
    (la.Layout(4, 1), 2, 8, 1),
    (la.Layout(4, -1), 2, 8, -1),          # CuTe: is_constant<-1> is a unit stride too
    (la.Layout(4, 3), 2, 4, 6),
    (la.Layout((4, 2), (-1, 8)), 4, (16, 2), (-1, 32)),
], ids=str)
def test_downcast_multiplies_the_shape_of_unit_strides_and_scales_the_others(
        layout: la.Layout, n: int, shape: Any, stride: Any) -> None:
    out = downcast(layout, n)
    assert (out.shape, out.stride) == (shape, stride)


@pytest.mark.parametrize("layout", [la.Layout((4, 2), (2, 8)), la.Layout((4, 3), (1, 4)), la.Layout((2, 4), (8, -2))],
                         ids=str)
def test_recast_narrowing_by_an_exact_factor_is_a_downcast(layout: la.Layout) -> None:
    assert recast_layout(8, 16, layout) == downcast(layout, 2)
    assert recast_layout(16, 32, layout) == downcast(layout, 2)


@pytest.mark.parametrize("layout", [la.Layout((4, 2), (2, 8)), la.Layout((6, 4), (1, 6))], ids=str)
def test_recast_by_a_ratio_is_upcast_by_its_numerator_then_downcast_by_its_denominator(layout: la.Layout) -> None:
    assert recast_by(layout, Fraction(1, 2)) == downcast(layout, 2)
    assert recast_by(layout, 2) == upcast_covering(layout, 2)
    assert recast_by(layout, Fraction(2)) == upcast_covering(layout, 2)
    assert recast_by(layout, 1) == layout


def test_recast_by_three_halves_is_upcast_by_three_then_downcast_by_two() -> None:
    layout = la.Layout((6, 4), (1, 6))
    assert recast_by(layout, Fraction(3, 2)) == downcast(upcast_covering(layout, 3), 2)


@pytest.mark.parametrize("ratio, message", [
    (0, "must be positive"), (-2, "must be positive"), (Fraction(-1, 2), "must be positive"),
    (Fraction(0), "must be positive"), (1.5, "must be a positive int or Fraction"), ("2", "must be a positive int or Fraction"),
    (True, "must be a positive int or Fraction"),
], ids=repr)
def test_recast_by_refuses_a_ratio_that_is_not_a_positive_int_or_fraction(ratio: Any, message: str) -> None:
    with pytest.raises(la.ShapeError, match=f"recast ratio {message}, got"):
        recast_by(la.Layout((4, 2), (2, 8)), ratio)


@pytest.mark.parametrize("layout, ratio, want", [
    (la.Layout(4, 1), Fraction(3, 2), la.Layout(3, 1)),         # [0, 4) old units touch new elements 0, 1, 2
    (la.Layout(5, 1), Fraction(3, 2), la.Layout(4, 1)),         # [0, 5) reaches into new element 3 = [4.5, 6)
    (la.Layout(8, 3), Fraction(3, 2), la.Layout(8, 2)),         # each old element at 3c starts new element 2c
    (la.Layout((2, 2), (3, 3)), Fraction(6, 4), la.Layout((2, 2), (2, 2))),
    (la.Layout(3, 1), Fraction(2, 3), la.Layout(5, 1)),         # [0, 3) old = [0, 4.5) new
    (la.Layout(((4, 2), 2), ((1, 2), 6)), Fraction(2, 3), la.Layout(((6, 2), 2), ((1, 3), 9))),
], ids=str)
def test_recast_by_a_ratio_above_one_over_one_is_pycutes_leaf_rule_not_upcast_then_downcast(
        layout: la.Layout, ratio: Fraction, want: la.Layout) -> None:
    """PyCuTe's recast(L, p/q): the contiguous leaf covers ceil(s*q/p) new elements, a leaf of stride d (p | d*q)
    keeps its extent at stride d*q/p; upcast by p then downcast by q over-covers both (4:1 -> 4:1, 8:3 -> 16:1)."""
    assert recast_by(layout, ratio) == want


def test_a_leaf_of_extent_one_never_breaks_the_divisibility_rule() -> None:
    # 1:3 is the one element at offset 0 whatever the ratio (PyCuTe raises on it; the answer exists)
    assert recast_by(la.Layout((1, 4), (3, 1)), 2) == la.Layout((1, 2), (3, 1))
    assert recast_by(la.Layout((1, 4), (3, 1)), Fraction(4, 3)) == la.Layout((1, 3), (3, 1))
    with pytest.raises(la.ShapeError, match="neither 3 nor 2 divides the other"):
        recast_by(la.Layout((2, 4), (3, 1)), 2)

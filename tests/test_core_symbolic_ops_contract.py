"""Contract of the algebra on symbolic layouts (``layoutalg.core.symbolic_ops``): tuple tilers work mode by
mode, an extent as a tiler is the layout ``n:1`` (as for plain layouts, CuTe and PyCuTe), and every answer
equals, after substituting the symbols, the plain operation on the substituted layout; undecidable or
ill-sized requests are refused naming what failed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import sympy

import layoutalg as la
from layoutalg.core import symbolic_ops
from layoutalg.core.symbolic import SymbolicLayout

X = sympy.Symbol("X", positive=True, integer=True)
VALUES = (1, 2, 3, 4)
ONE_MODE: Any = SymbolicLayout(4, 1)  # a symbolic layout with static leaves (not made into a Layout)


def at(layout: Any, v: int) -> Any:
    return layout.subs({X: v}) if isinstance(layout, SymbolicLayout) else layout


def same_function(a: la.Layout, b: la.Layout) -> bool:
    """Equal sizes and equal values on every index (symbolic results keep PyCuTe's unmerged modes)."""
    return bool(a.size() == b.size() and all(a(i) == b(i) for i in range(a.size())))


@pytest.mark.parametrize("tiler", [2, np.int64(2), sympy.Integer(2), la.Layout(2, 1)])
def test_an_extent_tiler_is_the_layout_n_colon_1(tiler: Any) -> None:
    a = la.symbolic_layout((4, X))
    r = la.composition(a, tiler)
    for v in VALUES:
        assert at(r, v) == la.composition(at(a, v), la.Layout(2, 1))


def test_a_symbolic_extent_tiler_composes_for_every_value() -> None:
    a = la.symbolic_layout((4, X))
    r = la.composition(a, 4 * X)
    for v in VALUES:
        assert same_function(at(r, v), la.composition(at(a, v), la.Layout(4 * v, 1)))


@pytest.mark.parametrize("tiler", [(2, None), (None, X), ((2,), None), (la.Layout(2, 2), 1), (2,)])
def test_a_tuple_tiler_composes_mode_by_mode_for_every_value(tiler: Any) -> None:
    a = la.symbolic_layout((4, X))
    r = la.composition(a, tiler)
    for v in VALUES:
        plain_tiler = tuple(t.subs({X: v}) if isinstance(t, sympy.Expr) else t for t in tiler)
        got, want = at(r, v), la.composition(at(a, v), plain_tiler)
        assert got.rank() == want.rank() == 2 and same_function(got, want), (tiler, v)
        assert all(same_function(got[i], want[i]) for i in range(2)), (tiler, v)


def test_a_bool_tiler_is_refused() -> None:
    with pytest.raises(la.ShapeError, match="got bool"):
        la.composition(la.symbolic_layout((4, X)), True)


@pytest.mark.parametrize("op", [la.composition, la.logical_divide])
def test_a_tuple_tiler_with_more_modes_than_the_layout_is_refused_naming_it(op: Any) -> None:
    with pytest.raises(la.ShapeError, match=r"tiler \(2, None, 3\) has more modes than \(4,X\):\(1,4\)"):
        op(la.symbolic_layout((4, X)), (2, None, 3))


def test_a_non_layout_is_refused_naming_its_type() -> None:
    with pytest.raises(la.ShapeError, match="cosize layout must be a Layout or a symbolic layout, got int"):
        symbolic_ops.cosize(3)


def test_a_shape_cotarget_that_the_layout_does_not_divide_is_refused() -> None:
    with pytest.raises(la.CompositionError, match="shape_div: 6 and 4 do not divide one another"):
        la.complement(ONE_MODE, (6, X))
    r = la.complement(ONE_MODE, (8, X))
    for v in VALUES:
        assert same_function(at(r, v), la.complement(la.Layout(4, 1), (8, v)))


def test_zipped_divide_by_an_extent_is_the_logical_divide() -> None:
    a = la.symbolic_layout((4, X))
    z = la.zipped_divide(a, 2)
    assert z == la.logical_divide(a, 2)
    for v in VALUES:
        got, want = at(z, v), la.zipped_divide(at(a, v), 2)
        assert same_function(got, want) and same_function(got[0], want[0]) and same_function(got[1], want[1])

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
from layoutalg.errors import CompositionError
from tests.oracles import reference as ref

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


@pytest.mark.parametrize("operation,tiler", [(la.composition, t) for t in
                                              [(2, None), (None, X), ((2,), None), (la.Layout(2, 2), 1), (2,)]]
                         + [(la.logical_divide, t) for t in [(2, X), (2, 1), (4, None)]])
def test_a_tuple_tiler_composes_or_divides_mode_by_mode_for_every_value(operation: Any, tiler: Any) -> None:
    """Mode by mode at every value; a composition keeps only the modes the tiler names (CuTe C++), a divide
    keeps the rest too."""
    a = la.symbolic_layout((4, X))
    r = operation(a, tiler)
    rank = len(tiler) if operation is la.composition else 2
    for v in VALUES:
        plain_tiler = tuple(t.subs({X: v}) if isinstance(t, sympy.Expr) else t for t in tiler)
        got, want = at(r, v), operation(at(a, v), plain_tiler)
        assert got.rank() == want.rank() == rank and same_function(got, want), (tiler, v)
        assert all(same_function(got[i], want[i]) for i in range(rank)), (tiler, v)


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


def subs_all(layout: Any, v: int) -> la.Layout:
    out = at(layout, v)
    assert isinstance(out, la.Layout), out
    return out


def values(layout: la.Layout, n: int) -> list[int]:
    return [ref.evaluate(layout.shape, layout.stride, i) for i in range(n)]


@pytest.mark.parametrize("shape,stride", [((2, X, 3), (X, 1, 2 * X)), (X, 3), ((X, (2, 5)), (2, (0, 2 * X)))])
def test_cosize_is_one_past_the_largest_offset_for_every_value(shape: Any, stride: Any) -> None:
    a = SymbolicLayout(shape, stride)
    for v in VALUES:
        c = subs_all(a, v)
        want = 1 + max(values(c, c.size()))  # brute force (non-negative strides)
        assert sympy.sympify(symbolic_ops.cosize(a)).subs({X: v}) == want


@pytest.mark.parametrize("shape,stride", [
    ((1, 1), (X, 2)),  # size 1: CuTe's 1:0
    ((3, 2, 5), (X, 1, 2)),  # 2:1 and 5:2 merge behind an unmerged first mode
    ((3, X, X), (7, 1, X)),  # X:1 and X:X merge behind an unmerged first mode
    ((4, 1), (1, X)),  # a trailing static 1 is dropped
    ((4, 1, 2), (X, 7, 4 * X)),  # an inner static 1 is dropped and its neighbours merge
])
def test_coalesce_is_the_plain_coalesce_of_every_substitution(shape: Any, stride: Any) -> None:
    a = SymbolicLayout(shape, stride)
    r = la.coalesce(a)
    for v in (2, 3, 4, 5):  # X = 1 would let the plain coalesce drop X:1, which a symbolic extent keeps
        assert at(r, v) == la.coalesce(subs_all(a, v)), (a, v, r)


@pytest.mark.parametrize("shape,stride", [
    ((4, 1, 2), (X, 7, 4 * X)),  # an inner static 1 is dropped and its neighbours merge
    ((X, 1), (2, 2 * X)),  # a trailing 1:(s*d) continues X:2 past its size: dropped
    ((3, X, 1), (7, 2, 2 * X)),
])
def test_coalesce_z_is_the_plain_coalesce_z_of_every_substitution(shape: Any, stride: Any) -> None:
    a: Any = SymbolicLayout(shape, stride)
    r = la.coalesce_z(a)
    for v in VALUES:
        assert at(r, v) == la.coalesce_z(subs_all(a, v)), (a, v, r)


@pytest.mark.parametrize("shape,stride", [
    ((4, 1), (1, X)),  # the trailing 1:X is kept: index 4 maps to X
    ((X, 2), (1, X)),  # a static extent continuing a symbolic one is kept (and counted in the size)
    ((X, 3), (2, 2 * X)),
    ((5, X, 2), (1, 5, 5 * X)),
])
def test_coalesce_z_keeps_the_size_and_the_function_past_the_size(shape: Any, stride: Any) -> None:
    a: Any = SymbolicLayout(shape, stride)
    r = la.coalesce_z(a)
    for v in VALUES:
        c, got = subs_all(a, v), subs_all(r, v)
        assert got.size() == c.size()
        assert [got(i) for i in range(c.size() + 9)] == values(c, c.size() + 9), (a, v, r)


@pytest.mark.parametrize("a,b", [
    (a, b)
    for a in (la.Layout(()), SymbolicLayout(()), SymbolicLayout(((), ())))
    for b in (la.Layout(4, 1), la.Layout(4, 2), la.Layout(4, 0), SymbolicLayout(X, 1), SymbolicLayout((2, X), (1, 2)))
    if isinstance(a, SymbolicLayout) or isinstance(b, SymbolicLayout)  # at least one symbolic operand
])
def test_composing_an_empty_layout_broadcasts_its_zero_offset(a: Any, b: Any) -> None:
    r = la.composition(a, b)  # an empty layout maps every index to offset 0 (CuTe, PyCuTe, the plain algebra)
    for v in VALUES:
        got, bb = subs_all(r, v), subs_all(b, v)
        assert got.size() == bb.size() and values(got, bb.size()) == [0] * bb.size(), (a, b, r)
        assert got == la.composition(la.Layout(()), bb)


@pytest.mark.parametrize("layout,cotarget", [
    (SymbolicLayout((X, 1), (1, X + 1)), 4 * X),  # an extent-1 mode is no part of the image, whatever its stride
    (SymbolicLayout((2, 1), (1, 3)), 8),
    (SymbolicLayout((X, 1, 2), (2, 5, 2 * X)), 8 * X),
    (SymbolicLayout(X, 1), X),  # A covers the cotarget: nothing is left, CuTe's 1:0
])
def test_complement_is_the_plain_complement_of_every_substitution(layout: Any, cotarget: Any) -> None:
    r = la.complement(layout, cotarget)
    for v in VALUES:
        m = int(cotarget.subs({X: v})) if isinstance(cotarget, sympy.Expr) else cotarget
        assert at(r, v) == la.complement(subs_all(layout, v), m), (layout, v, r)


@pytest.mark.parametrize("shape,stride", [((4, X), (0, 1)), ((X, 3, 2), (2, 0, 1)), ((2, X), (X, 0))])
def test_make_layout_like_keeps_stride_zero_modes_broadcast(shape: Any, stride: Any) -> None:
    a: Any = SymbolicLayout(shape, stride)
    r = la.make_layout_like(a)
    for v in VALUES:
        assert at(r, v) == la.make_layout_like(subs_all(a, v)), (a, v, r)


@pytest.mark.parametrize("tiler", [2.5, "2", [2.5]])
def test_a_tiler_that_is_not_a_layout_or_an_extent_is_refused_naming_it(tiler: Any) -> None:
    with pytest.raises(la.ShapeError, match="logical_divide tiler must be an int or a sympy expression, got"):
        la.logical_divide(la.symbolic_layout((4, X)), tiler)


def test_right_inverse_drops_an_extent_that_is_one_for_every_value_however_written() -> None:
    one = sympy.factorial(X + 1) / sympy.factorial(X) - X  # 1 for every X; coalesce folds one * (1/one) to 1
    a = SymbolicLayout((one, 1 / one, 4), (4, 4 * one, 1))
    r = la.right_inverse(a)
    for v in VALUES:
        assert at(r, v) == la.right_inverse(subs_all(a, v)), (a, v, r)


@pytest.mark.parametrize("tiler", [None, (2, None), (None, 2), (None,), (None, None), (2, X)])
def test_zipped_divide_with_none_entries_is_the_plain_zipped_divide(tiler: Any) -> None:
    a = la.symbolic_layout((4, X))  # None keeps a mode whole: its tile is the mode, its rest 1:0
    for op in (la.logical_divide, la.zipped_divide):
        r = op(a, tiler)
        for v in VALUES:
            plain_tiler = tiler if tiler is None else tuple(t.subs({X: v}) if isinstance(t, sympy.Expr) else t
                                                             for t in tiler)
            got, want = at(r, v), op(at(a, v), plain_tiler)
            assert got.rank() == want.rank() and same_function(got, want), (op, tiler, v, r)
            assert all(same_function(got[i], want[i]) for i in range(want.rank())), (op, tiler, v, r)


@pytest.mark.parametrize("tiler", [((2, 2), None), ((2, None), 2), ((2,), X), (((2,),), None)])
def test_zipped_divide_by_a_nested_tiler_unzips_like_the_plain_zipped_divide(tiler: Any) -> None:
    a = la.symbolic_layout(((2, 4), X))  # a tuple entry splits its mode again by mode (CuTe's zip2_by)
    r = la.zipped_divide(a, tiler)
    for v in VALUES:
        plain_tiler = tuple(t.subs({X: v}) if isinstance(t, sympy.Expr) else t for t in tiler)
        got, want = at(r, v), la.zipped_divide(at(a, v), plain_tiler)
        for i in range(2):  # the tiles, then the rests, mode by mode
            assert got[i].rank() == want[i].rank() and same_function(got[i], want[i]), (tiler, v, r)
            assert all(same_function(got[i][j], want[i][j]) for j in range(want[i].rank())), (tiler, v, r)


@pytest.mark.parametrize("shape,stride", [((4, 3), (2, -1)), ((X, 3), (2, -X)), ((2, X), (-3, 1))])
def test_cosize_with_negative_strides_is_one_past_the_largest_offset_as_the_plain_cosize(shape: Any, stride: Any) -> None:
    """A negative stride lowers offsets below 0 and never raises the largest: brute force, not CuTe's L(size-1)+1."""
    a = SymbolicLayout(shape, stride)
    for v in VALUES:
        c = subs_all(a, v)
        want = 1 + max(values(c, c.size()))
        assert sympy.sympify(symbolic_ops.cosize(a)).subs({X: v}) == want == c.cosize()


def test_a_symbolic_composition_refusal_names_the_cute_condition() -> None:
    """PyCuTe's newest tests: dividing a concrete tile by a symbolic leading extent is an unverifiable shape
    divisibility (``match="Shape divisibility"``)."""
    n, x, y = sympy.symbols("N X Y", positive=True, integer=True)
    with pytest.raises(la.CompositionError, match="CuTe's Shape divisibility condition"):
        la.composition(la.symbolic_layout((n, 8), (x, y)), la.Layout(4, 1))


@pytest.mark.parametrize("layout,cotarget", [
    (SymbolicLayout((2, X), (1, 6)), 4),  # X's mode ends the chain: at X == 1 it drops and the rest is sized by 2
    (SymbolicLayout((2, X), (1, 2 * X)), 16),
    (SymbolicLayout((4, X), (1, 8)), 64),
    (SymbolicLayout((X, 2), (2, 4 * X)), 64),
    (SymbolicLayout((2, X), (1, 2)), 8),  # the stride follows on: the same answer at X == 1, not refused
    (SymbolicLayout((X, 2), (2, 2 * X)), 8 * X),
])
def test_a_sized_complement_holds_at_every_value_of_its_symbols_one_included_or_is_refused(layout: Any,
                                                                                         cotarget: Any) -> None:
    try:
        result = la.complement(layout, cotarget)
    except CompositionError as exc:
        assert "may be 1" in str(exc)
        return
    for v in VALUES:
        concrete = la.complement(subs_all(layout, v), int(sympy.sympify(cotarget).subs(X, v)))
        got = subs_all(result, v)
        assert got.size() == concrete.size(), (layout, v, result)
        assert values(got, got.size()) == values(concrete, concrete.size()), (layout, v, result)


def test_the_symbolic_divide_a_fuzzer_found_wrong_at_one_is_refused() -> None:
    # logical_divide(4:1, (2,N):(1,2M)) at N = 1, M = 3 had 6 elements, past the 4 of A
    m, n = sympy.Symbol("M", integer=True, positive=True), sympy.Symbol("N", integer=True, positive=True)
    with pytest.raises(CompositionError, match="may be 1"):
        la.logical_divide(la.Layout(4), SymbolicLayout((2, n), (1, 2 * m)))
    assert la.logical_divide(la.Layout(4), SymbolicLayout((2, n + 1), (1, 2 * m))) is not None

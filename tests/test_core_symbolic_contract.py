"""Contract of ``SymbolicLayout`` (``layoutalg.core.symbolic``): every structural query and every value agrees,
after substituting the symbols, with the plain layout of the same shape and stride (judged by the reference
evaluator); leaves are ints (numpy's too) or integer sympy expressions, and anything else is refused naming it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import sympy

import layoutalg as la
from layoutalg.core.symbolic import SymbolicLayout
from tests.oracles import reference as ref

X, Y = sympy.symbols("X Y", positive=True, integer=True)
VALUES = (1, 2, 3, 5)


def plain(layout: Any, v: int) -> la.Layout:
    out = layout.subs({X: v, Y: v + 1})
    assert isinstance(out, la.Layout)
    return out


def test_a_sympy_object_that_is_not_an_expression_is_refused_naming_the_leaf() -> None:
    with pytest.raises(la.ShapeError, match="shape True is not a sympy expression"):
        la.symbolic_layout((4, sympy.true))
    with pytest.raises(la.ShapeError, match="stride"):
        la.symbolic_layout((4, X), (1, sympy.false))


def test_numpy_and_int_subclass_leaves_are_their_int_values() -> None:
    class Four(int):
        pass

    a = la.symbolic_layout((np.int64(4), X), (np.int32(1), 4))
    b = la.symbolic_layout((Four(4), X))
    assert isinstance(a, SymbolicLayout) and a == b == la.symbolic_layout((4, X))
    assert type(a.shape[0]) is int and type(b.shape[0]) is int
    with pytest.raises(la.ShapeError, match="got bool"):
        la.symbolic_layout((True, X))


@pytest.mark.parametrize("shape", [(0, X), (X, -2), ((2, 0), X)])
def test_a_non_positive_static_extent_is_refused_naming_it(shape: Any) -> None:
    with pytest.raises(la.ShapeError, match="non-positive extent"):
        la.symbolic_layout(shape)


def test_a_symbol_known_non_positive_is_refused_as_an_extent() -> None:
    m = sympy.Symbol("M", negative=True)
    with pytest.raises(la.ShapeError, match="non-positive extent M"):
        la.symbolic_layout((m, X))


@pytest.mark.parametrize("shape", [(X, 4), ((2, X), 3), (X, (Y, 2)), X, ((X,), (2, (Y, 3)))])
def test_compact_strides_size_depth_and_rank_agree_with_the_substituted_layout(shape: Any) -> None:
    a = la.symbolic_layout(shape)
    for v in VALUES:
        c = plain(a, v)
        want = la.Layout(c.shape)  # the compact column-major layout of the substituted shape
        assert c == want
        assert sympy.sympify(a.size()).subs({X: v, Y: v + 1}) == c.size()
        assert a.depth() == c.depth() and len(a) == a.rank() == c.rank()


def test_modes_and_iteration_agree_with_the_substituted_layout() -> None:
    a = la.SymbolicLayout((2, (X, 3)), (X, (1, 2 * X)))
    modes = list(a)
    assert len(modes) == 2
    for v in VALUES:
        c = plain(a, v)
        for i in (0, 1, -1, -2):
            m = a[i]
            got = m.subs({X: v}) if isinstance(m, SymbolicLayout) else m
            assert got == c[i]
        assert [m.subs({X: v}) if isinstance(m, SymbolicLayout) else m for m in modes] == [c[0], c[1]]


def test_a_rank_one_layout_is_its_own_mode_zero_and_minus_one() -> None:
    a = la.SymbolicLayout(X, 2)
    assert a[0] is a and a[-1] is a
    assert list(a) == [a]
    with pytest.raises(la.ShapeError, match="mode 1 of a rank-1 layout"):
        a[1]


@pytest.mark.parametrize("i", [2, -3])
def test_a_mode_out_of_range_is_refused_naming_it(i: int) -> None:
    with pytest.raises(la.ShapeError, match=f"mode {i} of a rank-2 layout"):
        la.symbolic_layout((X, 2))[i]


@pytest.mark.parametrize("shape,stride", [((2, X), (X, 1)), (((2, 3), X), ((1, 2 * X), 6)), ((3, 2, X), (Y, 3 * Y, 1))])
def test_values_agree_with_the_reference_for_every_substitution(shape: Any, stride: Any) -> None:
    a = la.SymbolicLayout(shape, stride)
    for v in VALUES:
        c = plain(a, v)
        for i in range(c.size() + 3):  # past the size the last mode keeps counting
            got = sympy.sympify(a(i)).subs({X: v, Y: v + 1})
            assert got == ref.evaluate(c.shape, c.stride, i), (a, v, i)


def test_an_index_needing_a_symbolic_coordinate_is_refused() -> None:
    a = la.SymbolicLayout((X, 2), (1, X))
    assert a(0) == 0
    with pytest.raises(la.ShapeError, match="needs the coordinate of the symbolic extent X"):
        a(1)


@pytest.mark.parametrize("index", [-1, 1.0, True, "2"])
def test_an_index_that_is_not_a_non_negative_int_is_refused(index: Any) -> None:
    with pytest.raises(la.ShapeError, match="must be a non-negative int"):
        la.symbolic_layout((2, X))(index)


def test_substituting_some_symbols_keeps_a_symbolic_layout() -> None:
    a = la.SymbolicLayout((X, Y), (1, X))
    half = a.subs({X: 3})
    assert isinstance(half, SymbolicLayout) and half == la.SymbolicLayout((3, Y), (1, 3))
    assert half.subs({Y: 2}) == la.Layout((3, 2), (1, 3))


def test_equality_with_plain_layouts_and_other_objects() -> None:
    a = la.SymbolicLayout((2, X), (X, 1))
    assert a.subs({X: 4}) == la.Layout((2, 4), (4, 1))
    assert la.SymbolicLayout((2, 4), (4, 1)) == la.Layout((2, 4), (4, 1))
    assert la.SymbolicLayout((2, 4), (4, 1)) != la.Layout((2, 4), (1, 2))
    assert a != 3 and a != "(2,X):(X,1)" and a != (2, X)

    class Layout:  # a foreign layout class (PyCuTe's is named so) whose stride is not a number
        shape = (2, X)
        stride = (None, 1)

    assert a != Layout()


def test_equal_layouts_hash_equal() -> None:
    a = la.SymbolicLayout((2, X), (X, 1))
    b = la.symbolic_layout((2, X), (X * 1, 1))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1


def test_a_complement_with_static_extents_counts_up_to_the_cotarget() -> None:
    a = la.symbolic_layout((4, X), (1, 0))  # stride-0 mode ignored: the image is 0..3
    r = la.complement(a, 10)
    assert r == la.Layout(3, 4)  # ceil(10 / 4) copies of 0..3
    for v in VALUES:
        assert la.complement(plain(a, v), 10) == r


@pytest.mark.parametrize("shape", [(), ((), 2), (((),), X)])
def test_empty_modes_have_the_depth_of_the_plain_layouts(shape: Any) -> None:
    a = SymbolicLayout(shape)
    assert a.depth() == plain(a, 2).depth() >= 1


class _HostileRepr:
    def __repr__(self) -> str:
        raise RuntimeError("a foreign __repr__ failed")


def test_a_foreign_leaf_or_index_whose_repr_fails_is_refused_as_a_shape_error() -> None:
    with pytest.raises(la.ShapeError, match="shape must be an int or a sympy expression, got _HostileRepr"):
        la.symbolic_layout((_HostileRepr(), X))
    with pytest.raises(la.ShapeError, match="must be a non-negative int"):
        la.symbolic_layout((2, X))(_HostileRepr())

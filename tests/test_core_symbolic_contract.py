"""Contract of ``SymbolicLayout`` (``layoutalg.core.symbolic``): every structural query and every value agrees,
after substituting the symbols, with the plain layout of the same shape and stride (judged by the reference
evaluator); leaves are ints (numpy's too) or integer sympy expressions, and anything else is refused naming it."""

from __future__ import annotations

from typing import Any
from unittest import mock

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


# -- provable equality of leaves (the oracle: both sides substitute to the same plain layout) ------------------

FACT_RATIO = sympy.factorial(X + 1) / sympy.factorial(X)  # X + 1 for every X, proved by simplify, not by expand


@pytest.mark.parametrize("leaf,same", [
    ((X + 1) ** 2 - X ** 2 - 2 * X, 1),  # expand proves it
    (FACT_RATIO - X, 1),  # only simplify proves it
    (FACT_RATIO, X + 1),
])
def test_leaves_equal_for_every_value_make_equal_layouts_in_either_order(leaf: Any, same: Any) -> None:
    a = la.SymbolicLayout((2, X), (leaf, 2 * X))
    b = la.SymbolicLayout((2, X), (same, 2 * X))
    for v in VALUES:
        assert plain(a, v) == plain(b, v)
    assert a == b and b == a
    assert la.SymbolicLayout(leaf, 3) == la.SymbolicLayout(same, 3) and la.SymbolicLayout(same, 3) == la.SymbolicLayout(leaf, 3)


@pytest.mark.parametrize("leaf,other", [(X + 1, X), (X, X + 1), (FACT_RATIO, X), (X + 2, X), (2 * X, X)])
def test_leaves_that_differ_for_some_value_make_unequal_layouts(leaf: Any, other: Any) -> None:
    a, b = la.SymbolicLayout((2, X), (1, leaf)), la.SymbolicLayout((2, X), (1, other))
    assert any(plain(a, v) != plain(b, v) for v in VALUES)
    assert a != b and b != a and not a == b
    assert la.SymbolicLayout(leaf, 1) != la.SymbolicLayout(other, 1)


def test_equality_with_a_foreign_object_is_a_bool_or_the_other_sides_answer() -> None:
    a = la.SymbolicLayout(X, 2)
    assert (a == 3) is False and (3 == a) is False
    assert a == mock.ANY and mock.ANY == a  # an object that equals anything gets asked (NotImplemented)

    class Layout:  # a foreign layout class named like PyCuTe's, whose stride is not a number
        shape = X
        stride = None

    assert (a == Layout()) is False and a != Layout()


def test_an_object_of_another_class_with_the_same_shape_and_stride_is_not_equal() -> None:
    a = la.SymbolicLayout((2, X), (X, 1))

    class Shaped:
        shape = (2, X)
        stride = (X, 1)

    assert a != Shaped() and (a == Shaped()) is False


def test_a_foreign_layout_with_array_modes_is_unequal_without_raising() -> None:
    a = la.SymbolicLayout((2, X), (1, 2))

    class Layout:  # modes held in numpy arrays, not tuples
        shape = np.array([2, 4])
        stride = np.array([1, 2])

    assert (a == Layout()) is False and a != Layout()


# -- provable divisibility (the oracle: the complement of every substituted layout) ----------------------------


def test_a_symbol_without_assumptions_counts_as_an_integer_stride() -> None:
    n = sympy.Symbol("N")  # PyCuTe's symbols are positive integers; a bare one is taken as an integer too
    a: Any = la.SymbolicLayout(4, n)
    r: Any = la.weak_complement(a)
    for v in VALUES:
        got, want = r.subs({n: v}), la.weak_complement(a.subs({n: v}))  # N = 1 keeps an extent-1 mode N:1
        assert [got(i) for i in range(40)] == [ref.evaluate(want.shape, want.stride, i) for i in range(40)]


def test_a_stride_that_the_previous_extent_divides_only_for_some_values_is_refused() -> None:
    a: Any = la.SymbolicLayout((2, 3), (1, X))  # 2 divides X for even X only
    with pytest.raises(la.CompositionError, match="stride X is not provably a multiple of 2"):
        la.complement(a, 12 * X)
    with pytest.raises(la.CompositionError):
        la.complement(plain(a, 3), 36)  # X = 3: the plain complement fails too


def test_a_leaf_equal_to_a_constant_for_every_value_divides_like_that_constant() -> None:
    two = 2 * (FACT_RATIO - X)  # 2 for every X, proved by simplify
    a: Any = la.SymbolicLayout((two, 4), (1, 2))
    r: Any = la.weak_complement(a)
    for v in VALUES:
        got = r.subs({X: v}) if isinstance(r, SymbolicLayout) else r
        assert got == la.weak_complement(plain(a, v))


def test_a_complement_rest_extent_is_pycutes_ceil_div_and_counts_up_to_the_cotarget() -> None:
    pycute = pytest.importorskip("pycute")
    cases: list[tuple[Any, Any]] = [(la.Layout(4, 1), X), (la.SymbolicLayout(4, X), 100), (la.SymbolicLayout(X, 1), 10)]
    for layout, cotarget in cases:
        want = pycute.complement(pycute.Layout(layout.shape, layout.stride), cotarget)  # (M + c - 1) // c
        got: Any = la.complement(layout, cotarget)
        assert got == la.SymbolicLayout(want.shape, want.stride), (layout, cotarget, got, want)
        for v in VALUES:
            env = {X: v}
            c = layout.subs(env) if isinstance(layout, SymbolicLayout) else layout
            m = int(cotarget.subs(env)) if isinstance(cotarget, sympy.Expr) else cotarget
            g = got.subs(env)
            assert [g(i) for i in range(g.size())] == [la.complement(c, m)(i) for i in range(g.size())]

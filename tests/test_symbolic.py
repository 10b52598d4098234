"""Symbolic (sympy) layouts: every answer holds for every value of the symbols, checked by substituting values and
comparing with the brute-force definition of the operation (``tests/oracles/reference.py``); an undecidable step is
refused with a LayoutError."""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from tests.oracles import reference as ref

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)
X, N = sympy.symbols("X N", positive=True, integer=True)
VALUES = (1, 2, 3, 5, 8)


def concrete(layout: Any, env: dict[Any, int]) -> la.Layout:
    out = layout.subs(env) if isinstance(layout, la.SymbolicLayout) else layout
    assert isinstance(out, la.Layout), out
    return out


def vals(layout: la.Layout, n: int) -> list[int]:
    return [ref.evaluate(layout.shape, layout.stride, i) for i in range(n)]


@st.composite
def scaled_layouts(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A flat layout (shape, stride) whose strides will be multiplied by X."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    stride = tuple(draw(st.integers(0, 12)) for _ in range(rank))
    return shape, stride


@SETTINGS
@given(scaled_layouts())
def test_coalesce_of_symbolic_strides_is_the_same_function_for_every_value(sd: Any) -> None:
    shape, stride = sd
    a = la.symbolic_layout(shape, tuple(d * X for d in stride))
    r = la.coalesce(a)
    for v in VALUES:
        ca, cr = concrete(a, {X: v}), concrete(r, {X: v})
        assert cr.size() == ca.size() and vals(cr, ca.size()) == vals(ca, ca.size())
        assert ref.flat(cr.shape) == [cr.shape] or not any(isinstance(s, tuple) for s in cr.shape)  # flat


@SETTINGS
@given(scaled_layouts(), st.integers(1, 4), st.integers(0, 6))
def test_composition_with_a_symbolic_operand_is_a_then_b_for_every_value(sd: Any, bs: int, bd: int) -> None:
    shape, stride = sd
    a = la.symbolic_layout(shape[:-1] + (N,), tuple(d * X for d in stride))  # the last extent symbolic
    b = la.Layout(bs, bd)
    try:
        r = la.composition(a, b)
    except la.LayoutError:
        return  # an undecidable divisibility is refused (checked below that a decidable one is not)
    for v in VALUES:
        for n in (2, 3, 6):
            ca, cr = concrete(a, {X: v, N: n}), concrete(r, {X: v, N: n})
            assert vals(cr, bs) == [ref.evaluate(ca.shape, ca.stride, b(i)) for i in range(bs)]


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.lists(st.integers(1, 3), min_size=3, max_size=3))
def test_weak_complement_of_chained_symbolic_strides_fills_the_gaps_for_every_value(shape: list[int],
                                                                                     gaps: list[int]) -> None:
    strides, cur = [], X
    for s, g in zip(shape, gaps):
        strides.append(cur * g)
        cur = cur * g * s
    a = la.symbolic_layout(tuple(shape), tuple(strides))
    r = la.weak_complement(a)
    for v in VALUES:
        ca, cr = concrete(a, {X: v}), concrete(r, {X: v})
        image = set(vals(ca, ca.size()))
        rv = vals(cr, cr.size() + 12)
        assert all(x < y for x, y in zip(rv, rv[1:]))
        assert not image & set(rv[1:])
        # together they reach every offset below the span (a complement, not just disjoint)
        span = max(image) + 1
        assert {x + y for x in image for y in rv} >= set(range(span))


@SETTINGS
@given(st.permutations([0, 1, 2]), st.lists(st.integers(1, 4), min_size=3, max_size=3))
def test_right_inverse_of_a_symbolic_permuted_layout_inverts_it_for_every_value(perm: list[int],
                                                                                 shape: list[int]) -> None:
    shape[perm.index(2)] = N  # one symbolic extent
    compact = la.core.symbolic.prefix_product(tuple(shape[p] for p in perm))
    stride = [None] * 3
    for k, p in enumerate(perm):
        stride[p] = compact[k]
    a = la.symbolic_layout(tuple(shape), tuple(stride))
    r = la.right_inverse(a)
    for n in (1, 2, 3, 5):
        ca, cr = concrete(a, {N: n}), concrete(r, {N: n})
        assert [ca(cr(i)) for i in range(cr.size())] == list(range(cr.size()))
        assert cr.size() == ca.size()  # a bijection: the whole inverse


@pytest.mark.parametrize("tile", [4, 5, 128])
def test_logical_divide_of_a_symbolic_extent_keeps_the_function_with_a_ceil_rest(tile: int) -> None:
    a = la.symbolic_layout(N, X)
    r = la.logical_divide(a, la.Layout(tile, 1))
    for n, x in ((7, 3), (128, 1), (300, 2)):
        cr, ca = concrete(r, {N: n, X: x}), concrete(a, {N: n, X: x})
        assert cr.size() == -(-n // tile) * tile
        assert vals(cr, cr.size()) == vals(ca, cr.size())


@pytest.mark.parametrize("order", [(1, sympy.Symbol("P")), (sympy.Symbol("P"), 1), (2, 0, sympy.Symbol("P"))])
def test_make_ordered_layout_puts_symbolic_orders_after_static_ones(order: tuple[Any, ...]) -> None:
    shape = (4, 8, 3)[: len(order)]
    got = la.make_ordered_layout(shape, order)
    static = sorted((o, k) for k, o in enumerate(order) if isinstance(o, int))
    ranked = [k for _, k in static] + [k for k, o in enumerate(order) if not isinstance(o, int)]
    assert [got.stride[k] for k in ranked] == sorted(got.stride)
    assert sorted(vals(got, got.size())) == list(range(got.size()))


def test_an_undecidable_divisibility_is_refused_not_assumed() -> None:
    with pytest.raises(la.LayoutError, match="provably"):
        la.composition(la.symbolic_layout((N, 8), (X, 1)), la.Layout(4, 1))
    with pytest.raises(la.LayoutError):
        la.weak_complement(la.symbolic_layout((2, 2), (X, 3)))


def test_bad_leaves_raise_shape_errors() -> None:
    with pytest.raises(la.ShapeError):
        la.symbolic_layout((N, "a"), (1, N))  # type: ignore[arg-type]
    with pytest.raises(la.ShapeError):
        la.symbolic_layout((N, 4), (1,))
    with pytest.raises(la.ShapeError):
        la.symbolic_layout(sympy.Rational(3, 2), 1)
    with pytest.raises(la.ShapeError):
        la.symbolic_layout(sympy.Symbol("r", integer=False), 1)


def test_a_layout_without_symbols_comes_back_plain() -> None:
    assert type(la.symbolic_layout((2, 3), (sympy.Integer(1), 2))) is la.Layout
    assert la.coalesce(la.symbolic_layout((N, 4), (1, N))) == la.symbolic_layout((N, 4), (1, N))  # static not buried
    assert la.coalesce(la.symbolic_layout((N, X), (1, N))) == la.symbolic_layout(N * X, 1)

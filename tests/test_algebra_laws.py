"""Algebraic laws of the layout algebra, checked on generated layouts by their functions.

Values are computed by the independent evaluator in ``oracles.reference``;
nothing here trusts layoutalg's own evaluation.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from oracles import reference as ref

import layoutalg as la
from layoutalg import strategies as ls
from layoutalg.core import algebra as alg
from layoutalg.core import divide_product as dp
from layoutalg.core.layout import Layout
from layoutalg.errors import CompositionError, LayoutError, NotInjectiveError

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def vals(x: Layout) -> list[int]:
    return ref.values(x.shape, x.stride)


def ev(x: Layout, i: int) -> int:
    return ref.evaluate(x.shape, x.stride, i)


@SETTINGS
@given(ls.layouts(negative=True, max_depth=3))
def test_coalesce_preserves_function_and_is_idempotent(a: Layout) -> None:
    c = alg.coalesce(a)
    assert c.size() == a.size()
    assert vals(c) == vals(a)
    assert alg.coalesce(c) == c
    assert not isinstance(c.shape, tuple) or all(not isinstance(s, tuple) for s in c.shape)


@SETTINGS
@given(ls.composition_cases())
@example(case=(Layout((2, 1), (0, 1)), Layout(((3, 2),), ((1, 3),))))
def test_composition_is_a_function_or_no_layout_exists(case: tuple[Layout, Layout]) -> None:
    """A o B takes B's coordinates, so its shape refines B's: each leaf of B a sub-tree of R.  A refusal means no
    such layout has the function (a layout over one of B's nested modes as a whole is not enough:
    ``(2,1):(0,1) o ((3,2)):((1,3))`` has the values of ``((2,3)):((0,1))``, which reads B's coordinate (1,1) as
    index 2, not 4)."""
    a, b = case
    truth = [ev(a, v) for v in vals(b)]
    leaf_sizes = tuple(ref.flat(b.shape))
    try:
        r = alg.composition(a, b)
    except CompositionError:
        assert not ref.composition_exists(truth, leaf_sizes)
        return
    assert vals(r) == truth
    assert la.compatible(b.shape, r.shape), (b, r)


@SETTINGS
@given(ls.layouts(max_size=128, max_stride=16), ls.layouts(max_size=32, max_stride=8), ls.layouts(max_size=16, max_stride=4))
def test_composition_associative_where_defined(a: Layout, b: Layout, c: Layout) -> None:
    # (A o B) is defined on B's domain only, so C must map into it
    if not all(0 <= v < b.size() for v in vals(c)):
        return
    try:
        left = alg.composition(alg.composition(a, b), c)
        right = alg.composition(a, alg.composition(b, c))
    except CompositionError:
        return
    assert vals(left) == vals(right)
    # both equal the pointwise triple composition
    assert vals(left) == [ev(a, ev(b, v)) for v in vals(c)]


@SETTINGS
@given(ls.layouts(max_depth=3))
def test_right_inverse_law(a: Layout) -> None:
    r = alg.right_inverse(a)
    assert all(ev(a, ev(r, i)) == i for i in range(r.size()))


@SETTINGS
@given(ls.injective_layouts())
def test_left_inverse_law(a: Layout) -> None:
    left = alg.left_inverse(a)
    assert all(ev(left, ev(a, i)) == i for i in range(a.size()))


@SETTINGS
@given(ls.layouts(max_size=64))
def test_left_inverse_is_exact_or_generalized_and_refuses_only_non_injective(a: Layout) -> None:
    values = vals(a)
    injective = len(set(values)) == len(values)
    try:
        left = alg.left_inverse(a)
    except NotInjectiveError:
        assert not injective
        return
    except CompositionError:
        assert injective  # injective, but no layout is a left inverse (test_exact_search checks that)
        return
    if injective:
        assert all(ev(left, v) == i for i, v in enumerate(values))
    else:  # the generalized left inverse: A(L(A(i))) == A(i)
        assert all(ev(a, ev(left, v)) == v for v in values)


@SETTINGS
@given(ls.complement_cases())
def test_complement_disjoint_and_covering(case: tuple[Layout, int]) -> None:
    a, m = case
    kept = [(s, d) for s, d in zip(ref.flat(a.shape), ref.flat(a.stride)) if d != 0]
    a_vals = ref.values(tuple(s for s, _ in kept), tuple(d for _, d in kept)) if kept else [0]
    try:
        c = alg.complement(a, m)
    except NotInjectiveError:
        assert len(set(a_vals)) < len(a_vals)
        return
    except CompositionError:
        return  # no complement; test_complement_brute_force checks that none exists on small cases
    joined = Layout((tuple(s for s, _ in kept) or 1, c.shape), (tuple(d for _, d in kept) or 0, c.stride))
    j = vals(joined)
    assert len(set(j)) == len(j), "A and its complement overlap"
    assert set(range(m)) <= set(j), "A and its complement do not cover the cotarget"
    # complement is ordered (CuTe's definition): increasing values
    cv = vals(c)
    assert all(x < y for x, y in zip(cv, cv[1:]))


def _all_flat_layouts(max_size: int, max_stride: int) -> Any:
    for n in range(1, max_size + 1):
        for shape in ref.ordered_factorizations(n):
            for strides in itertools.product(range(1, max_stride + 1), repeat=len(shape)):
                yield shape, strides


_SMALL_LAYOUTS = [
    Layout(s, d) for s, d in [((2, 2), (1, 3)), ((2, 2), (2, 3)), ((3, 2), (2, 3)), ((2, 3), (1, 4)), (2, 3), ((2, 2), (1, 4))]
]


@pytest.mark.parametrize("a", _SMALL_LAYOUTS, ids=str)
def test_complement_brute_force(a: Layout) -> None:
    """Where complement raises, no layout R (extents product <= 12, strides <= 12) is a complement."""
    a_vals = vals(a)
    for m in range(1, 13):
        try:
            alg.complement(a, m)
            continue
        except CompositionError:
            pass
        for shape, strides in itertools.chain([((), ())], _all_flat_layouts(12, 12)):
            r_vals = ref.values(shape or 1, strides or 0)
            joined = [x + y for y in r_vals for x in a_vals]
            ok = len(set(joined)) == len(joined) and set(range(m)) <= set(joined)
            assert not ok, f"complement({a}, {m}) raised but {shape}:{strides} is one"


@SETTINGS
@given(ls.divide_cases(wild=False))
def test_logical_divide_is_composition_with_complement(case: tuple[Layout, Any]) -> None:
    a, tiler = case
    if isinstance(tiler, tuple):
        return
    b = tiler if isinstance(tiler, Layout) else Layout(tiler)
    try:
        d = dp.logical_divide(a, b)
    except LayoutError:
        with pytest.raises(LayoutError):
            alg.composition(a, Layout((b.shape, alg.complement(b, a.size()).shape), (b.stride, alg.complement(b, a.size()).stride)))
        return
    c = alg.complement(b, a.size())
    expected = alg.composition(a, Layout((b.shape, c.shape), (b.stride, c.stride)))
    assert d == expected
    assert d[0].size() == b.size()
    assert d.size() >= a.size()


@SETTINGS
@given(ls.product_cases())
def test_product_sizes(case: tuple[Layout, Layout]) -> None:
    a, b = case
    for op in (dp.logical_product, dp.blocked_product, dp.raked_product, dp.zipped_product, dp.tiled_product, dp.flat_product):
        try:
            p = op(a, b)
        except LayoutError:
            continue
        assert p.size() == a.size() * b.size(), op.__name__
    try:
        p = dp.logical_product(a, b)
    except LayoutError:
        return
    assert vals(p[0]) == vals(a)
    # the repetitions never overlap the block (A is injective here)
    assert len(set(vals(p))) == len(vals(p)) or len(set(vals(b))) < b.size()


@SETTINGS
@given(ls.layouts(max_size=256))
def test_filter_and_filter_zeros(a: Layout) -> None:
    fz = alg.filter_zeros(a)
    assert ref.flat(fz.stride) == ref.flat(a.stride)
    assert all((s == 1) if d == 0 else (s == t) for s, t, d in zip(ref.flat(fz.shape), ref.flat(a.shape), ref.flat(a.stride)))
    f = alg.filter(a)
    assert sorted(vals(f)) == sorted(vals(fz))
    assert 0 not in ref.flat(f.stride) or f.size() == 1


@SETTINGS
@given(st.tuples(ls.compact_layouts(max_size=256, gaps=False), ls.compact_layouts(max_size=256, gaps=False)))
def test_max_common_vector_law(case: tuple[Layout, Layout]) -> None:
    a, b = case
    n = alg.max_common_vector(a, b)
    inv_b = alg.right_inverse(b)
    assert n >= 1
    if n > 1:
        assert all(ev(a, ev(inv_b, i)) == i for i in range(n))
    m = alg.max_common_layout(a, b)
    if m.size() > 1:
        assert all(ev(a, v) == i == ev(b, v) for i, v in enumerate(vals(m)))


def test_issue_example_is_refused() -> None:
    """pycute returns (2,(4)):(2,(2)) here; A(B(7)) = A(8) = 4, but that layout gives 8."""
    a = Layout((8, 2), (1, 4))
    b = Layout((2, (4,)), (2, (2,)))
    assert ev(a, ev(b, 7)) == 4
    with pytest.raises(CompositionError, match="not a sum of per-mode functions"):
        alg.composition(a, b)


def test_composition_repairs_where_cute_divisibility_fails() -> None:
    # CuTe's shape-divisibility check fails (4 vs 3), yet A o B is the layout 3:1
    assert alg.composition(Layout((4, 3), (1, 5)), Layout(3)) == Layout(3, 1)
    # and where no layout has the function, it raises
    with pytest.raises(CompositionError, match="not a layout"):
        alg.composition(Layout((4, 3), (1, 5)), Layout(6))


def test_composition_uses_a_own_extension_past_its_size() -> None:
    a = Layout((4, 1), (1, 0))
    r = alg.composition(a, Layout(8))
    assert vals(r) == [ev(a, i) for i in range(8)] == [0, 1, 2, 3, 0, 1, 2, 3]


def test_composition_keeps_b_structure_and_by_mode_tilers() -> None:
    a = Layout((8, 4), (1, 8))
    assert alg.composition(a, (Layout(2), None)) == Layout((2, 4), (1, 8))
    assert alg.composition(Layout(32), Layout(((2, 4), 4), ((1, 2), 8))) == Layout(((2, 4), 4), ((1, 2), 8))
    assert alg.composition(a, 4) == Layout(4, 1)


def test_known_values() -> None:
    # values worked out by hand from the definitions
    assert alg.complement(Layout((2, 4), (1, 6)), 48) == Layout((3, 2), (2, 24))
    assert alg.right_inverse(Layout((4, 8), (8, 1))) == Layout((8, 4), (4, 1))
    assert alg.left_inverse(Layout((2, 2), (1, 3))) == Layout((3, 2), (1, 2))
    assert dp.logical_divide(Layout(16), Layout(4, 2)) == Layout((4, (2, 2)), (2, (1, 8)))
    assert dp.blocked_product(Layout((2, 2)), Layout((3, 4))) == Layout(((2, 3), (2, 4)), ((1, 4), (2, 12)))
    assert dp.raked_product(Layout((2, 2)), Layout((3, 4))) == Layout(((3, 2), (4, 2)), ((4, 1), (12, 2)))
    assert math.prod(ref.flat(dp.tiled_divide(Layout((8, 4), (1, 8)), (Layout(2), Layout(2))).shape)) == 32


def test_max_common_layout_cuts_the_inverse_where_a_layout_can() -> None:
    """right_inverse(B) = (4,25,2):(1,8,4) starts 0, 1, 2, 3, 8: five common elements, but no layout of
    size 5 has those values, so the common layout keeps the first 4 (found by the law test above)."""
    a, b = Layout((5, 1, 1), (1, 1, 1)), Layout((4, 2, 5, 5), (1, 100, 4, 20))
    assert alg.max_common_vector(a, b) == 5
    m = alg.max_common_layout(a, b)
    assert m.size() == 4
    assert all(ev(a, v) == i == ev(b, v) for i, v in enumerate(vals(m)))

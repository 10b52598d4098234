"""PyCuTe's operations in layoutalg, each checked against its definition by brute force on hypothesis inputs.

The yardstick is ``tests/oracles/reference.py`` (plain-Python evaluation that does not
import layoutalg) and the definitions written out again here by enumeration.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import strategies as ls
from tests.oracles import reference as ref

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


def vals(layout: la.Layout, n: int | None = None) -> list[int]:
    """``L(i)`` for ``i < n`` (default: its size), by the independent evaluator."""
    if n is None:
        return ref.values(layout.shape, layout.stride)
    return [ref.evaluate(layout.shape, layout.stride, i) for i in range(n)]


@st.composite
def same_size_pairs(draw: Any) -> tuple[la.Layout, la.Layout]:
    a = draw(ls.layouts(max_size=256, negative=True))
    size = a.size()
    factors = ref.flat(tuple(_prime_factors(size))) if size > 1 else []
    extents, cur = [], 1
    for f in draw(st.permutations(factors)):
        if cur > 1 and draw(st.booleans()):
            extents.append(cur)
            cur = 1
        cur *= f
    extents.append(cur)
    strides = [draw(st.integers(-20, 40)) for _ in extents]
    return a, la.Layout(tuple(extents), tuple(strides))


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out + ([n] if n > 1 else [])


# ---------------------------------------------------------------------------
@SETTINGS
@given(same_size_pairs())
def test_layout_add_is_the_pointwise_sum_or_no_layout_has_it(pair):
    a, b = pair
    sums = [x + y for x, y in zip(vals(a), vals(b))]
    try:
        r = la.layout_add(a, b)
    except la.CompositionError:
        assert not ref.representable_1d(sums)
        return
    assert r.size() == a.size() and la.depth(r.shape) <= 1
    assert vals(r) == sums


def test_layout_add_refuses_other_sizes_and_non_layouts():
    with pytest.raises(la.ShapeError, match="one size"):
        la.layout_add(la.Layout(6), la.Layout(8))
    with pytest.raises(la.ShapeError, match="must be a Layout"):
        la.layout_add(la.Layout(4), 4)


@SETTINGS
@given(ls.layouts(max_size=512, negative=True))
def test_nullspace_enumerates_exactly_the_zeros_in_order(a):
    """Every zero index once, in increasing order where a layout reads them so; a refusal only where no layout
    lists them in any order (brute force for up to 12 zeros, else no increasing reading)."""
    zeros = [i for i, v in enumerate(vals(a)) if v == 0]
    try:
        r = la.nullspace(a)
    except la.CompositionError:
        assert not ref.representable_1d(zeros)
        if len(zeros) <= 12:
            assert not ref.listing_exists(set(zeros), False) and not ref.listing_exists(set(zeros), True)
        return
    listed = [int(x) for x in (r.values() if isinstance(r, la.StrideLayout) else vals(r))]
    assert sorted(listed) == zeros and len(set(listed)) == len(listed)
    if ref.representable_1d(zeros):
        assert listed == zeros


# ---------------------------------------------------------------------------
def _split_left(shape: Any, q: int) -> int | None:
    """What is left of the leaf at split point q of shape's index domain (1 at the end), None if q is no split."""
    running = 1
    for s in ref.flat(shape):
        if s == 1:
            continue
        if running <= q < running * s and q % running == 0 and s % (q // running) == 0:
            return s // (q // running)
        running *= s
    return 1 if q == running else None


def _gcd_walk(a: Any, b: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The leaf-order walk of greatest_common_domain, with split points found by scanning every index."""
    end = min(ref.size(a), ref.size(b))
    shapes, strides, q = [], [], 1
    while q < end:
        g = math.gcd(_split_left(a, q), _split_left(b, q))  # type: ignore[arg-type]
        if g > 1:
            shapes.append(g)
            strides.append(q)
            q *= g
            continue
        q = next((p for p in range(q + 1, end + 1) if _split_left(a, p) and _split_left(b, p)), end)
    return (tuple(shapes), tuple(strides)) if shapes else ((1,), (0,))


@SETTINGS
@given(ls.flat_shapes(max_rank=5, max_size=720), ls.flat_shapes(max_rank=5, max_size=720))
def test_greatest_common_domain_is_the_leaf_order_walk_and_lies_in_both_domains(sa, sb):
    a, b = tuple(sa), tuple(sb)
    r = la.greatest_common_domain(a, b)
    assert (r.shape, r.stride) == _gcd_walk(a, b)
    assert r == la.greatest_common_domain(b, a)
    for g, q in zip(r.shape, r.stride):  # every mode sits inside one leaf of each, at split points
        if g > 1:
            for shape in (a, b):
                assert _split_left(shape, q) is not None and _split_left(shape, q) % g == 0


# ---------------------------------------------------------------------------
@SETTINGS
@given(ls.layouts(max_size=256, negative=True))
def test_coalesce_z_keeps_the_function_on_every_index(a):
    r = la.coalesce_z(a)
    n = 3 * a.size() + 5
    assert vals(r, n) == vals(a, n)
    assert la.depth(r.shape) <= 1 and r.size() == a.size()
    assert la.coalesce_z(r) == r


def test_coalesce_z_keeps_a_trailing_size_one_mode_that_changes_the_extension():
    assert la.coalesce_z(la.Layout((3, 4, 1), (100, 300, 0))) == la.Layout((12, 1), (100, 0))
    assert la.coalesce(la.Layout((3, 4, 1), (100, 300, 0))) == la.Layout(12, 100)


# ---------------------------------------------------------------------------
def coarsenings(t: Any) -> set[Any]:
    if not isinstance(t, tuple):
        return {t}
    return {ref.size(t)} | {tuple(c) for c in itertools.product(*(coarsenings(e) for e in t))}


@st.composite
def shape_trees(draw: Any) -> Any:
    return ls._nest(draw, draw(ls.flat_shapes(max_rank=4, max_size=64)), 3)


@SETTINGS
@given(shape_trees(), st.data())
def test_shape_lattice_against_the_sets_of_coarsenings(base, data):
    a = data.draw(st.sampled_from(sorted(coarsenings(base), key=repr)))
    b = data.draw(st.sampled_from(sorted(coarsenings(base), key=repr)))
    assert la.compatible(a, base) and la.compatible(a, b) == (a in coarsenings(b))
    common = coarsenings(a) & coarsenings(b)
    greatest = [x for x in common if not any(y != x and x in coarsenings(y) for y in common)]
    assert [la.common_coarsening(a, b)] == greatest
    join = la.common_refinement(a, b)
    assert a in coarsenings(join) and b in coarsenings(join) and join in coarsenings(base)
    assert not any(c != join and a in coarsenings(c) and b in coarsenings(c) for c in coarsenings(join))


def test_shape_lattice_refusals():
    with pytest.raises(la.ShapeError):
        la.common_refinement((2, (3, 5)), ((3, 2), 5))
    with pytest.raises(la.ShapeError):
        la.common_coarsening((2, 3), (4, 5))
    assert la.common_coarsening((2, (3, 5)), ((3, 2), 5)) == 30
    assert la.product_each(((2, (3, 4)), (5, 6), 7)) == (24, 30, 7)


# ---------------------------------------------------------------------------
@SETTINGS
@given(ls.flat_shapes(max_rank=5, max_size=512), st.data())
def test_make_ordered_layout_is_compact_and_follows_the_order(shape, data):
    order = tuple(data.draw(st.lists(st.integers(0, 4), min_size=len(shape), max_size=len(shape))))
    r = la.make_ordered_layout(tuple(shape), order)
    assert sorted(vals(r)) == list(range(r.size()))
    running = 1
    for k in sorted(range(len(shape)), key=lambda k: (order[k], k)):
        assert r.stride[k] == running
        running *= shape[k]


def test_make_ordered_layout_takes_a_weakly_congruent_order_as_cute_cpp():
    assert la.make_ordered_layout((4, (8, 2)), (1, 0)) == la.Layout((4, (8, 2)), (16, (1, 8)))
    with pytest.raises(la.ShapeError, match="congruent"):
        la.make_ordered_layout(8, (0, 1))


@SETTINGS
@given(ls.layouts(max_size=512))
def test_make_layout_like_is_compact_in_the_order_of_the_strides(a):
    r = la.make_layout_like(a)
    assert r.shape == a.shape
    pairs = list(zip(ref.flat(a.shape), ref.flat(a.stride), ref.flat(r.stride)))
    assert all((d == 0) == (e == 0) for _, d, e in pairs)
    running = 1
    for s, _d, e in sorted((p for p in pairs if p[1] != 0), key=lambda p: p[1]):
        assert e == running
        running *= s


# ---------------------------------------------------------------------------
@SETTINGS
@given(ls.compact_layouts(max_size=256))
def test_weak_complement_of_chained_strides_tiles_every_index(a):
    r = la.weak_complement(a)
    flat = [(s, d) for s, d in zip(ref.flat(a.shape), ref.flat(a.stride)) if d != 0 and s != 1]
    rf = list(zip(ref.flat(r.shape), ref.flat(r.stride)))
    rf[-1] = (rf[-1][0] * 3, rf[-1][1])  # three periods of the rest mode
    both = ref.values(tuple(s for s, _ in flat + rf), tuple(d for _, d in flat + rf))
    assert sorted(both) == list(range(len(both)))


@SETTINGS
@given(ls.layouts(max_size=128, zero=False))
def test_weak_complement_is_ordered_and_disjoint_or_refused(a):
    try:
        r = la.weak_complement(a)
    except la.NotInjectiveError:
        assert len(set(vals(a))) < a.size()
        return
    except la.CompositionError:
        return  # CuTe's floored candidate is not a weak complement; nothing is claimed
    image = set(vals(a))
    seq = vals(r, r.size() + 10)
    assert all(x < y for x, y in zip(seq, seq[1:]))
    assert not any(v in image for v in seq[1:])


def test_weak_complement_keeps_its_rest_mode():
    assert la.weak_complement(la.Layout(4, 2)) == la.Layout((2, 1), (1, 8))
    assert la.weak_complement(la.Layout(4, 2), 20) == la.Layout((2, 3), (1, 8))
    assert la.weak_complement(la.Layout(5, 1)) == la.Layout(1, 5)


# ---------------------------------------------------------------------------
@st.composite
def layouts_with_broadcast(draw: Any) -> la.Layout:
    a = draw(ls.compact_layouts(max_size=256, max_depth=1))
    shapes, strides = list(ref.flat(a.shape)), list(ref.flat(a.stride))
    for _ in range(draw(st.integers(1, 2))):
        k = draw(st.integers(0, len(shapes)))
        shapes.insert(k, draw(st.sampled_from([2, 3, 4])))
        strides.insert(k, 0)
    return la.Layout(tuple(shapes), tuple(strides))


@SETTINGS
@given(st.one_of(layouts_with_broadcast(), ls.layouts(max_size=64, max_stride=12)))
def test_left_inverse_of_a_non_injective_layout_is_a_generalized_inverse(a):
    try:
        r = la.left_inverse(a)
    except la.LayoutError:
        assert 0 not in ref.flat(a.stride) or len(set(vals(a))) < sum(1 for _ in vals(a))
        return
    av = vals(a)
    assert all(ref.evaluate(a.shape, a.stride, ref.evaluate(r.shape, r.stride, v)) == v for v in av)


# ---------------------------------------------------------------------------
@SETTINGS
@given(ls.layouts(max_size=256, max_stride=48), st.sampled_from([2, 3, 4, 6, 8, 12]))
def test_recast_by_covers_exactly_the_wider_elements_touched(a, n):
    if any(s > 1 and d != 0 and d % n and n % d for s, d in zip(ref.flat(a.shape), ref.flat(a.stride))):
        with pytest.raises(la.ShapeError):
            la.recast(a, n)
        return
    r = la.recast(a, n)
    assert set(vals(r)) == {v // n for v in vals(a)} or len(set(vals(a))) < a.size()
    try:
        strict = la.core.recast_layout(n, 1, a)
    except la.ShapeError:
        return
    assert r == strict


def test_recast_by_a_fraction_is_downcast_and_non_powers_of_two_work():
    assert la.recast(la.Layout((8, 4), (0, 2)), Fraction(1, 6)) == la.Layout((8, 4), (0, 12))
    assert la.recast(la.Layout(24, 1), 8, 48) == la.Layout(4, 1)
    assert la.recast(la.Layout((8, 4, 6), (1, 0, 2)), 8) == la.Layout((1, 4, 2), (1, 0, 1))


# ---------------------------------------------------------------------------
@SETTINGS
@given(shape_trees(), st.data())
def test_prefix_product_with_a_tuple_init_starts_each_mode_at_its_own_value(shape, data):
    """Brute force: leaf j of top-level mode k gets init[k] times the extents before it *in mode k* (PyCuTe's
    definition; a nested init recurses the same way)."""
    if not isinstance(shape, tuple):
        shape = (shape,)
    init = tuple(data.draw(st.integers(-9, 9)) for _ in shape)
    got = la.prefix_product(shape, init)
    for k, (mode, start) in enumerate(zip(shape, init)):
        leaves, running = [], start
        for extent in ref.flat(mode):
            leaves.append(running)
            running *= extent
        assert ref.flat(got[k]) == leaves
        assert isinstance(got[k], tuple) == isinstance(mode, tuple)  # congruent with the shape
    whole = la.prefix_product(shape, 3)
    assert ref.flat(whole) == [3 * math.prod(ref.flat(shape)[:j]) for j in range(len(ref.flat(shape)))]
    with pytest.raises(la.ShapeError):
        la.prefix_product(shape, init + (1,))
    with pytest.raises(la.ShapeError):
        la.prefix_product(shape, init[:-1] + (True,))


def test_tuple_utilities():
    shape = ((2, 3), (5, 7, 9))
    assert la.slice_((1, (1, None, None)), shape) == (7, 9)
    assert la.dice_((1, (1, None, None)), shape) == ((2, 3), 5)
    assert la.lift(42, (1, 0), pad=None) == (None, (42,))
    assert la.core.get(la.lift(99, (0, 2, 3)), mode=(0, 2, 3)) == 99
    assert la.take(la.Layout((2, 3, 5, 7), (1, 2, 6, 30)), 1, 3) == la.Layout((3, 5), (2, 6))
    assert la.unwrap((((42,),),)) == 42 and la.wrap(7) == (7,)
    assert la.transform_apply_leaf(sum, lambda x: x, ((1, 2), (3, 4))) == 10

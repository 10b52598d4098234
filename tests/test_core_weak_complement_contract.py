"""Contract of ``weak_complement(A, cotarget)`` (PyCuTe's ``complement(A)``, CuTe's gap-filling complement with
a kept rest mode), judged by brute force: the result R is ordered (increasing on its extended domain) and
``(A, R)`` is injective; where A's sorted strides chain, ``(A, R)`` is a bijection onto ``0, 1, 2, ...``; a
cotarget only sizes the rest mode (``ceil(M / (s_n d_n))``); bad cotargets and strides are refused by name."""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from tests.oracles import reference as ref

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


def values(layout: Any, n: int) -> list[int]:
    return [ref.evaluate(layout.shape, layout.stride, i) for i in range(n)]


def rest_extent(r: la.Layout) -> int:
    shape: Any = r.flat().shape
    return int(shape[-1]) if isinstance(shape, tuple) else int(shape)


@st.composite
def injective_unchained(draw: Any) -> la.Layout:
    """Flat layouts whose sorted strides leave room between modes (d_k >= s_(k-1) d_(k-1)), chained or not."""
    rank = draw(st.integers(1, 3))
    shape, stride, cur = [], [], 1
    for _ in range(rank):
        s = draw(st.integers(2, 4))
        d = cur * draw(st.integers(1, 3)) + draw(st.integers(0, 2))
        shape.append(s)
        stride.append(d)
        cur = s * d
    order = draw(st.permutations(range(rank)))
    return la.Layout(tuple(shape[i] for i in order), tuple(stride[i] for i in order))


@SETTINGS
@given(injective_unchained(), st.one_of(st.none(), st.integers(1, 300)))
def test_result_is_ordered_and_disjoint_from_a_by_brute_force(a: la.Layout, cotarget: int | None) -> None:
    r = la.weak_complement(a, cotarget)
    n_r = r.size() + r.size() // rest_extent(r)  # one more period of the rest mode
    r_vals = values(r, n_r)
    assert all(x < y for x, y in zip(r_vals, r_vals[1:])), (a, r)
    a_vals = values(a, a.size())
    sums = {x + y for x in a_vals for y in r_vals}
    assert len(sums) == len(a_vals) * len(r_vals), (a, r)
    shape: Any = a.shape if isinstance(a.shape, tuple) else (a.shape,)
    stride: Any = a.stride if isinstance(a.stride, tuple) else (a.stride,)
    top = max(s * d for s, d in zip(shape, stride))
    assert rest_extent(r) == (1 if cotarget is None else -(-cotarget // top))  # kept, sized by the cotarget


@pytest.mark.parametrize("a", [la.Layout((2, 4), (4, 1)), la.Layout(4, 2), la.Layout((3, 2), (2, 12)),
                               la.Layout((2, 2), (1, 8))])
def test_chained_strides_give_a_bijection_onto_the_naturals(a: la.Layout) -> None:
    r = la.weak_complement(a)
    m = a.cosize() * 3
    both = sorted(x + y for x in values(a, a.size()) for y in values(r, m))
    assert both[:m] == list(range(m))


def test_unchained_example_from_cute() -> None:
    # (4,2):(1,5): the gap below 5 floors to 5 // 4 == 1, so R is the rest mode 1:10
    r = la.weak_complement(la.Layout((4, 2), (1, 5)))
    assert r.size() == 1 and r(1) == 10


@pytest.mark.parametrize("cotarget,extent", [((4, 4), 2), ((1, 1), 1), ([2, 3], 1), ((8, (2, 2)), 4), (17, 3), (16, 2)])
def test_a_shape_cotarget_sizes_the_rest_mode_by_its_product(cotarget: Any, extent: int) -> None:
    r = la.weak_complement(la.Layout((2, 2), (1, 4)), cotarget)  # values 0,1,4,5; R = (2, rest):(2, 8)
    assert r == la.Layout((2, extent), (2, 8))


def test_a_numpy_int_cotarget_is_its_value() -> None:
    np = pytest.importorskip("numpy")
    assert la.weak_complement(la.Layout(4, 2), np.int64(24)) == la.weak_complement(la.Layout(4, 2), 24)


def test_a_layout_cotarget_is_refused_naming_the_argument() -> None:
    with pytest.raises(la.ShapeError, match="cotarget must be an int or a shape, not a Layout"):
        la.weak_complement(la.Layout(4, 2), la.Layout(16, 1))


@pytest.mark.parametrize("cotarget", [0, -5, (4, 0), (0,)])
def test_a_non_positive_cotarget_is_refused_naming_it(cotarget: Any) -> None:
    with pytest.raises(la.LayoutError, match="cotarget"):
        la.weak_complement(la.Layout(4, 2), cotarget)


@pytest.mark.parametrize("a", [la.Layout((2, 3), (-1, 2)), la.Layout(4, -2), la.Layout((2, 2), (3, -6))])
def test_negative_strides_are_refused_naming_the_stride(a: la.Layout) -> None:
    with pytest.raises(la.LayoutError, match="non-negative strides.*stride -"):
        la.weak_complement(a)


def test_overlapping_spans_are_refused() -> None:
    with pytest.raises(la.CompositionError, match="starts inside the span"):
        la.weak_complement(la.Layout((2, 2), (2, 3)))
    with pytest.raises(la.NotInjectiveError):
        la.weak_complement(la.Layout((2, 2), (1, 1)))


def test_a_symbolic_cotarget_gives_the_symbolic_complement_for_every_value() -> None:
    n = sympy.Symbol("N", positive=True, integer=True)
    a = la.Layout((2, 2), (1, 4))
    r = la.weak_complement(a, 16 * n)
    assert isinstance(r, la.SymbolicLayout)
    for v in (1, 2, 3):
        c = r.subs({n: v})
        assert isinstance(c, la.Layout) and c.size() * a.size() == 16 * v
        m = 16 * v
        assert sorted(x + y for x in values(a, a.size()) for y in values(c, c.size())) == list(range(m))


def test_a_symbolic_layout_without_cotarget_keeps_its_rest_mode() -> None:
    x = sympy.Symbol("X", positive=True, integer=True)
    r: Any = la.weak_complement(la.symbolic_layout((4,), (2 * x,)))
    for v in (1, 2, 5):
        c = r.subs({x: v})
        assert c == la.weak_complement(la.Layout(4, 2 * v))


@pytest.mark.parametrize("a", [la.Layout(4, 0), la.Layout(1, 3), la.Layout(1, 0), la.Layout((1,), (3,)),
                               la.Layout((4,), (0,)), la.Layout((4, 1), (0, 5))])
def test_stride_0_and_size_1_modes_are_ignored_leaving_the_rest_mode_1_to_1(a: la.Layout) -> None:
    # with no mode left, the construction has no gap and the rest mode 1:1 (cur = 1) fills 0, 1, 2, ...
    r = la.weak_complement(a)
    assert r == la.Layout(1, 1)
    assert values(r, 20) == list(range(20))


def test_a_cotarget_of_more_than_4096_bits_is_refused_naming_it() -> None:
    assert la.weak_complement(la.Layout(4, 2), (1 << 4096) - 1).size() == -(-((1 << 4096) - 1) // 8) * 2
    with pytest.raises(la.LayoutError, match="weak_complement cotarget has 4097 bits"):
        la.weak_complement(la.Layout(4, 2), 1 << 4096)


LIMIT = 1 << 20  # the enumeration limit of the general (enumerating) complement checks


@pytest.mark.parametrize("a", [la.Layout((1 << 21,), (1,)), la.Layout((2, 1 << 21), (1, 4)),
                               la.Layout((1 << 11, 1 << 11), (1 << 11, 1))])
def test_chained_layouts_of_any_size_are_complemented_without_a_refusal(a: la.Layout) -> None:
    # chained: the bijection needs no check, so no enumeration limit applies
    r = la.weak_complement(a)
    shape: Any = a.shape
    stride: Any = a.stride
    pairs = sorted((d, s) for s, d in zip(shape, stride))
    gaps = [(d // cur, cur) for (d, _), cur in zip(pairs, [1] + [s * d for d, s in pairs]) if d // cur > 1]
    top = pairs[-1][0] * pairs[-1][1]
    want = gaps + [(1, top)]
    assert r == (la.Layout(*want[0]) if len(want) == 1 else la.Layout(tuple(s for s, _ in want), tuple(d for _, d in want)))


def test_unchained_layouts_keep_the_enumeration_limit_of_the_general_check() -> None:
    # (4, n):(1, 5): 5 // 4 floors to 1, so not chained; A's size 4n is checked against the limit
    assert la.weak_complement(la.Layout((4, LIMIT // 4), (1, 5))) == la.Layout(1, 5 * (LIMIT // 4))
    with pytest.raises(la.CompositionError, match="weak_complement check: cannot be proved without enumerating"):
        la.weak_complement(la.Layout((4, LIMIT // 2), (1, 5)))


def test_unchained_rest_modes_up_to_the_enumeration_limit_are_accepted_and_larger_ones_refused() -> None:
    # (4,2):(1,5): R is only the rest mode at stride 10; its check covers rest + 1 periods
    a = la.Layout((4, 2), (1, 5))
    assert la.weak_complement(a, 10 * (LIMIT - 1)) == la.Layout(LIMIT - 1, 10)  # rest + 1 == LIMIT
    with pytest.raises(la.CompositionError, match="weak_complement check"):
        la.weak_complement(a, 10 * LIMIT)  # rest + 1 == LIMIT + 1
    # with a gap of 3 below stride 12 (not chained: 13 // 4 == 3 leaves 1): r_size 3 multiplies the rest's count
    b = la.Layout((4, 2), (1, 13))
    assert la.weak_complement(b, 26 * (LIMIT // 3 - 1)) == la.Layout((3, LIMIT // 3 - 1), (4, 26))
    with pytest.raises(la.CompositionError, match="weak_complement check"):
        la.weak_complement(b, 26 * (LIMIT // 3))

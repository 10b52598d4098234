"""Contract of ``layoutalg.core.layout_add``: the result R has ``R(i) == A(i) + B(i)`` on the whole domain (brute
force), comes coalesced, and a refusal happens only where no layout has the summed values, listing the first six;
extents that divide each other are refined without enumerating, for stride layouts too."""

from __future__ import annotations

import itertools

import pytest

import layoutalg as la
from layoutalg import E
from layoutalg.errors import CompositionError


def _factorizations(n: int) -> list[tuple[int, ...]]:
    if n == 1:
        return [()]
    return [(f, *rest) for f in range(2, n + 1) if n % f == 0 for rest in _factorizations(n // f)]


def _is_layout_sequence(values: tuple[int, ...]) -> bool:
    """Some flat layout has these values (brute force over every shape of that size: mode k's stride is the value
    at the index where only its coordinate is 1, the product of the extents before it)."""
    for shape in _factorizations(len(values)):
        got = [0]
        for s in shape:
            d = values[len(got)]
            got = [v + k * d for k in range(s) for v in got]
        if tuple(got) == values:
            return True
    return False


_SHAPES = {6: [(2, 3), (3, 2), 6], 12: [(3, 4), (4, 3), (2, 6), 12]}


def test_layout_add_is_the_pointwise_sum_or_refused_listing_the_first_six_sums_of_no_layout() -> None:
    answered = refused = 0
    for n, shapes in _SHAPES.items():
        for sa, sb in itertools.product(shapes, repeat=2):
            ra = len(sa) if isinstance(sa, tuple) else 1
            rb = len(sb) if isinstance(sb, tuple) else 1
            for da in itertools.product((0, 1, 5), repeat=ra):
                for db in itertools.product((0, 2, 3), repeat=rb):
                    a = la.Layout(sa, da if ra > 1 else da[0])
                    b = la.Layout(sb, db if rb > 1 else db[0])
                    want = tuple(a(i) + b(i) for i in range(n))
                    try:
                        r = la.layout_add(a, b)
                    except CompositionError as err:
                        assert f"the sums {list(want[:6])}..." in str(err), (a, b, err)
                        assert not _is_layout_sequence(want), (a, b)
                        refused += 1
                        continue
                    assert r.size() == n and tuple(r(i) for i in range(n)) == want, (a, b, r)
                    assert la.coalesce(r) == r, (a, b, r)
                    answered += 1
    assert answered > 800 and refused > 300


def test_extents_that_divide_each_other_are_refined_past_the_enumeration_limit() -> None:
    # (4096,4096):(1,8192) + 2**24:3: the extents 4096 and 2**24 divide, so R = (4096,4096):(1+3, 8192+3*4096) without
    # listing 2**24 sums (checked at sampled indices)
    a, b = la.Layout((1 << 12, 1 << 12), (1, 1 << 13)), la.Layout(1 << 24, 3)
    r = la.layout_add(a, b)
    assert r.size() == 1 << 24
    for i in (0, 1, 4095, 4096, 4097, 123_457, (1 << 24) - 1):
        assert r(i) == a(i) + b(i), i


def test_a_stride_layout_plus_one_whose_extent_the_other_divides_is_the_pointwise_sum() -> None:
    a = la.stride_layout((2, 3), (E(0), E(1)))
    for b in (la.stride_layout(6, E(0)), la.Layout(6, 0)):  # a plain Layout with a stride layout: the stride path
        r = la.layout_add(a, b)
        assert [r(i) for i in range(6)] == [a(i) + b(i) for i in range(6)], b
        assert [r(i) for i in range(6)] == [la.layout_add(b, a)(i) for i in range(6)], b


@pytest.mark.parametrize("a, b", [(la.Layout((5, 3), (3, 1)), la.Layout((3, 5), (5, 1)))], ids=str)
def test_pycutes_refused_example_is_refused_with_its_sums(a: la.Layout, b: la.Layout) -> None:
    # PyCuTe raises on these extents (5 and 3 do not divide); the sums 0, 8, 16, 10, ... follow no shape:stride
    with pytest.raises(CompositionError, match=r"the sums \[0, 8, 16, 10, 18, 12\]\.\.\. are not the values of any"):
        la.layout_add(a, b)

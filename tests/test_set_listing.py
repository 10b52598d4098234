"""The complete search for a layout listing a set (``core/set_listing.py``), against brute force over every
factorization and every choice of strides, and the nullspaces it answers."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from oracles import reference as ref

import layoutalg as la
from layoutalg import F2
from layoutalg.core.set_listing import ListingExhaustedError, list_set

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def listed(pairs: list[tuple[int, int]], xor: bool) -> list[int]:
    """Every value of the flat layout ``pairs`` (sums, or XORs of carry-less products), with repeats."""
    values = [0]
    for f, d in pairs:
        values = [(v ^ int(F2(c) * F2(d))) if xor else v + c * d for c in range(f) for v in values]
    return values


@st.composite
def value_sets(draw: st.DrawFn) -> tuple[frozenset[int], bool]:
    """Small sets holding 0: the values of a random layout (often listable), or any subset of 0..24."""
    xor = draw(st.booleans())
    if draw(st.booleans()):
        rank = draw(st.integers(1, 3))
        pairs = [(draw(st.integers(2, 3)), draw(st.integers(1, 12))) for _ in range(rank)]
        values = listed(pairs, xor)
        if len(set(values)) == len(values) and len(values) <= 12:
            return frozenset(values), xor
    rest = draw(st.sets(st.integers(1, 24), max_size=7))
    return frozenset(rest | {0}), xor


@SETTINGS
@given(value_sets())
def test_list_set_answers_exactly_when_brute_force_finds_a_listing(case: tuple[frozenset[int], bool]) -> None:
    values, xor = case
    pairs = list_set(values, xor)
    if pairs is None:
        assert not ref.listing_exists(set(values), xor), f"{sorted(values)} has a listing (xor={xor})"
        event("none exists (brute force agrees)")
        return
    got = listed(pairs, xor)
    assert sorted(got) == sorted(values) and len(got) == len(values), (pairs, sorted(values))
    event("listed")


def test_list_set_finds_orders_no_increasing_reading_has() -> None:
    assert list_set({0, 2, 3, 4, 5, 7}, xor=False) == [(3, 2), (2, 3)]
    assert list_set({0, 38, 76, 106, 152}, xor=True) == [(5, 38)]
    assert list_set({0, 1, 3}, xor=False) is None
    assert list_set({1, 2}, xor=False) is None  # no 0: no layout's values


@pytest.mark.parametrize("text, zeros", [
    ("(5,3,5):(-1,-2,2)", [0, 17, 20, 34, 37, 40, 54, 57, 74]),
    ("(2,4,4,4):(-3,-2,1,4)", [0, 18, 25, 36, 43, 54, 61, 79]),
    ("(2,4,5):(6,-3,3)", [0, 5, 10, 15, 20, 30]),  # listed only by XOR: an F2-stride nullspace
])
def test_nullspace_lists_zeros_no_layout_reads_in_increasing_order(text: str, zeros: list[int]) -> None:
    a = la.parse(text)
    assert [i for i in range(a.size()) if a(i) == 0] == zeros
    null = la.nullspace(a)
    got = [int(null(j)) for j in range(la.size(null))]
    assert sorted(got) == zeros and len(got) == len(zeros)
    assert all(a(null(j)) == 0 for j in range(la.size(null)))  # an F2 value reads as an index


def test_nullspace_of_f2_strides_listed_by_one_carry_less_mode() -> None:
    """Fresh case (seed 9301): the zeros 0, 38, 76, 106, 152 of ``(8,4,5):(F1,F8,F6)`` are ``5:F38``."""
    a = la.make_layout((8, 4, 5), (F2(1), F2(8), F2(6)))
    null = la.nullspace(a)
    assert sorted(int(null(j)) for j in range(la.size(null))) == [0, 38, 76, 106, 152]


def test_an_unlistable_zero_set_is_refused_naming_it() -> None:
    """``(2,2,4):(2,-1,-1)`` vanishes at 0, 7, 9: three values, so one mode ``3:d`` (0, d, 2d; with XOR 0, d,
    d ^ 2d), which never lists them."""
    a = la.parse("(2,2,4):(2,-1,-1)")
    assert [i for i in range(a.size()) if a(i) == 0] == [0, 7, 9]
    assert not ref.listing_exists({0, 7, 9}, False) and not ref.listing_exists({0, 7, 9}, True)
    with pytest.raises(la.CompositionError, match="the indices 0, 7, 9 are not the values of any layout"):
        la.nullspace(a)


def test_the_search_says_undecided_past_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from layoutalg.core import set_listing

    monkeypatch.setattr(set_listing, "WORK_LIMIT", 30)
    with pytest.raises(ListingExhaustedError):
        set_listing.list_set({0, 5, 9, 12, 17, 21, 24, 29}, xor=True)

"""Contract of `layoutalg.core.left_inverse_search`: `find_left_inverse` returns a layout L with
L(offsets[i]) == targets[i] exactly when one exists (z3 and brute-force radices as the oracle), its domain the
least multiple of its radix product past the largest offset; it tries at most NODE_LIMIT radix prefixes and
spends at most WORK_LIMIT units (a visited offset group one, an added equation ROW_COST per row of the
elimination, at least one), and past either raises SearchExhaustedError instead of answering.  Through
`left_inverse`: a layout whose strides do not chain and whose many offsets exhaust the budget is refused as
undecided (CompositionError saying so); smaller ones are decided, and the answer satisfies L(A(i)) == i."""

from __future__ import annotations

import math

import pytest
import sympy
from hypothesis import example, given, settings
from hypothesis import strategies as st
from oracles import reference as ref

from layoutalg.core import left_inverse_search as search
from layoutalg.core.inverses import left_inverse
from layoutalg.core.layout import Layout
from layoutalg.core.left_inverse_search import SearchExhaustedError, find_left_inverse
from layoutalg.errors import CompositionError


@pytest.mark.parametrize("layout", [Layout((2, 50000), (3, 7)), Layout((3, 20000), (5, 7))])
def test_a_search_past_its_work_budget_is_refused_as_undecided(layout: Layout) -> None:
    with pytest.raises(CompositionError, match="undecided; its strides do not chain"):
        left_inverse(layout)


def test_a_small_non_chaining_layout_is_decided_and_inverted() -> None:
    layout = Layout((2, 3), (3, 2))
    inverse = left_inverse(layout)
    assert [inverse(layout(i)) for i in range(layout.size())] == list(range(layout.size()))


def _evaluate(pairs: list[tuple[int, int]], x: int) -> int:
    return ref.evaluate(tuple(s for s, _ in pairs), tuple(d for _, d in pairs), x)


@st.composite
def _offset_orders(draw: st.DrawFn) -> list[int]:
    """Distinct offsets in 0..9, 0 first, the rest in any order (offsets[i] must go to i)."""
    rest = draw(st.lists(st.integers(1, 9), unique=True, max_size=4))
    return [0, *draw(st.permutations(rest))]


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(_offset_orders())
@example([0])  # a single offset: the one-point layout
@example([0, 1, 2])  # the largest offset a prime: the radix sequence (2,) is the only maximal one
def test_the_search_finds_a_left_inverse_exactly_when_one_exists(offsets: list[int]) -> None:
    found = find_left_inverse(offsets)
    top = max(offsets)
    exists = top == 0 or ref.left_inverse_exists(offsets)  # every layout sends 0 to 0 (the oracle needs V > 0)
    assert (found is not None) == exists
    if found is None:
        return
    assert [_evaluate(found, x) for x in offsets] == list(range(len(offsets)))
    size = math.prod(s for s, _ in found)
    radix_product = size // found[-1][0]
    assert size - radix_product <= top < size  # every offset inside the domain, the last mode no longer than that


# None: the module's own limit, 3,000 prefixes as docs/DESIGN.md states.  6: the primes sieved must reach the 7th
# (17), past Rosser's bound on the 6th (15).  10: V = 29 lies above 25 = 5 * 5, which is no radix to try.
@pytest.mark.parametrize("node_limit", [None, 6, 10])
def test_the_search_tries_every_prime_up_to_its_node_limit_and_then_gives_up(
    monkeypatch: pytest.MonkeyPatch, node_limit: int | None
) -> None:
    """No layout sends 1, 2, 3 to 1, 3, 5: a first radix 2 gives L(3) = L(1) + L(2) = 4, any larger one
    L(2) = 2 L(1) = 2.  So each prime p <= V is tried at the root and cut at once: pi(V) prefixes (prime radices
    suffice; a composite one is never tried).  With the NODE_LIMIT-th prime as V the search decides (no layout);
    with the next prime it must say it gave up, never "none exists" without having tried every prime radix."""
    if node_limit is not None:
        monkeypatch.setattr(search, "NODE_LIMIT", node_limit)
    targets = [0, 1, 3, 5, 4]
    decided = sympy.prime(3000 if node_limit is None else node_limit)
    assert find_left_inverse([0, 1, 2, 3, decided], targets) is None
    with pytest.raises(SearchExhaustedError):
        find_left_inverse([0, 1, 2, 3, sympy.nextprime(decided)], targets)


def test_the_node_budget_counts_each_tried_radix_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    # offsets 0 and 2: the single prefix (2,) separates them, L = (2,2):(0,1)
    monkeypatch.setattr(search, "NODE_LIMIT", 1)
    found = find_left_inverse([0, 2])
    assert found is not None and [_evaluate(found, x) for x in (0, 2)] == [0, 1]
    monkeypatch.setattr(search, "NODE_LIMIT", 0)
    with pytest.raises(SearchExhaustedError):
        find_left_inverse([0, 2])


@pytest.mark.parametrize(
    ("offsets", "units"),
    [
        ([0, 2], 2),  # radix 2 visits the two offsets' groups and adds no equation
        ([0, 1, 2, 3], 4 + search.ROW_COST),  # four groups, D1 = 1 added once (2 -> 3 repeats it), no row before it
        # radices 2, 2, 2: 16, 8, 4 groups; D1 = 1, D2 = 2, D3 = 4 each added once, against 0, 1, 2 rows before it
        (list(range(16)), 16 + 8 + 4 + search.ROW_COST * (1 + 1 + 2)),
    ],
)
def test_the_work_budget_counts_groups_and_row_operations(
    monkeypatch: pytest.MonkeyPatch, offsets: list[int], units: int
) -> None:
    monkeypatch.setattr(search, "WORK_LIMIT", units)
    found = find_left_inverse(offsets)
    assert found is not None and [_evaluate(found, x) for x in offsets] == list(range(len(offsets)))
    monkeypatch.setattr(search, "WORK_LIMIT", units - 1)
    with pytest.raises(SearchExhaustedError):
        find_left_inverse(offsets)


@pytest.mark.parametrize(
    "layout", [Layout((4, 6), (217, 202)), Layout((6, 5), (259, 298)), Layout((6, 4), (129, 301))]
)
def test_left_inverses_with_offsets_past_192_are_found_within_the_budget(layout: Layout) -> None:
    """Strides that do not chain, largest offsets 1548-2487: a left inverse exists and the search finds it
    (branches whose equations fix a fraction are cut, or the budget runs out first)."""
    inverse = left_inverse(layout)
    assert [inverse(layout(i)) for i in range(layout.size())] == list(range(layout.size()))

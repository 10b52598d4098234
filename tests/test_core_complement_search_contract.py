"""Contract of `layoutalg.core.complement_search.forced_offsets`: the greedy "next uncovered offset" walk,
checked against a set-based reference on both of its paths (a Python loop below 256 offsets of A, one
numpy operation per pick from 256 on), including the first clash it reports."""

from __future__ import annotations

import random

import pytest

from layoutalg.core.complement_search import forced_offsets


def _reference(a_offsets: list[int], m: int) -> tuple[list[int], tuple[int, int] | None]:
    """The definition: pick the smallest offset below m not yet covered; its copy of A must hit nothing covered
    (the first clash in increasing a is reported as (u, u + a))."""
    covered: set[int] = set()
    picks: list[int] = []
    a_sorted = sorted(a_offsets)
    u = 0
    while u < m:
        if u in covered:
            u += 1
            continue
        for a in a_sorted:
            if u + a in covered:
                return picks, (u, u + a)
        covered.update(u + a for a in a_sorted)
        picks.append(u)
        u += 1
    return picks, None


def _block_offsets(n: int, gap: int) -> list[int]:
    """n offsets {0..n/2-1} + {gap + 0..n/2-1}: a two-block A whose copies tile when gap is a multiple of n/2."""
    half = n // 2
    return list(range(half)) + [gap + k for k in range(half)]


@pytest.mark.parametrize("n", [8, 256, 300])
def test_a_tiling_a_is_placed_at_every_forced_offset_without_a_clash(n: int) -> None:
    a = _block_offsets(n, n)  # {0..h-1} + {n..n+h-1}: its copies at 0 and h tile [0, 2n)
    m = 4 * n
    picks, clash = forced_offsets(a, m)
    assert (picks, clash) == _reference(a, m)
    assert clash is None and picks == [0, n // 2, 2 * n, 2 * n + n // 2]


@pytest.mark.parametrize("n", [8, 256, 300])
def test_a_copy_landing_on_a_covered_offset_reports_the_first_clash(n: int) -> None:
    h = n // 2
    a = list(range(h)) + [h + 1 + k for k in range(h)]  # {0..h-1} + {h+1..2h}: offset h is left uncovered
    picks, clash = forced_offsets(a, 3 * n)
    assert (picks, clash) == _reference(a, 3 * n)
    assert picks == [0] and clash == (h, h + 1)  # the copy at h runs into h+1, covered by the copy at 0


def test_both_paths_agree_with_the_definition_on_random_offset_sets() -> None:
    rng = random.Random(17)
    for _ in range(40):
        n = rng.choice([3, 5, 17, 256, 257, 320])
        spread = rng.choice([n, 2 * n, 4 * n])
        a = sorted(rng.sample(range(1, spread), n - 1)) + [0]
        if rng.random() < 0.5:
            a = [0] + [k for k in range(1, n)]  # contiguous: covers everything, one pick per n offsets
        m = rng.choice([1, n, 3 * n + 1])
        assert forced_offsets(a, m) == _reference(a, m), (n, m)


def test_offsets_spaced_by_two_leave_the_odd_offsets_for_the_next_pick() -> None:
    for n in (4, 256):
        a = [2 * k for k in range(n)]
        m = 4 * n
        picks, clash = forced_offsets(a, m)
        assert (picks, clash) == _reference(a, m)
        assert picks[:2] == [0, 1] and clash is None

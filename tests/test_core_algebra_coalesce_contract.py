"""``coalesce``'s contract (CuTe ``coalesce``): the result has the same function on the layout's domain and no
mergeable neighbours; a profile coalesces mode by mode, ``None`` keeps a mode, a nested profile recurses; a
shape is read as its compact layout.  Expected results are worked out by hand from CuTe's merge rule
(``s0:d0, s1:d1`` merge when ``s0*d0 == d1``; size-1 leaves drop) and checked against enumeration."""

from __future__ import annotations

from typing import Any

import pytest

import layoutalg as la
from layoutalg.core import algebra

coalesce: Any = la.coalesce


def _same_function(a: la.Layout, b: la.Layout) -> bool:
    return a.size() == b.size() and all(a(i) == b(i) for i in range(a.size()))


def test_the_core_coalesce_reads_a_shape_as_its_compact_layout() -> None:
    core_coalesce: Any = algebra.coalesce  # annotated for Layouts; the core layer accepts shapes too
    assert core_coalesce((2, (2, 4))) == la.Layout(16, 1)


def test_nested_leaves_merge_across_modes_when_each_continues_the_last_merged_run() -> None:
    a = la.Layout((2, (2, 2)), (1, (8, 16)))
    assert coalesce(a) == la.Layout((2, 4), (1, 8))
    assert _same_function(coalesce(a), a)


def test_only_size_one_leaves_coalesce_to_the_single_zero_mode() -> None:
    assert coalesce(la.Layout((1, (1, 1)), (3, (5, 7)))) == la.Layout(1, 0)


def test_a_none_in_the_profile_keeps_that_mode_and_an_int_coalesces_its_mode() -> None:
    a = la.Layout(((2, 2), (3, 4)), ((1, 2), (4, 12)))
    assert coalesce(a, (None, 1)) == la.Layout(((2, 2), 12), ((1, 2), 4))
    assert coalesce(a, (1, None)) == la.Layout((4, (3, 4)), (1, (4, 12)))


def test_a_nested_profile_coalesces_inside_the_mode_it_names() -> None:
    a = la.Layout((((2, 2), (3, 1)), 5), (((1, 2), (4, 0)), 20))
    r = coalesce(a, ((None, 1), None))
    assert r == la.Layout((((2, 2), 3), 5), (((1, 2), 4), 20))  # (2,2) kept, (3,1):(4,0) -> 3:4
    assert _same_function(r, a)


def test_a_profile_longer_than_the_layout_is_refused_naming_it() -> None:
    with pytest.raises(la.ShapeError, match=r"coalesce profile \(1, 1, 1\) has more modes than the rank-2"):
        coalesce(la.Layout((2, 3), (1, 2)), (1, 1, 1))

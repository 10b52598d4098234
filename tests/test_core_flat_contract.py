"""Contract of `layoutalg.core.flat`: coalescing flat (extent, stride) pairs keeps the function on every
index (the last leaf keeps counting past size), including for no pairs at all."""

from __future__ import annotations

import importlib

import pytest

from layoutalg.core.flat import check_domain, coalesce_extended, coalesce_pairs
from layoutalg.core.layout import Layout
from layoutalg.errors import CompositionError

composition = importlib.import_module("layoutalg.core.composition").composition


def _value(pairs: list[tuple[int, int]], x: int) -> int:
    total = 0
    for k, (s, d) in enumerate(pairs):
        digit = x if k == len(pairs) - 1 else x % s
        total += digit * d
        x //= s
    return total


def test_no_pairs_coalesce_to_no_pairs() -> None:
    assert coalesce_extended([]) == []
    assert coalesce_pairs([]) == []


def test_an_empty_layout_composes_as_the_zero_function() -> None:
    assert composition(Layout(()), Layout(3, 2)) == Layout(3, 0)


def test_coalesce_extended_keeps_the_function_past_size() -> None:
    for pairs in ([(4, 1), (1, 0)], [(2, 1), (2, 2), (3, 0)], [(2, 3), (1, 5), (4, 6)], [(3, 1), (1, 7)]):
        out = coalesce_extended(pairs)
        assert [_value(out, x) for x in range(40)] == [_value(pairs, x) for x in range(40)], pairs


def test_enumeration_is_allowed_up_to_two_to_the_20_offsets_and_refused_past_naming_the_limit() -> None:
    check_domain(1 << 20, "a check")  # at the limit: allowed
    with pytest.raises(CompositionError, match=r"a check: cannot be proved without enumerating 1048577 offsets "
                                               r"\(limit 1048576\)"):
        check_domain((1 << 20) + 1, "a check")

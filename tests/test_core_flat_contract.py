"""Contract of `layoutalg.core.flat`: coalescing flat (extent, stride) pairs keeps the function on every
index (the last leaf keeps counting past size), including for no pairs at all."""

from __future__ import annotations

import importlib

from layoutalg.core.flat import coalesce_extended, coalesce_pairs
from layoutalg.core.layout import Layout

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

"""Contract of `layoutalg.core.flat`: coalescing flat (extent, stride) pairs keeps the function on every
index (the last leaf keeps counting past size), including for no pairs at all."""

from __future__ import annotations

import importlib

import pytest

from layoutalg.core.flat import check_domain, check_injective, coalesce_extended, coalesce_pairs
from layoutalg.core.layout import Layout
from layoutalg.errors import CompositionError, NotInjectiveError

composition = importlib.import_module("layoutalg.core.composition").composition
complement = importlib.import_module("layoutalg.core.complement").complement
weak_complement = importlib.import_module("layoutalg.core.weak_complement").weak_complement


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


def test_coalesce_merges_a_mode_into_the_last_kept_mode_as_pycute_does() -> None:
    import pycute

    # 3:4 does not continue 2:1 (2*1 != 4), 5:12 continues 3:4 (3*4 == 12): only the last kept mode may grow
    pairs = [(2, 1), (3, 4), (5, 12)]
    assert coalesce_pairs(pairs) == [(2, 1), (15, 4)]
    ref = pycute.coalesce(pycute.Layout(tuple(s for s, _ in pairs), tuple(d for _, d in pairs)))
    assert list(zip(ref.shape, ref.stride)) == [(2, 1), (15, 4)]


def test_an_injectivity_refusal_names_two_distinct_flat_indices_of_one_offset() -> None:
    layout = Layout((4, 3), (1, 2))  # flat index 2 = (2, 0) and 4 = (0, 1) both reach offset 2
    assert layout(2) == layout(4) == 2
    with pytest.raises(NotInjectiveError, match=r"maps flat indices 2 and 4 both to offset 2$"):
        weak_complement(layout, 24)


@pytest.mark.parametrize("layout", [Layout(1, 0), Layout((1, 1), (3, 5))], ids=str)
def test_a_layout_of_one_point_is_injective_so_its_complement_is_the_whole_range(layout: Layout) -> None:
    assert complement(layout, 24) == Layout(24, 1)
    assert weak_complement(layout, 24) == Layout(24, 1)


def test_no_pairs_are_injective() -> None:
    check_injective(Layout(1, 0), [], "a check")  # the empty product: one index, one offset; nothing raised

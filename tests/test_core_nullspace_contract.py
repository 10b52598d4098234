"""Contract of ``layoutalg.core.nullspace``: the increasing layout of the indices where a layout is 0, checked
against brute force; layouts whose strides share a sign answer without enumeration (any size); the refusal
lists the first eight zeros and marks more with '...'."""

from __future__ import annotations

import re

import pytest

import layoutalg as la
from layoutalg.core.nullspace import nullspace


def zeros(layout: la.Layout) -> list[int]:
    return [i for i in range(layout.size()) if layout(i) == 0]


@pytest.mark.parametrize("layout", [
    la.Layout((2, 2), (1, -1)),          # mixed signs on size-2 modes: zeros at 0 and 3
    la.Layout((3, 3), (1, -1)),
    la.Layout((2, 3, 2), (2, 0, -2)),
    la.Layout((1, 4, 2), (-5, 0, 3)),    # a size-1 mode's stride does not count
    la.Layout((2, 2, 3), (0, 1, 0)),
    la.Layout((4, 2), (3, -6)),
], ids=str)
def test_nullspace_values_are_exactly_the_zero_indices_in_order(layout: la.Layout) -> None:
    n = nullspace(layout)
    assert [n(j) for j in range(n.size())] == zeros(layout)


@pytest.mark.parametrize("layout", [
    la.Layout((1 << 12, 2, 1 << 12), (1, 0, 2)),          # same-sign strides 1 and 2 with a zero mode
    la.Layout((1 << 12, 2, 1 << 12), (-1, 0, -3)),
    la.Layout((1, 1 << 12, 2, 1 << 12), (-7, 1, 0, 1 << 12)),  # a size-1 mode of the other sign is ignored
    la.Layout((1 << 11, 1 << 11), (0, 0)),
], ids=str)
def test_nullspace_of_a_same_sign_layout_past_the_enumeration_limit_is_its_zero_modes(layout: la.Layout) -> None:
    assert layout.size() > la.core.flat.ENUMERATION_LIMIT
    n = nullspace(layout)
    running, expected = 1, []
    for s, d in zip(la.core.int_tuple.flatten(layout.shape), la.core.int_tuple.flatten(layout.stride)):
        if d == 0 and s != 1:
            expected.append((s, running))
        running *= s
    size = 1
    for s, _ in expected:
        size *= s
    assert n.size() == size
    probes = list(range(min(size, 64))) + [size - 1]
    for j in probes:  # the j-th zero index, written out by its mixed-radix digits over the zero modes
        rest, want = j, 0
        for s, d in expected:
            want += (rest % s) * d
            rest //= s
        assert n(j) == want and layout(n(j)) == 0


@pytest.mark.parametrize("layout, count", [
    (la.Layout((2, 2, 3, 3), (-6, -6, -6, 6)), 8),
    (la.Layout((2, 2, 3, 3), (-6, -6, 0, 3)), 9),
], ids=str)
def test_nullspace_refusal_lists_the_first_eight_zeros_and_dots_only_past_eight(layout: la.Layout, count: int) -> None:
    index = zeros(layout)
    assert len(index) == count
    with pytest.raises(la.CompositionError) as err:
        nullspace(layout)
    listed = ", ".join(str(i) for i in index[:8]) + (", ..." if count > 8 else "")
    found = re.search(r"the indices (.*) are not the values of any layout \(in any order", str(err.value))
    assert found is not None and found.group(1) == listed

"""Contract of ``layoutalg.core.leaf_digits`` through composition past the enumeration limit (2**20 offsets), where
only the digit argument can answer: leaves whose largest digits sum to ``S - 1`` add without a carry (CuTe's sum
is returned), and a carry between B's top-level modes is refuted at its witness, the point where each leaf touching
that digit sits at its largest value there; and a ``Leaf`` is an immutable, hashable value."""

from __future__ import annotations

import dataclasses

import pytest

import layoutalg as la
from layoutalg.core.leaf_digits import Leaf
from layoutalg.errors import CompositionError


def test_three_leaves_filling_a_digit_to_its_extent_minus_one_compose_to_cutes_sum_without_enumerating() -> None:
    # A = (4, 2**26):(1,5): digit 0 has extent 4; B's leaves 2:1, 2:1, 2:1 reach digit values 1 + 1 + 1 = 3 < 4 (their
    # blocks overlap, so no divisor chain proves it), and 2**24:4 sits in the unbounded digit: 2**27 offsets
    a, b = la.Layout((4, 1 << 26), (1, 5)), la.Layout((2, 2, 2, 1 << 24), (1, 1, 1, 4))
    r = la.composition(a, b)
    assert r == la.Layout((2, 2, 2, 1 << 24), (1, 1, 1, 5))
    for c in [(1, 1, 1, 0), (1, 1, 1, 1), (0, 1, 1, (1 << 24) - 1), (1, 0, 1, 12345)]:
        assert r(c) == a(b(c)), c


@pytest.mark.parametrize("b", [
    # A = (2,2,2**27):(1,10,3).  4:1 occupies digits 0 and 1 (two values each), 2:1 digit 0: they carry at digit 0;
    # the witness takes each at its largest digit-0 value (t = 1 and 1): A(1 + 1) = 10, but A(1) + A(1) = 2
    la.Layout((4, 2, 1 << 24), (1, 1, 4)),
    # 2:1 and 2:1 in two modes: A(2) = 10 but A(1) + A(1) = 2
    la.Layout((2, 2, 1 << 24), (1, 1, 4)),
], ids=["two-digit leaf", "one-digit leaves"])
def test_a_carry_between_top_level_modes_is_refused_at_its_witness_without_enumerating(b: la.Layout) -> None:
    a = la.Layout((2, 2, 1 << 27), (1, 10, 3))
    with pytest.raises(CompositionError, match=r"not a sum of per-mode functions .*\(at coordinate \(1, 1, 0\) "
                                               r"A\(B\(c\)\) = 10, but the modes' values sum to 2\)"):
        la.composition(a, b)


def test_a_leaf_is_an_immutable_hashable_value() -> None:
    leaf = Leaf(stride=2, top=0, index_stride=1, places=((0, 2, 2, 1),))
    assert {leaf: 1}[Leaf(2, 0, 1, ((0, 2, 2, 1),))] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        leaf.stride = 4  # type: ignore[misc]

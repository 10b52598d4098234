"""Swizzle<B,M,S>'s parameter domain on both sides of every bound: B, M >= 0, |S| >= B, B <= 64, M and |S| <= 4096."""

from __future__ import annotations

import pytest

from layoutalg.errors import LayoutError
from layoutalg.swizzle.swizzle import Swizzle


@pytest.mark.parametrize("bits, base, shift", [(0, 0, 0), (2, 0, 2), (2, 0, -2), (64, 0, 64), (1, 4096, 1),
                                               (1, 0, 4096), (1, 0, -4096)])
def test_swizzle_parameters_at_the_edges_of_the_domain_are_accepted(bits: int, base: int, shift: int) -> None:
    swizzle = Swizzle(bits, base, shift)
    x = (1 << (base + abs(shift) + bits)) - 1  # every bit the swizzle reads or writes set
    yyy = x & (((1 << bits) - 1) << (base + max(shift, 0)))
    assert swizzle(x) == x ^ (yyy >> shift if shift >= 0 else yyy << -shift)


@pytest.mark.parametrize(
    "bits, base, shift, message",
    [
        (-1, 0, 1, r"bits \(B\) must be >= 0"),
        (0, -1, 0, r"base \(M\) must be >= 0"),
        (2, 0, 1, r"must satisfy \|S\| >= B"),
        (2, 0, -1, r"must satisfy \|S\| >= B"),
        (65, 0, 65, "out of the supported range"),
        (1, 4097, 1, "out of the supported range"),
        (1, 0, 4097, "out of the supported range"),
        (1, 0, -4097, "out of the supported range"),
    ],
)
def test_swizzle_parameters_outside_the_domain_are_refused(bits: int, base: int, shift: int, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        Swizzle(bits, base, shift)

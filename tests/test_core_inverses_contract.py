"""Contract of `layoutalg.core.inverses` at its refusals: left_inverse needs non-negative strides (a
negative one is named with its extent), and on its domain L(A(i)) == i holds by brute force."""

from __future__ import annotations

import pytest

from layoutalg.core.inverses import left_inverse
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError


@pytest.mark.parametrize("layout, stride, extent", [(Layout(4, -1), -1, 4), (Layout((2, 4), (3, -2)), -2, 4)])
def test_left_inverse_refuses_a_negative_stride_naming_it_and_its_extent(layout: Layout, stride: int,
                                                                         extent: int) -> None:
    with pytest.raises(LayoutError, match=rf"left_inverse needs non-negative strides; .* has stride {stride} "
                                          rf"\(extent {extent}\)"):
        left_inverse(layout)


@pytest.mark.parametrize("layout", [Layout((2, 4), (4, 1)), Layout((2, 3), (3, 2)), Layout((3, (2, 2)), (4, (1, 12)))])
def test_left_inverse_sends_every_offset_back_to_its_index(layout: Layout) -> None:
    inverse = left_inverse(layout)
    assert [inverse(layout(i)) for i in range(layout.size())] == list(range(layout.size()))

"""Contract of `layoutalg.core.left_inverse_search` through `left_inverse`: a layout whose strides do not chain
and whose many offsets exhaust the work budget is refused as undecided (CompositionError saying so) quickly,
never answered without a complete search; a small one is decided, and its answer satisfies L(A(i)) == i."""

from __future__ import annotations

import pytest

from layoutalg.core.inverses import left_inverse
from layoutalg.core.layout import Layout
from layoutalg.errors import CompositionError


@pytest.mark.parametrize("layout", [Layout((2, 50000), (3, 7)), Layout((3, 20000), (5, 7))])
def test_a_search_past_its_work_budget_is_refused_as_undecided(layout: Layout) -> None:
    with pytest.raises(CompositionError, match="undecided; its strides do not chain"):
        left_inverse(layout)


def test_a_small_non_chaining_layout_is_decided_and_inverted() -> None:
    layout = Layout((2, 3), (3, 2))
    inverse = left_inverse(layout)
    assert [inverse(layout(i)) for i in range(layout.size())] == list(range(layout.size()))

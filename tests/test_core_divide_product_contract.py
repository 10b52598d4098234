"""Contract of `layoutalg.core.divide_product` at its edges: a ``None`` tiler leaves the layout as it is
(CuTe's ``_``), and the tiled/flat forms refuse a result that is not ``(tile, rest)``."""

from __future__ import annotations

import pytest

from layoutalg.core.divide_product import logical_divide, logical_product, tiled_divide, tiled_product
from layoutalg.core.layout import Layout
from layoutalg.errors import ShapeError


def test_a_none_tiler_leaves_the_layout_unchanged() -> None:
    layout = Layout((4, (2, 3)), (3, (1, 12)))
    assert logical_divide(layout, None) == layout
    assert logical_product(layout, None) == layout


def test_a_none_tiler_on_a_shape_gives_its_compact_layout() -> None:
    assert logical_divide((4, 6), None) == Layout((4, 6), (1, 4))  # type: ignore[arg-type]
    assert logical_product((4, 6), None) == Layout((4, 6), (1, 4))  # type: ignore[arg-type]


@pytest.mark.parametrize("fn", [tiled_divide, tiled_product])
def test_tiled_forms_refuse_a_result_that_is_not_tile_and_rest(fn: object) -> None:
    with pytest.raises(ShapeError, match=r"need a tiler \(got a result 8:1 that is not \(tile, rest\)\)"):
        fn(Layout(8), None)  # type: ignore[operator]


def test_tiled_divide_unpacks_the_rest_modes() -> None:
    a = Layout((8, 6), (1, 8))
    got = tiled_divide(a, (Layout(2, 1), Layout(3, 1)))
    assert got.shape == ((2, 3), 4, 2)
    for t in range(6):
        for r0 in range(4):
            for r1 in range(2):
                i, j = t % 2 + 2 * r0, t // 2 + 3 * r1
                assert got((t, r0, r1)) == a((i, j))

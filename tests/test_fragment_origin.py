"""origin= places the copy tile; every element the fragment needs must then lie inside the smem tile.

An origin past the tile's edge used to be "proved": the layout's formula (CuTe's crd2idx, whose last mode is
unbounded) gives offsets for rows 64.. of a 64-row tile too, so the copy and the fragment agreed on elements the
tile does not have.  PTX ISA (mma.m16n8k16 .f16, A): lane l holds rows l/4 and l/4 + 8, columns 2(l%4) + {0,1}
and + 8, so the 16 x 16 copy tile at (r0, c0) needs rows r0..r0+15 and columns c0..c0+15.
"""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.prove import fragment_delivers, param

F16 = "mma.m16n8k16.f16"
SMEM = Layout((64, 64), (64, 1))


def _expected(r0: int, c0: int) -> str:
    """Row-major f16 rows hold the fragment's k runs; rows of 8 f16 start on 16 bytes iff c0 % 8 == 0."""
    inside = 0 <= r0 and r0 + 16 <= 64 and 0 <= c0 and c0 + 16 <= 64
    return "proved" if inside and c0 % 8 == 0 else "refuted"


@pytest.mark.parametrize("origin", [(0, 0), (48, 48), (56, 0), (64, 0), (-8, 0), (0, 56), (8, 8), (40, 52)])
def test_an_origin_is_proved_only_inside_the_tile(origin: tuple[int, int]) -> None:
    result = fragment_delivers("ldmatrix.x4", SMEM, F16, "A", origin=origin)
    assert result.status == _expected(*origin)
    if result.refuted and "outside" in result.explanation:
        cex = result.counterexample
        assert cex is not None and not (0 <= cex["row"] < 64 and 0 <= cex["col"] < 64)


def test_a_parametric_origin_is_refuted_at_the_first_tile_past_the_edge() -> None:
    p = param("p", 5)  # tiles 0..3 fit, p = 4 starts at row 64
    result = fragment_delivers("ldmatrix.x4", SMEM, F16, "A", origin=(16 * p, 0))
    assert result.refuted and result.counterexample is not None
    assert result.counterexample["p"] == 4 and result.counterexample["row"] >= 64
    assert fragment_delivers("ldmatrix.x4", SMEM, F16, "A", origin=(16 * param("p", 4), 0)).proved

"""The first wrong element is found exactly when smem offsets pass int64 (strides of 2**63 and more).

``first_failure`` and ``tile_coordinate`` evaluated the tile on int64 arrays: a stride past 2**63 raised
OverflowError out of fragment_delivers (after the engines had refuted the claim), and a product past 2**63 would
wrap.  They now take enumeration's rule (Python integers where any value may leave +-2**62).  Expectations come
from the layout itself (``smem(row, col)`` with Python ints) and the PTX ldmatrix table.
"""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.prove import fragment_delivers

F16 = "mma.m16n8k16.f16"
WIDE = 2**64 + 1


@pytest.mark.parametrize("copy, stride", [("ldmatrix.x4.trans", (WIDE, 1)), ("ldmatrix.x4", (1, WIDE)),
                                          ("ldmatrix.x4.trans", (2**63, 1))])
def test_a_wrong_element_past_int64_is_named_exactly(copy: str, stride: tuple[int, int]) -> None:
    smem = Layout((16, 16), stride)
    result = fragment_delivers(copy, smem, F16, "A")
    cex = result.counterexample
    assert result.refuted and cex is not None
    assert cex["expected_element"] == smem(cex["expected_row"], cex["expected_col"])
    assert cex["element"] == smem(cex["row"], cex["col"])
    assert cex["element"] != cex["expected_element"]
    assert max(cex["element"], cex["expected_element"]) >= 2**63


def test_a_misaligned_row_past_int64_is_named_exactly() -> None:
    smem = Layout((16, (8, 2)), (8, (1, WIDE)))  # k = 8.. starts at element 2**64 + 1: byte 2**65 + 2
    result = fragment_delivers("ldmatrix.x4", smem, F16, "A")
    cex = result.counterexample
    assert result.refuted and cex is not None
    assert cex["element"] == smem(cex["row"], cex["col"]) and cex["byte_address"] == 2 * cex["element"]
    assert cex["byte_address"] % 16 != 0


def test_kernel_addresses_past_int64_are_reported_not_crashed() -> None:
    """addresses= with rows past 2**64 raised OverflowError while the lane table was built on int64 lanes; the
    row address lies outside the 16 x 16 tile (or names no element), so the claim is refuted."""
    result = fragment_delivers("ldmatrix.x4", Layout((16, 16), (16, 1)), F16, "A",
                               addresses=lambda lane: (lane % 16 + 2**70, 8 * (lane // 16)))
    assert result.refuted
    assert result.addresses[0][0] == (2**70, 0)

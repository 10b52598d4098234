"""Inputs the fragment terms take from the kernel author: origin=, addresses= with a part, along='row'."""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import fragment_delivers

F16 = "mma.m16n8k16.f16.f16.f16.f16"
ROW_MAJOR_64 = Layout((64, 64), (64, 1))


@pytest.mark.parametrize("origin", [5, (0, 0, 0)])
def test_an_origin_that_is_not_a_row_col_pair_is_refused(origin: object) -> None:
    with pytest.raises(ProofError, match=r"^origin must be \(row, col\) of the copy tile's first element"):
        fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A", origin=origin)


def test_addresses_taking_lane_and_part_are_called_with_the_part() -> None:
    """ldmatrix.x2 over A: part p moves A's k columns 8 p .. 8 p + 7; lane l supplies row l % 16 of them."""
    result = fragment_delivers("ldmatrix.x2", ROW_MAJOR_64, F16, "A", origin=(0, 0),
                               addresses=lambda lane, part: (lane % 16, 8 * part))
    assert result.proved


def test_two_b_fragments_stacked_with_along_row_are_delivered_from_a_32x8_tile() -> None:
    """x4.trans over B with along='row': fragment 1 sits 16 rows (k) below fragment 0, so lane l (row l % 8 of
    matrix l / 8, matrices k-ordered) supplies k = l, n = 0."""
    stacked = Layout((32, 8), (8, 1))
    assert fragment_delivers("ldmatrix.x4.trans", stacked, F16, "B", along="row", addresses=lambda lane: (lane, 0)).proved

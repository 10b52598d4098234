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


def _x4_a_rows(lane: object) -> tuple[object, object]:
    """ldmatrix.x4 over A (16 x 16): matrices 0, 1 are k columns 0..7 (rows 0..7, 8..15), matrices 2, 3 columns 8..15."""
    return lane % 16, 8 * (lane // 16)  # type: ignore[operator]


def test_addresses_wrong_only_at_the_last_lane_are_refuted_there() -> None:
    from layoutalg.prove import expr as ex

    assert fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A", origin=(0, 0), addresses=_x4_a_rows).proved

    def off_at_lane_31(lane: ex.Expr) -> tuple[object, object]:
        row, col = _x4_a_rows(lane)
        return row, col + ex.ite(lane == 31, 1, 0)

    result = fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A", origin=(0, 0), addresses=off_at_lane_31)
    # lane 31 supplies row 15 of matrix 3 (k columns 8..15); the wrong start (15, 9) is what some lane receives
    assert result.refuted and result.counterexample is not None
    assert (result.counterexample["row"], result.counterexample["col"]) == (15, 9)


def test_addresses_that_are_not_callable_are_refused() -> None:
    with pytest.raises(ProofError, match=r"^addresses must be a function lane -> \(row, col\) in the copy tile, got 5"):
        fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A", addresses=5)


def test_addresses_that_fail_on_a_symbolic_lane_are_refused_with_the_error() -> None:
    def by_table(lane: object) -> tuple[int, int]:
        return [(r, 0) for r in range(32)][lane]  # type: ignore[index, call-overload]

    with pytest.raises(ProofError, match=r"^addresses: calling it on a symbolic lane failed: ProofError: "):
        fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A", addresses=by_table)


def test_addresses_returning_something_other_than_a_pair_are_refused() -> None:
    with pytest.raises(ProofError, match=r"^addresses\(lane\) must return \(row, col\) of the copy tile, got "):
        fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A", addresses=lambda lane: (lane, 0, 0))


def test_addresses_whose_signature_cannot_be_read_are_called_with_the_lane_only() -> None:
    class Rows:
        __signature__ = "not a signature"  # inspect.signature raises TypeError on it

        def __call__(self, *args: object) -> tuple[object, object]:
            assert len(args) == 1, "called with a part"
            return _x4_a_rows(args[0])

    assert fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A", origin=(0, 0), addresses=Rows()).proved


@pytest.mark.parametrize("mma, cols", [("mma.m16n8k32.s8", 32), ("mma.m16n8k64.s4", 64)])
def test_ldmatrix_x4_over_row_major_narrow_a_delivers_every_byte_and_nibble(mma: str, cols: int) -> None:
    """PTX ISA: the s8 (s4) A fragment of m16n8k32 (m16n8k64) gives lane (g, t) the 4 (8) consecutive elements of row
    g starting at column 4t (8t) -- the 4 bytes ldmatrix's b16 pair (g, 2t), (g, 2t + 1) holds when k is contiguous.
    So every sub-element (byte, nibble) index lands on its own element: proved."""
    result = fragment_delivers("ldmatrix.x4", Layout((16, cols), (cols, 1)), mma, "A", origin=(0, 0))
    assert result.proved, result.explanation

"""What a fragment theorem reports, read off the ldmatrix / mma.m16n8k16 definitions in the PTX ISA.

ldmatrix.x4: lane ``8 i + r`` supplies the address of row ``r`` of matrix ``i``; lane ``l`` (g = l / 4, t = l % 4)
receives elements ``(g, 2t)`` and ``(g, 2t + 1)`` of each matrix.  A register i of mma.m16n8k16 holds
``A(g + 8 (i % 2), 2t + h + 8 (i // 2))``, so A's four 8 x 8 matrices sit at (m, k) = (0, 0), (8, 0), (0, 8), (8, 8).
"""

from __future__ import annotations

from layoutalg.core.layout import Layout
from layoutalg.prove import fragment_delivers, ite

F16 = "mma.m16n8k16.f16.f16.f16.f16"
ROW_MAJOR_64 = Layout((64, 64), (64, 1))


def test_ldmatrix_x4_a_row_addresses_are_summarised_per_matrix_as_ranges() -> None:
    result = fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A")
    assert result.proved
    assert result.notes == ("row addresses (m, k) in the copy tile: lanes 0-7 -> (0..7, 0); lanes 8-15 -> (8..15, 0); "
                            "lanes 16-23 -> (0..7, 8); lanes 24-31 -> (8..15, 8)",)


def test_ldmatrix_x1_a_row_addresses_are_listed_per_part_of_the_fragment() -> None:
    """x1 moves one matrix: A's four registers are four parts, each one matrix of A."""
    result = fragment_delivers("ldmatrix.x1", ROW_MAJOR_64, F16, "A")
    assert result.proved
    assert result.notes == ("row addresses (m, k) in the copy tile: part 0: lanes 0-7 -> (0..7, 0) | "
                            "part 1: lanes 0-7 -> (8..15, 0) | part 2: lanes 0-7 -> (0..7, 8) | part 3: lanes 0-7 -> (8..15, 8)",)


def test_swapped_row_addresses_are_listed_point_by_point_and_the_first_wrong_lane_is_reported() -> None:
    """Lanes 1 and 2 swap rows 1 and 2 of matrix 0.  Lanes 0-3 receive row 0 (right); lane 4 (g = 1) is the first to
    get the wrong row: A(m=2, k=0), element 2 * 64 = 128, byte 256, instead of a0 = A(m=1, k=0), element 64, byte 128."""
    swapped = lambda lane: (ite(lane == 1, 2, ite(lane == 2, 1, lane % 16)), 8 * (lane // 16))  # noqa: E731
    result = fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A", addresses=swapped)
    assert result.refuted
    assert result.counterexample == {"m_tile": 0, "k_tile": 0, "lane": 4, "reg": 0, "half": 0, "row": 2, "col": 0,
                                     "element": 128, "byte_address": 256, "expected_row": 1, "expected_col": 0,
                                     "expected_element": 64, "expected_byte_address": 128}
    assert result.explanation == ("at m_tile=0, k_tile=0: lane 4, register 0, half 0 gets smem element 128 (byte 256), "
                                  "which is A(m=2, k=0); the mma fragment has a0 = A(m=1, k=0) there, at smem element 64")
    assert result.notes == ("row addresses (m, k) in the copy tile: lanes 0-7 -> (0, 0) (2, 0) (1, 0) (3, 0) (4, 0) "
                            "(5, 0) (6, 0) (7, 0); lanes 8-15 -> (8..15, 0); lanes 16-23 -> (0..7, 8); "
                            "lanes 24-31 -> (8..15, 8)",)


def test_a_row_address_past_the_tile_delivers_no_element_of_the_tile() -> None:
    """Lane 9 supplies row 16 of a 16 x 16 tile (element 256): lane 4's a2 = A(m=9, k=0), element 144, byte 288,
    is the first element that comes from it."""
    past = lambda lane: (ite(lane == 9, 16, lane % 16), 8 * (lane // 16))  # noqa: E731
    result = fragment_delivers("ldmatrix.x4", Layout((16, 16), (16, 1)), F16, "A", addresses=past)
    assert result.refuted
    assert result.counterexample == {"lane": 4, "reg": 1, "half": 0, "element": 256, "byte_address": 512,
                                     "expected_row": 9, "expected_col": 0, "expected_element": 144,
                                     "expected_byte_address": 288}
    assert result.explanation == ("at lane 4, register 1, half 0 gets smem element 256 (byte 512), which is no element "
                                  "of the tile; the mma fragment has a2 = A(m=9, k=0) there, at smem element 144")


def test_rows_20_elements_apart_are_refuted_as_misaligned_at_lane_1() -> None:
    """Row 1 starts at element 20 = byte 40, not a multiple of 16 (lane 0's row 0 at byte 0 is aligned)."""
    result = fragment_delivers("ldmatrix.x4", Layout((16, 16), (20, 1)), F16, "A")
    assert result.refuted
    assert result.counterexample == {"lane": 1, "matrix": 0, "matrix_row": 1, "row": 1, "col": 0,
                                     "element": 20, "byte_address": 40}
    assert result.explanation == ("at lane 1 supplies row 1 of matrix 0, A(m=1, k=0) at smem element 20, byte 40, "
                                  "which is not 16-byte aligned (each row of an 8 x 8 b16 matrix is 16 contiguous "
                                  "bytes starting on a 16-byte boundary)")


def _swap_rows_1_and_2(lane: object) -> tuple[object, object]:
    return ite(lane == 1, 2, ite(lane == 2, 1, lane % 16)), 8 * (lane // 16)  # type: ignore[operator]


def test_a_2048x2048_tile_is_still_searched_so_the_wrong_element_is_named_by_row_and_col() -> None:
    """2048 x 2048 = 2**22 elements, the search limit itself: the element found (2 * 2048) is named A(m=2, k=0)."""
    result = fragment_delivers("ldmatrix.x4", Layout((2048, 2048), (2048, 1)), F16, "A", addresses=_swap_rows_1_and_2)
    assert result.refuted
    cex = result.counterexample or {}
    assert (cex["lane"], cex["reg"], cex["half"], cex["row"], cex["col"], cex["element"]) == (4, 0, 0, 2, 0, 4096)
    assert "which is A(m=2, k=0);" in result.explanation


def test_a_row_past_a_2048x2048_tile_is_reported_as_no_element_of_the_tile() -> None:
    past = lambda lane: (ite(lane == 9, 2048, lane % 16), 8 * (lane // 16))  # noqa: E731
    result = fragment_delivers("ldmatrix.x4", Layout((2048, 2048), (2048, 1)), F16, "A", addresses=past, origin=(0, 0))
    assert result.refuted
    assert (result.counterexample or {})["element"] == 2048 * 2048
    assert "which is no element of the tile;" in result.explanation


def test_a_tile_above_the_search_limit_says_the_element_was_not_searched_for() -> None:
    result = fragment_delivers("ldmatrix.x4", Layout((4096, 4096), (4096, 1)), F16, "A", addresses=_swap_rows_1_and_2)
    assert result.refuted
    cex = result.counterexample or {}
    assert "row" not in cex and cex["element"] == 2 * 4096
    assert "which is an element of the tile not searched for;" in result.explanation


def test_f32_accumulator_counterexamples_name_the_16_bit_half_matching_the_byte_address() -> None:
    """32-bit C elements move as two 16-bit units: byte = 4 * element + 2 for the high half."""
    result = fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, "mma.m16n8k16.bf16", "C", addresses=_swap_rows_1_and_2)
    assert result.refuted
    cex = result.counterexample or {}
    got_high = "which is the high 16 bits of" in result.explanation
    want_high = "has the high 16 bits of" in result.explanation
    assert got_high or "which is the low 16 bits of" in result.explanation
    assert want_high or "has the low 16 bits of" in result.explanation
    assert cex["byte_address"] == 4 * cex["element"] + 2 * got_high
    assert cex["expected_byte_address"] == 4 * cex["expected_element"] + 2 * want_high
    assert cex["expected_element"] == 64 * cex["expected_row"] + cex["expected_col"]


def test_a_4096x2048_tile_is_above_the_search_limit() -> None:
    """2**23 elements: past the 2**22 limit, so the wrong element is not looked up."""
    result = fragment_delivers("ldmatrix.x4", Layout((4096, 2048), (2048, 1)), F16, "A", addresses=_swap_rows_1_and_2)
    assert result.refuted
    assert "row" not in (result.counterexample or {})
    assert "which is an element of the tile not searched for;" in result.explanation


def test_ldmatrix_x2_a_row_addresses_are_listed_for_both_parts() -> None:
    result = fragment_delivers("ldmatrix.x2", ROW_MAJOR_64, F16, "A")
    assert result.proved
    assert result.notes == ("row addresses (m, k) in the copy tile: part 0: lanes 0-7 -> (0..7, 0); lanes 8-15 -> "
                            "(8..15, 0) | part 1: lanes 0-7 -> (0..7, 8); lanes 8-15 -> (8..15, 8)",)


def test_ldmatrix_x2_b_without_trans_on_k_major_rows_lists_column_runs() -> None:
    """Without .trans each ldmatrix row is one n of B, so the only addresses that can work walk n = 0..7."""
    result = fragment_delivers("ldmatrix.x2", ROW_MAJOR_64, F16, "B")
    assert result.refuted
    assert result.notes[0] == "row addresses (k, n) in the copy tile: lanes 0-7 -> (0, 0..7); lanes 8-15 -> (8, 0..7)"


def test_a_misaligned_second_matrix_is_reported_at_lane_8_row_0_of_matrix_1() -> None:
    """Rows 0-7 are 32 bytes apart (aligned); row 8 starts at element 132 = byte 264 (8 past a 16-byte boundary)."""
    result = fragment_delivers("ldmatrix.x4", Layout(((8, 2), 16), ((16, 132), 1)), F16, "A")
    assert result.refuted
    assert result.counterexample == {"lane": 8, "matrix": 1, "matrix_row": 0, "row": 8, "col": 0,
                                     "element": 132, "byte_address": 264}
    assert result.explanation.startswith("at lane 8 supplies row 0 of matrix 1, A(m=8, k=0) at smem element 132, byte 264")


def test_a_misaligned_row_is_reported_in_tile_coordinates_including_the_origin() -> None:
    """origin (16, 0) over rows 20 elements apart: row 16 (byte 640) is aligned, row 17 (element 340, byte 680) not."""
    result = fragment_delivers("ldmatrix.x4", Layout((32, 16), (20, 1)), F16, "A", origin=(16, 0))
    assert result.refuted
    assert result.counterexample == {"lane": 1, "matrix": 0, "matrix_row": 1, "row": 17, "col": 0,
                                     "element": 340, "byte_address": 680}


def test_a_misaligned_first_row_at_column_4_is_reported_as_misaligned_not_outside() -> None:
    """origin (0, 4): lane 0's row starts at element 4 = byte 8, inside the 16 x 32 tile but not 16-byte aligned."""
    result = fragment_delivers("ldmatrix.x4", Layout((16, 32), (32, 1)), F16, "A", origin=(0, 4))
    assert result.refuted
    assert result.counterexample == {"lane": 0, "matrix": 0, "matrix_row": 0, "row": 0, "col": 4,
                                     "element": 4, "byte_address": 8}
    assert "not 16-byte aligned" in result.explanation

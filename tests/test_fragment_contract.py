"""fragment_delivers at its edges: required arguments, time limits, the notes it adds, its dict form."""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, ShapeError
from layoutalg.prove import fragment_delivers, ite

F16 = "mma.m16n8k16.f16.f16.f16.f16"
ROW_MAJOR = Layout((64, 64), (64, 1))
ONLY_ADDRESSES_NOTE = "these are the only row addresses that put the right element in column 0 of every row"


@pytest.mark.parametrize(("mma", "operand"), [(None, "A"), (F16, None)])
def test_fragment_delivers_needs_both_mma_and_operand(mma: str | None, operand: str | None) -> None:
    with pytest.raises(LayoutError, match=r"^fragment_delivers needs mma= .* and operand= "):
        fragment_delivers("ldmatrix.x4", ROW_MAJOR, mma, operand)


def test_fragment_delivers_under_a_time_limit_gives_its_verdict() -> None:
    assert fragment_delivers("ldmatrix.x4", ROW_MAJOR, F16, "A", timeout=60).proved


def test_fragment_delivers_out_of_time_is_unknown_naming_the_undecided_part_and_why() -> None:
    r = fragment_delivers("ldmatrix.x4", ROW_MAJOR, F16, "A", timeout=1e-9)
    assert r.status == "unknown"
    assert r.explanation.startswith("undecided: copy_moves == mma_holds")
    assert any("stopped at the time limit" in note for note in r.notes)


def test_a_proved_fragment_has_only_the_address_note() -> None:
    r = fragment_delivers("ldmatrix.x4", ROW_MAJOR, F16, "A")
    assert r.proved and len(r.notes) == 1 and r.notes[0].startswith("row addresses (m, k) in the copy tile")


def test_read_smem_of_another_shape_is_refused() -> None:
    with pytest.raises(ShapeError, match=r"^read_smem \(32,32\):\(32,1\) must have the shape of smem"):
        fragment_delivers("ldmatrix.x4", ROW_MAJOR, F16, "A", read_smem=Layout((32, 32), (32, 1)))


def test_a_non_injective_smem_is_refuted_with_two_coordinates_of_one_element() -> None:
    r = fragment_delivers("ldmatrix.x4", Layout((64, 64), (0, 1)), F16, "A")
    assert r.refuted and r.explanation.startswith("smem is not injective")
    cex = r.counterexample or {}
    assert sorted(cex) == sorted(["m", "k", "m'", "k'", "smem"])
    assert cex["k"] == cex["k'"] == cex["smem"] and cex["m"] != cex["m'"]


def test_derived_addresses_that_fail_say_no_other_addresses_can_work() -> None:
    """Rows 68 bytes apart: only the row-alignment check fails, and no choice of addresses could fix that."""
    r = fragment_delivers("ldmatrix.x4", Layout((32, 32), (34, 1)), F16, "A")
    assert r.refuted and "16-byte aligned" in r.explanation
    assert any(note.startswith(ONLY_ADDRESSES_NOTE) for note in r.notes)


def test_kernel_addresses_that_fail_do_not_claim_no_other_addresses_work() -> None:
    wrong = lambda lane: (lane % 8, 8 * (lane // 8))  # noqa: E731
    r = fragment_delivers("ldmatrix.x4", ROW_MAJOR, F16, "A", addresses=wrong)
    assert r.refuted
    assert not any(note.startswith(ONLY_ADDRESSES_NOTE) for note in r.notes)


def test_fragment_result_dict_has_the_address_table_and_notes() -> None:
    r = fragment_delivers("ldmatrix.x4", ROW_MAJOR, F16, "A")
    d = r.to_dict()
    assert d["status"] == "proved"
    assert d["addresses"] == [[list(rc) for rc in lanes] for lanes in r.addresses]
    assert d["addresses"][0][:2] == [[0, 0], [1, 0]] and d["addresses"][0][16] == [0, 8]
    assert d["notes"] == list(r.notes)


def test_kernel_addresses_outside_the_tile_are_refuted_even_when_they_alias_the_right_element() -> None:
    """In ((2, 32), 64):((2048, 64), 1) row 2k + 64 is stored where row 2k + 1 is, so lanes 29 and 31 pointing
    at rows 76 and 78 still move the right elements; the row check over all 32 lanes refutes them."""
    smem = Layout(((2, 32), 64), ((2048, 64), 1))
    right = lambda lane: (lane % 16, 8 * (lane // 16))  # noqa: E731
    tail = lambda lane: (lane % 16 + 63 * (lane // 28) * (lane % 2), 8 * (lane // 16))  # noqa: E731
    assert fragment_delivers("ldmatrix.x4", smem, F16, "A", addresses=right).proved
    r = fragment_delivers("ldmatrix.x4", smem, F16, "A", addresses=tail)
    assert r.refuted
    cex = r.counterexample or {}
    assert cex["lane"] in (29, 31) and cex["row"] == cex["lane"] % 16 + 63 and cex["col"] == 8
    assert "outside the 64 x 64 smem tile" in r.explanation


@pytest.mark.parametrize(("copy", "smem", "operand", "kw", "phrases"), [
    ("ldmatrix.x4", ROW_MAJOR, "A", {}, [" delivers the ", "A fragment (a0..a7; 16 x 16 per instruction)"]),
    ("stmatrix.x4", ROW_MAJOR, "C", {}, [" stores the ", "C fragment (c0..c3, 2 fragments along n; 16 x 16 per instruction)"]),
    ("ldmatrix.x4.trans", ROW_MAJOR, "B", {"along": "row"}, ["B fragment (b0..b3, 2 fragments along k; 32 x 8 per"]),
    ("ldmatrix.x1", ROW_MAJOR, "A", {}, ["A fragment (a0..a7, 16 x 16; registers 1 * part .. of its 4 per instruction)"]),
    ("ldmatrix.x2", ROW_MAJOR, "A", {}, ["A fragment (a0..a7, 16 x 16; registers 2 * part .. of its 4 per instruction)"]),
])
def test_fragment_claim_text_says_the_direction_and_how_the_fragment_is_split(
    copy: str, smem: Layout, operand: str, kw: dict[str, str], phrases: list[str]
) -> None:
    r = fragment_delivers(copy, smem, F16, operand, **kw)  # type: ignore[arg-type]
    assert r.proved
    for phrase in phrases:
        assert phrase in r.claim
    assert "of one warp" not in r.claim


def test_fragment_claim_text_of_a_wgmma_names_one_warp_of_the_warpgroup() -> None:
    from layoutalg.atoms import wgmma

    r = fragment_delivers("stmatrix.x4", Layout((64, 16), (16, 1)), wgmma(16, "f16", "f16", "reg"), "C")
    assert r.proved
    assert "C fragment (c0..c7 of one warp, rows 16 * m_tile.. of the warpgroup's 64; 16 x 16 per instruction)" in r.claim


def test_fragment_result_lists_the_address_of_every_lane_and_its_own_duration() -> None:
    import time

    before = time.perf_counter()
    r = fragment_delivers("ldmatrix.x4", ROW_MAJOR, F16, "A")
    elapsed = time.perf_counter() - before
    assert [len(lanes) for lanes in r.addresses] == [32]
    assert r.addresses[0][31] == (15, 8)
    assert 0 <= r.seconds <= elapsed


@pytest.mark.parametrize(("row", "col"), [(64, 0), (0, 64)])
def test_kernel_addresses_one_past_the_tile_are_refuted(row: int, col: int) -> None:
    """In ((2, 32), 64):((2048, 64), 1), (64, 0) is stored where row 1 is and (0, 64) where row 2 is: lane 1 or 2
    pointing there moves the right elements, but the address lies just outside the 64 x 64 tile (copy tile at 0, 0)."""
    from layoutalg.prove import ite

    smem = Layout(((2, 32), 64), ((2048, 64), 1))
    lane_at = 1 if row else 2
    addresses = lambda lane: (ite(lane == lane_at, row, lane % 16), ite(lane == lane_at, col, 8 * (lane // 16)))  # noqa: E731
    r = fragment_delivers("ldmatrix.x4", smem, F16, "A", addresses=addresses, origin=(0, 0))
    assert r.refuted
    assert (r.counterexample or {})["lane"] == lane_at
    assert "outside the 64 x 64 smem tile" in r.explanation


def test_movmatrix_refuses_an_sm70_source_mma_by_name() -> None:
    from layoutalg.errors import InstructionError

    with pytest.raises(InstructionError, match=r"^SM70_8x8x4_F16F16F16F16_TN: sm70 quad-pair MMAs do not hold warp-wide"):
        fragment_delivers("movmatrix", mma=F16, operand="A", source="C", source_mma="mma.m8n8k4.f16.f16.f16.f16",
                          transpose=True)


def test_a_delivery_counterexample_gives_both_elements_byte_addresses() -> None:
    wrong = lambda lane: (lane % 8, 8 * (lane // 8))  # noqa: E731
    r = fragment_delivers("ldmatrix.x4", ROW_MAJOR, F16, "A", addresses=wrong)
    cex = r.counterexample or {}
    assert r.refuted and cex["element"] != cex["expected_element"]
    assert cex["byte_address"] == 2 * cex["element"] and cex["expected_byte_address"] == 2 * cex["expected_element"]
    assert cex["expected_element"] == 64 * cex["expected_row"] + cex["expected_col"]


def test_a_kernel_row_address_outside_the_tile_is_reported_before_a_later_misaligned_lane() -> None:
    """Rows 20 elements apart: every odd row starts 8 bytes past a 16-byte boundary, so lane 1 is misaligned.  Lane 0
    supplies (1, -20) instead of (0, 0): the same element 0 (aligned, the right element, so the copy still delivers),
    but outside the 16 x 16 tile (column -20).  The first lane that breaks the row rule is lane 0, not lane 1."""

    def addresses(lane: object) -> tuple[object, object]:
        return ite(lane == 0, 1, lane % 16), ite(lane == 0, -20, 8 * (lane // 16))  # type: ignore[operator]

    r = fragment_delivers("ldmatrix.x4", Layout((16, 16), (20, 1)), F16, "A", addresses=addresses)
    assert r.refuted
    assert r.counterexample == {"lane": 0, "matrix": 0, "matrix_row": 0, "row": 1, "col": -20}
    assert r.explanation == "at lane 0 supplies row 0 of matrix 0, A(m=1, k=-20), outside the 16 x 16 smem tile"

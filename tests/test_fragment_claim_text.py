"""The claim a fragment theorem states: copy, smem, verb, fragment, tiling and every quantified variable."""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError
from layoutalg.prove import fragment_delivers

F16 = "mma.m16n8k16.f16.f16.f16.f16"
ROW_MAJOR_64 = Layout((64, 64), (64, 1))
TAIL = " (rows 16-byte aligned, smem injective)"


def test_claim_quantifies_every_16x16_tile_of_a_64x64_smem() -> None:
    result = fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A")
    assert result.claim == ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 over (64,64):(64,1) delivers the "
                            "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 A fragment (a0..a7; 16 x 16 per "
                            "instruction) for every lane, register, half and m_tile in [0, 4), k_tile in [0, 4)" + TAIL)


def test_claim_for_one_tile_names_only_lane_register_and_half() -> None:
    result = fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, F16, "A", origin=(0, 0))
    assert result.claim.endswith("A fragment (a0..a7; 16 x 16 per instruction) for every lane, register, half" + TAIL)


def test_claim_for_x2_over_a_names_the_part_selecting_half_the_registers() -> None:
    result = fragment_delivers("ldmatrix.x2", ROW_MAJOR_64, F16, "A", origin=(0, 0))
    assert result.claim.endswith("A fragment (a0..a7, 16 x 16; registers 2 * part .. of its 4 per instruction) for "
                                 "every lane, register, half and part in [0, 2)" + TAIL)


def test_claim_for_x4_trans_over_b_counts_the_fragments_along_n() -> None:
    result = fragment_delivers("ldmatrix.x4.trans", ROW_MAJOR_64, F16, "B", origin=(0, 0))
    assert result.claim.endswith("B fragment (b0..b3, 2 fragments along n; 16 x 16 per instruction) for every lane, "
                                 "register, half" + TAIL)


def test_claim_for_stmatrix_of_converted_accumulators_says_stores_and_names_the_held_type() -> None:
    result = fragment_delivers("stmatrix.x4", ROW_MAJOR_64, "mma.m16n8k16.bf16", "C", dtype="bf16", origin=(0, 0))
    assert " over (64,64):(64,1) stores the mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 C fragment " in result.claim
    assert result.claim.endswith("(c0..c3, 2 fragments along n; 16 x 16 per instruction) as bf16 for every lane, "
                                 "register, half" + TAIL)


def test_claim_for_8_bit_a_also_quantifies_the_byte() -> None:
    result = fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, "mma.m16n8k32.s8", "A", origin=(0, 0))
    assert result.claim.endswith("A fragment (a0..a15; 16 x 32 per instruction) for every lane, register, half, byte"
                                 + TAIL)


@pytest.mark.parametrize("missing", ["mma", "operand"])
def test_fragment_delivers_without_mma_or_operand_is_refused_with_an_example(missing: str) -> None:
    kw = {"mma": F16, "operand": "A"}
    del kw[missing]
    with pytest.raises(LayoutError, match=r"^fragment_delivers needs mma= \(e\.g\. 'mma\.m16n8k16\.f16'\) and operand="):
        fragment_delivers("ldmatrix.x4", ROW_MAJOR_64, **kw)

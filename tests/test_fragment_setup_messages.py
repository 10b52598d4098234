"""An smem tile that is not a whole number of copy tiles is refused with the nearest size that works."""

from __future__ import annotations

from typing import Any

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import ShapeError
from layoutalg.prove import fragment_delivers

F16 = "mma.m16n8k16.f16.f16.f16.f16"


def _refusal(copy: str, rows: int, cols: int, operand: str, **kw: Any) -> str:
    with pytest.raises(ShapeError) as info:
        fragment_delivers(copy, Layout((rows, cols), (cols, 1)), F16, operand, **kw)
    return str(info.value)


def test_a_40x16_smem_for_ldmatrix_x4_a_suggests_32x16_without_an_along_hint() -> None:
    """One x4 copy of A carries 16 x 16; 40 rows round down to 32 (A is one fragment, so along= does not apply)."""
    message = _refusal("ldmatrix.x4", 40, 16, "A")
    assert "is 40 x 16, but one ldmatrix.sync.aligned.m8n8.x4.shared.b16 carries a 16 x 16 (m x k) tile" in message
    assert message.endswith("(e.g. 32 x 16)")


def test_a_16x40_smem_for_ldmatrix_x4_a_suggests_16x32() -> None:
    assert _refusal("ldmatrix.x4", 16, 40, "A").endswith("(e.g. 16 x 32)")


def test_an_8x16_smem_smaller_than_the_copy_tile_suggests_the_copy_tile() -> None:
    assert _refusal("ldmatrix.x4", 8, 16, "A").endswith("(e.g. 16 x 16)")


def test_two_b_fragments_side_by_side_suggest_along_row_when_the_columns_do_not_fit() -> None:
    """x4.trans over B carries two 16 x 8 fragments along n (16 x 16); 24 columns do not fit, stacking them might."""
    assert _refusal("ldmatrix.x4.trans", 16, 24, "B").endswith("(e.g. 16 x 16); or pass along='row'")


def test_two_b_fragments_stacked_along_rows_get_no_along_hint() -> None:
    """along='row' stacks the two 16 x 8 fragments into 32 x 8; 16 rows do not fit and the hint is not repeated."""
    message = _refusal("ldmatrix.x4.trans", 16, 8, "B", along="row")
    assert "carries a 32 x 8 (k x n) tile" in message
    assert message.endswith("(e.g. 32 x 8)")


def test_a_rank_3_smem_is_refused_asking_for_rows_and_cols() -> None:
    with pytest.raises(ShapeError, match=r"must have rank 2, \(rows, cols\) of operand A = \(m, k\)"):
        fragment_delivers("ldmatrix.x4", Layout((16, 4, 4), (16, 4, 1)), F16, "A")


@pytest.mark.parametrize("dtype", [5, "f99"])
def test_an_unknown_dtype_is_refused_listing_the_known_ones(dtype: object) -> None:
    from layoutalg.errors import LayoutError

    with pytest.raises(LayoutError, match=r"^dtype must be one of .*f16.*, got "):
        fragment_delivers("ldmatrix.x4", Layout((16, 16), (16, 1)), F16, "A", dtype=dtype)  # type: ignore[arg-type]


def test_ldmatrix_for_an_sm70_quad_pair_mma_is_refused_naming_an_sm75_alternative() -> None:
    from layoutalg.errors import InstructionError

    with pytest.raises(InstructionError, match=r"sm70 mma\.m8n8k4 splits the warp into four quad-pair MMAs"):
        fragment_delivers("ldmatrix.x4", Layout((16, 16), (16, 1)), "mma.m8n8k4.f16.f16.f16.f16", "A")


def test_claim_for_4_bit_a_quantifies_the_nibble() -> None:
    result = fragment_delivers("ldmatrix.x4", Layout((64, 64), (64, 1)), "mma.m16n8k64.s4", "A", origin=(0, 0))
    assert result.claim.endswith("for every lane, register, half, nibble (rows 16-byte aligned, smem injective)")


def test_claim_for_8_bit_a_quantifies_the_byte() -> None:
    result = fragment_delivers("ldmatrix.x4", Layout((32, 32), (32, 1)), "mma.m16n8k32.s8", "A", origin=(0, 0))
    assert result.claim.endswith("for every lane, register, half, byte (rows 16-byte aligned, smem injective)")


def test_a_copy_atom_bound_to_another_width_than_the_operand_is_refused() -> None:
    from layoutalg.atoms.short_names import copy_atom
    from layoutalg.errors import LayoutError

    atom, _ = copy_atom("ldmatrix.x4")
    with pytest.raises(LayoutError, match=r"bound to 32-bit values .* holds 16-bit f16: bind it to 16 bits"):
        fragment_delivers(atom.bind(32), Layout((16, 16), (16, 1)), F16, "A")
    assert fragment_delivers(atom.bind(16), Layout((16, 16), (16, 1)), F16, "A").proved


def test_a_dtype_that_leaves_a_register_part_filled_is_refused() -> None:
    from layoutalg.errors import InstructionError

    # the f64 mma's A is one element a lane: as f16 that is 16 bits, half a 32-bit register
    with pytest.raises(InstructionError, match=r"1 elements of 16 bits do not fill whole 32-bit registers"):
        fragment_delivers("ldmatrix.x1", Layout((8, 4), (4, 1)), "mma.m8n8k4.f64", "A", dtype="f16")


def test_an_unknown_along_is_refused_naming_the_two_choices() -> None:
    from layoutalg.errors import LayoutError

    with pytest.raises(LayoutError, match=r"^along must be 'col' or 'row' .*got 'diag'"):
        fragment_delivers("ldmatrix.x4", Layout((16, 16), (16, 1)), F16, "A", along="diag")


def test_movmatrix_given_an_smem_layout_is_refused() -> None:
    from layoutalg.errors import LayoutError

    with pytest.raises(LayoutError, match="movmatrix moves registers to registers and reads no shared memory"):
        fragment_delivers("movmatrix", Layout((16, 16), (16, 1)), F16, "C")


@pytest.mark.parametrize("operand, shown", [("E", "'E'"), (3, "3")])
def test_an_unknown_operand_is_refused_naming_the_four_and_the_value_given(operand: object, shown: str) -> None:
    from layoutalg.errors import LayoutError

    with pytest.raises(LayoutError, match=rf"^operand must be 'A', 'B', 'C' or 'D' \(C/D, the accumulator\), got {shown}$"):
        fragment_delivers("ldmatrix.x4", Layout((16, 16), (16, 1)), F16, operand)


def test_ldmatrix_without_smem_asks_for_it_naming_the_operand_dimensions() -> None:
    from layoutalg.errors import LayoutError

    with pytest.raises(LayoutError, match=r"^ldmatrix needs smem=: the layout from \(row, col\) of operand B \(k, n\)"):
        fragment_delivers("ldmatrix.x2.trans", None, F16, "B")


def test_an_smem_that_is_not_a_layout_is_refused() -> None:
    from layoutalg.errors import LayoutError

    with pytest.raises(LayoutError, match=r"^smem must be a Layout or ComposedLayout \(or its notation\), got 42"):
        fragment_delivers("ldmatrix.x4", 42, F16, "A")


@pytest.mark.parametrize("mma", ["SM61_DP2A", "SM61_DP4A"])
def test_ldmatrix_for_a_single_thread_atom_is_refused_not_judged_lane_by_lane(mma: str) -> None:
    """dp2a / dp4a are computed by one thread (ThrID 1:0): lanes 1-31 hold nothing of them, so a lane-by-lane
    verdict (it used to be a 'refutation' at lane 1) would be meaningless."""
    from layoutalg.errors import InstructionError

    with pytest.raises(InstructionError, match=rf"^{mma} runs on 1 of a warp's 32 threads: its operands are no "
                                               "warp-wide fragment that ldmatrix can move"):
        fragment_delivers("ldmatrix.x4", Layout((16, 16), (16, 1)), mma, "A")


def test_ldmatrix_for_f64_operands_is_refused_pointing_to_ld_shared_f64() -> None:
    """mma.m8n8k4.f64 holds its operands in 64-bit registers (PTX ISA); ldmatrix moves 16-bit units."""
    from layoutalg.errors import InstructionError

    with pytest.raises(InstructionError, match=r"^operand A of SM80_8x8x4_F64F64F64F64_TN holds 64-bit f64 elements, "
                                               r"wider than .* \(ld\.shared\.f64 / ld\.shared\.v2\.f64 for f64\)$"):
        fragment_delivers("ldmatrix.x4", Layout((16, 16), (16, 1)), "mma.m8n8k4.f64", "A")


@pytest.mark.parametrize("dtype, bits", [("c64", 128), ("gc64", 192)])
def test_a_dtype_wider_than_a_register_is_refused_not_judged(dtype: str, bits: int) -> None:
    """A complex element of 128 or 192 bits cannot sit in the 32-bit registers ldmatrix fills (it used to get a
    'refutation' over a 16 x 1 tile naming byte 4 of element 0)."""
    from layoutalg.errors import InstructionError

    with pytest.raises(InstructionError, match=rf"^operand A of \S+ holds {bits}-bit {dtype} elements, wider than the "
                                               r"32-bit registers ldmatrix moves 16-bit units into"):
        fragment_delivers("ldmatrix.x4", Layout((64, 64), (64, 1)), F16, "A", dtype=dtype)


def test_stmatrix_of_a_wgmma_m64n128_f16_accumulator_counts_32_registers_in_8_instructions() -> None:
    """PTX ISA (wgmma D fragments): one thread of m64nNk16 with .f16 accumulators holds N / 2 = 64 f16 values, packed
    two per 32-bit register: 32 registers, stored four at a time by stmatrix.x4, so 8 instructions."""
    from layoutalg.atoms import wgmma

    result = fragment_delivers("stmatrix.x4", Layout((16, 128), (128, 1)), wgmma(128, "f16", "f16", "reg"), "C")
    assert result.proved
    assert "c0..c63 of one warp" in result.claim
    assert "registers 4 * part .. of its 32 per instruction" in result.claim
    assert "and part in [0, 8)" in result.claim


def test_ldmatrix_x4_delivers_a_row_major_tf32_a_fragment_32_bit_elements_included() -> None:
    """PTX ISA: tf32 A of m16n8k8 gives lane (g, t) a0..a3 = (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4); a b16
    matrix row of 16 bytes is four tf32 elements, and ldmatrix gives lane (g, t) the pair of halves 2t, 2t + 1 =
    element t of row g of each 8 x 4 block, in the order a0..a3: 32-bit elements are accepted and proved."""
    assert fragment_delivers("ldmatrix.x4", Layout((16, 8), (8, 1)), "mma.m16n8k8.tf32", "A").proved

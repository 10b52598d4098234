"""movmatrix results read off the PTX ISA fragment tables: which target register each source register becomes,
and the wording of a refutation.

movmatrix.m8n8.trans.b16: lane ``l`` (g = l / 4, t = l % 4) receives, in half ``h``, the element at
``(2t + h, g)`` of the 8 x 8 matrix ``M`` whose ``(g, 2t + h)`` it held.  The mma.m16n8k16 / m16n8k8 f16 fragments
(PTX ISA, "Matrix fragments for mma.m16n8k16"): A register i holds ``A(g + 8 (i % 2), 2t + h + 8 (i // 2))``;
B register i holds ``B(2t + h + 8 i, g)``; C register i holds ``C(g + 8 i, 2t + h)``.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from layoutalg.errors import InstructionError
from layoutalg.prove import fragment_delivers
from layoutalg.prove.fragment import FragmentResult

F16 = "mma.m16n8k16.f16.f16.f16.f16"
K8 = "mma.m16n8k8.f16"


def _timed(**kw: Any) -> tuple[FragmentResult, float]:
    before = time.perf_counter()
    result = fragment_delivers("movmatrix", **kw)
    return result, time.perf_counter() - before


#: C (16 x 8) twice side by side, transposed into A: source fragment (0, j) register i -> A register j + 2 i.
C_TO_A_TRANSPOSED = (
    "source fragment (0, 0) register 0 -> target register 0",
    "source fragment (0, 0) register 1 -> target register 2",
    "source fragment (0, 1) register 0 -> target register 1",
    "source fragment (0, 1) register 1 -> target register 3",
)

def test_movmatrix_c_to_a_of_the_transpose_maps_each_c_register_to_the_a_register_of_its_8x8_block() -> None:
    """X = C (16 x 8) twice side by side; A(m, k) = X(k, m).  Source fragment (0, j) register i is the block of X at
    rows 8 i, cols 8 j; after the transpose it is A's block at rows 8 j, cols 8 i, i.e. A register j + 2 i."""
    result, wall = _timed(mma=F16, operand="A", source="C", transpose=True)
    assert result.proved
    assert result.notes == C_TO_A_TRANSPOSED
    assert 0 <= result.seconds <= wall


def test_movmatrix_names_the_target_fragment_when_two_targets_tile_the_region() -> None:
    """C -> C of the transpose: the target C (16 x 8) covers X's 8 x 16, so the 16 x 16 region holds two target
    fragments; source fragment (0, 0) register 1 (X rows 8-15, cols 0-7) is target columns 8-15, register 0."""
    result, wall = _timed(mma=F16, operand="C", source="C", transpose=True)
    assert result.proved
    assert result.notes == (
        "source fragment (0, 0) register 0 -> target register 0 of fragment (0, 0)",
        "source fragment (0, 0) register 1 -> target register 0 of fragment (0, 1)",
        "source fragment (0, 1) register 0 -> target register 1 of fragment (0, 0)",
        "source fragment (0, 1) register 1 -> target register 1 of fragment (0, 1)",
    )
    assert 0 <= result.seconds <= wall


def test_movmatrix_finds_targets_in_a_wide_transposed_region() -> None:
    """B (16 x 8, m16n8k16) from the 8 x 8 B of m16n8k8, transposed: B(k, n) = X(n, k) spans X's 8 x 16, two source
    fragments side by side; the one at X cols 8-15 becomes B rows k 8-15, register 1 of the single target."""
    result = fragment_delivers("movmatrix", mma=F16, operand="B", source="B", source_mma=K8, transpose=True)
    assert result.proved
    assert result.notes == (
        "source fragment (0, 0) register 0 -> target register 0 of fragment (0, 0)",
        "source fragment (0, 1) register 0 -> target register 1 of fragment (0, 0)",
    )


def test_movmatrix_finds_targets_in_a_tall_transposed_region() -> None:
    """The 8 x 8 B of m16n8k8 from the 16 x 8 B of m16n8k16, transposed: the region is X's 16 x 8 and the source
    register 1 (k 8-15) lands in the second target fragment."""
    result = fragment_delivers("movmatrix", mma=K8, operand="B", source="B", source_mma=F16, transpose=True)
    assert result.proved
    assert result.notes == (
        "source register 0 -> target register 0 of fragment (0, 0)",
        "source register 1 -> target register 0 of fragment (0, 1)",
    )


def test_movmatrix_c_to_a_without_transpose_is_refuted_at_lane_0_half_1_with_both_elements_named() -> None:
    """Lane 0, half 1 receives M(1, 0) = C(m=1, n=0), but A's a1 at lane 0 is A(m=0, k=1)."""
    result, wall = _timed(mma=F16, operand="A", source="C")
    assert result.refuted
    assert result.counterexample == {"source_register": 0, "target_register": 0, "lane": 0, "half": 1,
                                     "row": 1, "col": 0, "expected_row": 0, "expected_col": 1}
    assert result.explanation == ("source fragment (0, 0) register 0 (-> target register 0): lane 0, half 1 gets "
                                  "A(m=1, k=0) but the A fragment holds A(m=0, k=1) there")
    assert result.notes == ("source fragment (0, 0) register 0 -> target register 0",)
    assert 0 <= result.seconds <= wall


def test_movmatrix_a_to_b_of_the_transpose_is_refuted_naming_the_single_source_register() -> None:
    """A (16 x 16) is one source fragment: lane 0, half 1 gets A(0, 1) = B(k=0, n=1), but B's b1 is B(k=1, n=0)."""
    result, wall = _timed(mma=F16, operand="B", source="A", transpose=True)
    assert result.refuted
    assert result.counterexample == {"source_register": 0, "target_register": 0, "lane": 0, "half": 1,
                                     "row": 0, "col": 1, "expected_row": 1, "expected_col": 0}
    assert result.explanation == ("source register 0 (-> target register 0): lane 0, half 1 gets B(k=0, n=1) "
                                  "but the B fragment holds B(k=1, n=0) there")
    assert 0 <= result.seconds <= wall


def test_movmatrix_places_four_8x8_b_fragments_in_the_four_blocks_of_a() -> None:
    """A (16 x 16) from the 8 x 8 B of m16n8k8, no transpose: source fragment (a, b) is X's block at rows 8 a, cols
    8 b; lane l then holds X(g + 8 a, 2t + h + 8 b) = A(m=g + 8 a, k=2t + h + 8 b), i.e. A register a + 2 b."""
    result = fragment_delivers("movmatrix", mma=F16, operand="A", source="B", source_mma=K8)
    assert result.proved
    assert result.notes == (
        "source fragment (0, 0) register 0 -> target register 0",
        "source fragment (0, 1) register 0 -> target register 2",
        "source fragment (1, 0) register 0 -> target register 1",
        "source fragment (1, 1) register 0 -> target register 3",
    )


F32_ACC = "mma.m16n8k16.f32.f16.f16.f32"


def test_movmatrix_of_f32_accumulators_converted_to_f16_maps_like_an_f16_accumulator() -> None:
    """dtype='f16' names the type both fragments hold: the f32 C fragment converted to f16 (flash-attention's P)
    keeps C's positions, C register pair i -> C(g + 8 i, 2t + h) (PTX ISA), the same as the f16 C fragment, so the
    transpose into A maps exactly as in the f16 case (A register j + 2 i for source fragment (0, j) register i).
    Before the fix an explicit dtype equal to the target's own type was not applied to the source (refused)."""
    result = fragment_delivers("movmatrix", mma=F16, operand="A", source="C", source_mma=F32_ACC, transpose=True,
                               dtype="f16")
    assert result.proved
    assert result.notes == C_TO_A_TRANSPOSED


def test_movmatrix_without_dtype_refuses_a_32_bit_source_for_a_16_bit_target() -> None:
    with pytest.raises(InstructionError, match=r"holds 32-bit f32 but the target holds 16-bit f16; movmatrix does not "
                                               r"convert \(pass dtype= for both\)"):
        fragment_delivers("movmatrix", mma=F16, operand="A", source="C", source_mma=F32_ACC, transpose=True)


def test_movmatrix_refuses_a_source_of_one_element_per_lane_instead_of_proving_nothing() -> None:
    """mma.m8n8k4.f64's A is 8 x 4 over 32 lanes: one element each (PTX ISA), half a 32-bit register as 16-bit data.
    There is no source register to move; before the fix the claim was 'proved' over zero registers."""
    with pytest.raises(InstructionError, match=r"^the source A fragment of SM80_8x8x4_F64F64F64F64_TN holds 16 bits per "
                                               r"lane \(1 x 16-bit\), not whole 32-bit registers"):
        fragment_delivers("movmatrix", mma=F16, operand="A", source="A", source_mma="mma.m8n8k4.f64", dtype="bf16")


@pytest.mark.parametrize("kw", [{"source": "C", "source_mma": "SM61_DP4A", "dtype": "bf16"},
                                {"source": "A", "source_mma": "SM61_DP2A"}])
def test_movmatrix_refuses_a_single_thread_source_atom(kw: dict[str, Any]) -> None:
    """dp4a / dp2a run in one thread: their operands are no warp-wide fragment (the C of dp4a, with dtype bf16,
    used to be 'proved' over zero registers)."""
    with pytest.raises(InstructionError, match=r"^SM61_DP[24]A runs on 1 of a warp's 32 threads: its operands are no "
                                               r"warp-wide fragment that movmatrix can move"):
        fragment_delivers("movmatrix", mma=F16, operand="A", transpose=True, **kw)


def test_movmatrix_of_a_wgmma_m64n128_accumulator_maps_all_32_registers_into_a_fragments() -> None:
    """PTX ISA (wgmma D, .f16): warp 0's register i holds C(g + 8 (i % 2), 8 (i // 2) + 2t + h), so it is X's 8 x 8 block
    at rows 8 (i % 2), cols 8 (i // 2); transposed it is A's block at m = 8 (i // 2), k = 8 (i % 2): A fragment
    (i // 4, 0), register (i // 2) % 2 + 2 (i % 2) (A register j holds the block at m = 8 (j % 2), k = 8 (j // 2))."""
    from layoutalg.atoms import wgmma

    result = fragment_delivers("movmatrix", mma=F16, operand="A", source="C", source_mma=wgmma(128, "f16", "f16", "reg"),
                               transpose=True)
    assert result.proved
    assert result.notes == tuple(f"source register {i} -> target register {(i // 2) % 2 + 2 * (i % 2)} of fragment "
                                 f"({i // 4}, 0)" for i in range(32))

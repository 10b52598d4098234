"""dtype= on operand A or B must keep the width the mma reads them at.

PTX ISA, "Matrix Fragments for mma.m16n8k8" (.tf32): a0..a3 are four 32-bit registers.  With ``dtype='f16'`` the
prover used to pack those four elements two per register and "prove" that ``ldmatrix.x2`` (two registers) delivers
the tf32 A fragment; no mma reads such a fragment.  Only the accumulator may be converted to another width (an f32
C converted to f16 before stmatrix), so a different width on A/B is refused, naming dtype.
"""

from __future__ import annotations

import pytest

from layoutalg.atoms.mma import TYPE_BITS
from layoutalg.atoms.short_names import mma_atom
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError
from layoutalg.prove import fragment_delivers

SMEM = Layout(((8, 2), (4, 2)), ((8, 1), (2, 64)))  # rows of [A(r, k), A(r + 8, k)] pairs: an f16 packing of tf32 A


def test_tf32_a_read_as_f16_is_refused_not_proved() -> None:
    with pytest.raises(LayoutError, match=r"^dtype 'f16' is 16-bit, but the mma reads operand A of \S+ as 32-bit tf32"):
        fragment_delivers("ldmatrix.x2", SMEM, "mma.m16n8k8.tf32", "A", dtype="f16")


@pytest.mark.parametrize("mma, op", [("mma.m16n8k16.f16", "A"), ("mma.m16n8k16.f16", "B"), ("mma.m16n8k32.s8", "A"),
                                     ("mma.m16n8k8.tf32", "B"), ("mma.m16n8k32.e4m3", "B")])
def test_only_dtypes_of_the_operands_width_are_taken(mma: str, op: str) -> None:
    atom = mma_atom(mma)
    native = TYPE_BITS[atom.a_type if op == "A" else atom.b_type]
    for dtype in ("f16", "bf16", "tf32", "s8", "e4m3", "s4"):
        bits = TYPE_BITS[dtype]
        rows, cols = (64, 64)
        try:
            fragment_delivers("ldmatrix.x4", Layout((rows, cols), (cols, 1)), atom, op, dtype=dtype)
        except LayoutError as exc:  # this refusal, or an earlier one (elements that do not fill a register)
            assert bits != native, (dtype, str(exc))
            assert "dtype" in str(exc), str(exc)
        else:
            assert bits == native, dtype


def test_the_accumulator_may_still_be_converted() -> None:
    """f32 C converted to f16 (two per register) is what an epilogue stores with stmatrix."""
    assert fragment_delivers("stmatrix.x4", Layout((16, 16), (16, 1)), "mma.m16n8k16.f16", "C", dtype="f16").proved


@pytest.mark.parametrize("spelling", ["bfloat16", "torch.bfloat16", "cutlass.BFloat16", "__nv_bfloat16", " BF16 "])
def test_dtype_takes_every_spelling_of_the_dtype_table_as_the_cli_does(spelling: str) -> None:
    smem = Layout((64, 64), (64, 1))
    want = fragment_delivers("stmatrix.x4", smem, "mma.m16n8k16.bf16", "C", dtype="bf16")
    got = fragment_delivers("stmatrix.x4", smem, "mma.m16n8k16.bf16", "C", dtype=spelling)
    assert (got.status, got.claim) == (want.status, want.claim)


def test_the_cli_takes_the_dtype_spellings_banks_takes() -> None:
    from layoutalg.cli import main

    argv = ["prove-fragment", "--copy", "stmatrix.x4", "--smem", "Layout_K_SW128_Atom", "--tile-to", "64x64", "--mma",
            "SM90_64x64x16_F32BF16BF16_SS", "--operand", "C", "--dtype"]
    assert main([*argv, "torch.bfloat16"]) == main([*argv, "bf16"]) == 0


def test_smem_text_and_tile_to_are_read_as_the_clis_smem_and_tile_to() -> None:
    from layoutalg.cli import main

    argv = ["prove-fragment", "--copy", "stmatrix.x4", "--smem", "Layout_K_SW128_Atom", "--tile-to", "64x64", "--mma",
            "SM90_64x64x16_F32BF16BF16_SS", "--operand", "C", "--dtype", "bf16"]
    assert main(argv) == 0
    got = fragment_delivers("stmatrix.x4", "Layout_K_SW128_Atom", "SM90_64x64x16_F32BF16BF16_SS", "C", dtype="bf16",
                            tile_to=(64, 64))
    assert got.status == "proved" and "over Sw<3,3,3> o _0 o (64,64):(64,1)" in got.claim
    # an atom named without its type takes the operand's (f16 for A of an f16 mma)
    assert fragment_delivers("ldmatrix.x4", "Layout_K_SW128_Atom", "mma.m16n8k16.f16", "A", tile_to="64x64").status == \
        "proved"

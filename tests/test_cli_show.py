"""``layoutalg show --tv`` (layoutalg.cli.show) names atoms as prove-fragment does: CuTe names with ``cute::``,
``Copy_Atom<...>`` / ``MMA_Atom<...>``, PTX short forms, and ``--operand D`` for the accumulator."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from layoutalg.cli import main


def first_line(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["show", *argv])
    assert code == 0, err.getvalue()
    return out.getvalue().splitlines()[0]


@pytest.mark.parametrize("spelling", ["SM75_U16x8_LDSM_T", "cute::SM75_U16x8_LDSM_T", "ldmatrix.x4.trans",
                                      "Copy_Atom<SM75_U16x8_LDSM_T, half_t>", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"])
def test_a_copy_atom_in_any_spelling(spelling: str) -> None:
    assert first_line("--tv", spelling, "--operand", "dst").startswith("SM75_U16x8_LDSM_T dst: ")


@pytest.mark.parametrize("spelling, operand", [
    ("SM80_16x8x16_F32F16F16F32_TN", "C"), ("mma.m16n8k16.f16", "C"), ("MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>", "c"),
    ("SM80_16x8x16_F32F16F16F32_TN", "D"), ("mma.m16n8k16.float16", "d"),
])
def test_an_mma_atom_in_any_spelling_and_d_for_the_accumulator(spelling: str, operand: str) -> None:
    assert first_line("--tv", spelling, "--operand", operand).startswith("SM80_16x8x16_F32F16F16F32_TN C: ")


def test_prove_fragment_keeps_the_width_a_copy_atom_is_bound_to() -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["prove-fragment", "--smem", "(64,64):(64,1)", "--mma", "mma.m16n8k16.f16", "--operand", "A", "--copy"]
    with redirect_stdout(out), redirect_stderr(err):
        assert main([*argv, "Copy_Atom<SM75_U32x4_LDSM_N, half_t>"]) == 0
        assert main([*argv, "Copy_Atom<SM75_U32x4_LDSM_N, float>"]) == 2  # bound to 32 bits; A holds f16
    assert "the copy atom is bound to 32-bit values" in err.getvalue()


@pytest.mark.parametrize("argv, message", [
    (["show", "--tv", "ldmatrix"], "ldmatrix needs exactly one of .x1, .x2, .x4"),
    (["show", "--tv", "stmatrix.trans"], "stmatrix needs exactly one of .x1, .x2, .x4"),
    (["prove-fragment", "--copy", "ldmatrix", "--smem", "(64,64):(64,1)", "--mma", "mma.m16n8k16.f16", "--operand",
      "A"], "ldmatrix needs exactly one of .x1, .x2, .x4"),
    (["banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix"], "say how many matrices"),
])
def test_a_matrix_copy_without_its_count_is_refused_by_every_command(argv: list[str], message: str) -> None:
    # PTX requires .num: --tv and --copy used to read a bare ldmatrix as .x1 where --access refused it
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(argv) == 2
    assert message in err.getvalue()

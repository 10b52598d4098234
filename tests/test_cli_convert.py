"""``layoutalg atoms TEXT`` (layoutalg.cli.convert): the CuTe names of the atoms TEXT names, by CuTe name, by PTX
instruction, or by the short forms prove-fragment's --copy / --mma take."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from layoutalg.cli import main


def atoms(text: str) -> list[str]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["atoms", text, "--json"]) == 0
    return list(json.loads(out.getvalue()))


@pytest.mark.parametrize("text, name", [
    ("ldmatrix.x4", "SM75_U32x4_LDSM_N"), ("ldmatrix.x4.trans", "SM75_U16x8_LDSM_T"),
    ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "SM75_U16x8_LDSM_T"), ("stmatrix.x2", "SM90_U32x2_STSM_N"),
    ("mma.m16n8k16.f16", "SM80_16x8x16_F32F16F16F32_TN"), ("mma.m16n8k16.bfloat16", "SM80_16x8x16_F32BF16BF16F32_TN"),
    ("wgmma.m64n64k16.f32.bf16.bf16", "SM90_64x64x16_F32BF16BF16_SS"), ("ld.shared.v4", "UniversalCopy<uint128_t>"),
    ("cp.async.cg", "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"), ("ldsm_t", "SM75_U16x8_LDSM_T"),
])
def test_atoms_finds_the_cute_name_of_an_instruction_however_it_is_spelled(text: str, name: str) -> None:
    assert name in atoms(text)


def test_a_short_form_lists_its_atom_only() -> None:
    assert atoms("ldmatrix.x4.trans") == ["SM75_U16x8_LDSM_T"]
    assert atoms("nosuchthing") == []

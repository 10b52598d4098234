"""One vocabulary in Python and on the command line: instruction short forms, dtype names, method spellings, and
``convert`` saying what it cannot write instead of leaving it out."""

from __future__ import annotations

import json
from typing import Any

import pytest

from layoutalg.banks.access import tile_access
from layoutalg.banks.instruction import expand_short_form, parse_instruction
from layoutalg.cli import main
from layoutalg.cli.banks import expand_access
from layoutalg.errors import LayoutError

# Short form -> the PTX instruction it names (PTX ISA spellings), for 16-bit elements.
SHORT_FORMS = {
    "ldmatrix.x4": "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
    "ldmatrix.x4.trans": "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
    "stmatrix.x2": "stmatrix.sync.aligned.m8n8.x2.shared.b16",
    "cp.async.cg": "cp.async.cg.shared.global",
    "cp.async.cg.16": "cp.async.cg.shared.global",
    "cp.async.ca.8": "cp.async.ca.shared.global, 8",
    "ld.shared.v4": "ld.shared.v4.b32",
    "ld.b32": "ld.shared.b32",
    "ld.shared": "ld.shared.u16",
    "st.shared.v2": "st.shared.v2.b32",
}


@pytest.mark.parametrize("short, full", sorted(SHORT_FORMS.items()))
def test_short_forms_mean_the_same_instruction_in_python_and_cli(short: str, full: str) -> None:
    expected = parse_instruction(full).canonical
    assert parse_instruction(expand_short_form(short, 2)).canonical == expected
    assert parse_instruction(expand_access(short, 2)).canonical == expected
    if short not in ("ld.shared",):  # every form but the typeless one needs no element type
        assert parse_instruction(short).canonical == expected


def test_python_sweeps_take_the_short_forms() -> None:
    import numpy as np

    short = tile_access("ldmatrix.x4.trans", (64, 64), "f16")
    full = tile_access("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", (64, 64), "f16")
    assert parse_instruction(short.instruction).canonical == parse_instruction(full.instruction).canonical
    assert np.array_equal(short.coords, full.coords)
    typeless = tile_access("ld.shared", (32, 32), "f32")
    assert parse_instruction(typeless.instruction).access_bytes == 4
    with pytest.raises(LayoutError, match="element type"):
        parse_instruction("ld.shared")
    with pytest.raises(LayoutError, match="short form"):
        expand_short_form("cp.async.cg.sixteen")


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = main([*args, "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out or out.err)


def test_cli_and_python_agree_on_a_cp_async_short_form(capsys: pytest.CaptureFixture[str]) -> None:
    common = ["banks", "Sw<3,3,3> o 0 o (64,64):(64,1)", "--dtype", "half", "--global-ld", "4096"]
    code_short, short = run_cli(capsys, *common, "--access", "cp.async.cg.16")
    code_full, full = run_cli(capsys, *common, "--access", "cp.async.cg.shared.global, 16")
    assert code_short == code_full == 0
    assert short["instructions"] == full["instructions"]


def test_method_spellings_are_the_provers_everywhere() -> None:
    from layoutalg import parse
    from layoutalg.banks.proof import conflict_free
    from layoutalg.prove.claims import METHODS

    tile = parse("Sw<3,3,3> o 0 o (64,64):(64,1)")
    for method in ("auto", "enum"):
        result = conflict_free(tile, "ldmatrix.x4", "f16", method=method)
        assert result.proved and result.method in METHODS
    with pytest.raises(LayoutError, match="did you mean 'enum'"):
        conflict_free(tile, "ldmatrix.x4", "f16", method="enumeration")


def test_convert_reports_what_it_cannot_write(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["convert", "(3,5):(5,1)", "--dtype", "f16"])
    out = capsys.readouterr().out
    assert code == 0 and "cpp     Layout<Shape<_3,_5>,Stride<_5,_1>>" in out
    assert "triton  (not written:" in out and "power of two" in out
    code, data = run_cli(capsys, "convert", "(8,64):(64,1)")
    assert code == 0 and "--dtype" in data["not_written"]["triton"]
    code = main(["convert", "(8,64):(64,1)", "--to", "triton"])
    err = capsys.readouterr().err
    assert code == 2 and "--dtype" in err and "--tile" in err
    code = main(["convert", "Layout_K_SW128_Atom", "--dtype", "bf16", "--to", "triton"])
    assert code == 0 and capsys.readouterr().out.strip() == \
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"

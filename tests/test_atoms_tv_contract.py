"""One operand of an atom as (TV layout, tile, ThrID) (layoutalg.atoms.tv.operand_tv): operand names in either
case, D as C, and the PTX 8-bit ldmatrix forms' address side (lane l names row l mod rows; 16 one-byte elements
a row); every operand an atom has not is refused naming the ones it has."""

from __future__ import annotations

import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.ldmatrix_b8 import B8_FORMS
from layoutalg.atoms.tv import operand_tv
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError

MMA = "SM80_16x8x16_F32F16F16F32_TN"


def test_mma_operands_are_read_in_either_case_and_d_is_c() -> None:
    atom = catalog.get(MMA)
    assert operand_tv(atom, "a") == (atom.a_layout, (16, 16), atom.thr_id)
    assert operand_tv(atom, "B") == (atom.b_layout, (8, 16), atom.thr_id)
    assert operand_tv(atom, "D") == operand_tv(atom, "c") == (atom.c_layout, (16, 8), atom.thr_id)


@pytest.mark.parametrize("form", B8_FORMS, ids=lambda f: f.ptx)
def test_the_address_side_of_an_8_bit_form_gives_each_lane_its_row(form) -> None:  # type: ignore[no-untyped-def]
    rows = form.rows_per_matrix * form.num
    address_side = "src" if form.kind == "ldmatrix" else "dst"
    tv, tile, thr = operand_tv(form, address_side.upper())
    assert tile == (16, rows) and thr == Layout(32)
    assert tv[0].size() == 32 and tv[1].size() == 16  # every lane of the warp, one 16-byte row each
    for lane in range(32):
        assert [tv(lane, b) for b in range(16)] == [16 * (lane % rows) + b for b in range(16)]
    if rows == 32:  # one row per lane: no repeated lanes in the shape
        assert tv == Layout((32, 16), (16, 1))


@pytest.mark.parametrize("atom, operand, match", [
    (MMA, "E", "has operands A, B, C; got 'E'"),
    ("SM75_U32x1_LDSM_N", "A", "has operands src, dst, ref; got 'A'"),
])
def test_an_operand_the_atom_has_not_is_refused(atom: str, operand: str, match: str) -> None:
    with pytest.raises(InstructionError, match=match):
        operand_tv(catalog.get(atom), operand)


def test_an_8_bit_form_has_no_ref_operand_and_a_non_atom_is_refused() -> None:
    with pytest.raises(InstructionError, match="has operands src, dst; got 'ref'"):
        operand_tv(B8_FORMS[0], "ref")
    with pytest.raises(InstructionError, match="not an atom: 5"):
        operand_tv(5, "A")

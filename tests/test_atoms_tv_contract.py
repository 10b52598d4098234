"""One operand of an atom as (TV layout, tile, ThrID) (layoutalg.atoms.tv.operand_tv): operand names in either
case, D as C, and the PTX 8-bit ldmatrix forms' address side (lane l names row l mod rows; 16 one-byte elements
a row); every operand an atom has not is refused naming the ones it has."""

from __future__ import annotations

import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.copy import CopyAtom
from layoutalg.atoms.ldmatrix_b8 import B8_FORMS
from layoutalg.atoms.tv import operand_tv
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError, LayoutError

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


def _matrix_copy_atoms() -> list:  # type: ignore[type-arg]
    out = []
    for name in catalog.names():
        atom = catalog.get(name)
        if isinstance(atom, CopyAtom) and (atom.is_matrix or atom.kind.endswith(".b8")):
            out.append(atom)
    return out


def _widths(atom: CopyAtom) -> list[int | None]:
    """None (CuTe's bits) and every power-of-two width that binds (splits each thread's bits)."""
    out: list[int | None] = [None]
    for w in (1, 2, 4, 8, 16, 32, 64, 128):
        try:
            atom.bind(w)
        except LayoutError:
            continue
        out.append(w)
    return out


@pytest.mark.parametrize("atom", _matrix_copy_atoms(), ids=lambda a: a.name)
def test_a_matrix_copy_operand_tiles_128_bit_rows_and_covers_each_element_of_the_tile(atom) -> None:  # type: ignore[no-untyped-def]
    """Tile (E, rows), E = values in one 128-bit row; the TV layout hits every cell of it and none outside; on
    the address side (ldmatrix src, stmatrix dst) lane l names row l mod (8 * matrices), element v of it."""
    rows = 8 * atom.num_matrices
    for bits in _widths(atom):
        per_row = 128 // (bits or 1)
        for which in ("src", "dst", "ref"):
            tv, tile, thr = operand_tv(atom if bits is None else atom.bind(bits), which.upper())
            assert (tv, tile, thr) == operand_tv(atom, which, bits)
            assert thr == atom.thr_id and tv[0].size() == 32
            assert tile[0] == per_row
            index = list(tv.values())  # colexicographic: (t, v) is index[t + 32 * v]
            assert set(index) == set(range(tile[0] * tile[1])), (which, bits)
            if which == {"ldmatrix": "src", "stmatrix": "dst"}.get(atom.kind):  # the address side
                assert tile[1] == rows
                assert all(index[t + 32 * v] == per_row * (t % rows) + v for t in range(32) for v in range(per_row))


@pytest.mark.parametrize("name, bits, tile", [
    ("UniversalCopy<uint8_t>", 8, (1, 1)), ("UniversalCopy<uint8_t>", None, (1, 8)),
    ("UniversalCopy<uint128_t>", 32, (1, 4)), ("UniversalCopy<uint128_t>", None, (1, 128)),
    ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", 16, (1, 8)),
])
def test_a_per_thread_copy_is_one_row_of_its_values(name: str, bits: int | None, tile: tuple[int, int]) -> None:
    atom = catalog.get(name)
    for which in ("src", "dst", "ref"):
        tv, got, thr = operand_tv(atom, which, bits)
        assert got == tile and thr == atom.thr_id
        assert sorted(tv(0, v) for v in range(tv[1].size())) == list(range(tile[1]))


@pytest.mark.parametrize("name, bits", [
    ("SM75_U32x1_LDSM_N", 64),  # dst: 32 bits a lane; CuTe's Copy_Atom<SM75_U32x1_LDSM_N, double> does not compile
    ("SM75_U32x1_LDSM_N", 1024), ("UniversalCopy<uint8_t>", 16), ("SM100_U8x8_LDSM_T", 16), ("SM75_U32x1_LDSM_N", 0),
])
def test_a_width_that_does_not_split_each_threads_bits_is_refused(name: str, bits: int) -> None:
    with pytest.raises(LayoutError, match="value bits must be a positive int|is not valid for"):
        operand_tv(catalog.get(name), "src", bits)


@pytest.mark.parametrize("form", B8_FORMS, ids=lambda f: f.ptx)
def test_the_register_side_of_an_8_bit_form_is_its_ptx_fragment_over_the_same_tile(form) -> None:  # type: ignore[no-untyped-def]
    rows = form.rows_per_matrix * form.num
    register_side = "dst" if form.kind == "ldmatrix" else "src"
    tv, tile, thr = operand_tv(form, register_side)
    assert (tv, tile, thr) == (form.fragment_layout(), (16, rows), Layout(32))
    assert sorted(tv(t, v) for t in range(32) for v in range(tv[1].size())) == list(range(16 * rows))

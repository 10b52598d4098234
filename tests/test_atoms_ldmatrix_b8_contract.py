"""The PTX 8-bit ldmatrix / stmatrix forms (layoutalg.atoms.ldmatrix_b8.B8MatrixForm): the 15 forms the PTX ISA
defines (ldmatrix m16n16 .x1/.x2 .trans of b8, b6x16_p32, b4x16_p64; ldmatrix m8n16 .x1/.x2/.x4 of the two
packed formats; stmatrix m16n8 .x1/.x2/.x4 .trans .b8), their PTX text, and per form a warp that moves every
byte of its matrices exactly once (16 one-byte columns a row); bad forms and indices refused."""

from __future__ import annotations

import dataclasses

import pytest
from cute_cpp_printout import traits_unlike_cute

from layoutalg.atoms.ldmatrix_b8 import B8_COPY_ATOMS, B8_FORMS, B8MatrixForm, all_forms, cute_byte_source, form_of
from layoutalg.errors import InstructionError


def test_the_ptx_isa_defines_fifteen_forms() -> None:
    got = sorted(f.ptx for f in all_forms())
    want = sorted(
        [f"ldmatrix.sync.aligned.m16n16.x{n}.trans.shared{fmt}" for n in (1, 2)
         for fmt in (".b8", ".b8x16.b6x16_p32", ".b8x16.b4x16_p64")]
        + [f"ldmatrix.sync.aligned.m8n16.x{n}.shared.b8x16.{fmt}" for n in (1, 2, 4) for fmt in ("b6x16_p32", "b4x16_p64")]
        + [f"stmatrix.sync.aligned.m16n8.x{n}.trans.shared.b8" for n in (1, 2, 4)])
    assert got == want and len(B8_FORMS) == 15


@pytest.mark.parametrize("form", B8_FORMS, ids=lambda f: f.ptx)
def test_a_warp_moves_every_byte_of_the_forms_matrices_once(form: B8MatrixForm) -> None:
    rows = 16 if form.shape == "m16n16" else 8
    regs = form.num * (2 if form.shape == "m16n16" else 1)
    assert (form.rows_per_matrix, form.num_regs) == (rows, regs)
    assert form.trans == (form.shape != "m8n16")
    assert form.element_bits == {"b8": 8, "b6x16_p32": 6, "b4x16_p64": 4}[form.src_fmt]
    seen = {form.fragment_coord(lane, reg, byte) for lane in range(32) for reg in range(regs) for byte in range(4)}
    assert seen == {(m, r, c) for m in range(form.num) for r in range(rows) for c in range(16)}
    lay = form.fragment_layout()
    for lane in range(32):
        for reg in range(regs):
            for byte in range(4):
                m, r, c = form.fragment_coord(lane, reg, byte)
                assert lay(lane, byte + 4 * reg) == 16 * rows * m + 16 * r + c
    for m in range(form.num):
        for r in range(rows):
            assert form.row_address_lane(m, r) == rows * m + r


@pytest.mark.parametrize("args, match", [
    (("ldmatrix", "m16n16", 4), "no ldmatrix.m16n16.x4; valid: ldmatrix.m16n16.x1, ldmatrix.m16n16.x2, "),
    (("ldmatrix", "m8n8", 1), "no ldmatrix.m8n8.x1"),
    (("stmatrix", "m16n16", 1), "no stmatrix.m16n16.x1"),
    (("ldmatrix", "m8n16", 1, "b8"), "ldmatrix.m8n16 reads b6x16_p32 or b4x16_p64, got 'b8'"),
    (("stmatrix", "m16n8", 1, "b4x16_p64"), "stmatrix.m16n8 reads b8, got 'b4x16_p64'"),
    ((1, "m16n16", 1), "kind and shape must be strings, got 1, 'm16n16'"),
])
def test_a_form_the_ptx_isa_has_not_is_refused(args: tuple, match: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(InstructionError, match=match):
        B8MatrixForm(*args)


def test_indices_outside_the_form_are_refused_naming_the_ranges() -> None:
    form = B8MatrixForm("ldmatrix", "m16n16", 2)
    with pytest.raises(InstructionError, match=r"\(matrix, row\) must lie in \[0, 2\) x \[0, 16\), got \(2, 0\)"):
        form.row_address_lane(2, 0)
    with pytest.raises(InstructionError, match=r"got \(0, 16\)"):
        form.row_address_lane(0, 16)
    for bad in ((32, 0, 0), (0, 4, 0), (0, 0, 4), (-1, 0, 0)):
        with pytest.raises(InstructionError, match=r"lane in \[0, 32\), reg in \[0, 4\), byte in \[0, 4\)"):
            form.fragment_coord(*bad)


def test_a_form_is_an_immutable_value() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        B8_FORMS[0].num = 2  # type: ignore[misc]


def _form_named(name: str) -> tuple[str, str, int, str]:
    """(kind, shape, num, src_fmt) CuTe's SM100 atom name states (cute/arch/copy_sm100.hpp)."""
    if name.endswith("_STSM_T"):
        return "stmatrix", "m16n8", int(name.split("_U8x")[1].split("_")[0]) // 4, "b8"
    if name.endswith("_LDSM_T"):
        return "ldmatrix", "m16n16", int(name.split("_U8x")[1].split("_")[0]) // 8, "b8"
    bits = name.split("_SU")[1].split("_")[0]
    return "ldmatrix", "m8n16", int(name.split("_x")[1].split("_")[0]), f"b{bits}x16_p{64 if bits == '4' else 32}"


@pytest.mark.parametrize("atom", B8_COPY_ATOMS, ids=lambda a: a.name)
def test_each_cute_sm100_atom_executes_the_form_its_name_states_and_pairs_its_bytes(atom) -> None:  # type: ignore[no-untyped-def]
    form = B8MatrixForm(*_form_named(atom.name))
    assert form_of(atom) == form and atom.ptx == form.ptx and atom.arch == 100
    assert atom.kind == f"{form.kind}.b8" and atom.num_matrices == form.num and atom.trans == form.trans
    typed = atom.bind(8)
    regs, rows = ((typed.val_layout_dst, typed.val_layout_src) if form.kind == "ldmatrix"
                  else (typed.val_layout_src, typed.val_layout_dst))
    first = {}
    for lane in range(32):
        for e in range(rows[1].size()):
            first.setdefault(rows(lane, e), (lane, e))
    for lane in range(32):
        for v in range(regs[1].size()):
            reg, byte = cute_byte_source(atom.name, v // 4, v % 4)
            matrix, row, col = form.fragment_coord(lane, reg, byte)
            assert first[regs(lane, v)] == (form.row_address_lane(matrix, row), col), (lane, v)


@pytest.mark.parametrize("atom", B8_COPY_ATOMS, ids=lambda a: a.name)
def test_each_cute_sm100_atom_moves_every_byte_of_its_registers_once_to_or_from_its_rows(atom) -> None:  # type: ignore[no-untyped-def]
    """A lane holds one 32-bit register per register of the form (PTX ISA: ``.x1/.x2/.x4``, two per m16n16
    matrix); the register side names each of the 32 * 4 * num_regs bytes once, and the shared-memory
    rows side names the same bytes (the whole tile, num matrices of rows x 16 bytes)."""
    form = B8MatrixForm(*_form_named(atom.name))
    typed = atom.bind(8)
    regs, rows = ((typed.val_layout_dst, typed.val_layout_src) if form.kind == "ldmatrix"
                  else (typed.val_layout_src, typed.val_layout_dst))
    assert regs[1].size() == 4 * form.num_regs
    reg_bytes = [regs(lane, v) for lane in range(32) for v in range(regs[1].size())]
    assert len(set(reg_bytes)) == len(reg_bytes) == form.num * form.rows_per_matrix * 16
    assert {rows(lane, e) for lane in range(32) for e in range(rows[1].size())} == set(reg_bytes)


@pytest.mark.parametrize("atom", B8_COPY_ATOMS, ids=lambda a: a.name)
def test_each_cute_sm100_atom_carries_cutes_traits_as_cute_cpp_prints_them(atom) -> None:  # type: ignore[no-untyped-def]
    """cute/atom/copy_traits_sm100.hpp as CuTe C++ prints it: the same shapes and strides, not only the same
    function (``(32,32):(32,1)`` for x1, not ``(32,(32,1)):(32,(1,1024))``)."""
    assert traits_unlike_cute(atom) == []


def test_form_of_refuses_an_atom_that_is_not_an_sm100_8_bit_matrix_atom() -> None:
    from layoutalg.atoms import catalog

    with pytest.raises(InstructionError, match="^SM75_U32x1_LDSM_N is not one of CuTe's SM100 8-bit"):
        form_of(catalog.get("SM75_U32x1_LDSM_N"))

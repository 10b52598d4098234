"""The copy atom table (layoutalg.atoms.copy) against the PTX ISA.

ldmatrix / stmatrix .m8n8 .b16 (PTX ISA "ldmatrix"): lanes 8m..8m+7 give the row addresses of matrix m; each
row is 16 bytes (eight b16 elements).  Register r of a lane holds matrix r: elements (row lane/4, col
2*(lane%4) + j), j = 0, 1 the low and high half; with .trans, (row 2*(lane%4) + j, col lane/4).  Bit offsets
below count in the matrices stacked row-major: 128 bits a row, 1024 a matrix.  Per-thread copies: one
thread, a vector of 8..128 bits (ld.shared.u8 .. ld.shared.v4.u32); cp.async 4, 8 or 16 bytes (.cg 16 only).
"""

from __future__ import annotations

import dataclasses

import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.copy import COPY_ATOMS, CopyAtom, TypedCopyAtom, movmatrix_coords
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError, LayoutError

MATRIX = [a for a in COPY_ATOMS if a.kind in ("ldmatrix", "stmatrix")]


def register_bit(lane: int, reg: int, bit: int, trans: bool) -> int:
    j, b = divmod(bit, 16)
    row, col = (2 * (lane % 4) + j, lane // 4) if trans else (lane // 4, 2 * (lane % 4) + j)
    return 1024 * reg + 128 * row + 16 * col + b


def test_the_table_has_every_ldmatrix_and_stmatrix_form_once() -> None:
    forms = sorted((a.kind, a.num_matrices, a.trans) for a in MATRIX)
    assert forms == sorted((k, n, t) for k in ("ldmatrix", "stmatrix") for n in (1, 2, 4) for t in (False, True))


@pytest.mark.parametrize("atom", MATRIX, ids=lambda a: a.name)
def test_a_matrix_copys_name_ptx_and_arch_follow_its_form(atom: CopyAtom) -> None:
    num, trans, load = atom.num_matrices, atom.trans, atom.kind == "ldmatrix"
    regs = f"U16x{2 * num}" if trans else f"U32x{num}"
    assert atom.name == f"SM{75 if load else 90}_{regs}_{'LDSM' if load else 'STSM'}_{'T' if trans else 'N'}"
    assert atom.ptx == f"{atom.kind}.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16"
    assert atom.arch == (75 if load else 90)  # PTX: ldmatrix sm_75, stmatrix sm_90
    assert atom.num_threads == 32 and atom.is_matrix and atom.vector_bits == 0


@pytest.mark.parametrize("atom", MATRIX, ids=lambda a: a.name)
def test_each_lane_moves_the_row_and_register_bits_the_ptx_isa_gives_it(atom: CopyAtom) -> None:
    num = atom.num_matrices
    rows, regs = (atom.src_layout, atom.dst_layout) if atom.kind == "ldmatrix" else (atom.dst_layout, atom.src_layout)
    assert atom.ref_layout == regs
    assert rows[0].size() == regs[0].size() == 32  # a warp-wide instruction: one thread mode of 32 lanes
    assert rows[1].size() == 128 and regs[1].size() == 32 * num
    for lane in range(32):
        for bit in range(128):  # lanes 8*num.. repeat an address lane's row (their addresses are unused)
            assert rows(lane, bit) == 128 * (lane % (8 * num)) + bit, (lane, bit)
        for reg in range(num):
            for bit in range(32):
                assert regs(lane, bit + 32 * reg) == register_bit(lane, reg, bit, atom.trans), (lane, reg, bit)


@pytest.mark.parametrize("atom", MATRIX, ids=lambda a: a.name)
def test_fragment_coordinates_and_row_address_lanes_are_the_ptx_formulas(atom: CopyAtom) -> None:
    for lane in range(32):
        for reg in range(atom.num_matrices):
            for half in range(2):
                bit = register_bit(lane, reg, 16 * half, atom.trans)
                assert atom.fragment_coord(lane, reg, half) == (bit // 1024, bit // 128 % 8, bit // 16 % 8)
    for matrix in range(atom.num_matrices):
        for row in range(8):
            assert atom.row_address_lane(matrix, row) == 8 * matrix + row
            assert atom.address_layout(row, matrix) == 8 * matrix + row
    with pytest.raises(LayoutError, match="matrix"):
        atom.row_address_lane(atom.num_matrices, 0)
    with pytest.raises(LayoutError, match="register"):
        atom.fragment_coord(0, atom.num_matrices, 0)


def test_movmatrix_is_the_one_matrix_transposing_register_move() -> None:
    mov = catalog.movmatrix()
    assert (mov.name, mov.ptx, mov.arch, mov.kind) == (
        "SM75_U32x1_MOVM_T", "movmatrix.sync.aligned.m8n8.trans.b16", 75, "movmatrix")
    assert mov.num_matrices == 1 and mov.trans and mov.is_matrix and mov.num_threads == 32
    # lane l's register holds elements (l / 4, 2 (l % 4) + h) of the row-major 8x8 b16 matrix: bits 32 l .. 32 l + 31,
    # on both sides (CuTe states the transpose in the instruction, not in the layouts)
    for lay in (mov.src_layout, mov.dst_layout, mov.ref_layout):
        assert lay[0].size() == 32 and lay[1].size() == 32
        assert all(lay(lane, bit) == 32 * lane + bit for lane in range(32) for bit in range(32))
    with pytest.raises(InstructionError, match="is not an ldmatrix/stmatrix instruction"):
        mov.fragment_coord(0, 0, 0)


_VECTOR_PTX = {8: "u8", 16: "u16", 32: "u32", 64: "v2.u32", 128: "v4.u32"}


@pytest.mark.parametrize("bits", sorted(_VECTOR_PTX))
def test_a_universal_copy_moves_one_threads_vector_of_its_width(bits: int) -> None:
    for kind, atom in (("ld", catalog.ld_shared(bits)), ("st", catalog.st_shared(bits))):
        assert (atom.name, atom.ptx) == (f"UniversalCopy<uint{bits}_t>", f"{kind}.shared.{_VECTOR_PTX[bits]}")
        assert atom.kind == f"{kind}.shared" and atom.vector_bits == bits and atom.num_threads == 1
        assert atom.arch == 50  # plain C++ copies: the oldest arch CuTe's atoms name (SM50_...)
        assert not atom.is_matrix and atom.num_matrices == 0
        assert atom.thr_id == Layout(1, 0)  # CuTe prints Layout<_1> as _1:_0
        for lay in (atom.src_layout, atom.dst_layout, atom.ref_layout):
            assert lay == Layout((1, bits), (0, 1))  # CuTe's compact Layout<Shape<_1, Int<bits>>>
        with pytest.raises(InstructionError, match="is not an ldmatrix/stmatrix instruction"):
            atom.row_address_lane(0, 0)


@pytest.mark.parametrize("nbytes, cache", [(4, "ca"), (8, "ca"), (16, "ca"), (16, "cg")])
def test_cp_async_copies_its_byte_count_with_its_cache_hint(nbytes: int, cache: str) -> None:
    atom = catalog.cp_async(nbytes, cache)
    assert atom.ptx == f"cp.async.{cache}.shared.global [dst], [src], {nbytes}"
    assert atom.name == f"SM80_CP_ASYNC_CACHE{'ALWAYS' if cache == 'ca' else 'GLOBAL'}<uint{8 * nbytes}_t>"
    assert atom.arch == 80 and atom.kind == "cp.async" and atom.vector_bits == 8 * nbytes
    assert atom.thr_id == Layout(1, 0)
    assert atom.src_layout == atom.dst_layout == atom.ref_layout == Layout((1, 8 * nbytes), (0, 1))


@pytest.mark.parametrize("nbytes, cache", [(8, "cg"), (4, "cg"), (2, "ca"), (32, "ca")])
def test_cp_async_refuses_a_byte_count_the_cache_hint_has_not(nbytes: int, cache: str) -> None:
    sizes = "16" if cache == "cg" else "4, 8 or 16"
    with pytest.raises(InstructionError, match=f"^cp.async.{cache} copies {sizes} bytes, got {nbytes}$"):
        catalog.cp_async(nbytes, cache)


def test_a_bound_atom_reads_registers_in_values_of_its_width() -> None:
    ld4 = catalog.ldmatrix(4, False)
    typed = ld4.bind(16)
    assert typed == TypedCopyAtom(ld4, 16) and typed.name == ld4.name and typed.thr_id == ld4.thr_id
    assert typed.num_val_dst == 8 and typed.num_val_src == 8  # 4 regs of 2 halves; a 128-bit row of 8 halves
    for lane in range(32):
        for v in range(8):  # value v: register v // 2, half v % 2 -> the 16-bit element's index
            assert typed.val_layout_dst(lane, v) == register_bit(lane, v // 2, 16 * (v % 2), False) // 16
    assert typed.val_layout_ref == typed.val_layout_dst
    assert str(typed).startswith("Copy_Atom<SM75_U32x4_LDSM_N, 16b>: ThrID 32:1")


@pytest.mark.parametrize("bits, match", [
    (0, "value bits must be a positive int"), (-16, "value bits must be a positive int"),
    (True, "value bits must be an int"), (64, "is not valid for Dst of 64-bit values: .* use values of at most 32 bits"),
])
def test_a_bound_atom_refuses_a_width_its_registers_cannot_hold(bits: int, match: str) -> None:
    with pytest.raises(LayoutError, match=match):
        TypedCopyAtom(catalog.ldmatrix(1, False), bits)  # type: ignore[arg-type]


def test_a_bound_atom_needs_a_copy_atom() -> None:
    with pytest.raises(InstructionError, match="TypedCopyAtom atom must be a CopyAtom, got 5"):
        TypedCopyAtom(5, 16)  # type: ignore[arg-type]


def test_copy_atoms_are_immutable_values() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        catalog.ldmatrix(1, False).arch = 80  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        catalog.ldmatrix(1, False).bind(16).bits = 8  # type: ignore[misc]


@pytest.mark.parametrize("call, match", [
    (lambda a: a.row_address_lane(0, 8), r"row must be in \[0, 8\), got 8"),
    (lambda a: a.fragment_coord(32, 0, 0), r"lane must be in \[0, 32\), got 32"),
    (lambda a: a.fragment_coord(0, 0, 2), r"half must be in \[0, 2\), got 2"),
], ids=["row 8", "lane 32", "half 2"])
def test_a_matrix_index_past_the_ptx_geometry_is_refused(call: object, match: str) -> None:
    for atom in MATRIX:  # 8 rows a matrix, 32 lanes, 2 b16 halves a register, whatever the form
        with pytest.raises(InstructionError, match=match):
            call(atom)  # type: ignore[operator]


@pytest.mark.parametrize("lane, half, match", [(32, 0, r"lane must be in \[0, 32\)"), (0, 2, r"half must be in \[0, 2\)")])
def test_movmatrix_coordinates_past_the_warp_or_the_register_are_refused(lane: int, half: int, match: str) -> None:
    with pytest.raises(InstructionError, match=match):
        movmatrix_coords(lane, half)


@pytest.mark.parametrize("atom", MATRIX, ids=lambda a: a.name)
def test_a_fragment_layout_maps_lane_half_register_onto_each_element_of_the_matrices_once(atom: CopyAtom) -> None:
    lay, num = atom.fragment_layout, atom.num_matrices
    assert lay.size() == 32 * 2 * num and lay[1].size() == 2 * num and lay[1][0].size() == 2  # (lane, (half, reg))
    assert sorted(lay(i) for i in range(lay.size())) == list(range(64 * num))  # 64 b16 elements a matrix


def test_a_copy_atom_prints_its_name_ptx_and_cute_bit_layouts() -> None:
    # cute/atom/copy_traits_sm75.hpp, SM75_U32x1_LDSM_N: SrcLayout ((_8,_4),_128):((_128,_0),_1),
    # DstLayout = RefLayout (_32,_32):(_32,_1)
    assert str(catalog.ldmatrix(1, False)) == (
        "SM75_U32x1_LDSM_N (ldmatrix.sync.aligned.m8n8.x1.shared.b16): ThrID 32:1, Src ((8,4),128):((128,0),1), "
        "Dst (32,32):(32,1), Ref (32,32):(32,1) (bits)")


def test_only_an_atom_whose_ptx_says_trans_transposes() -> None:
    for atom in catalog.ALL_COPY_ATOMS:  # per-thread copies leave trans at its default
        assert atom.trans == (".trans" in atom.ptx), atom.name


def test_one_bit_values_keep_the_bit_layouts() -> None:
    atom = catalog.ld_shared(8)
    typed = atom.bind(1)
    assert (typed.val_layout_src, typed.val_layout_dst) == (atom.src_layout, atom.dst_layout) and typed.num_val_src == 8


def test_a_refused_width_suggests_the_widest_value_a_thread_holds_up_to_1024_bits() -> None:
    lay = Layout((1, 1024), (0, 1))  # a user-built per-thread copy of 1024 bits
    wide = CopyAtom("WideCopy", "ld.global.wide", 100, "ld.global", Layout(1, 0), lay, lay, lay, vector_bits=1024)
    with pytest.raises(LayoutError, match="of 2048-bit values: .* use values of at most 1024 bits$"):
        wide.bind(2048)

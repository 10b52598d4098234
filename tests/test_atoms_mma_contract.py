"""The mma.sync atom table (layoutalg.atoms.mma.MMA_ATOMS) against the PTX ISA fragment formulas written as
one formula per family (tests/mma_fragment_oracle.py), and CuTe's names against each atom's fields."""

from __future__ import annotations

import dataclasses

import pytest
from cute_cpp_printout import traits_unlike_cute
from mma_fragment_oracle import BITS, check_fragments, check_name, ptx_coord

from layoutalg.atoms.catalog import ALL_MMA_ATOMS
from layoutalg.atoms.mma import MMA_ATOMS
from layoutalg.errors import InstructionError


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_every_value_of_every_operand_sits_where_the_ptx_fragment_formula_puts_it(atom) -> None:  # type: ignore[no-untyped-def]
    check_fragments(atom)


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_the_cute_name_states_the_atoms_arch_shape_and_types_and_the_ptx_text_agrees(atom) -> None:  # type: ignore[no-untyped-def]
    check_name(atom)


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_fragment_coord_is_the_ptx_fragment_formula_at_every_lane_and_element(atom) -> None:  # type: ignore[no-untyped-def]
    for op in "ABC":
        got = {(lane, i): atom.fragment_coord(op, lane, i) for lane in range(32) for i in range(atom.num_elements(op))}
        assert got == {key: ptx_coord(atom, op, *key) for key in got}, op


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_every_atom_carries_cutes_traits_as_cute_cpp_prints_them(atom) -> None:  # type: ignore[no-untyped-def]
    """cute/atom/mma_traits_sm70/75/80/89.hpp as CuTe C++ prints them: the same shapes and strides, not only the
    same functions (``SM80_8x4`` is ``((4,8),1):((8,1),0)``, an extent-1 mode at stride 0)."""
    assert traits_unlike_cute(atom) == []


def test_the_table_has_one_atom_per_cute_name() -> None:
    names = [a.name for a in MMA_ATOMS]
    assert len(names) == len(set(names)) == 34
    assert sum(a.arch == 70 for a in MMA_ATOMS) == 8  # m8n8k4 .f16/.f32 accumulators x 4 layouts
    assert {a.thr_id.size() for a in MMA_ATOMS if a.arch != 70} == {32}


#: the PTX ISA's minimum target per (shape, A type) of the instructions in the table (target ISA notes)
PTX_MIN_ARCH = {("m8n8k4", "f16"): 70, ("m16n8k8", "f16"): 75, ("m16n8k16", "f16"): 80, ("m16n8k8", "bf16"): 80,
                ("m16n8k16", "bf16"): 80, ("m16n8k4", "tf32"): 80, ("m16n8k8", "tf32"): 80, ("m8n8k4", "f64"): 80,
                ("m16n8k32", "s8"): 80, ("m16n8k32", "u8"): 80, ("m16n8k64", "s4"): 80, ("m16n8k64", "u4"): 80,
                ("m16n8k32", "e4m3"): 89, ("m16n8k32", "e5m2"): 89}


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_an_atoms_arch_is_a_cute_generation_no_older_than_the_ptx_target_of_its_instruction(atom) -> None:  # type: ignore[no-untyped-def]
    m, n, k = atom.shape_mnk
    assert atom.arch in (70, 75, 80, 89)
    assert atom.arch >= PTX_MIN_ARCH[(f"m{m}n{n}k{k}", atom.a_type)]


def test_operand_bits_is_the_element_width_of_each_operand_type() -> None:
    """PTX widths, and for CuTe's complex atoms the C++ element: complex<double> 128 bits, the Gauss-complex
    accumulator (three doubles) 192; an element wider than a register takes one element per register."""
    for atom in ALL_MMA_ATOMS:
        for op, type_name in (("A", atom.a_type), ("B", atom.b_type), ("C", atom.c_type), ("D", atom.c_type)):
            assert atom.operand_bits(op) == BITS[type_name], (atom.name, op)
            assert atom.elements_per_register(op) == max(1, 32 // BITS[type_name])
    complex_atoms = {a.name: a for a in ALL_MMA_ATOMS if "C64" in a.name}
    assert complex_atoms["SM80_8x8x4_GC64C64C64GC64_TN"].operand_bits("C") == 192
    assert complex_atoms["SM80_8x8x4_C64C64C64C64_TN"].operand_bits("A") == 128


def test_an_mma_atom_is_an_immutable_value_equal_and_hashed_by_its_cute_facts() -> None:
    """Frozen; equality and hash read CuTe's facts, not the formula callable (a derived function object), so a copy
    carrying another function object of the same formula is the same atom; repr shows the facts, not the callable."""
    atom = MMA_ATOMS[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        atom.arch = 80  # type: ignore[misc]
    twin = dataclasses.replace(atom, formula=lambda op, lane, i: atom.formula(op, lane, i))
    assert twin == atom and hash(twin) == hash(atom) and {atom: 1}[twin] == 1
    assert dataclasses.replace(atom, arch=75) != atom
    assert "formula" not in repr(atom) and repr(atom).startswith(f"MmaAtom(name='{atom.name}', ptx='{atom.ptx}'")


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_num_threads_is_the_threads_cute_runs_the_atom_on(atom) -> None:  # type: ignore[no-untyped-def]
    """32 lanes, or for sm70 one quad pair (8 threads: lanes 0-3 and 16-19, CuTe's SM70_QuadPair)."""
    assert atom.num_threads == (8 if atom.arch == 70 else 32)


@pytest.mark.parametrize("atom", ALL_MMA_ATOMS, ids=lambda a: a.name)
def test_fragment_coord_reg_takes_each_register_of_the_fragment_and_refuses_the_next(atom) -> None:  # type: ignore[no-untyped-def]
    for op in "ABC":
        e, n = atom.elements_per_register(op), atom.num_elements(op)
        regs = n // e  # every catalog fragment fills whole registers
        assert regs * e == n
        for reg in range(regs):
            assert atom.fragment_coord_reg(op, 0, reg, e - 1) == atom.fragment_coord(op, 0, reg * e + e - 1)
        with pytest.raises(InstructionError, match=rf"^register for operand {op} must be in \[0, {regs}\), got {regs}$"):
            atom.fragment_coord_reg(op, 0, regs, 0)


def test_an_operand_narrower_than_a_register_is_held_in_register_zero() -> None:
    """CuTe's UniversalFMA is generic in its types: with half_t operands each thread holds one 16-bit element of A,
    in the low half of one register (register 0, element 0); element 1 of that register is not in the fragment."""
    fma = next(a for a in ALL_MMA_ATOMS if a.name == "UniversalFMA")
    half = dataclasses.replace(fma, a_type="f16", b_type="f16", c_type="f16", d_type="f16")
    assert half.elements_per_register("A") == 2 and half.num_elements("A") == 1
    assert half.fragment_coord_reg("A", 0, 0, 0) == (0, 0)
    with pytest.raises(InstructionError, match="element index i for operand A must be in"):
        half.fragment_coord_reg("A", 0, 0, 1)


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_ptx_mma_index_is_the_quad_pair_on_sm70_and_zero_elsewhere_for_lanes_0_to_31(atom) -> None:  # type: ignore[no-untyped-def]
    assert [atom.ptx_mma_index(lane) for lane in range(32)] == [
        (lane % 16) // 4 if atom.arch == 70 else 0 for lane in range(32)]
    for lane in (-1, 32):
        with pytest.raises(InstructionError, match=rf"^lane must be in \[0, 32\), got {lane}$"):
            atom.ptx_mma_index(lane)


def test_an_mma_atom_prints_its_names_shape_and_cute_layouts() -> None:
    atom = next(a for a in MMA_ATOMS if a.name == "SM80_16x8x16_F32F16F16F32_TN")
    assert str(atom) == ("SM80_16x8x16_F32F16F16F32_TN (mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32): 16x8x16, "
                         "ThrID 32:1, A ((4,8),(2,2,2)):((32,1),(16,8,128)), B ((4,8),(2,2)):((16,1),(8,64)), "
                         "C ((4,8),(2,2)):((32,1),(16,8))")

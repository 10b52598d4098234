"""The extended mma atom table (layoutalg.atoms.mma_ext: sm75 f16, integer, binary, saturating, complex, sm90 f64,
dp4a/dp2a/fma) against the PTX ISA fragment formulas written as one formula per family
(tests/mma_fragment_oracle.py), and CuTe's names against each atom's fields."""

from __future__ import annotations

import pytest
from cute_cpp_printout import traits_unlike_cute
from mma_fragment_oracle import check_fragments, check_name, ptx_coord

from layoutalg.atoms.mma import MMA_ATOMS
from layoutalg.atoms.mma_ext import MMA_EXT_ATOMS


@pytest.mark.parametrize("atom", MMA_EXT_ATOMS, ids=lambda a: a.name)
def test_every_value_of_every_operand_sits_where_the_ptx_fragment_formula_puts_it(atom) -> None:  # type: ignore[no-untyped-def]
    check_fragments(atom)


@pytest.mark.parametrize("atom", MMA_EXT_ATOMS, ids=lambda a: a.name)
def test_the_cute_name_states_the_atoms_arch_shape_and_types_and_the_ptx_text_agrees(atom) -> None:  # type: ignore[no-untyped-def]
    if atom.shape_mnk[:2] == (1, 1):
        assert atom.thr_id.size() == 1 and atom.name in ("SM61_DP4A", "SM61_DP2A", "UniversalFMA")
        return
    check_name(atom)


def test_binary_atoms_name_their_popc_operation_in_the_ptx_text() -> None:
    binary = [a for a in MMA_EXT_ATOMS if a.a_type == "b1"]
    assert len(binary) == 6
    for atom in binary:
        op = atom.name.rsplit("_", 1)[1].removesuffix("POPC").lower()
        assert atom.ptx.endswith(f".s32.b1.b1.s32.{op}.popc"), atom.ptx


def test_every_saturating_atom_is_a_plain_integer_atom_with_satfinite() -> None:
    plain = {a.name: a for a in (*MMA_ATOMS, *MMA_EXT_ATOMS)}
    saturating = [a for a in MMA_EXT_ATOMS if a.name.endswith("_SATURATE")]
    assert len(saturating) == 24
    for atom in saturating:
        base = plain[atom.name.removesuffix("_SATURATE")]
        assert atom.ptx == base.ptx.replace(".row.col.", ".row.col.satfinite.")
        assert (atom.arch, atom.shape_mnk, atom.a_layout, atom.b_layout, atom.c_layout) == (
            base.arch, base.shape_mnk, base.a_layout, base.b_layout, base.c_layout)


def test_one_thread_dot_products_take_k_packed_values_of_a_and_b() -> None:
    by_name = {a.name: a for a in MMA_EXT_ATOMS}
    assert by_name["SM61_DP4A"].shape_mnk == (1, 1, 4) and by_name["SM61_DP2A"].shape_mnk == (1, 1, 2)
    assert by_name["SM61_DP4A"].arch == by_name["SM61_DP2A"].arch == 61
    assert by_name["UniversalFMA"].shape_mnk == (1, 1, 1)
    assert by_name["UniversalFMA"].arch == 50  # a plain C++ fma: the oldest arch CuTe's atoms name (SM50_...), as UniversalCopy


@pytest.mark.parametrize("atom", MMA_EXT_ATOMS, ids=lambda a: a.name)
def test_fragment_coord_is_the_ptx_fragment_formula_at_every_lane_and_element(atom) -> None:  # type: ignore[no-untyped-def]
    lanes = range(atom.thr_id.size()) if atom.shape_mnk[:2] == (1, 1) else range(32)
    for op in "ABC":
        got = {(lane, i): atom.fragment_coord(op, lane, i) for lane in lanes for i in range(atom.num_elements(op))}
        assert got == {key: ptx_coord(atom, op, *key) for key in got}, op


#: CuTe 4.2's two defective trait families (tests/test_atoms_cute_cpp.py proves both on CuTe's printout), where the
#: atom keeps the PTX ISA table: the int4 16x8x32 B layout and the binary 16x8x128 A layout.
def _defective_trait(name: str) -> str | None:
    if name.startswith("SM80_16x8x32_S32") and name.split("_")[2][3:5] in ("S4", "U4"):
        return "b"
    return "a" if name.startswith("SM80_16x8x128_S32U1U1S32_TN_") else None


@pytest.mark.parametrize("atom", MMA_EXT_ATOMS, ids=lambda a: a.name)
def test_every_atom_carries_cutes_traits_as_cute_cpp_prints_them_but_the_two_defective_ones(atom) -> None:  # type: ignore[no-untyped-def]
    """cute/atom/mma_traits_sm61/75/80/90.hpp as CuTe C++ prints them: the same shapes and strides, not only the
    same functions; the defective traits differ, and only they."""
    defective = _defective_trait(atom.name)
    assert [trait for trait, _, _ in traits_unlike_cute(atom)] == ([defective] if defective else [])

"""The extended mma atom table (layoutalg.atoms.mma_ext: sm75 f16, integer, binary, saturating, complex, sm90 f64,
dp4a/dp2a/fma) against the PTX ISA fragment formulas written as one formula per family
(tests/mma_fragment_oracle.py), and CuTe's names against each atom's fields."""

from __future__ import annotations

import pytest
from mma_fragment_oracle import check_fragments, check_name

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

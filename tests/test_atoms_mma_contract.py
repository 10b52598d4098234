"""The mma.sync atom table (layoutalg.atoms.mma.MMA_ATOMS) against the PTX ISA fragment formulas written as
one formula per family (tests/mma_fragment_oracle.py), and CuTe's names against each atom's fields."""

from __future__ import annotations

import pytest
from mma_fragment_oracle import check_fragments, check_name

from layoutalg.atoms.mma import MMA_ATOMS


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_every_value_of_every_operand_sits_where_the_ptx_fragment_formula_puts_it(atom) -> None:  # type: ignore[no-untyped-def]
    check_fragments(atom)


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_the_cute_name_states_the_atoms_arch_shape_and_types_and_the_ptx_text_agrees(atom) -> None:  # type: ignore[no-untyped-def]
    check_name(atom)


def test_the_table_has_one_atom_per_cute_name() -> None:
    names = [a.name for a in MMA_ATOMS]
    assert len(names) == len(set(names)) == 34
    assert sum(a.arch == 70 for a in MMA_ATOMS) == 8  # m8n8k4 .f16/.f32 accumulators x 4 layouts
    assert {a.thr_id.size() for a in MMA_ATOMS if a.arch != 70} == {32}

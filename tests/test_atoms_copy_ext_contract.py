"""CuTe's SM50 2x2-transpose shuffles (layoutalg.atoms.copy_ext.shuffle_result) against a direct model: lanes
l and l ^ m (m = 1 or 4) each hold two 32-bit registers; together the four values form a 2x2 matrix (row = the
lane with the mask bit clear / set, column = register) that the atom transposes."""

from __future__ import annotations

import pytest

from layoutalg.atoms.copy_ext import COPY_EXT_ATOMS, shuffle_result
from layoutalg.errors import InstructionError

SHUFFLES = {"SM50_Shuffle_U32_2x2Trans_XOR1": 1, "SM50_Shuffle_U32_2x2Trans_XOR4": 4}


@pytest.mark.parametrize("name", sorted(SHUFFLES))
def test_a_shuffle_transposes_each_lane_pairs_two_by_two_register_matrix(name: str) -> None:
    mask = SHUFFLES[name]
    for lane in range(32):
        row = 1 if lane & mask else 0
        for reg in range(2):
            # after the transpose, (row, reg) holds what (reg, row) held before: lane of row `reg`, register `row`
            src_lane = lane if reg == row else lane ^ mask
            assert shuffle_result(name, lane, reg) == (src_lane, row), (lane, reg)


@pytest.mark.parametrize("lane, reg", [(32, 0), (-1, 0), (0, 2), (0, -1), (40, 1)])
def test_a_lane_or_register_outside_the_warp_is_refused(lane: int, reg: int) -> None:
    with pytest.raises(InstructionError, match=rf"lane in \[0, 32\) and reg in \{{0, 1\}}, got \({lane}, {reg}\)"):
        shuffle_result("SM50_Shuffle_U32_2x2Trans_XOR1", lane, reg)


def test_an_atom_that_is_no_sm50_shuffle_is_refused_by_name() -> None:
    with pytest.raises(InstructionError, match="SM75_U32x1_LDSM_N is not an SM50 shuffle atom"):
        shuffle_result("SM75_U32x1_LDSM_N", 0, 0)


def test_the_extension_table_names_each_atom_once_with_its_arch() -> None:
    names = [a.name for a in COPY_EXT_ATOMS]
    assert len(names) == len(set(names))
    for atom in COPY_EXT_ATOMS:
        assert atom.arch == (100 if atom.name.startswith("SM100") else 80 if atom.name.startswith("SM80") else 50)
        if atom.kind == "cp.async":
            nbytes = atom.vector_bits // 8
            assert atom.ptx.endswith(f", {nbytes}, src_size") and atom.name.endswith(f"_ZFILL<uint{8 * nbytes}_t>")

"""banks.cp_async: the sector symmetries the .cg rule counts with, and lanes that are inactive on one side only.

Truths written here: the eight sector maps are the permutations of the four 32-byte sectors that keep
neighbouring sectors (on the cycle 0-1-2-3-0) neighbours, found by trying all 24; an inactive lane is one whose
shared or whose global offset is None, and costs the same as a lane with both None.
"""

from __future__ import annotations

from itertools import permutations

import pytest

from layoutalg.banks import wavefronts
from layoutalg.banks.cp_async import SECTOR_MAPS, ca_wavefronts, cg_wavefronts

CG = "cp.async.cg.shared.global"


def test_sector_maps_are_the_eight_symmetries_of_the_four_sectors():
    symmetries = {frozenset(enumerate(p)) for p in permutations(range(4))
                  if all((p[(g + 1) % 4] - p[g]) % 4 in (1, 3) for g in range(4))}
    assert len(symmetries) == 8
    assert len(SECTOR_MAPS) == 8 and set(SECTOR_MAPS) == symmetries


def _one_side_inactive(width: int) -> tuple[list[int | None], list[int | None]]:
    # lane i writes shared 16-byte slot (5 i) % 32 of its row and reads global slot i: a scattered copy
    smem: list[int | None] = [((5 * i) % 32) * width for i in range(32)]
    glob: list[int | None] = [i * width for i in range(32)]
    return smem, glob


@pytest.mark.parametrize("side", ["shared", "global"])
def test_a_cg_lane_inactive_on_one_side_costs_as_an_inactive_lane(side):
    smem, glob = _one_side_inactive(16)
    both_smem, both_glob = list(smem), list(glob)
    for lane in (3, 17, 30):
        (smem if side == "shared" else glob)[lane] = None
        both_smem[lane] = both_glob[lane] = None
    assert cg_wavefronts(smem, glob) == cg_wavefronts(both_smem, both_glob)
    assert wavefronts(CG, smem, glob) == wavefronts(CG, both_smem, both_glob)


@pytest.mark.parametrize("width", [4, 8, 16])
@pytest.mark.parametrize("side", ["shared", "global"])
def test_a_ca_lane_inactive_on_one_side_costs_as_an_inactive_lane(side, width):
    smem, glob = _one_side_inactive(width)
    both_smem, both_glob = list(smem), list(glob)
    for lane in (3, 17, 30):
        (smem if side == "shared" else glob)[lane] = None
        both_smem[lane] = both_glob[lane] = None
    assert ca_wavefronts(smem, glob, width) == ca_wavefronts(both_smem, both_glob, width)
    ins = f"cp.async.ca.shared.global, {width}"
    assert wavefronts(ins, smem, glob) == wavefronts(ins, both_smem, both_glob)

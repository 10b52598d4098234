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


def _random_batch(seed: int, n: int, width: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    smem = rng.integers(0, 64, size=(n, 32)) * width          # 4 KiB of shared memory
    glob = rng.integers(0, 48, size=(n, 32)) * width          # a few global lines per instruction
    active = rng.random((n, 32)) < 0.85
    smem[:, 1::7] = smem[:, ::7][:, : smem[:, 1::7].shape[1]]  # some lanes write the same shared address
    return smem.astype(np.int64), glob.astype(np.int64), active


def _lanes_of(row, mask):
    return [int(x) if a else None for x, a in zip(row, mask)]


def test_vector_cg_ideal_is_the_distinct_destinations_over_eight():
    import numpy as np

    from layoutalg.banks.cp_async_vector import cp_async_many
    from layoutalg.banks.instruction import parse_instruction

    smem, glob, active = _random_batch(11, 40, 16)
    active[0] = False          # an instruction with no active lane: ideal 0
    active[1, 9:] = False      # nine lanes: ideal 2 (at most 9 distinct destinations)
    _, ideal = cp_async_many(parse_instruction(CG), smem, glob, active)
    expect = [-(-len({int(s) // 16 for s, a in zip(smem[i], active[i]) if a}) // 8) for i in range(len(smem))]
    assert ideal.tolist() == expect
    assert np.isin(expect, [0, 1, 2, 3, 4]).all() and len(set(expect)) >= 3


@pytest.mark.parametrize("cache, width", [("cg", 16), ("ca", 16), ("ca", 4)])
def test_vector_rules_hold_for_global_offsets_near_2_to_the_62(cache, width):
    # (instruction, shared row, global line) sort keys no longer fit 62 bits: the pairs are ranked instead
    from layoutalg.banks.cp_async_vector import cp_async_many
    from layoutalg.banks.instruction import parse_instruction

    smem, glob, active = _random_batch(7, 600, width)
    glob = glob + (1 << 61)
    ins = CG if cache == "cg" else f"cp.async.ca.shared.global, {width}"
    wf, _ = cp_async_many(parse_instruction(ins), smem, glob, active)
    for i in range(len(smem)):
        s, g = _lanes_of(smem[i], active[i]), _lanes_of(glob[i], active[i])
        assert wf[i] == (cg_wavefronts(s, g) if cache == "cg" else ca_wavefronts(s, g, width))


def test_vector_cg_ideal_counts_slot_zero_and_skips_inactive_lanes():
    # nine distinct 16-byte destinations need two ideal wavefronts, eight need one
    import numpy as np

    from layoutalg.banks.cp_async_vector import cp_async_many
    from layoutalg.banks.instruction import parse_instruction

    lane = np.arange(32)
    smem = np.stack([16 * (lane % 9), 16 * (lane % 9), 16 * (lane % 8)]).astype(np.int64)
    active = np.stack([lane >= 0, lane < 9, lane < 31])  # all lanes; lanes 0-8; all but lane 31
    _, ideal = cp_async_many(parse_instruction(CG), smem, smem, active)
    assert ideal.tolist() == [2, 2, 1]


@pytest.mark.parametrize("ins", [CG, "cp.async.ca.shared.global, 8"])
def test_vector_rules_for_no_instruction_one_instruction_and_no_active_lane(ins):
    import numpy as np

    from layoutalg.banks.cp_async_vector import cp_async_many
    from layoutalg.banks.instruction import parse_instruction

    parsed = parse_instruction(ins)
    empty = np.zeros((0, 32), dtype=np.int64)
    wf, ideal = cp_async_many(parsed, empty, empty)
    assert wf.shape == ideal.shape == (0,)
    one = (16 * np.arange(32, dtype=np.int64))[None, :]  # 512 consecutive bytes on both sides
    wf, ideal = cp_async_many(parsed, one, one)
    lanes = [int(x) for x in one[0]]
    expect = cg_wavefronts(lanes, lanes) if parsed.cache == "cg" else ca_wavefronts(lanes, lanes, 8)
    assert wf.tolist() == [expect] and len(ideal) == 1
    idle = np.zeros((3, 32), dtype=bool)
    wf, ideal = cp_async_many(parsed, np.repeat(one, 3, axis=0), np.repeat(one, 3, axis=0), idle)
    assert wf.tolist() == ideal.tolist() == [0, 0, 0]

"""Bank-model behaviour that mutation testing (tools/mutation, docs/mutation.md) showed no other test pinned.

Expected values are derived here from the rules of ``layoutalg/banks/model.py``'s module doc (words of
4 bytes, bank = word mod 32, cost = distinct words per bank), not copied from the model's output.
"""

from __future__ import annotations

import pytest

from layoutalg.banks import excess_wavefronts, ideal_wavefronts, report
from layoutalg.errors import InstructionError

STRIDE_2_WORDS = [8 * i for i in range(32)]  # lane i -> word 2i: even banks hold 2 distinct words each
CONTIGUOUS_V4 = [16 * i for i in range(32)]  # 512 contiguous bytes: 4 phases of 8 lanes, 32 words each


def test_text_report_names_each_conflicting_word_with_its_byte_address_and_lanes():
    text = str(report("ld.shared.b32", STRIDE_2_WORDS))
    assert "phase 0 (lanes 0-31): 2 wavefronts (ideal 1)" in text
    assert "bank 0: 2-way: word 0 (byte 0) <- lanes [0]; word 32 (byte 128) <- lanes [16]" in text


def test_text_report_gives_each_phase_its_first_and_last_lane():
    text = str(report("ld.shared.v4.b32", CONTIGUOUS_V4))
    for k in range(4):
        assert f"phase {k} (lanes {8 * k}-{8 * k + 7}): 1 wavefronts (ideal 1)" in text


def test_conflict_free_access_lists_no_conflicting_bank():
    r = report("ld.shared.v4.b32", CONTIGUOUS_V4)
    assert r.conflict_free
    assert all(phase.conflicts == () for phase in r.phases)
    assert "way" not in str(r)


def test_conflicting_access_is_not_conflict_free():
    assert not report("ld.shared.b32", STRIDE_2_WORDS).conflict_free


def test_ideal_and_excess_wavefronts_follow_distinct_words_per_phase():
    # 32 distinct words in one phase: ideal ceil(32/32) = 1; cost 2 (two words in each even bank): excess 1
    assert ideal_wavefronts("ld.shared.b32", STRIDE_2_WORDS) == 1
    assert excess_wavefronts("ld.shared.b32", STRIDE_2_WORDS) == 1
    # 4 phases of 32 distinct words, one per bank: ideal 4, no excess
    assert ideal_wavefronts("ld.shared.v4.b32", CONTIGUOUS_V4) == 4
    assert excess_wavefronts("ld.shared.v4.b32", CONTIGUOUS_V4) == 0


def test_wrong_lane_count_error_states_the_counts_the_instruction_accepts():
    with pytest.raises(InstructionError, match=r"needs 32 lane addresses, got 8$"):
        report("ldmatrix.sync.aligned.m8n8.x4.shared.b16", [0] * 8)
    with pytest.raises(InstructionError, match=r"needs 32 \(or 8, the lanes \.x1 reads\) lane addresses, got 5"):
        report("ldmatrix.sync.aligned.m8n8.x1.shared.b16", [0] * 5)


def test_report_of_a_small_ldmatrix_lists_one_address_per_lane_with_ignored_lanes_as_zero():
    rows = [16 * i for i in range(8)]
    r = report("ldmatrix.sync.aligned.m8n8.x1.shared.b16", rows)
    assert r.lane_byte_addresses == tuple(rows) + (0,) * 24


def test_addresses_ldmatrix_ignores_are_reported_as_zero_even_when_given():
    rows = [16 * i for i in range(32)]  # .x1 reads the row addresses of lanes 0-7 only
    r = report("ldmatrix.sync.aligned.m8n8.x1.shared.b16", rows)
    assert r.lane_byte_addresses == tuple(rows[:8]) + (0,) * 24


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("instruction, size", [("ld.shared.b32", 4), ("ld.shared.v4.b32", 16)])
def test_an_access_that_ends_past_shared_memory_is_refused_with_its_end(arch, instruction, size):
    from layoutalg.atoms.arch import get_arch

    capacity = get_arch(arch).smem_per_block_bytes
    assert report(instruction, [capacity - size] * 32, arch=arch).wavefronts >= 1  # ends exactly at the capacity
    with pytest.raises(InstructionError, match=f"ends at byte {capacity + size}, past the"):
        report(instruction, [capacity] * 32, arch=arch)


def test_lanes_pair_up_ignores_a_pair_with_an_inactive_lane_but_not_two_unequal_active_ones():
    from layoutalg.banks.model import lanes_pair_up

    pairs = [8 * (i // 2) for i in range(32)]  # lane i holds lane i ^ 1's address
    assert lanes_pair_up(pairs)
    one_off = [None] + pairs[1:]  # lane 0 inactive, its partner lane 1 active: ignored (rule 5)
    assert lanes_pair_up(one_off)
    unequal = [None, 8, 8, 16] + pairs[4:]  # lanes 2 and 3 active, different addresses (and no i ^ 2 pairing)
    assert not lanes_pair_up(unequal)
    assert lanes_pair_up([None] * 32) and not lanes_pair_up(list(range(0, 256, 8)))


def test_bank_reports_are_immutable_values():
    import dataclasses

    r = report("ld.shared.b32", STRIDE_2_WORDS)
    for value in (r, r.phases[0], r.phases[0].conflicts[0]):
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.wavefronts = 0  # type: ignore[misc]
        assert hash(value) == hash(dataclasses.replace(value))  # equal values hash alike: usable as keys


def test_a_cp_async_without_global_addresses_is_refused_with_the_reason():
    with pytest.raises(InstructionError, match="cp.async's shared-memory cost depends on where each lane's data"):
        report("cp.async.cg.shared.global", [16 * i for i in range(32)])

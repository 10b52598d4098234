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

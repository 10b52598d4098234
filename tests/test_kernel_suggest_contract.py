"""Suggested swizzles (``layoutalg.kernel.suggest``) on accesses whose conflict-free swizzle is known by hand:
a column walk of a 128-byte-row tile (lane i at 128 i: 32-way on bank 0) needs all five row bits XORed into the
bank bits, Swizzle<5,2,5> on byte offsets (Swizzle<5,0,5> on 4-byte elements); eight rows of four words
(lane i at 128 (i mod 8) + 4 (i div 8): 8-way) need the three row bits XORed into bank bits 2..4, Swizzle<3,4,3>;
conflicts in address bits above 12 have no swizzle in the searched range."""

from __future__ import annotations

import numpy as np

from layoutalg.kernel import trace
from layoutalg.kernel.records import AccessRecord
from layoutalg.kernel.result import InstructionStats, Trace
from layoutalg.kernel.suggest import annotate_suggestions, best_swizzle

LANES = np.arange(32, dtype=np.int64)
COLUMN = 128 * LANES
EIGHT_ROWS = 128 * (LANES % 8) + 4 * (LANES // 8)


def test_a_32_way_column_walk_needs_all_five_row_bits() -> None:
    assert best_swizzle("ld.shared.b32", COLUMN[None], 4) == (5, 2, 5, 1)
    assert best_swizzle("ld.shared.b32", np.stack([COLUMN, COLUMN + 4]), 4) == (5, 2, 5, 2)


def test_an_8_way_access_takes_the_fewest_bits_that_reach_the_ideal() -> None:
    assert best_swizzle("ld.shared.b32", EIGHT_ROWS[None], 4) == (3, 4, 3, 1)
    assert best_swizzle("st.shared.b32", EIGHT_ROWS[None], 4) == (3, 4, 3, 1)


def test_among_equal_bit_counts_the_smallest_shift_wins() -> None:
    # lane i at 4 (i mod 16) + 384 (i div 16): a 2-way conflict whose row bit sits in address bits 7 and 8; bank
    # bit 4 (address bit 6) is the only free one, and either source bit frees it: S = 1 (bit 7) beats S = 2 (bit 8)
    rows = 4 * (LANES % 16) + 384 * (LANES // 16)
    assert best_swizzle("ld.shared.b32", rows[None], 4) == (1, 6, 1, 1)


def test_the_answer_does_not_depend_on_where_the_buffer_starts() -> None:
    for base in (0x10000, 0x2F000, 0x30000 + 1024):
        assert best_swizzle("ld.shared.b32", (EIGHT_ROWS + base)[None], 4) == (3, 4, 3, 1)


def test_wide_accesses_keep_their_alignment() -> None:
    # 8-byte loads, lane i at 256 i: M >= 3 keeps every 8-byte access whole
    found = best_swizzle("ld.shared.b64", (256 * LANES)[None], 8)
    assert found is not None and found[1] >= 3 and found[3] == 2  # 64-bit loads: 2 wavefronts is the ideal


def test_conflicts_in_address_bits_twelve_and_up_have_no_suggestion() -> None:
    assert best_swizzle("ld.shared.b32", (4096 * LANES)[None], 4) is None


HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" \
       ".reg .b32 %r<16>; .reg .pred %p<4>;\n.shared .align 128 .b8 s[8192];\nmov.u32 %r1, s;\nmov.u32 %r2, %tid.x;\n"


def kernel(body: list[str]) -> str:
    return HEAD + "\n".join(body) + "\n" + OBSERVE + "ret;\n}\n"


# every register stored before ret: the kernels read what they load (else ptxas, and the tracer, drop the load)
OBSERVE = "".join(f"st.global.b32 [0], %r{k};\n" for k in range(16))


COLUMN_LD = ["shl.b32 %r3, %r2, 7;", "add.u32 %r3, %r1, %r3;", "ld.shared.u32 %r4, [%r3];"]


def test_a_traced_conflict_gets_the_swizzle_in_byte_and_element_terms() -> None:
    s = trace(kernel(COLUMN_LD), block=32).instructions[0]
    assert s.suggested_swizzle == (5, 2, 5)
    assert "Swizzle<5,2,5>" in s.suggestion and "Swizzle<5,0,5> on 4-byte elements" in s.suggestion
    assert "costs its ideal 1 wavefronts instead of 32" in s.suggestion


def test_ldmatrix_suggestions_count_two_byte_elements() -> None:
    body = ["shl.b32 %r3, %r2, 7;", "add.u32 %r3, %r1, %r3;",
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r4, %r5, %r6, %r7}, [%r3];"]
    s = trace(kernel(body), block=32).instructions[0]
    assert s.excess > 0 and s.suggested_swizzle is not None
    b, m, sh = s.suggested_swizzle
    assert f"Swizzle<{b},{m - 1},{sh}> on 2-byte elements" in s.suggestion


def test_conflict_free_partial_and_unmodelled_instructions_get_no_suggestion() -> None:
    free = ["shl.b32 %r3, %r2, 2;", "add.u32 %r3, %r1, %r3;", "ld.shared.u32 %r4, [%r3];"]
    partial = ["setp.lt.u32 %p1, %r2, 16;"] + COLUMN_LD[:2] + ["@%p1 ld.shared.u32 %r4, [%r3];"]
    atom = COLUMN_LD[:2] + ["atom.shared.add.u32 %r4, [%r3], 1;"]
    for body in (free, partial, atom):
        for s in trace(kernel(body), block=32).instructions:
            assert s.suggestion == "" and s.suggested_swizzle is None
    # 256-byte rows put the lane's bits in address bits 8..12, and bit 12 is beyond every searched swizzle
    far = ["shl.b32 %r3, %r2, 8;", "add.u32 %r3, %r1, %r3;", "ld.shared.u32 %r4, [%r3];"]
    s = trace(kernel(far), block=32).instructions[0]
    assert s.excess == 31 and s.suggested_swizzle is None


def test_only_the_three_costliest_instructions_get_a_suggestion() -> None:
    # four conflicting loads: 32-way (column), 16-way, 8-way, 4-way by row strides 128, 256, 512, 1024 over
    # 32, 16, 8, 4 distinct rows
    body = COLUMN_LD[:2]
    for k, lanes_per_row in enumerate((1, 2, 4, 8)):
        body += [f"shr.u32 %r5, %r2, {lanes_per_row.bit_length() - 1};", f"and.b32 %r6, %r2, {lanes_per_row - 1};",
                 "shl.b32 %r5, %r5, 7;", "shl.b32 %r6, %r6, 2;", "add.u32 %r5, %r5, %r6;", "add.u32 %r5, %r1, %r5;",
                 f"ld.shared.u32 %r{8 + k}, [%r5];"]
    ins = trace(kernel(body), block=32).instructions
    assert [s.excess for s in ins] == [31, 15, 7, 3]
    assert [s.suggested_swizzle is not None for s in ins] == [True, True, True, False]


def test_a_4_way_conflict_takes_two_row_bits_into_the_two_free_bank_bits() -> None:
    # lane i at 128 (i mod 4) + 4 (i div 4): 8 words in banks 0..7 (address bits 2..4), 4 rows (bits 7, 8): 4-way.
    # One bit can at most halve it; two bits reach the ideal only by XORing bits 7, 8 into the free bank bits 5, 6
    rows = 128 * (LANES % 4) + 4 * (LANES // 4)
    assert best_swizzle("ld.shared.b32", rows[None], 4) == (2, 5, 2, 1)


def test_the_least_shift_wins_over_the_first_found_position() -> None:
    # lanes 2k, 2k+1 share a word: 8 words (bits 2..4) in two rows 384 bytes apart (bits 7, 8): 2-way.  Bit 7 XORed
    # into bit 5 (S = 2) or bit 6 (S = 1) both reach the ideal; the smaller shift wins though M = 5 comes first
    rows = 4 * ((LANES % 16) // 2) + 384 * (LANES // 16)
    assert best_swizzle("ld.shared.b32", rows[None], 4) == (1, 6, 1, 1)


def test_an_access_already_at_its_ideal_gets_no_swizzle() -> None:
    # every Swizzle<1,M,1> with M = 2..5 only permutes banks and keeps the ideal, but nothing needs fixing
    assert best_swizzle("ld.shared.b32", (4 * LANES)[None], 4) is None
    assert best_swizzle("ld.shared.u16", (2 * LANES)[None], 2) is None


def test_a_conflict_only_the_lowest_bank_bit_can_fix_gets_m_2() -> None:
    # 4-byte words: lanes 0..15 at 8 i use bank bits 3..6 (even banks); lanes 16..31 add 1024 (bit 10): a 2-way
    # conflict per bank.  Only bank bit 2 is free, so only bit 10 XORed into bit 2 (Swizzle<1,2,8>) reaches the ideal
    rows = np.where(LANES < 16, 8 * (LANES % 16), 8 * (LANES % 16) + 1024)[None]
    assert best_swizzle("ld.shared.b32", rows, 4) == (1, 2, 8, 1)


def test_a_2_way_conflict_with_excess_one_gets_a_suggestion() -> None:
    # lane i at 4 (i mod 16) + 384 (i div 16): lanes i and i + 16 share a bank with different words (bits 7, 8);
    # bank bit 4 (address bit 6) is free, and bit 7 XORed into it (Swizzle<1,6,1>) reaches the ideal
    body = ["and.b32 %r4, %r2, 15;", "shr.u32 %r5, %r2, 4;", "shl.b32 %r4, %r4, 2;", "mul.lo.u32 %r5, %r5, 384;",
            "add.u32 %r4, %r4, %r5;", "add.u32 %r4, %r1, %r4;", "ld.shared.u32 %r6, [%r4];"]
    s = trace(kernel(body), block=32).instructions[0]
    assert (s.wavefronts, s.ideal) == (2, 1) and s.suggested_swizzle == (1, 6, 1)


def test_the_suggestion_is_searched_on_the_first_4096_full_warps() -> None:
    # 4095 conflict-free warps, then an 8-way warp (needs Swizzle<3,4,3>, which leaves the first ones ideal), then
    # a 32-way warp in address bits 12..16 (no swizzle in the searched range): the search sees the first 4096
    rows = np.stack([4 * LANES] * 4095 + [EIGHT_ROWS, 4096 * LANES])
    rec = AccessRecord(0, 5, "ld.shared.u32", "ld", 4, "ld.shared.b32", 0, np.arange(len(rows)),
                       np.ones(rows.shape, dtype=bool), rows)
    stats = InstructionStats(0, 5, "ld.shared.u32", "ld", "ld.shared.b32", None, None, executions=len(rows),
                             modelled_executions=len(rows), wavefronts=4095 + 8 + 32, ideal=len(rows))
    t = Trace("k", (4097, 1, 1), (32, 1, 1), None, [stats], [], [], [rec], {}, 0, {}, [], 0)
    annotate_suggestions(t)
    assert stats.suggested_swizzle == (3, 4, 3)

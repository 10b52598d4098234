"""Suggested swizzles (``layoutalg.kernel.suggest``) on accesses whose conflict-free swizzle is known by hand:
a column walk of a 128-byte-row tile (lane i at 128 i: 32-way on bank 0) needs all five row bits XORed into the
bank bits, Swizzle<5,2,5> on byte offsets (Swizzle<5,0,5> on 4-byte elements); eight rows of four words
(lane i at 128 (i mod 8) + 4 (i div 8): 8-way) need the three row bits XORed into bank bits 2..4, Swizzle<3,4,3>;
conflicts in address bits above 12 have no swizzle in the searched range."""

from __future__ import annotations

import numpy as np

from layoutalg.kernel import trace
from layoutalg.kernel.suggest import best_swizzle

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
    return HEAD + "\n".join(body) + "\nret;\n}\n"


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

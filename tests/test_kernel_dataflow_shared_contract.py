"""Shared-memory tags and the race check (layoutalg/kernel/dataflow/shared.py) on two-warp PTX snippets:
warp 0 (threads 0..31) and warp 1 (32..63) access the same words; without a barrier between them each kind
of conflicting pair (read after write, write after read, write after write) is one race naming both
instructions, both warps, the first unit's shared address and the number of unit accesses; a barrier
orders them.  One warp's lanes writing different tags to one unit in one step leave it OPAQUE."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import lane_units, run

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.shared import SharedTags, sample_units
from layoutalg.kernel.interp.spaces import SMEM_BASE

# %r11 = sm + 4 * (tid % 32): both warps use the same 32 words (64 units); %p1 = warp 0
P = ["ld.global.u32 %r2, [%rd4];", "mov.u32 %r10, sm;", "and.b32 %r12, %r1, 31;", "mad.lo.u32 %r11, %r12, 4, %r10;",
     "setp.lt.u32 %p1, %r1, 32;"]


@pytest.mark.parametrize("first,second,kind", [
    ("@%p1 st.shared.u32 [%r11], %r2;", "@!%p1 ld.shared.u32 %r4, [%r11];", "read after write (no barrier between)"),
    ("@!%p1 ld.shared.u32 %r4, [%r11];", "@%p1 st.shared.u32 [%r11], %r2;", "write after read (no barrier between)"),
    ("@!%p1 st.shared.u32 [%r11], %r2;", "@%p1 st.shared.u32 [%r11], %r2;", "write after write (no barrier between)"),
])
def test_unordered_accesses_of_two_warps_are_one_race_of_their_kind(first: str, second: str, kind: str) -> None:
    _, res = run(P + [first, second], block=64)
    assert len(res.races) == 1
    r = res.races[0]
    w1 = 1 if "!" in first else 0
    assert (r.kind, r.second - r.first, r.cta, r.first_warp, r.second_warp) == (kind, 1, 0, w1, 1 - w1)
    assert r.address == SMEM_BASE and r.count == 64  # 32 lanes x 2 units, first unit at sm
    _, res = run(P + [first, "bar.sync 0;", second], block=64)
    assert res.races == []


def test_accesses_of_one_warp_are_ordered_by_program_order() -> None:
    _, res = run(P + ["st.shared.u32 [%r11], %r2;", "ld.shared.u32 %r4, [%r11];", "st.shared.u32 [%r11], %r4;"])
    assert res.races == []


def test_two_warps_writing_one_unit_in_one_step_race_with_themselves() -> None:
    _, res = run(P + ["st.shared.u32 [%r11], %r2;"], block=64)
    assert [(r.kind, r.first == r.second, {r.first_warp, r.second_warp}) for r in res.races] == \
        [("write after write (no barrier between)", True, {0, 1})]


def test_reads_of_distinct_words_do_not_race() -> None:
    _, res = run(P + ["@%p1 st.shared.u32 [%r11], %r2;", "@!%p1 ld.shared.u32 %r4, [%r11+128];"], block=64)
    assert res.races == []


def test_lanes_of_one_warp_writing_different_tags_to_one_unit_leave_it_opaque() -> None:
    got = lane_units(["ld.global.u32 %r2, [%rd4];", "mov.u32 %r10, sm;", "st.shared.u32 [%r10], %r2;",
                      "ld.shared.u32 %r4, [%r10];", "st.global.u32 [%rd5], %r4;"])
    assert all(row == [("opaque", tg.W_CONFLICT)] * 2 for row in got)
    got = lane_units(["ld.global.u32 %r2, [%rd4];", "shfl.sync.idx.b32 %r3, %r2, 0, 31, -1;", "mov.u32 %r10, sm;",
                      "st.shared.u32 [%r10], %r3;", "ld.shared.u32 %r4, [%r10];", "st.global.u32 [%rd5], %r4;"])
    assert all(row == [("A", 0), ("A", 2)] for row in got)  # every lane wrote lane 0's units: kept


def test_shared_tags_size_rounds_up_to_whole_units() -> None:
    assert SharedTags(1, 1, 5, clocks=None).units == 3  # type: ignore[arg-type]
    assert SharedTags(2, 4, 0, clocks=None).units == 1  # type: ignore[arg-type]
    assert SharedTags(1, 1, 6, clocks=None).unit_index(SMEM_BASE + 5).tolist() == 2  # type: ignore[arg-type]


def test_sample_units_lists_the_units_of_each_access() -> None:
    got = sample_units([SMEM_BASE, SMEM_BASE + 6], 8).tolist()
    assert got == [[0, 1, 2, 3], [3, 4, 5, 6]]
    assert sample_units([SMEM_BASE + 4], 1).tolist() == [[2]] and sample_units([SMEM_BASE + 4], 2).tolist() == [[2]]


def test_a_race_names_the_shared_address_of_its_first_unit() -> None:
    _, res = run(P + ["@%p1 st.shared.u32 [%r11+128], %r2;", "@!%p1 ld.shared.u16 %h4, [%r11+130];"], block=64)
    assert [(r.address, r.count) for r in res.races] == [(SMEM_BASE + 130, 32)]


def test_each_cta_has_its_own_shared_memory() -> None:
    # CTA c: thread t loads A bytes 16 t + 4 c .. + 3, round-trips them through its CTA's word t, stores C 16 t + 4 c
    body = ["mov.u32 %r20, %ctaid.x;", "mul.wide.u32 %rd20, %r20, 4;", "add.s64 %rd21, %rd4, %rd20;",
            "add.s64 %rd22, %rd5, %rd20;", "ld.global.u32 %r2, [%rd21];", "mov.u32 %r10, sm;",
            "mad.lo.u32 %r11, %r1, 4, %r10;", "st.shared.u32 [%r11], %r2;", "ld.shared.u32 %r4, [%r11];",
            "st.global.u32 [%rd22], %r4;"]
    got = lane_units(body, grid=3, units=6)
    assert all(row == [("A", 16 * t + 2 * j) for j in range(6)] for t, row in enumerate(got))
    _, res = run(body, grid=3)
    assert res.races == []


LANE0 = ["setp.eq.u32 %p2, %r12, 0;", "and.pred %p3, %p1, %p2;", "not.pred %p4, %p1;", "and.pred %p4, %p4, %p2;"]
# %p3: lane 0 of warp 0 (thread 0); %p4: lane 0 of warp 1 (thread 32)


def test_one_unit_accessed_by_two_warps_without_a_barrier_is_a_race() -> None:
    """Thread 0 stores one 16-bit unit, thread 32 (warp 1) then loads it: one race of one unit access."""
    _, res = run(P + LANE0 + ["@%p3 st.shared.u16 [%r11], %h1;", "@%p4 ld.shared.u16 %h2, [%r11];"], block=64)
    assert [(r.kind, r.first_warp, r.second_warp, r.address, r.count) for r in res.races] == \
        [("read after write (no barrier between)", 0, 1, SMEM_BASE, 1)]


def test_a_write_by_another_warp_after_warp_0_s_write_is_a_race() -> None:
    """Warp 0 writes the words first, warp 1 overwrites them with no barrier: a write after write race."""
    _, res = run(P + ["@%p1 st.shared.u32 [%r11], %r2;", "@!%p1 st.shared.u32 [%r11], %r2;"], block=64)
    assert [(r.kind, r.first_warp, r.second_warp, r.count) for r in res.races] == \
        [("write after write (no barrier between)", 0, 1, 64)]


def test_two_lanes_of_two_warps_writing_one_unit_in_one_step_race() -> None:
    """Only threads 0 and 32 store, both to sm's first unit, in one step: two accesses, one race."""
    _, res = run(P + LANE0 + ["or.pred %p5, %p3, %p4;", "@%p5 st.shared.u16 [%r10], %h1;"], block=64)
    assert [(r.kind, {r.first_warp, r.second_warp}, r.address) for r in res.races] == \
        [("write after write (no barrier between)", {0, 1}, SMEM_BASE)]


def test_two_lanes_of_one_warp_writing_different_tags_to_one_unit_leave_it_opaque() -> None:
    """Lanes 0 and 1 store their own (different) A units to sm's first unit in one step; every lane reads it back."""
    got = lane_units(["ld.global.u16 %h1, [%rd4];", "mov.u32 %r10, sm;", "setp.lt.u32 %p2, %r1, 2;",
                      "@%p2 st.shared.u16 [%r10], %h1;", "ld.shared.u16 %h2, [%r10];", "st.global.u16 [%rd5], %h2;"],
                     units=1)
    assert all(row == [("opaque", tg.W_CONFLICT)] for row in got)


CP = ["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 16, %r10;", "cp.async.cg.shared.global [%r11], [%rd4], 16;",
      "cp.async.commit_group;"]  # one warp: each thread copies 16 bytes to its own shared bytes, group 0
READ_BACK = ["ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r11];", "st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};"]


def test_a_store_over_the_warp_s_own_first_cp_async_not_yet_waited_for_is_a_race() -> None:
    _, res = run(CP + ["st.shared.u32 [%r11], %r1;"])
    assert [(r.kind, r.first_warp, r.second_warp) for r in res.races] == \
        [("write over a cp.async not yet waited for", 0, 0)]
    _, res = run(CP + ["cp.async.wait_group 0;", "st.shared.u32 [%r11], %r1;"])
    assert res.races == []


def test_waiting_for_an_older_group_leaves_a_newer_copy_to_the_same_bytes_pending() -> None:
    """Group 0 and group 1 both copy to the same bytes; wait_group 1 completes group 0 only, so reading the bytes
    still reads group 1's copy before it is waited for (as well as group 1 overwriting group 0 racing)."""
    _, res = run(CP + ["cp.async.cg.shared.global [%r11], [%rd4], 16;", "cp.async.commit_group;",
                       "cp.async.wait_group 1;"] + READ_BACK)
    assert [r.kind for r in res.races] == ["write over a cp.async not yet waited for",
                                           "read of a cp.async not yet waited for"]


def test_a_race_of_two_warps_in_one_step_names_the_first_unit_s_address() -> None:
    """Both warps store the same 32 words in one step: the race's example is sm's first unit, warp 0 before warp 1."""
    _, res = run(P + ["st.shared.u32 [%r11], %r2;"], block=64)
    assert [(r.address, r.cta, r.first_warp, r.second_warp, r.count) for r in res.races] == [(SMEM_BASE, 0, 0, 1, 64)]

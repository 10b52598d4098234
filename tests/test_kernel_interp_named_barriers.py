"""Named barriers in the SIMT machine and the data-flow model (PTX ISA 8.x, "bar, barrier"): a CTA has sixteen
barriers, ``bar.arrive`` counts toward a phase without waiting, a phase completes when its count (whole warps)
or, without a count, every live thread of the CTA has arrived, threads that exit stop being waited for, and
waiters at one barrier are never released by another.  Warp-specialised kernels (a producer warp arriving,
a consumer warp syncing) rest on exactly these rules."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import run as flow_run
from kernel_interp_harness import lanes, launch, refusal

SMEM = ".shared .align 4 .b8 buf[256];"
WARP1 = "shr.u32 %r5, %r39, 5;\nsetp.eq.u32 %p1, %r5, 1;\n"  # %p1: the thread is in warp 1


def test_a_producer_warps_arrive_completes_a_consumer_warps_sync_and_the_consumer_sees_its_write():
    # the consumer (warp 1) comes first in program order, so it waits before the producer (warp 0) has written
    body = (WARP1 + "mov.u32 %r6, buf;\nand.b32 %r7, %r39, 31;\nshl.b32 %r7, %r7, 2;\nadd.u32 %r6, %r6, %r7;\n"
            "@!%p1 bra PRODUCE;\nbar.sync 1, 64;\nld.shared.u32 %r1, [%r6];\nbra.uni DONE;\n"
            "PRODUCE:\nadd.u32 %r8, %r39, 100;\nst.shared.u32 [%r6], %r8;\nbar.arrive 1, 64;")
    m = launch(body, threads=64, decls=SMEM)
    assert lanes(m, "%r1")[32:] == [t + 100 for t in range(32)]  # warp 0 lane t wrote t + 100


def test_waiters_at_one_named_barrier_are_not_released_by_arrivals_at_another():
    body = WARP1 + "@%p1 bra OTHER;\nbar.sync 1, 64;\nbra.uni DONE;\nOTHER:\nbar.sync 2, 64;"
    err, line = refusal(body, "bar.sync 1, 64", threads=64)
    assert err.line == line and "barrier never completes" in str(err)


def test_two_pairs_of_warps_complete_their_own_barriers_with_ids_computed_per_thread():
    # warps 0,1 use barrier 1 and warps 2,3 barrier 2, each counting 64 threads: both complete
    body = ("shr.u32 %r5, %r39, 6;\nadd.u32 %r5, %r5, 1;\nsetp.lt.u32 %p1, %r39, 64;\n@%p1 bra FIRST;\n"
            "bar.sync %r5, 64;\nmov.u32 %r1, 2;\nbra.uni DONE;\nFIRST:\nbar.sync %r5, 64;\nmov.u32 %r1, 1;")
    m = launch(body, threads=128)
    assert lanes(m, "%r1") == [1] * 64 + [2] * 64


def test_threads_that_exit_while_others_wait_let_a_countless_barrier_complete():
    body = WARP1 + "@%p1 bra LEAVE;\nbar.sync 0;\nmov.u32 %r1, 7;\nbra.uni DONE;\nLEAVE:\nexit;"
    m = launch(body, threads=64)
    assert lanes(m, "%r1")[:32] == [7] * 32


def test_a_counted_phase_completed_by_arrivals_alone_does_not_release_a_later_sync():
    # warps 0 and 1 both arrive (64 of 64: the phase completes with nobody waiting); warp 1's sync then opens a
    # new phase that nobody else reaches
    body = "bar.arrive 3, 64;\n" + WARP1 + "@!%p1 bra DONE;\nbar.sync 3, 64;\nmov.u32 %r1, 1;"
    err, line = refusal(body, "bar.sync 3, 64", threads=64)
    assert err.line == line and "barrier never completes" in str(err)


def test_a_barrier_id_out_of_range_or_unknown_is_refused_naming_the_line():
    err, line = refusal("bar.sync 16;", "bar.sync 16", threads=32)
    assert err.line == line and "barrier id 16 is out of range" in str(err)
    body = "mov.u32 %r6, %clock;\nbar.sync %r6;"
    err, line = refusal(body, "bar.sync %r6", threads=32)
    assert err.line == line and "barrier id is not a known value" in str(err)


P = ["ld.global.u32 %r2, [%rd4];", "mov.u32 %r10, sm;", "and.b32 %r12, %r1, 31;", "mad.lo.u32 %r11, %r12, 4, %r10;",
     "setp.lt.u32 %p1, %r1, 32;"]
RAW = "read after write (no barrier between)"


def test_a_named_barrier_pair_arrive_then_sync_orders_the_producers_write_before_the_consumers_read():
    body = P + ["@!%p1 bra CONSUME;", "st.shared.u32 [%r11], %r2;", "bar.arrive 1, 64;", "bra.uni END;",
                "CONSUME:", "bar.sync 1, 64;", "ld.shared.u32 %r4, [%r11];", "END:"]
    _, res = flow_run(body, block=64)
    assert res.races == []


def test_a_barrier_the_producer_does_not_arrive_at_orders_nothing():
    # warp 0 arrives at barrier 2 and syncs on nothing else; warp 1 reads after its own barrier-1 phase with
    # warps 2 and 3 (never with warp 0): the read races with warp 0's write
    body = P + ["setp.lt.u32 %p2, %r1, 64;", "@!%p1 bra REST;", "st.shared.u32 [%r11], %r2;", "bar.arrive 2, 64;",
                "bra.uni END;", "REST:", "bar.sync 1, 96;", "@%p2 ld.shared.u32 %r4, [%r11];", "END:",
                "@!%p1 bar.sync 2, 64;"]
    _, res = flow_run(body, block=128)
    assert [r.kind for r in res.races] == [RAW]


@pytest.mark.parametrize(("writer", "races"), [(0, []), (2, [RAW])])
def test_a_barrier_id_computed_per_thread_orders_only_the_warps_naming_the_same_id(writer, races):
    # warps 0,1 meet at barrier 1 and warps 2,3 at barrier 2 (id = tid / 64 + 1); warp 1 reads what warp
    # ``writer`` wrote before the barrier: ordered for warp 0 (same barrier), a race for warp 2
    body = ["ld.global.u32 %r2, [%rd4];", "mov.u32 %r10, sm;", "and.b32 %r12, %r1, 31;",
            "mad.lo.u32 %r11, %r12, 4, %r10;", "shr.u32 %r13, %r1, 5;", "shr.u32 %r14, %r1, 6;",
            "add.u32 %r14, %r14, 1;", f"setp.eq.u32 %p1, %r13, {writer};", "setp.eq.u32 %p2, %r13, 1;",
            "@%p1 st.shared.u32 [%r11], %r2;", "bar.sync %r14, 64;", "@%p2 ld.shared.u32 %r4, [%r11];"]
    _, res = flow_run(body, block=128)
    assert [r.kind for r in res.races] == races

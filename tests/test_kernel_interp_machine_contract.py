"""The SIMT machine's scheduling (machine.py): divergent lanes reconverge through nops, exits and guarded
barriers; lanes that branch past the end exit; an unknown guard forgets the destinations of exactly its
lanes; run-time special registers are unknown; barrier counts and deadlocks are refused naming the line."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from kernel_interp_harness import REGS, lanes, launch, observe, ptx_text, refusal

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.geometry import Geometry
from layoutalg.kernel.interp.program import build_image, run
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.records import Recorder

ODD = "and.b32 %r5, %r39, 1;\nsetp.eq.u32 %p1, %r5, 1;\n"


def test_divergent_lanes_run_nops_exits_and_rejoin_with_the_right_values():
    body = (ODD + "@%p1 bra ODDS;\nmembar.cta;\nmov.u32 %r1, 10;\nbra.uni JOIN;\nODDS:\nfence.acq_rel.cta;\n"
            "mov.u32 %r1, 20;\nJOIN:\nadd.u32 %r2, %r1, %r39;\nactivemask.b32 %r4;\nsetp.gt.u32 %p2, %r39, 27;\n"
            "@%p2 bra GONE;\nactivemask.b32 %r3;")
    m = launch(body, tail="DONE:\nret;\nGONE:")  # GONE: past the last instruction, so those lanes end there
    assert lanes(m, "%r2") == [(20 if t % 2 else 10) + t for t in range(32)]
    assert lanes(m, "%r4") == [0xFFFFFFFF] * 32  # both arms rejoined
    assert lanes(m, "%r3")[:28] == [(1 << 28) - 1] * 28


def test_lanes_that_exit_in_divergent_code_stop_while_the_rest_continue():
    body = ODD + "@%p1 bra KEEP;\nexit;\nKEEP:\nactivemask.b32 %r1;\nbar.sync 0;\nactivemask.b32 %r2;"
    m = launch(body, threads=64)
    odds = sum(1 << k for k in range(1, 32, 2))
    assert [v for t, v in enumerate(lanes(m, "%r1")) if t % 2] == [odds] * 32
    assert [v for t, v in enumerate(lanes(m, "%r2")) if t % 2] == [odds] * 32  # the exited lanes do not hold it


def test_a_barrier_reached_by_every_thread_through_two_guarded_instructions_releases():
    body = ODD + "@%p1 bar.sync 0;\n@!%p1 bar.sync 0;\nmov.u32 %r1, 1;"
    m = launch(body, threads=64)
    assert lanes(m, "%r1") == [1] * 64


def test_a_barrier_with_a_known_thread_count_releases_when_that_many_arrive():
    m = launch("bar.sync 1, 64;\nmov.u32 %r1, 1;\nbarrier.sync 2, %r31;\nmov.u32 %r2, 2;", [[0, 64]] * 64)
    assert lanes(m, "%r1") == [1] * 64 and lanes(m, "%r2") == [2] * 64


def test_a_barrier_count_that_differs_between_threads_is_refused():
    err, line = refusal("bar.sync 1, %r31;", "bar.sync 1", inputs=[[0, 32 + 32 * (t % 2)] for t in range(64)])
    assert err.line == line and "not a uniform known value" in str(err)


def test_a_barrier_that_can_never_complete_is_refused_naming_its_line():
    err, line = refusal("bar.sync 0, 96;\nmov.u32 %r1, 1;", "bar.sync 0, 96", threads=64)
    assert err.line == line and "barrier never completes" in str(err)
    body = ODD + "@%p1 bra LATE;\nbar.sync 0, 96;\nLATE:\nbar.sync 1, 96;"
    err, line = refusal(body, "bar.sync 0, 96", threads=64)
    assert err.line == line and "barrier never completes" in str(err) and f"[{line}, {line + 2}]" in str(err)
    m = launch("bar.arrive 0, 96;\nmov.u32 %r1, 1;", threads=64)  # arriving never waits
    assert lanes(m, "%r1") == [1] * 64


def test_an_unknown_guard_forgets_the_destination_on_exactly_those_lanes():
    body = ("mov.u32 %r1, 5;\nld.global.u32 %r6, [%rd14];\nsetp.eq.u32 %p2, %r39, 0;\n@%p2 mov.u32 %r6, 1;\n"
            "setp.ne.u32 %p3, %r6, 0;\n@%p3 mov.u32 %r1, 9;")
    m = launch(body)
    assert lanes(m, "%r1") == [9] + [None] * 31


def test_run_time_special_registers_are_unknown_and_unknown_ones_are_refused():
    m = launch("mov.u32 %r1, %clock;\nmov.u32 %r2, %smid;\nmov.u32 %r3, %laneid;")
    assert lanes(m, "%r1") == [None] * 32 and lanes(m, "%r2") == [None] * 32
    assert lanes(m, "%r3") == list(range(32))
    err, line = refusal("mov.u32 %r1, %tid;", "%tid;")
    assert err.line == line and "unknown special register %tid" in str(err)


def test_a_counted_barrier_counts_whole_warps_so_a_partial_warp_completes_it():
    m = launch("bar.sync 1, 64;\nmov.u32 %r1, 1;", threads=48)
    assert lanes(m, "%r1") == [1] * 48
    err, line = refusal("bar.sync 1, 96;", "bar.sync 1, 96", threads=48)
    assert err.line == line and "barrier never completes" in str(err)


# ---------------------------------------------------------------- special registers (PTX ISA 8.x, "Special Registers")
def test_lane_masks_hold_the_bits_below_at_and_above_the_lane():
    body = ("mov.u32 %r1, %lanemask_eq;\nmov.u32 %r2, %lanemask_lt;\nmov.u32 %r3, %lanemask_le;\n"
            "mov.u32 %r4, %lanemask_gt;\nmov.u32 %r5, %lanemask_ge;")
    m = launch(body, threads=64)
    lane = [t % 32 for t in range(64)]

    def bits(keep: Callable[[int, int], bool]) -> list[int | None]:  # the 32-bit mask of the bits k kept at lane L
        return [sum(1 << k for k in range(32) if keep(k, L)) for L in lane]

    assert lanes(m, "%r1") == bits(lambda k, L: k == L)
    assert lanes(m, "%r2") == bits(lambda k, L: k < L)
    assert lanes(m, "%r3") == bits(lambda k, L: k <= L)
    assert lanes(m, "%r4") == bits(lambda k, L: k > L)
    assert lanes(m, "%r5") == bits(lambda k, L: k >= L)


def test_a_launch_without_clusters_is_one_cta_per_implicit_cluster_and_has_64_warp_ids():
    # without a cluster launch every CTA is its own 1x1x1 cluster (rank 0 of 1, not explicit); %nwarpid is the
    # SM's warp slots, 64 on compute capability 9.0 (CUDA C++ Programming Guide, "maximum resident warps per SM")
    body = ("mov.u32 %r1, %cluster_ctaid.x;\nmov.u32 %r2, %cluster_ctaid.z;\nmov.u32 %r3, %cluster_nctaid.x;\n"
            "mov.u32 %r4, %cluster_nctaid.y;\nmov.u32 %r5, %cluster_ctarank;\nmov.u32 %r6, %cluster_nctarank;\n"
            "mov.pred %p1, %is_explicit_cluster;\nselp.u32 %r7, 1, 0, %p1;\nmov.u32 %r8, %nwarpid;")
    m = launch(body)
    assert [lanes(m, f"%r{k}")[0] for k in range(1, 9)] == [0, 0, 1, 1, 0, 1, 0, 64]


# ---------------------------------------------------------------- registers
def test_a_masked_write_keeps_knowledge_per_lane():
    body = ("mov.u32 %r1, 5;\nld.global.u32 %r6, [%rd14];\nsetp.eq.u32 %p2, %r39, 0;\n@%p2 mov.u32 %r1, %r6;\n"
            "mov.u32 %r3, 5;\n@%p2 mov.u32 %r3, %r20;\n@%p2 mov.u32 %r2, 7;")  # %r20, %r2: never written
    m = launch(body)
    assert lanes(m, "%r1") == [None] + [5] * 31  # an unknown value written on lane 0 only
    assert lanes(m, "%r3") == [None] + [5] * 31
    assert lanes(m, "%r2") == [7] + [None] * 31  # a known value written on lane 0 of an unknown register


def test_addc_without_an_earlier_carry_out_reads_an_unknown_carry():
    m = launch("addc.u32 %r1, %r30, %r31;", [[1, 2]] * 32)
    assert lanes(m, "%r1") == [None] * 32


def test_an_instruction_guarded_by_a_predicate_never_written_leaves_its_destination_unknown():
    m = launch("mov.u32 %r1, 5;\n@%p9 mov.u32 %r1, 9;")
    assert lanes(m, "%r1") == [None] * 32


# ---------------------------------------------------------------- control
def test_a_branch_taken_by_a_single_lane_skips_only_that_lane():
    m = launch("mov.u32 %r1, 0;\nsetp.eq.u32 %p1, %r39, 5;\n@%p1 bra SKIP;\nmov.u32 %r1, 1;\nSKIP:")
    assert lanes(m, "%r1") == [0 if t == 5 else 1 for t in range(32)]


def test_lanes_stopped_at_an_unknown_branch_execute_nothing_after_it():
    body = "ld.global.u32 %r6, [%rd14];\nsetp.ne.u32 %p3, %r6, 0;\n@%p3 bra SKIP;\nmov.u32 %r1, 7;\nSKIP:\nmov.u32 %r2, 8;"
    m = launch(body)
    assert lanes(m, "%r1") == [None] * 32 and lanes(m, "%r2") == [None] * 32


def test_a_guarded_exit_in_divergent_code_lets_the_other_lanes_run_the_next_instruction():
    body = (ODD + "@%p1 bra ODDS;\nmov.u32 %r1, 10;\nbra.uni JOIN;\nODDS:\nsetp.eq.u32 %p2, %r39, 1;\n@%p2 exit;\n"
            "add.u32 %r1, %r39, 20;\nJOIN:\nmov.u32 %r2, %r1;")
    m = launch(body, budget=1000)
    assert [v for t, v in enumerate(lanes(m, "%r2")) if t != 1] == [t + 20 if t % 2 else 10 for t in range(32) if t != 1]


def test_a_kernel_without_ret_ends_after_its_last_instruction():
    m = launch("mov.u32 %r1, 3;", tail="DONE:")
    assert lanes(m, "%r1") == [3] * 32


def test_threads_that_run_off_the_end_let_a_countless_barrier_complete():
    # running past the last instruction is an implicit exit: the warp waiting at bar.sync 0 no longer waits for them
    body = "shr.u32 %r5, %r39, 5;\nsetp.eq.u32 %p1, %r5, 1;\n@%p1 bra DONE;\nbar.sync 0;\nmov.u32 %r1, 7;"
    m = launch(body, threads=64, tail="DONE:")
    assert lanes(m, "%r1")[:32] == [7] * 32


# ---------------------------------------------------------------- step budget
PROLOGUE = 11  # the harness's instructions before the body (kernel_interp_harness.ptx_text); ret after it is one more


def test_the_step_budget_admits_exactly_that_many_instruction_executions():
    body = "mov.u32 %r1, 1;\nmov.u32 %r2, 2;"
    observed = observe(REGS).count("\n")  # the harness stores every register before ret (kernel_interp_harness)
    steps = PROLOGUE + 2 + observed + 1
    assert lanes(launch(body, budget=steps), "%r2") == [2] * 32
    err, line = refusal(body, "ret;", budget=steps - 1)
    assert err.line == line and f"step budget of {steps - 1} instruction" in str(err)
    # divergent: the branch is one execution, each arm one per instruction, the joined code one again
    body = ODD + "@%p1 bra SKIP;\nmov.u32 %r1, 1;\nSKIP:\nmov.u32 %r2, 2;"
    steps = PROLOGUE + 2 + 1 + 1 + 1 + observed + 1
    assert lanes(launch(body, budget=steps), "%r2") == [2] * 32
    err, line = refusal(body, "ret;", budget=steps - 1)
    assert err.line == line and f"step budget of {steps - 1} instruction" in str(err)


def test_an_exhausted_budget_names_the_hottest_backward_branch_and_its_count():
    # loop B (higher up) branches back 3 times, then `bra.uni A` once, then the self-loop A until the budget ends
    body = ("mov.u32 %r1, 0;\nbra.uni B;\nA:\nbra.uni A;\nB:\nadd.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 3;\n"
            "@%p1 bra B;\nbra.uni A;")
    before = PROLOGUE + 2 + 3 * 3 + 1  # executions before the self-loop's first
    err, line = refusal(body, "bra.uni A;", budget=100)
    assert err.line == line
    assert f"the hottest loop branches back at PTX line {line} ({100 - before} times)" in str(err)


# ---------------------------------------------------------------- barriers
def test_a_guarded_barrier_counts_only_the_warps_whose_guard_holds():
    body = "shr.u32 %r5, %r39, 5;\nsetp.eq.u32 %p1, %r5, 1;\n@!%p1 bar.sync 1, 64;\nmov.u32 %r1, 1;"
    err, line = refusal(body, "bar.sync 1, 64", threads=64)
    assert err.line == line and "barrier never completes" in str(err)


def test_a_barrier_id_out_of_range_on_one_thread_is_refused_naming_that_id_and_the_range():
    body = "setp.eq.u32 %p1, %r39, 0;\nselp.u32 %r5, 20, 0, %p1;\nbar.sync %r5;"
    err, line = refusal(body, "bar.sync %r5")
    assert err.line == line and "barrier id 20 is out of range: a CTA has barriers 0 to 15" in str(err)


def test_a_single_thread_completes_a_counted_barrier_of_one_warp():
    assert lanes(launch("bar.sync 1, 32;\nmov.u32 %r1, 1;", threads=1), "%r1") == [1]


def test_a_barrier_waiting_for_more_than_the_live_warps_names_both_counts():
    err, line = refusal("bar.sync 0, 96;", "bar.sync 0, 96", threads=64)
    assert err.line == line and "waits for 96 threads but the CTA has only 64 in live warps" in str(err)


def _launch_ctas(body: str, threads: int, ctas: int, decls: str = "") -> Any:
    """``body`` on ``ctas`` CTAs of ``threads`` threads (grid ctas x 1 x 1), every one traced."""
    table = b"".join((0).to_bytes(4, "little") * 4 + (1).to_bytes(4, "little") for _ in range(threads))
    module = parse_module(ptx_text(body, threads, decls))
    image = build_image(module, module.entries["k"], table, {"tab": 0}, 0, 0)
    geometry = Geometry((ctas, 1, 1), (threads, 1, 1), [(c, 0, 0) for c in range(ctas)])
    return run(image, geometry, Recorder(), 100_000)


CTA1 = "mov.u32 %r5, %ctaid.x;\nsetp.eq.u32 %p1, %r5, 1;\n"  # %p1: the thread is in CTA 1


def test_a_cta_whose_threads_all_exited_does_not_stop_another_ctas_counted_barrier():
    m = _launch_ctas(CTA1 + "@%p1 exit;\nbar.sync 1, 64;\nmov.u32 %r1, 1;", 64, 2)
    assert lanes(m, "%r1")[:64] == [1] * 64
    with pytest.raises(KernelError, match="waits for 96 threads but the CTA has only 64 in live warps"):
        _launch_ctas(CTA1 + "@%p1 exit;\nbar.sync 1, 96;", 64, 2)


def test_a_barrier_reached_by_one_cta_of_three_releases_it():
    m = _launch_ctas(CTA1 + "@%p1 bar.sync 0;\nmov.u32 %r1, 1;", 32, 3)
    assert lanes(m, "%r1") == [1] * 96


def test_a_counted_barrier_completes_in_each_of_two_full_ctas():
    m = _launch_ctas("bar.sync 1, 1024;\nmov.u32 %r1, 1;", 1024, 2)
    assert lanes(m, "%r1") == [1] * 2048


def test_a_barrier_reached_by_the_only_thread_of_its_cta_through_a_guard_releases_it():
    m = launch("setp.eq.u32 %p1, %r39, 0;\n@%p1 bar.sync 0;\nmov.u32 %r1, 1;", threads=1)
    assert lanes(m, "%r1") == [1]


def test_a_deadlock_at_the_kernels_first_instruction_names_its_line():
    # warp 0 loops back to the barrier that opens the kernel and waits there for 64 threads; warp 1 has left
    text = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\n"
            ".reg .pred %p<2>;\nL:\nbar.sync 1, 64;\nmov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 32;\n@%p1 bra L;\n}\n")
    line = text.splitlines().index("bar.sync 1, 64;") + 1
    module = parse_module(text)
    image = build_image(module, module.entries["k"], b"", {}, 0, 0)
    with pytest.raises(KernelError, match="barrier never completes") as err:
        run(image, Geometry((1, 1, 1), (64, 1, 1), [(0, 0, 0)]), Recorder(), 1000)
    assert err.value.line == line and f"[{line}]" in str(err.value)


def test_a_producer_warps_arrive_before_it_exits_counts_toward_the_consumers_sync():
    # warp 2 arrives at barrier 1 and exits; warps 0 and 1 then sync for 96 (ISA: 32 + 64 arrivals complete it).
    # That phase is then over: warp 0 alone syncing for 64 afterwards waits for ever
    body = ("shr.u32 %r5, %r39, 5;\nsetp.eq.u32 %p1, %r5, 2;\n@!%p1 bra SYNC;\nbar.arrive 1, 96;\nexit;\nSYNC:\n"
            "bar.sync 1, 96;\nmov.u32 %r1, 1;")
    m = launch(body, threads=96)
    assert lanes(m, "%r1")[:64] == [1] * 64
    body += "\nsetp.eq.u32 %p2, %r5, 1;\n@%p2 bra DONE;\nbar.sync 1, 64;"
    err, line = refusal(body, "bar.sync 1, 64", threads=96)
    assert err.line == line and "barrier never completes" in str(err)


# ----------------------------------------------------------------- named-barrier phases (PTX ISA "bar, barrier")
WARP = "shr.u32 %r5, %r39, 5;\n"  # %r5: the thread's warp in its CTA
#: %p1: the thread is in warp 1; %r6: its lane's word of ``buf``
WARP_1_SLOT = (WARP + "setp.eq.u32 %p1, %r5, 1;\nmov.u32 %r6, buf;\nand.b32 %r7, %r39, 31;\nshl.b32 %r7, %r7, 2;\n"
               "add.u32 %r6, %r6, %r7;\n")


def test_a_sync_counting_past_the_live_warps_counts_an_exited_producers_arrival_once_per_warp():
    # warp 2 arrives at barrier 1 and exits; warps 0 and 1 then sync for 128: 32 arrived + 64 live = 96 < 128
    body = WARP + "setp.eq.u32 %p1, %r5, 2;\n@!%p1 bra SYNC;\nbar.arrive 1, 128;\nexit;\nSYNC:\nbar.sync 1, 128;"
    err, line = refusal(body, "bar.sync 1, 128", threads=96)
    assert err.line == line and "waits for 128 threads but the CTA has only 96 in live warps" in str(err)


def test_a_completed_phase_holds_no_arrivals_when_another_barrier_is_open():
    # warp 2 arrives at barrier 2 and exits (barrier 2 stays open); warps 0 and 1 complete a phase of barrier 1
    # apart; their converged sync for 96 then has only its own 64 threads (the finished phase counts nothing)
    body = (WARP + "setp.eq.u32 %p1, %r5, 2;\nsetp.eq.u32 %p2, %r5, 1;\n@!%p1 bra PAIR;\nbar.arrive 2, 96;\nexit;\n"
            "PAIR:\n@%p2 bra SECOND;\nbar.sync 1, 64;\nbra.uni BOTH;\nSECOND:\nbar.sync 1, 64;\nBOTH:\nbar.sync 1, 96;")
    err, line = refusal(body, "bar.sync 1, 96", threads=96)
    assert err.line == line and "waits for 96 threads but the CTA has only 64 in live warps" in str(err)


def test_producer_and_consumer_warps_of_33_ctas_traced_together_meet_at_their_barrier():
    # 66 warps in one batch: each CTA's warp 1 stores and arrives, its warp 0 syncs and then reads that store
    body = (WARP_1_SLOT + "@%p1 bra PRODUCE;\nbar.sync 1, 64;\nld.shared.u32 %r1, [%r6];\nbra.uni DONE;\n"
            "PRODUCE:\nadd.u32 %r8, %r39, 100;\nst.shared.u32 [%r6], %r8;\nbar.arrive 1, 64;")
    m = _launch_ctas(body, 64, 33, decls=".shared .align 4 .b8 buf[128];")
    got = lanes(m, "%r1")
    assert [got[64 * c: 64 * c + 32] for c in range(33)] == [[t + 100 for t in range(32, 64)]] * 33


def test_waiters_at_one_barrier_stay_blocked_when_another_barrier_completes():
    # warp 0 waits at barrier 1 for 64 threads that never come; warps 1 and 2 complete barrier 2 meanwhile
    body = (WARP + "setp.ne.u32 %p1, %r5, 0;\n@%p1 bra OTHER;\nbar.sync 1, 64;\nmov.u32 %r1, 1;\nbra.uni DONE;\n"
            "OTHER:\nbar.sync 2, 64;")
    err, line = refusal(body, "bar.sync 1, 64", threads=96)
    assert err.line == line and "barrier never completes" in str(err)


def test_a_countless_barrier_phase_reached_apart_does_not_count_toward_the_next_phase():
    # phase 1 of barrier 0: warps 0 and 1 arrive at different instructions.  Phase 2: warp 1 syncs first and must
    # wait until warp 0 has stored and arrived, so it reads warp 0's values
    body = (WARP_1_SLOT + "@%p1 bra W1;\nbar.sync 0;\nbra.uni AFTER;\nW1:\nbar.sync 0;\nAFTER:\n"
            "@!%p1 bra PRODUCE;\nbar.sync 0;\nld.shared.u32 %r1, [%r6];\nbra.uni DONE;\n"
            "PRODUCE:\nadd.u32 %r8, %r39, 100;\nst.shared.u32 [%r6], %r8;\nbar.sync 0;")
    m = launch(body, threads=64, decls=".shared .align 4 .b8 buf[128];")
    assert lanes(m, "%r1")[32:] == [t + 100 for t in range(32)]


def test_an_exit_completes_a_ctas_countless_phase_after_another_cta_completed_its_own():
    # CTA 1's warp 0 waits at barrier 0; CTA 0 then completes its phase; CTA 1's warp 1 exits last, which
    # leaves CTA 1's waiter the only live thread not yet arrived: its phase completes (ISA "exit")
    body = ("mov.u32 %r5, %ctaid.x;\nsetp.eq.u32 %p2, %r5, 1;\n" + WARP + "setp.eq.u32 %p1, %r5, 1;\n"
            "@!%p2 bra CTA0;\n@%p1 bra LEAVE;\nbar.sync 0;\nmov.u32 %r1, 7;\nbra.uni DONE;\n"
            "CTA0:\nbar.sync 0;\nmov.u32 %r1, 8;\nbra.uni DONE;\nLEAVE:\nexit;")
    m = _launch_ctas(body, 64, 2)
    got = lanes(m, "%r1")
    assert got[:64] == [8] * 64 and got[64:96] == [7] * 32


def test_a_converged_arrive_counts_toward_a_later_sync_of_the_same_phase():
    # both warps arrive together (64 of 128); warp 0 then syncs: ISA counts every warp's arrival, so 96 of 128
    # and warp 1's later sync completes it
    body = (WARP + "setp.eq.u32 %p1, %r5, 1;\nbar.arrive 1, 128;\n@%p1 bra LATE;\nbar.sync 1, 128;\n"
            "mov.u32 %r1, 1;\nbra.uni DONE;\nLATE:\nbar.sync 1, 128;\nmov.u32 %r1, 2;")
    m = launch(body, threads=64)
    assert lanes(m, "%r1") == [1] * 32 + [2] * 32


@pytest.mark.parametrize("count", ["0", "%r9"])
def test_a_sync_with_thread_count_zero_waits_for_every_thread_of_the_cta(count):
    # recorded on an H100 (CUDA 13.0, sm_90): warp 0 syncs first with count 0 (immediate, or a register holding
    # 0), warp 1 spins 2 * 10^8 cycles, stores 42 and syncs with count 0; warp 0 then read 42 in both forms (ptxas
    # turns the immediate into a countless BAR.SYNC 0x1): count 0 is "every thread", not "complete at once"
    body = (WARP + "mov.u32 %r9, 0;\nsetp.eq.u32 %p1, %r5, 1;\nmov.u32 %r6, buf;\nand.b32 %r7, %r39, 31;\n"
            "shl.b32 %r7, %r7, 2;\nadd.u32 %r6, %r6, %r7;\n@%p1 bra PRODUCE;\n"
            f"bar.sync 1, {count};\nld.shared.u32 %r1, [%r6];\nbra.uni DONE;\n"
            f"PRODUCE:\nadd.u32 %r8, %r39, 100;\nst.shared.u32 [%r6], %r8;\nbar.sync 1, {count};")
    m = launch(body, threads=64, decls=".shared .align 4 .b8 buf[128];")
    assert lanes(m, "%r1")[:32] == [t + 100 for t in range(32, 64)]

"""The SIMT machine's scheduling (machine.py): divergent lanes reconverge through nops, exits and guarded
barriers; lanes that branch past the end exit; an unknown guard forgets the destinations of exactly its
lanes; run-time special registers are unknown; barrier counts and deadlocks are refused naming the line."""

from __future__ import annotations

from kernel_interp_harness import lanes, launch, refusal

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

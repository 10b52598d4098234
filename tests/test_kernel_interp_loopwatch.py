"""Certain non-termination is reported at once (interp/loopwatch.py): when the launch's whole state after a
backward branch repeats and no runnable thread was left out of the cycle, the trace raises a KernelError naming
the loop long before the step budget.  Threads the schedule left out (lanes above a spinning lane of their warp,
a warp starved while a spin alternates between back edges) get a round instead.  Every loop that would end --
counted loops (long ones too, with exact counts), counters kept in shared or local memory with the registers
reset each trip, spins another warp releases late, loops on unknown values -- runs to completion.

"Fast" is pinned by the budget, not the clock: each runaway below is traced with ``step_budget=BUDGET`` and
must raise "never ends", not "step budget"; the time to detect is in the session report."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from kernel_interp_harness import launch

from layoutalg.errors import KernelError
from layoutalg.kernel import trace
from layoutalg.kernel.interp.loopwatch import WATCH_AFTER, LoopWatch, watchable
from layoutalg.kernel.interp.machine import FAIR_AFTER, Machine
from layoutalg.kernel.interp.values import Value

BUDGET = 40_000  # the runaways are reported well within this (detection starts after WATCH_AFTER steps)

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<8>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<8>;
    .shared .align 4 .u32 flag;
    .shared .align 4 .b8 s[1024];
    .local .align 4 .b8 loc[16];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    shr.u32 %r3, %r1, 5;
    mov.u32 %r4, s;
"""
TAIL = """
DONE:
    ret;
}
"""


def kernel(body: str) -> str:
    return HEAD + body + TAIL


def line_of(ptx: str, text: str) -> int:
    return next(i for i, s in enumerate(ptx.splitlines(), 1) if text in s)


def never_ends(body: str, block: int = 32, budget: int = BUDGET) -> tuple[KernelError, str]:
    ptx = kernel(body)
    with pytest.raises(KernelError, match="never ends") as err:
        trace(ptx, "k", block=block, args={"out": "buf"}, step_budget=budget)
    return err.value, ptx


def ends(body: str, block: int = 32, budget: int = 2_000_000) -> tuple[object, str]:
    ptx = kernel(body)
    return trace(ptx, "k", block=block, args={"out": "buf"}, step_budget=budget), ptx


# ---------------------------------------------------------------- loops that never end: reported at once
def test_a_converged_self_loop_is_reported_naming_its_line() -> None:
    err, ptx = never_ends("SELF:\n    bra.uni SELF;")
    assert err.line == line_of(ptx, "bra.uni SELF")
    assert f"loop at PTX line {err.line} never ends" in str(err)
    assert "32 live thread(s) in 1 warp(s)" in str(err)


def test_a_divergent_self_branch_whose_predicate_never_changes_is_reported() -> None:
    # lanes 0-15 spin on `@p bra SPIN`; lanes 16-31 wait after it, never run (the warp's lowest PC goes first)
    err, ptx = never_ends("setp.lt.u32 %p1, %r2, 16;\nSPIN:\n    @%p1 bra SPIN;\nst.shared.u32 [%r4], %r1;")
    assert err.line == line_of(ptx, "@%p1 bra SPIN")
    # lanes 16-31, left out of the cycle, got a round and exited: only the spinning lanes are left
    assert "16 live thread(s) in 1 warp(s) run in that cycle (no live thread" in str(err)


def test_a_loop_body_names_its_first_and_last_line() -> None:
    body = ("mov.u32 %r5, 0;\nTOP:\n    add.u32 %r6, %r5, 1;\n    mov.u32 %r5, 0;\n"
            "    setp.lt.u32 %p1, %r6, 5;\n    @%p1 bra TOP;")
    err, ptx = never_ends(body)
    assert f"lines {line_of(ptx, 'add.u32 %r6, %r5, 1')}-{line_of(ptx, '@%p1 bra TOP')} never ends" in str(err)


def test_a_spin_on_a_shared_flag_nobody_sets_is_reported() -> None:
    body = ("setp.ne.u32 %p1, %r1, 0;\n@%p1 bra INIT;\nmov.u32 %r5, 0;\nst.volatile.shared.u32 [flag], %r5;\n"
            "INIT:\nbar.sync 0;\nPOLL:\n    ld.volatile.shared.u32 %r6, [flag];\n    setp.eq.u32 %p2, %r6, 0;\n"
            "    @%p2 bra POLL;")
    err, ptx = never_ends(body, block=128)
    assert err.line == line_of(ptx, "@%p2 bra POLL") and "128 live thread(s) in 4 warp(s)" in str(err)
    assert "it writes no shared memory, so from this state every interleaving" in str(err)


def test_a_spin_whose_releaser_waits_at_a_barrier_for_the_spinner_is_reported() -> None:
    # warp 1 polls a flag warp 0 would set after a barrier that needs warp 1 too: neither can move
    body = ("setp.ne.u32 %p1, %r1, 0;\n@%p1 bra INIT;\nmov.u32 %r5, 0;\nst.volatile.shared.u32 [flag], %r5;\n"
            "INIT:\nbar.sync 1;\nsetp.eq.u32 %p3, %r3, 0;\n@%p3 bra PRODUCER;\n"
            "POLL:\n    ld.volatile.shared.u32 %r6, [flag];\n    setp.eq.u32 %p2, %r6, 0;\n    @%p2 bra POLL;\n"
            "bar.sync 0;\nbra.uni DONE;\nPRODUCER:\nbar.sync 0;\nmov.u32 %r7, 1;\nst.volatile.shared.u32 [flag], %r7;")
    err, ptx = never_ends(body, block=64)
    assert err.line == line_of(ptx, "@%p2 bra POLL")
    assert "32 live thread(s) in 1 warp(s) run in that cycle while 32 wait(s) at a barrier" in str(err)


def test_two_warps_spinning_in_different_loops_are_reported_through_the_fairness_rounds() -> None:
    # warp 0 spins in A, warp 1 in B: the scheduler alternates rounds (FAIR_AFTER takes, then one for the other)
    body = ("setp.eq.u32 %p1, %r3, 0;\nmov.u32 %r5, 1;\n@%p1 bra A;\nB:\n    add.u32 %r6, %r5, 0;\n"
            "    setp.ne.u32 %p2, %r6, 0;\n    @%p2 bra B;\nbra.uni DONE;\nA:\n    setp.ne.u32 %p3, %r5, 0;\n"
            "    @%p3 bra A;")
    err, ptx = never_ends(body, block=64)
    assert err.line in (line_of(ptx, "@%p2 bra B"), line_of(ptx, "@%p3 bra A"))


def test_a_cycle_that_writes_shared_memory_is_reported_as_one_schedules() -> None:
    # warp 1 sets the flag and clears it again in each trip until `done`; warp 0 waits for the flag, then sets
    # done.  The trace's rounds let warp 0 look only between warp 1's trips (flag 0): it cycles; on the GPU warp 0
    # may read the 1 between the two stores (a race), so the message says the cycle is this schedule's
    body = ("setp.ne.u32 %p1, %r1, 0;\n@%p1 bra INIT;\nmov.u32 %r5, 0;\nst.volatile.shared.u32 [flag], %r5;\n"
            "st.volatile.shared.u32 [%r4], %r5;\nINIT:\nbar.sync 0;\nmov.u32 %r7, 1;\nmov.u32 %r8, 0;\n"
            "setp.ne.u32 %p3, %r3, 0;\n@%p3 bra TOGGLE;\n"
            "POLL:\n    ld.volatile.shared.u32 %r6, [flag];\n    setp.eq.u32 %p2, %r6, 0;\n    @%p2 bra POLL;\n"
            "st.volatile.shared.u32 [%r4], %r7;\nbra.uni DONE;\n"
            "TOGGLE:\n    st.volatile.shared.u32 [flag], %r7;\n    st.volatile.shared.u32 [flag], %r8;\n"
            "    ld.volatile.shared.u32 %r9, [%r4];\n    setp.eq.u32 %p4, %r9, 0;\n    @%p4 bra TOGGLE;")
    err, ptx = never_ends(body, block=64)
    assert err.line in (line_of(ptx, "@%p2 bra POLL"), line_of(ptx, "@%p4 bra TOGGLE"))
    assert "64 live thread(s) in 2 warp(s) run in that cycle" in str(err)
    assert "it writes shared memory, so on the GPU another interleaving of these threads might leave it" in str(err)


def test_a_counter_that_cycles_without_reaching_its_bound_is_reported() -> None:
    # i = (i + 1) & 7 never reaches 8
    body = ("mov.u32 %r5, 0;\nTOP:\n    add.u32 %r5, %r5, 1;\n    and.b32 %r5, %r5, 7;\n"
            "    setp.ne.u32 %p1, %r5, 8;\n    @%p1 bra TOP;")
    err, ptx = never_ends(body)
    assert err.line == line_of(ptx, "@%p1 bra TOP")
    assert "repeats the state of 32 instruction executions earlier" in str(err)  # 8 trips of 4 instructions


def test_a_loop_storing_the_same_bytes_every_trip_is_reported() -> None:
    # stores happen on every trip, but they leave shared memory as it was
    body = ("shl.b32 %r5, %r1, 2;\nadd.u32 %r5, %r4, %r5;\nTOP:\n    st.shared.u32 [%r5], %r1;\n"
            "    ld.shared.u32 %r6, [%r5];\n    setp.eq.u32 %p1, %r6, %r1;\n    @%p1 bra TOP;")
    err, ptx = never_ends(body, block=64)
    assert err.line == line_of(ptx, "@%p1 bra TOP")
    assert "it writes shared memory, so on the GPU another interleaving of these threads might leave it" in str(err)


def test_a_loop_reading_the_clock_without_branching_on_it_is_reported() -> None:
    # %clock is unknown on every trip, and nothing branches on it: the state (unknown included) repeats
    err, ptx = never_ends("TOP:\n    mov.u32 %r5, %clock;\n    bra.uni TOP;")
    assert err.line == line_of(ptx, "bra.uni TOP")


def test_an_unconditional_loop_over_a_counter_never_written_is_reported() -> None:
    # %r9 is never written: unknown, and unknown + 1 is unknown again, so the state repeats (nothing branches on it)
    err, ptx = never_ends("TOP:\n    add.s32 %r9, %r9, 1;\n    bra.uni TOP;")
    assert err.line == line_of(ptx, "bra.uni TOP")


# ---------------------------------------------------------------- loops that end: run to completion
def test_a_long_counted_loop_runs_to_completion_with_exact_counts() -> None:
    trips = 6_000  # 24,000 steps: far past WATCH_AFTER, so a trip in every WATCH_EVERY is sampled
    body = (f"shl.b32 %r5, %r1, 2;\nadd.u32 %r5, %r4, %r5;\nmov.u32 %r6, 0;\nTOP:\n    st.shared.u32 [%r5], %r6;\n"
            f"    add.u32 %r6, %r6, 1;\n    setp.lt.u32 %p1, %r6, {trips};\n    @%p1 bra TOP;")
    t, ptx = ends(body)
    assert t.instruction(line_of(ptx, "st.shared.u32 [%r5], %r6")).executions == trips  # type: ignore[attr-defined]
    assert t.steps > 4 * trips > WATCH_AFTER  # type: ignore[attr-defined]


def test_a_counter_kept_in_shared_memory_with_registers_reset_every_trip_runs_to_completion() -> None:
    # at the back edge every register is the same on every trip but the last: only shared memory moves
    trips = 1_000
    body = ("setp.ne.u32 %p1, %r1, 0;\n@%p1 bra DONE;\nmov.u32 %r5, 0;\nst.shared.u32 [flag], %r5;\n"
            f"TOP:\n    ld.shared.u32 %r5, [flag];\n    add.u32 %r5, %r5, 1;\n    st.shared.u32 [flag], %r5;\n"
            f"    setp.lt.u32 %p2, %r5, {trips};\n    mov.u32 %r5, 0;\n    @%p2 bra TOP;\n"
            "ld.shared.u32 %r7, [flag];\nst.shared.u32 [%r4], %r7;")
    t, ptx = ends(body)
    assert t.instruction(line_of(ptx, "ld.shared.u32 %r5, [flag]")).executions == trips  # type: ignore[attr-defined]
    assert t.steps > WATCH_AFTER  # type: ignore[attr-defined]


def test_a_counter_kept_in_local_memory_with_registers_reset_every_trip_runs_to_completion() -> None:
    trips = 1_000
    body = ("mov.u32 %r5, 0;\nst.local.u32 [loc], %r5;\n"
            "TOP:\n    ld.local.u32 %r5, [loc];\n    add.u32 %r5, %r5, 1;\n    st.local.u32 [loc], %r5;\n"
            f"    setp.lt.u32 %p2, %r5, {trips};\n    mov.u32 %r5, 0;\n    @%p2 bra TOP;\n"
            "ld.local.u32 %r7, [loc];\nst.shared.u32 [%r4], %r7;")
    t, ptx = ends(body)
    assert t.instruction(line_of(ptx, "st.shared.u32 [%r4], %r7")).executions == 1  # type: ignore[attr-defined]
    assert t.steps > WATCH_AFTER  # type: ignore[attr-defined]


def test_a_spin_released_late_by_another_warp_runs_to_completion() -> None:
    # warp 1 polls the flag while warp 0 first counts `trips` trips (each of its rounds is FAIR_AFTER polls
    # of warp 1 and one trip of warp 0), then sets it
    trips = 60
    body = ("setp.ne.u32 %p1, %r1, 0;\n@%p1 bra INIT;\nmov.u32 %r5, 0;\nst.volatile.shared.u32 [flag], %r5;\n"
            "INIT:\nbar.sync 0;\nsetp.eq.u32 %p3, %r3, 0;\n@%p3 bra PRODUCER;\n"
            "POLL:\n    ld.volatile.shared.u32 %r6, [flag];\n    setp.eq.u32 %p2, %r6, 0;\n    @%p2 bra POLL;\n"
            "st.shared.u32 [%r4+512], %r6;\nbra.uni DONE;\n"
            f"PRODUCER:\nmov.u32 %r8, 0;\nCOUNT:\n    add.u32 %r8, %r8, 1;\n    setp.lt.u32 %p4, %r8, {trips};\n"
            "    @%p4 bra COUNT;\nmov.u32 %r7, 1;\nst.volatile.shared.u32 [flag], %r7;")
    t, ptx = ends(body, block=64)
    polls = t.instruction(line_of(ptx, "ld.volatile.shared.u32 %r6")).executions  # type: ignore[attr-defined]
    assert polls > trips * FAIR_AFTER // 2 and t.steps > WATCH_AFTER  # type: ignore[attr-defined]
    assert t.instruction(line_of(ptx, "st.shared.u32 [%r4+512]")).executions == 1  # type: ignore[attr-defined]
    assert not t.data_dependent  # type: ignore[attr-defined]


def test_a_spin_alternating_between_two_back_edges_lets_the_warp_that_releases_it_run() -> None:
    # warp 1 polls in an inner loop of two trips inside the outer poll loop: its back edges alternate, so the
    # fairness count (FAIR_AFTER takes of one back edge) never fills and warp 0, at a higher PC, never ran; once
    # the state repeats, the threads left out of the cycle get a round, warp 0 sets the flag and both finish
    body = ("setp.ne.u32 %p1, %r1, 0;\n@%p1 bra INIT;\nmov.u32 %r5, 0;\nst.volatile.shared.u32 [flag], %r5;\n"
            "INIT:\nbar.sync 0;\nsetp.eq.u32 %p3, %r3, 0;\n@%p3 bra PRODUCER;\n"
            "POLL:\n    mov.u32 %r9, 0;\nINNER:\n        ld.volatile.shared.u32 %r6, [flag];\n"
            "        add.u32 %r9, %r9, 1;\n        setp.lt.u32 %p5, %r9, 2;\n        @%p5 bra INNER;\n"
            "    setp.eq.u32 %p2, %r6, 0;\n    @%p2 bra POLL;\nst.shared.u32 [%r4+512], %r6;\nbra.uni DONE;\n"
            "PRODUCER:\nmov.u32 %r7, 1;\nst.volatile.shared.u32 [flag], %r7;")
    t, ptx = ends(body, block=64)
    assert t.instruction(line_of(ptx, "st.shared.u32 [%r4+512]")).executions == 1  # type: ignore[attr-defined]
    assert t.instruction(line_of(ptx, "st.volatile.shared.u32 [flag], %r7")).executions == 1  # type: ignore[attr-defined]


def test_lanes_spinning_on_a_flag_lanes_of_their_own_warp_set_later_finish() -> None:
    # lanes 0-15 poll; lanes 16-31 of the same warp set the flag after the loop (as independent thread scheduling
    # lets them on sm_70+); lowest PC first never runs them, the round for threads left out of the cycle does
    body = ("setp.ne.u32 %p1, %r1, 0;\n@%p1 bra INIT;\nmov.u32 %r5, 0;\nst.volatile.shared.u32 [flag], %r5;\n"
            "INIT:\nbar.sync 0;\nsetp.ge.u32 %p3, %r2, 16;\n@%p3 bra SETTER;\n"
            "POLL:\n    ld.volatile.shared.u32 %r6, [flag];\n    setp.eq.u32 %p2, %r6, 0;\n    @%p2 bra POLL;\n"
            "st.shared.u32 [%r4+512], %r6;\nbra.uni DONE;\nSETTER:\nmov.u32 %r7, 1;\n"
            "st.volatile.shared.u32 [flag], %r7;")
    t, ptx = ends(body)
    assert t.instruction(line_of(ptx, "st.shared.u32 [%r4+512]")).executions == 1  # type: ignore[attr-defined]
    assert not t.data_dependent  # type: ignore[attr-defined]


def test_a_spin_on_the_clock_stops_as_data_dependent_not_as_a_runaway() -> None:
    # a counted warm-up past WATCH_AFTER, then `while (clock() - t0 < 1000);`: the predicate is unknown
    body = ("mov.u32 %r5, 0;\nWARM:\n    add.u32 %r5, %r5, 1;\n    setp.lt.u32 %p1, %r5, 2000;\n"
            "    @%p1 bra WARM;\nmov.u32 %r6, %clock;\nWAIT:\n    mov.u32 %r7, %clock;\n    sub.u32 %r8, %r7, %r6;\n"
            "    setp.lt.u32 %p2, %r8, 1000;\n    @%p2 bra WAIT;\nst.shared.u32 [%r4], %r5;")
    t, ptx = ends(body)
    assert [d.line for d in t.data_dependent] == [line_of(ptx, "@%p2 bra WAIT")]  # type: ignore[attr-defined]


def test_nested_counted_loops_run_to_completion_with_exact_counts() -> None:
    # the inner counter comes back to 0 on every outer trip; the outer one moves
    body = ("mov.u32 %r5, 0;\nOUTER:\n    mov.u32 %r6, 0;\nINNER:\n        add.u32 %r6, %r6, 1;\n"
            "        setp.lt.u32 %p1, %r6, 60;\n        @%p1 bra INNER;\n    add.u32 %r5, %r5, 1;\n"
            "    setp.lt.u32 %p2, %r5, 70;\n    @%p2 bra OUTER;\nst.shared.u32 [%r4], %r5;")
    t, ptx = ends(body)
    assert t.steps > WATCH_AFTER  # type: ignore[attr-defined]
    assert t.instruction(line_of(ptx, "st.shared.u32 [%r4], %r5")).executions == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("block", [32, 64])
def test_a_warp_moving_through_straight_code_of_backward_branches_runs_to_completion(block: int) -> None:
    # warp 0 walks a chain of never-taken self-branches (with 64 threads, while warp 1 waits at the exit; with
    # 32, converged): between samples only the PC(s) change (no register, no memory), so they are state
    chain = "\n".join(f"B{k}:\n    @%p7 bra B{k};" for k in range(WATCH_AFTER + 2000))
    body = f"setp.ne.u32 %p1, %r3, 0;\nsetp.eq.u32 %p7, %r3, 7;\n@%p1 bra DONE;\n{chain}\nst.shared.u32 [%r4], %r1;"
    t, ptx = ends(body, block=block)
    assert t.instruction(line_of(ptx, "st.shared.u32 [%r4], %r1")).executions == 1  # type: ignore[attr-defined]
    assert t.steps > WATCH_AFTER + 2000  # type: ignore[attr-defined]


def test_warps_with_different_trip_counts_run_to_completion() -> None:
    # warp w loops 1500 + 700 w times, lane by lane one more: divergent exits, long enough to be watched
    body = ("add.u32 %r5, %r2, 1500;\nmad.lo.u32 %r5, %r3, 700, %r5;\nmov.u32 %r6, 0;\nTOP:\n"
            "    add.u32 %r6, %r6, 1;\n    setp.lt.u32 %p1, %r6, %r5;\n    @%p1 bra TOP;\n"
            "shl.b32 %r7, %r1, 2;\nadd.u32 %r7, %r4, %r7;\nst.shared.u32 [%r7], %r6;")
    t, ptx = ends(body, block=96)
    assert t.instruction(line_of(ptx, "st.shared.u32 [%r7], %r6")).executions == 3  # type: ignore[attr-defined]


# ---------------------------------------------------------------- the comparison: every part of the state counts
def finished_machine() -> Machine:
    body = ("mov.u32 %r1, %tid.x;\nmov.u32 %r2, smem;\nshl.b32 %r3, %r1, 2;\nadd.u32 %r2, %r2, %r3;\n"
            "st.shared.u32 [%r2], %r1;\nsetp.lt.u32 %p1, %r1, 3;\nmov.u32 %r5, 7;")
    return launch(body, threads=64, decls=".shared .align 4 .b8 smem[256];")


def _scalars() -> tuple[object, ...]:
    return (False, -1, False, -1, 0, True)


CHANGES: dict[str, Callable[[Machine, dict[str, Any]], None]] = {
    "scheduler scalars": lambda m, s: s.update(scalars=(False, -1, False, -1, 1, True)),
    "a thread's PC": lambda m, s: s["pcs"].__setitem__(5, 99),
    "converged (no PC array)": lambda m, s: s.update(pcs=None),
    "a blocked thread": lambda m, s: s["blocked"].__setitem__(3, True),
    "a parked thread": lambda m, s: s["parked"].__setitem__(40, True),
    "a live thread": lambda m, s: m.live.__setitem__(7, not m.live[7]),
    "a register's bits": lambda m, s: m.regs.__setitem__("%r1", Value(np.arange(m.n, dtype=np.uint64) + 1)),
    "a register's known mask": lambda m, s: m.forget("%r3", np.arange(m.n) == 9),
    "a scalar register as an array": lambda m, s: m.regs.__setitem__(
        "%r5", Value(np.full(m.n, m.regs["%r5"].bits, dtype=np.uint64), m.regs["%r5"].known)),
    "a new register": lambda m, s: m.regs.__setitem__("%r9", Value(np.uint64(0))),
    "the carry flag": lambda m, s: setattr(m, "cc", Value(np.uint64(1))),
    "a barrier arrival": lambda m, s: m.bar_arrived.__setitem__((0, 2), True),
    "a barrier waiter": lambda m, s: m.bar_waiting.__setitem__(0, 2),
    "a barrier count": lambda m, s: m.bar_arrivals.__setitem__((0, 2), 32),
    "a barrier's expected count": lambda m, s: m.bar_expected.__setitem__((0, 2), 64),
    "an open barrier": lambda m, s: m.bar_open.add(2),
    "a shared byte": lambda m, s: m.smem.data.__setitem__((0, 200), 1),
    "a shared byte's known bit": lambda m, s: m.smem.known.__setitem__((0, 200), not m.smem.known[0, 200]),
    "a local byte": lambda m, s: m.local.data.__setitem__((3, 0), 1),
    "a local byte's known bit": lambda m, s: m.local.known.__setitem__((3, 0), True),
}


def _sample(w: LoopWatch, s: dict[str, Any]) -> bool:
    return w.sample(s["scalars"], s["pcs"], s["blocked"], s["parked"])


def _state(m: Machine) -> dict[str, Any]:
    return {"scalars": _scalars(), "pcs": np.full(m.n, 12, dtype=np.int64), "blocked": np.zeros(m.n, dtype=bool),
            "parked": np.zeros(m.n, dtype=bool)}


def test_an_unchanged_state_is_a_repeat() -> None:
    m = finished_machine()
    assert type(m.regs["%r5"].bits) is np.uint64  # a uniform value is a scalar ("a scalar register as an array")
    w = LoopWatch(m)
    assert w.on
    assert not _sample(w, _state(m))  # the first sample is the snapshot
    assert _sample(w, _state(m))


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_state_that_differs_in_one_part_is_no_repeat(change: str) -> None:
    m = finished_machine()
    w = LoopWatch(m)
    assert not _sample(w, _state(m))
    s = _state(m)
    CHANGES[change](m, s)
    assert not _sample(w, s)


def test_only_the_plain_machine_with_its_known_fields_is_watched() -> None:
    m = finished_machine()
    assert watchable(m)
    m.extra = 1  # type: ignore[attr-defined]  # state this module would not compare
    assert not watchable(m)
    m = finished_machine()
    m.__class__ = type("Sub", (Machine,), {})  # a subclass (the data-flow machine) may keep state elsewhere
    assert not watchable(m)
    m = finished_machine()
    m.smem.extra = 1  # type: ignore[attr-defined]
    assert not watchable(m)


def test_a_value_that_cannot_be_compared_exactly_turns_the_watch_off() -> None:
    m = finished_machine()
    w = LoopWatch(m)
    assert not _sample(w, _state(m))
    m.regs["%r1"] = Value(np.array([object()] * m.n))
    assert not _sample(w, _state(m)) and not w.on
    assert not _sample(w, _state(m))

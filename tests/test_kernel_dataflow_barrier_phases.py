"""Counted barriers whose phases' warps are, or are not, forced (layoutalg/kernel/dataflow/state.py,
FlowState.barrier_arrive; flow.py's re-run; check.py's verdicts).

PTX ISA 8.x, "bar, barrier": ``bar.sync b, count`` / ``bar.arrive b, count`` complete a phase of barrier b once
``count`` threads (whole warps) have arrived; later arrivals start the next phase.  Which warps share a phase is
whichever arrive first: the trace's lowest-PC schedule is one order, and where a warp arriving later in the trace
could have arrived earlier on the GPU (nothing orders it after the earlier phase's arrivals), another schedule
groups other warps, and the trace's grouping must not be taken as ordering them.  Where every arrival is ordered
after every arrival of the phase before (a full-CTA barrier between, or the same warps arriving again after
their release), the grouping is forced and the barrier orders its phases' warps.

Kernels (tests/kernel_dataflow_contract_harness.py, block 128 = four warps): warp 0 writes shared word ``lane``,
warp 1 reads it after the counted barrier."""

from __future__ import annotations

from kernel_dataflow_contract_harness import SPECS, gemm, run

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module

P = ["ld.global.u32 %r2, [%rd4];", "mov.u32 %r10, sm;", "and.b32 %r12, %r1, 31;", "mad.lo.u32 %r11, %r12, 4, %r10;",
     "setp.lt.u32 %p1, %r1, 32;", "setp.lt.u32 %p2, %r1, 64;"]  # %p1: warp 0; %p2: warps 0 and 1
W, R = "@%p1 st.shared.u32 [%r11], %r2;", "@!%p1 ld.shared.u32 %r4, [%r11];"
RAW = "read after write (no barrier between)"


def pair_then_late_pair(between: list[str]) -> list[str]:
    """Warps 0 and 1 meet at ``bar.sync 1, 64`` (warp 0 writes before, warp 1 reads after); warps 2 and 3 reach
    ``bar.sync 1, 64`` further down, after ``between`` (run by all four warps)."""
    return P + ["@!%p2 bra SKIP;", W, "bar.sync 1, 64;", R, "SKIP:", *between, "@%p2 bra DONE;", "bar.sync 1, 64;",
                "DONE:"]


def test_a_later_pair_that_could_arrive_first_makes_the_phase_unforced() -> None:
    # the trace completes phase 1 with warps 0, 1 and phase 2 with warps 2, 3; on the GPU warps 1 and 2 could
    # arrive first, releasing warp 1 before warp 0 wrote: the barrier orders nothing, the read races
    _, res = run(pair_then_late_pair([]), block=128)
    assert [r.kind for r in res.races] == [RAW]
    (why,) = res.loose_barriers.values()
    assert why.startswith("warp 2 arrives at barrier 1 (thread count 64) unordered after warp 0's arrival in the "
                          "phase before") and "depends on timing" in why
    assert res.sure_races == set()  # with the trace's own phases the read was ordered


def test_a_full_cta_barrier_before_the_later_pair_forces_the_phases() -> None:
    # bar.sync 0 (every thread) after warps 0 and 1 arrived: warps 2 and 3 arrive after both, so phase 1 is warps
    # 0 and 1 on every schedule, and it orders the write before the read
    _, res = run(pair_then_late_pair(["bar.sync 0;"]), block=128)
    assert res.races == [] and res.loose_barriers == {} and res.sure_races is None


def test_the_same_two_warps_meeting_again_is_forced() -> None:
    # only warps 0 and 1 ever arrive at barrier 1 (warps 2 and 3 exit); warp 0 writes again after the second
    # phase, which orders warp 1's read before that write
    body = P + ["@!%p2 bra DONE;", W, "bar.sync 1, 64;", R, "bar.sync 1, 64;", "@%p1 st.shared.u32 [%r11], %r1;",
                "DONE:"]
    _, res = run(body, block=128)
    assert res.races == [] and res.loose_barriers == {}
    # without the second phase the write races with the read
    _, res = run(P + ["@!%p2 bra DONE;", W, "bar.sync 1, 64;", R, "@%p1 st.shared.u32 [%r11], %r1;", "DONE:"],
                 block=128)
    assert [r.kind for r in res.races] == ["write after read (no barrier between)"]


CONSUMER_FIRST = ["@%p1 bra PROD;", "bar.sync 1, 64;", R, "{back}", "bar.sync 1, 64;",
                  "@!%p1 ld.shared.u32 %r5, [%r11+128];", "bra DONE;",
                  "PROD:", W, "bar.arrive 1, 64;", "{wait}", "@%p1 st.shared.u32 [%r11+128], %r2;", "bar.arrive 1, 64;",
                  "DONE:"]


def producer_consumer(back: str, wait: str) -> list[str]:
    """Warp 0 produces two words, announcing each with ``bar.arrive 1, 64``; warp 1 consumes each after
    ``bar.sync 1, 64``; ``back`` / ``wait`` (consumer / producer, between the two rounds) may hand the slot back."""
    return P + [x.format(back=back, wait=wait) for x in CONSUMER_FIRST]


def test_a_producer_arriving_twice_with_nothing_holding_it_back_is_unforced() -> None:
    # nothing stops warp 0 arriving twice before warp 1 arrives once: both its arrivals could fill phase 1
    _, res = run(producer_consumer("", ""), block=64)
    assert any("warp 0 arrives at barrier 1 (thread count 64) unordered after warp 1's arrival" in w
               for w in res.loose_barriers.values())
    assert [r.kind for r in res.races] == [RAW, RAW]


def test_a_producer_held_back_by_the_consumer_on_a_second_barrier_is_forced() -> None:
    # warp 1 hands the slot back with bar.arrive 2, 64 after its read; warp 0 waits there (bar.sync 2, 64) before
    # producing again: its second arrival at barrier 1 comes after warp 1's first, so every phase is forced
    _, res = run(producer_consumer("bar.arrive 2, 64;", "bar.sync 2, 64;"), block=64)
    assert res.races == [] and res.loose_barriers == {}


def test_a_barrier_reached_with_another_count_is_unforced() -> None:
    # warps 0 and 1 meet at bar.sync 1, 64; then all four warps at bar.sync 1, 128 after a full-CTA barrier
    _, res = run(pair_then_late_pair(["bar.sync 0;"])[:-3] + ["bar.sync 1, 128;"], block=128)
    assert any("with a thread count of 128 where a phase has 64" in w for w in res.loose_barriers.values())
    assert [r.kind for r in res.races] == [RAW]


# ------------------------------------------------------------------ verdicts (the scalar GEMM of the harness)
SHARED = ".reg .b64 %rd<64>;\n.shared .align 4 .b8 sm[512];"
EXCHANGE = ("mov.u32 %r40, sm;", "mad.lo.u32 %r41, %r2, 4, %r40;")


def gemm_with_exchange(late: tuple[str, ...]) -> str:
    """The harness's scalar GEMM (warp 0 computes and stores C) where warp 0 also writes shared word ``lane``
    before ``bar.sync 1, 64`` and warp 1 reads it after; warps 2 and 3 run ``late``."""
    text = gemm(tail=(*EXCHANGE, "st.shared.u32 [%r41], %r2;", "bar.sync 1, 64;"),
                warp1=("setp.lt.u32 %p3, %r1, 64;", "@!%p3 bra LATE;", "bar.sync 1, 64;", *EXCHANGE,
                       "ld.shared.u32 %r42, [%r41];", "bra END;", "LATE:", *late))
    return text.replace(".reg .b64 %rd<64>;", SHARED)


def test_a_race_only_an_unforced_phase_allows_is_unknown_and_a_forced_one_proved() -> None:
    r = check_mma(trace(parse_module(gemm_with_exchange(("bar.sync 1, 64;",))), block=128), **SPECS)
    assert r.verdict == "unknown" and (r.counterexample or {})["kind"] == "race"
    assert "orders no warps: warp 2 arrives at barrier 1" in r.reason
    assert r.reason.endswith("whether another schedule's phases let them race is not decided")
    assert check_mma(trace(parse_module(gemm_with_exchange(())), block=128), **SPECS).verdict == "proved"


def test_a_race_on_the_trace_s_own_phases_still_refutes_beside_an_unforced_barrier() -> None:
    # warp 3 also writes warp 0's word with nothing ordering it: a race on every schedule
    late = ("bar.sync 1, 64;", "setp.ge.u32 %p4, %r1, 96;", *EXCHANGE, "@%p4 st.shared.u32 [%r41], %r1;")
    r = check_mma(trace(parse_module(gemm_with_exchange(late)), block=128), **SPECS)
    assert r.verdict == "refuted" and (r.counterexample or {})["kind"] == "race"
    assert (r.counterexample or {})["second"]["warp"] == 3 or (r.counterexample or {})["first"]["warp"] == 3


def test_a_global_race_beside_unmodelled_synchronisation_is_unknown_not_proved() -> None:
    # warp 1 stores 0 to C's last element before bar.sync 1, 64, warp 0 its accumulator after it; warps 1..3
    # reach the barrier together (96 + 32 threads for a count of 64: it orders nothing), so the two stores race.
    # With a cluster barrier beside (not modelled: it might order them) the verdict was "proved"; it is unknown
    for cluster in ((), ("barrier.cluster.arrive;", "barrier.cluster.wait;")):
        text = gemm(tail=("bar.sync 1, 64;", *cluster),
                    warp1=("setp.lt.u32 %p3, %r1, 64;", "mov.f32 %f50, 0f00000000;",
                           "@%p3 st.global.f32 [%rd3+124], %f50;", "bar.sync 1, 64;", *cluster))
        r = check_mma(trace(parse_module(text), block=128), **SPECS)
        if not cluster:
            assert r.verdict == "refuted" and (r.counterexample or {})["kind"] == "global race"
        else:
            assert r.verdict == "unknown" and r.reason.endswith("but the kernel also synchronises through "
                                                                 "barrier.cluster.arrive, which the race check does "
                                                                 "not model")


def test_a_global_race_only_an_unforced_phase_allows_is_unknown() -> None:
    # warp 1 stores 0 to C's last element and arrives at bar.sync 1, 64, where warp 0 waits before storing its
    # accumulator: ordered on the trace's phases; warps 2 and 3 arrive later, unordered, so the phase is unforced
    text = gemm(tail=("bar.sync 1, 64;",),
                warp1=("setp.lt.u32 %p3, %r1, 64;", "@!%p3 bra LATE;", "mov.f32 %f50, 0f00000000;",
                       "st.global.f32 [%rd3+124], %f50;", "bar.sync 1, 64;", "bra END;", "LATE:", "bar.sync 1, 64;"))
    r = check_mma(trace(parse_module(text), block=128), **SPECS)
    assert r.verdict == "unknown" and "with the phases the trace formed, the stores are ordered" in r.reason
    assert "orders no warps: warp 2 arrives at barrier 1" in r.reason


def test_one_barrier_id_with_and_without_a_count_is_unforced() -> None:
    # the machine completes a countless phase when every live thread arrived and a counted one at its count: the
    # check does not relate the two kinds of phase on one id, so the id orders nothing in that CTA
    _, res = run(pair_then_late_pair(["bar.sync 0;"])[:-3] + ["bar.sync 1;"], block=128)
    assert any("used both with a thread count and without one" in w for w in res.loose_barriers.values())
    assert [r.kind for r in res.races] == [RAW] and res.sure_races == set()

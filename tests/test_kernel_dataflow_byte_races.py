"""Byte stores and the race checks (layoutalg/kernel/dataflow/shared.py, c_stores.py).

A data race needs two conflicting accesses of one memory location: PTX ISA 8.x, 8.7.1 "Conflict and Data-races"
(two accesses conflict when they overlap and at least one is a write) and 8.2.1 "Overlap" (bytes in common).
So warp 0 and warp 1 each storing one byte of one 16-bit unit with no barrier between is no race when the bytes
differ, and is one when they are the same byte.  Shared memory: the snippets run on two warps (64 threads) of
the data-flow harness; after a barrier the interpreter must hold both bytes.  C (global, through check_mma):
the scalar GEMM of the c_stores contract with warp 1 storing into C(0, 0)."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import STORE, run
from kernel_interp_harness import lanes, launch
from test_kernel_dataflow_c_stores_contract import check, gemm, line_of

from layoutalg.kernel.interp.spaces import SMEM_BASE

# %p1: lane 0 of warp 0, %p2: lane 0 of warp 1; %h1 = 0x11 (warp 0's byte), %h2 = 0x22 (warp 1's byte)
LANE0S = ["and.b32 %r12, %r1, 31;", "setp.eq.u32 %p3, %r12, 0;", "setp.lt.u32 %p4, %r1, 32;",
          "and.pred %p1, %p3, %p4;", "setp.ge.u32 %p5, %r1, 32;", "and.pred %p2, %p3, %p5;",
          "mov.u16 %h1, 17;", "mov.u16 %h2, 34;"]
WAW = "write after write (no barrier between)"


def races(body: list[str]) -> list[tuple[str, int, int, int]]:
    """(kind, first warp, second warp, shared byte offset) of each race the flow reports."""
    _, res = run(LANE0S + body, block=64)
    return [(r.kind, r.first_warp, r.second_warp, r.address - SMEM_BASE) for r in res.races]


@pytest.mark.parametrize("b0,b1", [(0, 1), (1, 0), (1, 2), (3, 2)])
def test_two_warps_storing_different_bytes_of_one_word_do_not_race(b0: int, b1: int) -> None:
    assert races([f"@%p1 st.shared.u8 [sm+{b0}], %h1;", f"@%p2 st.shared.u8 [sm+{b1}], %h2;", "bar.sync 0;",
                  "ld.shared.u32 %r4, [sm];"]) == []


@pytest.mark.parametrize("b", [0, 1, 3])
def test_two_warps_storing_the_same_byte_race_at_that_byte(b: int) -> None:
    assert races([f"@%p1 st.shared.u8 [sm+{b}], %h1;", f"@%p2 st.shared.u8 [sm+{b}], %h2;", "bar.sync 0;",
                  "ld.shared.u32 %r4, [sm];"]) == [(WAW, 0, 1, b)]


def test_a_barrier_between_two_stores_of_one_byte_orders_them() -> None:
    assert races(["@%p1 st.shared.u8 [sm+1], %h1;", "bar.sync 0;", "@%p2 st.shared.u8 [sm+1], %h2;"]) == []


def test_a_byte_store_races_with_a_wider_store_that_covers_its_byte_only() -> None:
    # warp 0 writes byte 1; warp 1's u16 at sm covers bytes 0 and 1 (a race at byte 1), its u16 at sm+2 does not
    assert races(["@%p1 st.shared.u8 [sm+1], %h1;", "@%p2 st.shared.u16 [sm], %h2;"]) == [(WAW, 0, 1, 1)]
    assert races(["@%p1 st.shared.u8 [sm+1], %h1;", "@%p2 st.shared.u16 [sm+2], %h2;"]) == []


def test_byte_loads_race_only_with_stores_of_their_own_byte() -> None:
    rar = "read after write (no barrier between)"
    assert races(["@%p1 st.shared.u8 [sm], %h1;", "@%p2 ld.shared.u8 %h3, [sm+1];"]) == []
    assert races(["@%p1 st.shared.u8 [sm], %h1;", "@%p2 ld.shared.u8 %h3, [sm];"]) == [(rar, 0, 1, 0)]
    assert races(["@%p2 ld.shared.u8 %h3, [sm+1];", "@%p1 st.shared.u8 [sm], %h1;"]) == []
    assert races(["@%p2 ld.shared.u8 %h3, [sm];", "@%p1 st.shared.u8 [sm], %h1;"]) == \
        [("write after read (no barrier between)", 1, 0, 0)]


def test_one_byte_store_of_two_warps_in_one_step_races_only_on_a_shared_byte() -> None:
    # lane 0 of each warp stores byte (warp id) of sm -- distinct bytes -- or both byte 0
    both = ["shr.u32 %r13, %r1, 5;", "mov.u32 %r14, sm;", "add.u32 %r14, %r14, %r13;"]
    assert races(both + ["@%p3 st.shared.u8 [%r14], %h1;"]) == []
    assert races(both + ["@%p3 st.shared.u8 [sm], %h1;"]) == [(WAW, 0, 1, 0)]


def test_the_interpreter_keeps_both_warps_bytes_of_one_word() -> None:
    # the disjoint case traces correctly: after the barrier every thread reads 0x2211 (byte 0 from warp 0,
    # byte 1 from warp 1) and the word's other bytes as they were
    body = ("mov.u32 %r1, 0;\nst.shared.u32 [sm], %r1;\nbar.sync 0;\nand.b32 %r12, %r39, 31;\n"
            "setp.eq.u32 %p3, %r12, 0;\nsetp.lt.u32 %p4, %r39, 32;\nand.pred %p1, %p3, %p4;\n"
            "setp.ge.u32 %p5, %r39, 32;\nand.pred %p2, %p3, %p5;\nmov.u32 %r2, 17;\nmov.u32 %r3, 34;\n"
            "@%p1 st.shared.u8 [sm], %r2;\n@%p2 st.shared.u8 [sm+1], %r3;\nbar.sync 0;\nld.shared.u32 %r4, [sm];")
    m = launch(body, threads=64, decls=".shared .align 4 .b8 sm[16];")
    assert lanes(m, "%r4") == [0x2211] * 64


# ----------------------------------------------------------------- C (global), through check_mma
# lane 0 of warp 0 stores byte 0 of its accumulator into C(0, 0) (the other lanes their whole accumulators);
# lane 0 of warp 1 stores a byte of A into byte ``b`` of C(0, 0) with no barrier between
W0_BYTE = ("setp.eq.u32 %p5, %r2, 0;\n@!%p5 st.global.f32 [%rd5], {acc};\nmov.b32 {{%h1, %h2}}, {acc};\n"
           "@%p5 st.global.u8 [%rd5], %h1;")


def w1_byte(b: int, barrier: bool = False) -> tuple[str, ...]:
    return (("bar.sync 0;",) if barrier else ()) + (
        "setp.eq.u32 %p6, %r2, 0;", "ld.global.u16 %h3, [%rd1];", f"@%p6 st.global.u8 [%rd5+{b}], %h3;")


def test_two_warps_storing_the_same_byte_of_c_race_naming_the_byte_and_both_stores() -> None:
    text = gemm(store=W0_BYTE, warp1=w1_byte(0))
    r = check(text, block=64)
    first, second = line_of(text, "@%p5 st.global.u8 [%rd5], %h1;"), line_of(text, "@%p6 st.global.u8 [%rd5+0], %h3;")
    assert r.verdict == "refuted" and r.counterexample["kind"] == "global race"
    assert r.reason == (f"byte 0 of C is stored by PTX line {first} (CTA (0, 0, 0) warp 0 lane 0) and by PTX line "
                        f"{second} (CTA (0, 0, 0) warp 1 lane 0) with different values and nothing ordering the "
                        "two stores")


def test_two_warps_storing_different_bytes_of_c_do_not_race_and_the_answer_says_bytes_are_not_followed() -> None:
    r = check(gemm(store=W0_BYTE, warp1=w1_byte(1)), block=64)
    assert r.verdict == "unknown" and [f.kind for f in r.findings] == ["store"]
    assert "through an 8-bit access (tags are 16-bit units)" in r.reason


def test_a_byte_of_c_stored_over_another_warps_accumulator_races_unless_a_barrier_orders_them() -> None:
    # warp 0 stores every accumulator whole; warp 1's byte into byte 1 of C(0, 0) overlaps it
    text = gemm(warp1=w1_byte(1))
    r = check(text, block=64)
    assert r.verdict == "refuted" and r.counterexample["kind"] == "global race"
    assert r.reason.startswith(f"byte 1 of C is stored by PTX line {line_of(text, 'st.global.f32 [%rd5], %f31;')} "
                               "(CTA (0, 0, 0) warp 0 lane 0) and by PTX line")
    r = check(gemm(store=STORE + "\nbar.sync 0;", warp1=w1_byte(1, barrier=True)), block=64)
    # ordered: the byte lands last, no race; C(0, 0) then mixes bytes the 16-bit tags do not follow
    assert r.verdict == "unknown" and [f.kind for f in r.findings] == ["store"]
    assert "through an 8-bit access (tags are 16-bit units)" in r.reason

"""Loads and stores of the data-flow model (layoutalg/kernel/dataflow/memory.py) on one-warp PTX snippets:
a global load tags unit u of an access at byte offset o with (buffer, o + 2 u); 8-bit accesses, unknown
addresses and re-loads of memory the launch wrote are OPAQUE with their reason; shared, local and generic
(cvta) round trips carry the tags; a shared byte read is race-checked like any other read."""

from __future__ import annotations

import re

import pytest
from kernel_dataflow_contract_harness import StoreRecorder, kernel, lane_units, run, what

from layoutalg.errors import KernelError
from layoutalg.kernel.dataflow import flow, launch_of
from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.ptx import parse_module

LD = "ld.global.u32 %r2, [%rd4];"
ST = "st.global.u32 [%rd5], %r4;"
UNKNOWN_ADDR = ["and.b32 %r3, %r2, 12;", "cvt.u64.u32 %rd6, %r3;", "add.s64 %rd7, %rd4, %rd6;"]  # data-dependent
SMEM = ["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 4, %r10;"]  # %r11 = this thread's shared word


def a(t: int, b: int) -> tuple[str, int]:
    return ("A", 16 * t + b)


def op(why: int) -> tuple[str, int]:
    return ("opaque", why)


def test_vector_global_loads_tag_each_element_at_its_byte_offset() -> None:
    got = lane_units(["ld.global.v2.u32 {%r2, %r4}, [%rd4+8];", ST])
    assert all(row == [a(t, 12), a(t, 14)] for t, row in enumerate(got))
    got = lane_units(["ld.global.v4.u16 {%h1, %h2, %h3, %h4}, [%rd4+8];", "mov.b32 %r4, {%h4, %h2};", ST])
    assert all(row == [a(t, 14), a(t, 10)] for t, row in enumerate(got))
    got = lane_units(["ld.global.nc.u32 %r4, [%rd4+12];", ST])
    assert all(row == [a(t, 12), a(t, 14)] for t, row in enumerate(got))


@pytest.mark.parametrize("ins,expect", [
    ("ld.global.u8 %r4, [%rd4];", lambda t: [op(tg.W_BYTE), "zero"]),
    ("ld.global.u16 %r4, [%rd4+2];", lambda t: [a(t, 2), "zero"]),         # zero-extended to the register
    ("ld.global.s16 %r4, [%rd4+2];", lambda t: [a(t, 2), op(tg.W_SPLIT)]),  # sign-extended: data bits
    ("ld.u8 %r4, [%rd4+4];", lambda t: [op(tg.W_BYTE), "zero"]),            # generic, global window
    ("ld.u32 %r4, [%rd4+4];", lambda t: [a(t, 4), a(t, 6)]),
])
def test_load_widths_and_extension(ins: str, expect) -> None:
    got = lane_units([ins, ST])
    assert all(row == expect(t) for t, row in enumerate(got)), got[:2]


@pytest.mark.parametrize("space", ["global.", ""])
def test_a_load_from_an_address_computed_from_loaded_data_is_opaque(space: str) -> None:
    got = lane_units([LD] + UNKNOWN_ADDR + [f"ld.{space}u32 %r4, [%rd7];", ST])
    assert all(row == [op(tg.W_GLOBAL_ADDR)] * 2 for row in got)


def test_a_load_of_memory_this_launch_wrote_is_opaque() -> None:
    got = lane_units([LD, "st.global.u32 [%rd5+4], %r2;", "ld.global.u32 %r4, [%rd5+4];", ST])
    assert all(row == [op(tg.W_WRITTEN)] * 2 for row in got)
    got = lane_units([LD, "st.global.u32 [%rd5+4], %r2;", "ld.global.u32 %r4, [%rd5+8];", ST])
    assert all(row == [(1, 16 * t + 8), (1, 16 * t + 10)] for t, row in enumerate(got))  # C (buffer 1), unwritten


def test_global_stores_report_each_unit_they_write() -> None:
    got = lane_units([LD, "ld.global.u32 %r3, [%rd4+4];", "st.global.v2.u32 [%rd5], {%r3, %r2};"], units=4)
    assert all(row == [a(t, 4), a(t, 6), a(t, 0), a(t, 2)] for t, row in enumerate(got))
    got = lane_units([LD, "st.global.u16 [%rd5+2], %r2;", "st.global.u16 [%rd5], 0;"])
    assert all(row == ["none", a(t, 0)] for t, row in enumerate(got))
    got = lane_units([LD, "st.global.v2.u32 [%rd5], {%r2, 0};"], units=4)
    assert all(row == [a(t, 0), a(t, 2), "none", "none"] for t, row in enumerate(got))
    got = lane_units([LD, "st.global.u8 [%rd5], %r2;", "st.global.u8 [%rd5+1], %r1;"], units=1)
    assert all(row == [op(tg.W_BYTE)] for row in got)


def test_a_store_to_an_unknown_address_is_reported_not_followed() -> None:
    for space in ("global.", ""):
        rec, res = run([LD, "and.b32 %r3, %r2, 12;", "cvt.u64.u32 %rd6, %r3;", "add.s64 %rd7, %rd5, %rd6;",
                        f"st.{space}u32 [%rd7], %r2;"])
        assert not rec.units and len(res.unknown_stores) == 1, space


def test_shared_round_trip_carries_tags_between_lanes() -> None:
    got = lane_units([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", "bar.sync 0;", "xor.b32 %r12, %r1, 1;",
                                    "mad.lo.u32 %r13, %r12, 4, %r10;", "ld.shared.u32 %r4, [%r13];", ST])
    assert all(row == [a(t ^ 1, 0), a(t ^ 1, 2)] for t, row in enumerate(got))


def test_a_shared_byte_store_makes_its_unit_opaque_only_if_tagged() -> None:
    got = lane_units([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", "st.shared.u8 [%r11+2], %r1;",
                                    "ld.shared.u32 %r4, [%r11];", ST])
    assert all(row == [a(t, 0), op(tg.W_BYTE)] for t, row in enumerate(got))
    got = lane_units(SMEM + ["st.shared.u32 [%r11], %r1;", "st.shared.u8 [%r11+1], %r1;", "ld.shared.u32 %r4, [%r11];",
                             ST])
    assert all(row == ["none", "none"] for row in got)


def test_a_shared_byte_load_of_tagged_data_is_opaque() -> None:
    got = lane_units([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", "ld.shared.u8 %r4, [%r11+3];", ST])
    assert all(row == [op(tg.W_BYTE), "zero"] for row in got)
    got = lane_units([LD] + SMEM + ["st.shared.u16 [%r11+2], %r2;", "ld.shared.v2.u8 {%r4, %r5}, [%r11];",
                                    "st.global.v2.u32 [%rd5], {%r4, %r5};"], units=4)
    assert all(row == ["none", "zero", "none", "zero"] for row in got)
    got = lane_units([LD] + SMEM + ["st.shared.u16 [%r11+2], %r2;", "ld.shared.v2.u8 {%r4, %r5}, [%r11+2];",
                                    "st.global.v2.u32 [%rd5], {%r4, %r5};"], units=4)
    assert all(row == [op(tg.W_BYTE), "zero", op(tg.W_BYTE), "zero"] for row in got)


@pytest.mark.parametrize("load", ["ld.shared.u8 %r4, [%r11];", "ld.shared.u16 %h4, [%r11+2];",
                                  "ld.shared.u32 %r4, [%r11];"])
def test_a_shared_read_of_another_warps_unsynchronised_write_is_a_race_at_any_width(load: str) -> None:
    body = [LD, "mov.u32 %r10, sm;", "and.b32 %r12, %r1, 31;", "mad.lo.u32 %r11, %r12, 4, %r10;",
            "setp.lt.u32 %p1, %r1, 32;", "@%p1 st.shared.u32 [%r11], %r2;"]
    _, res = run(body + ["@!%p1 " + load], block=64)
    assert [(r.first_warp, r.second_warp, r.kind.startswith("read after write")) for r in res.races] == [(0, 1, True)]
    _, res = run(body + ["bar.sync 0;", "@!%p1 " + load], block=64)
    assert not res.races


def test_local_round_trips_keep_tags_and_byte_accesses_are_opaque() -> None:
    got = lane_units([LD, "st.local.u32 [loc+8], %r2;", "ld.local.u32 %r4, [loc+8];", ST])
    assert all(row == [a(t, 0), a(t, 2)] for t, row in enumerate(got))
    got = lane_units([LD, "st.local.u32 [loc+8], %r2;", "st.local.u8 [loc+9], %r2;", "ld.local.u32 %r4, [loc+8];", ST])
    assert all(row == [op(tg.W_BYTE), a(t, 2)] for t, row in enumerate(got))
    got = lane_units([LD, "st.local.u32 [loc+8], %r2;", "ld.local.u8 %r4, [loc+11];", ST])
    assert all(row == [op(tg.W_BYTE), "zero"] for row in got)
    got = lane_units([LD, "st.local.u16 [loc+10], %r2;", "ld.local.v2.u8 {%r4, %r5}, [loc+8];",
                      "st.global.v2.u32 [%rd5], {%r4, %r5};"], units=4)
    assert all(row == ["none", "zero", "none", "zero"] for row in got)


def test_generic_addresses_reach_shared_local_and_global_memory() -> None:
    got = lane_units([LD, "mov.u64 %rd10, sm;", "cvta.shared.u64 %rd11, %rd10;", "mul.wide.u32 %rd12, %r1, 4;",
                      "add.s64 %rd13, %rd11, %rd12;", "st.u32 [%rd13], %r2;", "bar.sync 0;",
                      "ld.u32 %r4, [%rd13];", ST])
    assert all(row == [a(t, 0), a(t, 2)] for t, row in enumerate(got))
    got = lane_units([LD, "mov.u64 %rd10, loc;", "cvta.local.u64 %rd11, %rd10;", "st.u32 [%rd11+4], %r2;",
                      "ld.u32 %r4, [%rd11+4];", ST])
    assert all(row == [a(t, 0), a(t, 2)] for t, row in enumerate(got))
    got = lane_units([LD, "st.u32 [%rd5+4], %r2;", "ld.global.u32 %r4, [%rd4+4];", "st.u32 [%rd5], %r4;"])
    assert all(row == [a(t, 4), a(t, 6)] for t, row in enumerate(got))


@pytest.mark.parametrize("body,message", [
    (["ld.local.u32 %r4, [loc+62];"], "local-memory address outside the 64 bytes of .local variables"),
    (["ld.local.v2.u32 {%r4, %r5}, [loc+60];"], "local-memory address outside the 64 bytes of .local variables"),
    (["mov.u64 %rd10, loc;", "cvta.local.u64 %rd11, %rd10;", "ld.u32 %r4, [%rd11+64];"],
     "local-memory address outside the 64 bytes of .local variables"),
    (["mov.u32 %r10, sm;", "st.shared.u32 [%r10+1024], %r2;"],
     "shared-memory address 2048 (4 bytes) is outside the CTA's shared memory [1024, 2048)"),
    (["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 4, %r10;", "st.shared.u32 [%r11+1000], %r2;"],
     "shared-memory address 2148 (4 bytes) is outside the CTA's shared memory [1024, 2048)"),
    (["mov.u64 %rd10, sm;", "cvta.shared.u64 %rd11, %rd10;", "st.u32 [%rd11+1024], %r2;"],
     "shared-memory address 2048 (4 bytes) is outside the CTA's shared memory [1024, 2048)"),
    (["mov.u32 %r10, sm;", "ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r10+1016];"],
     "shared-memory address 2040 (16 bytes) is outside the CTA's shared memory [1024, 2048)"),
    (["mov.u32 %r10, sm;", "st.shared.v4.u32 [%r10+1016], {%r2, %r2, %r2, %r2};"],
     "shared-memory address 2040 (16 bytes) is outside the CTA's shared memory [1024, 2048)"),
])
def test_an_access_past_the_local_or_shared_variables_is_an_error_naming_the_bounds(body: list[str],
                                                                                    message: str) -> None:
    # loc is 64 bytes, sm 1024 bytes placed at 1024: [loc+62] reads bytes 62..65, sm+1024 is one past its end,
    # lane 31's sm + 4 * 31 + 1000 = sm + 1124 too
    with pytest.raises(KernelError, match=re.escape(message)):
        run([LD, *body, ST])


@pytest.mark.parametrize("window", [["mov.u64 %rd10, sm;", "cvta.shared.u64 %rd11, %rd10;", "add.s64 %rd12, %rd11, 1024;"],
                                    ["mov.u64 %rd10, loc;", "cvta.local.u64 %rd11, %rd10;", "add.s64 %rd12, %rd11, 64;"]])
def test_a_generic_store_that_faults_reports_no_unit_of_its_global_lanes(window: list[str]) -> None:
    # lanes 0..15 store to their C word, lanes 16..31 one past the end of sm (or loc): the instruction faults, so the
    # launch ends with the error and the consumer is told of no store by it
    body = [LD, *window, "setp.lt.u32 %p1, %r1, 16;", "selp.b64 %rd13, %rd5, %rd12, %p1;", "st.u32 [%rd13], %r2;"]
    rec = StoreRecorder()
    with pytest.raises(KernelError, match="outside"):
        flow(launch_of(parse_module(kernel(body)), block=32), rec)
    assert rec.units == {}


def test_a_vector_byte_store_writes_byte_j_at_offset_j_in_shared_local_and_global_memory() -> None:
    """PTX ``st.v4.u8 [a], {w, x, y, z}`` writes bytes a .. a+3 (two 16-bit units), ``st.v2.u8`` bytes a, a+1 (one)."""
    got = lane_units([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", "st.shared.v4.u8 [%r11], {%r1, %r1, %r1, %r1};",
                                    "ld.shared.u32 %r4, [%r11];", ST])
    assert all(row == [op(tg.W_BYTE), op(tg.W_BYTE)] for row in got)
    got = lane_units([LD, "st.local.v2.u32 [loc+8], {%r2, %r2};", "st.local.v2.u8 [loc+8], {%r1, %r1};",
                      "ld.local.v2.u32 {%r4, %r5}, [loc+8];", "st.global.v2.u32 [%rd5], {%r4, %r5};"], units=4)
    assert all(row == [op(tg.W_BYTE), a(t, 2), a(t, 0), a(t, 2)] for t, row in enumerate(got))
    got = lane_units([LD, "st.global.v4.u8 [%rd5], {%r2, %r2, %r2, %r2};"], units=4)
    assert all(row == [op(tg.W_BYTE), op(tg.W_BYTE), None, None] for row in got)  # 4 bytes: 2 units, no more


GENERIC_SM = ["mov.u64 %rd10, sm;", "cvta.shared.u64 %rd11, %rd10;", "mul.wide.u32 %rd12, %r1, 4;",
              "add.s64 %rd13, %rd11, %rd12;"]  # %rd13 = generic address of this thread's shared word


def test_a_vector_load_over_a_partly_written_region_marks_only_the_written_units() -> None:
    # C bytes 16 t + 10, 11 written by this launch; the v2.u32 load reads 16 t + 4 .. 16 t + 11 (units 4, 6, 8, 10)
    got = lane_units(["st.global.u16 [%rd5+10], %r1;", "ld.global.v2.u32 {%r4, %r5}, [%rd5+4];",
                      "st.global.v2.u32 [%rd5], {%r4, %r5};"], units=4)
    assert all(row == [(1, 16 * t + 4), (1, 16 * t + 6), (1, 16 * t + 8), op(tg.W_WRITTEN)]
               for t, row in enumerate(got)), got[:2]


def test_a_store_to_a_word_another_thread_loaded_is_an_overlap_in_every_buffer() -> None:
    # thread t loads A[16 t ..] and then stores to its neighbour's A[16 (t ^ 1) ..]: which value t ^ 1 read depends
    # on the order of the two threads
    neighbour = ["xor.b32 %r12, %r1, 1;", "mul.wide.u32 %rd12, %r12, 16;", "add.s64 %rd13, %rd1, %rd12;"]
    _, res = run([LD, *neighbour, "st.global.u32 [%rd13], %r1;"])
    assert len(res.overlaps) == 1
    _, res = run([LD, *neighbour, "st.global.u32 [%rd4], %r1;"])  # its own word: no other thread read it
    assert res.overlaps == {}


@pytest.mark.parametrize("space", ["global.", ""])
def test_every_byte_of_a_vector_byte_load_from_global_memory_is_opaque(space: str) -> None:
    """``ld.v4.u8 {w, x, y, z}, [a]`` loads the bytes a .. a + 3 of A: each destination holds a byte of A (OPAQUE:
    bytes are not followed), none is a known zero."""
    got = lane_units(["mov.u32 %r5, 7;", f"ld.{space}v4.u8 {{%r4, %r5, %r6, %r7}}, [%rd4];",
                      "st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};"], units=8)
    assert all(row == [op(tg.W_BYTE), "zero"] * 4 for row in got), got[:1]
    got = lane_units([f"ld.{space}v2.u8 {{%r4, %r5}}, [%rd4+6];", "st.global.v2.u32 [%rd5], {%r4, %r5};"], units=4)
    assert all(row == [op(tg.W_BYTE), "zero"] * 2 for row in got), got[:1]


def test_a_generic_vector_load_from_global_memory_tags_each_element_at_its_byte_offset() -> None:
    got = lane_units(["ld.v2.u32 {%r4, %r5}, [%rd4+8];", "st.global.v2.u32 [%rd5], {%r4, %r5};"], units=4)
    assert all(row == [a(t, 8), a(t, 10), a(t, 12), a(t, 14)] for t, row in enumerate(got))
    got = lane_units(["ld.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];", "st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};"],
                     block=1, units=8)
    assert got == [[a(0, 2 * u) for u in range(8)]]


def test_local_accesses_at_the_first_byte_and_16_bit_local_accesses_carry_tags() -> None:
    got = lane_units([LD, "st.local.u32 [loc], %r2;", "ld.local.u32 %r4, [loc];", ST])
    assert all(row == [a(t, 0), a(t, 2)] for t, row in enumerate(got))
    got = lane_units([LD, "st.local.u16 [loc+10], %r2;", "ld.local.u16 %h4, [loc+10];", "mov.b32 %r4, {%h4, %h4};", ST])
    assert all(row == [a(t, 0), a(t, 0)] for t, row in enumerate(got))


def test_a_local_vector_byte_store_reaches_every_unit_it_writes() -> None:
    # st.v4.u8 at loc+8 writes bytes 8..11: units 8 and 10 become OPAQUE, units 12 and 14 keep their tags
    got = lane_units([LD, "st.local.v4.u32 [loc+8], {%r2, %r2, %r2, %r2};", "st.local.v4.u8 [loc+8], {%r1, %r1, %r1, %r1};",
                      "ld.local.v4.u32 {%r4, %r5, %r6, %r7}, [loc+8];", "st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};"],
                     units=8)
    assert all(row == [op(tg.W_BYTE), op(tg.W_BYTE), a(t, 0), a(t, 2), a(t, 0), a(t, 2), a(t, 0), a(t, 2)]
               for t, row in enumerate(got))


def test_a_shared_byte_store_changes_only_the_unit_holding_the_byte() -> None:
    # a tagged byte onto a tagged unit: OPAQUE; the other unit of the word keeps its tag
    got = lane_units([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", "st.shared.u8 [%r11+2], %r2;",
                                    "ld.shared.u32 %r4, [%r11];", ST])
    assert all(row == [a(t, 0), op(tg.W_BYTE)] for t, row in enumerate(got))
    # sm bytes 0..127 tagged; an untagged byte stored at sm + 128 + 2 t leaves its (untagged) unit untagged
    got = lane_units([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", "add.u32 %r14, %r10, 128;",
                                    "mad.lo.u32 %r15, %r1, 2, %r14;", "st.shared.u8 [%r15], %r1;",
                                    "ld.shared.u16 %h4, [%r15];", "mov.b32 %r4, {%h4, %h4};", ST])
    assert all(row == ["none", "none"] for row in got)


@pytest.mark.parametrize("window", [GENERIC_SM, ["mov.u64 %rd10, loc;", "cvta.local.u64 %rd13, %rd10;"]])
@pytest.mark.parametrize("width", ["u8", "u32"])
def test_a_generic_store_split_between_a_window_and_global_memory_reports_its_global_lanes(window: list[str],
                                                                                           width: str) -> None:
    # lanes 0..15 store to shared (or local) memory, lanes 16..31 to their C word
    got = lane_units([LD, *window, "setp.lt.u32 %p1, %r1, 16;", "selp.b64 %rd14, %rd13, %rd5, %p1;",
                      f"st.{width} [%rd14], %r2;"], units=1)
    expect = op(tg.W_BYTE) if width == "u8" else None
    assert all(row == [None] for row in got[:16])
    assert all(row == [expect or a(t + 16, 0)] for t, row in enumerate(got[16:])), got[16:18]


@pytest.mark.parametrize("space", ["global.", ""])
def test_a_predicated_store_reports_only_the_executing_lanes(space: str) -> None:
    rec, res = run([LD, "setp.lt.u32 %p1, %r1, 16;", f"@%p1 st.{space}u32 [%rd5], %r2;"])
    assert rec.units == {(1, 16 * t + 2 * u): tg.glob(0, 16 * t + 2 * u) for t in range(16) for u in range(2)}
    assert res.unknown_stores == {}


def test_a_generic_store_to_an_unknown_address_forgets_shared_memory() -> None:
    got = lane_units([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", *UNKNOWN_ADDR[:2], "add.s64 %rd7, %rd5, %rd6;",
                                    "st.u32 [%rd7], %r1;", "ld.shared.u32 %r4, [%r11];", ST])
    assert all(row == [op(tg.W_SMEM_WRITE)] * 2 for row in got)
    got = lane_units([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", "st.u32 [%rd5+4], %r1;", "ld.shared.u32 %r4, [%r11];",
                                    ST])  # a known address: shared memory kept
    assert all(row == [a(t, 0), a(t, 2)] for t, row in enumerate(got))


def test_a_store_from_a_register_narrower_than_its_type_is_refused() -> None:
    # ptxas 13.0 refuses it ("Arguments mismatch": ld/st take wider registers, never narrower)
    with pytest.raises(KernelError, match=r"st\.global\.u32: operand 1 \(%h1, a \.b16 register\).*narrower"):
        lane_units([LD, "mov.b32 {%h1, %h2}, %r2;", "st.global.u32 [%rd5], %h1;"], units=3)


@pytest.mark.parametrize("store", ["st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%rd20], %r30, [%rd20+8];",
                                   "st.bulk.weak.shared::cta [%rd20], 64, 0;"])
def test_st_async_and_st_bulk_forget_shared_memory(store: str) -> None:
    got = lane_units([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", "mov.u64 %rd20, sm;", store,
                                    "ld.shared.u32 %r4, [%r11];", ST])
    assert all(row == [op(tg.W_SMEM_WRITE)] * 2 for row in got)


def test_ldu_of_a_generic_address_is_a_global_load() -> None:
    """ldu without a state space reads global memory (PTX ISA): a generic address of shared memory gives no tags of
    the shared word, only OPAQUE."""
    got = lane_units([LD, *GENERIC_SM, "st.u32 [%rd13], %r2;", "ldu.u32 %r4, [%rd13];", ST])
    assert all(row == [op(tg.W_GLOBAL_ADDR)] * 2 for row in got)


@pytest.mark.parametrize("store", [["and.b32 %r3, %r2, 12;", "add.u32 %r21, %r10, %r3;", "add.u32 %r21, %r21, 512;",
                                    "add.u32 %r22, %r11, 512;", "selp.b32 %r23, %r21, %r22, %p2;",
                                    "st.shared.u32 [%r23], %r1;"],
                                   [*UNKNOWN_ADDR[:2], "add.s64 %rd7, %rd5, %rd6;", "selp.b64 %rd8, %rd7, %rd21, %p2;",
                                    "st.u32 [%rd8+8], %r1;"]])
def test_a_store_to_an_unknown_address_forgets_the_shared_memory_of_its_own_cta_only(store: list[str]) -> None:
    # two CTAs: CTA 0 stores at an address computed from loaded data, CTA 1 at a known one; each then reads back its
    # own shared word and stores it to C (CTA c at byte 512 c + 16 t)
    cta = ["mov.u32 %r20, %ctaid.x;", "setp.eq.u32 %p2, %r20, 0;", "mul.wide.u32 %rd20, %r20, 512;",
           "add.s64 %rd21, %rd5, %rd20;"]
    rec, _ = run([LD, *SMEM, *cta, "st.shared.u32 [%r11], %r2;", *store, "ld.shared.u32 %r4, [%r11];",
                  "st.global.u32 [%rd21], %r4;"], grid=2)
    cta0 = [what(rec.units[(1, 16 * t + 2 * u)]) for t in range(32) for u in range(2)]
    cta1 = [what(rec.units[(1, 512 + 16 * t + 2 * u)]) for t in range(32) for u in range(2)]
    assert cta0 == [op(tg.W_SMEM_WRITE)] * 64
    assert cta1 == [a(t, 2 * u) for t in range(32) for u in range(2)]


def test_a_shared_store_by_a_single_lane_carries_its_tags_to_every_reader() -> None:
    got = lane_units([LD, "mov.u32 %r10, sm;", "setp.eq.u32 %p1, %r1, 5;", "@%p1 st.shared.u32 [%r10], %r2;",
                      "ld.shared.u32 %r4, [%r10];", ST])
    assert all(row == [a(5, 0), a(5, 2)] for row in got)


def test_a_generic_store_through_a_register_never_written_forgets_shared_memory() -> None:
    # %rd9 holds no known value in any lane: the store may have hit any shared word
    rec, res = run([LD] + SMEM + ["st.shared.u32 [%r11], %r2;", "st.u32 [%rd9], %r1;", "ld.shared.u32 %r4, [%r11];", ST])
    assert all(what(rec.units[(1, 16 * t + 2 * u)]) == op(tg.W_SMEM_WRITE) for t in range(32) for u in range(2))
    assert len(res.unknown_stores) == 1


def test_a_signed_load_into_a_wider_register_extends_the_sign_of_the_elements_high_unit() -> None:
    # PTX ISA ld: a signed load into a wider register is sign-extended from the element's most significant bit,
    # which lies in its highest 16-bit unit.  Here the low unit holds A data and the high unit is a zero
    # extension, so the sign bit is 0 and the extended units carry no data (untagged or zero, never OPAQUE).
    body = ["ld.global.u16 %r2, [%rd4];"] + SMEM + ["st.shared.u32 [%r11], %r2;", "ld.shared.s32 %rd6, [%r11];",
                                                   "st.global.u64 [%rd5], %rd6;"]
    got = lane_units(body, units=4)
    assert all(row[:2] == [a(t, 0), "zero"] and set(row[2:]) <= {"none", "zero"} for t, row in enumerate(got))
    # a high unit of A data: the extension is data bits of A, OPAQUE
    got = lane_units(["ld.global.s32 %rd6, [%rd4];", "st.global.u64 [%rd5], %rd6;"], units=4)
    assert all(row == [a(t, 0), a(t, 2), op(tg.W_SPLIT), op(tg.W_SPLIT)] for t, row in enumerate(got))


def test_a_predicated_load_leaves_the_register_of_lanes_that_do_not_execute_it() -> None:
    # PTX ISA: a guarded instruction whose predicate is false does nothing; odd lanes keep the first load
    body = [LD, "and.b32 %r3, %r1, 1;", "setp.eq.u32 %p1, %r3, 0;", "mov.u32 %r4, %r2;",
            "@%p1 ld.global.u32 %r4, [%rd4+4];", ST]
    got = lane_units(body)
    assert all(row == ([a(t, 4), a(t, 6)] if t % 2 == 0 else [a(t, 0), a(t, 2)]) for t, row in enumerate(got))


def test_a_local_vector_byte_load_reads_byte_j_at_offset_j() -> None:
    # bytes loc+8 .. loc+11 (a 4-byte aligned v4.u8): the first two lie in the untagged unit at loc+8, the last
    # two in the unit at loc+10 that holds A data
    got = lane_units([LD, "st.local.u16 [loc+10], %r2;", "ld.local.v4.u8 {%r4, %r5, %r6, %r7}, [loc+8];",
                      "st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};"], units=8)
    assert all(row == ["none", "zero", "none", "zero", op(tg.W_BYTE), "zero", op(tg.W_BYTE), "zero"] for row in got)

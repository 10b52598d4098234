"""ld/st in the traced state spaces (memops.py) against the PTX ISA 8.x "Data Movement" rules: local
memory round trips per thread, generic addresses dispatch by window, vector forms need as many registers as
elements, a sink element stores an unknown value, and unsupported forms are refused naming the line."""

from __future__ import annotations

import pytest
from kernel_interp_harness import REGS, lanes, launch, refusal

from layoutalg.errors import KernelError
from layoutalg.kernel import trace
from layoutalg.kernel.records import Recorder

SMEM = ".shared .align 16 .b8 tile[1024];"
LOCAL = REGS + "\n.local .align 16 .b8 stack[64];"


def test_local_memory_round_trips_per_thread_also_through_generic_addresses():
    body = ("mov.u32 %r39, %tid.x;\nand.b32 %r5, %r39, 3;\nshl.b32 %r5, %r5, 2;\ncvt.u64.u32 %rd1, %r5;\n"
            "mov.u64 %rd2, stack;\nadd.u64 %rd2, %rd2, %rd1;\nst.local.u32 [%rd2], %r30;\n"
            "ld.local.u32 %r1, [%rd2];\ncvta.local.u64 %rd3, %rd2;\nld.u32 %r2, [%rd3];\n"
            "add.u32 %r6, %r30, 1;\nst.u32 [%rd3+16], %r6;\nld.local.u32 %r3, [%rd2+16];\n"
            "ld.local.s8 %r4, [%rd2];")
    vals = [0x80 + 3 * t for t in range(32)]
    m = launch(body, [[v] for v in vals], regs=LOCAL)
    assert lanes(m, "%r1") == vals
    assert lanes(m, "%r2") == vals
    assert lanes(m, "%r3") == [v + 1 for v in vals]
    assert lanes(m, "%r4") == [(v & 0xFF) - 256 & 0xFFFFFFFF if v & 0x80 else v & 0xFF for v in vals]


def test_local_addresses_outside_the_variables_or_unknown_are_refused():
    err, line = refusal("mov.u64 %rd2, stack;\nld.local.u32 %r1, [%rd2+64];", "ld.local", regs=LOCAL)
    assert err.line == line and "outside the 64 bytes" in str(err)
    err, line = refusal("mov.u64 %rd2, stack;\nst.local.u32 [%rd2+-4], %r1;", "st.local", regs=LOCAL)
    assert err.line == line and "outside the 64 bytes" in str(err)
    err, line = refusal("ld.global.u64 %rd2, [%rd14];\nld.local.u32 %r1, [%rd2];", "ld.local", regs=LOCAL)
    assert err.line == line and "unknown at trace time" in str(err)


def test_generic_loads_read_params_and_shared_and_unknown_generic_addresses_are_recorded():
    rec = Recorder()
    body = ("mov.u64 %rd1, tile;\nst.shared.u32 [%rd1], 41;\ncvta.shared.u64 %rd2, %rd1;\nld.u32 %r1, [%rd2];\n"
            "mov.u64 %rd3, tab;\ncvta.param.u64 %rd4, %rd3;\nld.u32 %r2, [%rd4];\n"
            "ld.global.u64 %rd5, [%rd14];\nld.u32 %r3, [%rd5];")
    m = launch(body, [[1000 + t] for t in range(32)], decls=SMEM, recorder=rec)
    assert lanes(m, "%r1") == [41] * 32
    assert lanes(m, "%r2") == [1000] * 32  # thread 0's first word
    assert lanes(m, "%r3") == [None] * 32
    assert any(r.generic for r in rec.accesses)


def test_a_param_read_outside_the_parameter_bytes_is_refused():
    err, line = refusal("ld.param.u32 %r1, [tab+640];", "tab+640")
    assert err.line == line and "outside the 640 parameter bytes" in str(err)


def test_a_vector_store_with_a_sink_element_leaves_that_element_unknown():
    m = launch("mov.u64 %rd1, tile;\nst.shared.v2.u32 [%rd1], {%r30, _};\nld.shared.v2.u32 {%r1, %r2}, [%rd1];",
               [[9]] * 32, decls=SMEM)
    assert lanes(m, "%r1") == [9] * 32 and lanes(m, "%r2") == [None] * 32


def test_unsupported_load_and_store_forms_are_refused_naming_the_line():
    cases = [("ld.shared.v4.u32 {%r1, %r2}, [tile];", "ld.shared", "expects 4 register(s)"),
             ("ld.shared.b128 %rd1, [tile];", "ld.shared", ".b128"),
             ("st.shared.b128 [tile], %rd1;", "st.shared", ".b128"),
             ("ld.shared.v2 {%r1, %r2}, [tile];", "ld.shared", "no element type"),
             ("st.param.u32 [tab], %r1;", "st.param", "outside a call sequence")]
    for text, needle, words in cases:
        err, line = refusal(text, needle, decls=SMEM)
        assert err.line == line and words in str(err), text


def test_st_async_is_listed_outside_the_lsu_and_forgets_shared_memory():
    rec = Recorder()
    body = ("mov.u64 %rd1, tile;\nst.shared.u32 [%rd1], 41;\n"
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%rd1], %r30, [%rd1+8];\n"
            "ld.shared.u32 %r1, [%rd1];")
    m = launch(body, decls=SMEM, recorder=rec)
    assert lanes(m, "%r1") == [None] * 32
    assert [inc.opcode.split(".")[:2] for inc in rec.not_lsu.values()] == [["st", "async"]]


def test_an_unknown_generic_address_is_data_dependent_for_exactly_the_active_lanes():
    rec = Recorder()
    m = launch("ld.global.u64 %rd5, [%rd14];\nld.u32 %r3, [%rd5];", active=[t % 4 == 0 for t in range(64)],
               recorder=rec)
    (inc,) = rec.data_dependent.values()
    assert (inc.lanes, inc.count, inc.scope) == (16, 2, "execution")
    assert lanes(m, "%r3") == [None] * 64


def test_shared_accesses_are_recorded_under_the_bank_models_name_for_their_width() -> None:
    rec = Recorder()
    body = ("mov.u32 %r39, %tid.x;\nshl.b32 %r38, %r39, 4;\nmov.u32 %r37, tile;\nadd.u32 %r37, %r37, %r38;\n"
            "st.shared.v4.u32 [%r37], {%r39, %r39, %r39, %r39};\nld.shared.f32 %r1, [%r37];\n"
            "ld.shared.v2.u32 {%r2, %r3}, [%r37];\nld.shared.u16 %r4, [%r37];")
    launch(body, decls=SMEM, recorder=rec)
    assert [(r.kind, r.model_text) for r in rec.accesses] == [
        ("st", "st.shared.v4.b32"), ("ld", "ld.shared.b32"), ("ld", "ld.shared.b64"), ("ld", "ld.shared.u16")]


def test_param_reads_reach_the_first_and_the_last_parameter_bytes():
    # the table is 32 rows of 20 bytes (640 bytes): byte 0 is thread 0's first input, 636 thread 31's flag (1)
    m = launch("ld.param.u32 %r1, [tab];\nld.param.u32 %r2, [tab+636];", [[7000 + t] for t in range(32)])
    assert lanes(m, "%r1") == [7000] * 32
    assert lanes(m, "%r2") == [1] * 32


def test_local_accesses_reach_the_last_bytes_of_the_local_variables():
    m = launch("mov.u64 %rd2, stack;\nst.local.u32 [%rd2+60], %r30;\nld.local.u32 %r1, [%rd2+60];",
               [[500 + t] for t in range(32)], regs=LOCAL)
    assert lanes(m, "%r1") == [500 + t for t in range(32)]


def test_ldu_without_a_state_space_loads_from_global_memory_even_from_a_shared_window_address():
    # PTX ISA: ldu's generic address must lie in the global window; the loaded value is unknown to the trace
    body = ("mov.u64 %rd1, tile;\nst.shared.u32 [%rd1], 41;\ncvta.shared.u64 %rd2, %rd1;\n"
            "ld.u32 %r1, [%rd2];\nldu.u32 %r2, [%rd2];")
    m = launch(body, decls=SMEM)
    assert lanes(m, "%r1") == [41] * 32
    assert lanes(m, "%r2") == [None] * 32


# ------------------------------------------------------------------ vector elements, extension, unknown addresses
def test_vector_loads_and_stores_access_consecutive_elements_in_shared_and_local_memory():
    """ISA ld/st .v2/.v4: element j is at the address plus j * the element size, in every state space."""
    body = ("mov.u64 %rd1, tile;\nst.shared.v4.u32 [%rd1], {%r30, %r31, %r32, %r33};\n"
            "ld.shared.u32 %r1, [%rd1];\nld.shared.u32 %r2, [%rd1+4];\nld.shared.u32 %r3, [%rd1+8];\n"
            "ld.shared.u32 %r4, [%rd1+12];\nst.shared.u32 [%rd1+16], %r33;\nst.shared.u32 [%rd1+20], %r32;\n"
            "ld.shared.v2.u32 {%r5, %r6}, [%rd1+16];\n"
            "mov.u64 %rd2, stack;\nst.local.v4.u32 [%rd2], {%r30, %r31, %r32, %r33};\n"
            "ld.local.u32 %r7, [%rd2+4];\nld.local.u32 %r8, [%rd2+12];\nld.local.v2.u32 {%r9, %r10}, [%rd2+8];\n"
            "cvta.local.u64 %rd3, %rd2;\nld.v2.u32 {%r11, %r12}, [%rd3+4];")
    inputs = [[100, 200, 300, 400]] * 32
    m = launch(body, inputs, decls=SMEM, regs=LOCAL)
    got = [lanes(m, f"%r{k}")[0] for k in range(1, 13)]
    assert got == [100, 200, 300, 400, 400, 300, 200, 400, 300, 400, 200, 300]


def test_vector_param_loads_read_consecutive_elements_at_uniform_and_per_lane_addresses():
    """The parameter table is 20-byte rows (four words and a flag) per thread; .v2 reads two consecutive words."""
    inputs = [[1000 * t + w for w in range(4)] for t in range(32)]
    flat = [x for row in inputs for x in row + [1]]
    body = ("ld.param.v2.u32 {%r1, %r2}, [tab+8];\n"
            "and.b32 %r5, %r39, 7;\nshl.b32 %r5, %r5, 3;\ncvt.u64.u32 %rd1, %r5;\nmov.u64 %rd2, tab;\n"
            "add.u64 %rd2, %rd2, %rd1;\nld.param.v2.u32 {%r3, %r4}, [%rd2];\n"
            "cvta.param.u64 %rd3, %rd2;\nld.v2.u32 {%r6, %r7}, [%rd3];")
    m = launch(body, inputs)
    assert lanes(m, "%r1") == [flat[2]] * 32 and lanes(m, "%r2") == [flat[3]] * 32
    assert lanes(m, "%r3") == [flat[2 * (t % 8)] for t in range(32)]
    assert lanes(m, "%r4") == [flat[2 * (t % 8) + 1] for t in range(32)]
    assert lanes(m, "%r6") == lanes(m, "%r3") and lanes(m, "%r7") == lanes(m, "%r4")


def test_narrow_loads_zero_extend_unsigned_and_untyped_elements_and_sign_extend_signed_ones():
    """ISA ld: a narrower element loaded into a wider register is sign-extended for .s types, zero-extended
    otherwise."""
    body = ("mov.u64 %rd1, tile;\nst.shared.u32 [%rd1], -2;\nld.shared.u8 %r1, [%rd1];\nld.shared.b8 %r2, [%rd1];\n"
            "ld.shared.u16 %r3, [%rd1];\nld.shared.s8 %r4, [%rd1];\nld.shared.s16 %r5, [%rd1];\n"
            "ld.shared.u32 %r6, [%rd1];\nld.shared.s32 %r7, [%rd1];\nld.shared.u8 %rd5, [%rd1];")
    m = launch(body, decls=SMEM)
    got = [lanes(m, f"%r{k}")[0] for k in range(1, 8)] + [lanes(m, "%rd5")[0]]
    assert got == [0xFE, 0xFE, 0xFFFE, 0xFFFFFFFE, 0xFFFFFFFE, 0xFFFFFFFE, 0xFFFFFFFE, 0xFE]


def test_an_unknown_shared_address_forgets_shared_memory_on_a_store_but_not_on_a_load():
    body = ("mov.u64 %rd1, tile;\nst.shared.u32 [%rd1+512], 41;\nld.global.u64 %rd5, [%rd14];\n"
            "and.b64 %rd5, %rd5, 12;\nadd.u64 %rd5, %rd5, %rd1;\nld.shared.u32 %r2, [%rd5];\n"
            "ld.shared.u32 %r1, [%rd1+512];\nst.shared.u32 [%rd5], %r30;\nld.shared.u32 %r3, [%rd1+512];")
    m = launch(body, decls=SMEM)
    assert lanes(m, "%r2") == [None] * 32
    assert lanes(m, "%r1") == [41] * 32  # a load with an unknown address changes nothing
    assert lanes(m, "%r3") == [None] * 32  # a store with one may have hit any word


def test_a_store_under_an_unknown_guard_forgets_shared_memory_only_when_it_can_reach_shared_memory():
    for store, forgets in [("st.shared.u32 [%rd1], 5;", True), ("st.u32 [%rd1], 5;", True),
                           ("st.global.u32 [%rd14], 5;", False)]:
        body = ("mov.u64 %rd1, tile;\nst.shared.u32 [%rd1+512], 41;\nld.global.u32 %r9, [%rd14];\n"
                "setp.eq.u32 %p1, %r9, 1;\n" + ("cvta.shared.u64 %rd1, %rd1;\n" if store.startswith("st.u32") else "")
                + "@%p1 " + store + "\nmov.u64 %rd1, tile;\nld.shared.u32 %r1, [%rd1+512];")
        m = launch(body, decls=SMEM)
        assert lanes(m, "%r1") == ([None] if forgets else [41]) * 32, store


def test_local_and_generic_accesses_ignore_the_unknown_addresses_of_inactive_threads():
    """Threads that skip the access neither make a local access refused (their address register was never
    written) nor receive a loaded value (their generic address is known)."""
    body = ("mov.u64 %rd2, stack;\nst.local.u32 [%rd2], %r30;\ncvta.local.u64 %rd4, %rd2;\nbar.sync 0;\n"
            "setp.ge.u32 %p1, %r39, 16;\n@%p1 bra SKIP;\nmov.u64 %rd3, stack;\nld.local.u32 %r1, [%rd3];\n"
            "setp.eq.u32 %p2, %r39, 5;\nld.global.u64 %rd6, [%rd14];\n@%p2 mov.u64 %rd4, %rd6;\n"
            "SKIP:\n@!%p1 ld.u32 %r2, [%rd4];")
    m = launch(body, [[10 + t] for t in range(32)], regs=LOCAL)
    assert lanes(m, "%r1") == [10 + t for t in range(16)] + [None] * 16
    assert lanes(m, "%r2") == [10 + t if t != 5 else None for t in range(16)] + [None] * 16


def test_st_async_and_st_bulk_are_listed_outside_the_lsu_under_their_own_names():
    for text, name in [("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%rd1], %r30, [%rd1+8];",
                        "st.async"), ("st.bulk.weak.shared::cta [%rd1], 64, 0;", "st.bulk")]:
        rec = Recorder()
        launch("mov.u64 %rd1, tile;\n" + text, decls=SMEM, recorder=rec)
        (inc,) = rec.not_lsu.values()
        assert inc.reason.startswith(name + ":"), (text, inc.reason)


def test_an_address_register_never_written_is_an_unknown_address():
    """A register no instruction wrote holds no known value: a local access through it is refused, a generic one is
    recorded as data-dependent for every lane."""
    err, line = refusal("ld.local.u32 %r1, [%rd9];", "ld.local", regs=LOCAL)
    assert err.line == line and "unknown at trace time" in str(err)
    rec = Recorder()
    m = launch("ld.u32 %r1, [%rd9];", recorder=rec)
    (inc,) = rec.data_dependent.values()
    assert (inc.lanes, inc.scope) == (32, "execution")
    assert lanes(m, "%r1") == [None] * 32


def test_a_per_lane_param_read_outside_the_parameter_bytes_is_refused_but_not_for_threads_that_skip_it():
    """As for one address: a lane reading past the 640 parameter bytes gets no made-up value.  Threads that skip
    the read (guarded off) may hold any address."""
    addr = "mov.u64 %rd2, tab;\nmul.wide.u32 %rd3, %r39, 20;\nadd.u64 %rd2, %rd2, %rd3;\n"
    err, line = refusal(addr + "ld.param.u32 %r1, [%rd2+628];", "ld.param.u32 %r1")
    assert err.line == line and "outside the 640 parameter bytes" in str(err)
    cvta = addr + "cvta.param.u64 %rd4, %rd2;\n"
    err, line = refusal(cvta + "ld.v2.u32 {%r1, %r2}, [%rd4+632];", "ld.v2")
    assert err.line == line and "outside the 640 parameter bytes" in str(err)
    m = launch(addr + "setp.eq.u32 %p1, %r39, 0;\n@%p1 ld.param.u64 %rd5, [%rd2+632];\n"
               "@%p1 ld.param.u64 %rd6, [%rd2+600];", [[t] for t in range(32)])
    assert lanes(m, "%rd5")[0] == 1 << 32  # thread 31's last word (0) and its flag (1)
    assert lanes(m, "%rd6")[0] == 30


V8 = "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}"


def test_a_32_byte_access_outside_global_memory_is_refused_naming_the_line():
    # PTX's 256-bit ld/st (.v8.b32, .v4.b64) exist only for .global; elsewhere the text is no PTX, and a
    # 32-byte shared access has no bank-model form (it used to crash with KeyError: 32)
    decls = ".shared .align 32 .b8 tile[1024];"
    for line in (f"ld.shared.v8.b32 {V8}, [tile];", f"st.shared.v8.b32 [tile], {V8};",
                 "ld.shared.v4.b64 {%rd1, %rd2, %rd3, %rd4}, [tile];", f"ld.v8.b32 {V8}, [%rd14];"):
        err, at = refusal(line, line.split(" ")[0], decls=decls)
        assert err.line == at and "32-byte" in str(err) and ".global" in str(err), line


def test_a_32_byte_global_load_traces_as_global_memory_outside_the_bank_model():
    machine = launch(f"ld.param.u64 %rd3, [buf0];\nld.global.v8.b32 {V8}, [%rd3];", buffers=1)
    assert lanes(machine, "%r8") == [None] * 32  # global memory holds no values the trace knows

def test_a_per_lane_param_read_running_past_the_last_byte_is_refused_naming_that_lanes_first_byte():
    """Only thread 0 reads past the end: 8 bytes from byte 636 of 640 (bytes 636..643); the others read in range."""
    body = ("mov.u64 %rd2, tab;\nmul.wide.u32 %rd3, %r39, 20;\nsub.u64 %rd2, %rd2, %rd3;\n"
            "ld.param.u64 %rd5, [%rd2+636];")
    err, line = refusal(body, "ld.param.u64 %rd5")
    assert err.line == line and "parameter read at byte 636 is outside the 640 parameter bytes" in str(err)


def test_a_per_lane_param_read_below_a_parameter_space_smaller_than_the_read_is_refused():
    """4 parameter bytes, an 8-byte read at byte -1 by every lane: it starts before the first byte (and ends past the
    last), so it is refused."""
    src = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u32 x)\n{\n"
           ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\nmov.u32 %r1, %tid.x;\nand.b32 %r2, %r1, 0;\ncvt.u64.u32 %rd1, %r2;\n"
           "mov.u64 %rd2, x;\nadd.u64 %rd3, %rd2, %rd1;\nld.param.u64 %rd4, [%rd3+-1];\nret;\n}\n")
    with pytest.raises(KernelError, match=r"parameter read at byte -1 is outside the 4 parameter bytes") as info:
        trace(src, block=32, args={"x": 5})
    assert info.value.line == 13

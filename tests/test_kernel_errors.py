"""Bad input and untraceable kernels: every failure names the PTX line (and opcode), nothing hangs,
data-dependent accesses are reported rather than guessed."""

from __future__ import annotations

import pytest

from layoutalg.errors import KernelError, LayoutError
from layoutalg.kernel import trace
from layoutalg.kernel.counters import LD_WAVEFRONTS, ST_WAVEFRONTS


def kernel(body: str, params: str = ".param .u64 out", regs: str = "") -> str:
    return (".version 8.0\n.target sm_90\n.address_size 64\n"
            f".visible .entry k({params})\n{{\n"
            ".reg .b32 %r<32>;\n.reg .b64 %rd<16>;\n.reg .pred %p<8>;\n.reg .f32 %f<8>;\n" + regs +
            ".shared .align 16 .b8 smem[4096];\n" + body + "\nret;\n}\n")


def line_of(ptx: str, needle: str) -> int:
    return next(i for i, text in enumerate(ptx.splitlines(), 1) if needle in text)


def test_an_unknown_opcode_names_its_line_and_opcode() -> None:
    ptx = kernel("mov.u32 %r1, %tid.x;\nfrobnicate.b32 %r2, %r1;")
    with pytest.raises(KernelError) as err:
        trace(ptx, block=32)
    assert err.value.line == line_of(ptx, "frobnicate") and err.value.opcode == "frobnicate.b32"
    assert "frobnicate.b32" in str(err.value) and f"line {err.value.line}" in str(err.value)


def test_a_statement_without_semicolon_names_its_line() -> None:
    ptx = kernel("mov.u32 %r1, %tid.x\n}")
    with pytest.raises(KernelError) as err:
        trace(ptx, block=32)
    assert err.value.line == line_of(ptx, "mov.u32 %r1, %tid.x")


def test_an_undeclared_register_names_its_line() -> None:
    ptx = kernel("mov.u32 %q9, %tid.x;")
    with pytest.raises(KernelError, match=r"%q9 is not declared") as err:
        trace(ptx, block=32)
    assert err.value.line == line_of(ptx, "%q9")


def test_a_runaway_loop_stops_at_the_budget_naming_the_loop() -> None:
    # a known counter changes the state on every trip, so only the budget stops it (an unknown one, never
    # written, would not: that loop's state repeats and it is reported as never ending, test_kernel_interp_loopwatch)
    ptx = kernel("mov.u32 %r1, 0;\n$L_top:\nadd.s32 %r1, %r1, 1;\nbra.uni $L_top;")
    with pytest.raises(KernelError, match="step budget") as err:
        trace(ptx, block=32, step_budget=5000)
    assert line_of(ptx, "bra.uni $L_top") in (err.value.line,) or f"line {line_of(ptx, 'bra.uni')}" in str(err.value)


def test_an_out_of_bounds_shared_address_names_its_line() -> None:
    ptx = kernel("mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 8;\nmov.u32 %r3, smem;\nadd.s32 %r4, %r3, %r2;\n"
                 "st.shared.u32 [%r4], %r1;")
    with pytest.raises(KernelError, match="outside the CTA's shared memory") as err:
        trace(ptx, block=32)
    assert err.value.line == line_of(ptx, "st.shared.u32")


def test_a_misaligned_shared_access_names_its_line() -> None:
    ptx = kernel("mov.u32 %r3, smem;\nadd.s32 %r4, %r3, 2;\nld.shared.u32 %r5, [%r4];")
    with pytest.raises(KernelError, match="misaligned") as err:
        trace(ptx, block=32)
    assert err.value.line == line_of(ptx, "ld.shared.u32")


def test_a_missing_argument_names_the_parameter() -> None:
    ptx = kernel("ld.param.u32 %r1, [n];", params=".param .u64 out, .param .u32 n")
    with pytest.raises(KernelError, match=r"parameter 1 \(n, \.u32\) is not given"):
        trace(ptx, block=32)
    trace(ptx, block=32, args={"n": 3})
    trace(ptx, block=32, args={1: 3})


def test_an_unknown_argument_name_lists_the_parameters() -> None:
    ptx = kernel("ret;", params=".param .u64 out, .param .u32 n")
    with pytest.raises(KernelError, match="0:out, 1:n"):
        trace(ptx, block=32, args={"m": 1})


def test_a_kernel_name_matching_nothing_lists_the_kernels() -> None:
    with pytest.raises(KernelError, match="no kernel matches 'zzz'.*k"):
        trace(kernel(""), kernel="zzz", block=32)


def test_errors_are_layout_errors() -> None:
    assert issubclass(KernelError, LayoutError)


def test_a_data_dependent_shared_address_is_reported_not_guessed() -> None:
    ptx = kernel("ld.param.u64 %rd1, [out];\nld.global.u32 %r1, [%rd1];\nand.b32 %r2, %r1, 1020;\n"
                 "mov.u32 %r3, smem;\nadd.s32 %r4, %r3, %r2;\nld.shared.u32 %r5, [%r4];\n"
                 "mov.u32 %r6, %tid.x;\nshl.b32 %r7, %r6, 2;\nadd.s32 %r8, %r3, %r7;\nst.shared.u32 [%r8], %r5;")
    t = trace(ptx, block=64)
    assert [(d.line, d.opcode) for d in t.data_dependent] == [(line_of(ptx, "ld.shared.u32"), "ld.shared.u32")]
    assert t.data_dependent[0].count == 2 and t.data_dependent[0].lanes == 64
    assert t.counters[LD_WAVEFRONTS] == 0 and t.counters[ST_WAVEFRONTS] == 2  # the known store still counts
    assert not t.complete


def test_a_branch_on_loaded_data_stops_those_threads_and_is_reported() -> None:
    ptx = kernel("ld.param.u64 %rd1, [out];\nld.global.u32 %r1, [%rd1];\nsetp.eq.s32 %p1, %r1, 0;\n"
                 "mov.u32 %r6, %tid.x;\nshl.b32 %r7, %r6, 2;\nmov.u32 %r3, smem;\nadd.s32 %r8, %r3, %r7;\n"
                 "st.shared.u32 [%r8], %r6;\n@%p1 bra $L_skip;\nst.shared.u32 [%r8+1024], %r6;\n$L_skip:")
    t = trace(ptx, block=32)
    assert [d.line for d in t.data_dependent] == [line_of(ptx, "@%p1 bra")]
    assert "branch predicate" in t.data_dependent[0].reason
    assert t.instruction(line_of(ptx, "st.shared.u32 [%r8], %r6")).executions == 1
    with pytest.raises(KeyError):
        t.instruction(line_of(ptx, "[%r8+1024]"))  # never executed: its threads were not traced further


def test_a_store_under_an_unknown_guard_is_data_dependent_and_forgets_memory() -> None:
    ptx = kernel("ld.param.u64 %rd1, [out];\nld.global.u32 %r1, [%rd1];\nsetp.eq.s32 %p1, %r1, 0;\n"
                 "mov.u32 %r3, smem;\nst.shared.u32 [%r3], 7;\nbar.sync 0;\n@%p1 st.shared.u32 [%r3], 9;\n"
                 "bar.sync 0;\nld.shared.u32 %r4, [%r3];\nadd.s32 %r5, %r3, %r4;\nld.shared.u32 %r6, [%r5];")
    t = trace(ptx, block=32)
    lines = sorted(d.line for d in t.data_dependent)
    assert lines == [line_of(ptx, "@%p1 st.shared"), line_of(ptx, "ld.shared.u32 %r6")]


def test_values_round_tripped_through_shared_memory_stay_known() -> None:
    ptx = kernel("mov.u32 %r3, smem;\nmov.u32 %r6, %tid.x;\nshl.b32 %r7, %r6, 2;\nadd.s32 %r8, %r3, %r7;\n"
                 "mul.lo.s32 %r9, %r6, 132;\nst.shared.u32 [%r8], %r9;\nbar.sync 0;\nld.shared.u32 %r10, [%r8];\n"
                 "add.s32 %r11, %r3, %r10;\nld.shared.u32 %r12, [%r11];\nst.shared.u32 [%r8], %r12;")
    t = trace(ptx, block=32)
    assert t.complete
    assert t.instruction(line_of(ptx, "[%r11]")).wavefronts == 1  # word 33 t: banks t, conflict-free


def test_a_barrier_only_some_threads_reach_is_a_deadlock_error() -> None:
    ptx = kernel("mov.u32 %r6, %tid.x;\nsetp.lt.u32 %p1, %r6, 32;\n@%p1 bra $L_a;\nbar.sync 0;\n"
                 "bra.uni $L_end;\n$L_a:\nbar.sync 1;\n$L_b:\nadd.s32 %r1, %r1, 1;\nbra.uni $L_b;\n$L_end:")
    with pytest.raises(KernelError):
        trace(ptx, block=64, step_budget=20000)


def test_instructions_outside_the_lsu_pipe_are_listed_not_counted() -> None:
    ptx = kernel("mov.u32 %r3, smem;\nmbarrier.init.shared.b64 [%r3], 32;\n"
                 "mbarrier.try_wait.parity.shared.b64 %p1, [%r3], 0;\n@!%p1 bra $L_x;\n"
                 "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3+128], [%rd1], 256, [%r3];\n"
                 "$L_x:\nwgmma.fence.sync.aligned;")
    t = trace(ptx, block=32)
    reasons = {d.opcode.split(".")[0] for d in t.not_lsu}
    assert reasons == {"mbarrier", "cp"}
    assert t.complete and t.counters[LD_WAVEFRONTS] == 0


def test_inline_asm_scopes_rename_their_registers() -> None:
    ptx = kernel("mov.u32 %r1, 1;\n{\n.reg .b32 %r1;\nmov.u32 %r1, 5;\n}\n"
                 "{\n.reg .pred p;\nsetp.ne.b32 p, %r1, 0;\n@p mov.u32 %r2, smem;\n}\n"
                 "mov.u32 %r6, %tid.x;\nshl.b32 %r7, %r6, 3;\nadd.s32 %r8, %r2, %r7;\nst.shared.u32 [%r8], %r1;")
    t = trace(ptx, block=32)
    store = t.instructions[0]
    assert store.executions == 1 and store.wavefronts == 2  # word 2t: lanes t and t+16 share a bank


def test_generic_accesses_in_the_shared_window_count_as_shared() -> None:
    ptx = kernel("mov.u32 %r3, smem;\ncvt.u64.u32 %rd2, %r3;\ncvta.shared.u64 %rd3, %rd2;\n"
                 "mov.u32 %r6, %tid.x;\nmul.wide.u32 %rd4, %r6, 128;\nadd.s64 %rd5, %rd3, %rd4;\nst.u32 [%rd5], %r6;\n"
                 "ld.u32 %r9, [%rd5];")
    t = trace(ptx, block=32)
    assert [(s.kind, s.generic, s.wavefronts) for s in t.instructions] == [("st", True, 32), ("ld", True, 32)]


def test_local_memory_keeps_values_known() -> None:
    ptx = kernel("mov.u64 %rd1, loc;\nmov.u32 %r6, %tid.x;\nst.local.u32 [%rd1+4], %r6;\n"
                 "ld.local.u32 %r7, [%rd1+4];\nshl.b32 %r8, %r7, 2;\nmov.u32 %r3, smem;\nadd.s32 %r9, %r3, %r8;\n"
                 "st.shared.u32 [%r9], %r6;", regs=".local .align 4 .b8 loc[16];\n")
    t = trace(ptx, block=32)
    assert t.complete and t.instructions[0].wavefronts == 1


@pytest.mark.parametrize("value,ok", [("1,2,3", True), ("1,2", False), ("1,2,3,4", False), ("i64:5,7", True),
                                      ("buf,9", True), ("1,2,70000", False), ("1,2,65535", True)])
def test_aggregate_arguments_fill_exactly_their_bytes(value: str, ok: bool) -> None:
    ptx = kernel("ld.param.u16 %r1, [agg+8];", params=".param .u64 out, .param .align 4 .b8 agg[10]")
    if ok:
        trace(ptx, block=32, args={"agg": value})
    else:
        with pytest.raises(KernelError, match="agg"):
            trace(ptx, block=32, args={"agg": value})


def test_aggregate_words_reach_the_kernel_little_endian() -> None:
    ptx = kernel("ld.param.u32 %r1, [agg+4];\nld.param.u16 %r2, [agg+8];\nmov.u32 %r3, smem;\n"
                 "add.s32 %r4, %r3, %r1;\nadd.s32 %r5, %r4, %r2;\nmov.u32 %r6, %tid.x;\nshl.b32 %r7, %r6, 2;\n"
                 "add.s32 %r8, %r5, %r7;\nst.shared.u32 [%r8], %r6;",
                 params=".param .u64 out, .param .align 4 .b8 agg[10], .param .align 1 .b8 tag[1]")
    t = trace(ptx, block=32, args={"agg": "0,256,12"})
    rec = t.accesses[0]
    assert int(rec.smem[0][0]) == 1024 + 256 + 12


def test_a_call_to_a_func_body_is_reported_unsupported_naming_its_line() -> None:
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.func (.param .b32 r) f(.param .b32 a)\n{\n"
           ".reg .b32 %r<2>;\nld.param.b32 %r1, [a];\nst.param.b32 [r], %r1;\nret;\n}\n"
           ".visible .entry k()\n{\n.reg .b32 %r<4>;\n{\n.param .b32 p0;\nst.param.b32 [p0], 1;\n"
           ".param .b32 r0;\ncall.uni (r0), f, (p0);\nld.param.b32 %r2, [r0];\n}\nret;\n}\n")
    with pytest.raises(KernelError, match="call to .func f") as err:
        trace(ptx, kernel="k", block=32)
    assert err.value.line == line_of(ptx, "call.uni")


def test_immediates_in_every_spelling_are_read_exactly() -> None:
    ptx = kernel("mov.u32 %r3, smem;\nadd.s32 %r4, %r3, 0x40;\nadd.s32 %r5, %r4, -0x20;\nadd.s32 %r6, %r5, 010;\n"
                 "add.s32 %r7, %r6, 0b100;\nmov.f32 %f1, 0f3F800000;\ncvt.rzi.s32.f32 %r8, %f1;\n"
                 "shl.b32 %r9, %r8, 2;\nadd.s32 %r10, %r7, %r9;\nst.shared.u32 [%r10], %r8;")
    t = trace(ptx, block=32)
    assert int(t.accesses[0].smem[0][0]) == 1024 + 0x40 - 0x20 + 8 + 4 + 4


def test_warps_with_a_false_guard_on_every_lane_are_reported_but_neither_counted_nor_costed() -> None:
    # measured: triton_softmax_sm80 / triton_matmul_tma_sm90 (tests/test_kernel_corpus_counters.py)
    from layoutalg.kernel.counters import INST_ST, PREDICATED_OFF_ISSUES

    ptx = kernel("mov.u32 %r6, %tid.x;\nsetp.lt.u32 %p1, %r6, 8;\nshl.b32 %r7, %r6, 2;\nmov.u32 %r3, smem;\n"
                 "add.s32 %r8, %r3, %r7;\n@%p1 st.shared.u32 [%r8], %r6;")
    t = trace(ptx, block=128)
    store = t.instructions[0]
    assert (store.executions, store.predicated_off, store.wavefronts) == (1, 3, 1)
    assert not PREDICATED_OFF_ISSUES and t.counters[INST_ST] == 1


def test_what_each_unknown_leaves_open_is_named_counter_by_counter() -> None:
    from layoutalg.kernel.counters import ALL_COUNTERS, INST_LD, INST_ST, LD_CONFLICTS, SASS_LD_WAVEFRONTS

    # an unknown address: that load's cost only (its executions, and the store, stay exact)
    ptx = kernel("ld.param.u64 %rd1, [out];\nld.global.u32 %r1, [%rd1];\nand.b32 %r2, %r1, 1020;\n"
                 "mov.u32 %r3, smem;\nadd.s32 %r4, %r3, %r2;\nld.shared.u32 %r5, [%r4];\n"
                 "mov.u32 %r6, %tid.x;\nshl.b32 %r7, %r6, 2;\nadd.s32 %r8, %r3, %r7;\nst.shared.u32 [%r8], %r5;")
    t = trace(ptx, block=64)
    assert set(t.incomplete_counters) == {LD_WAVEFRONTS, SASS_LD_WAVEFRONTS, LD_CONFLICTS}
    assert t.counters[INST_LD] == 2 and t.instructions[0].data_dependent == 2
    # an unknown guard: whether the store executes at all
    ptx = kernel("ld.param.u64 %rd1, [out];\nld.global.u32 %r1, [%rd1];\nsetp.eq.s32 %p1, %r1, 0;\n"
                 "mov.u32 %r3, smem;\n@%p1 st.shared.u32 [%r3], 9;")
    assert INST_ST in trace(ptx, block=32).incomplete_counters
    # a branch on loaded data: the threads stop, so nothing after it is known
    ptx = kernel("ld.param.u64 %rd1, [out];\nld.global.u32 %r1, [%rd1];\nsetp.eq.s32 %p1, %r1, 0;\n"
                 "@%p1 bra $L_skip;\nmov.u32 %r3, smem;\nst.shared.u32 [%r3], 9;\n$L_skip:")
    assert set(trace(ptx, block=32).incomplete_counters) == set(ALL_COUNTERS)


def test_a_generic_access_to_shared_memory_is_costed_but_its_counters_are_marked_incomplete() -> None:
    from layoutalg.kernel.counters import INST_ST, ST_WAVEFRONTS

    ptx = kernel("mov.u32 %r3, smem;\ncvt.u64.u32 %rd2, %r3;\ncvta.shared.u64 %rd3, %rd2;\n"
                 "mov.u32 %r6, %tid.x;\nmul.wide.u32 %rd4, %r6, 4;\nadd.s64 %rd5, %rd3, %rd4;\nst.u32 [%rd5], %r6;")
    t = trace(ptx, block=32)
    assert t.counters[INST_ST] == 0 and {INST_ST, ST_WAVEFRONTS} <= set(t.incomplete_counters)
    assert "generic" in t.incomplete_counters[INST_ST][0] and not t.complete

"""One traced launch (``layoutalg.kernel.trace``) on tiny PTX kernels: launch checks against the kernel's
``.maxntid`` / ``.reqntid`` and the arch's shared memory per block (sm_90: 227 KiB = 232448 B, sm_80: 163 KiB),
per-instruction totals over every CTA and batch (warp ids ``cta * warps_per_cta + warp``), instructions whose
guard was false on every lane, data-dependent accesses naming the counters they leave incomplete, and SASS checks."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel import counters as cn
from layoutalg.kernel import trace
from layoutalg.kernel.ptx.parser import parse_module

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
REGS = ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"


def kernel(body: list[str], directives: str = "", smem: int = 4096, params: str = ".param .u64 g") -> str:
    return (HEAD + f".visible .entry k({params}) {directives}\n{{\n" + REGS + f".shared .align 16 .b8 s[{smem}];\n"
            "mov.u32 %r1, s;\nmov.u32 %r2, %tid.x;\nmov.u32 %r3, %ctaid.x;\nld.param.u64 %rd1, [g];\n"
            + "\n".join(body) + "\n" + OBSERVE + "ret;\n}\n")


# every register stored before ret: the kernels read what they load (else ptxas, and the tracer, drop the load)
OBSERVE = "".join(f"st.global.b32 [%rd1], %r{k};\n" for k in range(16)) + "".join(
    f"st.global.b64 [%rd1], %rd{k};\n" for k in range(8))


# lane address = s + 4 * tid * (ctaid + 1): a 4-byte stride in CTA 0, 8 bytes in CTA 1, 12 bytes in CTA 2
STRIDED = ["add.u32 %r4, %r3, 1;", "mul.lo.u32 %r5, %r2, %r4;", "shl.b32 %r5, %r5, 2;", "add.u32 %r6, %r1, %r5;",
           "ld.shared.u32 %r7, [%r6];"]


def test_every_cta_is_traced_and_the_worst_warp_is_numbered_across_ctas() -> None:
    for batch in (1 << 15, 64):  # all CTAs in one batch, or one CTA per batch: the same answer
        t = trace(kernel(STRIDED), grid=3, block=64, batch_threads=batch)
        s = t.instructions[0]
        assert (s.line, s.executions, s.modelled_executions) == (16, 6, 6)
        # per warp: CTA 0 1 wavefront, CTA 1 (8-byte stride: lanes i, i+16 share a bank) 2, CTA 2 (12-byte
        # stride: banks 3i mod 32 all distinct) 1
        assert (s.wavefronts, s.ideal, s.excess) == (8, 6, 2)
        assert s.worst_warp == 2  # CTA 1's first warp: 1 * 2 warps per CTA + 0
        assert t.counters[cn.LD_WAVEFRONTS] == 8 and t.counters[cn.INST_LD] == 6
        assert (t.grid, t.block, t.ctas, t.shared_bytes, t.buffers) == ((3, 1, 1), (64, 1, 1), None, 4096, ["g"])
        assert t.complete and t.args == {"g": "buf"}


def test_the_default_launch_is_one_cta_of_128_threads() -> None:
    t = trace(kernel(STRIDED))
    assert (t.grid, t.block, t.instructions[0].executions) == ((1, 1, 1), (128, 1, 1), 4)


BRANCHY = ["setp.eq.u32 %p2, %r3, 0;", "@%p2 bra A;"] + [f"add.u32 %r{4 + k}, %r2, {k};" for k in range(6)] + \
    ["bra END;", "A:"] + [f"sub.u32 %r{4 + k}, %r2, {k};" for k in range(6)] + ["END:"]


def test_batch_threads_bounds_the_ctas_interpreted_together() -> None:
    # CTA 0 and CTA 1 take different paths: interpreted together, the batch steps through both; apart, each
    # batch steps through one.  A CTA of 33 threads occupies 2 warps = 64 thread slots.
    src = kernel(BRANCHY)
    for block in ((11, 3, 1), (11, 1, 3)):
        alone = max(trace(src, grid=2, block=block, ctas=[(c, 0, 0)]).steps for c in (0, 1))
        assert trace(src, grid=2, block=block, batch_threads=64).steps == alone
        assert trace(src, grid=2, block=block, batch_threads=127).steps == alone
        assert trace(src, grid=2, block=block, batch_threads=128).steps > alone
    alone = max(trace(src, grid=2, block=32, ctas=[(c, 0, 0)]).steps for c in (0, 1))
    assert trace(src, grid=2, block=32, batch_threads=63).steps == alone
    assert trace(src, grid=2, block=32, batch_threads=64).steps > alone


def test_only_the_chosen_ctas_are_traced() -> None:
    t = trace(kernel(STRIDED), grid=3, block=64, ctas=[(1, 0, 0)])
    s = t.instructions[0]
    assert (s.executions, s.wavefronts, s.ideal, s.worst_warp) == (2, 4, 2, 0)
    assert t.ctas == [(1, 0, 0)] and t.as_dict()["ctas"] == [[1, 0, 0]]


def test_a_parsed_module_is_traced_like_its_text() -> None:
    module = parse_module(kernel(STRIDED))
    a, b = trace(module, grid=2, block=32), trace(kernel(STRIDED), grid=2, block=32)
    assert a.as_dict()["instructions"] == b.as_dict()["instructions"]


def test_accesses_are_kept_only_when_asked() -> None:
    assert trace(kernel(STRIDED), block=32).accesses
    assert trace(kernel(STRIDED), block=32, keep_accesses=False).accesses == []


def test_instructions_whose_guard_is_false_everywhere_are_listed_with_their_bank_model_mnemonic() -> None:
    body = ["setp.ne.u32 %p1, %r2, %r2;", "@%p1 ld.shared.v2.u32 {%r4, %r5}, [%r1];", "@%p1 st.shared.u16 [%r1], %r4;",
            "@%p1 cp.async.ca.shared.global [%r1], [%rd1], 8;", "@%p1 cp.async.cg.shared.global [%r1], [%rd1], 16;",
            "@%p1 ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r5, %r6, %r7, %r8}, [%r1];",
            "@%p1 stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r5, %r6};",
            "@%p1 atom.shared.add.u32 %r9, [%r1], 1;", "@%p1 ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r5}, [%r1];",
            "@%p1 ld.shared.f64 %rd2, [%r1];"]
    t = trace(kernel(body), block=64)
    got = [(s.kind, s.model_text, s.executions, s.predicated_off) for s in t.instructions]
    assert got == [("ld", "ld.shared.b64", 0, 2), ("st", "st.shared.u16", 0, 2),
                   ("cp.async", "cp.async.ca.shared.global, 8", 0, 2), ("cp.async", "cp.async.cg.shared.global", 0, 2),
                   ("ldmatrix", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 0, 2),
                   ("stmatrix", "stmatrix.sync.aligned.m8n8.x2.shared.b16", 0, 2),
                   ("atom", "atom.shared.add.u32", 0, 2), ("ldmatrix", "ldmatrix.sync.aligned.m8n8.x1.shared.b16", 0, 2),
                   ("ld", "ld.shared.b64", 0, 2)]
    assert all(v == 0 for v in t.counters.values())  # predicated-off warps issue nothing


def test_a_half_predicated_instruction_counts_executing_and_predicated_off_warps() -> None:
    body = ["setp.lt.u32 %p1, %r2, 32;", "shl.b32 %r4, %r2, 2;", "add.u32 %r4, %r1, %r4;", "@%p1 ld.shared.u32 %r5, [%r4];"]
    s = trace(kernel(body), grid=2, block=96).instructions[0]
    assert (s.executions, s.predicated_off, s.wavefronts) == (2, 4, 2)


def test_data_dependent_accesses_leave_their_kind_s_counters_incomplete() -> None:
    body = ["ld.global.u32 %r4, [%rd1];", "add.u32 %r5, %r1, %r4;", "st.shared.u32 [%r5], %r2;",
            "cp.async.cg.shared.global [%r5], [%rd1], 16;"]
    t = trace(kernel(body), block=32)
    assert [(d.line, d.count) for d in t.data_dependent] == [(14, 1), (15, 1)]
    inc = t.incomplete_counters
    assert set(inc) == {cn.ST_WAVEFRONTS, cn.SASS_ST_WAVEFRONTS, cn.ST_CONFLICTS, cn.LDGSTS_BYPASS,
                        cn.SASS_LDGSTS_WAVEFRONTS}
    assert not t.complete


def test_a_data_dependent_guard_leaves_the_instruction_counters_incomplete_too() -> None:
    body = ["ld.global.u32 %r4, [%rd1];", "setp.eq.u32 %p1, %r4, 0;", "shl.b32 %r5, %r2, 2;", "add.u32 %r5, %r1, %r5;",
            "@%p1 st.shared.u32 [%r5], %r2;"]
    t = trace(kernel(body), block=32)
    assert [(d.line, d.scope) for d in t.data_dependent] == [(16, "execution")]
    assert t.incomplete_counters[cn.INST_ST] == ["PTX line 16 st.shared.u32: data-dependent execution"]


def test_a_data_dependent_branch_feeds_no_counter_kind_and_leaves_every_counter_incomplete() -> None:
    body = ["ld.global.u32 %r4, [%rd1];", "setp.eq.u32 %p1, %r4, 0;", "@%p1 bra END;", "END:"]
    t = trace(kernel(body), block=32)
    [d] = t.data_dependent
    assert (d.line, d.opcode, d.scope) == (14, "bra", "control")
    assert d.counter_kind == ""  # Incident.counter_kind is a str: "" where the instruction feeds no counter
    assert set(t.incomplete_counters) == set(cn.ALL_COUNTERS)


TMAP_HEAD = ".version 8.3\n.target sm_90a\n.address_size 64\n"
GLOBAL_ADDRESS = "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd1;"
ELEMTYPE = "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r1], 1;"


def tmap_kernel(body: list[str]) -> str:
    return kernel(body).replace(HEAD, TMAP_HEAD)


def test_a_data_dependent_guard_on_tensormap_replace_leaves_its_sts_and_lds_counters_incomplete() -> None:
    # ptxas turns tensormap.replace of global_address into one STS.64, and a read-modify-write field (elemtype,
    # in the flag word) into an LDS then an STS (interp.tensormap, pinned by the committed SASS of
    # triton_matmul_tma_sm90): whether they execute is unknown, so the st counters (and ld) are not exact
    for replace in (GLOBAL_ADDRESS, ELEMTYPE):
        body = ["ld.global.u32 %r4, [%rd1];", "setp.eq.u32 %p1, %r4, 0;", "@%p1 " + replace]
        t = trace(tmap_kernel(body), block=32)
        assert [(d.line, d.scope) for d in t.data_dependent] == [(14, "execution")]
        inc = t.incomplete_counters
        for name in (cn.INST_ST, cn.ST_WAVEFRONTS, cn.SASS_ST_WAVEFRONTS, cn.ST_CONFLICTS, cn.INST_LD,
                     cn.LD_WAVEFRONTS):
            assert inc[name] == [f"PTX line 14 {replace.split()[0]}: data-dependent execution"]
        assert cn.INST_LDSM not in inc and cn.INST_LDGSTS not in inc and not t.complete


def test_a_one_step_budget_traces_a_kernel_of_one_instruction() -> None:
    src = HEAD + ".visible .entry k()\n{\nret;\n}\n"
    assert trace(src, block=32, step_budget=1).steps == 1


def test_a_kernel_without_instructions_takes_no_steps() -> None:
    assert trace(HEAD + ".visible .entry k()\n{\n}\n", block=32).steps == 0


def test_a_batch_smaller_than_one_cta_still_traces_one_cta_at_a_time() -> None:
    whole = trace(kernel(STRIDED), grid=3, block=64)
    for batch in (1, 63):
        t = trace(kernel(STRIDED), grid=3, block=64, batch_threads=batch)
        assert t.as_dict()["instructions"] == whole.as_dict()["instructions"] and t.counters == whole.counters


def test_seconds_is_the_wall_time_of_the_trace_itself() -> None:
    start = time.perf_counter()
    t = trace(kernel(STRIDED), block=32)
    elapsed = time.perf_counter() - start
    assert 0 < t.seconds <= elapsed


def test_a_block_over_maxntid_is_refused() -> None:
    src = kernel(STRIDED, ".maxntid 32, 2, 1")
    assert trace(src, block=(32, 2, 1)).instructions[0].executions == 2
    with pytest.raises(KernelError, match=r"block \(65, 1, 1\) has 65 threads but the kernel declares .maxntid "
                                          r"\(32, 2, 1\) \(64\); the launch would fail"):
        trace(src, block=65)
    with pytest.raises(KernelError, match=r"block \(33, 2, 1\) has 66 threads"):
        trace(src, block=(33, 2, 1))
    with pytest.raises(KernelError, match=r"block \(33, 1, 2\) has 66 threads"):
        trace(src, block=(33, 1, 2))


def test_a_block_other_than_reqntid_is_refused() -> None:
    src = kernel(STRIDED, ".reqntid 32")
    assert trace(src, block=32).instructions[0].executions == 1
    with pytest.raises(KernelError, match=r"block \(32, 2, 1\) differs from the kernel's .reqntid \(32, 1, 1\)"):
        trace(src, block=(32, 2))


def test_shared_memory_beyond_the_arch_per_block_limit_is_refused() -> None:
    assert trace(kernel([], smem=232448), block=32).shared_bytes == 232448
    with pytest.raises(KernelError, match=r"232449 bytes of shared memory \(static \+ dynamic_smem=1\) exceed "
                                          r"sm_90's 232448 per block"):
        trace(kernel([], smem=232448), block=32, dynamic_smem=1)
    with pytest.raises(KernelError, match="exceed sm_80's 166912 per block"):
        trace(kernel([], smem=166913), block=32, arch="sm_80")


def test_malformed_launch_settings_are_refused_naming_them() -> None:
    src = kernel(STRIDED)
    for bad in (1.5, True, "8"):
        with pytest.raises(KernelError, match="dynamic_smem must be an int number of bytes"):
            trace(src, block=32, dynamic_smem=bad)  # type: ignore[arg-type]
    with pytest.raises(KernelError, match="dynamic_smem"):
        trace(src, block=32, dynamic_smem=-4)
    for bad_budget in (0, True, 2.0):
        with pytest.raises(KernelError, match="step_budget must be a positive int"):
            trace(src, block=32, step_budget=bad_budget)  # type: ignore[arg-type]
    with pytest.raises(KernelError, match="parameter 0 \\(g, .u32\\): buf is a 64-bit pointer"):
        trace(kernel(STRIDED, params=".param .u32 g"), block=32, args={"g": "buf"})


def test_the_garbage_collector_is_restored_after_a_trace_or_a_refusal() -> None:
    assert gc.isenabled()
    trace(kernel(STRIDED), block=32)
    assert gc.isenabled()
    with pytest.raises(KernelError):
        trace(kernel(STRIDED), block=32, step_budget=0)
    assert gc.isenabled()
    gc.disable()
    try:
        trace(kernel(STRIDED), block=32)
        assert not gc.isenabled()
    finally:
        gc.enable()


def sass(*insns: str) -> str:
    return "\tFunction : k\n" + "\n".join(f"        /*{16 * i:04x}*/   {t} ;" for i, t in enumerate(insns)) + "\n"


def test_sass_with_other_widths_marks_that_kind_unmodelled_and_out_of_the_counters(tmp_path: Path) -> None:
    src = kernel(STRIDED)
    same = trace(src, block=32, sass=sass("LDS R7, [R6]"))
    assert same.complete and same.counters[cn.LD_WAVEFRONTS] == 1
    f = tmp_path / "k.sass"
    f.write_text(sass("LDS.64 R6, [R6]"))
    t = trace(src, block=32, sass=str(f))
    s = t.instructions[0]
    assert s.sass_mismatch and list(s.unmodelled.values()) == [1]
    assert next(iter(s.unmodelled)).startswith("SASS differs: PTX has 1 x 4 B ld accesses, the SASS 1 x 8 B")
    assert t.counters[cn.LD_WAVEFRONTS] == 0 and not t.complete


def test_a_mismatch_marks_only_the_instructions_of_its_kind() -> None:
    src = kernel(["cp.async.ca.shared.global [%r1], [%rd1], 4;", "ld.shared.u32 %r4, [%r1];"])
    t = trace(src, block=32, sass=sass("LDGSTS.E.128 [R1], desc[UR4][R2.64]", "LDS R4, [R1]"))
    assert [(s.kind, s.sass_mismatch) for s in t.instructions] == [("cp.async", True), ("ld", False)]
    t = trace(src, block=32, sass=sass("LDGSTS.E [R1], desc[UR4][R2.64]", "LDS.64 R4, [R1]"))
    assert [(s.kind, s.sass_mismatch) for s in t.instructions] == [("cp.async", False), ("ld", True)]


def test_unusable_sass_is_refused(tmp_path: Path) -> None:
    src = kernel(STRIDED)
    with pytest.raises(KernelError, match="no such SASS file"):
        trace(src, block=32, sass=str(tmp_path / "none.sass"))
    with pytest.raises(KernelError, match=r"the SASS has no function k \(it has: other\)"):
        trace(src, block=32, sass="\tFunction : other\n        /*0000*/   LDS R1, [R2] ;\n")


def test_adjacent_accesses_are_noted_as_merge_candidates() -> None:
    t = trace(kernel(["ld.shared.u32 %r4, [%r1];", "ld.shared.u32 %r5, [%r1+4];"]), block=32)
    assert t.notes == ["PTX lines 12 and 13 are adjacent accesses ptxas may merge into one wider SASS instruction; "
                       "they are counted as two (pass the SASS to check)"]


def test_merge_candidates_are_not_noted_once_the_sass_was_checked() -> None:
    src = kernel(["ld.shared.u32 %r4, [%r1];", "ld.shared.u32 %r5, [%r1+4];"])
    kept = trace(src, block=32, sass=sass("LDS R4, [R1]", "LDS R5, [R1+0x4]"))
    assert kept.notes == [] and kept.complete  # the SASS holds both loads: nothing to check any more
    merged = trace(src, block=32, sass=sass("LDS.64 R4, [R1]"))
    assert merged.notes == [] and not merged.complete  # the merge itself is the finding


def test_the_launch_kept_for_a_rerun_names_only_ctas_that_were_chosen() -> None:
    chosen = trace(kernel(STRIDED), grid=3, block=64, ctas=[(1, 0, 0)])
    assert chosen.launch.ctas == [(1, 0, 0)]
    whole = trace(kernel(STRIDED), grid=3, block=64)
    assert whole.launch.ctas is None and whole.launch.grid == (3, 1, 1)


def test_an_executed_cp_async_ca_counts_as_cache_access_and_cg_as_cache_bypass() -> None:
    # lane t copies to s + size * t from g + size * t: contiguous, so 4 bytes x 32 lanes = 1 wavefront (128 B),
    # 16 bytes x 32 lanes = 4 wavefronts, no bank conflict; .ca goes through L1 (LDGSTS cache access), .cg bypasses it
    for text, size, mnemonic, mode, wavefronts in (
            ("cp.async.ca.shared.global", 4, "cp.async.ca.shared.global, 4", "access", 1),
            ("cp.async.cg.shared.global", 16, "cp.async.cg.shared.global", "bypass", 4)):
        body = [f"mul.lo.u32 %r4, %r2, {size};", "add.u32 %r5, %r1, %r4;", "cvt.u64.u32 %rd2, %r4;",
                "add.u64 %rd3, %rd1, %rd2;", f"{text} [%r5], [%rd3], {size};"]
        t = trace(kernel(body), block=32)
        (s,) = t.instructions
        assert (s.model_text, s.executions, s.wavefronts) == (mnemonic, 1, wavefronts)
        other = "bypass" if mode == "access" else "access"
        assert t.counters[f"smsp__sass_inst_executed_op_ldgsts_cache_{mode}.sum"] == 1
        assert t.counters.get(f"smsp__sass_inst_executed_op_ldgsts_cache_{other}.sum", 0) == 0

"""PTX vs SASS: what ptxas changed is reported, never silently counted as the PTX says.

tests/data/kernel_trace/features.sass is ``cuobjdump -sass`` of ``ptxas -arch=sm_90 features.ptx``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel import trace
from layoutalg.kernel.ptx import parse_module
from layoutalg.kernel.sass import compare, merge_candidates, sass_inventory

DATA = Path(__file__).parent / "data" / "kernel_trace"
FEATURES = (DATA / "features.ptx").read_text()
SASS = (DATA / "features.sass").read_text()


def test_sass_inventory_reads_kinds_and_widths_and_skips_never_executed_placeholders() -> None:
    inv = sass_inventory(SASS)
    assert inv["async_fill"] == {("cp.async", 16): 1, ("cp.async", 4): 1}  # the three '@!PT LDS' are skipped
    assert inv["matrix_ops"][("ldmatrix", 16)] == 2 and inv["matrix_ops"][("stmatrix", 16)] == 1
    assert inv["vectors"][("st", 16)] == 1 and inv["vectors"][("ld", 1)] == 1


MERGE = (DATA / "merge_pair.ptx").read_text()
MERGE_SASS = (DATA / "merge_pair.sass").read_text()


def test_a_merged_pair_is_found_and_unrolled_loops_are_not_false_alarms() -> None:
    found = compare(parse_module(MERGE).entries["merge_pair"], MERGE_SASS)
    assert [(f.kind, f.ptx, f.sass) for f in found] == [("ld", {4: 2}, {8: 1}), ("st", {4: 2}, {8: 1})]
    assert compare(parse_module(FEATURES).entries["loop_stride"], SASS) == []  # unrolled 4x by ptxas: same widths


def test_trace_with_sass_lists_merged_accesses_as_unmodelled_and_keeps_them_out_of_the_counters() -> None:
    plain = trace(MERGE, block=32)
    checked = trace(MERGE, block=32, sass=MERGE_SASS)
    # PTX level: two 4-byte accesses at 8-byte stride, 2 wavefronts each; the SASS does one LDS.64 / STS.64
    assert [s.wavefronts for s in plain.instructions] == [2, 2, 2, 2] and plain.complete
    assert any("lines" in n for n in plain.notes)  # the pairs are flagged as merge candidates even without SASS
    assert not checked.complete and len(checked.unmodelled) == 4
    assert all(v == 0 for k, v in checked.counters.items() if "shared" in k)


def test_adjacent_accesses_ptxas_may_merge_are_noted() -> None:
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<8>;\n"
           ".shared .align 16 .b8 s[256];\nmov.u32 %r1, s;\nld.shared.u32 %r2, [%r1];\nld.shared.u32 %r3, [%r1+4];\n"
           "ld.shared.u32 %r4, [%r1+12];\nret;\n}\n")
    module = parse_module(ptx)
    assert merge_candidates(module.entries["k"]) == [(9, 10)]
    t = trace(ptx, block=32)
    assert any("lines 9 and 10" in n for n in t.notes)


def test_sass_check_refuses_an_untraced_cp_async_without_its_cp_size() -> None:
    # the copy is branched over, so tracing never decodes it; the SASS comparison reads every instruction and
    # must not count it at a guessed width (PTX ISA: cp-size is a mandatory constant; ptxas rejects the PTX)
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 g)\n{\n.reg .b32 %r<8>;\n"
           ".reg .b64 %rd<4>;\n.shared .align 16 .b8 s[256];\nmov.u32 %r1, s;\nld.param.u64 %rd1, [g];\nbra DONE;\n"
           "cp.async.ca.shared.global [%r1], [%rd1];\nDONE:\nld.shared.u32 %r2, [%r1];\nst.global.u32 [%rd1], %r2;\n"
           "ret;\n}\n")
    assert [s.kind for s in trace(ptx, block=32).instructions] == ["ld"]
    sass = "\n\tcode for sm_90\n\t\tFunction : k\n        /*0000*/                   LDS R2, [R1] ;\n"
    with pytest.raises(KernelError, match=r"PTX line 12, .*immediate cp-size"):
        trace(ptx, block=32, sass=sass)


# CUB's BlockScan (raking) reloads three words it loaded before the warp scan; with no store or barrier between,
# ptxas drops the reloads: 12 PTX ld.shared.u32, 9 LDS in the SASS, though every width appears on both sides.
RELOAD = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry reload()\n{\n.reg .b32 %r<16>;\n"
          ".shared .align 16 .b8 s[1024];\nmov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 4;\nmov.u32 %r3, s;\n"
          "add.u32 %r4, %r3, %r2;\nst.shared.u32 [%r4], %r1;\nbar.sync 0;\nld.shared.u32 %r5, [%r4];\n"
          "shfl.sync.up.b32 %r6, %r5, 1, 0, -1;\nld.shared.u32 %r7, [%r4];\nadd.u32 %r8, %r6, %r7;\n"
          "st.shared.u32 [%r4+4], %r8;\nret;\n}\n")
RELOAD_SASS = ("\n\tcode for sm_90\n\t\tFunction : reload\n"
               "        /*0000*/                   STS [R4], R1 ;\n"
               "        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
               "        /*0020*/                   LDS R5, [R4] ;\n"
               "        /*0030*/                   SHFL.UP PT, R6, R5, 0x1, RZ ;\n"
               "        /*0040*/                   STS [R4+0x4], R8 ;\n")


def test_fewer_sass_accesses_of_a_width_than_ptx_ones_are_a_finding_and_leave_the_counters_incomplete() -> None:
    found = compare(parse_module(RELOAD).entries["reload"], RELOAD_SASS)
    assert [(f.kind, f.ptx, f.sass) for f in found] == [("ld", {4: 2}, {4: 1})]
    plain = trace(RELOAD, block=64)
    checked = trace(RELOAD, block=64, sass=RELOAD_SASS)
    assert plain.complete and [s.executions for s in plain.instructions] == [2, 2, 2, 2]
    assert not checked.complete and sorted(u["line"] for u in checked.unmodelled) == [14, 16]

"""Trace results (``layoutalg.kernel.result``) on hand-built records and costs: per-instruction totals, the worst
warp and its bank example (a stride-8-byte ``ld.shared.b32`` puts lanes i and i+16 in bank 2i mod 32: 2-way),
whole-launch Nsight counters (wavefronts, excess = wavefronts - ideal, warp executions), and which counters are
incomplete and why."""

from __future__ import annotations

import numpy as np
import pytest

from layoutalg.kernel import counters as cn
from layoutalg.kernel.costing import WarpCosts
from layoutalg.kernel.ptx.nodes import Loc
from layoutalg.kernel.records import AccessRecord, Incident
from layoutalg.kernel.result import InstructionStats, Trace, example


def stats(line: int = 5, kind: str = "ld", text: str = "ld.shared.b32", **kw: object) -> InstructionStats:
    opcode = kw.pop("opcode", f"{kind}.shared.b32")
    return InstructionStats(0, line, str(opcode), kind, text, kw.pop("loc", None), kw.pop("site", None),  # type: ignore[arg-type]
                            **kw)  # type: ignore[arg-type]


def record(smem: list[list[int]], active: list[list[bool]] | None = None, warps: list[int] | None = None,
           glob: list[list[int]] | None = None, generic: bool = False) -> AccessRecord:
    s = np.array(smem, dtype=np.int64)
    a = np.ones(s.shape, dtype=bool) if active is None else np.array(active)
    w = np.arange(len(s), dtype=np.int64) if warps is None else np.array(warps, dtype=np.int64)
    g = None if glob is None else np.array(glob, dtype=np.int64)
    return AccessRecord(0, 5, "ld.shared.b32", "ld", 4, "ld.shared.b32", 0, w, a, s,
                        global_offset=g, global_buffer=None if g is None else np.zeros_like(g), generic=generic)


def costs(modelled: list[bool], wf: list[int], ideal: list[int], reasons: dict[str, int] | None = None,
          dd: int = 0) -> WarpCosts:
    return WarpCosts(np.array(modelled), np.array(wf, dtype=np.int64), np.array(ideal, dtype=np.int64),
                     dict(reasons or {}), dd)


STRIDE8 = [8 * i for i in range(32)]
LINEAR = [4 * i for i in range(32)]


def trace(instructions: list[InstructionStats], data_dependent: list[Incident] | None = None) -> Trace:
    return Trace("k", (1, 1, 1), (32, 1, 1), None, instructions, data_dependent or [], [], [], {}, 0, {}, [], 1)


def test_add_totals_executions_wavefronts_ideal_and_reasons_over_records() -> None:
    s = stats()
    s.add(record([LINEAR, LINEAR, LINEAR]), costs([True, False, True], [1, 0, 2], [1, 0, 1], {"why": 1}, dd=1))
    s.add(record([LINEAR, LINEAR]), costs([True, False], [3, 0], [1, 0], {"why": 1, "other": 1}))
    assert (s.executions, s.modelled_executions, s.wavefronts, s.ideal, s.excess) == (5, 3, 6, 3, 3)
    assert s.unmodelled == {"why": 2, "other": 1} and s.data_dependent == 1 and not s.generic
    s.add(record([LINEAR], generic=True), costs([False], [0], [0]))
    assert s.generic and s.executions == 6


def test_the_worst_warp_is_the_modelled_one_with_the_most_excess() -> None:
    s = stats()
    assert s.worst_warp == -1 and s.worst_smem is None and s.as_dict()["worst_warp"] is None
    s.add(record([LINEAR, STRIDE8, LINEAR], warps=[7, 8, 9]), costs([True, True, True], [1, 2, 1], [1, 1, 1]))
    assert (s.worst_excess, s.worst_warp) == (1, 8) and s.worst_smem == tuple(STRIDE8)
    s.add(record([LINEAR], warps=[20]), costs([True], [2], [1]))  # a tie keeps the first
    assert s.worst_warp == 8
    s.add(record([LINEAR], warps=[21]), costs([True], [4], [1]))
    assert (s.worst_excess, s.worst_warp) == (3, 21)


def test_an_unmodelled_warp_is_never_the_worst_even_against_zero_excess() -> None:
    s = stats()
    s.add(record([LINEAR, STRIDE8], warps=[3, 4]), costs([False, True], [0, 1], [0, 1]))
    assert (s.worst_excess, s.worst_warp) == (0, 4) and s.worst_smem == tuple(STRIDE8)
    t = stats()
    t.add(record([LINEAR]), costs([False], [0], [0]))
    assert t.worst_warp == -1 and t.worst_excess == -1


def test_stats_with_the_same_totals_compare_equal() -> None:
    s, t = stats(), stats()
    for x in (s, t):
        x.add(record([STRIDE8, LINEAR]), costs([True, True], [2, 1], [1, 1]))
    assert s == t
    assert "array(" not in repr(s)  # the printed stats leave out the worst warp's 32-lane address rows
    t.add(record([LINEAR]), costs([True], [1], [1]))
    assert s != t


def test_worst_addresses_show_inactive_lanes_as_none() -> None:
    s = stats(kind="cp.async", text="cp.async.ca.shared.global, 4")
    act = [[lane % 2 == 0 for lane in range(32)]]
    s.add(record([LINEAR], act, glob=[[100 + lane for lane in range(32)]]), costs([True], [2], [1]))
    assert s.worst_smem == tuple(4 * i if i % 2 == 0 else None for i in range(32))
    assert s.worst_global == tuple(100 + i if i % 2 == 0 else None for i in range(32))
    plain = stats()
    plain.add(record([STRIDE8]), costs([True], [2], [1]))
    assert plain.worst_global is None


def test_example_names_the_conflicting_bank_its_lanes_and_words() -> None:
    s = stats()
    s.add(record([STRIDE8]), costs([True], [2], [1]))
    ex = example(s)
    assert ex is not None
    assert (ex["phase"], ex["bank"], ex["ways"], ex["wavefronts"], ex["ideal"]) == (0, 0, 2, 2, 1)
    assert ex["words"] == [{"byte": 0, "lanes": [0]}, {"byte": 128, "lanes": [16]}]
    # lane 0 off (it takes lane 1's address for the model, adding no word): bank 2 is the first 2-way bank,
    # and the inactive lane is not listed among its lanes
    act = [[lane != 0 for lane in range(32)]]
    t = stats()
    t.add(record([STRIDE8], act), costs([True], [2], [1]))
    ex = example(t)
    assert ex is not None and (ex["bank"], ex["ways"]) == (2, 2)
    assert ex["words"] == [{"byte": 8, "lanes": [1]}, {"byte": 136, "lanes": [17]}]


def test_no_example_without_excess_or_for_an_unreportable_instruction() -> None:
    s = stats()
    s.add(record([LINEAR]), costs([True], [1], [1]))
    assert example(s) is None and s.as_dict()["example"] is None
    bad = stats(text="not.an.instruction")
    bad.add(record([STRIDE8]), costs([True], [2], [1]))
    assert example(bad) is None


def test_warp_zero_as_the_worst_warp_is_reported_as_warp_zero() -> None:
    s = stats()
    s.add(record([STRIDE8], warps=[0]), costs([True], [2], [1]))
    assert s.worst_warp == 0 and s.as_dict()["worst_warp"] == 0


# recorded on an H200 (tests/data/h200_cp_async_cg_round6.json, "r6 tile 64B rows ld64 g0=0 smem pad16"): 32 lanes
# copy 16 contiguous bytes each into 64-byte rows padded by 16 bytes: 15 wavefronts; 32 distinct 16-byte
# destinations need 4 (8 per 128-byte wavefront)
CG_SMEM = [0, 16, 32, 48, 80, 96, 112, 128, 160, 176, 192, 208, 240, 256, 272, 288, 320, 336, 352, 368, 400, 416, 432,
           448, 480, 496, 512, 528, 560, 576, 592, 608]
CG_GLOBAL = [16 * i for i in range(32)]


def test_a_cp_async_cg_example_gives_the_worst_warp_s_wavefronts_and_ideal_without_a_bank() -> None:
    s = stats(kind="cp.async", text="cp.async.cg.shared.global")
    s.add(record([CG_SMEM], glob=[CG_GLOBAL]), costs([True], [15], [4]))
    assert example(s) == {"wavefronts": 15, "ideal": 4}
    assert s.as_dict()["example"] == {"wavefronts": 15, "ideal": 4}


def test_as_dict_reports_the_instruction_and_where_it_was_inlined_from() -> None:
    site, loc = Loc("/src/kern.cu", 12), Loc("/inc/helper.h", 40)
    s = stats(kind="st", text="st.shared.b32", site=site, loc=loc, part="", suggestion="try X",
              suggested_swizzle=(3, 4, 3))
    s.add(record([STRIDE8], warps=[6]), costs([True], [2], [1], {"r": 1}))
    d = s.as_dict()
    assert d["source"] == "/src/kern.cu:12" and d["inlined_from"] == "/inc/helper.h:40"
    assert (d["warp_executions"], d["wavefronts"], d["ideal"], d["excess"], d["worst_warp"]) == (1, 2, 1, 1, 6)
    assert d["counters"] == [cn.ST_WAVEFRONTS, cn.SASS_ST_WAVEFRONTS] and d["part"] is None
    assert d["suggestion"] == "try X" and d["suggested_byte_swizzle"] == [3, 4, 3]
    assert d["unmodelled"] == [{"reason": "r", "warp_executions": 1}]
    same = stats(site=site, loc=site).as_dict()
    assert same["inlined_from"] is None and same["suggestion"] is None and same["suggested_byte_swizzle"] is None
    assert stats().as_dict()["source"] is None


def test_counters_add_wavefronts_excess_and_executions_per_kind() -> None:
    ld = stats(1, executions=3, wavefronts=10, ideal=6, predicated_off=5)
    ldsm = stats(2, "ldmatrix", "ldmatrix.sync.aligned.m8n8.x4.shared.b16", executions=2, wavefronts=8, ideal=8)
    cg = stats(3, "cp.async", "cp.async.cg.shared.global", executions=4, wavefronts=9, ideal=8)
    ca = stats(4, "cp.async", "cp.async.ca.shared.global, 4", executions=1, wavefronts=3, ideal=1)
    c = trace([ld, ldsm, cg, ca]).counters
    assert set(c) == set(cn.ALL_COUNTERS)
    assert c[cn.LD_WAVEFRONTS] == 18 and c[cn.SASS_LD_WAVEFRONTS] == 10 and c[cn.SASS_LDSM_WAVEFRONTS] == 8
    assert c[cn.LD_CONFLICTS] == 4 and c[cn.LDSM_CONFLICTS] == 0
    assert c[cn.INST_LD] == 3 and c[cn.INST_LDSM] == 2 and c[cn.INST_SASS_LDSM] == 2  # predicated-off warps not counted
    assert c[cn.LDGSTS_BYPASS] == 9 and c[cn.LDGSTS_ACCESS] == 3 and c[cn.SASS_LDGSTS_WAVEFRONTS] == 12
    assert c[cn.LDGSTS_CONFLICTS] == 2  # the .ca excess only
    assert c[cn.INST_LDGSTS] == 5 and c[cn.INST_LDGSTS_BYPASS] == 4 and c[cn.INST_LDGSTS_ACCESS] == 1
    assert c[cn.ST_WAVEFRONTS] == 0 and c[cn.INST_ATOM] == 0


def test_generic_mismatched_and_uncounted_instructions_stay_out_of_the_counters() -> None:
    generic = stats(1, "st", "st.shared.b32", executions=3, wavefronts=4, ideal=3, generic=True)
    mismatch = stats(2, executions=3, wavefronts=4, ideal=3, sass_mismatch=True)
    wmma = stats(3, "wmma", "wmma.load", executions=2, wavefronts=4, ideal=2)
    c = trace([generic, mismatch, wmma]).counters
    assert c[cn.ST_WAVEFRONTS] == 4 and c[cn.ST_CONFLICTS] == 1 and c[cn.INST_ST] == 0  # generic: no LDS/STS issued
    assert c[cn.LD_WAVEFRONTS] == 0 and c[cn.INST_LD] == 0 and c[cn.LDSM_CONFLICTS] == 0


def test_a_fully_modelled_trace_is_complete_with_exact_counters() -> None:
    t = trace([stats(executions=1, wavefronts=1, ideal=1, modelled_executions=1)])
    assert t.complete and t.incomplete_counters == {} and t.unmodelled == []


def test_incomplete_counters_name_each_instruction_that_feeds_them() -> None:
    um = stats(7, unmodelled={"atomics": 2})
    dd = stats(8, "st", "st.shared.b32", data_dependent=1)
    mm = stats(9, "ldmatrix", "ldmatrix.sync.aligned.m8n8.x4.shared.b16", sass_mismatch=True)
    gen = stats(10, "st", "st.shared.b32", generic=True)
    t = trace([um, dd, mm, gen])
    inc = t.incomplete_counters
    assert not t.complete
    assert inc[cn.LD_WAVEFRONTS] == ["PTX line 7 ld.shared.b32: unmodelled",
                                    "PTX line 9 ldmatrix.shared.b32: not counted (ptxas changes it or its SASS is "
                                    "unknown)"]
    assert cn.INST_LD not in inc  # an unmodelled instruction's executions are still counted
    assert inc[cn.ST_WAVEFRONTS][0] == "PTX line 8 st.shared.b32: data-dependent address"
    assert inc[cn.INST_ST] == ["PTX line 10 st.shared.b32: a generic ld/st reaching shared memory (SASS LD/ST, not "
                              "LDS/STS): where Nsight counts it is not measured"]
    assert inc[cn.INST_LDSM][0].startswith("PTX line 9") and cn.INST_ATOM not in inc
    assert list(inc) == [n for n in cn.ALL_COUNTERS if n in inc]  # in the counters' order
    assert t.unmodelled == [{"line": 7, "opcode": "ld.shared.b32", "reason": "atomics", "warp_executions": 2}]


def test_data_dependent_incidents_mark_counters_by_their_scope() -> None:
    ctl = Incident(0, 3, "bra", "branch", scope="control")
    exe = Incident(1, 4, "ld.shared.b32", "guard", scope="execution", counter_kind="ld")
    adr = Incident(2, 5, "st.shared.b32", "addr", scope="address", counter_kind="st")
    glob = Incident(3, 6, "ld.global.u32", "addr", scope="address", counter_kind="")
    assert set(trace([], [ctl]).incomplete_counters) == set(cn.ALL_COUNTERS)
    inc = trace([], [exe, adr, glob]).incomplete_counters
    assert set(inc) == {cn.LD_WAVEFRONTS, cn.SASS_LD_WAVEFRONTS, cn.LD_CONFLICTS, cn.INST_LD, cn.ST_WAVEFRONTS,
                        cn.SASS_ST_WAVEFRONTS, cn.ST_CONFLICTS}
    assert inc[cn.INST_LD] == ["PTX line 4 ld.shared.b32: data-dependent execution"]
    assert inc[cn.ST_CONFLICTS] == ["PTX line 5 st.shared.b32: data-dependent address"]
    assert not trace([], [glob]).complete  # something data-dependent: not complete, though every counter is exact
    assert trace([], [glob]).incomplete_counters == {}


def test_one_reason_is_listed_once_per_counter() -> None:
    a = stats(7, unmodelled={"x": 1}, data_dependent=1)
    inc = trace([a, stats(7, unmodelled={"y": 1})]).incomplete_counters
    assert inc[cn.LD_CONFLICTS] == ["PTX line 7 ld.shared.b32: unmodelled", "PTX line 7 ld.shared.b32: data-dependent "
                                   "address"]


def test_instruction_looks_up_a_line_and_refuses_others() -> None:
    a, b = stats(3), stats(9)
    t = trace([a, b])
    assert t.instruction(9) is b and t.instruction(3) is a
    with pytest.raises(KeyError, match="no shared-memory instruction on PTX line 4"):
        t.instruction(4)


def test_as_dict_is_the_json_object_and_str_is_the_report() -> None:
    t = Trace("k", (2, 1, 1), (64, 1, 1), [(1, 0, 0)], [stats(executions=2, wavefronts=2, ideal=2)],
              [Incident(0, 3, "bra", "branch", 4, 64, "control")], [Incident(1, 6, "ld.shared", "x", 2)], [],
              {"s": 0}, 256, {"n": "4"}, ["p"], 17, notes=["hello"])
    d = t.as_dict()
    assert (d["kernel"], d["grid"], d["block"], d["ctas"], d["steps"]) == ("k", [2, 1, 1], [64, 1, 1], [[1, 0, 0]], 17)
    assert d["data_dependent"] == [{"line": 3, "opcode": "bra", "reason": "branch", "warp_executions": 4,
                                    "lanes": 64, "scope": "control"}]
    assert d["not_lsu"][0]["warp_executions"] == 2 and d["shared_layout"] == {"s": 0} and d["args"] == {"n": "4"}
    assert d["counters"][cn.INST_LD] == 2 and d["notes"] == ["hello"] and len(d["instructions"]) == 1
    assert trace([]).as_dict()["ctas"] == "all"
    assert str(t) == t.report() and "note: hello" in str(t)

"""The text report of a trace (``layoutalg.kernel.report.render``) on hand-built traces: the facts a user reads
(kernel, launch, per-instruction numbers, the worst warp's bank example, which counters are listed and which are
incomplete, unmodelled / data-dependent / not-LSU lines), not the whitespace between them."""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from layoutalg.kernel import counters as cn
from layoutalg.kernel.costing import WarpCosts
from layoutalg.kernel.ptx.nodes import Loc
from layoutalg.kernel.records import AccessRecord, Incident
from layoutalg.kernel.report import render
from layoutalg.kernel.result import InstructionStats, Trace


def stats(line: int, wf: int, ideal: int, kind: str = "ld", **kw: object) -> InstructionStats:
    opcode = str(kw.pop("opcode", f"{kind}.shared.b32"))
    return InstructionStats(line, line, opcode, kind, str(kw.pop("text", f"{kind}.shared.b32")), None,
                            kw.pop("site", None), executions=2, wavefronts=wf, ideal=ideal, **kw)  # type: ignore[arg-type]


def trace(instructions: list[InstructionStats], name: str = "k", **kw: object) -> Trace:
    return Trace(name, (4, 1, 1), (64, 1, 1), kw.pop("ctas", None), instructions,  # type: ignore[arg-type]
                 kw.pop("data_dependent", []), kw.pop("not_lsu", []), [], {}, 512, {}, [], 33, **kw)  # type: ignore[arg-type]


def rows(text: str) -> list[list[str]]:
    return [ln.split() for ln in text.splitlines()]


def test_the_header_names_kernel_launch_shared_bytes_and_steps() -> None:
    text = render(trace([]))
    assert rows(text)[0] == ["kernel", "k", "grid", "(4,", "1,", "1)", "block", "(64,", "1,", "1)"]
    assert "shared memory: 512 bytes; 33 steps traced" in text
    assert "(traced CTAs: 2)" in render(trace([], ctas=[(0, 0, 0), (1, 0, 0)]))
    assert "counters (whole launch, traced CTAs only)" in render(trace([], ctas=[(0, 0, 0)]))
    assert "counters (whole launch)" in text and "incomplete" not in text


def test_long_kernel_names_are_cut_to_120_characters() -> None:
    assert "kernel " + "a" * 120 + " " in render(trace([], name="a" * 120))
    cut = render(trace([], name="b" * 121))
    assert "kernel " + "b" * 117 + "... " in cut and "b" * 118 not in cut


def test_each_instruction_row_shows_line_source_warps_wavefronts_ideal_excess() -> None:
    a = stats(12, 10, 4, site=Loc("/src/dir/kern.cu", 30))
    b = stats(15, 3, 3, kind="st")
    text = render(trace([a, b]))
    table = [r for r in rows(text) if r and r[0] in ("12", "15")]
    assert table == [["12", "kern.cu:30", "ld.shared.b32", "2", "10", "4", "6"],
                     ["15", "-", "st.shared.b32", "2", "3", "3", "0"]]


def test_source_names_without_a_folder_are_shown_whole_and_long_ones_cut_to_28() -> None:
    text = render(trace([stats(3, 1, 1, site=Loc("kern.cu", 9)), stats(4, 1, 1, site=Loc("/d/" + "n" * 40 + ".cu", 7))]))
    table = {r[0]: r[1] for r in rows(text) if r and r[0] in ("3", "4")}
    assert table == {"3": "kern.cu:9", "4": "n" * 28}


def test_instructions_longer_than_the_44_wide_instruction_column_are_cut_to_44() -> None:
    long = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
    fits = "x" * 44
    text = render(trace([stats(3, 1, 1, opcode=long), stats(4, 1, 1, opcode=fits)]))
    table = {r[0]: r[2] for r in rows(text) if r and r[0] in ("3", "4")}
    assert table == {"3": "cp.async.bulk.tensor.2d.shared::cluster.glob", "4": fits}


def test_top_keeps_the_instructions_with_the_most_excess() -> None:
    ins = [stats(1, 5, 4), stats(2, 9, 1), stats(3, 6, 2), stats(4, 2, 2)]
    table = [r[0] for r in rows(render(trace(ins), top=2)) if r and r[0].isdigit()]
    assert table == ["2", "3"]
    assert [r[0] for r in rows(render(trace(ins))) if r and r[0].isdigit()] == ["1", "2", "3", "4"]


def test_a_part_row_names_the_access_kind_and_its_part() -> None:
    s = stats(7, 1, 1, opcode="tensormap.replace.tile.global_dim", part="word 0x20")
    assert "tensormap.replace [word 0x20]" in render(trace([s]))


def test_the_worst_warp_example_names_phase_bank_ways_and_lanes() -> None:
    s = stats(5, 2, 1)
    rec = AccessRecord(0, 5, "ld.shared.b32", "ld", 4, "ld.shared.b32", 0, np.array([3]), np.ones((1, 32), bool),
                       np.array([[8 * i for i in range(32)]]))
    s.add(rec, WarpCosts(np.array([True]), np.array([2]), np.array([1])))
    text = render(trace([s]))
    # stride 8 bytes: lanes i and i + 16 share bank 2i mod 32 in different words
    assert "worst warp 3: phase 0, bank 0 2-way: byte 0 <- lanes [0]; byte 128 <- lanes [16]" in text
    column = stats(6, 32, 1)
    column.add(dataclasses.replace(rec, smem=np.array([[128 * i for i in range(32)]])),
               WarpCosts(np.array([True]), np.array([32]), np.array([1])))
    # a column walk: 32 lanes, 32 words in bank 0; the first four words are shown
    assert ("bank 0 32-way: byte 0 <- lanes [0]; byte 128 <- lanes [1]; byte 256 <- lanes [2]; "
            "byte 384 <- lanes [3]\n") in render(trace([column]))


def test_suggestion_unmodelled_and_data_dependent_notes_follow_their_row() -> None:
    s = stats(5, 2, 2, suggestion="use Swizzle<1,4,3>", unmodelled={"atomics": 3}, data_dependent=4)
    text = render(trace([s]))
    assert "suggestion: use Swizzle<1,4,3>" in text
    assert "UNMODELLED (3 warp executions): atomics" in text
    assert "DATA-DEPENDENT cost (4 warp executions, counted, not costed)" in text
    assert "unmodelled (not in the wavefront counters):\n  line 5 ld.shared.b32: atomics (3 warp executions)" in text


def test_counters_listed_are_the_issue_ones_the_nonzero_and_the_incomplete() -> None:
    ldsm = stats(3, 8, 6, kind="ldmatrix", text="ldmatrix.sync.aligned.m8n8.x4.shared.b16")
    dd = Incident(1, 9, "atom.shared.add.u32", "addr", 2, 5, "address", counter_kind="atom")
    text = render(trace([ldsm], data_dependent=[dd]))
    listed = {r[0]: r[1:] for r in rows(text) if r and r[0] in cn.ALL_COUNTERS}
    incomplete = {cn.ATOM_WAVEFRONTS, cn.SASS_ATOM_WAVEFRONTS, cn.ATOM_CONFLICTS}
    nonzero = {cn.LD_WAVEFRONTS, cn.SASS_LDSM_WAVEFRONTS, cn.LD_CONFLICTS, cn.LDSM_CONFLICTS, cn.INST_LDSM,
               cn.INST_SASS_LDSM}
    assert set(listed) == set(cn.ISSUE_COUNTERS) | nonzero | incomplete
    assert listed[cn.LD_WAVEFRONTS] == ["8"] and listed[cn.LDSM_CONFLICTS] == ["2"] and listed[cn.INST_LDSM] == ["2"]
    assert listed[cn.ATOM_WAVEFRONTS] == ["0", "*"] and listed[cn.ST_WAVEFRONTS] == ["0"]
    assert "; * = incomplete, see below" in text
    assert f"  {cn.ATOM_CONFLICTS}: PTX line 9 atom.shared.add.u32: data-dependent address" in text
    assert "data-dependent (not traced):\n  line 9 atom.shared.add.u32: addr (2 warp executions, 5 lanes)" in text


def test_an_incomplete_counter_lists_three_reasons_and_counts_the_rest() -> None:
    ins = [stats(n, 1, 1, unmodelled={"r": 1}) for n in (1, 2, 3, 4, 5)]
    text = render(trace(ins))
    line = next(ln for ln in text.splitlines() if ln.strip().startswith(cn.LD_WAVEFRONTS + ":"))
    assert re.findall(r"PTX line (\d)", line) == ["1", "2", "3"] and line.endswith("(+2 more)")
    four = render(trace(ins[:4]))
    line = next(ln for ln in four.splitlines() if ln.strip().startswith(cn.LD_WAVEFRONTS + ":"))
    assert re.findall(r"PTX line (\d)", line) == ["1", "2", "3"] and line.endswith("(+1 more)")
    three = render(trace(ins[:3]))
    line = next(ln for ln in three.splitlines() if ln.strip().startswith(cn.LD_WAVEFRONTS + ":"))
    assert re.findall(r"PTX line (\d)", line) == ["1", "2", "3"] and "more" not in line


def test_not_lsu_incidents_and_notes_are_listed() -> None:
    nl = Incident(2, 11, "ld.shared.b32", "a generic access to global memory", 6)
    text = render(trace([], not_lsu=[nl], notes=["PTX lines 3 and 4 may merge"]))
    assert ("not through the LSU shared-memory pipe (not counted):\n"
            "  line 11 ld.shared.b32: a generic access to global memory (6 warp executions)") in text
    assert text.endswith("note: PTX lines 3 and 4 may merge")
    plain = render(trace([]))
    for absent in ("not through the LSU", "data-dependent (not traced)", "unmodelled (not", "note:"):
        assert absent not in plain

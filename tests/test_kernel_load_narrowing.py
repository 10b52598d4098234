"""The tracer costs what ptxas emits for a shared-memory load whose result is partly unread.

``tests/data/ptxas_load_narrowing.json`` holds 183 kernels compiled by ptxas 13.0 for sm_90 (by
``tools/ptxas_load_narrowing.py``) and the shared-memory loads in their SASS: a ``ld.shared.v4.b32`` of which
only element 2 is read became ``LDS [a+0x8]``, one nothing reads vanished.  Each kernel is traced here (one warp,
lane ``t`` at ``smem + 16 t``) and its recorded accesses -- widths and each lane's byte address -- must be the
SASS's, in number, width and offset.  :mod:`layoutalg.kernel.interp.narrowing` states the rules.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pytest

from layoutalg.kernel import trace
from layoutalg.kernel.interp.narrowing import UNDECIDED, narrowed_parts
from layoutalg.kernel.ptx import parse_module
from layoutalg.kernel.sass import compare

DATA = os.path.join(os.path.dirname(__file__), "data", "ptxas_load_narrowing.json")
with open(DATA) as f:
    RECORDING = json.load(f)
CASES = RECORDING["cases"]


def _ptx(case: dict[str, Any]) -> str:
    return str(RECORDING["meta"]["kernel"]).replace("LOAD", case["load"]).replace("USES", case["uses"])


def _traced_accesses(ptx: str) -> list[tuple[int, int]]:
    """(bytes, offset from the lane's address) of every shared-memory load the trace records, lanes checked."""
    t = trace(ptx, kernel="k", grid=1, block=32, args={"p_out": "buf", "p_off": 0}, dynamic_smem=16384)
    base = t.shared_layout["smem"]
    out = []
    for rec in t.accesses:
        if rec.kind not in ("ld", "ldmatrix"):
            continue
        lane_base = base + 16 * np.arange(32)
        active = rec.active[0]  # ldmatrix: the lanes that supply a row address
        offsets = set((rec.smem[0] - lane_base)[active].tolist())
        assert len(offsets) == 1, (rec.part, offsets)  # every lane at the same offset from its own address
        out.append((rec.access_bytes, offsets.pop()))
    return sorted(out, key=lambda x: x[1])


def test_the_recording_covers_every_rule() -> None:
    assert RECORDING["meta"]["ptxas"].startswith("Build cuda_13.0")
    assert len(CASES) == 310 and not [c for c in CASES if "ptxas_error" in c]
    sass = [c["sass"] for c in CASES]
    assert [] in sass  # a removed load
    assert any(len(s) == 2 for s in sass)  # a split one
    assert {w for s in sass for _, w, _ in s} == {1, 2, 4, 8, 16}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_traced_accesses_are_the_sass(case: dict[str, Any]) -> None:
    sass = sorted(((int(w), int(off)) for _, w, off in case["sass"]), key=lambda x: x[1])
    assert _traced_accesses(_ptx(case)) == sass


@pytest.mark.parametrize("case", CASES[::7], ids=[c["name"] for c in CASES[::7]])
def test_the_sass_comparison_finds_no_difference(case: dict[str, Any]) -> None:
    """``trace(sass=...)`` compares the PTX's shared-memory inventory with the SASS's: the narrowed widths must be
    the ones it expects, or every narrowed kernel would be listed as unmodelled."""
    module = parse_module(_ptx(case))
    sass_text = "\n".join(["Function : k"] + [
        f"        /*{16 * i:04x}*/                   {op} R4, [R0+UR4+{off:#x}] ;"
        for i, (op, _, off) in enumerate(case["sass"])])  # type: ignore[union-attr]
    assert compare(module.entry("k"), sass_text) == []


def test_a_volatile_load_is_never_narrowed_nor_removed() -> None:
    assert narrowed_parts(4, [frozenset()] * 4, volatile=True) == ((0, 16),)
    assert narrowed_parts(4, [frozenset({0}), frozenset(), frozenset(), frozenset()], volatile=False) == ((0, 4),)


def test_narrowing_changes_the_wavefronts_the_trace_reports() -> None:
    """Lanes 16 bytes apart: the whole ``ld.shared.v4.b32`` costs 4 wavefronts a warp; element 0 alone (LDS, a
    4-way bank conflict) 4 too, elements 0 and 1 (LDS.64) 4; elements 0 and 2 two LDS of 4 each: 8."""
    v4 = "ld.shared.v4.b32 {%e0, %e1, %e2, %e3}, [%r1];"
    store = "  st.global.b32 [%rd1+{o}], %e{i};"
    for live, wavefronts, executions in (((0, 1, 2, 3), 4, 1), ((0,), 4, 1), ((0, 2), 8, 2), ((), 0, 0)):
        uses = "\n".join(store.format(o=8 * i, i=i) for i in live)
        t = trace(_ptx({"load": v4, "uses": uses}), kernel="k", grid=1, block=32, args={"p_out": "buf", "p_off": 0}, dynamic_smem=16384)
        loads = [s for s in t.instructions if s.kind == "ld"]
        assert sum(s.wavefronts for s in loads) == wavefronts, live
        assert t.counters["smsp__sass_inst_executed_op_shared_ld.sum"] == executions, live
        # a removed load is listed (with its warp executions), and asking for its line says why it has no stats
        assert [(d.opcode, d.count) for d in t.removed] == ([] if live else [("ld.shared.v4.b32", 1)])
        if not live:
            with pytest.raises(KeyError, match="ptxas removes the shared-memory load"):
                t.instruction(t.removed[0].line)
            assert "removed by ptxas" in t.report() and t.as_dict()["removed_by_ptxas"][0]["warp_executions"] == 1


FRESH_DATA = os.path.join(os.path.dirname(__file__), "data", "ptxas_load_narrowing_fresh.json")
with open(FRESH_DATA) as f:
    FRESH = json.load(f)


@pytest.mark.parametrize("case", FRESH["cases"], ids=[c["name"] for c in FRESH["cases"]])
def test_fresh_random_kernels_trace_as_their_sass(case: dict[str, Any]) -> None:
    """300 random kernels of 1-4 loads of random forms whose elements are read in random styles (or not), compiled
    by ptxas 13.0 (``tools/ptxas_load_narrowing.py --fresh 300 --seed 2020``): none was among the cases the rule was
    read off.  The traced accesses must be the SASS's: widths, and offsets within each load's 2048-byte slot."""
    ptx = str(FRESH["meta"]["kernel"]).replace("LOAD", case["load"]).replace("USES", case["uses"])
    sass = sorted((int(w), int(off) % 2048) for _, w, off in case["sass"])
    t = trace(ptx, kernel="k", grid=1, block=32, args={"p_out": "buf", "p_off": 0}, dynamic_smem=16384)
    if any(r.refusal for r in t.accesses):  # ptxas's choice depends on context: unmodelled, never guessed
        assert {r.refusal for r in t.accesses if r.refusal} == {UNDECIDED} and not t.complete
        return
    assert sorted((w, off % 2048) for w, off in _traced_accesses(ptx)) == sass


def test_the_undecided_form_is_both_whole_and_split_in_the_recordings() -> None:
    """A .v2.b64 whose two elements are read one word each: LDS.128 alone and in 33 fresh kernels, two LDS in 2 others
    (the code around it decides); the tracer leaves it unmodelled rather than guess."""
    alone = next(c for c in CASES if c["name"] == "ld.v2.b64 low [0, 1]")
    assert [w for _, w, _ in alone["sass"]] == [16]
    split = [c for c in FRESH["cases"] if "v2.b64" in c["load"] and len(c["sass"]) > len(c["load"].split("\n"))]
    assert split  # the same form split into two LDS
    undecided_cases = [c for c in FRESH["cases"] if any(
        r.refusal for r in trace(str(FRESH["meta"]["kernel"]).replace("LOAD", c["load"]).replace("USES", c["uses"]),
                                 kernel="k", grid=1, block=32, args={"p_out": "buf", "p_off": 0},
                                 dynamic_smem=16384).accesses)]
    assert 0 < len(undecided_cases) <= 40  # 35 of the 300: 33 whole, 2 split (ptxas 13.0)


@pytest.mark.parametrize(("reader", "words"), [
    ("cvt.u32.u64 %r5, %d0;\n  st.global.b32 [%rd1], %r5;", {0}),  # truncation: the low word
    ("cvt.sat.u32.u64 %r5, %d0;\n  st.global.b32 [%rd1], %r5;", {0, 1}),  # saturation compares the whole value
    ("cvt.rn.f32.u64 %r5, %d0;\n  st.global.b32 [%rd1], %r5;", {0, 1}),  # to float: every bit
    ("shr.u64 %rd5, %d0, 40;\n  st.global.b64 [%rd1], %rd5;", {1}),
    ("shr.u64 %rd5, %d0, 16;\n  st.global.b64 [%rd1], %rd5;", {0, 1}),
    ("mov.b64 %rd5, %d0;\n  st.global.b64 [%rd1], %rd5;", {0, 1}),  # a copy: whatever reads the copy
    ("mov.b64 {%r5, %r6}, %d0;\n  st.global.b32 [%rd1], %r6;", {1}),  # an unpack whose low half is unread
    ("mov.b64 {%r5, %r6}, %d0;\n  add.u32 %r7, %r5, 1;", set()),  # both halves unread: the unpack is dead too
])
def test_words_read_of_a_64_bit_value(reader: str, words: set[int]) -> None:
    """Liveness.words_read by the kind of reader (ptxas 13.0: ``tests/data/ptxas_load_narrowing.json``)."""
    from layoutalg.kernel.interp.liveness import Liveness
    from layoutalg.kernel.ptx import parse_module

    fn = parse_module(_ptx({"load": "ld.shared.b64 %d0, [%r1];", "uses": reader})).entry("k")
    index = next(i for i, ins in enumerate(fn.body) if ins.root == "ld" and "shared" in ins.parts)
    assert Liveness(fn.body, fn.labels).words_read(index, "%d0") == words

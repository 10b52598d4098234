"""cp.async bank rules (layoutalg.banks.cp_async): every measurement, the rules restated, vector == scalar.

Expected counts come from hardware (tests/data: H200 rounds 1-2 of tools/measure_banks.py, round 6) or from
the rules re-derived here in plain Python, independently of the module's code.
"""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.banks import analyze, conflict_free, report, wavefronts, wavefronts_many
from layoutalg.banks.cp_async import ca_wavefronts, cg_wavefronts, fewest_sector_maps
from layoutalg.banks.cp_async_vector import cp_async_many, sector_cover_table
from layoutalg.banks.instruction import parse_instruction
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError

DATA = os.path.join(os.path.dirname(__file__), "data")


def _load(name: str) -> list[dict]:
    with open(os.path.join(DATA, name)) as fh:
        return json.load(fh)["cases"]


MORE = _load("h200_smem_wavefronts_more.json")
CA = [c for c in MORE if c["instruction"].startswith("cp.async.ca")]
CG = [c for c in MORE if c["instruction"].startswith("cp.async.cg")] + _load("h200_cp_async_cg_round6.json")
CA_INS = {w: f"cp.async.ca.shared.global, {w}" for w in (4, 8, 16)}
CG_INS = "cp.async.cg.shared.global"


def test_every_cp_async_ca_measurement_is_reproduced():
    assert len(CA) == 326
    misses = [(c["name"], c["wavefronts"]) for c in CA
              if wavefronts(c["instruction"], c["lane_byte_addresses"], c["global_byte_addresses"]) != c["wavefronts"]
              or report(c["instruction"], c["lane_byte_addresses"], c["global_byte_addresses"]).wavefronts
              != c["wavefronts"]]
    assert misses == []


@pytest.mark.parametrize("name, measured, bank_bound", [
    # one lane meets conflicts on both sides: the hardware serialises it behind all of them
    ("r2 rand cp.async.ca4 random #47", 8, 5),   # lane 4: 4 more lanes on its global bank, 3 on its shared bank
    ("rand cp.async.ca4 #13", 7, 4),
    ("rand cp.async.ca16 #10", 18, 15),
    # two lanes writing the same shared word still wait for each other (lanes 13 and 26 write byte 104)
    ("rand cp.async.ca4 #36", 12, 10),
    # one global word read by all 32 lanes: 32 wavefronts, though the shared side is 4-way at most
    ("rand cp.async.ca4 #16", 32, 32),
])
def test_measurements_that_pin_the_ca_rule(name, measured, bank_bound):
    case = next(c for c in CA if c["name"] == name)
    smem, glob = case["lane_byte_addresses"], case["global_byte_addresses"]
    w = parse_instruction(case["instruction"]).access_bytes
    assert case["wavefronts"] == measured
    assert wavefronts(case["instruction"], smem, glob) == measured
    assert _plain_bank_bound(smem, glob, w) == bank_bound


def _words(address: int, width: int) -> set[int]:
    return set(range(address // 4, (address + width - 1) // 4 + 1))


def _plain_bank_bound(smem: list[int], glob: list[int], w: int) -> int:
    """Per phase, the most lanes on one global bank or distinct words on one shared bank (a perfect schedule)."""
    per = 32 if w <= 4 else 128 // w
    total = 0
    for start in range(0, 32, per):
        lanes = range(start, start + per)
        g_load = max(sum(1 for k in lanes if b in {x % 32 for x in _words(glob[k], w)}) for b in range(32))
        s_load = max(len({x for k in lanes for x in _words(smem[k], w) if x % 32 == b}) for b in range(32))
        total += max(g_load, s_load)
    return total


def _ca_restated(smem: list[int | None], glob: list[int | None], w: int) -> int:
    """The .ca rule re-derived from its statement, on 4-byte words: 1 + the most lanes any lane waits for."""
    per = 32 if w <= 4 else 128 // w
    total = 0
    for start in range(0, 32, per):
        live = [k for k in range(start, start + per) if smem[k] is not None and glob[k] is not None]
        banks = {k: ({x % 32 for x in _words(glob[k], w)}, {x % 32 for x in _words(smem[k], w)}) for k in live}  # type: ignore[arg-type]
        total += max((1 + sum(1 for j in live if j != k and (banks[j][0] & banks[k][0] or banks[j][1] & banks[k][1]))
                      for k in live), default=0)
    return total


def _lanes(draw_slots: list[int], w: int, inactive: list[bool]) -> list[int | None]:
    return [None if off else s * w for s, off in zip(draw_slots, inactive)]


_slots = st.lists(st.integers(0, 95), min_size=32, max_size=32)
_off = st.lists(st.booleans(), min_size=32, max_size=32)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([4, 8, 16]), _slots, _slots, _off)
def test_ca_rule_matches_its_statement(w, s_slots, g_slots, off):
    off = [o and k % 3 == 0 for k, o in enumerate(off)]  # a third of the lanes may be inactive
    smem, glob = _lanes(s_slots, w, off), _lanes(g_slots, w, off)
    assert ca_wavefronts(smem, glob, w) == _ca_restated(smem, glob, w)


def _batch(rng: random.Random, w: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n instructions: shared / global offsets drawn from small pools (duplicates, shared banks) and masks."""
    smem = np.zeros((n, 32), dtype=np.int64)
    glob = np.zeros((n, 32), dtype=np.int64)
    active = np.ones((n, 32), dtype=bool)
    for i in range(n):
        s_span, g_span = rng.choice([2, 8, 32, 128]), rng.choice([1, 4, 16, 64, 512])
        smem[i] = [rng.randrange(s_span * 128 // w) * w for _ in range(32)]
        glob[i] = [rng.randrange(g_span * 128 // w) * w for _ in range(32)]
        if rng.random() < 0.3:
            active[i] = [rng.random() < 0.7 for _ in range(32)]
    return smem, glob, active


@pytest.mark.parametrize("w, cache", [(4, "ca"), (8, "ca"), (16, "ca"), (16, "cg")])
def test_vector_rules_equal_the_scalar_rules(w, cache):
    ins = parse_instruction(CG_INS if cache == "cg" else CA_INS[w])
    smem, glob, active = _batch(random.Random(1000 + w), w, 400)
    wf, ideal = cp_async_many(ins, smem, glob, active)
    for i in range(len(smem)):
        s = [int(x) if a else None for x, a in zip(smem[i], active[i])]
        g = [int(x) if a else None for x, a in zip(glob[i], active[i])]
        expect = cg_wavefronts(s, g) if cache == "cg" else ca_wavefronts(s, g, w)
        assert wf[i] == expect, (i, s, g)
        if active[i].all():
            assert ideal[i] == report(ins.canonical, s, g).ideal


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([(4, "ca"), (8, "ca"), (16, "ca"), (16, "cg")]), st.integers(0, 2**32 - 1))
def test_vector_rules_equal_the_scalar_rules_hypothesis(form, seed):
    w, cache = form
    ins = parse_instruction(CG_INS if cache == "cg" else CA_INS[w])
    smem, glob, active = _batch(random.Random(seed), w, 3)
    wf, _ = cp_async_many(ins, smem, glob, active)
    for i in range(3):
        s = [int(x) if a else None for x, a in zip(smem[i], active[i])]
        g = [int(x) if a else None for x, a in zip(glob[i], active[i])]
        assert wf[i] == (cg_wavefronts(s, g) if cache == "cg" else ca_wavefronts(s, g, w))


def test_vector_path_reproduces_every_measurement():
    for cases in (CA, CG):
        by_ins: dict[str, list[dict]] = {}
        for c in cases:
            by_ins.setdefault(c["instruction"], []).append(c)
        for ins, group in by_ins.items():
            wf, _ = wavefronts_many(ins, np.array([c["lane_byte_addresses"] for c in group]),
                                    global_addresses=np.array([c["global_byte_addresses"] for c in group]))
            assert wf.tolist() == [c["wavefronts"] for c in group], ins


def test_sector_cover_table_is_the_fewest_maps():
    table = sector_cover_table()
    rng = random.Random(7)
    masks = [m for m in range(1 << 16) if bin(m).count("1") <= 3] + [rng.randrange(1, 1 << 16) for _ in range(1500)]
    for mask in masks:
        edges = frozenset((b // 4, b % 4) for b in range(16) if mask >> b & 1)
        assert table[mask] == (fewest_sector_maps(edges) if edges else 0), mask


def test_vector_cp_async_bad_input():
    contiguous = np.arange(32)[None, :] * 16
    with pytest.raises(InstructionError, match="global_addresses"):
        wavefronts_many(CG_INS, contiguous)
    with pytest.raises(InstructionError, match="misaligned global"):
        wavefronts_many(CA_INS[8], contiguous, global_addresses=contiguous + 4)
    with pytest.raises(InstructionError, match="shape"):
        wavefronts_many(CG_INS, contiguous, global_addresses=np.zeros((2, 32), dtype=np.int64))
    with pytest.raises(InstructionError, match="negative global"):
        wavefronts_many(CG_INS, contiguous, global_addresses=-contiguous)
    with pytest.raises(InstructionError, match="cp.async only"):
        wavefronts_many("ld.shared.b32", contiguous // 4, global_addresses=contiguous)


@pytest.mark.parametrize("instruction", [CG_INS, CA_INS[4], CA_INS[8], CA_INS[16]])
def test_printing_a_cp_async_analysis_names_what_the_cost_comes_from(instruction):
    smem = Layout((64, 64), (64, 1))
    res = analyze(smem, instruction, "f16", global_layout=Layout((64, 64), (72, 1)), by="column")
    text = str(res)
    assert text.startswith(instruction.replace("cp.async.cg.shared.global", "cp.async.cg.shared.global, 16"))
    assert f"{res.total} wavefronts" in text
    worst = res.worst(1)[0][0]
    rep = res.report(**worst)
    assert rep.wavefronts == int(res.wavefronts.max())
    assert all(note in text for note in rep.notes[:4])
    assert str(rep).count("\n") >= len(rep.notes)
    assert res.to_json()["total"] == res.total


def test_ca_report_names_the_lane_that_waits_longest():
    case = next(c for c in CA if c["name"] == "r2 rand cp.async.ca4 random #47")
    rep = report(case["instruction"], case["lane_byte_addresses"], case["global_byte_addresses"])
    assert rep.wavefronts == 8 and rep.ideal == 1
    assert "lane 4 waits for 7 lanes" in rep.notes[0]
    assert "lanes [18, 25, 29, 31]" in rep.notes[0] and "lanes [1, 2, 24]" in rep.notes[0]
    assert "lane 4 waits" in str(rep)


def test_cp_async_ca_tile_fill_through_analyze_and_conflict_free():
    """A 64x64 fp16 tile filled by cp.async.ca.16 from a row-major global matrix: instance by instance equal to
    the per-instruction model; conflict-free from 128-byte-aligned rows; refuted with a column sweep."""
    smem = Layout((64, 64), (64, 1))
    res = analyze(smem, CA_INS[16], "f16", global_layout=Layout((64, 64), (4096, 1)))
    for k in range(res.count):
        s = [int(x) for x in res.addresses.reshape(-1, 32)[k]]
        g = [int(x) for x in res.global_addresses.reshape(-1, 32)[k]]
        assert int(res.wavefronts.ravel()[k]) == wavefronts(CA_INS[16], s, g)
    assert res.conflict_free
    assert conflict_free(smem, CA_INS[16], "f16", global_layout=Layout((64, 64), (4096, 1))).status == "proved"
    column = conflict_free(smem, CA_INS[4], "f16", global_layout=Layout((64, 64), (4096, 1)), by="column")
    assert column.status == "refuted" and "waits for" in column.explanation


# -- round 7 (tools/banks_round7.py): patterns and predictions committed before measuring ---------------------
def _round7_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("banks_round7", os.path.join(DATA, "..", "..", "tools",
                                                                             "banks_round7.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROUND7 = json.load(open(os.path.join(DATA, "cp_async_round7_predictions.json")))["cases"]


def test_round7_predictions_are_the_generator_patterns_with_the_current_ca_rule():
    """What the lead measures (tools/measure_banks.py --set 7) is exactly what was predicted; the .ca part was
    predicted by the rule as it stands (the .cg predictions are the record of the rule before round 7)."""
    generated = _round7_module().round7()
    assert [c.name for c in generated] == [c["name"] for c in ROUND7]
    for case, rec in zip(generated, ROUND7):
        assert list(case.lane_byte_addresses) == rec["lane_byte_addresses"], case.name
        assert list(case.global_byte_addresses) == rec["global_byte_addresses"], case.name
        assert (None if case.active is None else list(case.active)) == rec.get("active"), case.name
        live = rec.get("active", [True] * 32)
        smem = [s if on else None for s, on in zip(rec["lane_byte_addresses"], live)]
        glob = [g if on else None for g, on in zip(rec["global_byte_addresses"], live)]
        if rec["instruction"].startswith("cp.async.ca"):
            w = int(rec["instruction"].split(",")[1])
            assert rec["predicted_before_measuring"] == ca_wavefronts(smem, glob, w) == _ca_restated(smem, glob, w)
    assert 600 <= len(ROUND7) <= 900
    discriminating = [r for r in ROUND7 if "bank_bound" in r and r["bank_bound"] != r["predicted_before_measuring"]]
    assert len(discriminating) >= 150  # where the .ca rule and the plain bank bound part


def test_round7_import_joins_measurements_with_the_predictions(tmp_path):
    tool = _round7_module()
    fake = [{"name": r["name"], "instruction": r["instruction"], "lane_byte_addresses": r["lane_byte_addresses"],
             "wavefronts": r["predicted_before_measuring"] + (1 if k == 3 else 0)} for k, r in enumerate(ROUND7[:40])]
    path = tmp_path / "measurements.json"
    path.write_text(json.dumps({"meta": {"device": "NVIDIA H100 80GB HBM3, 580.159.04"}, "cases": fake}))
    out = tool.import_measurements([str(path)], out_dir=str(tmp_path))
    doc = json.loads(open(out).read())
    assert out.endswith("h100_cp_async_round7.json") and doc["meta"]["count"] == 40
    assert [c["wavefronts"] for c in doc["cases"]] == [f["wavefronts"] for f in fake]
    assert doc["cases"][3]["predicted_before_measuring"] == fake[3]["wavefronts"] - 1
    stray = tmp_path / "stray.json"
    stray.write_text(json.dumps({"meta": {}, "cases": [dict(fake[0], name="not a round-7 pattern")]}))
    with pytest.raises(SystemExit, match="not round-7 patterns"):
        tool.import_measurements([str(stray)], out_dir=str(tmp_path))


HOLDOUTS = ["h200_cp_async_cg_round6.json"] + sorted(f for f in os.listdir(DATA) if f.endswith("_cp_async_round7.json"))


@pytest.mark.parametrize("name", HOLDOUTS)
def test_every_cp_async_holdout_measurement_is_reproduced(name):
    """Round 6 and, once imported (tools/banks_round7.py import), round 7: the model against every measured count."""
    cases = _load(name)
    misses = []
    for c in cases:
        live = c.get("active", [True] * 32)
        smem = [s if on else None for s, on in zip(c["lane_byte_addresses"], live)]
        glob = [g if on else None for g, on in zip(c["global_byte_addresses"], live)]
        w = parse_instruction(c["instruction"]).access_bytes
        model = cg_wavefronts(smem, glob) if c["instruction"].startswith("cp.async.cg") else ca_wavefronts(smem, glob, w)
        if model != c["wavefronts"]:
            misses.append((c["name"], c["wavefronts"], model))
    assert misses == []


@pytest.mark.parametrize("nbytes, cache", [(16, "cg"), (16, "ca"), (4, "ca")])
def test_a_cp_async_tiled_copy_is_analysed_with_its_global_side(nbytes, cache):
    """CuTe's sm80 producer as a TiledCopy (32x4 threads row-major, 16 bytes each; or 4 bytes): thread t of warp
    w copies row t // 4 of the 32x32 tile, columns (t % 4) * v ..; every instance equals the scalar rule on the
    addresses written out here."""
    from layoutalg.atoms import catalog as atoms
    from layoutalg.atoms.tiled import make_tiled_copy

    v = nbytes // 2
    tc = make_tiled_copy(atoms.cp_async(nbytes, cache), Layout.right((32, 4)), Layout((1, v)), bits=16)
    rows, cols = 32, 4 * v
    smem = Layout((rows, cols), (cols + 8, 1))  # 16 bytes of padding per row
    glob = Layout((rows, cols), (4096 + 8, 1))
    res = analyze(smem, tc, "f16", global_layout=glob)
    ins = CG_INS if cache == "cg" else CA_INS[nbytes]
    assert res.instruction == parse_instruction(ins).canonical and res.axes == ("warp", "call")
    for warp in range(4):
        for call in range(res.wavefronts.shape[1]):
            lanes = [(32 * warp + lane) for lane in range(32)]
            s = [2 * smem(t // 4, (t % 4) * v) for t in lanes]
            g = [2 * glob(t // 4, (t % 4) * v) for t in lanes]
            assert res.addresses[warp, call].tolist() == s
            assert int(res.wavefronts[warp, call]) == wavefronts(ins, s, g)


def test_vector_rules_with_global_offsets_past_2_to_the_50():
    """Sort keys that do not fit one int64 take the lexsort route; the counts are the same."""
    smem, glob, active = _batch(random.Random(5), 16, 60)
    glob = glob + (1 << 52)
    for cache in ("cg", "ca"):
        ins = parse_instruction(CG_INS if cache == "cg" else CA_INS[16])
        wf, _ = cp_async_many(ins, smem, glob, active)
        for i in range(len(smem)):
            s = [int(x) if a else None for x, a in zip(smem[i], active[i])]
            g = [int(x) if a else None for x, a in zip(glob[i], active[i])]
            assert wf[i] == (cg_wavefronts(s, g) if cache == "cg" else ca_wavefronts(s, g, 16))

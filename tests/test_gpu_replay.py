"""Replay the committed GPU recordings on a CPU: the models must agree with real hardware.

The recordings (tests/data/gpu_recording_*.json) hold raw facts measured by
``layoutalg gpu-check`` on a GPU.  These tests need no GPU.  Besides the
replay through layoutalg's models, several checks re-derive the expected
hardware behaviour from the PTX ISA formulas written out here, and mutation
tests make sure the replay does catch a wrong model or a corrupted recording.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.copy import COPY_ATOMS
from layoutalg.atoms.mma import MMA_ATOMS
from layoutalg.gpu import replay, schemes
from layoutalg.gpu.record import pack_triples, unpack_triples

DATA = Path(__file__).parent / "data"
RECORDINGS = sorted(DATA.glob("gpu_recording_*.json"))


@cache
def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@cache
def _replayed(path: Path) -> dict[str, Any]:
    return replay.replay_recording(_load(path))


def _sm90() -> Path:
    for p in RECORDINGS:
        if _load(p)["device"]["compute_capability"] == "9.0":
            return p
    raise AssertionError(f"no sm_90 recording among {[p.name for p in RECORDINGS]}")


def test_an_sm90_recording_is_committed() -> None:
    rec = _load(_sm90())
    dev = rec["device"]
    assert dev["name"] and dev["driver"] and rec["date"]
    assert rec["format"] == "layoutalg-gpu-recording/1"


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_replay_has_zero_mismatches(path: Path) -> None:
    report = _replayed(path)
    assert report["mismatches"] == 0, "\n".join(report["details"][:40])


def test_every_catalog_mma_atom_is_recorded_and_agrees() -> None:
    report = _replayed(_sm90())
    agreed = {o["case"].split(" ")[0] for o in report["outcomes"] if o["section"] == "mma" and o["status"] == "agree"}
    missing = sorted({a.name for a in MMA_ATOMS} - agreed)
    assert not missing, f"catalog mma atoms without an agreeing hardware case: {missing}"


def test_every_catalog_copy_atom_is_recorded() -> None:
    rec = _load(_sm90())
    recorded = {c["instruction"] for s in ("ldmatrix", "stmatrix", "movmatrix") for c in rec[s]}
    cp = {(c["instruction"], c["bytes"]) for c in rec["cp_async"]}
    ldst = {(c["instruction"].split(".")[0], c["bytes"]) for s in ("ld_shared", "st_shared") for c in rec[s]}
    for atom in COPY_ATOMS:
        if atom.is_matrix:
            assert atom.ptx in recorded, atom.name
        elif atom.kind == "cp.async":
            cache = atom.ptx.split(".")[2]
            assert (f"cp.async.{cache}.shared.global", atom.vector_bits // 8) in cp, atom.name
        else:
            assert (atom.kind.split(".")[0], atom.vector_bits // 8) in ldst, atom.name


def test_every_wgmma_form_is_recorded_and_agrees() -> None:
    from layoutalg.atoms.gmma import GMMA_NS

    rec = _load(_sm90())
    assert rec.get("wgmma"), "the recording has no wgmma section"
    report = _replayed(_sm90())
    wg = [o for o in report["outcomes"] if o["section"] == "wgmma"]
    assert wg and all(o["status"] == "agree" for o in wg), [o for o in wg if o["status"] != "agree"][:3]
    agreed = {o["case"].split(" ")[0] for o in wg}
    forms = {tuple(n.split("_")[2:4]) for n in agreed}
    assert {("F32F16F16", "SS"), ("F32F16F16", "RS"), ("F16F16F16", "SS"), ("F16F16F16", "RS"),
            ("F32BF16BF16", "SS"), ("F32BF16BF16", "RS")} <= forms
    for mode in ("SS", "RS"):  # every N of the catalog for the f16 -> f32 forms
        assert {f"SM90_64x{n}x16_F32F16F16_{mode}" for n in GMMA_NS} <= agreed
    modes = {(c["a_operand"]["major"], c["a_operand"]["layout_type"]) for c in rec["wgmma"]
             if c.get("a_operand") and "error" not in c}
    assert modes == {("K", "INTERLEAVE"), ("K", "B32"), ("K", "B64"), ("K", "B128"),
                     ("MN", "INTERLEAVE"), ("MN", "B32"), ("MN", "B64"), ("MN", "B128")}


def test_pipeline_schemes_compute_what_numpy_computes() -> None:
    """End-to-end runs of the proofs' accumulator and producer schemes, re-checked here with numpy."""
    rec = _load(_sm90())
    kinds = {c["kind"] for c in rec["pipelines"]}
    assert kinds == {"stsm_epilogue", "movmatrix_b", "fa2_p_reuse", "cp_async_tile"}
    for case in rec["pipelines"]:
        if case["kind"] == "stsm_epilogue" and case["expect"] == "equal":
            ref = np.array(case["a"]) @ np.array(case["b"])
            assert (np.array(case["c_block"]) == ref).all()
        if case["kind"] == "fa2_p_reuse":
            ref = (np.array(case["q"]) @ np.array(case["k"])) @ np.array(case["v"])
            got = np.zeros((16, 8))
            for ln in range(32):
                for i in range(4):
                    got[ln // 4 + 8 * (i // 2), 2 * (ln % 4) + i % 2] = case["d"][ln][i]
            assert (got == ref).all()
    verdicts = schemes.pipeline_verdicts(rec["pipelines"])
    assert len(verdicts) == 8 and all(v["status"] == "agree" for v in verdicts), verdicts


def test_at_least_300_bank_patterns_measured_with_ncu() -> None:
    rec = _load(_sm90())
    measured = [c for c in rec["banks"] if c.get("method") == "ncu" and c.get("wavefronts") is not None]
    assert len(measured) >= 300
    names = {c["name"] for c in measured}
    calib = json.loads((DATA / "h200_smem_wavefronts_calibration.json").read_text())["cases"]
    assert all(f"calibration: {c['name']}" in names for c in calib)


def test_recorded_calibration_patterns_reproduce_the_calibration_file() -> None:
    """Our own ncu run of the 142 calibration patterns gives the calibration file's counts."""
    rec = _load(_sm90())
    ours = {c["name"]: c["wavefronts"] for c in rec["banks"]}
    calib = json.loads((DATA / "h200_smem_wavefronts_calibration.json").read_text())["cases"]
    diffs = [(c["name"], c["wavefronts"], ours[f"calibration: {c['name']}"]) for c in calib
             if ours[f"calibration: {c['name']}"] != c["wavefronts"]]
    assert not diffs, diffs[:10]


def test_bank_model_agrees_with_every_measured_pattern() -> None:
    report = _replayed(_sm90())
    banks = [o for o in report["outcomes"] if o["section"] == "banks"]
    assert banks
    bad = [o for o in banks if o["status"] == "mismatch"]
    assert not bad, bad[:5]
    refused = [o for o in banks if o["status"] == "not_checked"]
    # every measured pattern is modelled now, cp.async.ca included (its 15 patterns per recording agree)
    assert not refused, refused[:5]
    assert sum("cp.async.ca" in o["case"] for o in banks) == 15


# -- independent re-derivations from the PTX ISA (formulas re-typed here) ---------------------
def test_ldmatrix_registers_follow_the_isa_formula() -> None:
    """ldmatrix: lane l, register i holds row l//4 of matrix i, columns 2*(l%4), +1 (trans: transposed)."""
    rec = _load(_sm90())
    for case in rec["ldmatrix"]:
        num = int(case["instruction"].split(".x")[1][0])
        trans = ".trans" in case["instruction"]
        addr = case["lane_byte_addresses"]
        for lane in range(32):
            for i in range(num):
                for h in (0, 1):
                    if trans:
                        row, col = 2 * (lane % 4) + h, lane // 4
                    else:
                        row, col = lane // 4, 2 * (lane % 4) + h
                    want = addr[8 * i + row] // 2 + col
                    assert (case["regs"][lane][i] >> (16 * h)) & 0xFFFF == want, (case["pattern"], lane, i, h)


def test_mma_m16n8k16_triples_follow_the_isa_formula() -> None:
    """m16n8k16 f16: A a_i at (g + 8*((i>>1)&1), 2t + (i&1) + 8*(i>>2)), B b_i at (2t + (i&1) + 8*(i>>1), g),
    C c_i at (g + 8*(i>>1), 2t + (i&1)); a triple exists iff the k's and rows and columns match."""
    rec = _load(_sm90())
    case = next(c for c in rec["mma"] if c["instruction"] == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    a = {ln * 8 + i: ((ln >> 2) + 8 * ((i >> 1) & 1), 2 * (ln % 4) + (i & 1) + 8 * (i >> 2)) for ln in range(32) for i in range(8)}
    b = {ln * 4 + i: (2 * (ln % 4) + (i & 1) + 8 * (i >> 1), ln >> 2) for ln in range(32) for i in range(4)}
    c = {ln * 4 + i: ((ln >> 2) + 8 * (i >> 1), 2 * (ln % 4) + (i & 1)) for ln in range(32) for i in range(4)}
    c_at = {v: s for s, v in c.items()}
    want = {(sa, sb, c_at[(ma, nb)]) for sa, (ma, ka) in a.items() for sb, (kb, nb) in b.items() if ka == kb}
    assert set(unpack_triples(case["triples"])) == want
    assert sorted(map(tuple, case["c_to_d"])) == [(s, s) for s in range(128)]


def test_triple_packing_round_trips() -> None:
    triples = [[5, 7, 9], [0, 0, 0], [1023, 511, 127], [3, 2, 1]]
    assert unpack_triples(pack_triples(triples)) == [tuple(t) for t in triples]


def test_mma_triple_counts_are_m_n_k() -> None:
    rec = _load(_sm90())
    for case in rec["mma"]:
        shape = case["shape"]
        m, n, k = (int(x) for x in shape[1:].replace("n", " ").replace("k", " ").split())
        copies = 4 if shape == "m8n8k4" and case["types"]["a"] == "f16" else 1
        triples = unpack_triples(case["triples"])
        assert len(triples) == len(set(triples)) == m * n * k * copies, case["instruction"]
        assert not case["anomalies"], case["instruction"]


def test_schemes_match_numpy_matmul_where_the_proofs_say_so() -> None:
    rec = _load(_sm90())
    for case in rec["schemes"]:
        if not case["ran"]:
            assert case["expect"] == "differs"
            continue
        a, b = np.array(case["a_sub"]), np.array(case["b_sub"])
        d = np.array(case["d"])
        ref = a @ b
        got = np.zeros((16, 8))
        for lane in range(32):
            for i in range(4):
                got[lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2] = d[lane][i]
        if case["expect"] == "equal":
            assert (got == ref).all(), case["scheme"]
    verdicts = schemes.scheme_verdicts(rec["schemes"])
    assert verdicts and all(v["status"] == "agree" for v in verdicts)
    assert {v["note"].split(", ")[1] for v in verdicts} == {"hardware equal", "hardware differs"}


# -- the replay catches wrong models and corrupted recordings ---------------------------------
def test_replay_catches_a_corrupted_ldmatrix_register() -> None:
    rec = _load(_sm90())
    case = copy.deepcopy(rec["ldmatrix"][0])
    case["regs"][5][0] ^= 0x10001
    checks = dict(replay.check_ldmatrix(case, catalog.ldmatrix(int(case["instruction"].split(".x")[1][0]),
                                                               ".trans" in case["instruction"])))
    assert any("lane 5 reg 0" in e for e in checks["ptx"])
    assert any("lane 5 value 0" in e for e in checks["cute"])


def test_replay_catches_the_wrong_ldmatrix_atom() -> None:
    rec = _load(_sm90())
    case = next(c for c in rec["ldmatrix"] if c["instruction"].endswith("x4.shared.b16") and c["pattern"] == "random_distinct")
    checks = dict(replay.check_ldmatrix(case, catalog.ldmatrix(4, True)))
    assert len(checks["ptx"]) > 100 and len(checks["cute"]) > 100


def test_replay_catches_a_wrong_mma_layout() -> None:
    rec = _load(_sm90())
    case = next(c for c in rec["mma"] if c["instruction"] == "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32")
    wrong = catalog.mma("m16n8k16", a="f16", c="f32")  # a different fragment layout for the same sizes of C
    good = dict(replay.check_mma(case, catalog.mma("m16n8k8", a="f16", c="f32")))
    assert not good["ptx"] and not good["cute"]
    mutated = copy.deepcopy(case)
    triples = [list(t) for t in unpack_triples(case["triples"])]
    triples[0][1] ^= 1
    mutated["triples"] = triples
    assert dict(replay.check_mma(mutated, catalog.mma("m16n8k8", a="f16", c="f32")))["ptx"]
    assert wrong.num_elements("A") != case["elems_per_lane"]["a"]


def test_replay_catches_a_corrupted_stmatrix_write() -> None:
    rec = _load(_sm90())
    case = copy.deepcopy(rec["stmatrix"][3])
    case["smem_writes"][7][1] += 1
    checks = dict(replay.check_stmatrix(case, catalog.stmatrix(int(case["instruction"].split(".x")[1][0]),
                                                               ".trans" in case["instruction"])))
    assert checks["ptx"] and checks["cute"]


# -- the backend without a GPU ----------------------------------------------------------------
def test_missing_cupy_raises_a_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from layoutalg.gpu import gpu_available, require_cupy

    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(ImportError, match=r"pip install layoutalg\[gpu\]"):
        require_cupy()
    assert "pip install layoutalg[gpu]" in (gpu_available() or "")


def test_gpu_check_without_gpu_exits_2_and_replays_a_recording(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    from layoutalg.gpu.check import run_cli

    monkeypatch.setitem(sys.modules, "cupy", None)
    assert run_cli([]) == 2
    assert "pip install layoutalg[gpu]" in capsys.readouterr().err
    assert run_cli(["--replay", str(_sm90()), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mismatches"] == 0 and out["agree"] > 300

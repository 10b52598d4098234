"""Live GPU tests (``pytest -m gpu``): run the real instructions and compare with the models.

Skipped (with the reason) where CuPy or a CUDA device is missing; see tests/conftest.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from layoutalg.core.layout import Layout
from layoutalg.gpu import record, replay, schemes

pytestmark = pytest.mark.gpu


class Swizzled:
    """A minimal swizzled layout (Swizzle<B,M,S> after a Layout), so these tests need only core."""

    def __init__(self, inner: Layout, bits: int, base: int, shift: int) -> None:
        self.inner, self.sw, self.shape = inner, (bits, base, shift), inner.shape

    def size(self) -> int:
        return self.inner.size()

    def __call__(self, c: object) -> int:
        return schemes.swizzle(*self.sw, self.inner(c))


@pytest.fixture(scope="module")
def recorder() -> record.Recorder:
    return record.Recorder()


def test_ldmatrix_x4_over_a_swizzled_tile_gives_the_mma_a_fragment(recorder: record.Recorder) -> None:
    from layoutalg.atoms.catalog import mma
    from layoutalg.gpu.fragment_check import check_ldmatrix

    tile = Swizzled(Layout((32, 64), (64, 1)), 3, 3, 3)  # (m, k) -> element, Swizzle<3,3,3>
    lanes = [(ln % 8 + 8 * ((ln // 8) % 2), 8 * (ln // 16)) for ln in range(32)]
    a = mma("m16n8k16", a="f16", c="f32")

    def expected(lane: int, reg: int, half: int) -> tuple[int, int]:
        return a.fragment_coord("A", lane, 2 * reg + half)

    report = check_ldmatrix(tile, lanes, num=4, expected=expected, recorder=recorder)
    assert report.ok, report.text()
    assert report.checked == 256


def test_fragment_check_reports_a_wrong_expectation(recorder: record.Recorder) -> None:
    from layoutalg.gpu.fragment_check import check_ldmatrix

    tile = Layout((32, 64), (64, 1))
    lanes = [(ln % 8 + 8 * ((ln // 8) % 2), 8 * (ln // 16)) for ln in range(32)]
    report = check_ldmatrix(tile, lanes, num=4, trans=True, expected=lambda lane, reg, half: (lane // 4, 0),
                            recorder=recorder)
    assert not report.model_mismatches  # the hardware does what the model says for .trans too
    assert report.expected_mismatches  # but not what this wrong expectation says
    m = report.expected_mismatches[0]
    assert isinstance(m.lane, int) and isinstance(m.hardware, tuple)


def test_stmatrix_check_on_a_padded_tile(recorder: record.Recorder) -> None:
    from layoutalg.gpu.fragment_check import check_stmatrix

    tile = Layout((32, 64), (72, 1))  # 144-byte pitch
    lanes = [(ln, 0) for ln in range(32)]
    report = check_stmatrix(tile, lanes, num=4, trans=True, recorder=recorder)
    assert report.ok, report.text()


def test_cp_async_check_through_the_sm80_swizzled_tile(recorder: record.Recorder) -> None:
    from layoutalg.gpu.fragment_check import check_cp_async

    tile = Swizzled(Layout((32, 64), (64, 1)), 3, 3, 3)
    lanes = [(ln // 8 + 4 * (ln % 2), 8 * (ln % 8)) for ln in range(32)]  # 16-byte chunks, scattered rows
    report = check_cp_async(tile, lanes, 16, "cg", recorder=recorder)
    assert report.ok and report.checked == 32 * 8, report.text()


def test_mma_one_hot_run_agrees_with_the_atom(recorder: record.Recorder) -> None:
    from layoutalg.atoms.catalog import mma
    from layoutalg.gpu.fragment_check import check_mma

    for atom in (mma("m16n8k16", a="bf16", c="f32"), mma("m16n8k32", a="s8", b="u8", c="s32")):
        report = check_mma(atom, recorder=recorder)
        assert report.ok, report.text()


def test_recorded_cases_replay_cleanly_when_rerun(recorder: record.Recorder) -> None:
    cases = recorder.ldmatrix(2, True, record.matrix_address_patterns(2, True, 7))
    for case in cases:
        checks = replay.check_ldmatrix(case, __import__("layoutalg.atoms.catalog", fromlist=["x"]).ldmatrix(2, True))
        assert all(not errs for _, errs in checks), checks


def test_gpu_check_cli_writes_a_recording(tmp_path: Path) -> None:
    from layoutalg.gpu.check import run_cli

    out = tmp_path / "rec.json"
    assert run_cli(["--no-banks", "--no-replay", "--out", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["device"]["compute_capability"] and rec["mma"] and rec["ldmatrix"]
    report = replay.replay_recording(rec)
    assert report["mismatches"] == 0, report["details"][:10]


@pytest.mark.skipif(shutil.which("ncu") is None, reason="Nsight Compute (ncu) not on PATH")
def test_bank_check_with_ncu_measures_the_textbook_conflict() -> None:
    from layoutalg.gpu.bank_check import record_bank_cases

    # 32 lanes reading one fp32 column of a 32x32 tile: 32-way conflict; padded to 33: conflict-free
    pats = [{"name": "column", "instruction": "ld.shared.b32", "lane_byte_addresses": [128 * ln for ln in range(32)],
             "global_byte_addresses": None},
            {"name": "padded column", "instruction": "ld.shared.b32",
             "lane_byte_addresses": [132 * ln for ln in range(32)], "global_byte_addresses": None}]
    res = record_bank_cases(pats)
    assert [r["method"] for r in res] == ["ncu", "ncu"]
    assert [r["wavefronts"] for r in res] == [32, 1]


def test_clock64_estimate_orders_conflicts() -> None:
    from layoutalg.gpu.bank_check import clock64_estimate

    conflicted = clock64_estimate("ld.shared.b32", [128 * ln for ln in range(32)])
    clean = clock64_estimate("ld.shared.b32", [4 * ln for ln in range(32)])
    assert clean >= 1 and conflicted > clean, (clean, conflicted)


def test_wgmma_one_hot_run_agrees_with_the_atom() -> None:
    from layoutalg.atoms.catalog import wgmma
    from layoutalg.gpu.runner import compile_kernels
    from layoutalg.gpu.wgmma import WgmmaVariant, canonical_operand, kernel_source, record_wgmma

    v = WgmmaVariant(24, "bf16", "f32", "smem", canonical_operand(64, "K", "B128"), canonical_operand(24, "MN", "B32"))
    name, src = kernel_source(v)
    case = record_wgmma(v, compile_kernels([(name, src)])[name])
    assert case["triples"] == 64 * 24 * 16 and not case["anomalies"]
    checks = replay.check_wgmma(case, wgmma(24, "bf16", "f32", "smem"))
    assert all(not errs for _, errs in checks), checks


def test_pipeline_schemes_run_as_the_proofs_say(recorder: record.Recorder) -> None:
    outs = schemes.pipeline_verdicts([recorder.pipeline(c) for c in schemes.pipeline_cases(seed=5)])
    assert outs and all(o["status"] == "agree" for o in outs), outs

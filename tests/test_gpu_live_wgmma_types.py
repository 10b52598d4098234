"""Live GPU runs (``pytest -m gpu``, an sm_90 device) of the issue-16 instruction forms against the atoms:
wgmma with tf32, fp8 and int8 operands (A from shared memory and from registers, swizzled B) and the
``.satfinite`` mma.sync forms.  Skipped where CuPy or a CUDA device is missing (tests/conftest.py).
The 8-bit ldmatrix/stmatrix forms need sm_100a/sm_120a and are not run here.
"""

from __future__ import annotations

import pytest

from layoutalg.atoms.catalog import get, wgmma
from layoutalg.gpu import replay
from layoutalg.gpu.wgmma import WgmmaVariant, canonical_operand, kernel_source, record_wgmma

pytestmark = pytest.mark.gpu

VARIANTS = [
    WgmmaVariant(24, "tf32", "f32", "reg", None, canonical_operand(24, "K", "B64")),
    WgmmaVariant(40, "e4m3", "f16", "smem", canonical_operand(64, "K", "B128"), canonical_operand(40, "K", "B32"),
                 "e5m2"),
    WgmmaVariant(24, "s8", "s32", "reg", None, canonical_operand(24, "K", "INTERLEAVE"), "u8", True),
    WgmmaVariant(64, "u8", "s32", "smem", canonical_operand(64, "K", "B64"), canonical_operand(64, "K", "B128"),
                 "s8"),
]


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.name())
def test_wgmma_of_other_element_types_runs_as_the_atom_says(v):
    from layoutalg.gpu.runner import compile_kernels

    name, src = kernel_source(v)
    case = record_wgmma(v, compile_kernels([(name, src)])[name])
    assert case["triples"] == 64 * v.n * v.k and not case["anomalies"]
    checks = replay.check_wgmma(case, wgmma(v.n, v.ab_type, v.d_type, v.a_source, b=v.bt, saturate=v.saturate))
    assert all(not errs for _, errs in checks), checks


def test_satfinite_mma_sync_fragments_equal_the_saturate_atoms():
    from layoutalg.gpu import record
    from layoutalg.gpu.suite import MMA_VARIANTS

    rec = record.Recorder()
    for v in [x for x in MMA_VARIANTS if x.satfinite]:
        atom = get(v.ptx)
        assert atom.name.endswith("_SATURATE")
        checks = replay.check_mma(rec.mma(v), atom)
        assert all(not errs for _, errs in checks), (v.ptx, checks)


@pytest.mark.parametrize("name", ["SM90_64x16x8_F32TF32TF32_SS_TN", "SM90_64x24x32_F16E5M2E4M3_RS_TN",
                                  "SM90_64x48x32_S32U8U8_SS_TN_SATURATE"])
def test_fragment_check_runs_any_wgmma_atom(name):
    from layoutalg.gpu.fragment_check import check_wgmma

    report = check_wgmma(get(name), b_swizzle="B128")
    assert report.ok, report.text()

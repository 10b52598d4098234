"""The fresh data-flow kernels, run once on an H100 (``tools/verify_fresh_numerics.py``), replayed here.

The recording (``tests/data/kernels_fresh/gpu_numerics_h100.json``) holds, per kernel, how many C
elements differed from ``A @ B`` (small-integer inputs, so the comparison is exact).  What it must show
for the data-flow verdicts to be trusted: every kernel ``check_mma`` proves computed the right C on the
hardware, and every non-race planted bug computed a wrong one (a race may happen to agree in one run).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "data" / "kernels_fresh"
RECORDED = {row["kernel"]: row for row in json.loads((HERE / "gpu_numerics_h100.json").read_text())["rows"]}
MANIFEST = {**json.loads((HERE / "manifest.json").read_text()),
            **{name: {**e, "expect": {"verdict": "proved"}}
               for name, e in json.loads((HERE / "triton" / "triton.json").read_text()).items()}}


def test_every_fresh_kernel_ran_on_the_gpu_without_error():
    assert set(MANIFEST) <= set(RECORDED), sorted(set(MANIFEST) - set(RECORDED))
    assert not [name for name, row in RECORDED.items() if "error" in row]


@pytest.mark.parametrize("name", sorted(n for n, e in MANIFEST.items() if e["expect"]["verdict"] == "proved"))
def test_a_kernel_check_mma_proves_computed_every_c_element_right_on_the_gpu(name):
    assert RECORDED[name]["wrong_elements"] == 0, RECORDED[name]


@pytest.mark.parametrize("name", sorted(n for n, e in MANIFEST.items()
                                        if e["expect"]["verdict"] == "refuted" and e["expect"].get("kind") != "race"))
def test_a_planted_bug_check_mma_refutes_computed_a_wrong_c_on_the_gpu(name):
    assert RECORDED[name]["wrong_elements"] > 0, RECORDED[name]

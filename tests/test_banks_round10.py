"""Round 10 (``tests/data/h100_smem_round10.json``): 400 patterns as users' questions produce them -- one instance of
``layoutalg.banks.analyze`` over a random padded, XOR-swizzled tile of 1- to 8-byte elements, for every instruction
family (ld/st, ldmatrix/stmatrix, cp.async .ca/.cg with a global side) -- predicted by that analysis and committed
(``banks_round10_predictions.json``, by ``tools/banks_round10.py predict``) before they were measured twice on an
H100 with Nsight Compute.  Every prediction held; the model must keep reproducing every run."""

from __future__ import annotations

import json
import os

import pytest

import layoutalg.banks as banks

DATA = os.path.join(os.path.dirname(__file__), "data")
ROUND10 = json.load(open(os.path.join(DATA, "h100_smem_round10.json")))
PREDICTED = json.load(open(os.path.join(DATA, "banks_round10_predictions.json")))["cases"]


def test_every_pattern_was_measured_twice_and_predicted_before() -> None:
    cases = ROUND10["cases"]
    assert "H100" in ROUND10["meta"]["device"] and len(cases) == len(PREDICTED) == 400
    assert all(len(c["wavefronts_runs"]) == 2 for c in cases)
    assert {c["name"]: c["predicted"] for c in cases} == {c["name"]: c["predicted"] for c in PREDICTED}
    assert [c["predicted"] for c in cases] == [c["wavefronts_runs"][0] for c in cases]
    families = {c["instruction"].split(".")[0] for c in cases}
    assert families == {"ld", "st", "ldmatrix", "stmatrix", "cp"}


@pytest.mark.parametrize("case", ROUND10["cases"], ids=[c["name"] for c in ROUND10["cases"]])
def test_the_model_reproduces_every_run(case: dict) -> None:
    got = banks.wavefronts(case["instruction"], case["lane_byte_addresses"],
                           global_byte_addresses=case.get("global_byte_addresses"))
    assert all(got == measured for measured in case["wavefronts_runs"])

"""The mma check and the race check against independent answers on generated kernels (tests/dataflow_synth.py).

Each generated mma kernel plants zero to two mutations (an element address moved, a D element stored
to the wrong C element, the accumulator chain permuted); the answer comes from the PTX ISA fragment
formulas re-typed in tests/oracles/ptx_fragments.py.  "proved" must come exactly when the answer is
yes, and a single moved operand element must be the counterexample.  The race kernels' answer is the
pairwise definition of a race by barrier epochs.
"""

from __future__ import annotations

import random

import pytest
from dataflow_synth import mma_kernel, mma_truth, race_kernel, race_truth, random_mma_case, random_race_case

from layoutalg.kernel import trace
from layoutalg.kernel.dataflow import check_mma
from layoutalg.kernel.ptx import parse_module

SPECS = {"a": "pA@(16,32):(32,1)", "b": "pB@(32,8):(8,1)", "c": "pC@(16,8):(8,1)"}


def run_mma(case):
    t = trace(parse_module(mma_kernel(case)), block=32)
    return check_mma(t, **SPECS)


def test_unmutated_generated_kernel_is_proved_with_every_packing():
    for packing in ("mov", "prmt", "shift"):
        from dataflow_synth import MmaCase

        r = run_mma(MmaCase(packing=[packing] * 12))
        assert r.verdict == "proved", (packing, r.reason)


@pytest.mark.parametrize("seed", range(24))
def test_mma_verdict_matches_the_fragment_oracle_on_generated_kernels(seed):
    rng = random.Random(1000 + seed)
    case = random_mma_case(rng, mutate=seed % 4 != 0)
    r = run_mma(case)
    truth = mma_truth(case)
    assert r.verdict == ("proved" if truth else "refuted"), (case.mutations, r.reason)
    moved = [m for m in case.mutations if m[0] in ("A", "B")]
    if len(case.mutations) == 1 and moved and not truth:
        kind, step, lane, i, _ = moved[0]
        cex = r.counterexample
        assert (cex["operand"], cex["lane"], cex["element"]) == (kind, lane, i), (case.mutations, cex)


def test_accumulator_chain_permutation_is_refuted_at_the_second_mma_c_input():
    from dataflow_synth import MmaCase

    r = run_mma(MmaCase(mutations=[("chain", 0, 1)]))
    assert r.verdict == "refuted" and r.counterexample["kind"] == "accumulator"
    assert r.counterexample["operand"] == "C" and "C(" in r.counterexample["held"]


def test_a_store_to_the_wrong_c_element_is_refuted_at_that_element():
    from dataflow_synth import MmaCase, _c_offset

    base = _c_offset(5, 2)
    r = run_mma(MmaCase(mutations=[("C", 5, 2, 1)]))
    assert r.verdict == "refuted" and r.counterexample["kind"] == "store"
    m, n = r.counterexample["element"]
    assert m * 8 + n in (base, base + 1)


@pytest.mark.parametrize("seed", range(40))
def test_race_verdict_matches_the_epoch_definition(seed):
    rng = random.Random(seed)
    phases = random_race_case(rng)
    t = trace(parse_module(race_kernel(phases)), block=64)
    from layoutalg.kernel.dataflow import flow

    races = flow(t.launch).races
    assert bool(races) == race_truth(phases), (phases, races)

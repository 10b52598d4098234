"""Shared-memory atomics in the bank model (rule 6 of :mod:`layoutalg.banks.model`), replayed against the hardware.

Round 9 (``tests/data/h200_smem_atomics_round9.json``): 288 patterns of nine atomic forms measured twice on an
H200 with Nsight Compute, from which the rule was read; round 9b (``..._round9b.json``): 320 patterns of six more
forms and of partial warps, predicted by the model and committed (``banks_round9b_predictions.json``) before they
were measured.  An independent oracle written from the rule's statement checks the scalar and vector models on
random warps.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg.banks as banks
from layoutalg.banks.instruction import ATOMIC_FORMS, parse_instruction
from layoutalg.errors import InstructionError
from layoutalg.gpu.banks_ncu import ATOMIC_MODEL_TEXT

DATA = os.path.join(os.path.dirname(__file__), "data")
ROUND9 = json.load(open(os.path.join(DATA, "h200_smem_atomics_round9.json")))["cases"]
ROUND9B = json.load(open(os.path.join(DATA, "h200_smem_atomics_round9b.json")))["cases"]
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"
MODEL_TEXT = ATOMIC_MODEL_TEXT  # the probes whose name is not the model's text (the added value decides the SASS)


def lanes(case: dict) -> list[int | None]:
    live = case.get("active") or [True] * 32
    return [a if on else None for a, on in zip(case["lane_byte_addresses"], live)]


def oracle(text: str, addrs: list[int | None]) -> int:
    """Rule 6 from its statement: a store's phases; a phase costs its busiest bank's lane count (every lane a pass,
    a 64-bit lane in both its banks), twice for cas; the merged increment (red.add.u32 of 1) costs distinct words
    per bank."""
    wide = ".b64" in text or ".u64" in text or ".s64" in text
    per = 16 if wide else 32
    merged = text.startswith("red.shared.add.u32, 1") or text == "red.shared.add.u32, 1"
    total = 0
    for start in range(0, 32, per):
        by_bank: dict[int, list[int]] = {}
        for lane in range(start, start + per):
            a = addrs[lane]
            if a is None:
                continue
            for word in range(a // 4, a // 4 + (2 if wide else 1)):
                by_bank.setdefault(word % 32, []).append(word)
        if merged:
            total += max((len(set(ws)) for ws in by_bank.values()), default=0)
        else:
            total += max((len(ws) for ws in by_bank.values()), default=0) * (2 if ".cas." in text else 1)
    return total


def test_both_rounds_were_measured_twice_with_every_count_repeated() -> None:
    assert len(ROUND9) == 288 and len(ROUND9B) == 320
    for case in ROUND9 + ROUND9B:
        assert len(case["wavefronts_runs"]) == 2 and len(set(case["wavefronts_runs"])) == 1
        assert len({run[CONFLICTS] for run in case["metrics_runs"]}) == 1


@pytest.mark.parametrize("case", ROUND9 + ROUND9B, ids=[c["name"] for c in ROUND9 + ROUND9B])
def test_the_model_reproduces_every_atomic_measurement(case: dict) -> None:
    text = MODEL_TEXT.get(case["instruction"], case["instruction"])
    addrs = lanes(case)
    rep = banks.report(text, addrs)
    assert rep.wavefronts == banks.wavefronts(text, addrs) == case["wavefronts_runs"][0] == oracle(text, addrs)
    # Nsight's atom conflict counter counts extra passes: excess in wavefronts over the wavefronts of one pass
    passes_excess = rep.excess // (2 if ".cas." in text else 1)
    assert passes_excess == case["metrics_runs"][0][CONFLICTS]
    live = np.array([case.get("active") or [True] * 32])
    wf, ideal = banks.wavefronts_many(text, np.array([case["lane_byte_addresses"]]), active=live)
    assert (int(wf[0]), int(ideal[0])) == (rep.wavefronts, rep.ideal)


def test_round_9b_was_predicted_exactly_before_it_was_measured() -> None:
    assert all(c["predicted"] == [c["wavefronts_runs"][0], c["metrics_runs"][0][CONFLICTS]] for c in ROUND9B)
    assert sum("active" in c for c in ROUND9B) == 128  # partial warps of four forms


def test_lanes_of_one_word_are_passes_of_their_own_unlike_a_store() -> None:
    one_word = [64] * 32
    assert banks.wavefronts("st.shared.b32", one_word) == 1
    assert banks.wavefronts("atom.shared.add.u32", one_word) == 32
    assert banks.wavefronts("atom.shared.cas.b32", one_word) == 64
    assert banks.wavefronts("red.shared.add.u32, 1", one_word) == 1  # ATOMS.POPC.INC merges them
    assert banks.wavefronts("red.shared.add.s32, 1", one_word) == 32  # ATOMS.ADD.S32: no merging
    rep = banks.report("atom.shared.add.u32", one_word)
    assert (rep.ideal, rep.excess, rep.phases[0].conflicts[0].ways) == (1, 31, 32)


def test_every_bank_serving_two_or_more_passes_is_listed_with_its_lanes() -> None:
    # lanes 0 and 1 update word 0 (2 passes of bank 0), lanes 2-4 words 1, 33, 65 (3 passes of bank 1), others apart
    addrs = [0, 0, 4, 132, 260] + [4 * k for k in range(2, 29)]
    rep = banks.report("atom.shared.add.u32", addrs)
    listed = {use.bank: (use.ways, use.words, use.lanes) for use in rep.phases[0].conflicts}
    assert listed == {0: (2, (0,), ((0, 1),)), 1: (3, (1, 33, 65), ((2,), (3,), (4,)))}
    assert rep.wavefronts == 3 and rep.ideal == 1


def test_parse_reads_the_single_atoms_forms_and_refuses_the_loops() -> None:
    assert parse_instruction("atom.shared::cta.relaxed.cta.add.u32").canonical == "atom.shared.add.u32"
    assert parse_instruction("atom.shared.cas.b64").access_bytes == 8
    assert parse_instruction("red.shared.add.u32, 1").merged_increment
    assert not parse_instruction("red.shared.add.u32").merged_increment
    assert not parse_instruction("atom.shared.add.u32, 1").merged_increment  # atom keeps its result: ATOMS.ADD
    # PTX lines as the compiler writes them: a red (or an atom into the sink _) of 1 is the merged increment
    assert parse_instruction("red.shared.add.u32 [%r5], 1;").merged_increment
    assert parse_instruction("atom.shared.add.u32 _, [%r5], 1;").merged_increment
    assert not parse_instruction("atom.shared.add.u32 %r1, [%r5], 1;").merged_increment
    assert parse_instruction("red.shared.or.b32 [%r5], 1;").canonical == "red.shared.or.b32"
    assert all(parse_instruction(f"atom.shared.{op}.{t}").access_bytes == w for (op, t), w in ATOMIC_FORMS.items())
    for text, why in [("atom.shared.add.f32", "compare-and-swap loop"), ("atom.shared.add.u64", "compare-and-swap loop"),
                      ("atom.shared.min.s64", "compare-and-swap loop"), ("red.shared.cas.b32", "red has no .cas"),
                      ("atom.shared.add.u32.v2", "unknown qualifier"), ("atom.shared.add", "exactly one operation"),
                      ("atom.global.add.u32", "not a shared-memory instruction")]:
        with pytest.raises(InstructionError, match=why):
            parse_instruction(text)


ATOMIC_TEXTS = ["atom.shared.add.u32", "atom.shared.exch.b32", "atom.shared.cas.b32", "atom.shared.min.s32",
                "red.shared.add.u32, 1", "red.shared.xor.b32", "atom.shared.exch.b64", "atom.shared.cas.b64"]


@st.composite
def atomic_warp(draw: st.DrawFn) -> tuple[str, list[int | None]]:
    text = draw(st.sampled_from(ATOMIC_TEXTS))
    unit = 8 if ".b64" in text else 4
    slots = draw(st.sampled_from([2, 8, 64, 512]))
    addrs = [unit * draw(st.integers(0, slots - 1)) for _ in range(32)]
    active = draw(st.lists(st.booleans(), min_size=32, max_size=32))
    return text, [a if on else None for a, on in zip(addrs, active)]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(atomic_warp())
def test_scalar_and_vector_models_follow_the_rule_on_random_partial_warps(case: tuple[str, list[int | None]]) -> None:
    text, addrs = case
    expected = oracle(text, addrs)
    assert banks.wavefronts(text, addrs) == banks.report(text, addrs).wavefronts == expected
    live = np.array([[a is not None for a in addrs]])
    filled = np.array([[a or 0 for a in addrs]])
    assert int(banks.wavefronts_many(text, filled, active=live)[0][0]) == expected

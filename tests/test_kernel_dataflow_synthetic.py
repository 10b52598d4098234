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

from layoutalg.kernel import check_mma, trace
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


# ----------------------------------------------------------------------------- tags vs exact values
class StoreRecorder:
    """A consumer that keeps the tag of every unit stored to global memory (buffer, unit offset) -> tag."""

    def __init__(self) -> None:
        self.units: dict[tuple[int, int], int] = {}

    def begin(self, fn, params, launch) -> None:
        pass

    def batch(self, state, first) -> None:
        pass

    def end(self) -> None:
        pass

    def operand_buffers(self) -> set:
        return set()

    def global_store(self, m, op, threads, buf, offs, vals, ew) -> None:
        for b, row, tags in zip(buf.tolist(), offs.tolist(), vals.tolist()):
            for off, tag in zip(row, tags):
                self.units[(b, off // 2)] = tag


def _final_values(ptx: str) -> list:
    from layoutalg.kernel.args import pack_params
    from layoutalg.kernel.interp.geometry import Geometry
    from layoutalg.kernel.interp.program import build_image, run
    from layoutalg.kernel.records import Recorder
    from layoutalg.kernel.source import select_entry

    module = parse_module(ptx)
    fn = select_entry(module, None)
    params = pack_params(fn.params, {})
    image = build_image(module, fn, params.data, params.offsets, len(params.buffers), 0)
    machine = run(image, Geometry((1, 1, 1), (32, 1, 1), [(0, 0, 0)]), Recorder(), 100_000)
    return [machine.regs[f"%w{j}"] for j in range(8)]


def _compare(prog) -> tuple[int, int]:
    """(units whose tag says where they came from, OPAQUE units); asserts every claim against the values."""
    import numpy as np
    from dataflow_synth import ID_BASE, WORDS, move_kernel

    from layoutalg.kernel.dataflow import flow, launch_of
    from layoutalg.kernel.dataflow import tags as tg

    rec = StoreRecorder()
    flow(launch_of(parse_module(move_kernel(prog, values=False)), block=32), rec)
    values = _final_values(move_kernel(prog, values=True))
    claimed = opaque = 0
    for j, v in enumerate(values):
        bits = np.broadcast_to(np.asarray(v.bits, dtype=np.uint64), (32,))
        known = np.broadcast_to(np.asarray(v.known), (32,))
        for lane in range(32):
            for u in range(2):
                tag = rec.units[(1, 16 * lane + 2 * j + u)]
                value = int(bits[lane] >> np.uint64(16 * u)) & 0xFFFF
                where = f"lane {lane} w{j} unit {u}: tag {tg.describe(tag)}, value {value:#x}"
                if tg.kind(tag) == tg.K_OPAQUE:
                    opaque += 1
                    continue
                assert known[lane], where  # every op here is exact on known inputs
                if tag == tg.ZERO:
                    assert value == 0, where
                elif tag < 0:
                    assert not ID_BASE <= value < ID_BASE + 2 * 32 * WORDS, where  # no loaded unit escaped
                else:
                    assert tg.kind(tag) == tg.K_GLOBAL and int(tg.glob_buf(tag)) == 0, where
                    assert value == ID_BASE + int(tg.glob_off(tag)) // 2, where
                    claimed += 1
    return claimed, opaque


@pytest.mark.parametrize("seed", range(16))
def test_unit_tags_name_exactly_the_loaded_units_the_values_hold_for_clean_moves(seed):
    from dataflow_synth import move_program

    claimed, opaque = _compare(move_program(random.Random(seed), 30, allow_split=False))
    assert opaque == 0 and claimed > 0


@pytest.mark.parametrize("seed", range(16))
def test_unit_tags_are_never_wrong_when_moves_split_units(seed):
    from dataflow_synth import move_program

    _compare(move_program(random.Random(500 + seed), 30, allow_split=True))


@pytest.mark.parametrize("wait,barrier,other,groups,race", [
    (None, False, False, 1, "read of a cp.async not yet waited for"),
    ("0", False, False, 1, None),
    ("all", False, False, 1, None),
    ("0", False, True, 1, "read after write"),
    ("0", True, True, 1, None),
    (None, True, True, 1, "read of a cp.async not yet waited for"),
    ("1", True, True, 2, "read of a cp.async not yet waited for"),  # wait_group 1 leaves the newest pending
    ("0", True, True, 2, None),
])
def test_cp_async_reads_race_until_waited_for_and_published_by_a_barrier(wait, barrier, other, groups, race):
    from dataflow_synth import async_kernel

    from layoutalg.kernel.dataflow import flow, launch_of

    races = flow(launch_of(parse_module(async_kernel(wait, barrier, other, groups)), block=64)).races
    if race is None:
        assert races == []
    else:
        assert races and races[0].kind.startswith(race)
        assert races[0].first != races[0].second


def test_an_operand_address_loaded_from_global_memory_makes_the_check_unknown():
    from dataflow_synth import MmaCase

    text = mma_kernel(MmaCase())
    # lane 0 adds a word loaded from C's buffer (unknown at trace time) to one A element address
    text = text.replace("  ld.global.u16 %h1, [%rd12];",
                        "  ld.global.u32 %r999, [%rd3];\n  cvt.u64.u32 %rd500, %r999;\n"
                        "  add.s64 %rd501, %rd12, %rd500;\n  ld.global.u16 %h1, [%rd501];", 1)
    assert "%rd501" in text
    r = check_mma(trace(parse_module(text), block=32), **SPECS)
    assert r.verdict == "unknown" and "address is unknown" in r.reason


FMA_SPECS = {"a": "pA@(4,8):(8,1)", "b": "pB@(8,8):(8,1)", "c": "pC@(4,8):(8,1)"}


@pytest.mark.parametrize("seed", range(16))
def test_scalar_fma_gemm_is_proved_exactly_when_unmutated(seed):
    from dataflow_synth import fma_kernel, random_fma_mutation

    rng = random.Random(77 + seed)
    mutations = [] if seed % 4 == 0 else [random_fma_mutation(rng)]
    r = check_mma(trace(parse_module(fma_kernel(mutations)), block=32), **FMA_SPECS)
    assert r.verdict == ("refuted" if mutations else "proved"), (mutations, r.reason)
    if mutations and mutations[0][0] in ("a", "b"):  # the mutated lane's product at that k is the counterexample
        assert (r.counterexample["kind"], r.counterexample["lane"]) == ("fma", mutations[0][2]), (mutations, r.reason)
    if mutations and mutations[0][0] == "dup":
        assert r.counterexample["kind"] == "duplicate"

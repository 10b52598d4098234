"""Every corpus kernel (tests/data/kernels), traced over its whole grid, predicts Nsight Compute's counters.

For each kernel, every counter of ``layoutalg.kernel.counters.ALL_COUNTERS`` is compared with every
ncu run of ``measured.json`` (two, plus the JIT run of Triton's sm_80 PTX): exactly equal, except the counters the trace itself names as
incomplete (``Trace.incomplete_counters``).  Which instructions make a counter incomplete, and why,
is stated below from reading each kernel's source and PTX (not from the trace's output), and the
test checks the trace reports exactly that: the data-dependent accesses of the two kernels built to
have them, and Triton's zero-filled ``cp.async.cg`` (src-size 0 beyond K), which the bank model was
never measured on.  Where a counter is incomplete, the modelled part must still be a lower bound.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest

from layoutalg.kernel import counters as ctr
from layoutalg.kernel import trace
from layoutalg.kernel.costing import ZERO_FILL_REASON

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "data", "kernels")
NAMES = sorted(n for n in os.listdir(CORPUS) if os.path.exists(os.path.join(CORPUS, n, "measured.json")))


@dataclass(frozen=True)
class Expected:
    """What a kernel's trace must leave open: (line, opcode, scope) data-dependent, (line, reason) unmodelled
    with warp executions, and the counters they feed."""

    data_dependent: frozenset[tuple[int, str, str]] = frozenset()
    unmodelled: dict[tuple[int, str], int] = field(default_factory=dict)
    incomplete: frozenset[str] = frozenset()
    timing: dict[str, int] = field(default_factory=dict)  # counter -> the most the runs rise above the prediction


# Triton's pipelined loop issues the cp.async of k-tiles 2 and 3 with src-size 16 and those of tiles 4 and 5
# (past K = 128 with BLOCK_K = 32) with src-size 0: 4 CTAs x 4 warps x 2 iterations = 32 zero-filled warps
# per instruction (the prologue's tiles 0 and 1 read every byte).
_ZERO_FILL = frozenset({ctr.LDGSTS_BYPASS, ctr.SASS_LDGSTS_WAVEFRONTS})
EXPECTED: dict[str, Expected] = {
    # gather_smem: t[idx[i]] with idx loaded from global memory, 8 CTAs x 8 warps
    "gather_smem": Expected(frozenset({(79, "ld.shared.f32", "address")}),
                            incomplete=frozenset({ctr.LD_WAVEFRONTS, ctr.SASS_LD_WAVEFRONTS, ctr.LD_CONFLICTS})),
    # histogram_smem: atomicAdd(&bins[data[i]], 1)
    "histogram_smem": Expected(frozenset({(79, "atom.shared.add.u32", "address")}),
                               incomplete=frozenset({ctr.ATOM_WAVEFRONTS, ctr.SASS_ATOM_WAVEFRONTS, ctr.ATOM_CONFLICTS})),
    "triton_matmul_sm80": Expected(unmodelled={(line, ZERO_FILL_REASON): 32 for line in (343, 347, 354, 358)},
                                   incomplete=_ZERO_FILL),
    "triton_matmul_sm90": Expected(unmodelled={(line, ZERO_FILL_REASON): 32 for line in (322, 326, 333, 337)},
                                   incomplete=_ZERO_FILL),
    # hunt_cpasync_zfill: cp.async.ca 4- and 8-byte copies whose src-size is 0 past n (the last CTA's tail)
    "hunt_cpasync_zfill": Expected(unmodelled={(57, ZERO_FILL_REASON): 6, (81, ZERO_FILL_REASON): 15},
                                   incomplete=frozenset({ctr.LDGSTS_ACCESS, ctr.SASS_LDGSTS_WAVEFRONTS,
                                                         ctr.LDGSTS_CONFLICTS})),
    # hunt_triton_attn_sm80: twelve ncu runs (measured.json and measured_repeats.json) give 1280 or 1281 ld
    # wavefronts (seven of them 1281) and 0-2 ld bank conflicts, in the ptxas build and the driver's JIT build alike:
    # a timing-dependent extra wavefront (its ldmatrix reads run while its cp.async writes land), outside a model of
    # each instruction alone.  The prediction must be the least count measured.
    "hunt_triton_attn_sm80": Expected(timing={ctr.LD_WAVEFRONTS: 1, ctr.LD_CONFLICTS: 2}),
}
# Hopper instructions outside the LSU shared-memory pipe, listed as such (never counted)
NOT_LSU = {"triton_matmul_sm90": {"wgmma"}, "triton_matmul_tma_sm90": {"wgmma", "mbarrier", "cp.async.bulk"}}


def _launch(name: str) -> dict[str, Any]:
    with open(os.path.join(CORPUS, name, "launch.json")) as fh:
        return json.load(fh)


@cache
def traced(name: str) -> Any:
    launch = _launch(name)
    ptx = os.path.normpath(os.path.join(CORPUS, name, launch["ptx"]))
    return trace(ptx, kernel=launch["kernel"], grid=launch["grid"], block=launch["block"], args=launch["args"],
                 dynamic_smem=launch["dynamic_smem"], keep_accesses=False)


def measured(name: str) -> list[dict[str, float]]:
    """Every ncu run of the kernel: the two of the ptxas-built cubin, and for Triton's sm_80 PTX the driver's
    JIT build on the sm_90 device too (plus any repeats, measured_repeats.json)."""
    with open(os.path.join(CORPUS, name, "measured.json")) as fh:
        runs = json.load(fh)["runs"]
    assert {"ncu_run1", "ncu_run2"} <= set(runs) and all("error" not in r for r in runs.values())
    repeats = os.path.join(CORPUS, name, "measured_repeats.json")
    if os.path.exists(repeats):
        with open(repeats) as fh:
            runs = {**runs, **json.load(fh)["runs"]}
    return list(runs.values())


@pytest.mark.parametrize("name", NAMES)
def test_every_exact_counter_equals_every_nsight_run(name: str) -> None:
    t = traced(name)
    incomplete = t.incomplete_counters
    predicted = t.counters
    timing = EXPECTED.get(name, Expected()).timing
    wrong = {}
    for counter in ctr.ALL_COUNTERS:
        values = [int(run[counter]) for run in measured(name)]
        if counter in timing:
            assert predicted[counter] == min(values) and max(values) <= predicted[counter] + timing[counter], \
                (counter, predicted[counter], sorted(values))
            continue
        for value in values:
            if counter in incomplete:
                assert predicted[counter] <= value, (counter, "the modelled part must be a lower bound")
            elif predicted[counter] != value:
                wrong[counter] = (predicted[counter], value)
    assert not wrong, f"predicted vs measured: {wrong}"
    # a counter marked timing-dependent must really vary between runs
    assert all(len({int(run[c]) for run in measured(name)}) > 1 for c in timing)


@pytest.mark.parametrize("name", NAMES)
def test_what_is_left_open_is_exactly_what_the_kernel_makes_unknowable(name: str) -> None:
    t = traced(name)
    want = EXPECTED.get(name, Expected())
    assert {(d.line, d.opcode, d.scope) for d in t.data_dependent} == set(want.data_dependent)
    assert {(u["line"], u["reason"]): u["warp_executions"] for u in t.unmodelled} == want.unmodelled
    assert set(t.incomplete_counters) == set(want.incomplete)
    assert t.complete == (not want.data_dependent and not want.unmodelled and not want.incomplete)


@pytest.mark.parametrize("name", NAMES)
def test_hopper_async_instructions_are_listed_outside_the_lsu_pipe(name: str) -> None:
    families = set()
    for d in traced(name).not_lsu:
        parts = d.opcode.split(".")
        families.add("cp.async.bulk" if parts[:3] == ["cp", "async", "bulk"] else parts[0])
    assert families == NOT_LSU.get(name, set())


def test_data_dependent_warps_still_count_as_executed_instructions() -> None:
    # gather_smem's only LDS has data-dependent addresses in all 64 warps: the instruction count is exact
    t = traced("gather_smem")
    (s,) = [s for s in t.instructions if s.kind == "ld"]
    assert (s.executions, s.data_dependent, s.modelled_executions) == (64, 64, 0)
    assert t.counters[ctr.INST_LD] == 64 == int(measured("gather_smem")[0][ctr.INST_LD])


@pytest.mark.parametrize("name", NAMES)
def test_the_sass_holds_the_accesses_the_trace_costs(name: str) -> None:
    # every access width the traced PTX produces (tensormap.replace expanded as ptxas does) is in the SASS,
    # and no other: no merged or split access in the corpus (layoutalg.kernel.sass.compare)
    from layoutalg.kernel.ptx import parse_module
    from layoutalg.kernel.sass import compare
    from layoutalg.kernel.source import select_entry

    launch = _launch(name)
    with open(os.path.normpath(os.path.join(CORPUS, name, launch["ptx"]))) as fh:
        fn = select_entry(parse_module(fh.read()), launch["kernel"])
    with open(os.path.normpath(os.path.join(CORPUS, name, launch["sass"]))) as fh:
        assert compare(fn, fh.read()) == []

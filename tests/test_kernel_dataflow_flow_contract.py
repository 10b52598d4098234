"""The data-flow driver (layoutalg/kernel/dataflow/flow.py): a launch larger than one batch of threads gives the
same incidents as the definition per CTA says (each CTA's race counted once per unit access, merged into one
race per pair of instructions), every CTA traced; ``flow_of_trace`` runs the launch a Trace carries."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import kernel, run

from layoutalg.errors import KernelError
from layoutalg.kernel import trace
from layoutalg.kernel.dataflow import flow
from layoutalg.kernel.dataflow.flow import DEFAULT_BATCH_THREADS, flow_of_trace
from layoutalg.kernel.ptx import parse_module

RACE = ["ld.global.u32 %r2, [%rd4];", "mov.u32 %r10, sm;", "and.b32 %r12, %r1, 31;",
        "mad.lo.u32 %r11, %r12, 4, %r10;", "setp.lt.u32 %p1, %r1, 32;", "@%p1 st.shared.u32 [%r11], %r2;",
        "@!%p1 ld.shared.u32 %r4, [%r11];"]


@pytest.mark.parametrize("grid", [1, 2, 3 * DEFAULT_BATCH_THREADS // 64 + 5])
def test_races_of_every_cta_merge_into_one_per_instruction_pair(grid: int) -> None:
    _, res = run(RACE, block=64, grid=grid)
    assert len(res.races) == 1
    r = res.races[0]
    assert r.count == 64 * grid and r.cta == 0  # 32 lanes x 2 units per CTA; the first example is CTA 0's
    assert res.whole_grid and len(res.traced_ctas) == grid
    assert sorted(res.traced_ctas) == sorted((x, 0, 0) for x in range(grid))


def test_flow_of_trace_runs_the_launch_the_trace_carries() -> None:
    t = trace(parse_module(kernel(RACE)), block=64)
    res = flow_of_trace(t)
    assert [(r.count, r.first_warp, r.second_warp) for r in res.races] == \
        [(r.count, r.first_warp, r.second_warp) for r in flow(t.launch).races] == [(64, 0, 1)]
    with pytest.raises(KernelError, match="does not carry its launch"):
        flow_of_trace(object())


def test_a_launch_of_some_ctas_traces_those_and_says_it_is_not_the_whole_grid() -> None:
    from layoutalg.kernel.dataflow import launch_of

    module = parse_module(kernel(RACE))
    res = flow(launch_of(module, grid=(4, 3), block=64, ctas=[(0, 0, 0), (2, 1, 0)]))
    assert not res.whole_grid and sorted(res.traced_ctas) == [(0, 0, 0), (2, 1, 0)]
    assert [r.count for r in res.races] == [128]
    every = [(x, y, z) for z in range(2) for y in range(3) for x in range(2)]
    res = flow(launch_of(module, grid=(2, 3, 2), block=64, ctas=every))
    assert res.whole_grid and [r.count for r in res.races] == [64 * 12]


class _BatchStarts:
    """A flow consumer keeping the first CTA index of every batch it is handed."""

    def __init__(self) -> None:
        self.firsts: list[int] = []

    def begin(self, fn: object, params: object, launch: object) -> None:
        pass

    def batch(self, state: object, first: int) -> None:
        self.firsts.append(first)

    def end(self) -> None:
        pass

    def operand_buffers(self) -> set:
        return set()


@pytest.mark.parametrize(("block", "batch_threads", "per_batch"), [
    ((1, 2, 64), 384, 3),  # 128 threads: 4 whole warps a CTA, 384 // 128 = 3 CTAs a batch
    ((32, 1, 1), 62, 1),  # one warp a CTA: 62 // 32 = 1
    ((5, 3, 2), 64, 2),  # 30 threads occupy one whole warp: 64 // 32 = 2
])
def test_a_batch_holds_as_many_ctas_as_batch_threads_fit_whole_warps(block: tuple[int, int, int], batch_threads: int,
                                                                       per_batch: int) -> None:
    from layoutalg.kernel.dataflow import launch_of

    starts = _BatchStarts()
    flow(launch_of(parse_module(kernel([])), grid=12, block=block), consumer=starts, batch_threads=batch_threads)
    assert starts.firsts == list(range(0, 12, per_batch))


def test_a_batch_keeps_its_shared_memory_tag_state_within_max_shared_state() -> None:
    # one warp per CTA with the sm_90 maximum of 227 KiB dynamic shared memory: the shared state each CTA needs
    # (per 2-byte unit BYTES_PER_UNIT, plus BYTES_PER_UNIT_AND_WARP per warp, shared.py) caps a batch well below
    # DEFAULT_BATCH_THREADS / 32 CTAs; every CTA is still traced
    from layoutalg.kernel.dataflow.flow import MAX_SHARED_STATE, launch_of
    from layoutalg.kernel.dataflow.shared import BYTES_PER_UNIT, BYTES_PER_UNIT_AND_WARP

    smem = 227 * 1024
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.extern .shared .align 16 .b8 dyn[];\n"
           ".visible .entry k()\n{\nret;\n}\n")
    grid = 80
    res = flow(launch_of(ptx, grid=grid, block=32, dynamic_smem=smem))
    per_cta = (smem // 2) * (BYTES_PER_UNIT + BYTES_PER_UNIT_AND_WARP * 1)
    assert res.geometry.n_ctas * per_cta <= MAX_SHARED_STATE < grid * per_cta
    assert res.whole_grid and len(res.traced_ctas) == grid

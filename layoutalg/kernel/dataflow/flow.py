"""``flow``: interpret one launch with data-flow tags (the interpreter plus :mod:`.rules`).

The launch is the one a :class:`~layoutalg.kernel.result.Trace` was made from (``trace.launch``) or
given directly.  CTAs are interpreted in batches as ``trace`` does (no communication between CTAs is
modelled); a *consumer* (the mma check) sees every mma, A x B fma and global store.  The result
lists the races, what the model could not follow, the interpreter's data-dependence incidents and,
for CTA 0 of the launch, every shared-memory access with its tags (for layout recovery).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.args import pack_params
from layoutalg.kernel.dataflow.globalmem import GlobalWrites
from layoutalg.kernel.dataflow.rules import install
from layoutalg.kernel.dataflow.shared import BYTES_PER_UNIT, BYTES_PER_UNIT_AND_WARP, Race
from layoutalg.kernel.dataflow.state import FlowMachine, FlowState, Samples
from layoutalg.kernel.interp.decode import Op
from layoutalg.kernel.interp.geometry import Geometry, all_ctas, check_ctas, dim3
from layoutalg.kernel.interp.program import build_image, decode
from layoutalg.kernel.ptx.nodes import Function, Module
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.records import Incident, Recorder
from layoutalg.kernel.source import load_ptx, select_entry

DEFAULT_BATCH_THREADS = 1 << 12
MAX_SHARED_STATE = 1 << 28  # bytes of shared-memory tags and race metadata per batch


@dataclass
class Launch:
    """Everything needed to interpret a launch again (``Trace.launch`` holds one)."""

    module: Module
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: dict[Any, Any]
    dynamic_smem: int
    arch: str
    ctas: list[tuple[int, int, int]] | None
    step_budget: int


@dataclass
class LaunchFlow:
    """State that spans the batches of one launch: global stores, what could not be followed."""

    writes: GlobalWrites = field(default_factory=GlobalWrites)
    unknown_stores: dict[int, int] = field(default_factory=dict)
    overlaps: dict[int, int] = field(default_factory=dict)

    def unknown_store(self, op: Any) -> None:
        self.unknown_stores[op.index] = op.ins.line

    def read_then_written(self, op: Any) -> None:
        """A global store to memory another thread of the launch loaded: their order decides what it read."""
        self.overlaps[op.index] = op.ins.line


@dataclass
class FlowResult:
    """What :func:`flow` found (see the module doc)."""

    fn: Function
    geometry: Any
    buffers: list[str]
    shared_layout: dict[str, int]
    races: list[Race]  # in the order the interpretation met them (batch by batch)
    unfollowed: dict[int, str]
    sync_unmodelled: dict[int, str]
    data_dependent: list[Incident]
    unknown_stores: dict[int, int]
    overlaps: dict[int, int]
    samples: dict[int, Samples]
    traced_ctas: list[tuple[int, int, int]]
    whole_grid: bool
    steps: int = 0
    seconds: float = 0.0
    loose_barriers: dict[int, str] = field(default_factory=dict)  # op index -> why its phases order nothing
    # the (kind, first op, second op) of the races met with every counted barrier's phases as the trace formed
    # them (one legal execution: those races are real); None when no barrier turned out unforced (all of them)
    sure_races: set[tuple[str, int, int]] | None = None

    def line(self, op_index: int) -> int:
        return self.fn.body[op_index].line

    def opcode(self, op_index: int) -> str:
        return self.fn.body[op_index].opcode


def launch_of(ptx: Any, kernel: str | None = None, grid: Any = 1, block: Any = 128, args: Any = None,
              dynamic_smem: int = 0, arch: str = "sm_90", ctas: Any = None, step_budget: int = 2_000_000) -> Launch:
    """A :class:`Launch` from ``trace``'s arguments (PTX text, path or parsed module)."""
    if isinstance(ptx, Module):
        module = ptx
    else:
        text, _ = load_ptx(ptx, arch, ())
        module = parse_module(text)
    fn = select_entry(module, kernel)
    g = dim3(grid, "grid")
    chosen = check_ctas(ctas, g) if ctas is not None else None
    return Launch(module, fn.name, g, dim3(block, "block"), dict(args or {}), dynamic_smem, arch, chosen, step_budget)


MAX_RUNS = 64  # interpretations of one launch while counted barriers turn out unforced (each run adds one or more)


def flow(launch: Launch, consumer: Any = None, batch_threads: int = DEFAULT_BATCH_THREADS) -> FlowResult:
    """Interpret ``launch`` with tags; ``consumer`` (optional) sees mma, fma and global stores.

    A counted barrier whose phases turn out not forced (:meth:`~.state.FlowState.barrier_arrive`: a later
    arrival could have taken a place in an earlier phase) was taken as ordering warps while the launch ran, so
    the launch is interpreted again with that barrier ordering nothing in that CTA (the consumer's ``restart()``
    clears what it saw), until no new one turns up.  The races of the first run (the trace's own phases: one
    legal execution) are real; ``FlowResult.sure_races`` names them, the others may be artefacts of dropping
    an order some other reasoning would prove."""
    start = time.perf_counter()
    unforced: set[tuple[int, int]] = set()
    notes: dict[int, str] = {}
    sure: set[tuple[str, int, int]] | None = None
    for _ in range(MAX_RUNS):
        result, found = _flow_once(launch, consumer, batch_threads, unforced)
        for index, why in result.loose_barriers.items():
            notes.setdefault(index, why)
        if found <= unforced:
            result.loose_barriers = notes
            result.sure_races = sure
            result.seconds = time.perf_counter() - start
            return result
        if sure is None:  # the first run: the trace's own phases, a legal execution
            sure = {(r.kind, r.first, r.second) for r in result.races}
        unforced |= found
        if consumer is not None and hasattr(consumer, "restart"):
            consumer.restart()
    raise KernelError(f"counted barriers kept turning out unforced after {MAX_RUNS} interpretations of the launch")


def _flow_once(launch: Launch, consumer: Any, batch_threads: int,
               unforced: set[tuple[int, int]]) -> tuple[FlowResult, set[tuple[int, int]]]:
    """One interpretation of ``launch`` with the (launch CTA index, barrier) pairs ``unforced`` ordering nothing;
    returns the result and every unforced pair met."""
    from layoutalg.kernel.trace import _check_launch

    start = time.perf_counter()
    module = launch.module
    fn = select_entry(module, launch.kernel)
    params = pack_params(fn.params, launch.args)
    image = build_image(module, fn, params.data, params.offsets, len(params.buffers), launch.dynamic_smem)
    _check_launch(fn, launch.block, image, launch.arch, launch.dynamic_smem)
    chosen = launch.ctas if launch.ctas is not None else all_ctas(launch.grid, launch.block)
    threads_per_cta = 32 * -(-(launch.block[0] * launch.block[1] * launch.block[2]) // 32)
    units = -(-max(1, image.shared.size) // 2)
    per_cta = units * (BYTES_PER_UNIT + BYTES_PER_UNIT_AND_WARP * threads_per_cta // 32)
    per_batch = max(1, min(batch_threads // threads_per_cta, MAX_SHARED_STATE // per_cta))
    shared_run = LaunchFlow()
    races: dict[tuple[str, int, int], Race] = {}
    unfollowed: dict[int, str] = {}
    sync_unmodelled: dict[int, str] = {}
    loose: dict[int, str] = {}
    found: set[tuple[int, int]] = set()
    data_dep: dict[tuple[int, str], Incident] = {}
    samples: dict[int, Samples] = {}
    steps = 0
    geometry = None
    if consumer is not None:
        consumer.begin(fn, params, launch)
    for first in range(0, len(chosen), per_batch):
        batch = chosen[first: first + per_batch]
        geom = Geometry(launch.grid, launch.block, batch)
        geometry = geometry or geom
        rec = Recorder()
        machine = FlowMachine(geom, image.shared, image.local_size, image.params, image.dynamic_smem, rec,
                              launch.step_budget)
        state = FlowState(machine, fn.registers, consumer, first_batch=first == 0)
        state.unforced_pairs = unforced
        state.cta_first = first
        state.launch = shared_run
        state.launch_thread = first * geom.slots + np.arange(geom.n, dtype=np.int64)
        machine.flow = state
        ops = decode(image, machine, private=True)  # the rules wrap these ops: never the cached ones
        ctx = _context(image, machine)
        install(ops, ctx)
        if consumer is not None:
            consumer.batch(state, first)
        machine.run(list[Op | None](ops))  # every op decoded up front (the tag rules are installed on them)
        steps = max(steps, machine.steps)
        for key, race in state.shared.races.items():
            race.cta += first
            old = races.get(key)
            if old is None:
                races[key] = race
            else:
                old.count += race.count
        unfollowed.update(state.unfollowed)
        sync_unmodelled.update(state.sync_unmodelled)
        for index, why in state.loose_barriers.items():
            loose.setdefault(index, why)
        found |= state.unforced_found
        for k, inc in rec.data_dependent.items():
            if k in data_dep:
                data_dep[k].count += inc.count
            else:
                data_dep[k] = inc
        if first == 0:
            samples = state.samples
    if consumer is not None:
        consumer.end()
    result = FlowResult(fn=fn, geometry=geometry, buffers=list(params.buffers),
                      shared_layout=dict(image.shared.addresses), races=list(races.values()),
                      unfollowed=unfollowed, sync_unmodelled=sync_unmodelled, loose_barriers=loose,
                      data_dependent=sorted(data_dep.values(), key=lambda d: d.line),
                      unknown_stores=dict(shared_run.unknown_stores), overlaps=dict(shared_run.overlaps),
                      samples=samples, traced_ctas=list(chosen),
                      whole_grid=launch.ctas is None or len(chosen) == launch.grid[0] * launch.grid[1] * launch.grid[2],
                      steps=steps, seconds=time.perf_counter() - start)
    return result, found


def _context(image: Any, machine: Any) -> Any:
    from layoutalg.kernel.interp.decode import Context

    fn = image.fn
    return Context(fn.registers, image.symbols, fn.labels, machine.special_value, image.param_offsets, image.module.isa,
                   image.constants)


def flow_of_trace(trace: Any, consumer: Any = None) -> FlowResult:
    """Run :func:`flow` on the launch a Trace was made from."""
    launch = getattr(trace, "launch", None)
    if launch is None:
        raise KernelError("this Trace does not carry its launch (made by an older layoutalg?); trace the kernel again "
                          "with layoutalg.kernel.trace")
    return flow(launch, consumer)

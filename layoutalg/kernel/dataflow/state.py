"""The data-flow state of one traced batch of CTAs, and the machine that keeps it in step.

:class:`FlowState` holds the tag planes (registers, shared memory with its race metadata, local
memory), the warps' clocks, the samples the layout recovery reads, and what the model could not
follow.  :class:`FlowMachine` is the interpreter's :class:`~layoutalg.kernel.interp.machine.Machine`
with two hooks: a barrier release joins the released warps' clocks, and an instruction whose guard
is unknown makes its destinations' tags OPAQUE (as the machine makes their values unknown).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.ordering import Clocks, warps_of
from layoutalg.kernel.dataflow.registers import RegisterTags
from layoutalg.kernel.dataflow.shared import SharedTags
from layoutalg.kernel.interp.machine import Machine


@dataclass
class Samples:
    """Per shared-memory instruction, what CTA 0 of the launch accessed: for every (warp execution,
    unit) the warp, its barrier epoch then (how many barriers it had arrived at), the shared unit
    offset and the unit's tag."""

    warp: list[np.ndarray] = field(default_factory=list)
    instance: list[np.ndarray] = field(default_factory=list)
    unit: list[np.ndarray] = field(default_factory=list)
    tag: list[np.ndarray] = field(default_factory=list)
    count: int = 0

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if not self.unit:
            e = np.zeros(0, dtype=np.int64)
            return e, e, e, e
        return (np.concatenate(self.warp), np.concatenate(self.instance), np.concatenate(self.unit),
                np.concatenate(self.tag))


class FlowState:
    """Tags and synchronisation state of a traced batch (see the module doc)."""

    def __init__(self, machine: Any, registers: dict[str, str], consumer: Any, first_batch: bool) -> None:
        g = machine.geom
        self.geom = g
        self.n = machine.n
        self.regs = RegisterTags(self.n, registers)
        self.clocks = Clocks(g.n_ctas, g.warps_per_cta)
        self.shared = SharedTags(g.n_ctas, g.warps_per_cta, machine.smem.size, self.clocks)
        self.local_units = max(1, -(-machine.local.size // 2))
        self.local: np.ndarray | None = None
        self.consumer = consumer
        self.record_samples = first_batch
        self.samples: dict[int, Samples] = {}
        self.unfollowed: dict[int, str] = {}  # op index -> why its effect on tags is not followed
        self.sync_unmodelled: dict[int, str] = {}  # op index -> a synchronisation the race check ignores
        self.loose_barriers: dict[int, str] = {}  # op index -> why its phases order no warps (see barrier_arrive)
        self.loose_ctas: dict[int, np.ndarray] = {}  # barrier -> CTAs whose completing phase is loose (machine path)
        # counted barriers whose phases' warps are not forced (see barrier_arrive): (launch CTA index, barrier)
        # pairs taken as ordering nothing from the start (set by flow()), and those found in this run
        self.unforced_pairs: set[tuple[int, int]] = set()
        self.unforced_found: set[tuple[int, int]] = set()
        self.cta_first = 0  # launch index of this batch's CTA 0 (set by flow())
        # per (CTA, barrier): the arrivals of the open phase and of the last completed one: per warp its latest
        # arrival's own clock (-1: none), and the thread count of the phase (-1: every live thread)
        self.phase_open: dict[tuple[int, int], tuple[np.ndarray, int]] = {}
        self.phase_last: dict[tuple[int, int], tuple[np.ndarray, int]] = {}
        self.counted_ids: set[int] = set()  # barrier ids reached with a thread count in this batch
        self.countless_ids: set[int] = set()  # and without one
        self.cta_warp = (g.cta_index.reshape(-1, 32)[:, 0], g.warpid.reshape(-1, 32)[:, 0])
        self.launch: Any = None  # the LaunchFlow shared by the launch's batches (set by flow())
        self.launch_thread = np.arange(self.n, dtype=np.int64)  # launch-wide thread ids (set by flow())

    # ------------------------------------------------------------------ helpers for rules
    def lanes(self, m: Any, mask: Any) -> np.ndarray:
        return m.live if mask is None else mask

    def thread_cta_warp(self) -> tuple[np.ndarray, np.ndarray]:
        g = self.geom
        return g.cta_index, g.warpid

    def local_tags(self) -> np.ndarray:
        if self.local is None:
            self.local = np.full((self.n, self.local_units), tg.NONE, dtype=np.int64)
        return self.local

    def note_unfollowed(self, op: Any, why: str) -> None:
        self.unfollowed.setdefault(op.index, why)

    def sample(self, op_index: int, threads: np.ndarray, units: np.ndarray, tags: np.ndarray) -> None:
        """Record accesses of CTA 0's threads: ``threads`` (k,), ``units``/``tags`` (k, u)."""
        if not self.record_samples:
            return
        g = self.geom
        in0 = g.cta_index[threads] == 0
        if not in0.any():
            return
        th = threads[in0]
        warp = g.warpid[th]
        inst = self.clocks.vc[0, warp, warp]  # the warp's barrier epoch
        s = self.samples.setdefault(op_index, Samples())
        u = units[in0]
        s.warp.append(np.repeat(warp, u.shape[1]))
        s.instance.append(np.repeat(inst, u.shape[1]))
        s.unit.append(u.reshape(-1))
        s.tag.append(tags[in0].reshape(-1))
        s.count += 1

    # ------------------------------------------------------------------ barriers
    def barrier_arrive(self, m: Any, op: Any, lanes: np.ndarray, complete: bool) -> None:
        """Warps arrive; ``complete``: every arriving warp is released here (the machine ran converged).

        PTX ISA 8.x, "bar, barrier": with a thread count, the phase completes once ``count`` threads (whole
        warps) arrived, and later arrivals start the next phase.  Where more warps of a CTA arrive at once than
        the count, which of them share a phase depends on timing: that release orders no warp after another
        (each warp keeps only its own history), so their shared-memory exchanges are races.

        Arrivals that meet the count in the trace's order need not be the ones that meet it on the GPU: a warp
        arriving later in the trace could have come first and taken a place in the phase.  A counted barrier's
        phases are *forced* when every arrival is ordered (happens-before, the vector clocks) after every
        arrival of the barrier's last completed phase in its CTA, with the same count: then no later arrival can
        join an earlier phase (the first one to do so on some schedule would come after every arrival of that
        phase, which had completed by then), so each phase has the trace's warps on every schedule.  An arrival
        that is not so ordered (or changes the count) makes the (CTA, barrier) pair *unforced*: ``flow`` runs the
        launch again with every phase of that barrier in that CTA ordering nothing (``unforced_pairs``)."""
        count = _count(m, op)
        for barrier, group in _by_barrier(m, op, lanes):
            ctas, warps = warps_of(group, self.geom)
            self._check_forced(op, barrier, ctas, warps, count)
            self.clocks.arrive(ctas, warps, barrier)
            self._record(barrier, ctas, warps, count)
            if complete:
                loose = self._unforced(ctas, barrier)
                if count > 0:
                    # the open phase may already hold arrivals (a bar.arrive the machine counted before)
                    before = np.asarray(m.bar_arrivals[:, barrier])
                    arrived = before + 32 * np.bincount(ctas, minlength=self.geom.n_ctas)
                    over = arrived[ctas] > count
                    if over.any():
                        self.note_loose(op, barrier, int(arrived[ctas][over].max()), count)
                    loose |= over
                if loose.any():
                    self.clocks.drop(ctas[loose], barrier)
                self.clocks.release(ctas[~loose], warps[~loose], barrier)
                self.phase_done(np.unique(ctas), barrier)

    def _unforced(self, ctas: np.ndarray, barrier: int) -> np.ndarray:
        """Which of ``ctas`` (batch indices) have ``barrier`` unforced (its phases order nothing)."""
        if not self.unforced_pairs:
            return np.zeros(ctas.shape, dtype=bool)
        return np.array([(self.cta_first + int(c), barrier) in self.unforced_pairs for c in ctas], dtype=bool)

    def _check_forced(self, op: Any, barrier: int, ctas: np.ndarray, warps: np.ndarray, count: int) -> None:
        """Each arriving warp must be ordered after every arrival of the barrier's last completed phase in its
        CTA, and arrive with the count of that phase and of the open one (:meth:`barrier_arrive`); else the pair
        is unforced.  A countless barrier (every live thread) needs no check, but one id used both with and
        without a count in a batch makes it unforced in every arriving CTA."""
        if count <= 0:
            self.countless_ids.add(barrier)
            if barrier in self.counted_ids:
                for c in (int(x) for x in np.unique(ctas)):
                    self._unforced_here(op, c, barrier, f"barrier {barrier} is used both with a thread count and "
                                        "without one: which arrivals share a phase depends on timing")
            return
        self.counted_ids.add(barrier)
        for c in (int(x) for x in np.unique(ctas)):
            if (self.cta_first + c, barrier) in self.unforced_pairs:
                continue
            if barrier in self.countless_ids:
                self._unforced_here(op, c, barrier, f"barrier {barrier} is used both with a thread count and "
                                    "without one: which arrivals share a phase depends on timing")
                continue
            counts = [got[1] for got in (self.phase_last.get((c, barrier)), self.phase_open.get((c, barrier)))
                      if got is not None]
            if any(x != count for x in counts):
                self._unforced_here(op, c, barrier, f"barrier {barrier} is reached with a thread count of {count} "
                                    f"where a phase has {counts[0]}: which arrivals share a phase depends on timing")
                continue
            last = self.phase_last.get((c, barrier))
            if last is None:
                continue
            clocks = last[0]
            ws = warps[ctas == c]
            knows = self.clocks.vc[c, ws]  # (arriving warps, warps): what each arriving warp is ordered after
            unordered = (clocks[None, :] >= 0) & (knows < clocks[None, :])
            if unordered.any():
                i, other = (int(x[0]) for x in np.nonzero(unordered))
                self._unforced_here(op, c, barrier, f"warp {int(ws[i])} arrives at barrier {barrier} (thread count "
                                    f"{count}) unordered after warp {other}'s arrival in the phase before, so on "
                                    "another schedule it could take a place in that phase: which warps share a "
                                    "phase depends on timing")

    def _unforced_here(self, op: Any, c: int, barrier: int, why: str) -> None:
        self.unforced_found.add((self.cta_first + c, barrier))
        self.loose_barriers.setdefault(op.index, why + ' (PTX ISA "bar, barrier")')

    def _record(self, barrier: int, ctas: np.ndarray, warps: np.ndarray, count: int) -> None:
        """The arrivals (their own clocks, just advanced by ``Clocks.arrive``) join the open phase (counted
        barriers only)."""
        if count <= 0:
            return
        for c in (int(x) for x in np.unique(ctas)):
            key = (c, barrier)
            got = self.phase_open.get(key)
            clocks = got[0] if got is not None else np.full(self.geom.warps_per_cta, -1, dtype=np.int64)
            ws = warps[ctas == c]
            clocks[ws] = self.clocks.vc[c, ws, ws]
            self.phase_open[key] = (clocks, count)

    def phase_done(self, ctas: np.ndarray, barrier: int) -> None:
        """The open phase of ``barrier`` completed in ``ctas``: it becomes the last completed one."""
        if barrier not in self.counted_ids:
            return
        for c in (int(x) for x in ctas):
            got = self.phase_open.pop((c, barrier), None)
            if got is not None:
                self.phase_last[(c, barrier)] = got

    def note_loose(self, op: Any, barrier: int, arrived: int, count: int) -> None:
        self.loose_barriers.setdefault(
            op.index, f"{arrived} threads arrive at barrier {barrier} for a thread count of {count}, so which warps "
                      "share a phase depends on timing (PTX ISA \"bar, barrier\")")

    def barrier_release(self, barrier: int, lanes: np.ndarray) -> None:
        ctas, warps = warps_of(lanes, self.geom)
        loose = self.loose_ctas.get(barrier)
        out = self._unforced(ctas, barrier)
        if loose is not None:
            out |= np.isin(ctas, loose)
        if out.any():
            self.clocks.drop(ctas[out], barrier)
            ctas, warps = ctas[~out], warps[~out]
        self.clocks.release(ctas, warps, barrier)


def _count(m: Any, op: Any) -> int:
    """The barrier's thread count (-1: none, or 0, which waits for every thread)."""
    if op.barrier[1] is None:
        return -1
    return m._barrier_count(op) or -1


def _by_barrier(m: Any, op: Any, lanes: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """``lanes`` grouped by the barrier id each names, read by the machine's own reader (``bar.red``: barrier
    0; an unknown or out-of-range id is refused there)."""
    ids = m._barrier_ids(op, lanes)
    return [(int(b), lanes & (ids == b)) for b in np.unique(ids[lanes])]


class FlowMachine(Machine):
    """The interpreter's machine with the data-flow hooks (see the module doc)."""

    flow: FlowState

    _bar_op: Any = None

    def _released(self, barrier: int, lanes: np.ndarray) -> None:
        self.flow.barrier_release(barrier, lanes)

    def _arrive(self, op: Any, arrive: np.ndarray, blocked: np.ndarray) -> None:
        self._bar_op = op
        try:
            super()._arrive(op, arrive, blocked)
        finally:
            self._bar_op = None

    def _settle(self, barriers: list[int], blocked: np.ndarray) -> None:
        """A phase completing with more arrivals than its thread count releases warps whose partners depend on
        timing (:meth:`FlowState.barrier_arrive`): those CTAs' releases order nothing."""
        for b in barriers:
            expected, arrivals = self.bar_expected[:, b], self.bar_arrivals[:, b]
            over = np.flatnonzero((expected > 0) & (arrivals > expected))
            if over.size:
                self.flow.loose_ctas[b] = over
                if self._bar_op is not None:
                    self.flow.note_loose(self._bar_op, b, int(arrivals[over].max()), int(expected[over].max()))
        before = self.bar_arrivals[:, barriers].copy()
        try:
            super()._settle(barriers, blocked)
        finally:
            self.flow.loose_ctas.clear()
        done = (before > 0) & (self.bar_arrivals[:, barriers] == 0)  # (CTAs, barriers) whose phase completed
        for j, b in enumerate(barriers):
            if done[:, j].any():
                self.flow.phase_done(np.flatnonzero(done[:, j]), b)

    def _unknown_guard(self, op: Any, lanes: np.ndarray) -> None:
        super()._unknown_guard(op, lanes)
        if op.kind == "bra":
            return
        self.flow.regs.set_opaque(op.dests, tg.opaque(op.index, tg.W_GUARD), lanes)
        if op.writes_shared:
            self.flow.shared.forget(op.index, self.geom.cta_index[lanes], tg.W_GUARD)
        if op.ins.root in ("st", "red", "atom") and not any(p.startswith("shared") for p in op.ins.parts):
            self.flow.launch.unknown_store(op)  # a store to global memory that may or may not happen

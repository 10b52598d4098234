"""The SIMT interpreter: one launch (all traced CTAs at once), scheduled by the lowest program counter.

**Scheduling.**  Each thread has a program counter.  At every step the machine picks
the lowest PC among runnable threads and executes that instruction for every thread
at that PC (all warps of all traced CTAs at once, vectorised).  Per warp this is the
classic min-PC reconvergence: a warp always executes its lowest-PC lanes together,
so after a divergent ``if``/``else`` (nvcc lays out the join after both arms) and
after a loop (the exit lies after the back edge) the lanes run together again.  A
warp-level instruction execution is therefore "one warp with the lanes at that PC",
the unit Nsight counts.  While all live threads share one PC (the common case) the
machine runs *converged*: no PC arrays, unmasked register writes.

**Fairness between warps.**  The lowest PC alone would starve a warp that spins at a
higher PC: a warp polling a shared flag (``while (flag == 0);``) in a loop laid out
before the store of another warp that sets it would loop until the step budget,
though the GPU schedules both warps (warps progress independently).  So when one
backward branch has been taken ``FAIR_AFTER`` times in a row while threads of other
warps were runnable elsewhere, the scheduling runs one *round*: the warps taking it
are parked (whole warps, so their lanes still reconverge by min PC) until every other
warp has also taken a backward branch, blocked at a barrier or exited.  Ordinary
divergent loops (warps with different trip counts) never reach the threshold and keep
the lowest-PC order, which lets early warps wait at the loop exit for the late ones
so the code after it runs once for all.  Per-warp counts do not depend on the order;
a spin loop's iteration count is that of this schedule (one legal interleaving), not
a prediction of the GPU's timing.

**Barriers** (PTX ISA 8.x, "bar, barrier").  Each CTA has sixteen barriers; the id
operand picks one (it must be known and below 16 on every arriving thread).
``bar.sync``/``barrier.sync``/``bar.red`` arrive and block, ``bar.arrive`` arrives
without blocking.  A barrier's phase completes, releasing the threads blocked on it,
when its expected arrivals are met: with a count operand, ``count`` threads counted by
whole warps (each execution adds 32 per warp with an arriving lane: the ISA makes the
count a multiple of the warp size and arrival a warp's act); without one, every live
thread of the CTA (threads that exited no longer count, so an exit can complete a
phase).  The next arrival starts a new phase.  So a producer warp's ``bar.arrive 1, 64``
and a consumer warp's ``bar.sync 1, 64`` meet, and threads waiting at barrier 1 are not
released by barrier 2.

**Unknown control.**  A branch whose predicate is unknown for some lanes is recorded
as data-dependent (line, opcode, lanes) and those lanes stop being traced (they are
never guessed); an instruction whose guard is unknown leaves its destinations unknown
and, if it touches shared memory, is recorded as data-dependent.

**Budget.**  ``step_budget`` bounds the instruction executions (steps); past it a
:class:`KernelError` names the PTX line executing and the hottest backward branch.

**Certain non-termination** (``loopwatch.py``).  The machine is deterministic, so once the
whole state after a backward branch equals an earlier one the schedule would repeat that cycle
forever.  The cycle is then run once more, noting which threads were scheduled in it.  If some
runnable thread was not (lowest PC first starves lanes above a lane of their warp that spins, as
on hardware before independent thread scheduling; the fairness count above misses a spin whose
back edges alternate), the threads that ran are parked and the others get a round (a legal
schedule on sm_70+), and watching starts afresh.  If every live thread ran in the cycle or waits
at a barrier, a :class:`KernelError` names the loop at once instead of at the budget.  Only an
exact repeat counts: a loop whose counter, memory or other warps move never repeats.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import UNDEFINED, UNDEFINED_PRED, Op
from layoutalg.kernel.interp.geometry import Geometry
from layoutalg.kernel.interp.loopwatch import WATCH_AFTER, WATCH_EVERY, LoopWatch
from layoutalg.kernel.interp.spaces import SMEM_BASE, ByteStore, SharedLayout
from layoutalg.kernel.interp.values import U64, Value
from layoutalg.kernel.records import Recorder

DEFAULT_STEP_BUDGET = 2_000_000
FAIR_AFTER = 64  # consecutive takes of one back edge while other warps wait, before they get a round
MAX_BARRIERS = 16


class Machine:
    """Registers, memories, PCs and the step loop of one traced launch (see the module doc)."""

    def __init__(self, geometry: Geometry, shared: SharedLayout, local_size: int, params: bytes,
                 dynamic_smem: int, recorder: Recorder, step_budget: int = DEFAULT_STEP_BUDGET) -> None:
        self.geom = geometry
        self.n = geometry.n
        self.regs: dict[str, Value] = {}
        self.shared_layout = shared
        self.smem = ByteStore(geometry.n_ctas, SMEM_BASE, shared.size)
        self.local = ByteStore(self.n, 0, local_size)
        self.params = params
        self.dynamic_smem = dynamic_smem
        self.recorder = recorder
        self.step_budget = step_budget
        self.live = geometry.valid.copy()
        self.steps = 0
        self.specials = self._special_registers()
        self.ops: list[Op | None] = []
        self.decoder: Any = None
        self.cc = Value(U64(0), False)  # the carry flag of add.cc / addc
        # barrier phases (module doc): per thread, which barriers it arrived at in the open phase and which one
        # it waits at (-1: none); per (CTA, barrier), arrivals counted by warps and the count expected (-1: every
        # live thread of the CTA)
        self.bar_arrived = np.zeros((self.n, MAX_BARRIERS), dtype=bool)
        self.bar_waiting = np.full(self.n, -1, dtype=np.int64)
        self.bar_arrivals = np.zeros((geometry.n_ctas, MAX_BARRIERS), dtype=np.int64)
        self.bar_expected = np.full((geometry.n_ctas, MAX_BARRIERS), -1, dtype=np.int64)
        self.bar_open: set[int] = set()  # barriers with a phase some thread has arrived at

    # ------------------------------------------------------------------ registers
    def write(self, name: str, bits: Any, known: Any, mask: np.ndarray | None) -> None:
        """Store a result into register ``name`` for the threads of ``mask`` (None: all live threads)."""
        if mask is None:
            self.regs[name] = Value(bits, known)
            return
        old = self.regs.get(name)
        if old is None:
            old = UNDEFINED_PRED if np.asarray(bits).dtype == bool else UNDEFINED
        new_bits = np.where(mask, bits, old.bits)
        if known is True and old.known is True:
            new_known: Any = True
        else:
            new_known = np.where(mask, known, old.known)
        self.regs[name] = Value(new_bits, new_known)

    def forget(self, name: str, lanes: np.ndarray) -> None:
        """Register ``name`` becomes unknown on ``lanes``."""
        old = self.regs.get(name, UNDEFINED)
        known = np.broadcast_to(np.asarray(old.known), (self.n,)) & ~lanes
        self.regs[name] = Value(np.broadcast_to(np.asarray(old.bits), (self.n,)).copy(), known)

    def active(self, mask: np.ndarray | None) -> np.ndarray:
        return self.live if mask is None else mask

    def _special_registers(self) -> dict[str, Value]:
        g = self.geom
        u = np.uint64
        sp: dict[str, Value] = {}
        for k, axis in enumerate("xyz"):
            sp[f"%tid.{axis}"] = Value(g.tid[k].astype(u))
            sp[f"%ntid.{axis}"] = Value(u(g.block[k]))
            sp[f"%ctaid.{axis}"] = Value(g.ctaid[k].astype(u))
            sp[f"%nctaid.{axis}"] = Value(u(g.grid[k]))
            sp[f"%clusterid.{axis}"] = sp[f"%ctaid.{axis}"]
            sp[f"%nclusterid.{axis}"] = sp[f"%nctaid.{axis}"]
            sp[f"%cluster_ctaid.{axis}"] = Value(u(0))
            sp[f"%cluster_nctaid.{axis}"] = Value(u(1))
        sp["%laneid"] = Value(g.laneid.astype(u))
        sp["%warpid"] = Value(g.warpid.astype(u))
        sp["%nwarpid"] = Value(u(64))
        lane = g.laneid.astype(np.uint64)
        one = np.uint64(1)
        sp["%lanemask_eq"] = Value(one << lane)
        sp["%lanemask_lt"] = Value((one << lane) - one)
        sp["%lanemask_le"] = Value(((one << lane) << one) - one)
        sp["%lanemask_gt"] = Value(np.uint64(0xFFFFFFFF) & ~(((one << lane) << one) - one))
        sp["%lanemask_ge"] = Value(np.uint64(0xFFFFFFFF) & ~((one << lane) - one))
        sp["%cluster_ctarank"] = Value(u(0))
        sp["%cluster_nctarank"] = Value(u(1))
        sp["%is_explicit_cluster"] = Value(u(0))
        sp["%dynamic_smem_size"] = Value(u(self.dynamic_smem))
        sp["%total_smem_size"] = Value(u(self.shared_layout.end))
        sp["%aggr_smem_size"] = Value(u(self.shared_layout.end))
        return sp

    def special_value(self, name: str, line: int) -> Value:
        v = self.specials.get(name)
        if v is not None:
            return v
        if name.startswith(("%clock", "%globaltimer", "%smid", "%nsmid", "%gridid", "%pm", "%envreg",
                            "%current_graph_exec", "%reserved_smem")):
            return UNDEFINED  # run-time facts: unknown, never guessed
        raise KernelError(f"unknown special register {name}", line)

    # ------------------------------------------------------------------ running
    def run(self, ops: list[Op | None], decoder: Any = None) -> None:
        """Execute until every thread has exited (wrap-around arithmetic is intended: no overflow warnings).

        ``ops[i]`` may be None: ``decoder(i)`` decodes it when it first executes (and it is stored)."""
        self.decoder = decoder
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            self._run(ops)

    def _run(self, ops: list[Op | None]) -> None:
        self.ops = ops
        n_ops = len(ops)
        live = self.live
        pc = 0
        converged = True
        pcs = np.zeros(self.n, dtype=np.int64)
        blocked = np.zeros(self.n, dtype=bool)
        parked = np.zeros(self.n, dtype=bool)  # warps that took a back edge this round (module doc)
        any_parked = False
        spin_pc, spins = -1, 0  # the back edge last taken while other warps waited, and how often in a row
        back_edges: dict[int, int] = {}
        budget = self.step_budget
        watch = LoopWatch(self)  # certain non-termination (loopwatch.py): the state after a back edge repeats
        watch_after = WATCH_AFTER if watch.on else budget + 1
        probe = -1  # the backward branch just executed, once watching (its state is sampled next)
        skip = 0  # backward branches left before the next sample
        audit_end = -1  # once a state repeated: the step at which the cycle has run once more (module doc)
        ran = np.zeros(self.n, dtype=bool)  # during that run: the threads that were scheduled
        smem_writes = 0  # the shared-memory writes before it
        cycle_branch = -1
        big = np.int64(1 << 40)
        alive = bool(live.any())  # refreshed whenever threads can stop (exits, unknown branches)
        while True:
            if probe >= 0 or audit_end >= 0:
                if probe >= 0 and audit_end < 0 and watch.sample(
                        (converged, pc if converged else -1, any_parked, spin_pc, spins, alive),
                        None if converged else pcs, blocked, parked):
                    audit_end, cycle_branch = self.steps + watch.period, probe  # run the cycle once more
                    ran[:] = False
                    smem_writes = self.smem.writes
                probe = -1
                if 0 <= audit_end <= self.steps:  # the cycle ran once more: back at the repeated state
                    if not (live & ~blocked & ~ran).any():
                        self._never_ends(cycle_branch, watch.period, ran, blocked, self.smem.writes != smem_writes)
                    # threads the schedule left out of the cycle (lowest PC first starves lanes above a spinning
                    # lane of their warp, and warps while a spin alternates between back edges) get a round
                    parked[:] = ran & live
                    any_parked, spins, audit_end = True, 0, -1
                    watch.restart()
            if converged:
                if not alive:
                    return
                if pc >= n_ops:
                    return  # fell off the end: an implicit exit
                mask: np.ndarray | None = None
                cur = pc
            else:
                runnable = live & ~blocked
                if not runnable.any():
                    if blocked.any():
                        self._deadlock(blocked, pcs)
                    return
                if any_parked:
                    eligible = runnable & ~parked
                    if eligible.any():
                        runnable = eligible
                    else:  # every other warp took a back edge, blocked or exited: a new round
                        parked[:] = False
                        any_parked = False
                masked = np.where(runnable, pcs, big)
                cur = int(masked.min())
                if cur >= n_ops:  # ran off the end: an implicit exit, which can complete a phase as exit does
                    live &= ~(runnable & (pcs >= n_ops))
                    if self.bar_open:
                        self._settle(sorted(self.bar_open), blocked)
                    continue
                if not blocked.any() and not any_parked and int(np.where(live, pcs, -1).max()) == cur:
                    converged = True
                    pc = cur
                    continue
                mask = runnable & (pcs == cur)
            self.steps += 1
            if audit_end >= 0:
                ran |= live if mask is None else mask
            op = ops[cur]
            if op is None:  # decoded on first execution
                op = ops[cur] = self.decoder(cur)
            if self.steps > budget:
                self._over_budget(op, back_edges)
            exe = mask
            kind = op.kind
            if op.ins.guard is not None:
                exe = self._guard(op, mask)
                if kind == "bra":
                    alive = bool(live.any())
                if op.shared:  # warps whose guard is false on every lane (reported; Nsight does not count them)
                    off = self._warps_of(self.active(mask)) & ~self._warps_of(exe)  # type: ignore[arg-type]
                    if off.any():
                        self.recorder.predicated_off[cur] = self.recorder.predicated_off.get(cur, 0) + int(off.sum())
            if kind == "op":
                if exe is None or exe.any():
                    op.run(self, exe)  # type: ignore[misc]
                nxt = cur + 1
                if converged:
                    pc = nxt
                else:
                    pcs[mask] = nxt  # type: ignore[index]
                continue
            if kind == "nop":
                if converged:
                    pc = cur + 1
                else:
                    pcs[mask] = cur + 1  # type: ignore[index]
                continue
            if kind == "bra":
                target = op.target
                if target <= cur:
                    back_edges[cur] = back_edges.get(cur, 0) + 1
                    if self.steps >= watch_after:
                        if skip:
                            skip -= 1
                        else:
                            probe, skip = cur, WATCH_EVERY - 1
                base = self.active(mask)
                taken = base if exe is None else exe
                if converged:
                    if exe is None:
                        pc = target
                        continue
                    n_taken = int(np.count_nonzero(taken))
                    if n_taken == 0:
                        pc = cur + 1
                        continue
                    if n_taken == int(np.count_nonzero(live)):
                        pc = target
                        continue
                    pcs[:] = cur + 1
                    pcs[taken] = target
                    converged = False
                    continue
                pcs[base & ~taken] = cur + 1
                pcs[taken] = target
                if target <= cur and taken.any():
                    warps = np.repeat(self._warps_of(taken), 32)
                    others = bool((live & ~blocked & ~parked & ~warps).any())
                    if any_parked:
                        if others:
                            parked |= warps
                        else:  # the last eligible warps took their back edge: the round is over
                            parked[:] = False
                            any_parked = False
                    elif others:
                        spins = spins + 1 if cur == spin_pc else 1
                        spin_pc = cur
                        if spins >= FAIR_AFTER:  # the others get a round (module doc)
                            parked |= warps
                            any_parked = True
                            spins = 0
                continue
            if kind == "exit":
                gone = self.active(mask) if exe is None else exe
                live &= ~gone
                alive = bool(live.any())
                if self.bar_open:
                    self._settle(sorted(self.bar_open), blocked)  # fewer live threads to wait for
                if converged:
                    pc = cur + 1
                else:
                    pcs[mask] = cur + 1  # type: ignore[index]
                continue
            if kind == "bar":
                if op.run is not None:
                    op.run(self, exe)
                if converged and exe is None:
                    if op.barrier[1] is not None:  # every live thread arrives at once: is that enough?
                        self._check_converged_count(op)
                    if self.bar_open or op.barrier_mode == "arrive":
                        self._arrive(op, live, blocked)  # nobody blocks for long: every live thread is here
                    else:
                        self._barrier_ids(op, live)  # refuses an unknown or out-of-range id
                    pc = cur + 1
                    continue
                if converged:
                    pcs[:] = cur
                    converged = False
                    mask = live.copy()
                arrive = self.active(mask) if exe is None else exe
                pcs[mask] = cur + 1  # type: ignore[index]
                self._arrive(op, arrive, blocked)
                continue
            raise KernelError(f"internal: unknown op kind {kind}", op.ins.line, op.ins.opcode)

    # ------------------------------------------------------------------ helpers
    def _guard(self, op: Op, mask: np.ndarray | None) -> np.ndarray | None:
        reg, negated = op.ins.guard  # type: ignore[misc]
        g = self.regs.get(reg, UNDEFINED_PRED)
        base = self.active(mask)
        bits = np.asarray(g.bits, dtype=bool)
        pred = np.logical_not(bits) if negated else bits
        if g.known is True:
            exe = base & pred
            return exe
        unknown = base & ~np.asarray(g.known)
        exe = base & pred & np.asarray(g.known)
        if unknown.any():
            self._unknown_guard(op, unknown)
        return exe

    def _unknown_guard(self, op: Op, lanes: np.ndarray) -> None:
        rec = self.recorder
        warps = int(self._warps_of(lanes).sum())
        if op.kind == "bra":
            rec.data_dependence(op.index, op.ins.line, op.ins.opcode,
                                "branch predicate depends on a value unknown at trace time (loaded from global memory "
                                "or computed from one); those threads were not traced further", warps,
                                int(lanes.sum()), "control")
            self.live &= ~lanes
            return
        for d in op.dests:
            self.forget(d, lanes)
        if op.shared:
            rec.data_dependence(op.index, op.ins.line, op.ins.opcode,
                                "guard predicate unknown at trace time: whether the access happens is data-dependent",
                                warps, int(lanes.sum()), "execution")
        if op.writes_shared:
            self.smem.forget_rows(self.geom.cta_index[lanes])

    def _warps_of(self, lanes: np.ndarray) -> np.ndarray:
        return np.asarray(lanes.reshape(-1, 32).any(axis=1))

    def _arrive(self, op: Op, arrive: np.ndarray, blocked: np.ndarray) -> None:
        """Threads ``arrive`` at the barrier(s) their id operand names (blocking, unless ``bar.arrive``); every
        phase whose expected arrivals are then met completes (module doc)."""
        if not arrive.any():
            return
        g = self.geom
        ids = self._barrier_ids(op, arrive)
        count = (self._barrier_count(op) or -1) if op.barrier[1] is not None else -1  # 0: all (H100 waits)
        for barrier in (int(b) for b in np.unique(ids[arrive])):
            lanes = arrive & (ids == barrier)
            if op.barrier_mode != "arrive":
                blocked |= lanes
                self.bar_waiting[lanes] = barrier
            self.bar_arrived[lanes, barrier] = True
            warps = self._warps_of(lanes)
            self.bar_arrivals[:, barrier] += 32 * np.bincount(g.cta_index[::32][warps], minlength=g.n_ctas)
            self.bar_expected[np.unique(g.cta_index[lanes]), barrier] = count
            self.bar_open.add(barrier)
            self._settle([barrier], blocked)

    def _settle(self, barriers: list[int], blocked: np.ndarray) -> None:
        """Complete every open phase of ``barriers`` whose expected arrivals are met: release its waiters."""
        g = self.geom
        for barrier in barriers:
            arrived = self.bar_arrived[:, barrier]
            started = np.bincount(g.cta_index[arrived], minlength=g.n_ctas) > 0
            missing = np.bincount(g.cta_index[self.live & ~arrived], minlength=g.n_ctas)
            expected = self.bar_expected[:, barrier]
            done = started & np.where(expected < 0, missing == 0, self.bar_arrivals[:, barrier] >= expected)
            if not done.any():
                continue
            in_done = done[g.cta_index]
            released = blocked & in_done & (self.bar_waiting == barrier)
            blocked &= ~released
            self.bar_waiting[released] = -1
            self.bar_arrived[in_done, barrier] = False
            self.bar_arrivals[done, barrier] = 0  # the next phase's first arrival sets its expected count
            if not self.bar_arrived[:, barrier].any():
                self.bar_open.discard(barrier)
            if released.any():
                self._released(barrier, released)

    def _released(self, barrier: int, lanes: np.ndarray) -> None:
        """Hook: ``lanes`` were released from ``barrier`` (the data-flow machine orders memory here)."""

    def _barrier_ids(self, op: Op, arrive: np.ndarray) -> np.ndarray:
        """The barrier id of every thread (only ``arrive``'s are read): known and below 16, else refused."""
        reader = op.barrier[0]
        if reader is None:  # bar.red: its id is not read (barrier 0)
            return np.zeros(self.n, dtype=np.int64)
        value = reader(self)
        bits = np.broadcast_to(np.asarray(value.bits), (self.n,))
        known = np.broadcast_to(np.asarray(value.known), (self.n,))
        if not known[arrive].all():
            raise KernelError("barrier id is not a known value (it depends on data unknown at trace time)",
                              op.ins.line, op.ins.opcode)
        ids = bits.astype(np.int64)
        bad = arrive & ((ids < 0) | (ids >= MAX_BARRIERS))
        if bad.any():
            raise KernelError(f"barrier id {int(bits[bad][0])} is out of range: a CTA has barriers 0 to "
                              f"{MAX_BARRIERS - 1}", op.ins.line, op.ins.opcode)
        return ids

    def _barrier_count(self, op: Op) -> int:
        """The barrier's thread-count operand, which must be one known value for every thread."""
        count = op.barrier[1](self)  # type: ignore[misc]
        bits = np.broadcast_to(np.asarray(count.bits), (self.n,))[self.live]
        known = np.broadcast_to(np.asarray(count.known), (self.n,))[self.live]
        if not known.all() or (bits != bits[:1]).any():
            raise KernelError("barrier thread count is not a uniform known value", op.ins.line, op.ins.opcode)
        return int(bits[0]) if bits.size else 0

    def _check_converged_count(self, op: Op) -> None:
        """Every live thread arrived together.  Arrival is counted per warp (ISA "barrier": the count is a
        multiple of the warp size and the instruction marks its warp's arrival), so a sync waiting for more
        than 32 x the CTA's live warps, plus the arrivals its open phase already holds (a producer warp's
        ``bar.arrive`` before it exited), never completes."""
        count = self._barrier_count(op)
        if op.barrier_mode == "arrive":
            return
        g = self.geom
        warps = self.live.reshape(-1, 32).any(axis=1)
        have = (32 * np.bincount(g.cta_index[::32][warps], minlength=g.n_ctas))[g.cta_index]  # per thread
        if self.bar_open:
            ids = np.where(self.live, self._barrier_ids(op, self.live), 0)
            have = have + self.bar_arrivals[g.cta_index, ids]
        if (count > have[self.live]).any():
            raise KernelError(f"barrier never completes: it waits for {count} threads but the CTA has only "
                              f"{int(have[self.live].min())} in live warps", op.ins.line, op.ins.opcode)

    def _deadlock(self, blocked: np.ndarray, pcs: np.ndarray) -> None:
        waiting = sorted({int(p) - 1 for p in np.unique(pcs[blocked])})
        lines = [op.ins.line for op in (self.ops[p] for p in waiting if 0 <= p < len(self.ops)) if op is not None]
        raise KernelError(f"barrier never completes: threads wait at PTX line(s) {lines} while the rest of their "
                          "CTA has exited or waits elsewhere", lines[0] if lines else 0, "bar.sync")

    def _never_ends(self, branch: int, period: int, ran: np.ndarray, blocked: np.ndarray, wrote: bool) -> None:
        """The state after the backward branch ``branch`` repeated, and every live thread either ran in the
        cycle (``ran``) or waits at a barrier (``blocked``; loopwatch.py): no live thread ever exits.  Unless the
        cycle ``wrote`` shared memory, every thread's steps in it are the same in any interleaving."""
        op = self.ops[branch]
        assert op is not None
        head = self.ops[op.target] if 0 <= op.target < len(self.ops) else None
        loop = f"lines {head.ins.line}-{op.ins.line}" if head is not None and head.ins.line < op.ins.line else \
            f"line {op.ins.line}"
        cycling = ran & self.live
        waiting = self.live & blocked & ~ran
        waits = f" while {int(waiting.sum())} wait(s) at a barrier" if waiting.any() else ""
        why = ("it writes shared memory, so on the GPU another interleaving of these threads might leave it (the "
               "trace runs one)" if wrote else "it writes no shared memory, so from this state every interleaving of "
               "these threads repeats it: a spin on a value nothing changes?")
        raise KernelError(f"the loop at PTX {loop} never ends: the launch's whole state (PCs, registers, shared "
                          f"and local memory, barriers) after its backward branch repeats the state of {period} "
                          f"instruction executions earlier, and {int(cycling.sum())} live thread(s) in "
                          f"{int(self._warps_of(cycling).sum())} warp(s) run in that cycle{waits} (no live thread is "
                          f"left out of it); {why}", op.ins.line, op.ins.opcode)

    def _over_budget(self, op: Op, back_edges: dict[int, int]) -> None:
        hot = max(back_edges.items(), key=lambda kv: kv[1]) if back_edges else None
        where = ""
        hot_op = self.ops[hot[0]] if hot else None
        if hot and hot_op is not None:
            where = f"; the hottest loop branches back at PTX line {hot_op.ins.line} ({hot[1]} times)"
        raise KernelError(f"step budget of {self.step_budget} instruction executions exhausted{where}; a runaway or "
                          "very long loop (raise step_budget if the kernel really runs this long)",
                          op.ins.line, op.ins.opcode)


__all__ = ["Machine", "DEFAULT_STEP_BUDGET", "U64"]

"""Certain non-termination: the launch's whole state comes back (Brent's cycle detection at backward branches).

The machine is deterministic: what it does next is a function of its state alone -- every thread's PC and
liveness, every register's bits and known mask, the carry flag, shared and local memory (bytes and known
masks), the barrier phases, and the scheduler's own state (converged or not, blocked and parked threads, the
fairness round's counter).  Values the trace cannot know (``%clock``, global loads) are *unknown* in that
state, never guessed, and a branch on an unknown predicate stops its lanes, so no unknown value steers the
trace.  Hence if the state after one execution of a backward branch equals the state after an earlier one,
the trace repeats the stretch between them forever: no thread that is still live ever exits.  A loop whose
counter moves, a spin that another warp's store will release, a loop that writes memory it later reads --
each changes some part of the state, so none is ever reported; only an exact repeat is.  (The machine then
runs the cycle once more to see whether its schedule left a runnable thread out of it; such threads get a
round instead of an error: ``machine.py``, "Certain non-termination".)

:class:`LoopWatch` samples the state after every :data:`WATCH_EVERY`-th execution of a backward branch once
:data:`WATCH_AFTER` instructions have run (short kernels pay nothing; any choice of samples is sound, and
every fixed count of branches between samples finds every cycle) and compares each sample with one snapshot,
which it retakes after 1, 2, 4, ... samples (Brent): a cycle of ``p`` samples entered after ``m`` is found
within about ``2 max(m, p)`` samples.  A sample costs one comparison that stops at the first difference (the
register that differed last time is compared first, so a counted loop pays for one register); a snapshot
copies the state.

Only the plain :class:`~layoutalg.kernel.interp.machine.Machine` is watched, and only while its attributes
and memories are the ones listed here (a subclass, such as the data-flow machine, or a field added later
carries state this module does not compare, so it is not watched: its runaway loops still end at the step
budget).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from layoutalg.kernel.interp.spaces import ByteStore
from layoutalg.kernel.interp.values import Value

WATCH_AFTER = 4096  # instruction executions before backward branches are sampled
WATCH_EVERY = 4  # then every fourth execution of a backward branch is
WATCH_BYTES = 256 << 20  # shared + local memory above this (bytes and known masks) is not watched

#: Machine attributes that are compared (state) or never change during a run (configuration, the decoded
#: program, and the recorder, which the machine only writes).  Any other attribute turns the watch off.
COMPARED = frozenset({"regs", "smem", "local", "cc", "live", "bar_arrived", "bar_waiting", "bar_arrivals",
                      "bar_expected", "bar_open"})
FIXED = frozenset({"geom", "n", "shared_layout", "params", "dynamic_smem", "recorder", "step_budget", "steps",
                   "specials", "ops", "decoder"})
STORE_FIELDS = frozenset({"base", "size", "data", "known", "_flat", "_flat_known", "_words", "_known_words",
                          "writes"})  # only data and known are state (the others are views, sizes and a count)


class UnwatchableError(Exception):
    """A value this module cannot compare exactly (the watch turns off)."""


#: Scalar types whose ``==`` is exact equality of bits (no NaN, no signed zero).
EXACT_SCALARS = frozenset({bool, int, np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                           np.uint32, np.uint64})


def _key(x: Any) -> tuple[Any, ...]:
    """An exact, immutable picture of one value: equal pictures mean equal values of the same representation."""
    t = type(x)
    if t in EXACT_SCALARS:
        return (t, x)
    if (t is np.ndarray or isinstance(x, np.generic)) and not x.dtype.hasobject:
        return (t, x.dtype, x.shape, x.tobytes())
    raise UnwatchableError


def _value_key(v: Any) -> tuple[Any, ...]:
    if type(v) is not Value:
        raise UnwatchableError
    return (_key(v.bits), _key(v.known))


class _State:
    """One snapshot: the scheduler's scalars and PCs, registers by name, and the rest of the machine."""

    __slots__ = ("scalars", "pcs", "regs", "rest", "steps")

    def __init__(self, scalars: tuple[Any, ...], pcs: tuple[Any, ...] | None, regs: dict[str, tuple[Any, ...]],
                 rest: tuple[Any, ...], steps: int) -> None:
        self.scalars = scalars
        self.pcs = pcs
        self.regs = regs
        self.rest = rest
        self.steps = steps


def watchable(m: Any) -> bool:
    """Whether every piece of ``m``'s state is one this module compares (see the module doc)."""
    from layoutalg.kernel.interp.machine import Machine

    if type(m) is not Machine or not set(vars(m)) <= COMPARED | FIXED:
        return False
    stores = (m.smem, m.local)
    if any(type(s) is not ByteStore or set(vars(s)) != STORE_FIELDS for s in stores):
        return False
    return sum(s.data.nbytes + s.known.nbytes for s in stores) <= WATCH_BYTES


class LoopWatch:
    """Brent's cycle detection over the machine's state, sampled after backward branches (module doc)."""

    def __init__(self, machine: Any) -> None:
        self.m = machine
        self.on = watchable(machine)
        self.snapshot: _State | None = None
        self.power = 1
        self.length = 0
        self.hint: str | None = None  # the register that differed last, compared first
        self.period = 0  # steps between the two equal states, once found

    def sample(self, scalars: tuple[Any, ...], pcs: np.ndarray | None, blocked: np.ndarray,
               parked: np.ndarray) -> bool:
        """True when the state now equals the snapshot (the trace can never end); else maybe retake it.

        ``scalars``: the scheduler's plain state (converged, its PC if so, fairness round, ...); ``pcs``: the
        per-thread PCs (None while converged: they are then rewritten before they are read again)."""
        if not self.on:
            return False
        try:
            snap = self.snapshot
            if snap is not None and self.length < self.power:
                self.length += 1
                if self._same(snap, scalars, pcs, blocked, parked):
                    self.period = self.m.steps - snap.steps
                    return True
                if self.length < self.power:
                    return False
            self.snapshot = self._take(scalars, pcs, blocked, parked)
            if snap is not None:
                self.power *= 2
            self.length = 0
            return False
        except UnwatchableError:
            self.on = False
            self.snapshot = None
            return False

    def restart(self) -> None:
        """Forget the snapshot (the scheduler changed the state on its own: a round for starved threads)."""
        self.snapshot, self.power, self.length = None, 1, 0

    # ------------------------------------------------------------------ state
    def _parts(self, blocked: np.ndarray, parked: np.ndarray) -> tuple[Callable[[], Any], ...]:
        """Pictures of everything but the scheduler scalars, the PCs and the registers, cheap ones first."""
        m = self.m
        return (lambda: _key(m.live), lambda: _key(blocked), lambda: _key(parked), lambda: _value_key(m.cc),
                lambda: _key(m.bar_arrived), lambda: _key(m.bar_waiting), lambda: _key(m.bar_arrivals),
                lambda: _key(m.bar_expected), lambda: frozenset(m.bar_open), lambda: _key(m.smem.data),
                lambda: _key(m.smem.known), lambda: _key(m.local.data), lambda: _key(m.local.known))

    def _take(self, scalars: tuple[Any, ...], pcs: np.ndarray | None, blocked: np.ndarray,
              parked: np.ndarray) -> _State:
        regs = {name: _value_key(v) for name, v in self.m.regs.items()}
        rest = tuple(part() for part in self._parts(blocked, parked))
        return _State(scalars, None if pcs is None else _key(pcs), regs, rest, self.m.steps)

    def _same(self, snap: _State, scalars: tuple[Any, ...], pcs: np.ndarray | None, blocked: np.ndarray,
              parked: np.ndarray) -> bool:
        if scalars != snap.scalars:
            return False
        if (pcs is None) != (snap.pcs is None) or (pcs is not None and _key(pcs) != snap.pcs):
            return False
        regs = self.m.regs
        want = snap.regs
        if len(regs) != len(want):
            return False
        hint = self.hint
        if hint is not None and hint in want:
            v = regs.get(hint)
            if v is None or _key(v.bits) != want[hint][0] or _key(v.known) != want[hint][1]:
                return False
        for name, picture in want.items():
            v = regs.get(name)
            if v is None or _value_key(v) != picture:
                self.hint = name
                return False
        return all(part() == got for part, got in zip(self._parts(blocked, parked), snap.rest))


__all__ = ["LoopWatch", "WATCH_AFTER", "watchable"]

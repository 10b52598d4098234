"""The result of tracing a launch: per-instruction costs, whole-launch counters, what was not traced.

:class:`InstructionStats` is one PTX shared-memory instruction (warp executions, wavefronts,
ideal, excess, the worst warp as an example); :class:`Trace` holds them with the counters keyed by
Nsight Compute's metric names (:mod:`.counters`) and the ``unmodelled`` / ``data_dependent`` /
``not_lsu`` lists.  Counters cover modelled executions only; an unmodelled instruction's
wavefronts are missing from them, the lists say so, and ``incomplete_counters`` names every counter
something unmodelled or data-dependent feeds (the others are exact).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutalg.banks.model import conflict_counter
from layoutalg.kernel.costing import WarpCosts
from layoutalg.kernel.counters import ALL_COUNTERS, COUNTER_MAP, PREDICATED_OFF_ISSUES, counter_kind
from layoutalg.kernel.ptx.nodes import Loc
from layoutalg.kernel.records import AccessRecord, Incident


@dataclass
class InstructionStats:
    """Totals of one PTX shared-memory instruction over the traced launch."""

    index: int
    line: int
    opcode: str
    kind: str
    model_text: str
    loc: Loc | None
    site: Loc | None
    executions: int = 0
    modelled_executions: int = 0
    wavefronts: int = 0
    ideal: int = 0
    predicated_off: int = 0
    data_dependent: int = 0  # warps that executed with a data-dependent cost (counted, not costed)
    part: str = ""  # one of several SASS accesses of the PTX instruction (records.AccessRecord.part)
    generic: bool = False
    unmodelled: dict[str, int] = field(default_factory=dict)
    worst_excess: int = -1
    worst_warp: int = -1
    _worst: Any = field(default=None, repr=False, compare=False)  # (smem, active, global offsets) rows
    suggestion: str = ""
    suggested_swizzle: tuple[int, int, int] | None = None  # (B, M, S) on byte offsets
    sass_mismatch: bool = False

    @property
    def excess(self) -> int:
        return self.wavefronts - self.ideal

    @property
    def counter_kind(self) -> str:
        return counter_kind(self.kind, self.model_text)

    def add(self, rec: AccessRecord, costs: WarpCosts) -> None:
        self.executions += rec.executions
        self.generic = self.generic or rec.generic
        m = costs.modelled
        self.data_dependent += costs.data_dependent
        modelled = int(np.count_nonzero(m))
        self.modelled_executions += modelled
        self.wavefronts += int(costs.wavefronts.sum())  # unmodelled warps hold 0 (WarpCosts.empty)
        self.ideal += int(costs.ideal.sum())
        for reason, count in costs.reasons.items():
            self.unmodelled[reason] = self.unmodelled.get(reason, 0) + count
        if modelled:
            excess = costs.wavefronts - costs.ideal
            if modelled < len(m):
                excess = np.where(m, excess, -1)
            k = int(excess.argmax())
            if int(excess[k]) > self.worst_excess:
                self.worst_excess = int(excess[k])
                self._worst = (rec.smem[k], rec.active[k], None if rec.global_offset is None else rec.global_offset[k])
                self.worst_warp = int(rec.warps[k])

    @property
    def worst_smem(self) -> tuple[int | None, ...] | None:
        """The worst warp's shared addresses (None: inactive lane)."""
        if self._worst is None:
            return None
        smem, act, _ = self._worst
        return tuple(int(a) if on else None for a, on in zip(smem, act))

    @property
    def worst_global(self) -> tuple[int | None, ...] | None:
        """The worst warp's global source offsets (cp.async; None: inactive lane or not a cp.async)."""
        if self._worst is None or self._worst[2] is None:
            return None
        _, act, glob = self._worst
        return tuple(int(o) if on else None for o, on in zip(glob, act))

    def as_dict(self) -> dict[str, Any]:
        return {
            "line": self.line, "opcode": self.opcode, "source": str(self.site) if self.site else None,
            "inlined_from": str(self.loc) if self.loc and self.loc != self.site else None,
            "mnemonic": self.model_text, "kind": self.kind, "part": self.part or None,
            "warp_executions": self.executions, "modelled_executions": self.modelled_executions,
            "data_dependent_warps": self.data_dependent, "predicated_off_warps": self.predicated_off,
            "wavefronts": self.wavefronts, "ideal": self.ideal, "excess": self.excess,
            "generic_address": self.generic, "counters": list(COUNTER_MAP[self.counter_kind].wavefronts),
            "worst_warp": self.worst_warp if self.worst_warp >= 0 else None,
            "example": example(self), "suggestion": self.suggestion or None,
            "suggested_byte_swizzle": list(self.suggested_swizzle) if self.suggested_swizzle else None,
            "unmodelled": [{"reason": r, "warp_executions": c} for r, c in self.unmodelled.items()],
        }


def example(stats: InstructionStats) -> dict[str, Any] | None:
    """The worst warp's colliding lanes and banks (from ``layoutalg.banks.report``), or None if conflict-free."""
    if stats.worst_smem is None or stats.worst_excess <= 0:
        return None
    import layoutalg.banks as banks

    try:
        rep = banks.report(stats.model_text, list(stats.worst_smem),
                           global_byte_addresses=None if stats.worst_global is None else list(stats.worst_global))
    except Exception:  # noqa: BLE001 - the example is best effort; the counts above are exact
        return None
    live = {lane for lane, a in enumerate(stats.worst_smem) if a is not None}
    for k, ph in enumerate(rep.phases):
        if ph.conflicts:
            use = max(ph.conflicts, key=lambda u: u.ways)
            return {"phase": k, "bank": use.bank, "ways": use.ways,
                    "words": [{"byte": w * 4, "lanes": [lane for lane in ls if lane in live]}
                              for w, ls in zip(use.words, use.lanes)],
                    "wavefronts": rep.wavefronts, "ideal": rep.ideal}
    return {"wavefronts": rep.wavefronts, "ideal": rep.ideal}


@dataclass
class Trace:
    """A traced launch; ``report()`` renders it, ``as_dict()`` is the ``--json`` object."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    ctas: list[tuple[int, int, int]] | None
    instructions: list[InstructionStats]
    data_dependent: list[Incident]
    not_lsu: list[Incident]
    accesses: list[AccessRecord]
    shared_layout: dict[str, int]
    shared_bytes: int
    args: dict[str, str]
    buffers: list[str]
    steps: int
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    launch: Any = None  # the launch's inputs (layoutalg.kernel.dataflow.flow.Launch), to interpret it again
    removed: list[Incident] = field(default_factory=list)  # loads ptxas removes: nothing reads their result

    @property
    def counters(self) -> dict[str, int]:
        out = {name: 0 for name in ALL_COUNTERS}
        for s in self.instructions:
            cmap = COUNTER_MAP[s.counter_kind]
            if s.sass_mismatch or not cmap.counted:
                continue  # ptxas changed these accesses: the PTX-level counts are not what Nsight counts
            for name in cmap.wavefronts:
                out[name] += s.wavefronts
            for name in cmap.conflicts:
                out[name] += conflict_counter(s.model_text, s.excess) if s.excess else 0
            if s.generic:
                continue  # a generic LD/ST is not an LDS/STS: its executions are not these counters'
            for name in cmap.executions:
                out[name] += s.executions + (s.predicated_off if PREDICATED_OFF_ISSUES else 0)
        return out

    @property
    def incomplete_counters(self) -> dict[str, list[str]]:
        """Counter -> why it is not exact (what unmodelled or data-dependent feeds it); absent counters are."""
        out: dict[str, list[str]] = {}

        def feeds(names: tuple[str, ...], why: str) -> None:
            for name in names:
                out.setdefault(name, [])
                if why not in out[name]:
                    out[name].append(why)

        for s in self.instructions:
            cmap = COUNTER_MAP[s.counter_kind]
            where = f"PTX line {s.line} {s.opcode}"
            if s.sass_mismatch or not cmap.counted:
                feeds(cmap.all, f"{where}: not counted (ptxas changes it or its SASS is unknown)")
            elif s.generic:
                feeds(cmap.all, f"{where}: a generic ld/st reaching shared memory (SASS LD/ST, not LDS/STS): "
                                "where Nsight counts it is not measured")
            elif s.unmodelled:
                feeds(cmap.wavefronts + cmap.conflicts, f"{where}: unmodelled")
            if s.data_dependent:
                feeds(cmap.wavefronts + cmap.conflicts, f"{where}: data-dependent address")
        for d in self.data_dependent:
            where = f"PTX line {d.line} {d.opcode}"
            if d.scope == "control":
                feeds(ALL_COUNTERS, f"{where}: data-dependent branch (threads not traced further)")
            elif d.counter_kind:
                cmap = COUNTER_MAP[d.counter_kind]
                if d.scope == "execution":
                    feeds(cmap.all, f"{where}: data-dependent execution")
                else:
                    feeds(cmap.wavefronts + cmap.conflicts, f"{where}: data-dependent address")
        return {name: out[name] for name in ALL_COUNTERS if name in out}

    @property
    def unmodelled(self) -> list[dict[str, Any]]:
        out = []
        for s in self.instructions:
            for reason, count in s.unmodelled.items():
                out.append({"line": s.line, "opcode": s.opcode, "reason": reason, "warp_executions": count})
        return out

    @property
    def complete(self) -> bool:
        """Every shared-memory instruction modelled, nothing data-dependent, every counter exact."""
        return not self.unmodelled and not self.data_dependent and not self.incomplete_counters

    def instruction(self, line: int) -> InstructionStats:
        """The stats of the shared-memory instruction on PTX line ``line``."""
        for s in self.instructions:
            if s.line == line:
                return s
        if any(r.line == line for r in self.removed):
            raise KeyError(f"ptxas removes the shared-memory load on PTX line {line}: nothing reads its result "
                           "(Trace.removed)")
        raise KeyError(f"no shared-memory instruction on PTX line {line}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel, "grid": list(self.grid), "block": list(self.block),
            "ctas": [list(c) for c in self.ctas] if self.ctas is not None else "all",
            "counters": self.counters,
            "incomplete_counters": self.incomplete_counters,
            "instructions": [s.as_dict() for s in self.instructions],
            "unmodelled": self.unmodelled,
            "data_dependent": [d.as_dict() for d in self.data_dependent],
            "not_lsu": [d.as_dict() for d in self.not_lsu],
            "removed_by_ptxas": [d.as_dict() for d in self.removed],
            "shared_layout": self.shared_layout, "args": self.args, "steps": self.steps,
            "notes": self.notes,
        }

    def report(self, top: int | None = None) -> str:
        from layoutalg.kernel.report import render

        return render(self, top=top)

    def __str__(self) -> str:
        return self.report()

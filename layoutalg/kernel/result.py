"""The result of tracing a launch: per-instruction costs, whole-launch counters, what was not traced.

:class:`InstructionStats` is one PTX shared-memory instruction (warp executions, wavefronts,
ideal, excess, the worst warp as an example); :class:`Trace` holds them with the counters keyed by
Nsight Compute's metric names (:mod:`.counters`) and the ``unmodelled`` / ``data_dependent`` /
``not_lsu`` lists.  Counters cover modelled executions only; an unmodelled instruction's
wavefronts are missing from them and the lists say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

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
    generic: bool = False
    unmodelled: dict[str, int] = field(default_factory=dict)
    worst_excess: int = -1
    worst_smem: tuple[int | None, ...] | None = None
    worst_global: tuple[int | None, ...] | None = None
    worst_warp: int = -1
    suggestion: str = ""
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
        self.modelled_executions += int(m.sum())
        self.wavefronts += int(costs.wavefronts[m].sum())
        self.ideal += int(costs.ideal[m].sum())
        for reason, count in costs.reasons.items():
            self.unmodelled[reason] = self.unmodelled.get(reason, 0) + count
        if m.any():
            excess = np.where(m, costs.wavefronts - costs.ideal, -1)
            k = int(np.argmax(excess))
            if int(excess[k]) > self.worst_excess:
                self.worst_excess = int(excess[k])
                act = rec.active[k]
                self.worst_smem = tuple(int(a) if on else None for a, on in zip(rec.smem[k], act))
                if rec.global_offset is not None and rec.global_buffer is not None:
                    self.worst_global = tuple(int(o) if on else None
                                              for o, on in zip(rec.global_offset[k], act))
                self.worst_warp = int(rec.warps[k])

    def as_dict(self) -> dict[str, Any]:
        return {
            "line": self.line, "opcode": self.opcode, "source": str(self.site) if self.site else None,
            "inlined_from": str(self.loc) if self.loc and self.loc != self.site else None,
            "mnemonic": self.model_text, "kind": self.kind, "warp_executions": self.executions,
            "modelled_executions": self.modelled_executions, "predicated_off_warps": self.predicated_off,
            "wavefronts": self.wavefronts, "ideal": self.ideal, "excess": self.excess,
            "generic_address": self.generic, "counter": COUNTER_MAP[self.counter_kind].wavefronts,
            "worst_warp": self.worst_warp if self.worst_warp >= 0 else None,
            "example": example(self), "suggestion": self.suggestion or None,
            "unmodelled": [{"reason": r, "warp_executions": c} for r, c in self.unmodelled.items()],
        }


def example(stats: InstructionStats) -> dict[str, Any] | None:
    """The worst warp's colliding lanes and banks (from ``layoutalg.banks.report``), or None if conflict-free."""
    if stats.worst_smem is None or stats.worst_excess <= 0:
        return None
    import layoutalg.banks as banks

    try:
        rep = banks.report(stats.model_text, _filled(stats.worst_smem),
                           global_byte_addresses=None if stats.worst_global is None else _filled(stats.worst_global))
    except Exception:  # noqa: BLE001 - the example is best effort; the counts above are exact
        return None
    for k, ph in enumerate(rep.phases):
        if ph.conflicts:
            use = max(ph.conflicts, key=lambda u: u.ways)
            return {"phase": k, "bank": use.bank, "ways": use.ways,
                    "words": [{"byte": w * 4, "lanes": list(ls)} for w, ls in zip(use.words, use.lanes)],
                    "wavefronts": rep.wavefronts, "ideal": rep.ideal}
    return {"wavefronts": rep.wavefronts, "ideal": rep.ideal}


def _filled(addrs: tuple[int | None, ...]) -> list[int]:
    """Inactive lanes (None) take an active lane's address: they add no word (see :mod:`.costing`)."""
    first = next(a for a in addrs if a is not None)
    return [first if a is None else a for a in addrs]


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

    @property
    def counters(self) -> dict[str, int]:
        out = {name: 0 for name in ALL_COUNTERS}
        for s in self.instructions:
            if s.sass_mismatch:
                continue  # ptxas changed these accesses: the PTX-level counts are not what Nsight counts
            cmap = COUNTER_MAP[s.counter_kind]
            if cmap.wavefronts:
                out[cmap.wavefronts] += s.wavefronts
            if cmap.conflicts:
                out[cmap.conflicts] += s.excess
            for name in cmap.executions:
                out[name] += s.executions + (s.predicated_off if PREDICATED_OFF_ISSUES else 0)
        return out

    @property
    def unmodelled(self) -> list[dict[str, Any]]:
        out = []
        for s in self.instructions:
            for reason, count in s.unmodelled.items():
                out.append({"line": s.line, "opcode": s.opcode, "reason": reason, "warp_executions": count})
        return out

    @property
    def complete(self) -> bool:
        """Every shared-memory instruction modelled and nothing data-dependent."""
        return not self.unmodelled and not self.data_dependent

    def instruction(self, line: int) -> InstructionStats:
        """The stats of the shared-memory instruction on PTX line ``line``."""
        for s in self.instructions:
            if s.line == line:
                return s
        raise KeyError(f"no shared-memory instruction on PTX line {line}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel, "grid": list(self.grid), "block": list(self.block),
            "ctas": [list(c) for c in self.ctas] if self.ctas is not None else "all",
            "counters": self.counters,
            "instructions": [s.as_dict() for s in self.instructions],
            "unmodelled": self.unmodelled,
            "data_dependent": [d.as_dict() for d in self.data_dependent],
            "not_lsu": [d.as_dict() for d in self.not_lsu],
            "shared_layout": self.shared_layout, "args": self.args, "steps": self.steps,
            "notes": self.notes,
        }

    def report(self, top: int | None = None) -> str:
        from layoutalg.kernel.report import render

        return render(self, top=top)

    def __str__(self) -> str:
        return self.report()

"""What the interpreter records: warp-level shared-memory accesses and everything it could not trace.

An :class:`AccessRecord` is one PTX instruction executed by a batch of warps at one
step of the trace (all warps of all traced CTAs that were at that instruction
together): per warp its global warp id (``cta_index * warps_per_cta + warp``), the
active-lane mask, each lane's shared-window byte address (for ``ldmatrix`` /
``stmatrix``: the row address the lane supplies) and, for ``cp.async``, each lane's
global source as (buffer id, byte offset).  Inactive lanes hold 0.  A warp in ``dropped``
executed the instruction but some lane's address (or global source) was unknown: it counts
as an execution, and its cost is data-dependent (never guessed from the known lanes).
``part`` names one of several SASS accesses a PTX instruction becomes (``tensormap.replace``).

An :class:`Incident`'s ``scope`` says what the unknown value leaves open: ``address`` the
instruction's cost (its executions are known), ``execution`` whether it executes at all
(an unknown guard, an unknown generic address), ``control`` everything after it (threads
stopped at an unknown branch).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class AccessRecord:
    """One instruction executed by ``len(warps)`` warps at step ``step`` (see the module doc)."""

    index: int
    line: int
    opcode: str
    kind: str  # ld, st, ldmatrix, stmatrix, cp.async, atom, red
    access_bytes: int
    model_text: str  # the mnemonic handed to the bank model
    step: int
    warps: np.ndarray  # (W,) int64
    active: np.ndarray  # (W, 32) bool
    smem: np.ndarray  # (W, 32) int64
    global_buffer: np.ndarray | None = None  # (W, 32) int64
    global_offset: np.ndarray | None = None  # (W, 32) int64
    src_size: np.ndarray | None = None  # (W, 32) int64, cp.async bytes read from global (rest zero-filled)
    generic: bool = False  # reached shared memory through a generic address
    dropped: np.ndarray | None = None  # (W,) bool: executed, but the cost is data-dependent
    part: str = ""  # one of several SASS accesses of one PTX instruction (empty: the instruction itself)
    refusal: str = ""  # why no warp of it is costed, whatever its addresses (kernel.interp.narrowing.UNDECIDED)

    @property
    def executions(self) -> int:
        return len(self.warps)


@dataclass
class Incident:
    """Something at one PTX instruction that was not traced exactly: data-dependent or unmodelled."""

    index: int
    line: int
    opcode: str
    reason: str
    count: int = 1
    lanes: int = 0
    scope: str = "address"  # address | execution | control (module doc)
    counter_kind: str = ""  # the instruction's key in counters.COUNTER_MAP (filled in by the trace)

    def as_dict(self) -> dict[str, object]:
        return {"line": self.line, "opcode": self.opcode, "reason": self.reason, "warp_executions": self.count,
                "lanes": self.lanes, "scope": self.scope}


REMOVED = "removed by ptxas: nothing reads its result, so no LDS/LDSM is issued (kernel.interp.narrowing)"


@dataclass
class Recorder:
    """Collects access records and incidents while a launch is interpreted."""

    accesses: list[AccessRecord] = field(default_factory=list)
    data_dependent: dict[tuple[int, str], Incident] = field(default_factory=dict)
    not_lsu: dict[int, Incident] = field(default_factory=dict)
    predicated_off: dict[int, int] = field(default_factory=dict)
    removed: dict[int, Incident] = field(default_factory=dict)  # loads ptxas removes (kernel.interp.narrowing)

    def data_dependence(self, index: int, line: int, opcode: str, reason: str, warps: int, lanes: int,
                        scope: str = "address") -> None:
        key = (index, reason)
        inc = self.data_dependent.get(key)
        if inc is None:
            self.data_dependent[key] = Incident(index, line, opcode, reason, warps, lanes, scope)
        else:
            inc.count += warps
            inc.lanes += lanes

    def removed_by_ptxas(self, index: int, line: int, opcode: str, warps: int) -> None:
        """``warps`` executions of a load ptxas removes because nothing reads its result (no SASS instruction)."""
        inc = self.removed.get(index)
        if inc is None:
            self.removed[index] = Incident(index, line, opcode, REMOVED, warps, scope="execution")
        else:
            inc.count += warps

    def outside_lsu(self, index: int, line: int, opcode: str, reason: str, warps: int) -> None:
        inc = self.not_lsu.get(index)
        if inc is None:
            self.not_lsu[index] = Incident(index, line, opcode, reason, warps)
        else:
            inc.count += warps

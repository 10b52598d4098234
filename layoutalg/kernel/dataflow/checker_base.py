"""The state and reporting helpers every part of the mma check shares (:class:`CheckerBase`), and
:class:`Finding`, one refutation or reason for "unknown"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.arith import classify
from layoutalg.kernel.dataflow.fragments import MmaForm
from layoutalg.kernel.dataflow.paged import PagedArray
from layoutalg.kernel.dataflow.specs import MatrixSpec


@dataclass
class Finding:
    """One refutation or reason for "unknown", with its counterexample fields."""

    verdict: str  # "refuted" or "unknown"
    kind: str
    message: str
    fields: dict[str, Any] = field(default_factory=dict)

class CheckerBase:
    """The matrices, the problem shape, the findings and the per-unit record of C (filled by ``begin``)."""

    M: int
    N: int
    K: int
    fn: Any
    buffer_names: list[str]
    c_units: int
    c_tag: PagedArray
    c_op: PagedArray
    c_who: PagedArray
    c_item: PagedArray
    c_last: PagedArray
    c_outside: int
    c_checked: int

    def __init__(self, a: MatrixSpec, b: MatrixSpec, c: MatrixSpec) -> None:
        self.a, self.b, self.c = a, b, c
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, int]] = set()
        self.forms: dict[int, MmaForm | str] = {}
        self.products = 0
        self.mma_executions = 0
        self.fma_lanes = 0
        self.c_seeded = 0  # mma C inputs that were C's old values (D = A B + C)
        self.c_store_types: set[str] = set()  # the float types stores to C name ("other": none of them)
        self.esize: dict[str, int] = {}
        self.tile_counts: np.ndarray | None = None
        self.tile_shape: tuple[int, int, int] | None = None
        self.elem_counts: np.ndarray | None = None
        self.elem_keys: list[np.ndarray] = []
        self.state: Any = None
        self.cta_offset = 0
        self._decode_cache: dict[tuple[int, int, int], tuple[Any, Any]] = {}

    def _where(self, thread: int) -> dict[str, Any]:
        g = self.state.geom
        cta = g.ctas[int(g.cta_index[thread])]
        return {"cta": list(cta), "warp": int(g.warpid[thread]), "lane": int(g.laneid[thread])}

    def _find(self, verdict: str, kind: str, key: int, message: str, **fields: Any) -> None:
        if (kind, key) in self._seen:
            return
        self._seen.add((kind, key))
        self.findings.append(Finding(verdict, kind, message, fields))

    def describe_group(self, group: np.ndarray, ue: int) -> str:
        """An element's units in words (``A(3, 5)``, an accumulator, an untagged value...)."""
        g = np.asarray(group, dtype=np.int64).reshape(1, ue)
        none, acc, glob, ident = classify(g)
        t = int(g[0, 0])
        if none[0]:
            return "an untagged value (not loaded from A or B)"
        if acc[0]:
            m, n, d, _p, _w, der = (int(x) for x in tg.acc_fields(ident[0]))
            return (f"the accumulator of C({m}, {n}) after {d} k-products" +
                    (" (after element-wise arithmetic)" if der else ""))
        if glob[0]:
            buf, off = int(tg.glob_buf(t)), int(tg.glob_off(t))
            tail = " (loaded, after element-wise arithmetic)" if tg.glob_derived(t) else ""
            for s in (self.a, self.b, self.c):
                if buf == s.buffer and off % (2 * ue) == 0:
                    r, c, ok = s.coordinate(np.array([off // (2 * ue)]))
                    if ok[0]:
                        return f"{s.role}({int(r[0])}, {int(c[0])}){tail}"
                    return f"element {off // (2 * ue)} of {s.role}'s buffer (outside its layout){tail}"
            name = self.buffer_names[buf] if 0 <= buf < len(self.buffer_names) else f"{buf} (no parameter or variable)"
            return f"bytes {off}..{off + 2 * ue - 1} of buffer {name}{tail}"
        if tg.kind(t) == tg.K_OPAQUE:
            op, why = (int(x) for x in tg.opaque_fields(t))
            ins = self.fn.body[op]
            return f"a value derived at PTX line {ins.line} ({ins.opcode}) through {tg.WHY.get(why, 'unmodelled')}"
        return "parts of several values"

    # ------------------------------------------------------------------ operand decoding
    def _operand(self, spec: MatrixSpec, groups: np.ndarray, ue: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, col, valid) of element groups (..., ue) that are elements of ``spec``'s matrix."""
        shape = groups.shape[:-1]
        flat = groups.reshape(-1, ue)
        _none, _acc, glob, first = classify(flat)
        ok = glob & (tg.glob_buf(first) == spec.buffer) & (tg.glob_off(first) % (2 * ue) == 0) & \
            (tg.glob_derived(first) == 0)
        r, c, inside = spec.coordinate(np.where(ok, tg.glob_off(first) // (2 * ue), -1))
        ok &= inside
        return r.reshape(shape), c.reshape(shape), ok.reshape(shape)

    def _element_size(self, role: str, size: int, op: Any) -> bool:
        old = self.esize.setdefault(role, size)
        if old != size:
            self._find("unknown", "types", op.index, f"{role} is read as {old}-byte and as {size}-byte elements "
                       f"(PTX line {op.ins.line})", line=op.ins.line)
            return False
        return True


"""An executed ``mma`` instruction as the check sees it: its atom, registers and fragment tables.

The tables come from the atoms' PTX fragment formulas (``MmaAtom.fragment_coord``, written from the
PTX ISA's "Matrix Fragments for mma.mMnNkK"): for operand X, ``row[X][lane, i]`` and ``col[X][lane, i]``
are the PTX-matrix coordinates (A: M x K, B: K x N, C/D: M x N) of element ``i`` of ``lane``; element
``i`` lives in register ``i // E``, 16-bit unit ``i % E`` for 16-bit types (E = 2) or in both units of
register ``i`` for 32-bit ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutalg.core.dtypes import dtype_bits
from layoutalg.errors import LayoutError
from layoutalg.kernel.ptx.nodes import Instruction, Reg, Vec

_SHAPE = re.compile(r"^m(\d+)n(\d+)k(\d+)$")
BITS = {name: dtype_bits(name) for name in ("f16", "bf16", "tf32", "f32")}


@dataclass
class MmaForm:
    """One mma instruction's atom, operand registers and per-operand unit layout."""

    atom: Any
    regs: dict[str, list[str]]  # "A" "B" "C" "D" -> register names
    ue: dict[str, int]  # units per element
    row: dict[str, np.ndarray]  # (32, elements)
    col: dict[str, np.ndarray]

    @property
    def shape(self) -> tuple[int, int, int]:
        return tuple(self.atom.shape_mnk)  # type: ignore[return-value]

    def element_bytes(self, operand: str) -> int:
        return 2 * self.ue[operand]


def mma_form(ins: Instruction) -> MmaForm:
    """The :class:`MmaForm` of ``ins``; LayoutError naming what the check does not support."""
    from layoutalg.atoms import catalog

    parts = list(ins.parts)
    shape = next((p for p in parts if _SHAPE.match(p)), None)
    types = [p for p in parts if p in ("f16", "bf16", "tf32", "f32", "f64", "s32", "s8", "u8", "s4", "u4", "e4m3",
                                         "e5m2", "b1")]
    layout = ".".join(p for p in parts if p in ("row", "col")) or "row.col"
    if shape is None or len(types) != 4:
        raise LayoutError(f"{ins.opcode}: cannot read the shape and the four types")
    d, a, b, c = types
    if any(t not in BITS for t in (a, b, c, d)) or c != d:
        raise LayoutError(f"{ins.opcode}: the check supports 16-bit (f16, bf16) and tf32 operands with an f16 or "
                          "f32 accumulator of the same type as D")
    try:
        atom = catalog.mma(shape, a, b, c, layout=layout)
    except LayoutError as exc:
        raise LayoutError(f"{ins.opcode}: no atom for this mma ({exc})") from None
    if atom.arch == 70:
        raise LayoutError(f"{ins.opcode}: sm70 quad-pair mma (m8n8k4) is not supported by the check")
    regs: dict[str, list[str]] = {}
    for name, operand in zip("DABC", ins.operands[:4]):
        items = list(operand.items) if isinstance(operand, Vec) else [operand]
        if not all(isinstance(x, Reg) for x in items):
            raise LayoutError(f"{ins.opcode}: operand {name} is not a list of registers")
        regs[name] = [x.name for x in items]  # type: ignore[union-attr]
    ue, row, col = {}, {}, {}
    for op_name, t in (("A", a), ("B", b), ("C", c)):
        n_el = atom.num_elements(op_name)
        ue[op_name] = BITS[t] // 16
        e = 2 // ue[op_name]
        if len(regs[op_name]) * e != n_el:
            raise LayoutError(f"{ins.opcode}: operand {op_name} has {len(regs[op_name])} registers, the atom "
                              f"{atom.name} {n_el // e}")
        row[op_name], col[op_name] = fragment_table(atom, op_name)
    ue["D"] = ue["C"]
    if len(regs["D"]) != len(regs["C"]):
        raise LayoutError(f"{ins.opcode}: D and C have different register counts")
    return MmaForm(atom, regs, ue, row, col)


_TABLES: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}


def fragment_table(atom: Any, operand: str) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) arrays (32, elements) of ``atom``'s PTX fragment formula for ``operand`` (cached)."""
    key = (atom.name, operand)
    if key not in _TABLES:
        n_el = atom.num_elements(operand)
        tab = np.array([[atom.fragment_coord(operand, lane, i) for i in range(n_el)] for lane in range(32)],
                       dtype=np.int64)
        _TABLES[key] = (tab[..., 0], tab[..., 1])
    return _TABLES[key]


def gather(planes: list[np.ndarray | None], threads: np.ndarray, ue: int) -> np.ndarray:
    """Element unit groups (k, elements, ue) of registers ``planes`` for ``threads``."""
    cols = []
    for p in planes:
        if p is None:
            cols.append(np.full((threads.size, 2), -1, dtype=np.int64))
        else:
            q = p[threads, :2]
            if q.shape[1] < 2:
                q = np.concatenate([q, np.full((threads.size, 2 - q.shape[1]), -1, dtype=np.int64)], axis=1)
            cols.append(q)
    return np.stack(cols, axis=1).reshape(threads.size, -1, ue)


def value_groups(values: list[Any], threads: np.ndarray, n: int, ue: int) -> tuple[np.ndarray, np.ndarray]:
    """(element is a known zero, element's 16-bit unit values) for interpreter Values of the registers."""
    zero, vals = [], []
    for v in values:
        bits = np.broadcast_to(np.asarray(v.bits, dtype=np.uint64), (n,))[threads]
        known = np.broadcast_to(np.asarray(v.known, dtype=bool), (n,))[threads]
        lo, hi = bits & np.uint64(0xFFFF), (bits >> np.uint64(16)) & np.uint64(0xFFFF)
        if ue == 2:
            zero.append((known & ((bits & np.uint64(0x7FFFFFFF)) == 0))[:, None])
        else:
            zero.append(np.stack([known & ((lo & np.uint64(0x7FFF)) == 0), known & ((hi & np.uint64(0x7FFF)) == 0)],
                                 axis=1))
        vals.append(np.stack([lo, hi], axis=1))
    return np.concatenate(zero, axis=1), np.stack(vals, axis=1)

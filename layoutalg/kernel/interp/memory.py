"""Shared-memory access mechanics shared by the memory instructions: addresses, checks, records, bytes.

* :func:`address_reader` evaluates an address operand ``[base+offset]`` per thread.
* :func:`checked_shared_lanes` splits the executing lanes into those with a known address
  (returned, after bounds and alignment checks that raise :class:`KernelError` naming the line)
  and those whose address is unknown (recorded as data-dependent, never guessed).
* :func:`record` appends one :class:`~layoutalg.kernel.records.AccessRecord` for the warps involved.
* :func:`store_shared` writes bytes; lanes of one instruction writing different values to the
  same byte leave it unknown (the hardware picks one writer, unspecified which).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from layoutalg.core.validate import describe
from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import Context, Op
from layoutalg.kernel.interp.values import U64, Value
from layoutalg.kernel.ptx.nodes import Addr, Instruction, Operand, Reg, Sym
from layoutalg.kernel.records import AccessRecord


def address_reader(ctx: Context, op: Operand, ins: Instruction) -> Callable[[Any], Value]:
    """``machine -> Value`` of the address ``[base + offset]`` (uint64 bits per thread)."""
    if not isinstance(op, Addr):
        raise KernelError(f"expected an address operand [..], got {describe(op)}", ins.line, ins.opcode)
    off = U64(op.offset % (1 << 64))
    if op.base is None:
        v = Value(off)
        return lambda m: v
    if isinstance(op.base, Sym):
        if op.base.name not in ctx.symbols:
            raise KernelError(f"unknown symbol {describe(op.base.name)}", ins.line, ins.opcode)
        v = Value(U64((ctx.symbols[op.base.name] + op.base.offset + op.offset) % (1 << 64)))
        return lambda m: v
    assert isinstance(op.base, Reg)
    read = ctx.reader(op.base, "u64", ins, address=True)
    if op.offset == 0:
        return read

    def with_offset(m: Any) -> Value:
        b = read(m)
        return Value(np.asarray(b.bits, dtype=np.uint64) + off, b.known)
    return with_offset


def full(bits: Any, n: int, dtype: Any = np.uint64) -> np.ndarray:
    arr = np.asarray(bits, dtype=dtype)
    return np.broadcast_to(arr, (n,)) if arr.ndim == 0 else arr


def checked_shared_lanes(m: Any, op: Op, addr: Value, lanes: np.ndarray, width: int, align: int,
                         writes: bool, what: str, generic: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(lanes with a known shared address, addresses as int64 over all threads); see the module doc.

    ``generic``: the lanes' addresses are generic ones whose window is unknown, so whether they reach
    shared memory at all is data-dependent (scope ``execution``)."""
    n = m.n
    bits = full(addr.bits, n)
    a = bits.astype(np.int64)
    if addr.known is not True:
        known = np.broadcast_to(np.asarray(addr.known), (n,))
        unknown = lanes & ~known
        if unknown.any():
            warps = int(unknown.reshape(-1, 32).any(axis=1).sum())
            m.recorder.data_dependence(op.index, op.ins.line, op.ins.opcode,
                                       f"{what} address depends on a value unknown at trace time "
                                       "(loaded from global memory or computed from one)", warps, int(unknown.sum()),
                                       "execution" if generic else "address")
            if writes:
                m.smem.forget_rows(m.geom.cta_index[unknown])
            lanes = lanes & known
    every = bool(lanes.all())
    if every or lanes.any():
        la = a if every else a[lanes]
        lo, hi = int(la.min()), int(la.max())
        if lo < m.smem.base or hi + width > m.smem.base + m.smem.size:
            bad = lo if lo < m.smem.base else hi
            raise KernelError(f"shared-memory address {bad} ({width} bytes) is outside the CTA's shared memory "
                              f"[{m.smem.base}, {m.smem.base + m.smem.size}) (static + dynamic; dynamic_smem="
                              f"{m.dynamic_smem})", op.ins.line, op.ins.opcode)
        if align > 1 and (la & (align - 1)).any():  # alignments are powers of two
            bad = int(la[la % align != 0][0])
            raise KernelError(f"misaligned shared-memory address {bad} for a {align}-byte access", op.ins.line,
                              op.ins.opcode)
    return lanes, a


def record(m: Any, op: Op, kind: str, model_text: str, width: int, lanes: np.ndarray, smem: np.ndarray,
           global_buffer: np.ndarray | None = None, global_offset: np.ndarray | None = None,
           src_size: np.ndarray | None = None, generic: bool = False, issued: np.ndarray | None = None,
           part: str = "", refusal: str = "") -> None:
    """Append the access record of the warps with a lane in ``issued`` (default ``lanes``): ``lanes`` are
    those with a known address; a warp with an issued lane outside them is ``dropped`` (its cost unknown)."""
    if issued is not None and (issued is lanes or not (issued & ~lanes).any()):
        issued = None
    if issued is None and lanes.all():  # every thread: no selection, no masking
        rows, every_lane = _whole_warps(lanes.size // 32)

        def whole(x: np.ndarray | None) -> np.ndarray | None:  # copies: the record outlives the registers
            return None if x is None else x.reshape(-1, 32).astype(np.int64)

        m.recorder.accesses.append(AccessRecord(
            index=op.index, line=op.ins.line, opcode=op.ins.opcode, kind=kind, access_bytes=width,
            model_text=model_text, step=m.steps, warps=rows, active=every_lane,
            smem=smem.reshape(-1, 32).astype(np.int64), global_buffer=whole(global_buffer),
            global_offset=whole(global_offset), src_size=whole(src_size), generic=generic, part=part,
            refusal=refusal))
        return
    rows_mask = lanes.reshape(-1, 32)
    issued_mask = rows_mask if issued is None else issued.reshape(-1, 32)
    any_row = issued_mask.any(axis=1)
    rows = np.flatnonzero(any_row)
    if rows.size == 0:
        return
    active = rows_mask[rows]
    dropped = None
    if issued is not None:
        lost = (issued_mask[rows] & ~active).any(axis=1)
        if lost.any():
            dropped = lost

    every = bool(active.all())

    def per_warp(x: np.ndarray) -> np.ndarray:
        y = x if every else np.where(lanes, x, 0)
        return y.reshape(-1, 32)[rows].astype(np.int64)

    def optional(x: np.ndarray | None) -> np.ndarray | None:
        return None if x is None else per_warp(x)

    m.recorder.accesses.append(AccessRecord(
        index=op.index, line=op.ins.line, opcode=op.ins.opcode, kind=kind, access_bytes=width,
        model_text=model_text, step=m.steps, warps=rows.astype(np.int64), active=active,
        smem=per_warp(smem), global_buffer=optional(global_buffer), global_offset=optional(global_offset),
        src_size=optional(src_size), generic=generic, dropped=dropped, part=part, refusal=refusal))


_WHOLE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _whole_warps(warps: int) -> tuple[np.ndarray, np.ndarray]:
    """(warp indices, all-active lane mask) for ``warps`` whole warps: shared, read-only arrays."""
    got = _WHOLE.get(warps)
    if got is None:
        rows, act = np.arange(warps, dtype=np.int64), np.ones((warps, 32), dtype=bool)
        rows.setflags(write=False)
        act.setflags(write=False)
        got = _WHOLE[warps] = (rows, act)
    return got


def load_shared(m: Any, lanes: np.ndarray, addr: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(bits, known) over all threads for ``width`` bytes at ``addr`` (only ``lanes`` are read)."""
    bits = np.zeros(m.n, dtype=np.uint64)
    known = np.zeros(m.n, dtype=bool)
    if lanes.any():
        b, k = m.smem.read(m.geom.cta_index[lanes], addr[lanes], width)
        bits[lanes] = b
        known[lanes] = k
    return bits, known


def store_shared(m: Any, lanes: np.ndarray, addr: np.ndarray, width: int, bits: Any, known: Any) -> None:
    """Write ``width`` bytes of ``bits`` at ``addr`` for ``lanes`` (see the module doc for races)."""
    if not lanes.any():
        return
    rows = m.geom.cta_index[lanes]
    a = addr[lanes]
    vals = full(bits, m.n)[lanes].astype(np.uint64)
    kn = np.broadcast_to(np.asarray(known), (m.n,))[lanes]
    m.smem.write(rows, a, width, vals, kn)
    keys = rows * (1 << 32) + a
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    same = k[1:] == k[:-1]
    if same.any():
        v = vals[order]
        differ = same & ((v[1:] != v[:-1]) | (kn[order][1:] != kn[order][:-1]))
        if differ.any():
            hit = order[1:][differ]
            m.smem.forget(rows[hit], a[hit], width)

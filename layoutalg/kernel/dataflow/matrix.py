"""Rules of ldmatrix / stmatrix (``.m8n8 .b16``): the same lane/row/half map as the interpreter
(:mod:`layoutalg.kernel.interp.matrixops`, from the PTX ISA fragment figures), on tags.

Lane ``t``'s register ``j`` holds halves ``(M_j[t/4][2(t%4)], M_j[t/4][2(t%4)+1])`` of matrix ``j``
(rows at the addresses of lanes ``8j..8j+7``), or with ``.trans`` ``(M_j[2(t%4)][t/4],
M_j[2(t%4)+1][t/4])``.  Unit 0 of the register is the first half.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.memory import _known_lanes, shared_ok
from layoutalg.kernel.dataflow.rules import Rule, rule
from layoutalg.kernel.interp.decode import Context, Op
from layoutalg.kernel.interp.matrixops import _shape  # the interpreter's: it refuses other shapes at decode
from layoutalg.kernel.interp.memory import address_reader
from layoutalg.kernel.interp.spaces import SMEM_BASE
from layoutalg.kernel.ptx.nodes import Instruction, Reg, Vec

LANE = np.arange(32)


def half_sources(count: int, trans: bool) -> tuple[np.ndarray, np.ndarray]:
    """(row lane (count, 32, 2), byte offset in the row (count, 32, 2)) of each (register, lane, half)."""
    j = np.arange(count)[:, None, None]
    h = np.arange(2)[None, None, :]
    t = LANE[None, :, None]
    if not trans:
        row = 8 * j + t // 4 + 0 * h
        off = 4 * (t % 4) + 2 * h + 0 * j
    else:
        row = 8 * j + 2 * (t % 4) + h
        off = 2 * (t // 4) + 0 * h + 0 * j
    return np.broadcast_to(row, (count, 32, 2)).copy(), np.broadcast_to(off, (count, 32, 2)).copy()


def _warp_addresses(m: Any, mask: Any, v: Any, count: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(warp rows executing (W,), their 32 row addresses (W, 32)); None when some used address is
    unknown or invalid (the interpreter records or raises)."""
    f = m.flow
    lanes = f.lanes(m, mask)
    ok, a = _known_lanes(v, lanes, m.n)
    rows = np.flatnonzero(lanes.reshape(-1, 32).any(axis=1))
    used = LANE < 8 * count
    okw = ok.reshape(-1, 32)[rows]
    if not (okw[:, used]).all():
        return None
    addr = a.reshape(-1, 32)[rows]
    if not shared_ok(m, addr[:, used].reshape(-1), 16) or (addr[:, used] % 16).any():
        return None
    return rows, addr


@rule("ldmatrix")
def ldmatrix_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    count, trans = _shape(ins)  # decoding already refused every other shape
    dest = ins.operands[0]
    names = [x.name if isinstance(x, Reg) else None for x in (dest.items if isinstance(dest, Vec) else (dest,))]
    read_addr = address_reader(ctx, ins.operands[1], ins)
    src_row, src_off = half_sources(count, trans)

    def run(m: Any, mask: Any) -> None:
        f = m.flow
        got = _warp_addresses(m, mask, read_addr(m), count)
        if got is None:
            code = tg.opaque(op.index, tg.W_GLOBAL_ADDR)
            f.regs.set_opaque([nm for nm in names if nm], code, f.lanes(m, mask))
            return
        rows, addr = got
        byte = addr[:, src_row] + src_off[None]  # (W, count, 32, 2)
        units = (byte - SMEM_BASE) // 2
        g = f.geom
        W = rows.size
        cta = np.broadcast_to((rows // g.warps_per_cta)[:, None, None, None], units.shape)
        warp = np.broadcast_to((rows % g.warps_per_cta)[:, None, None, None], units.shape)
        tags = f.shared.read(op.index, cta.reshape(-1), warp.reshape(-1), units.reshape(-1)).reshape(units.shape)
        threads = (rows[:, None] * 32 + LANE[None, :]).reshape(-1)
        f.sample(op.index, threads, units.transpose(0, 2, 1, 3).reshape(W * 32, count * 2),
                 tags.transpose(0, 2, 1, 3).reshape(W * 32, count * 2))
        for j, nm in enumerate(names):
            if nm is None:
                continue
            plane = np.full((m.n, 2), tg.NONE, dtype=np.int64)
            plane[threads] = tags[:, j].reshape(W * 32, 2)
            f.regs.put(nm, plane, mask)
    return run


@rule("stmatrix")
def stmatrix_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    count, trans = _shape(ins)  # decoding already refused every other shape
    read_addr = address_reader(ctx, ins.operands[0], ins)
    src = ins.operands[1]
    names = [x.name if isinstance(x, Reg) else None for x in (src.items if isinstance(src, Vec) else (src,))]
    dst_row, dst_off = half_sources(count, trans)

    def run(m: Any, mask: Any) -> None:
        f = m.flow
        got = _warp_addresses(m, mask, read_addr(m), count)
        if got is None:
            f.shared.forget(op.index, f.geom.cta_index[f.lanes(m, mask)], tg.W_SMEM_WRITE)
            return
        rows, addr = got
        W = rows.size
        threads = (rows[:, None] * 32 + LANE[None, :]).reshape(-1)
        vals = np.full((W, count, 32, 2), tg.NONE, dtype=np.int64)
        for j, nm in enumerate(names):
            p = f.regs.get(nm) if nm else None
            if p is not None:
                vals[:, j] = p[threads, :2].reshape(W, 32, 2)
        byte = addr[:, dst_row] + dst_off[None]
        units = (byte - SMEM_BASE) // 2
        g = f.geom
        cta = np.broadcast_to((rows // g.warps_per_cta)[:, None, None, None], units.shape).reshape(-1)
        warp = np.broadcast_to((rows % g.warps_per_cta)[:, None, None, None], units.shape).reshape(-1)
        flat = vals.reshape(-1).copy()
        f.shared.write(op.index, cta, warp, units.reshape(-1), flat)
        f.sample(op.index, threads, units.transpose(0, 2, 1, 3).reshape(W * 32, count * 2),
                 flat.reshape(vals.shape).transpose(0, 2, 1, 3).reshape(W * 32, count * 2))
    return run

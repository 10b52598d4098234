"""Warp-level data exchange (PTX ISA 8.x, "Parallel Synchronization and Communication"): shfl, vote,
match, redux, activemask, elect, movmatrix.  Values are exchanged among the lanes that execute the
instruction together (the active lanes of each warp); reading a lane that does not take part gives
an unknown value, as the ISA leaves it undefined.

``shfl``: ``segmask = c[12:8]``, ``clamp = c[4:0]``, ``maxLane = (lane & segmask) | (clamp & ~segmask)``,
``minLane = lane & segmask``; up ``j = lane - b`` valid if ``j >= maxLane``; down ``j = lane + b``,
bfly ``j = lane ^ b``, idx ``j = minLane | (b & ~segmask)`` valid if ``j <= maxLane``; an invalid ``j``
reads the lane's own value; the optional predicate is the validity.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import Context, Op, builder, instr_type, type_bits
from layoutalg.kernel.interp.values import MASKS, U64, as_s, known_and
from layoutalg.kernel.ptx.nodes import Instruction, PredPair

LANE = np.arange(32, dtype=np.int64)


def _rows(x: Any, n: int, dtype: Any = np.uint64) -> np.ndarray:
    return np.broadcast_to(np.asarray(x, dtype=dtype), (n,)).reshape(-1, 32)


def _known_rows(k: Any, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(k), (n,)).reshape(-1, 32)


def _dest(ctx: Context, ins: Instruction) -> tuple[Any, Any, list[str]]:
    """Writers of ``d`` (``.b32``) and, in a ``d|p`` pair, ``p`` (``.pred``)."""
    d = ins.operands[0]
    if isinstance(d, PredPair):
        w1, d1 = ctx.writer(d.first, ins, type_="b32")
        w2, d2 = ctx.writer(d.second, ins, type_="pred")
        return w1, w2, d1 + d2
    w, ds = ctx.writer(d, ins, type_="b32")
    return w, None, ds


@builder("shfl")
def build_shfl(ins: Instruction, ctx: Context, idx: int) -> Op:
    mode = [p for p in ins.parts if p in ("up", "down", "bfly", "idx")]
    if not mode:
        raise KernelError("shfl needs .up/.down/.bfly/.idx", ins.line, ins.opcode)
    w, wp, dests = _dest(ctx, ins)
    ra, rb, rc = (ctx.reader(op, "b32", ins) for op in ins.operands[1:4])

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        n = m.n
        a, b, c = ra(m), rb(m), rc(m)
        bv = (_rows(b.bits, n) & U64(31)).astype(np.int64)
        cv = _rows(c.bits, n).astype(np.int64)
        seg = (cv >> 8) & 31
        clamp = cv & 31
        max_lane = (LANE & seg) | (clamp & ~seg)
        min_lane = LANE & seg
        if mode[0] == "up":
            j = LANE - bv
            valid = j >= max_lane
        else:
            j = {"down": LANE + bv, "bfly": LANE ^ bv, "idx": min_lane | (bv & ~seg)}[mode[0]]
            valid = j <= max_lane
        j = np.where(valid, j, LANE).clip(0, 31)
        act = lanes.reshape(-1, 32)
        src_vals = np.take_along_axis(_rows(a.bits, n), j, axis=1)
        src_known = np.take_along_axis(_known_rows(a.known, n) & act, j, axis=1)
        known = src_known & _known_rows(known_and(b.known, c.known), n)
        w(m, src_vals.reshape(-1), known.reshape(-1), lanes)
        if wp is not None:
            wp(m, valid.reshape(-1), _known_rows(known_and(b.known, c.known), n).reshape(-1), lanes)

    return Op(idx, ins, run, dests=dests)


@builder("vote")
def build_vote(ins: Instruction, ctx: Context, idx: int) -> Op:
    mode = [p for p in ins.parts if p in ("all", "any", "uni", "ballot")]
    if not mode:
        raise KernelError("vote needs .all/.any/.uni/.ballot", ins.line, ins.opcode)
    w, dests = ctx.writer(ins.operands[0], ins, type_="b32" if mode[0] == "ballot" else "pred")
    rp = ctx.reader(ins.operands[1], "pred", ins)

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        act = lanes.reshape(-1, 32)
        p = rp(m)
        pv = _rows(p.bits, m.n, bool) & act
        pk = (_known_rows(p.known, m.n) | ~act).all(axis=1, keepdims=True)
        if mode[0] == "ballot":
            out = (pv.astype(np.uint64) << LANE.astype(np.uint64)).sum(axis=1, keepdims=True).astype(np.uint64)
        elif mode[0] == "all":
            out = (pv | ~act).all(axis=1, keepdims=True)
        elif mode[0] == "any":
            out = pv.any(axis=1, keepdims=True)
        else:
            out = ((pv | ~act).all(axis=1, keepdims=True)) | ~pv.any(axis=1, keepdims=True)
        w(m, np.broadcast_to(out, act.shape).reshape(-1), np.broadcast_to(pk, act.shape).reshape(-1), lanes)

    return Op(idx, ins, run, dests=dests)


@builder("activemask")
def build_activemask(ins: Instruction, ctx: Context, idx: int) -> Op:
    w, dests = ctx.writer(ins.operands[0], ins, type_="b32")

    def run(m: Any, mask: Any) -> None:
        act = m.active(mask).reshape(-1, 32)
        out = (act.astype(np.uint64) << LANE.astype(np.uint64)).sum(axis=1, keepdims=True).astype(np.uint64)
        w(m, np.broadcast_to(out, act.shape).reshape(-1), True, m.active(mask))

    return Op(idx, ins, run, dests=dests)


@builder("elect")
def build_elect(ins: Instruction, ctx: Context, idx: int) -> Op:
    w, wp, dests = _dest(ctx, ins)

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        act = lanes.reshape(-1, 32)
        leader = np.where(act.any(axis=1), act.argmax(axis=1), 0)[:, None]
        w(m, np.broadcast_to(leader.astype(np.uint64), act.shape).reshape(-1), True, lanes)
        if wp is not None:
            wp(m, (LANE[None, :] == leader).reshape(-1), True, lanes)

    return Op(idx, ins, run, dests=dests)


@builder("match")
def build_match(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, {"b32", "b64"})
    w, wp, dests = _dest(ctx, ins)
    ra = ctx.reader(ins.operands[1], t, ins)
    is_all = "all" in ins.parts

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        act = lanes.reshape(-1, 32)
        a = ra(m)
        v = _rows(a.bits, m.n) & U64(MASKS[type_bits(t)])
        known = (_known_rows(a.known, m.n) | ~act).all(axis=1, keepdims=True)
        same = (v[:, :, None] == v[:, None, :]) & act[:, None, :]
        bits = (same.astype(np.uint64) << LANE.astype(np.uint64)[None, None, :]).sum(axis=2).astype(np.uint64)
        if is_all:
            actmask = (act.astype(np.uint64) << LANE.astype(np.uint64)).sum(axis=1, keepdims=True).astype(np.uint64)
            allsame = (bits == actmask) | ~act  # a lane that does not take part does not compare
            bits = np.where(allsame.all(axis=1, keepdims=True), actmask, U64(0))
            if wp is not None:
                wp(m, np.broadcast_to(allsame.all(axis=1, keepdims=True), act.shape).reshape(-1),
                   np.broadcast_to(known, act.shape).reshape(-1), lanes)
        w(m, np.broadcast_to(bits, act.shape).reshape(-1), np.broadcast_to(known, act.shape).reshape(-1), lanes)

    return Op(idx, ins, run, dests=dests)


@builder("redux")
def build_redux(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, {"u32", "s32", "b32"})
    kind = [p for p in ins.parts if p in ("add", "min", "max", "and", "or", "xor")]
    if not kind:
        raise KernelError("redux needs an operation", ins.line, ins.opcode)
    w, dests = ctx.writer(ins.operands[0], ins, type_=t)
    ra = ctx.reader(ins.operands[1], t, ins)

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        act = lanes.reshape(-1, 32)
        a = ra(m)
        known = (_known_rows(a.known, m.n) | ~act).all(axis=1, keepdims=True)
        v = _rows(a.bits, m.n) & U64(0xFFFFFFFF)
        k = kind[0]
        if k in ("min", "max"):
            sv = as_s(v, 32) if t == "s32" else v.astype(np.int64)
            fill = (1 << 62) if k == "min" else -(1 << 62)
            sv = np.where(act, sv, fill)
            r = (sv.min(axis=1) if k == "min" else sv.max(axis=1)).astype(np.int64).astype(np.uint64)
        elif k == "add":
            r = np.where(act, v, U64(0)).sum(axis=1).astype(np.uint64)
        else:
            ident = U64(0xFFFFFFFF) if k == "and" else U64(0)
            fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[k]
            r = fn.reduce(np.where(act, v, ident), axis=1)
        r = (r & U64(0xFFFFFFFF))[:, None]
        w(m, np.broadcast_to(r, act.shape).reshape(-1), np.broadcast_to(known, act.shape).reshape(-1), lanes)

    return Op(idx, ins, run, dests=dests)


@builder("movmatrix")
def build_movmatrix(ins: Instruction, ctx: Context, idx: int) -> Op:
    if not {"m8n8", "trans", "b16"} <= set(ins.parts):
        raise KernelError("only movmatrix.sync.aligned.m8n8.trans.b16 is supported", ins.line, ins.opcode)
    w, dests = ctx.writer(ins.operands[0], ins, type_="b32")
    ra = ctx.reader(ins.operands[1], "b32", ins)
    # element M[r][c] sits in lane 4r + c//2, half c%2; lane t receives (M[2(t%4)][t/4], M[2(t%4)+1][t/4])
    src0 = 4 * (2 * (LANE % 4)) + (LANE // 4) // 2
    src1 = 4 * (2 * (LANE % 4) + 1) + (LANE // 4) // 2
    half = ((LANE // 4) % 2).astype(np.uint64) * U64(16)

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        act = lanes.reshape(-1, 32)
        a = ra(m)
        v = _rows(a.bits, m.n)
        k = _known_rows(a.known, m.n) & act
        lo = (v[:, src0] >> half) & U64(0xFFFF)
        hi = (v[:, src1] >> half) & U64(0xFFFF)
        w(m, (lo | (hi << U64(16))).reshape(-1), (k[:, src0] & k[:, src1]).reshape(-1), lanes)

    return Op(idx, ins, run, dests=dests)

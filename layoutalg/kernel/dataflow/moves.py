"""Rules of the instructions that move bits without computing on them: mov (and its packing forms),
integer cvt, selp, prmt, 16-bit-aligned shifts and masks, shfl, movmatrix.

A 16-bit unit keeps its tag when it is moved whole; a unit assembled from pieces of tagged units
becomes OPAQUE (:data:`~.tags.W_SPLIT`); a unit known to be zero and untagged is NONE.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.registers import join_units, value_units
from layoutalg.kernel.dataflow.rules import Rule, default_rule, rule
from layoutalg.kernel.interp.bitops import prmt as prmt_bits
from layoutalg.kernel.interp.decode import INT_TYPES, Context, Op, instr_type, type_bits
from layoutalg.kernel.ptx.nodes import Imm, Instruction, Reg, Vec

LANE = np.arange(32, dtype=np.int64)


def _plane(m: Any, op_: Any) -> np.ndarray | None:
    return m.flow.regs.get(op_.name) if isinstance(op_, Reg) else None


@rule("mov")
def mov_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    t = instr_type(ins)
    dest, src = ins.operands[0], ins.operands[1]
    if t == "pred":
        return None
    if isinstance(src, Vec):  # pack
        k = len(src.items)
        ew = type_bits(t) // k
        if ew < 16:
            return default_rule(ins, ctx, op)
        widths = [ew // 16] * k
        name = dest.name  # type: ignore[union-attr]

        def pack(m: Any, mask: Any) -> None:
            parts = [_plane(m, x) for x in src.items]
            m.flow.regs.put(name, join_units(parts, widths, m.n), mask)
        return pack
    if isinstance(dest, Vec):  # unpack
        k = len(dest.items)
        ew = type_bits(t) // k
        if ew < 16:
            return default_rule(ins, ctx, op)
        u = ew // 16
        names = [x.name if isinstance(x, Reg) else None for x in dest.items]

        def unpack(m: Any, mask: Any) -> None:
            p = _plane(m, src)
            for j, nm in enumerate(names):
                if nm is not None:
                    m.flow.regs.put(nm, None if p is None else p[:, j * u:(j + 1) * u], mask)
        return unpack
    if not isinstance(dest, Reg):
        return None
    units = tg.units_of_bits(type_bits(t))

    def move(m: Any, mask: Any) -> None:
        p = _plane(m, src)
        m.flow.regs.put(dest.name, None if p is None else p[:, :units], mask)
    return move


@rule("cvt")
def cvt_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    types = [p for p in ins.parts[1:] if p in INT_TYPES or p in ("f16", "bf16", "f32", "f64", "tf32", "f16x2",
                                                                 "bf16x2")]
    if len(types) != 2 or not isinstance(ins.operands[0], Reg):
        return default_rule(ins, ctx, op)
    dtype, atype = types
    name = ins.operands[0].name
    if dtype in INT_TYPES and atype in INT_TYPES:
        dw, aw = type_bits(dtype), type_bits(atype)
        src = ins.operands[1]
        keep = tg.units_of_bits(min(dw, aw)) if min(dw, aw) >= 16 else 0
        signed_ext = atype[0] == "s" and dw > aw or dtype[0] == "s" and dw <= aw  # a sign bit of the data fills

        def int_cvt(m: Any, mask: Any) -> None:
            p = _plane(m, src)
            if p is None:
                m.flow.regs.put(name, None, mask)
                return
            out = p[:, :keep] if keep else \
                np.where((p >= 0).any(axis=1), tg.opaque(op.index, tg.W_BYTE), tg.NONE)[:, None]
            if signed_ext:  # the high units repeat the sign bit (PTX ISA: to a wider register for a signed dtype)
                wide = m.flow.regs.units_of(name) if dtype[0] == "s" else tg.units_of_bits(dw)
                top = np.where((out[:, -1:] >= 0), tg.opaque(op.index, tg.W_SPLIT), tg.NONE)
                ext = np.repeat(top, max(0, wide - out.shape[1]), axis=1)
                out = np.concatenate([out, ext], axis=1)
            m.flow.regs.put(name, out, mask)
        return int_cvt
    from layoutalg.kernel.dataflow.arith import float_convert_rule

    return float_convert_rule(ins, ctx, op, dtype, atype)


@rule("selp")
def selp_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    dest, a, b, c = ins.operands[:4]
    if not isinstance(dest, Reg) or instr_type(ins) == "pred":
        return None
    read_c = ctx.reader(c, "pred", ins)
    u = m_units = tg.units_of_bits(type_bits(instr_type(ins)))

    def run(m: Any, mask: Any) -> None:
        pa, pb = _plane(m, a), _plane(m, b)
        if pa is None and pb is None:
            m.flow.regs.put(dest.name, None, mask)
            return
        cv = read_c(m)
        pick = np.broadcast_to(np.asarray(cv.bits, dtype=bool), (m.n,))
        fa = np.full((m.n, u), tg.NONE, dtype=np.int64) if pa is None else pa[:, :u]
        fb = np.full((m.n, u), tg.NONE, dtype=np.int64) if pb is None else pb[:, :u]
        out = np.where(pick[:, None], fa, fb)
        if cv.known is not True:
            unknown = ~np.broadcast_to(np.asarray(cv.known), (m.n,))
            out = np.where(unknown[:, None] & (fa != fb), tg.NONE, out)  # ZERO only if zero whichever is picked
            out = np.where(unknown[:, None] & ((fa >= 0) | (fb >= 0)), tg.opaque(op.index, tg.W_GUARD), out)
        m.flow.regs.put(dest.name, out, mask)
    _ = m_units
    return run


@rule("prmt")
def prmt_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """Each result byte comes from byte ``sel`` of ``{b, a}``; a result unit whose two bytes are one
    source unit, in order and without sign replication, keeps that unit's tag."""
    dest, a, b, c = ins.operands[:4]
    if not isinstance(dest, Reg):
        return None
    modes = [p for p in ins.parts[1:] if p in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")]
    mode = modes[0] if modes else None
    read_c = ctx.reader(c, "b32", ins)
    ident_a = np.uint64(0x03020100)
    ident_b = np.uint64(0x07060504)

    def run(m: Any, mask: Any) -> None:
        pa, pb = _plane(m, a), _plane(m, b)
        if pa is None and pb is None:
            m.flow.regs.put(dest.name, None, mask)
            return
        cv = read_c(m)
        sel = np.broadcast_to(np.asarray(cv.bits, dtype=np.uint64), (m.n,))
        src_bytes = prmt_bits(ident_a, ident_b, sel, mode)  # byte k of the result: index of its source byte
        sign = np.zeros(m.n, dtype=bool) if mode is not None else \
            ((sel[:, None] >> (np.arange(4, dtype=np.uint64) * np.uint64(4) + np.uint64(3))) & np.uint64(1)).astype(bool)
        units = np.concatenate([_units2(pa, m.n), _units2(pb, m.n)], axis=1)  # (n, 4): a0 a1 b0 b1
        out = np.full((m.n, 2), tg.NONE, dtype=np.int64)
        for k in range(2):
            lo = ((src_bytes >> np.uint64(16 * k)) & np.uint64(0xFF)).astype(np.int64)
            hi = ((src_bytes >> np.uint64(16 * k + 8)) & np.uint64(0xFF)).astype(np.int64)
            whole = (lo % 2 == 0) & (hi == lo + 1)
            if sign.ndim == 2:
                whole &= ~sign[:, 2 * k] & ~sign[:, 2 * k + 1]
            t_lo = np.take_along_axis(units, (lo // 2)[:, None], axis=1)[:, 0]
            t_hi = np.take_along_axis(units, (hi // 2)[:, None], axis=1)[:, 0]
            tagged = (t_lo >= 0) | (t_hi >= 0)
            out[:, k] = np.where(whole, t_lo, np.where(tagged, tg.opaque(op.index, tg.W_SPLIT), tg.NONE))
        if cv.known is not True:
            unknown = np.logical_not(np.broadcast_to(np.asarray(cv.known, dtype=bool), (m.n,)))
            hit = np.logical_and(unknown, (units >= 0).any(axis=1))
            zero = (units == tg.ZERO).all(axis=1)  # an unknown selector picks zero bytes only if all four are zero
            out = np.where(unknown[:, None], np.where(zero, tg.ZERO, tg.NONE)[:, None], out)
            out = np.where(hit[:, None], tg.opaque(op.index, tg.W_SPLIT), out)
        m.flow.regs.put(dest.name, out, mask)
    return run


def _units2(p: np.ndarray | None, n: int) -> np.ndarray:
    if p is None:
        return np.full((n, 2), tg.NONE, dtype=np.int64)
    if p.shape[1] >= 2:
        return p[:, :2]
    return np.concatenate([p, np.full((n, 1), tg.NONE, dtype=np.int64)], axis=1)


@rule("shl", "shr")
def shift_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """A shift by a uniform known multiple of 16 moves whole units; others are the default rule."""
    dest, a, b = ins.operands[:3]
    if not isinstance(dest, Reg) or not isinstance(b, Imm) or b.value % 16 or instr_type(ins)[0] == "s" and \
            ins.root == "shr":
        return default_rule(ins, ctx, op)
    u = tg.units_of_bits(type_bits(instr_type(ins)))
    k = b.value // 16
    left = ins.root == "shl"

    def run(m: Any, mask: Any) -> None:
        p = _plane(m, a)
        if p is None:
            m.flow.regs.put(dest.name, None, mask)
            return
        p = _units_n(p, m.n, u)
        out = np.full((m.n, u), tg.ZERO, dtype=np.int64)
        if k < u:
            if left:
                out[:, k:] = p[:, :u - k]
            else:
                out[:, :u - k] = p[:, k:]
        m.flow.regs.put(dest.name, out, mask)
    return run


def _units_n(p: np.ndarray, n: int, u: int) -> np.ndarray:
    if p.shape[1] >= u:
        return p[:, :u]
    return np.concatenate([p, np.full((n, u - p.shape[1]), tg.NONE, dtype=np.int64)], axis=1)


@rule("and", "or", "xor")
def logic_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """Per unit: ``and`` with a known all-ones unit keeps the other side's tag, with a known zero unit
    gives NONE; ``or``/``xor`` with a known zero untagged unit keep the other side's tag."""
    t = instr_type(ins)
    dest, a, b = ins.operands[:3]
    if t == "pred" or not isinstance(dest, Reg):
        return None
    u = tg.units_of_bits(type_bits(t))
    ra, rb = ctx.reader(a, t, ins), ctx.reader(b, t, ins)
    is_and = ins.root == "and"
    mix = tg.opaque(op.index, tg.W_SPLIT)

    def run(m: Any, mask: Any) -> None:
        pa, pb = _plane(m, a), _plane(m, b)
        if pa is None and pb is None:
            m.flow.regs.put(dest.name, None, mask)
            return
        fa = np.full((m.n, u), tg.NONE, dtype=np.int64) if pa is None else _units_n(pa, m.n, u)
        fb = np.full((m.n, u), tg.NONE, dtype=np.int64) if pb is None else _units_n(pb, m.n, u)
        va, ka = value_units(ra(m), m.n, u)
        vb, kb = value_units(rb(m), m.n, u)
        za = (fa == tg.ZERO) | ((fa < 0) & ka[:, None] & (va == 0))  # units known to be zero
        zb = (fb == tg.ZERO) | ((fb < 0) & kb[:, None] & (vb == 0))
        out = np.where((fa >= 0) | (fb >= 0), mix, tg.NONE)
        if is_and:
            for (f, v, k, z), g in (((fa, va, ka, za), fb), ((fb, vb, kb, zb), fa)):
                out = np.where(k[:, None] & (f < 0) & (v == 0xFFFF), g, out)
                out = np.where(z, tg.ZERO, out)
        else:
            out = np.where(zb, fa, out)
            out = np.where(za, fb, out)
        m.flow.regs.put(dest.name, out, mask)
    return run


@rule("shfl")
def shfl_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """``shfl.sync`` moves lane ``j``'s 32-bit value to the lane (the interpreter's source-lane formula)."""
    mode = [p for p in ins.parts if p in ("up", "down", "bfly", "idx")]
    dest = ins.operands[0]
    name = dest.first.name if hasattr(dest, "first") else getattr(dest, "name", None)
    if not mode or name is None:
        return default_rule(ins, ctx, op)
    a, b, c = ins.operands[1:4]
    rb, rc = ctx.reader(b, "b32", ins), ctx.reader(c, "b32", ins)
    md = mode[0]

    def run(m: Any, mask: Any) -> None:
        p = _plane(m, a)
        if p is None:
            m.flow.regs.put(name, None, mask)
            return
        lanes = m.flow.lanes(m, mask).reshape(-1, 32)
        bv = (np.broadcast_to(np.asarray(rb(m).bits, dtype=np.int64), (m.n,)).reshape(-1, 32)) & 31
        cv = np.broadcast_to(np.asarray(rc(m).bits, dtype=np.int64), (m.n,)).reshape(-1, 32)
        seg, clamp = (cv >> 8) & 31, cv & 31
        max_lane = (LANE & seg) | (clamp & ~seg)
        min_lane = LANE & seg
        if md == "up":
            j = LANE - bv
            ok = j >= max_lane
        elif md == "down":
            j = LANE + bv
            ok = j <= max_lane
        elif md == "bfly":
            j = LANE ^ bv
            ok = j <= max_lane
        else:
            j = min_lane | (bv & ~seg)
            ok = j <= max_lane
        j = np.where(ok, j, LANE)
        src_active = np.take_along_axis(lanes, np.clip(j, 0, 31), axis=1)
        rows = p[:, :2].reshape(-1, 32, min(2, p.shape[1]))
        got = np.take_along_axis(rows, np.clip(j, 0, 31)[:, :, None], axis=1)
        got = np.where(src_active[:, :, None], got, tg.NONE)
        m.flow.regs.put(name, got.reshape(m.n, -1), mask)
    return run


@rule("movmatrix")
def movmatrix_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """``movmatrix.m8n8.trans.b16``: lane ``t`` receives halves (M[2(t%4)][t/4], M[2(t%4)+1][t/4]) where
    element M[r][c] sits in lane ``4r + c/2``, half ``c % 2`` (PTX ISA; as the interpreter)."""
    dest, src = ins.operands[0], ins.operands[1]
    if not isinstance(dest, Reg):
        return default_rule(ins, ctx, op)
    src0 = 4 * (2 * (LANE % 4)) + (LANE // 4) // 2
    src1 = 4 * (2 * (LANE % 4) + 1) + (LANE // 4) // 2
    half = (LANE // 4) % 2

    def run(m: Any, mask: Any) -> None:
        p = _plane(m, src)
        if p is None:
            m.flow.regs.put(dest.name, None, mask)
            return
        rows = _units2(p, m.n).reshape(-1, 32, 2)
        lo = rows[:, src0, half]
        hi = rows[:, src1, half]
        m.flow.regs.put(dest.name, np.stack([lo, hi], axis=2).reshape(m.n, 2), mask)
    return run

"""Integer arithmetic with PTX's exact wrap-around semantics (PTX ISA 8.x, "Integer Arithmetic Instructions").

Values are uint64 bit patterns; an instruction of type ``.uW``/``.sW``/``.bW`` reads the
low W bits of its operands (signed types sign-extend them) and writes the low W bits
of the result (``.wide`` / ``.hi`` forms as the ISA defines them).  Every formula below
is the ISA's: ``mul.hi`` is bits W..2W-1 of the 2W-bit product, ``mul24`` multiplies the
low 24 bits (sign-extended for ``.s32``) giving bits 0..31 (``.lo``) or 16..47 (``.hi``),
``div``/``rem`` truncate toward zero (C semantics), a zero divisor gives an unknown result,
``.sat`` (``add``/``sub``/``mad`` ``.s32``) clamps to the s32 range, ``.cc``/``addc``/``subc``
carry through the machine's condition-code register.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import FLOAT_TYPES, INT_TYPES, Context, Op, builder, instr_type, type_bits
from layoutalg.kernel.interp.values import MASKS, U64, Value, as_s, as_u, known_and
from layoutalg.kernel.ptx.nodes import Instruction

M32 = U64(0xFFFF_FFFF)


def int_op(ins: Instruction, ctx: Context, idx: int, types: list[str],
           compute: Callable[..., Any], result_bits: int = 64, dest: str | None = None) -> Op:
    """An op reading ``len(types)`` sources and writing ``compute(*bits)`` (bits, or (bits, extra_known));
    ``result_bits``: the widest result ``compute`` can produce (no re-masking when the register holds it);
    ``dest``: the destination's type (default: the first source's, the instruction type)."""
    write, dests = ctx.writer(ins.operands[0], ins, result_bits, dest or types[0])
    readers = [ctx.reader(op, t, ins) for op, t in zip(ins.operands[1:], types)]
    if len(ins.operands) != len(types) + 1:  # zip stops at the shorter: compare the operands, not readers
        raise KernelError(f"expects {len(types)} source operands", ins.line, ins.opcode)

    def run(m: Any, mask: Any) -> None:
        vals = [r(m) for r in readers]
        known = known_and(*[v.known for v in vals])
        if known is False:  # nothing to compute: the result is unknown everywhere
            write(m, U64(0), False, mask)
            return
        out = compute(*[v.bits for v in vals])
        if isinstance(out, tuple):
            out, extra = out
            known = known_and(known, extra)
        write(m, out, known, mask)

    return Op(idx, ins, run, dests=dests)


def mul_hi_u64(a: Any, b: Any) -> Any:
    """Bits 64..127 of the unsigned 128-bit product, from 32-bit halves (no overflow in any step)."""
    a0, a1 = a & M32, a >> U64(32)
    b0, b1 = b & M32, b >> U64(32)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> U64(32)) + (p01 & M32) + (p10 & M32)
    return p11 + (p01 >> U64(32)) + (p10 >> U64(32)) + (mid >> U64(32))


def mul_hi_s64(a: Any, b: Any) -> Any:
    """Signed high half: unsigned high half minus b where a < 0 and a where b < 0 (mod 2**64)."""
    hi = mul_hi_u64(a, b)
    sign = U64(1 << 63)
    hi = hi - np.where((a & sign) != 0, b, U64(0))
    return hi - np.where((b & sign) != 0, a, U64(0))


def _product(ins: Instruction, t: str, mode: str) -> Callable[[Any, Any], Any]:
    """The product of two W-bit operands for .lo / .hi / .wide (result as uint64 bits)."""
    w = type_bits(t)
    signed = t[0] == "s"
    mask = U64(MASKS[w])
    if mode == "lo":
        return lambda a, b: (a * b) & mask if w < 64 else a * b
    if mode == "wide":
        if w > 32:
            raise KernelError("mul.wide takes 16- or 32-bit operands", ins.line, ins.opcode)
        if signed:
            return lambda a, b: (as_s(a, w) * as_s(b, w)).astype(np.int64).astype(np.uint64) \
                & U64(MASKS[2 * w])
        return lambda a, b: (as_u(a, w) * as_u(b, w)) & U64(MASKS[2 * w])
    # mode == "hi" (:func:`_mode` gives only lo, wide, hi)
    if w == 64:
        return mul_hi_s64 if signed else mul_hi_u64
    if signed:
        return lambda a, b: ((as_s(a, w) * as_s(b, w)) >> np.int64(w)).astype(np.uint64) & mask
    return lambda a, b: ((as_u(a, w) * as_u(b, w)) >> U64(w)) & mask


def _wide(t: str) -> str:
    """The type of a ``.wide`` result: twice ``t``'s width, same signedness (``mul.wide.s32`` -> ``s64``)."""
    return f"{t[0]}{2 * type_bits(t)}" if type_bits(t) <= 32 else t


def _mode(ins: Instruction) -> str:
    for m in ("lo", "hi", "wide"):
        if m in ins.parts:
            return m
    raise KernelError("needs .lo, .hi or .wide", ins.line, ins.opcode)


def _sat32(x: Any) -> Any:
    return np.clip(x, -(1 << 31), (1 << 31) - 1).astype(np.int64).astype(np.uint64) & M32


@builder("add", "sub")
def build_add_sub(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    if t in FLOAT_TYPES:
        from layoutalg.kernel.interp.floatops import build_float_arith

        return build_float_arith(ins, ctx, idx)
    w = type_bits(t)
    mask = U64(MASKS[w])
    sub = ins.root == "sub"
    if "sat" in ins.parts:
        if t != "s32":
            raise KernelError(".sat applies to .s32 only", ins.line, ins.opcode)
        return int_op(ins, ctx, idx, [t, t], lambda a, b: _sat32(as_s(a, 32) - as_s(b, 32) if sub
                                                                  else as_s(a, 32) + as_s(b, 32)))
    if "cc" in ins.parts:
        return _carry_op(ins, ctx, idx, t, sub, carry_in=False)
    if sub:
        return int_op(ins, ctx, idx, [t, t], lambda a, b: (a - b) & mask, w)
    return int_op(ins, ctx, idx, [t, t], lambda a, b: (a + b) & mask, w)


@builder("addc", "subc")
def build_addc(ins: Instruction, ctx: Context, idx: int) -> Op:
    return _carry_op(ins, ctx, idx, instr_type(ins, INT_TYPES), ins.root == "subc", carry_in=True)


def _carry_op(ins: Instruction, ctx: Context, idx: int, t: str, sub: bool, carry_in: bool) -> Op:
    """add.cc/addc/sub.cc/subc: W-bit add with carry (sub: a + ~b + 1, borrow = not carry), CC.CF in m.cc."""
    w = type_bits(t)
    if w not in (32, 64):
        raise KernelError("carry arithmetic is .32/.64 only", ins.line, ins.opcode)
    mask = U64(MASKS[w])
    set_cc = "cc" in ins.parts
    write, dests = ctx.writer(ins.operands[0], ins, type_=t)
    ra, rb = (ctx.reader(op, t, ins) for op in ins.operands[1:3])

    def run(m: Any, mask_: Any) -> None:
        a, b = ra(m), rb(m)
        cin: Any = U64(1) if sub and not carry_in else U64(0)
        cin_known: Any = True
        if carry_in:
            cin, cin_known = m.cc.bits, m.cc.known  # subc: the carry is 1 when the last subtraction did not borrow
        bb = (~b.bits & mask) if sub else (b.bits & mask)
        aa = a.bits & mask
        low = (aa & M32) + (bb & M32) + cin
        if w == 32:
            total = low
            carry = total >> U64(32)
        else:
            high = (aa >> U64(32)) + (bb >> U64(32)) + (low >> U64(32))
            total = ((high & M32) << U64(32)) | (low & M32)
            carry = high >> U64(32)
        known = known_and(a.known, b.known, cin_known)
        write(m, total & mask, known, mask_)
        if set_cc:
            m.cc = Value(carry & U64(1), known)

    return Op(idx, ins, run, dests=dests)


@builder("mul")
def build_mul(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    if t in FLOAT_TYPES:
        from layoutalg.kernel.interp.floatops import build_float_arith

        return build_float_arith(ins, ctx, idx)
    mode = _mode(ins)
    return int_op(ins, ctx, idx, [t, t], _product(ins, t, mode), dest=_wide(t) if mode == "wide" else t)


@builder("mad")
def build_mad(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    if t in FLOAT_TYPES:
        from layoutalg.kernel.interp.floatops import build_float_arith

        return build_float_arith(ins, ctx, idx)
    mode = _mode(ins)
    prod = _product(ins, t, mode)
    w = type_bits(t)
    out_w = 2 * w if mode == "wide" else w
    mask = U64(MASKS[out_w])
    ct = _wide(t) if mode == "wide" else t
    if "sat" in ins.parts:
        if t != "s32" or mode != "hi":
            raise KernelError("mad.sat is .hi.s32 only", ins.line, ins.opcode)
        return int_op(ins, ctx, idx, [t, t, ct],
                      lambda a, b, c: _sat32(as_s(prod(a, b), 32) + as_s(c, 32)))
    return int_op(ins, ctx, idx, [t, t, ct], lambda a, b, c: (prod(a, b) + c) & mask, out_w, ct)


def _mul24(t: str, hi: bool) -> Callable[[Any, Any], Any]:
    signed = t == "s32"

    def f(a: Any, b: Any) -> Any:
        x = as_s(a, 24) if signed else as_u(a, 24).astype(np.int64)
        y = as_s(b, 24) if signed else as_u(b, 24).astype(np.int64)
        p = (x * y).astype(np.int64)
        return ((p >> np.int64(16)) if hi else p).astype(np.uint64) & M32

    return f


@builder("mul24")
def build_mul24(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, {"u32", "s32"})
    return int_op(ins, ctx, idx, [t, t], _mul24(t, _mode(ins) == "hi"))


@builder("mad24")
def build_mad24(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, {"u32", "s32"})
    f = _mul24(t, _mode(ins) == "hi")
    return int_op(ins, ctx, idx, [t, t, t], lambda a, b, c: (f(a, b) + c) & M32)


@builder("sad")
def build_sad(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, INT_TYPES)
    w = type_bits(t)
    mask = U64(MASKS[w])

    def f(a: Any, b: Any, c: Any) -> Any:
        """``c + |a - b|`` (ISA: ``c + ((a < b) ? b - a : a - b)``): the difference taken the right way round
        in uint64, so it is exact mod 2**64 (|a - b| of two 64-bit values can exceed int64)."""
        ge = (as_s(a, w) >= as_s(b, w)) if t[0] == "s" else (as_u(a, w) >= as_u(b, w))
        ua, ub = np.asarray(as_u(a, w), dtype=np.uint64), np.asarray(as_u(b, w), dtype=np.uint64)
        return (np.where(ge, ua - ub, ub - ua) + c) & mask
    return int_op(ins, ctx, idx, [t, t, t], f)


@builder("neg", "abs")
def build_neg_abs(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    if t in FLOAT_TYPES:
        from layoutalg.kernel.interp.floatops import build_float_arith

        return build_float_arith(ins, ctx, idx)
    w = type_bits(t)
    mask = U64(MASKS[w])
    if ins.root == "neg":
        return int_op(ins, ctx, idx, [t], lambda a: (U64(0) - a) & mask)
    return int_op(ins, ctx, idx, [t], lambda a: np.abs(as_s(a, w)).astype(np.uint64) & mask)


@builder("min", "max")
def build_min_max(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    if t in FLOAT_TYPES:
        from layoutalg.kernel.interp.floatops import build_float_arith

        return build_float_arith(ins, ctx, idx)
    w = type_bits(t)
    mask = U64(MASKS[w])
    pick = np.minimum if ins.root == "min" else np.maximum
    relu = "relu" in ins.parts
    if t[0] == "s":
        def f(a: Any, b: Any) -> Any:
            r = pick(as_s(a, w), as_s(b, w))
            if relu:
                r = np.maximum(r, 0)
            return r.astype(np.int64).astype(np.uint64) & mask
        return int_op(ins, ctx, idx, [t, t], f)
    return int_op(ins, ctx, idx, [t, t], lambda a, b: pick(as_u(a, w), as_u(b, w)))


@builder("div", "rem")
def build_div_rem(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    if t in FLOAT_TYPES:
        if ins.root == "rem":
            raise KernelError("rem has no float form", ins.line, ins.opcode)
        from layoutalg.kernel.interp.floatops import build_float_arith

        return build_float_arith(ins, ctx, idx)
    w = type_bits(t)
    mask = U64(MASKS[w])
    is_div = ins.root == "div"
    if t[0] == "s":
        def f(a: Any, b: Any) -> Any:
            x, y = as_s(a, w), as_s(b, w)
            zero = y == 0
            ys = np.where(zero, 1, y)
            q = np.abs(x) // np.abs(ys) * np.where((x < 0) != (ys < 0), -1, 1)  # truncation toward zero
            r = x - q * ys
            out = (q if is_div else r).astype(np.int64).astype(np.uint64) & mask
            return out, ~np.asarray(zero) if np.ndim(zero) else (not bool(zero))
        return int_op(ins, ctx, idx, [t, t], f)

    def g(a: Any, b: Any) -> Any:
        x, y = as_u(a, w), as_u(b, w)
        zero = y == 0
        ys = np.where(zero, U64(1), y)
        out = (x // ys) if is_div else (x % ys)
        return out, ~np.asarray(zero) if np.ndim(zero) else (not bool(zero))
    return int_op(ins, ctx, idx, [t, t], g)

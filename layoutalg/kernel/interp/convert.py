"""Comparison, selection, moves and conversions (PTX ISA 8.x: setp, set, selp, slct, mov, cvt, cvta).

* ``setp``/``set``: integer ``eq ne lt le gt ge`` (signed for ``.s``), ``lo ls hi hs`` (unsigned);
  float ordered ``eq ne lt le gt ge`` (false on NaN), unordered ``equ neu ltu leu gtu geu``
  (true on NaN), ``num``, ``nan``; combined ``.and/.or/.xor`` with a (possibly negated)
  predicate; ``p|q`` writes the negated comparison (combined the same way) to q.
* ``cvt`` int->int truncates or extends (``.sat`` clamps); float->int rounds as ``.rni .rzi
  .rmi .rpi`` and saturates (NaN -> 0), as the ISA specifies; int/float->float rounds ``.rn``
  exactly, other roundings are known only where the conversion is exact.
* ``cvta`` moves between a state space's addresses and generic ones (:mod:`.spaces`).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import FLOAT_TYPES, INT_TYPES, Context, Op, builder, instr_type, type_bits
from layoutalg.kernel.interp.floats import decode, encode, flush_subnormal, two_sum
from layoutalg.kernel.interp.spaces import LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW
from layoutalg.kernel.interp.values import MASKS, U64, as_s, as_u, known_and
from layoutalg.kernel.ptx.nodes import Instruction, PredPair, Vec

INT_CMP = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"}
FLOAT_CMP = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}
BOOL_OPS = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def compare(cmp: str, t: str, a: Any, b: Any) -> Any:
    """The comparison ``a cmp b`` of ``t``-typed bit patterns (bool array)."""
    if t in FLOAT_TYPES:
        x, y = decode(a, t), decode(b, t)
        nan = np.isnan(x) | np.isnan(y)
        base = cmp.rstrip("u") if cmp not in ("num", "nan") else cmp
        if cmp == "num":
            return ~nan
        if cmp == "nan":
            return nan
        with np.errstate(invalid="ignore"):
            r = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[base]
        return (r | nan) if cmp.endswith("u") else (r & ~nan)
    w = type_bits(t)
    if cmp in ("lo", "ls", "hi", "hs") or t[0] in "ub":
        x, y = as_u(a, w), as_u(b, w)
        cmp = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}.get(cmp, cmp)
    else:
        x, y = as_s(a, w), as_s(b, w)
    return {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[cmp]


def _cmp_parts(ins: Instruction) -> tuple[str, str | None, str]:
    t = instr_type(ins, INT_TYPES | FLOAT_TYPES)
    names = INT_CMP if t not in FLOAT_TYPES else FLOAT_CMP
    cmps = [p for p in ins.parts[1:] if p in names]
    if not cmps:
        raise KernelError(f"no comparison operator for .{t}", ins.line, ins.opcode)
    bools = [p for p in ins.parts[1:] if p in BOOL_OPS]
    if t in ("f16x2", "bf16x2"):
        raise KernelError("packed half comparisons are not supported", ins.line, ins.opcode)
    return cmps[0], bools[0] if bools else None, t


@builder("setp")
def build_setp(ins: Instruction, ctx: Context, idx: int) -> Op:
    cmp, boolop, t = _cmp_parts(ins)
    dest: Any = ins.operands[0]
    second: Any = None
    if isinstance(dest, PredPair):
        dest, second = dest.first, dest.second
    write, dests = ctx.writer(dest, ins, type_="pred")
    write2, dests2 = ctx.writer(second, ins, type_="pred") if second is not None else (None, [])
    ra, rb = ctx.reader(ins.operands[1], t, ins), ctx.reader(ins.operands[2], t, ins)
    rc = ctx.reader(ins.operands[3], "pred", ins) if boolop else None
    ftz = "ftz" in ins.parts and t == "f32"

    def run(m: Any, mask: Any) -> None:
        a, b = ra(m), rb(m)
        abits, bbits = a.bits, b.bits
        if ftz:
            abits = encode(flush_subnormal(decode(abits, t)), t)
            bbits = encode(flush_subnormal(decode(bbits, t)), t)
        r = compare(cmp, t, abits, bbits)
        known = known_and(a.known, b.known)
        nr = np.logical_not(r)
        if rc is not None:
            c = rc(m)
            f = BOOL_OPS[boolop]  # type: ignore[index]
            r, nr = f(r, c.bits), f(nr, c.bits)
            known = known_and(known, c.known)
        write(m, r, known, mask)
        if write2 is not None:
            write2(m, nr, known, mask)

    return Op(idx, ins, run, dests=dests + dests2)


@builder("set")
def build_set(ins: Instruction, ctx: Context, idx: int) -> Op:
    types = [p for p in ins.parts[1:] if p in INT_TYPES | FLOAT_TYPES]
    if len(types) != 2:
        raise KernelError("set needs .dtype.stype", ins.line, ins.opcode)
    dtype, stype = types
    cmps = [p for p in ins.parts[1:] if p in (FLOAT_CMP if stype in FLOAT_TYPES else INT_CMP)]
    bools = [p for p in ins.parts[1:] if p in BOOL_OPS]
    if not cmps:
        raise KernelError("set needs a comparison", ins.line, ins.opcode)
    write, dests = ctx.writer(ins.operands[0], ins, type_=dtype)
    ra, rb = ctx.reader(ins.operands[1], stype, ins), ctx.reader(ins.operands[2], stype, ins)
    rc = ctx.reader(ins.operands[3], "pred", ins) if bools else None
    true_bits = U64(0x3F800000) if dtype == "f32" else U64(0xFFFFFFFF)

    def run(m: Any, mask: Any) -> None:
        a, b = ra(m), rb(m)
        r = compare(cmps[0], stype, a.bits, b.bits)
        known = known_and(a.known, b.known)
        if rc is not None:
            c = rc(m)
            r = BOOL_OPS[bools[0]](r, c.bits)
            known = known_and(known, c.known)
        write(m, np.where(r, true_bits, U64(0)), known, mask)

    return Op(idx, ins, run, dests=dests)


@builder("selp")
def build_selp(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    if len(ins.operands) != 4:
        raise KernelError("selp expects d, a, b, c (3 source operands)", ins.line, ins.opcode)
    write, dests = ctx.writer(ins.operands[0], ins, type_=t)
    ra, rb = ctx.reader(ins.operands[1], t, ins), ctx.reader(ins.operands[2], t, ins)
    rc = ctx.reader(ins.operands[3], "pred", ins)

    def run(m: Any, mask: Any) -> None:
        a, b, c = ra(m), rb(m), rc(m)
        bits = np.where(c.bits, a.bits, b.bits)
        if c.known is True:
            known = known_and(a.known, b.known) if a.known is b.known else np.where(c.bits, a.known, b.known)
        else:
            both_same = known_and(a.known, b.known) & (np.asarray(a.bits) == np.asarray(b.bits))
            known = (np.where(c.bits, a.known, b.known) & c.known) | both_same
        write(m, bits, known, mask)

    return Op(idx, ins, run, dests=dests)


@builder("slct")
def build_slct(ins: Instruction, ctx: Context, idx: int) -> Op:
    types = [p for p in ins.parts[1:] if p in INT_TYPES | FLOAT_TYPES]
    if len(types) != 2:
        raise KernelError("slct needs .dtype.ctype", ins.line, ins.opcode)
    dtype, ctype = types
    write, dests = ctx.writer(ins.operands[0], ins, type_=dtype)
    ra, rb, rc = (ctx.reader(op, t, ins) for op, t in zip(ins.operands[1:4], (dtype, dtype, ctype)))

    def run(m: Any, mask: Any) -> None:
        a, b, c = ra(m), rb(m), rc(m)
        cond = (decode(c.bits, "f32") >= 0) if ctype == "f32" else (as_s(c.bits, 32) >= 0)
        write(m, np.where(cond, a.bits, b.bits), known_and(a.known, b.known, c.known), mask)

    return Op(idx, ins, run, dests=dests)


@builder("mov")
def build_mov(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    dest, src = ins.operands[0], ins.operands[1]
    if isinstance(src, Vec):  # pack: mov.b32 %r, {%rs1, %rs2}
        k = len(src.items)
        ew = _element_bits(ins, t, k)
        readers = [ctx.reader(x, f"b{ew}", ins) for x in src.items]
        write, dests = ctx.writer(dest, ins, type_=t)
        emask = U64(MASKS[ew])

        def pack(m: Any, mask: Any) -> None:
            vals = [r(m) for r in readers]
            out: Any = U64(0)
            for j, v in enumerate(vals):
                out = out | ((np.asarray(v.bits, dtype=np.uint64) & emask) << U64(j * ew))
            write(m, out, known_and(*[v.known for v in vals]), mask)
        return Op(idx, ins, pack, dests=dests)
    if isinstance(dest, Vec):  # unpack: mov.b64 {%r1, %r2}, %rd
        k = len(dest.items)
        ew = _element_bits(ins, t, k)
        read = ctx.reader(src, t, ins)
        writers = [ctx.writer(x, ins, type_=f"b{ew}") for x in dest.items]
        emask = U64(MASKS[ew])

        def unpack(m: Any, mask: Any) -> None:
            v = read(m)
            bits = np.asarray(v.bits, dtype=np.uint64)
            for j, (w, _) in enumerate(writers):
                w(m, (bits >> U64(j * ew)) & emask, v.known, mask)
        return Op(idx, ins, unpack, dests=[d for _, ds in writers for d in ds])
    write, dests = ctx.writer(dest, ins, type_=t)
    read = ctx.reader(src, t, ins)
    w = type_bits(t)

    def run(m: Any, mask: Any) -> None:
        v = read(m)
        write(m, v.bits if w in (1, 64) else as_u(v.bits, w), v.known, mask)
    return Op(idx, ins, run, dests=dests)


def _element_bits(ins: Instruction, t: str, k: int) -> int:
    """Bits of each of the ``k`` elements a ``mov`` packs into (or unpacks from) a ``t`` value: the PTX ISA's
    vector forms split it in 2 or 4 elements of 8, 16, 32 or 64 bits (``mov.b64 d, {a, b, c, e}``)."""
    ew = type_bits(t) // k if k else 0
    if k not in (2, 4) or ew not in MASKS or ew * k != type_bits(t) or ew < 8:
        raise KernelError(f"a .{t} value packs into 2 or 4 elements of 8 to 64 bits, not a vector of {k}",
                          ins.line, ins.opcode)
    return ew


def _int_convert(dtype: str, atype: str, sat: bool) -> Callable[[Any], Any]:
    dw, aw = type_bits(dtype), type_bits(atype)
    src = (lambda a: as_s(a, aw)) if atype[0] == "s" else (lambda a: as_u(a, aw))
    lo, hi = (-(1 << (dw - 1)), (1 << (dw - 1)) - 1) if dtype[0] == "s" else (0, (1 << dw) - 1)

    def f(a: Any) -> Any:
        x = src(a)
        if sat:
            if atype[0] == "s" or aw < 64:
                x = np.clip(np.asarray(x).astype(np.int64), max(lo, -(1 << 63)), min(hi, (1 << 63) - 1))
            else:
                x = np.minimum(np.asarray(x, dtype=np.uint64), U64(hi))
        bits = np.asarray(x).astype(np.int64).astype(np.uint64) if np.asarray(x).dtype != np.uint64 else x
        bits = as_u(bits, dw)
        return as_s(bits, dw).astype(np.uint64) if dtype[0] == "s" else bits
    return f


def _float_to_int(dtype: str, mode: str) -> Callable[[Any], tuple[Any, Any]]:
    """Round with ``mode``, then saturate to ``dtype``'s range (NaN -> 0), as the ISA's cvt specifies.

    The bounds are applied before any numpy integer cast: float64 cannot hold 2**63 - 1, and casting a
    float64 at or past 2**63 to int64 wraps to the most negative value."""
    dw = type_bits(dtype)
    signed = dtype[0] == "s"
    lo = -(2.0 ** (dw - 1)) if signed else 0.0
    top = 2.0 ** (dw - 1) if signed else 2.0 ** dw  # the first value past the range
    top_bits = U64((1 << (dw - 1)) - 1 if signed else MASKS[dw])
    rnd = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[mode]

    def f(x: Any) -> tuple[Any, Any]:
        with np.errstate(invalid="ignore"):
            r = rnd(x)
            r = np.where(np.isnan(r), 0.0, r)
            over = r >= top
            r = np.maximum(np.where(over, 0.0, r), lo)
        big = r >= 2.0 ** 63  # only u64 gets here: cast the part below 2**63
        ints = np.asarray(np.where(big, r - 2.0 ** 63, r)).astype(np.int64).astype(np.uint64) \
            + np.where(big, U64(1 << 63), U64(0))
        return np.where(over, top_bits, ints & U64(MASKS[dw])), True
    return f


def _f32_to_tf32(mode: str, relu: bool, satfinite: bool) -> Callable[[Any], tuple[Any, Any]]:
    """``cvt.mode{.satfinite}{.relu}.tf32.f32``: the f32 rounded to tf32's 10 fraction bits, held in f32 format
    with the low 13 bits zero (subnormals too: tf32 has f32's exponent range).  ``.rna`` rounds ties away,
    ``.rn`` ties to even, ``.rz`` truncates; a finite value past tf32's largest rounds to infinity
    (``.rz`` to the largest), and ``.satfinite`` clamps to the largest finite.  NaN bits are not
    specified: unknown; so are ``.relu`` results with the sign bit set (negative values give 0)."""
    def f(b: Any) -> tuple[Any, Any]:
        x = np.asarray(as_u(b, 32), dtype=np.uint64)
        sign, mag = x & U64(0x80000000), x & U64(0x7FFFFFFF)
        if mode == "rna":
            mag = mag + U64(0x1000)
        elif mode == "rn":
            mag = mag + U64(0xFFF) + ((mag >> U64(13)) & U64(1))
        mag = mag & U64(0x7FFFE000)  # an infinity stays one; the largest finite can round to it
        if satfinite:
            mag = np.minimum(mag, U64(0x7F7FE000))
        known = (x & U64(0x7FFFFFFF)) <= U64(0x7F800000)  # not NaN
        if relu:
            known = known & (sign == 0)
        return sign | mag, known
    return f


@builder("cvt")
def build_cvt(ins: Instruction, ctx: Context, idx: int) -> Op:
    types = [p for p in ins.parts[1:] if p in INT_TYPES | FLOAT_TYPES or p in ("e4m3x2", "e5m2x2", "e2m1x2")]
    if len(types) != 2:
        raise KernelError("cvt needs .dtype.atype", ins.line, ins.opcode)
    dtype, atype = types
    parts = set(ins.parts)
    sat = "sat" in parts
    irnd = [p for p in ins.parts if p in ("rni", "rzi", "rmi", "rpi")]
    frnd = [p for p in ins.parts if p in ("rn", "rz", "rm", "rp", "rna", "rs")]
    write, dests = ctx.writer(ins.operands[0], ins, type_=dtype)
    if dtype in ("f16x2", "bf16x2") and atype == "f32":
        ra, rb = ctx.reader(ins.operands[1], "f32", ins), ctx.reader(ins.operands[2], "f32", ins)
        elem = dtype[:-2]
        ok = frnd == ["rn"]
        relu = "relu" in parts

        def pack(m: Any, mask: Any) -> None:
            a, b = ra(m), rb(m)
            xa, xb = decode(a.bits, "f32"), decode(b.bits, "f32")
            if relu:
                xa, xb = np.maximum(xa, 0.0), np.maximum(xb, 0.0)
            bits = (np.asarray(encode(xa, elem), dtype=np.uint64) << U64(16)) | np.asarray(encode(xb, elem))
            write(m, bits, known_and(a.known, b.known) if ok else False, mask)
        return Op(idx, ins, pack, dests=dests)
    if any(t.startswith(("e4m3", "e5m2", "e2m1")) for t in (dtype, atype)) or dtype in ("f16x2", "bf16x2") \
            or atype in ("f16x2", "bf16x2"):
        read_any = [ctx.reader(x, atype, ins) for x in ins.operands[1:]]
        return Op(idx, ins, lambda m, mask: ([r(m) for r in read_any], write(m, U64(0), False, mask))[1], dests=dests)
    read = ctx.reader(ins.operands[1], atype, ins)
    ftz = "ftz" in parts
    if dtype == "tf32":  # f32 -> tf32 keeps the f32 format: it rounds away the low 13 fraction bits
        if atype != "f32" or len(frnd) != 1 or frnd[0] not in ("rna", "rn", "rz"):
            raise KernelError("cvt to .tf32 needs .rna, .rn or .rz and an .f32 source", ins.line, ins.opcode)
        h = _f32_to_tf32(frnd[0], "relu" in parts, "satfinite" in parts)
        return Op(idx, ins, lambda m, mask: _apply(m, mask, read, write, h), dests=dests)
    if dtype in INT_TYPES and atype in INT_TYPES:
        f = _int_convert(dtype, atype, sat)
        return Op(idx, ins, lambda m, mask: _apply(m, mask, read, write, lambda b: (f(b), True)), dests=dests)
    if dtype in INT_TYPES:  # float -> int
        if not irnd:
            raise KernelError("float-to-int cvt needs .rni/.rzi/.rmi/.rpi", ins.line, ins.opcode)
        g = _float_to_int(dtype, irnd[0])
        return Op(idx, ins, lambda m, mask: _apply(
            m, mask, read, write, lambda b: g(flush_subnormal(decode(b, atype)) if ftz else decode(b, atype))),
            dests=dests)
    if atype in INT_TYPES:  # int -> float
        aw = type_bits(atype)
        exact_rn = not frnd or frnd == ["rn"]

        def i2f(b: Any) -> tuple[Any, Any]:
            err: Any = None
            if aw == 64:  # float64 holds 53 bits: the value as (high half) * 2**32 + (low half), TwoSum'd
                high = (as_s(b, 64) >> np.int64(32)) if atype[0] == "s" else (as_u(b, 64) >> U64(32))
                xf, err = two_sum(np.asarray(high).astype(np.float64) * 2.0 ** 32,
                                  np.asarray(as_u(b, 32)).astype(np.float64))
            else:
                xf = np.asarray(as_s(b, aw) if atype[0] == "s" else as_u(b, aw)).astype(np.float64)
            bits = encode(xf, dtype, err)
            exact = decode(bits, dtype) == xf
            if err is not None:
                exact = exact & (err == 0)
            return bits, True if exact_rn else exact
        return Op(idx, ins, lambda m, mask: _apply(m, mask, read, write, i2f), dests=dests)
    # float -> float
    widen = type_bits(dtype) >= type_bits(atype) and not (dtype == "bf16" and atype == "f16") \
        and not (dtype == "f16" and atype == "bf16")
    relu = "relu" in parts

    def f2f(b: Any) -> tuple[Any, Any]:
        x = decode(b, atype)
        if ftz:
            x = flush_subnormal(x)
        if irnd:
            x = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[irnd[0]](x)
        if relu:
            x = np.where(np.isnan(x), x, np.maximum(x, 0.0))
        if sat:
            x = np.where(np.isnan(x), 0.0, np.clip(x, 0.0, 1.0))
        bits = encode(x, dtype)
        if ftz and dtype == "f32":
            bits = encode(flush_subnormal(decode(bits, "f32")), "f32")
        exact = widen or (decode(bits, dtype) == x) | np.isnan(x)
        return bits, True if (widen or not frnd or frnd == ["rn"]) else exact
    return Op(idx, ins, lambda m, mask: _apply(m, mask, read, write, f2f), dests=dests)


def _apply(m: Any, mask: Any, read: Any, write: Any, fn: Callable[[Any], tuple[Any, Any]]) -> None:
    v = read(m)
    bits, extra = fn(v.bits)
    write(m, bits, known_and(v.known, extra), mask)


@builder("cvta")
def build_cvta(ins: Instruction, ctx: Context, idx: int) -> Op:
    parts = ins.parts
    to = "to" in parts
    spaces = [p for p in parts if p in ("shared", "global", "local", "const", "param")]
    if not spaces:
        raise KernelError("cvta needs a state space", ins.line, ins.opcode)
    base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "param": PARAM_WINDOW}.get(spaces[0], 0)
    t = instr_type(ins, {"u32", "u64"})
    w = type_bits(t)
    write, dests = ctx.writer(ins.operands[0], ins, type_=t)
    read = ctx.reader(ins.operands[1], t, ins)
    delta = U64((-base if to else base) % (1 << 64))

    def run(m: Any, mask: Any) -> None:
        v = read(m)
        write(m, as_u(np.asarray(v.bits, dtype=np.uint64) + delta, w), v.known, mask)
    return Op(idx, ins, run, dests=dests)

"""Floating-point arithmetic on known values (PTX ISA 8.x, "Floating-Point Instructions", "Half Precision").

Results are exact IEEE roundings (:mod:`.floats`) for ``.rn`` (the default), with ``.ftz``
flushing f32 subnormal inputs and outputs and ``.sat`` clamping to [0, 1] (NaN -> 0).  Known
only where they can be computed exactly as the GPU does:

* ``mul``/``add``/``sub`` without a rounding modifier may be contracted by ptxas into an
  ``fma`` with a neighbour; a ``mul`` result is therefore known only where the product is
  exact (then contraction cannot change anything downstream);
* directed roundings (``.rz .rm .rp``) and approximate instructions (``.approx``, ``.full``,
  ``ex2 lg2 sin cos tanh rsqrt``, ``rcp``/``sqrt`` ``.approx``) give unknown results;
* ``.f16x2``/``.bf16x2`` operate on both halves.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from layoutalg.core.dtypes import dtype_bits
from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import FLOAT_TYPES, Context, Op, builder, instr_type
from layoutalg.kernel.interp.floats import decode, encode, flush_subnormal, two_sum
from layoutalg.kernel.interp.values import U64, known_and
from layoutalg.kernel.ptx.nodes import Instruction

Compute = Callable[..., tuple[Any, Any, Any]]  # (float64 result, error term or None, known-extra)
DIRECTED = ("rz", "rm", "rp")
APPROX_ROOTS = {"ex2", "lg2", "sin", "cos", "tanh", "rsqrt"}
#: The NaN an arithmetic result is when it is NaN (CUDA Programming Guide, "Floating-Point Standard": a
#: single-precision operation with NaN input gives the quiet NaN 0x7fffffff; PTX min/max .NaN: "canonical NaN").
CANONICAL_NAN = {"f32": 0x7FFFFFFF}


def _split(t: str) -> tuple[str, int]:
    """(element type, lanes) for packed types."""
    if t == "f16x2":
        return "f16", 2
    if t == "bf16x2":
        return "bf16", 2
    return t, 1


def float_op(ins: Instruction, ctx: Context, idx: int, t: str, nsrc: int, compute: Compute,
             always_unknown: bool = False) -> Op:
    """An op over exactly ``nsrc`` float sources of type ``t`` (packed types per half; another count is refused)."""
    elem, lanes = _split(t)
    width = 16 if lanes == 2 else (64 if elem == "f64" else (32 if elem in ("f32", "tf32") else 16))
    write, dests = ctx.writer(ins.operands[0], ins, type_=t)
    readers = [ctx.reader(op, t, ins) for op in ins.operands[1:]]  # every source: an extra one is refused
    if len(readers) != nsrc:
        raise KernelError(f"expects {nsrc} source operands", ins.line, ins.opcode)
    ftz = "ftz" in ins.parts and elem == "f32"
    sat = "sat" in ins.parts
    mask = U64((1 << width) - 1)

    def one(bits: list[Any]) -> tuple[Any, Any]:
        xs = [decode(b, elem) for b in bits]
        if ftz:
            xs = [flush_subnormal(x) for x in xs]
        with np.errstate(all="ignore"):
            res, err, extra = compute(*xs)
        if sat:
            res = np.where(np.isnan(res), 0.0, np.clip(res, 0.0, 1.0))
            err = np.where((res == 0.0) | (res == 1.0), 0.0, err) if err is not None else None
        if ftz:
            res = flush_subnormal(res)
        out: Any = encode(res, elem, err)
        if elem in CANONICAL_NAN:
            out = np.where(np.isnan(res), U64(CANONICAL_NAN[elem]), out)
        return out, extra

    def run(m: Any, mask_: Any) -> None:
        vals = [r(m) for r in readers]
        known = known_and(*[v.known for v in vals])
        if always_unknown or known is False:
            write(m, U64(0), False, mask_)
            return
        if lanes == 1:
            out, extra = one([v.bits for v in vals])
        else:
            lo, e1 = one([np.asarray(v.bits, dtype=np.uint64) & mask for v in vals])
            hi, e2 = one([(np.asarray(v.bits, dtype=np.uint64) >> U64(16)) & mask for v in vals])
            out, extra = (np.asarray(lo) & mask) | ((np.asarray(hi) & mask) << U64(16)), known_and(e1, e2)
        write(m, out, known_and(known, extra), mask_)

    return Op(idx, ins, run, dests=dests)


def build_float_arith(ins: Instruction, ctx: Context, idx: int) -> Op:
    """Float forms of add sub mul mad fma div min max neg abs (called from the integer builders too)."""
    t = instr_type(ins, FLOAT_TYPES)
    elem, _ = _split(t)
    root = ins.root
    parts = set(ins.parts)
    directed = any(r in parts for r in DIRECTED)
    if root in ("add", "sub"):
        sign = -1.0 if root == "sub" else 1.0
        if elem == "f64":
            return float_op(ins, ctx, idx, t, 2, lambda a, b: (a + sign * b, None, True), always_unknown=directed)
        return float_op(ins, ctx, idx, t, 2, lambda a, b: (*two_sum(a, sign * b), True), always_unknown=directed)
    if root == "mul":
        explicit = "rn" in parts
        if elem == "f64":
            return float_op(ins, ctx, idx, t, 2, lambda a, b: (a * b, None, True), always_unknown=directed)

        def mul(a: Any, b: Any) -> tuple[Any, Any, Any]:
            p = a * b
            if explicit:
                return p, None, True
            rounded = decode(encode(p, elem), elem)
            return p, None, (rounded == p) | np.isnan(p)
        return float_op(ins, ctx, idx, t, 2, mul, always_unknown=directed)
    if root in ("fma", "mad"):
        if elem == "f64":
            return float_op(ins, ctx, idx, t, 3, _fma64, always_unknown=directed)
        return float_op(ins, ctx, idx, t, 3, lambda a, b, c: (*two_sum(a * b, c), True), always_unknown=directed)
    if root == "div":
        approx = "approx" in parts or "full" in parts
        return float_op(ins, ctx, idx, t, 2, lambda a, b: (a / b, None, True), always_unknown=approx or directed)
    if root in ("min", "max"):
        return float_op(ins, ctx, idx, t, 2, _with_modifiers(_min_max(root == "min", "NaN" in parts), parts))
    if root == "neg":
        return _sign_bit_op(ins, ctx, idx, t, flip=True)
    if root == "abs":
        return _sign_bit_op(ins, ctx, idx, t, flip=False)
    raise KernelError("not a float arithmetic instruction", ins.line, ins.opcode)


def _min_max(is_min: bool, nan: bool) -> Compute:
    """min/max as the ISA's ``min_num``/``min_nan``: a NaN operand loses (``.NaN``: wins), and ``-0.0 < +0.0``."""
    pick: Any = (np.minimum if is_min else np.maximum) if nan else (np.fmin if is_min else np.fmax)

    def f(a: Any, b: Any) -> tuple[Any, Any, Any]:
        zeros = (a == 0) & (b == 0)
        negative = (np.signbit(a) | np.signbit(b)) if is_min else (np.signbit(a) & np.signbit(b))
        return np.where(zeros, np.where(negative, -0.0, 0.0), pick(a, b)), None, True
    return f


def _fma64(a: Any, b: Any, c: Any) -> tuple[Any, Any, Any]:
    """f64 fma: ``a*b + c`` from Dekker's exact product; known only where the float64 sum is exact."""
    p = a * b
    split = 134217729.0  # 2**27 + 1
    def parts(x: Any) -> tuple[Any, Any]:
        y = split * x
        hi = y - (y - x)
        return hi, x - hi
    ah, al = parts(a)
    bh, bl = parts(b)
    perr = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s, e = two_sum(p, c)
    s2, e2 = two_sum(s, perr)
    return s2, None, (e == 0) & (e2 == 0)


#: Bits of the float types whose sign bit neg/abs flip (the one dtype table).
_SIGN_WIDTH = {name: dtype_bits(name) for name in ("f16", "bf16", "f32", "tf32", "f64")}


def _sign_bit_op(ins: Instruction, ctx: Context, idx: int, t: str, flip: bool) -> Op:
    elem, lanes = _split(t)
    width = _SIGN_WIDTH[elem]
    sign = 0
    for k in range(lanes):
        sign |= 1 << (width * (k + 1) - 1)
    sbit = U64(sign)
    write, dests = ctx.writer(ins.operands[0], ins, type_=t)
    read = ctx.reader(ins.operands[1], t, ins)
    ftz = "ftz" in ins.parts and elem == "f32"

    def run(m: Any, mask: Any) -> None:
        v = read(m)
        bits = v.bits
        if ftz:
            bits = encode(flush_subnormal(decode(bits, "f32")), "f32")
        write(m, (bits ^ sbit) if flip else (bits & ~sbit), v.known, mask)
    return Op(idx, ins, run, dests=dests)


@builder("fma")
def build_fma(ins: Instruction, ctx: Context, idx: int) -> Op:
    return build_float_arith(ins, ctx, idx)


@builder("rcp", "sqrt")
def build_rcp_sqrt(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, FLOAT_TYPES)
    parts = set(ins.parts)
    approx = "approx" in parts or any(r in parts for r in DIRECTED)
    fn = (lambda a: (1.0 / a, None, True)) if ins.root == "rcp" else (lambda a: (np.sqrt(a), None, True))
    return float_op(ins, ctx, idx, t, 1, fn, always_unknown=approx)


@builder(*sorted(APPROX_ROOTS))
def build_approx(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, FLOAT_TYPES)
    return float_op(ins, ctx, idx, t, 1, lambda a: (a, None, False), always_unknown=True)


@builder("copysign")
def build_copysign(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, FLOAT_TYPES)
    return float_op(ins, ctx, idx, t, 2, lambda a, b: (np.copysign(b, a), None, True))


@builder("testp")
def build_testp(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, FLOAT_TYPES)
    tests: dict[str, Callable[[Any], Any]] = {
        "finite": np.isfinite, "infinite": np.isinf, "number": lambda x: ~np.isnan(x),
        "notanumber": np.isnan,
        "normal": lambda x: np.isfinite(x) & (np.abs(x) >= _tiny(t)),
        "subnormal": lambda x: (x != 0) & (np.abs(x) < _tiny(t)),
    }
    which = [p for p in ins.parts if p in tests]
    if not which:
        raise KernelError("testp needs .finite/.infinite/.number/.notanumber/.normal/.subnormal", ins.line,
                          ins.opcode)
    test = tests[which[0]]
    write, dests = ctx.writer(ins.operands[0], ins, type_="pred")
    read = ctx.reader(ins.operands[1], t, ins)

    def run(m: Any, mask: Any) -> None:
        v = read(m)
        write(m, test(decode(v.bits, t)), v.known, mask)
    return Op(idx, ins, run, dests=dests)


def _tiny(t: str) -> float:
    return {"f32": float(np.finfo(np.float32).tiny), "f64": float(np.finfo(np.float64).tiny),
            "f16": float(np.finfo(np.float16).tiny), "bf16": float(np.finfo(np.float32).tiny)}[t]


def _with_modifiers(pick: Compute, parts: set[str]) -> Compute:
    """min/max's ``.xorsign.abs`` and ``.relu`` (PTX ISA, min/max; sm_86+ and sm_80+): ``.xorsign.abs`` compares
    ``|a|`` and ``|b|`` and gives the result the XOR of a's and b's sign bits; ``.relu`` clamps a negative result
    to +0.  Where an input is NaN the result is left unknown (which NaN the modified forms give is not stated)."""
    xorsign, relu = "xorsign" in parts, "relu" in parts
    if not (xorsign or relu):
        return pick

    def f(a: Any, b: Any) -> tuple[Any, Any, Any]:
        res, err, _ = pick(np.abs(a), np.abs(b)) if xorsign else pick(a, b)
        if xorsign:
            res = np.where(np.signbit(a) ^ np.signbit(b), -np.abs(res), np.abs(res))
        if relu:
            res = np.where(np.signbit(res) & ~np.isnan(res), 0.0, res)
        return res, err, ~(np.isnan(a) | np.isnan(b))
    return f

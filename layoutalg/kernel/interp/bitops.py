"""Logic and bit-manipulation instructions (PTX ISA 8.x, "Logic and Shift", "Bit Manipulation").

Formulas follow the ISA's pseudocode:

* ``shl``/``shr`` by more than the width give 0 (``shr.s`` the sign fill); ``shf.{l,r}``
  funnel-shifts the 64-bit ``b:a`` by ``c & 31`` (``.wrap``) or ``min(c, 32)`` (``.clamp``);
* ``bfe``: ``pos = b & 0xff``, ``len = c & 0xff``; bit ``i`` of the result is ``a[pos+i]`` for
  ``i < len`` and ``pos+i <= msb``, otherwise the sign bit ``a[min(pos+len-1, msb)]`` (signed types,
  ``len > 0``) or 0;
* ``bfi d, a, b, c, e``: ``b`` with bits ``pos .. pos+len-1`` (clipped at msb) replaced by ``a``'s low bits;
* ``prmt``: each result byte ``n`` picks byte ``sel & 7`` of ``{b, a}`` (a = bytes 0-3), replicated from its
  sign bit when ``sel & 8``; the ``.f4e .b4e .rc8 .ecl .ecr .rc16`` modes take their selectors from the
  ISA's table (``PRMT_MODES``);
* ``lop3``: result bit = ``immLut >> (4*a + 2*b + c) & 1`` (``immLut = F(0xF0, 0xCC, 0xAA)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import Context, Op, builder, instr_type, type_bits
from layoutalg.kernel.interp.intops import int_op
from layoutalg.kernel.interp.values import MASKS, U64, as_s, as_u, known_and
from layoutalg.kernel.ptx.nodes import Imm, Instruction

M32 = U64(0xFFFF_FFFF)

#: prmt mode -> for selector c[1:0] = 0..3, the source byte of result bytes (b0, b1, b2, b3)
PRMT_MODES: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}


def _shift_amount(b: Any) -> Any:
    return as_u(b, 32)


@builder("shl")
def build_shl(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    w = type_bits(t)
    mask = U64(MASKS[w])

    def f(a: Any, b: Any) -> Any:
        n = _shift_amount(b)
        big = n >= U64(w)
        return np.where(big, U64(0), (a << np.minimum(n, U64(63))) & mask)
    return int_op(ins, ctx, idx, [t, "u32"], f, w)


@builder("shr")
def build_shr(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    w = type_bits(t)
    mask = U64(MASKS[w])
    if t[0] == "s":
        def fs(a: Any, b: Any) -> Any:
            n = np.minimum(_shift_amount(b), U64(w - 1)).astype(np.int64)
            return (as_s(a, w) >> n).astype(np.int64).astype(np.uint64) & mask
        return int_op(ins, ctx, idx, [t, "u32"], fs)

    def fu(a: Any, b: Any) -> Any:
        n = _shift_amount(b)
        return np.where(n >= U64(w), U64(0), as_u(a, w) >> np.minimum(n, U64(63)))
    return int_op(ins, ctx, idx, [t, "u32"], fu)


@builder("and", "or", "xor")
def build_logic(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[ins.root]
    if t == "pred":
        lf = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[ins.root]
        return int_op(ins, ctx, idx, [t, t], lambda a, b: lf(a, b))
    return int_op(ins, ctx, idx, [t, t], lambda a, b: fn(a, b))


@builder("not", "cnot")
def build_not(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    if t == "pred":
        return int_op(ins, ctx, idx, [t], lambda a: np.logical_not(a))
    w = type_bits(t)
    mask = U64(MASKS[w])
    if ins.root == "cnot":
        return int_op(ins, ctx, idx, [t], lambda a: np.where(as_u(a, w) == 0, U64(1), U64(0)))
    return int_op(ins, ctx, idx, [t], lambda a: (~a) & mask)


@builder("shf")
def build_shf(ins: Instruction, ctx: Context, idx: int) -> Op:
    left = "l" in ins.parts
    clamp = "clamp" in ins.parts
    if "wrap" not in ins.parts and not clamp:
        raise KernelError("shf needs .wrap or .clamp", ins.line, ins.opcode)

    def f(a: Any, b: Any, c: Any) -> Any:
        n = as_u(c, 32)
        n = np.minimum(n, U64(32)) if clamp else (n & U64(31))
        both = (as_u(b, 32) << U64(32)) | as_u(a, 32)
        if left:
            return ((both << n) >> U64(32)) & M32
        return (both >> n) & M32
    return int_op(ins, ctx, idx, ["b32", "b32", "u32"], f)


def _popcount(x: Any) -> Any:
    x = np.asarray(x, dtype=np.uint64)
    c = np.zeros(x.shape, dtype=np.uint64)
    for k in range(8):
        c += np.asarray(_POP8[((x >> U64(8 * k)) & U64(0xFF)).astype(np.int64)], dtype=np.uint64)
    return c


_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint64)


def _highest_bit(x: Any) -> Any:
    """Index of the highest set bit, -1 for 0 (int64)."""
    x = np.asarray(x, dtype=np.uint64)
    out = np.full(x.shape, -1, dtype=np.int64)
    for k in range(64):
        out = np.where((x >> U64(k)) & U64(1) != 0, k, out)
    return out


@builder("popc", "clz", "brev", "bfind")
def build_bitcount(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    w = type_bits(t)
    root = ins.root
    if root == "popc":
        return int_op(ins, ctx, idx, [t], lambda a: _popcount(as_u(a, w)), dest="u32")
    if root == "clz":
        return int_op(ins, ctx, idx, [t], lambda a: (np.int64(w - 1) - _highest_bit(as_u(a, w))).astype(np.uint64),
                      dest="u32")
    if root == "brev":
        def rev(a: Any) -> Any:
            a = np.asarray(as_u(a, w), dtype=np.uint64)
            out = np.zeros(a.shape, dtype=np.uint64)
            for k in range(w):
                out |= ((a >> U64(k)) & U64(1)) << U64(w - 1 - k)
            return out
        return int_op(ins, ctx, idx, [t], rev)
    shiftamt = "shiftamt" in ins.parts

    def bfind(a: Any) -> Any:
        x = as_u(a, w)
        if t[0] == "s":
            neg = (x >> U64(w - 1)) & U64(1) != 0
            x = np.where(neg, (~x) & U64(MASKS[w]), x)
        pos = _highest_bit(x)
        res = np.where(pos < 0, np.int64(0xFFFFFFFF), (w - 1 - pos) if shiftamt else pos)
        return res.astype(np.int64).astype(np.uint64) & M32
    return int_op(ins, ctx, idx, [t], bfind, dest="u32")


@builder("bfe")
def build_bfe(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    w = type_bits(t)
    msb = w - 1
    signed = t[0] == "s"

    def f(a: Any, b: Any, c: Any) -> Any:
        pos = (as_u(b, 32) & U64(0xFF)).astype(np.int64)
        ln = (as_u(c, 32) & U64(0xFF)).astype(np.int64)
        a = np.asarray(as_u(a, w), dtype=np.uint64)
        pos, ln, a = np.broadcast_arrays(pos, ln, a)
        if signed:
            top = np.minimum(pos + ln - 1, msb).clip(0)
            sbit = np.where(ln == 0, U64(0), (a >> top.astype(np.uint64)) & U64(1))
        else:
            sbit = np.zeros(a.shape, dtype=np.uint64)
        out = np.zeros(a.shape, dtype=np.uint64)
        for i in range(w):
            src = pos + i
            take = (i < ln) & (src <= msb)
            bit = np.where(take, (a >> np.minimum(src, msb).astype(np.uint64)) & U64(1), sbit)
            out |= bit.astype(np.uint64) << U64(i)
        return out
    return int_op(ins, ctx, idx, [t, "u32", "u32"], f)


@builder("bfi")
def build_bfi(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins)
    w = type_bits(t)
    msb = w - 1

    def f(a: Any, b: Any, c: Any, d: Any) -> Any:
        pos = (as_u(c, 32) & U64(0xFF)).astype(np.int64)
        ln = (as_u(d, 32) & U64(0xFF)).astype(np.int64)
        a = np.asarray(as_u(a, w), dtype=np.uint64)
        out = np.asarray(as_u(b, w), dtype=np.uint64)
        pos, ln, a, out = (x.copy() for x in np.broadcast_arrays(pos, ln, a, out))
        for i in range(w):
            dst = pos + i
            put = (i < ln) & (dst <= msb)
            sh = np.minimum(dst, msb).astype(np.uint64)
            bit = (a >> U64(i)) & U64(1)
            out = np.where(put, (out & ~(U64(1) << sh)) | (bit << sh), out)
        return out
    return int_op(ins, ctx, idx, [t, t, "u32", "u32"], f)


def prmt(a: Any, b: Any, c: Any, mode: str | None) -> Any:
    """The prmt.b32 result (see the module doc)."""
    a, b, c = (np.asarray(x, dtype=np.uint64) for x in (a, b, c))
    src = (as_u(b, 32) << U64(32)) | as_u(a, 32)
    out = np.zeros(np.broadcast_shapes(a.shape, b.shape, c.shape), dtype=np.uint64)
    for n in range(4):
        if mode is None:
            sel = (c >> U64(4 * n)) & U64(0xF)
            byte_index = sel & U64(7)
            byte = (src >> (byte_index * U64(8))) & U64(0xFF)
            sign = np.where((byte & U64(0x80)) != 0, U64(0xFF), U64(0))
            byte = np.where((sel & U64(8)) != 0, sign, byte)
        else:
            table = np.array([row[n] for row in PRMT_MODES[mode]], dtype=np.uint64)
            byte_index = table[(c & U64(3)).astype(np.int64)]
            byte = (src >> (byte_index * U64(8))) & U64(0xFF)
        out |= byte << U64(8 * n)
    return out


@builder("prmt")
def build_prmt(ins: Instruction, ctx: Context, idx: int) -> Op:
    modes = [p for p in ins.parts[1:] if p in PRMT_MODES]
    mode = modes[0] if modes else None
    return int_op(ins, ctx, idx, ["b32", "b32", "b32"], lambda a, b, c: prmt(a, b, c, mode))


def lop3(a: Any, b: Any, c: Any, lut: int) -> Any:
    """Bitwise F(a, b, c) with ``lut = F(0xF0, 0xCC, 0xAA)`` (see the module doc)."""
    a, b, c = (np.asarray(x, dtype=np.uint64) for x in (a, b, c))
    out = np.zeros(np.broadcast_shapes(a.shape, b.shape, c.shape), dtype=np.uint64)
    for k in range(8):
        if (lut >> k) & 1:
            out |= (a if k & 4 else ~a) & (b if k & 2 else ~b) & (c if k & 1 else ~c)
    return out & M32


@builder("lop3")
def build_lop3(ins: Instruction, ctx: Context, idx: int) -> Op:
    if len(ins.operands) != 5 or not isinstance(ins.operands[4], Imm):
        raise KernelError("lop3 needs d, a, b, c, immLut (predicate-output forms are not supported)",
                          ins.line, ins.opcode)
    lut = ins.operands[4].value & 0xFF
    write, dests = ctx.writer(ins.operands[0], ins, type_="b32")
    readers = [ctx.reader(op, "b32", ins) for op in ins.operands[1:4]]

    def run(m: Any, mask: Any) -> None:
        va, vb, vc = (r(m) for r in readers)
        write(m, lop3(va.bits, vb.bits, vc.bits, lut), known_and(va.known, vb.known, vc.known), mask)
    return Op(idx, ins, run, dests=dests)


@builder("bmsk")
def build_bmsk(ins: Instruction, ctx: Context, idx: int) -> Op:
    clamp = "clamp" in ins.parts

    def f(a: Any, b: Any) -> Any:
        pos, ln = as_u(a, 32), as_u(b, 32)
        if clamp:
            pos, ln = np.minimum(pos, U64(32)), np.minimum(ln, U64(32))
        else:
            pos, ln = pos & U64(31), ln & U64(31)
        ones = np.where(ln >= U64(32), M32, (U64(1) << np.minimum(ln, U64(63))) - U64(1))
        return np.where(pos >= U64(32), U64(0), (ones << np.minimum(pos, U64(63))) & M32)
    return int_op(ins, ctx, idx, ["u32", "u32"], f)


@builder("szext")
def build_szext(ins: Instruction, ctx: Context, idx: int) -> Op:
    t = instr_type(ins, {"u32", "s32"})
    clamp = "clamp" in ins.parts

    def f(a: Any, b: Any) -> Any:
        n = as_u(b, 32)
        n = np.minimum(n, U64(32)) if clamp else (n & U64(31))
        a = np.asarray(as_u(a, 32), dtype=np.uint64)
        keep = np.where(n >= U64(32), M32, (U64(1) << np.minimum(n, U64(63))) - U64(1))
        low = a & keep
        if t == "u32":
            return low
        sign = np.where(n == 0, U64(0), (a >> np.maximum(n, U64(1)) - U64(1)) & U64(1))
        return np.where(sign != 0, low | (~keep & M32), low)
    return int_op(ins, ctx, idx, [t, "u32"], f)

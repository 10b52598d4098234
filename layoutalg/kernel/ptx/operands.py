"""Parse one PTX operand (PTX ISA 8.x, "Operand Types", "Constants").

* registers ``%r1``, ``%tid.x``, ``p`` (nvcc's inline-asm registers need no ``%``);
* integers: decimal, ``0x`` hex, ``0b`` binary, leading-``0`` octal, negative, ``U`` suffix;
* floats as bits: ``0f3F800000`` (f32), ``0d3FF0000000000000`` (f64); decimal floats
  such as ``1.0`` are accepted and converted to f64 bits;
* ``[base]``, ``[base+imm]``, ``[base+-imm]``, ``[base-imm]``, ``[imm]`` addresses;
* tensor addresses ``[tensorMap, {c0, c1}]`` (``cp.async.bulk.tensor``);
* vectors ``{a, b, _}``; ``%p|%q`` (setp's two results); ``!%p``; ``_``;
* symbols with an optional offset ``smem+128``.
"""

from __future__ import annotations

import re
import struct

from layoutalg.core.validate import describe
from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.nodes import Addr, FloatImm, Imm, Not, Operand, PredPair, Reg, Sink, Sym, TensorAddr, Vec

_INT = re.compile(r"^[+-]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uU]?$")
_FLOAT_BITS = re.compile(r"^0([fFdD])([0-9a-fA-F]+)$")
_DEC_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?\d+[eE][+-]?\d+$")
_IDENT = re.compile(r"^[A-Za-z_$%][\w$.]*$")
_SYM_OFFSET = re.compile(r"^([A-Za-z_$][\w$]*)\s*([+-])\s*(.+)$")


MAX_LITERAL_DIGITS = 128
"""The most significant digits an integer literal may have (64-bit PTX immediates need at most 64, in binary)."""


def parse_int(text: str) -> int | None:
    """The integer a PTX literal denotes, or None if ``text`` is not one.

    A literal of more than :data:`MAX_LITERAL_DIGITS` significant digits is refused (KernelError): no PTX
    immediate is that wide, and Python will not convert a decimal string of more than 4,300 digits.
    """
    t = text.strip().replace(" ", "")
    if not _INT.match(t):
        return None
    neg = t.startswith("-")
    t = t.lstrip("+-").rstrip("uU")
    digits = t[2:] if t[:2].lower() in ("0x", "0b") else t
    significant = len(digits.lstrip("0"))
    if significant > MAX_LITERAL_DIGITS:
        raise KernelError(f"an integer literal of {significant} digits ({t[:20]}...): PTX integers are at most "
                          f"64 bits, and literals of more than {MAX_LITERAL_DIGITS} digits are not read")
    if t[:2] in ("0x", "0X"):
        v = int(t[2:], 16)
    elif t[:2] in ("0b", "0B"):
        v = int(t[2:], 2)
    elif len(t) > 1 and t[0] == "0":
        v = int(t, 8)
    else:
        v = int(t)
    return -v if neg else v


def split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside ``{}``, ``[]`` and ``()``."""
    if not any(c in text for c in "{[("):
        pieces = [p.strip() for p in text.split(sep)]
        return pieces if pieces != [""] else []
    parts: list[str] = []
    depth = 0
    cur: list[str] = []
    for c in text:
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    last = "".join(cur).strip()
    if last or parts:
        parts.append(last)
    return parts


def _address(inner: str, line: int) -> Addr:
    inner = inner.strip()
    value = parse_int(inner)
    if value is not None:
        return Addr(None, value)
    m = re.match(r"^([%\w$.]+)\s*(?:([+-])\s*(.+))?$", inner)
    if not m:
        raise KernelError(f"cannot read address operand [{inner}]", line)
    base_text, sign, rest = m.groups()
    offset = 0
    if sign:
        off = parse_int(rest.replace(" ", ""))
        if off is None:
            raise KernelError(f"address offset {describe(rest)} in [{inner}] is not an integer", line)
        offset = -off if sign == "-" else off
    base: Reg | Sym = Reg(base_text) if base_text.startswith("%") else Sym(base_text)
    return Addr(base, offset)


def parse_operand(text: str, line: int, registers: frozenset[str] | set[str] = frozenset()) -> Operand:
    """One operand; ``registers`` holds declared register names without ``%`` (inline-asm style)."""
    t = text.strip()
    if not t:
        raise KernelError("empty operand", line)
    if t == "_":
        return Sink()
    if t.startswith("{") and t.endswith("}"):
        if not t[1:-1].strip():  # ptxas: syntax error; no instruction takes a vector of no elements
            raise KernelError(f"empty vector operand {describe(t)}: a vector operand names at least one element", line)
        return Vec(tuple(parse_operand(x, line, registers) for x in split_top(t[1:-1])))
    if t.startswith("[") and t.endswith("]"):
        pieces = split_top(t[1:-1])
        if len(pieces) == 2 and pieces[1].startswith("{"):
            coords = parse_operand(pieces[1], line, registers)
            assert isinstance(coords, Vec)
            return TensorAddr(_address(pieces[0], line), coords)
        return _address(t[1:-1], line)
    if t.startswith("!"):
        inner = parse_operand(t[1:], line, registers)
        if not isinstance(inner, Reg):
            raise KernelError(f"'!' applies to a predicate register, not {t[1:]!r}", line)
        return Not(inner)
    if "|" in t:  # ISA setp: "p[|q]", two destinations; ptxas refuses "%p|%q|%r" and an empty name
        names = [x.strip() for x in t.split("|")]
        if len(names) != 2 or not all(_IDENT.match(x) for x in names):
            raise KernelError(f"predicate pair {describe(t)} must name exactly two registers (setp's p|q)", line)
        return PredPair(Reg(names[0]), Reg(names[1]))
    if t.startswith("%"):
        if not _IDENT.match(t):
            raise KernelError(f"bad register name {describe(t)}", line)
        return Reg(t)
    m = _FLOAT_BITS.match(t)
    if m:
        width = 32 if m.group(1) in "fF" else 64
        if len(m.group(2)) != width // 4:
            raise KernelError(f"float literal {describe(t)} needs {width // 4} hex digits", line)
        return FloatImm(int(m.group(2), 16), width)
    value = parse_int(t)
    if value is not None:
        return Imm(value)
    if _DEC_FLOAT.match(t):
        return FloatImm(struct.unpack("<Q", struct.pack("<d", float(t)))[0], 64)
    if t in registers:
        return Reg(t)
    m = _SYM_OFFSET.match(t)
    if m:
        off = parse_int(m.group(3).replace(" ", ""))
        if off is None:
            raise KernelError(f"cannot read operand {describe(t)}", line)
        return Sym(m.group(1), -off if m.group(2) == "-" else off)
    if _IDENT.match(t):
        return Sym(t)
    raise KernelError(f"cannot read operand {describe(t)}", line)

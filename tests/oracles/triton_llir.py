"""Triton's own view of a shared-memory layout, read from the code Triton generates for it (CPU only).

Triton 3.6's ``gluon`` ``to_linear_layout`` aborts the process on shared layouts (it builds a distributed
``LinearEncodingAttr`` from them), so the view is taken from Triton's lowering instead: compile a Gluon
kernel that stores each element's logical index ``m * N + n`` into a shared buffer of the layout under test,
then run the straight-line LLVM IR that Triton emitted before the first barrier, for every thread, on a
small interpreter of the integer subset it uses.  Which byte each element lands at is then exactly Triton's
address computation for that layout: ``offsets(...)[o] == (m, n)`` says Triton puts element ``(m, n)`` at
element offset ``o`` (Triton's ``offset -> (dim0, dim1)`` map).

Stores are told apart by their debug location: each buffer is stored from its own source line.  Anything
outside the supported subset raises, so an unexpected lowering fails the test instead of passing silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

_ASSIGN = re.compile(r"^\s*(%[\w.]+) = (.*?)(?:, !dbg !(\d+))?(?:, !\w+ !\d+)*\s*$")
_STORE = re.compile(r"^\s*store (.*?), !dbg !(\d+)")
_LOCATION = re.compile(r"^!(\d+) = !DILocation\(line: (\d+)")
_FLAGS = {"nuw", "nsw", "disjoint", "exact", "nneg", "inbounds", "tail", "samesign"}
_CONST_GEP = re.compile(r"getelementptr (?:inbounds )?(?:nuw )?\((i\d+), ptr addrspace\(3\) @global_smem, i32 (-?\d+)\)")


def _fold_constant_geps(line: str) -> str:
    """``getelementptr (i8, ptr addrspace(3) @global_smem, i32 9216)`` -> ``@smem.9216`` (a byte offset)."""
    return _CONST_GEP.sub(lambda m: f"@smem.{int(m.group(2)) * _type_bits(m.group(1))[0] // 8}", line)


def _mask(x: Any, bits: int) -> Any:
    """``x`` as an unsigned ``bits``-bit value (64-bit values stay int64: the addresses here are small)."""
    return x & ((1 << bits) - 1) if bits < 63 else x


@dataclass
class Vec:
    """An LLVM vector: ``elems`` of ``bits`` each (numpy arrays over threads)."""

    bits: int
    elems: list[Any]


def _type_bits(text: str) -> tuple[int, int]:
    """``i16`` -> (16, 0); ``<4 x i32>`` -> (32, 4) (count 0 for a scalar)."""
    text = text.strip()
    m = re.fullmatch(r"<(\d+) x i(\d+)>", text)
    if m:
        return int(m.group(2)), int(m.group(1))
    m = re.fullmatch(r"i(\d+)", text)
    if m:
        return int(m.group(1)), 0
    raise NotImplementedError(f"type {text!r}")


def _split_operands(text: str) -> list[str]:
    """``a, b`` split at the commas outside ``<...>`` and ``(...)`` (constant vectors hold commas)."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += ch in "<(" and 1 or 0
        depth -= ch in ">)" and 1 or 0
        if ch == "," and depth == 0:
            parts.append(text[start:k].strip())
            start = k + 1
    return parts + [text[start:].strip()]


class Interpreter:
    """Runs the kernel body for ``threads`` threads at once (every value is a numpy array over threads)."""

    def __init__(self, llir: str, threads: int) -> None:
        self.threads = threads
        self.tid = np.arange(threads, dtype=np.int64)
        self.env: dict[str, Any] = {}
        self.lines = llir.splitlines()
        self.locations = {int(m.group(1)): int(m.group(2)) for m in map(_LOCATION.match, self.lines) if m}
        self.writes: list[tuple[int, Any, Any, int]] = []  # (source line, byte addresses, values, bits)

    def operand(self, text: str, bits: int) -> Any:
        text = text.strip()
        if text.startswith("%"):
            return self.env[text]
        if text in ("poison", "undef"):
            return np.zeros(self.threads, dtype=np.int64)
        if text == "@global_smem":
            return np.zeros(self.threads, dtype=np.int64)
        if text.startswith("@smem."):
            return np.full(self.threads, int(text[len("@smem."):]), dtype=np.int64)
        return _mask(np.full(self.threads, int(text), dtype=np.int64), bits)

    def run(self) -> None:
        body = False
        for line in self.lines:
            if line.startswith("define "):
                body = True
                continue
            if not body:
                continue
            if line.startswith("}") or "barrier" in line:
                return
            if not line.strip() or line.strip().endswith(":"):
                continue
            line = _fold_constant_geps(line)
            if m := _STORE.match(line):
                self.store(m.group(1), self.locations[int(m.group(2))])
                continue
            if "@llvm.nvvm.stmatrix" in line:
                self.stmatrix(line, self.locations[int(re.search(r"!dbg !(\d+)", line).group(1))])  # type: ignore[union-attr]
                continue
            m = _ASSIGN.match(line)
            if m is None:
                raise NotImplementedError(f"line {line.strip()!r}")
            self.env[m.group(1)] = self.evaluate(m.group(2))
        raise AssertionError("no barrier after the shared-memory stores")

    def evaluate(self, text: str) -> Any:
        words = [w for w in text.replace(",", " , ").split() if w not in _FLAGS]
        op = words[0]
        rest = " ".join(words[1:]).replace(" , ", ", ")
        if op == "call" and "@llvm.nvvm.read.ptx.sreg.tid.x" in rest:
            return self.tid.copy()
        if op in ("shl", "lshr", "ashr", "and", "or", "xor", "add", "sub", "mul", "udiv", "urem"):
            def apply(a: Any, b: Any) -> Any:
                return {"shl": lambda: a << b, "lshr": lambda: a >> b, "ashr": lambda: a >> b, "and": lambda: a & b,
                        "or": lambda: a | b, "xor": lambda: a ^ b, "add": lambda: a + b, "sub": lambda: a - b,
                        "mul": lambda: a * b, "udiv": lambda: a // b, "urem": lambda: a % b}[op]()

            vector = re.fullmatch(r"(<\d+ x i\d+>) (.+)", rest)
            if vector:  # lane by lane; an operand is a register or a constant vector (splat, <...>, zeroinitializer)
                bits, count = _type_bits(vector.group(1))
                x, y = (self.value(v, bits, count) for v in _split_operands(vector.group(2)))
                return Vec(bits, [_mask(apply(a, b), bits) for a, b in zip(x.elems, y.elems)])
            ty, args = rest.split(" ", 1)
            bits, _ = _type_bits(ty)
            a, b = (self.operand(x, bits) for x in args.split(", "))
            return _mask(apply(a, b), bits)
        if op == "icmp" and (vector := re.fullmatch(r"(\w+) (<\d+ x i\d+>) (.+)", rest)):  # lane by lane
            bits, count = _type_bits(vector.group(2))
            x, y = (self.value(v, bits, count) for v in _split_operands(vector.group(3)))
            compare = {"eq": np.equal, "ne": np.not_equal, "ult": np.less, "ule": np.less_equal, "ugt": np.greater,
                       "uge": np.greater_equal}.get(vector.group(1))
            if compare is None:
                raise NotImplementedError(text)
            return Vec(1, [compare(a, b).astype(np.int64) for a, b in zip(x.elems, y.elems)])
        if op == "icmp":
            m = re.fullmatch(r"(\w+) (i\d+) (\S+), (\S+)", rest)
            if m is None:
                raise NotImplementedError(text)
            bits, _ = _type_bits(m.group(2))
            a, b = self.operand(m.group(3), bits), self.operand(m.group(4), bits)
            compare = {"eq": np.equal, "ne": np.not_equal, "ult": np.less, "ule": np.less_equal, "ugt": np.greater,
                       "uge": np.greater_equal}.get(m.group(1))
            if compare is None:
                raise NotImplementedError(text)  # signed compares: not seen in Triton's address code
            return compare(a, b).astype(np.int64)
        if op == "select" and (vector := re.fullmatch(r"<(\d+) x i1> (\S+), (<\d+ x i\d+>) (.+)", rest)):
            bits, count = _type_bits(vector.group(3))
            condition = self.value(vector.group(2), 1, count)
            x, y = (self.value(re.sub(r"^<\d+ x i\d+>\s*", "", v), bits, count)
                    for v in _split_operands(vector.group(4)))
            return Vec(bits, [np.where(c != 0, a, b) for c, a, b in zip(condition.elems, x.elems, y.elems)])
        if op == "select":
            m = re.fullmatch(r"i1 (\S+), (i\d+) (\S+), i\d+ (\S+)", rest)
            if m is None:
                raise NotImplementedError(text)
            bits, _ = _type_bits(m.group(2))
            return np.where(self.operand(m.group(1), 1) != 0, self.operand(m.group(3), bits),
                            self.operand(m.group(4), bits))
        if op in ("trunc", "zext", "sext"):
            m = re.fullmatch(r"(\S+) (\S+) to (\S+)", rest)
            if m is None:
                raise NotImplementedError(text)
            src_bits, _ = _type_bits(m.group(1))
            dst_bits, _ = _type_bits(m.group(3))
            return _mask(self.operand(m.group(2), src_bits), dst_bits)
        if op == "getelementptr":
            m = re.fullmatch(r"(i\d+), ptr(?: addrspace\((\d)\))? (\S+), i(\d+) (\S+)", rest)
            if m is None:
                raise NotImplementedError(text)
            if m.group(2) != "3":
                return np.zeros(self.threads, dtype=np.int64)  # global memory: not followed
            scale = _type_bits(m.group(1))[0] // 8
            return self.operand(m.group(3), 32) + scale * self.operand(m.group(5), int(m.group(4)))
        if op == "insertelement":
            m = re.fullmatch(r"<(\d+) x i(\d+)> (<[^<>]*>|\S+), i(\d+) (\S+), i\d+ (\d+)", rest)  # base: a value or
            # a constant vector such as <i32 poison, i32 undef> (its lanes are overwritten before use)
            if m is None:
                raise NotImplementedError(text)
            count, bits = int(m.group(1)), int(m.group(2))
            base = self.env.get(m.group(3))
            elems = list(base.elems) if isinstance(base, Vec) else [np.zeros(self.threads, dtype=np.int64)] * count
            elems[int(m.group(6))] = self.operand(m.group(5), bits)
            return Vec(bits, elems)
        if op == "call" and "@llvm.bitreverse." in rest:  # call iN @llvm.bitreverse.iN(iN x): x's N bits reversed
            m = re.fullmatch(r"i(\d+) @llvm\.bitreverse\.i\d+\(i\d+ (\S+)\)", rest)
            if m is None:
                raise NotImplementedError(text)
            bits = int(m.group(1))
            x = self.operand(m.group(2), bits)
            return sum(((x >> k) & 1) << (bits - 1 - k) for k in range(bits))
        if op == "call" and "@llvm.vector.reduce." in rest:  # call iN @llvm.vector.reduce.OP.vKiN(<K x iN> v)
            m = re.fullmatch(r"i(\d+) @llvm\.vector\.reduce\.(or|and|xor|add)\.v\d+i\d+\(<\d+ x i\d+> (%\S+)\)", rest)
            if m is None:
                raise NotImplementedError(text)
            elems = self.env[m.group(3)].elems
            total = elems[0]
            for e in elems[1:]:
                total = {"or": total | e, "and": total & e, "xor": total ^ e, "add": total + e}[m.group(2)]
            return _mask(total, int(m.group(1)))
        if op == "shufflevector":  # two vectors and a constant mask: lane k of the result is lane mask[k] of a ++ b
            m = re.fullmatch(r"<(\d+) x i(\d+)> (\S+), <\d+ x i\d+> (\S+), <(\d+) x i32> (zeroinitializer|<[^<>]*>)", rest)
            if m is None:
                raise NotImplementedError(text)
            count, bits = int(m.group(1)), int(m.group(2))
            lanes = []
            for name in (m.group(3), m.group(4)):
                found = self.env.get(name)
                lanes += list(found.elems) if isinstance(found, Vec) else [np.zeros(self.threads, dtype=np.int64)] * count
            picks = [0] * int(m.group(5)) if m.group(6) == "zeroinitializer" else \
                [item.split()[-1] for item in m.group(6)[1:-1].split(",")]
            zero = np.zeros(self.threads, dtype=np.int64)  # a poison lane: never read before it is overwritten
            return Vec(bits, [zero if k in ("poison", "undef") else lanes[int(k)] for k in picks])
        if op == "extractelement":
            m = re.fullmatch(r"<\d+ x i(\d+)> (\S+), i\d+ (\d+)", rest)
            if m is None:
                raise NotImplementedError(text)
            return self.env[m.group(2)].elems[int(m.group(3))]
        if op == "bitcast":
            m = re.fullmatch(r"(<\d+ x i\d+>|i\d+) (\S+) to (<\d+ x i\d+>|i\d+)", rest)
            if m is None:
                raise NotImplementedError(text)
            return self.bitcast(self.env[m.group(2)] if m.group(2).startswith("%") else None, m.group(3))
        raise NotImplementedError(f"operation {op!r} in {text!r}")

    def bitcast(self, value: Any, to: str) -> Any:
        as_bytes = self.to_bytes(value)
        bits, count = _type_bits(to)
        return self.from_bytes(as_bytes, bits, count)

    def to_bytes(self, value: Any, bits: int = 0) -> list[Any]:
        if isinstance(value, Vec):
            out: list[Any] = []
            for e in value.elems:
                out.extend(self.to_bytes(e, value.bits))
            return out
        if bits % 8:
            raise NotImplementedError(f"{bits}-bit scalar in a byte view")
        return [(value >> (8 * k)) & 0xFF for k in range(bits // 8)]

    def from_bytes(self, data: list[Any], bits: int, count: int) -> Any:
        per = bits // 8
        elems = [sum(data[k * per + j] << (8 * j) for j in range(per)) for k in range(len(data) // per)]
        return Vec(bits, elems) if count else elems[0]

    def store(self, text: str, line: int) -> None:
        m = re.fullmatch(r"(<\d+ x i\d+>|i\d+) (.+), ptr addrspace\((\d)\) (\S+), align \d+", text.strip())
        if m is None:
            raise NotImplementedError(f"store {text!r}")
        if m.group(3) != "3":
            return
        bits, count = _type_bits(m.group(1))
        value = self.value(m.group(2), bits, count)
        address = self.operand(m.group(4), 32)
        for k, elem in enumerate(value.elems):
            self.writes.append((line, address + k * value.bits // 8, elem, value.bits))

    def value(self, text: str, bits: int, count: int) -> Vec:
        """A stored operand: a register, a scalar constant, or a vector constant (zeroinitializer, splat, <...>)."""
        text = text.strip()
        if text.startswith("%"):
            found = self.env[text]
            return found if isinstance(found, Vec) else Vec(bits, [found])
        if count == 0:
            return Vec(bits, [self.operand(text, bits)])
        if text == "zeroinitializer":
            return Vec(bits, [np.zeros(self.threads, dtype=np.int64)] * count)
        splat = re.fullmatch(r"splat \(i\d+ (-?\d+)\)", text)
        if splat:
            return Vec(bits, [self.operand(splat.group(1), bits)] * count)
        items = re.fullmatch(r"<(.*)>", text)
        if items:
            return Vec(bits, [self.operand(item.split()[-1], bits) for item in items.group(1).split(",")])
        raise NotImplementedError(f"stored value {text!r}")

    def stmatrix(self, text: str, line: int) -> None:
        """``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16`` (PTX ISA): lane ``8*i + r`` gives the address of row
        ``r`` of matrix ``i``; register ``i`` of lane ``l`` holds row ``l // 4``, columns ``2*(l % 4) + {0, 1}``
        (with ``.trans`` the same pair is column ``l // 4``, rows ``2*(l % 4) + {0, 1}``)."""
        m = re.search(r"stmatrix\.sync\.aligned\.m8n8\.x(\d)(\.trans)?\.b16\.p3\((.*)\)", text)
        if m is None:
            raise NotImplementedError(f"call {text.strip()!r}")
        count, trans = int(m.group(1)), bool(m.group(2))
        args = [a.strip().split()[-1] for a in m.group(3).split(",")]
        address = self.operand(args[0], 32)
        regs = [self.operand(a, 32) for a in args[1:]]
        if len(regs) != count or self.threads % 32:
            raise NotImplementedError(text)
        warps = np.arange(self.threads // 32) * 32
        for i in range(count):
            for r in range(8):
                for c in range(8):
                    lane = 4 * c + r // 2 if trans else 4 * r + c // 2
                    half = r % 2 if trans else c % 2
                    value = (regs[i][warps + lane] >> (16 * half)) & 0xFFFF
                    self.writes.append((line, address[warps + 8 * i + r] + 2 * c, value, 16))

    def memory(self, line: int, element_bits: int) -> dict[int, int]:
        """Element offset (from the buffer's lowest address) -> stored value, for the stores made at ``line``."""
        cells: dict[int, int] = {}
        for write_line, address, value, bits in self.writes:
            if write_line != line:
                continue
            for k in range(bits // 8):
                byte = (value >> (8 * k)) & 0xFF
                for a, b in zip(address.tolist(), byte.tolist()):
                    cells[a + k] = b
        if not cells:
            raise AssertionError(f"no shared-memory store from source line {line}")
        base = min(cells)
        per = element_bits // 8
        out: dict[int, int] = {}
        for addr in sorted(cells):
            rel = addr - base
            if rel % per == 0 and all(addr + j in cells for j in range(per)):
                out[rel // per] = sum(cells[addr + j] << (8 * j) for j in range(per))
        return out


def shared_offsets(llir: str, threads: int, line: int, element_bits: int) -> dict[int, int]:
    """Element offset -> the value Triton's kernel stored there from source ``line`` (see the module docstring)."""
    interp = Interpreter(llir, threads)
    interp.run()
    return interp.memory(line, element_bits)

"""A straightforward per-thread PTX interpreter: the oracle for layoutalg.kernel's vectorised machine.

Deliberately simple: Python ints per thread (``None`` = unknown), one warp at a time, one lane at a
time.  A warp runs its lowest-PC lanes together until every lane waits at a barrier or has exited;
then the next warp runs; when every warp of the CTA waits, the barrier opens.  Shared-memory
instructions are recorded per warp execution as (instruction index, global warp, active lanes,
shared addresses, global sources), exactly the facts the vectorised machine records.

It shares only the parser and the launch setup (parameter packing, symbol addresses) with the
library; every instruction's semantics is written again here, from the PTX ISA, in scalar form.
Unsupported opcodes raise NotImplementedError (tests use kernels whose opcodes are covered).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutalg.kernel.args import pack_params
from layoutalg.kernel.interp.program import build_image
from layoutalg.kernel.interp.spaces import GLOBAL_SHIFT, SHARED_WINDOW, SMEM_BASE
from layoutalg.kernel.ptx.nodes import (
    TYPE_BYTES,
    Addr,
    FloatImm,
    Imm,
    Instruction,
    Module,
    Not,
    PredPair,
    Reg,
    Sink,
    Sym,
    Vec,
)
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.source import select_entry

M64 = (1 << 64) - 1


def bits_of(t: str) -> int:
    return 1 if t == "pred" else 8 * TYPE_BYTES[t]


def signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def f32(v: int) -> float:
    return struct.unpack("<f", struct.pack("<I", v & 0xFFFFFFFF))[0]


def f64(v: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", v & M64))[0]


def f16(v: int) -> float:
    return float(np.array([v & 0xFFFF], dtype=np.uint16).view(np.float16)[0])


def to_f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def to_f64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


@dataclass
class Lane:
    tid: tuple[int, int, int]
    lin: int
    regs: dict[str, Any] = field(default_factory=dict)
    pc: int = 0
    state: str = "run"  # run, wait, done


@dataclass
class Record:
    index: int
    warp: int
    active: tuple[bool, ...]
    smem: tuple[int, ...]
    gsrc: tuple[int, ...] | None
    dropped: bool = False  # some executing lane's address was unknown (counted, not costed)


class Reference:
    def __init__(self, ptx: str | Module, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int],
                 args: dict[Any, Any], dynamic_smem: int = 0, ctas: list[tuple[int, int, int]] | None = None,
                 max_steps: int = 10_000_000) -> None:
        self.module = ptx if isinstance(ptx, Module) else parse_module(ptx)
        self.fn = select_entry(self.module, kernel)
        params = pack_params(self.fn.params, args)
        self.image = build_image(self.module, self.fn, params.data, params.offsets, len(params.buffers), dynamic_smem)
        self.grid, self.block = grid, block
        gx, gy, gz = grid
        self.ctas = ctas or [(x, y, z) for z in range(gz) for y in range(gy) for x in range(gx)]
        self.records: list[Record] = []
        self.data_dependent: set[int] = set()
        self.max_steps = max_steps
        self.steps = 0

    # ----------------------------------------------------------------- driver
    def run(self) -> Reference:
        bx, by, bz = self.block
        n = bx * by * bz
        nwarps = -(-n // 32)
        for c, cta in enumerate(self.ctas):
            lanes = [Lane((i % bx, (i // bx) % by, i // (bx * by)), i) for i in range(n)]
            self.smem: dict[int, int | None] = {}
            self.cta, self.cta_index = cta, c
            warps = [lanes[w * 32:(w + 1) * 32] for w in range(nwarps)]
            while True:
                for w, warp in enumerate(warps):
                    self.run_warp(warp, c * nwarps + w)
                waiting = [ln for ln in lanes if ln.state == "wait"]
                if not waiting:
                    break
                for ln in waiting:
                    ln.state = "run"
        return self

    def run_warp(self, warp: list[Lane], gw: int) -> None:
        body = self.fn.body
        while True:
            live = [ln for ln in warp if ln.state == "run"]
            if not live:
                return
            pc = min(ln.pc for ln in live)
            if pc >= len(body):
                for ln in live:
                    if ln.pc >= len(body):
                        ln.state = "done"
                continue
            group = [ln for ln in live if ln.pc == pc]
            self.steps += 1
            if self.steps > self.max_steps:
                raise RuntimeError("reference: step limit")
            self.execute(body[pc], pc, warp, group, gw)

    # ----------------------------------------------------------------- operands
    def special(self, lane: Lane, name: str) -> int | None:
        axis = "xyz".index(name[-1]) if name[-2] == "." else 0
        if name.startswith("%tid."):
            return lane.tid[axis]
        if name.startswith("%ntid."):
            return self.block[axis]
        if name.startswith("%ctaid."):
            return self.cta[axis]
        if name.startswith("%nctaid."):
            return self.grid[axis]
        if name == "%laneid":
            return lane.lin % 32
        if name == "%warpid":
            return lane.lin // 32
        raise NotImplementedError(name)

    def read(self, lane: Lane, op: Any, t: str) -> Any:
        if isinstance(op, Reg):
            if op.name in self.fn.registers:
                return lane.regs.get(op.name)
            return self.special(lane, op.name)
        if isinstance(op, Not):
            v = lane.regs.get(op.reg.name)
            return None if v is None else (not v)
        if isinstance(op, Imm):
            return bool(op.value) if t == "pred" else op.value & M64
        if isinstance(op, FloatImm):
            if op.width == 32 and t == "f64":
                return to_f64(f32(op.bits))
            return op.bits
        if isinstance(op, Sym):
            return (self.image.symbols[op.name] + op.offset) & M64
        raise NotImplementedError(repr(op))

    def write(self, lane: Lane, op: Any, value: Any) -> None:
        if isinstance(op, Sink):
            return
        assert isinstance(op, Reg), op
        t = self.fn.registers[op.name]
        if value is not None and t != "pred":
            value &= (1 << bits_of(t)) - 1
        lane.regs[op.name] = value

    def address(self, lane: Lane, op: Addr) -> int | None:
        if op.base is None:
            return op.offset
        if isinstance(op.base, Sym):
            return self.image.symbols[op.base.name] + op.base.offset + op.offset
        v = self.read(lane, op.base, "u64")
        return None if v is None else (v + op.offset) & M64

    # ----------------------------------------------------------------- memory
    def load(self, addr: int, n: int) -> int | None:
        out = 0
        for k in range(n):
            b = self.smem.get(addr + k)
            if b is None:
                return None
            out |= b << (8 * k)
        return out

    def store(self, addr: int, n: int, value: int | None) -> None:
        for k in range(n):
            self.smem[addr + k] = None if value is None else (value >> (8 * k)) & 0xFF

    def check(self, ins: Instruction, a: int, n: int) -> None:
        end = SMEM_BASE + self.image.shared.size
        if not (SMEM_BASE <= a and a + n <= end):
            raise ValueError(f"out of bounds at line {ins.line}")

    def rec(self, idx: int, warp: list[Lane], group: list[Lane], gw: int, addr: dict[int, int],
            gsrc: dict[int, int] | None = None, issued: list[Lane] | None = None) -> None:
        """Record the warp if a lane issued the access (default: every lane of ``group``); lanes without an
        address in ``addr`` make it a dropped record."""
        active = tuple(ln in group and ln.lin in addr for ln in warp) + (False,) * (32 - len(warp))
        smem = tuple(addr.get(ln.lin, 0) for ln in warp) + (0,) * (32 - len(warp))
        g = None if gsrc is None else tuple(gsrc.get(ln.lin, 0) for ln in warp) + (0,) * (32 - len(warp))
        lanes = group if issued is None else issued
        dropped = any(ln.lin not in addr for ln in lanes)
        if any(active) or dropped:
            self.records.append(Record(idx, gw, active, smem, g, dropped))

    # ----------------------------------------------------------------- execution
    def execute(self, ins: Instruction, idx: int, warp: list[Lane], group: list[Lane], gw: int) -> None:
        root = ins.root
        if ins.guard:
            reg, neg = ins.guard
            on = []
            for ln in group:
                p = ln.regs.get(reg)
                if p is None:
                    if root == "bra":
                        self.data_dependent.add(idx)
                        ln.state = "done"
                        continue
                    raise NotImplementedError("unknown guard")
                if bool(p) != neg:
                    on.append(ln)
                else:
                    ln.pc += 1
            group = [ln for ln in group if ln.state == "run" and ln in on]
            if not group:
                return
        if root == "bra":
            target = self.fn.labels[ins.operands[-1].name]
            for ln in group:
                ln.pc = target
            return
        for ln in group:
            ln.pc += 1
        if root in ("ret", "exit"):
            for ln in group:
                ln.state = "done"
            return
        if root == "bar" and "warp" not in ins.parts:
            for ln in group:
                ln.state = "wait"
            return
        if root in ("bar",) or (root == "cp" and ("commit_group" in ins.parts or "wait_group" in ins.parts)):
            return
        if root in ("ld", "st") and "shared" in ins.parts:
            return self.shared_ldst(ins, idx, warp, group, gw)
        if root == "ldmatrix" or root == "stmatrix":
            return self.matrix(ins, idx, warp, group, gw)
        if root == "cp":
            return self.cp_async(ins, idx, warp, group, gw)
        if root == "shfl":
            return self.shfl(ins, warp, group)
        if root == "mma":
            for ln in group:
                for d in ins.operands[0].items:
                    self.write(ln, d, None)
            return
        for ln in group:
            self.scalar(ins, ln)

    def shared_ldst(self, ins: Instruction, idx: int, warp: list[Lane], group: list[Lane], gw: int) -> None:
        t = ins.parts[-1]
        size = TYPE_BYTES[t]
        vec = next((int(p[1:]) for p in ins.parts if p in ("v2", "v4")), 1)
        is_ld = ins.root == "ld"
        aop = ins.operands[1] if is_ld else ins.operands[0]
        vop = ins.operands[0] if is_ld else ins.operands[1]
        items = list(vop.items) if isinstance(vop, Vec) else [vop]
        addr: dict[int, int] = {}
        for ln in group:
            a = self.address(ln, aop)
            if a is None:
                self.data_dependent.add(idx)
                for it in items if is_ld else []:
                    self.write(ln, it, None)
                if not is_ld:
                    self.smem = {k: None for k in self.smem}
                continue
            self.check(ins, a, size * vec)
            addr[ln.lin] = a
        self.rec(idx, warp, group, gw, addr)
        pending = []
        for ln in group:
            if ln.lin not in addr:
                continue
            for j, it in enumerate(items):
                a = addr[ln.lin] + j * size
                if is_ld:
                    v = self.load(a, size)
                    if v is not None and t[0] == "s":
                        v = signed(v, 8 * size) & M64
                    self.write(ln, it, v)
                else:
                    pending.append((a, size, None if isinstance(it, Sink) else self.read(ln, it, t)))
        clash: dict[int, set[Any]] = {}
        for a, _, v in pending:
            clash.setdefault(a, set()).add(v)
        for a, n, v in pending:
            self.store(a, n, v if len(clash[a]) == 1 else None)

    def matrix(self, ins: Instruction, idx: int, warp: list[Lane], group: list[Lane], gw: int) -> None:
        count = int(next(p for p in ins.parts if p in ("x1", "x2", "x4"))[1])
        trans = "trans" in ins.parts
        aop = ins.operands[1] if ins.root == "ldmatrix" else ins.operands[0]
        regs = ins.operands[0] if ins.root == "ldmatrix" else ins.operands[1]
        items = list(regs.items) if isinstance(regs, Vec) else [regs]
        rows: dict[int, int] = {}
        for ln in group:
            if ln.lin % 32 < 8 * count:
                a = self.address(ln, aop)
                assert a is not None
                self.check(ins, a, 16)
                rows[ln.lin % 32] = a
        self.rec(idx, warp, group, gw, {ln.lin: rows[ln.lin % 32] for ln in group if ln.lin % 32 in rows},
                 issued=[ln for ln in group if ln.lin % 32 < 8 * count])
        for ln in group:
            t = ln.lin % 32
            for j, it in enumerate(items):
                if trans:
                    parts = [(rows[8 * j + 2 * (t % 4)] + 2 * (t // 4), 2), (rows[8 * j + 2 * (t % 4) + 1] + 2 * (t // 4), 2)]
                else:
                    parts = [(rows[8 * j + t // 4] + 4 * (t % 4), 4)]
                if ins.root == "ldmatrix":
                    vals = [self.load(a, n) for a, n in parts]
                    self.write(ln, it, None if None in vals else
                               vals[0] | (vals[1] << 16 if len(vals) > 1 else 0))
                else:
                    v = self.read(ln, it, "b32")
                    shift = 0
                    for a, n in parts:
                        self.store(a, n, None if v is None else (v >> shift) & ((1 << (8 * n)) - 1))
                        shift += 8 * n

    def cp_async(self, ins: Instruction, idx: int, warp: list[Lane], group: list[Lane], gw: int) -> None:
        size = ins.operands[2].value
        addr, gsrc = {}, {}
        for ln in group:
            a = self.address(ln, ins.operands[0])
            g = self.address(ln, ins.operands[1])
            assert a is not None and g is not None
            self.check(ins, a, size)
            addr[ln.lin] = a
            gsrc[ln.lin] = g
            filled = size
            if len(ins.operands) > 3:
                filled = min(self.read(ln, ins.operands[3], "u32"), size)
            for k in range(size):
                self.smem[a + k] = 0 if k >= filled else None
        self.rec(idx, warp, group, gw, addr, gsrc)

    def shfl(self, ins: Instruction, warp: list[Lane], group: list[Lane]) -> None:
        mode = next(p for p in ins.parts if p in ("up", "down", "bfly", "idx"))
        vals = {ln.lin % 32: self.read(ln, ins.operands[1], "b32") for ln in group}
        out = {}
        for ln in group:
            lane = ln.lin % 32
            b = self.read(ln, ins.operands[2], "b32") & 31
            c = self.read(ln, ins.operands[3], "b32")
            seg, clamp = (c >> 8) & 31, c & 31
            max_lane = (lane & seg) | (clamp & ~seg)
            j = {"up": lane - b, "down": lane + b, "bfly": lane ^ b, "idx": (lane & seg) | (b & ~seg)}[mode]
            ok = j >= max_lane if mode == "up" else j <= max_lane
            out[ln.lin] = (vals.get(j if ok else lane), ok)
        d = ins.operands[0]
        for ln in group:
            value, ok = out[ln.lin]
            if isinstance(d, PredPair):
                self.write(ln, d.first, value)
                self.write(ln, d.second, ok)
            else:
                self.write(ln, d, value)

    def scalar(self, ins: Instruction, ln: Lane) -> None:  # noqa: C901 - one case per opcode, on purpose
        root, parts, ops = ins.root, ins.parts, ins.operands
        types = [p for p in parts[1:] if p in TYPE_BYTES]
        t = types[-1] if types else "b32"
        w = bits_of(t)
        mask = (1 << w) - 1 if w > 1 else 1

        def rd(k: int, tt: str = t) -> Any:
            return self.read(ln, ops[k], tt)

        if root == "ld" and "param" in parts:
            a = self.address(ln, ops[1])
            n = TYPE_BYTES[t]
            v = int.from_bytes(self.image.params[a:a + n], "little")
            if t[0] == "s":
                v = signed(v, 8 * n) & M64
            return self.write(ln, ops[0], v)
        if root in ("ld", "ldu"):
            for d in (ops[0].items if isinstance(ops[0], Vec) else [ops[0]]):
                self.write(ln, d, None)
            return
        if root == "st":
            return
        if root == "mov":
            if isinstance(ops[0], Vec):
                v = rd(1)
                ew = w // len(ops[0].items)
                for j, d in enumerate(ops[0].items):
                    self.write(ln, d, None if v is None else (v >> (j * ew)) & ((1 << ew) - 1))
                return
            if isinstance(ops[1], Vec):
                vals = [self.read(ln, x, "b16") for x in ops[1].items]
                ew = w // len(vals)
                out = 0
                for j, v in enumerate(vals):
                    if v is None:
                        return self.write(ln, ops[0], None)
                    out |= (v & ((1 << ew) - 1)) << (j * ew)
                return self.write(ln, ops[0], out)
            v = rd(1)
            return self.write(ln, ops[0], v if v is None or t == "pred" else v & mask)
        srcs = [rd(k) for k in range(1, len(ops))]
        if any(v is None for v in srcs) and root not in ("selp",):
            return self.write(ln, ops[0] if not isinstance(ops[0], PredPair) else ops[0].first, None)
        if root == "cvta":
            if "to" in parts and "shared" in parts:
                return self.write(ln, ops[0], (srcs[0] - SHARED_WINDOW) & M64)
            if "shared" in parts:
                return self.write(ln, ops[0], srcs[0] + SHARED_WINDOW)
            return self.write(ln, ops[0], srcs[0])
        if root == "cvt":
            dt, at = types[0], types[1]
            if at in ("f16",) and dt == "f32":
                return self.write(ln, ops[0], to_f32(f16(srcs[0])))
            if at[0] in "us" and dt == "f32":
                return self.write(ln, ops[0], to_f32(float(signed(srcs[0], bits_of(at)) if at[0] == "s"
                                                          else srcs[0] & ((1 << bits_of(at)) - 1))))
            v = signed(srcs[0], bits_of(at)) if at[0] == "s" else srcs[0] & ((1 << bits_of(at)) - 1)
            return self.write(ln, ops[0], v & ((1 << bits_of(dt)) - 1))
        if root == "selp":
            c = srcs[2]
            return self.write(ln, ops[0], None if c is None else (srcs[0] if c else srcs[1]))
        if t in ("f32", "f64"):
            rdf = f32 if t == "f32" else f64
            wrf = to_f32 if t == "f32" else to_f64
            x = [rdf(v) for v in srcs]
            if root == "add":
                return self.write(ln, ops[0], wrf(x[0] + x[1]) if t == "f64" else to_f32(float(np.float32(x[0]) + np.float32(x[1]))))
            if root == "setp":
                cmp = next(p for p in parts if p in ("eq", "ne", "neu", "lt", "gt", "le", "ge"))
                r = {"eq": x[0] == x[1], "ne": x[0] != x[1], "neu": not (x[0] == x[1]), "lt": x[0] < x[1],
                     "gt": x[0] > x[1], "le": x[0] <= x[1], "ge": x[0] >= x[1]}[cmp]
                return self.write(ln, ops[0], r)
            raise NotImplementedError(ins.opcode)
        s = [signed(v, w) if t[0] == "s" else v & mask for v in srcs] if t != "pred" else srcs
        if root == "add":
            return self.write(ln, ops[0], (s[0] + s[1]) & mask)
        if root == "sub":
            return self.write(ln, ops[0], (s[0] - s[1]) & mask)
        if root == "neg":
            return self.write(ln, ops[0], (-s[0]) & mask)
        if root == "mul":
            if "wide" in parts:
                return self.write(ln, ops[0], (s[0] * s[1]) & ((1 << (2 * w)) - 1))
            if "hi" in parts:
                return self.write(ln, ops[0], ((s[0] * s[1]) >> w) & mask)
            return self.write(ln, ops[0], (s[0] * s[1]) & mask)
        if root == "mad":
            if "wide" in parts:
                return self.write(ln, ops[0], (s[0] * s[1] + srcs[2]) & ((1 << (2 * w)) - 1))
            return self.write(ln, ops[0], (s[0] * s[1] + s[2]) & mask)
        if root == "div":
            return self.write(ln, ops[0], None if s[1] == 0 else int(s[0] / s[1]) & mask)
        if root == "rem":
            return self.write(ln, ops[0], None if s[1] == 0 else (s[0] - int(s[0] / s[1]) * s[1]) & mask)
        if root == "shl":
            n = srcs[1] & 0xFFFFFFFF
            return self.write(ln, ops[0], 0 if n >= w else (s[0] << n) & mask)
        if root == "shr":
            n = srcs[1] & 0xFFFFFFFF
            if t[0] == "s":
                return self.write(ln, ops[0], (s[0] >> min(n, w - 1)) & mask)
            return self.write(ln, ops[0], 0 if n >= w else s[0] >> n)
        if root in ("and", "or", "xor"):
            f = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}[root]
            if t == "pred":
                return self.write(ln, ops[0], bool(f(bool(s[0]), bool(s[1]))))
            return self.write(ln, ops[0], f(s[0], s[1]) & mask)
        if root == "not":
            return self.write(ln, ops[0], (not s[0]) if t == "pred" else (~s[0]) & mask)
        if root == "setp":
            cmp = next(p for p in parts if p in ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"))
            a, b = s[0], s[1]
            if cmp in ("lo", "ls", "hi", "hs"):
                a, b = srcs[0] & mask, srcs[1] & mask
                cmp = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}[cmp]
            r = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[cmp]
            return self.write(ln, ops[0], r)
        if root == "bfe":
            a, pos, ln_ = srcs[0] & mask, srcs[1] & 0xFF, srcs[2] & 0xFF
            sbit = 0 if t[0] != "s" or ln_ == 0 else (a >> min(pos + ln_ - 1, w - 1)) & 1
            return self.write(ln, ops[0], sum((((a >> (pos + i)) & 1) if (i < ln_ and pos + i <= w - 1) else sbit) << i
                                              for i in range(w)))
        if root == "bfi":
            a, b, pos, ln_ = srcs[0], srcs[1], srcs[2] & 0xFF, srcs[3] & 0xFF
            for i in range(ln_):
                if pos + i > w - 1:
                    break
                b = (b & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
            return self.write(ln, ops[0], b & mask)
        raise NotImplementedError(ins.opcode)


def expand(trace: Any) -> dict[int, list[tuple[Any, ...]]]:
    """Per global warp, the library trace's records in order, in the reference's tuple form."""
    out: dict[int, list[tuple[Any, ...]]] = {}
    for r in sorted(trace.accesses, key=lambda r: r.step):
        for k, w in enumerate(r.warps):
            g = None
            if r.global_offset is not None:
                g = tuple(int(x) for x in ((r.global_buffer[k] + 1) * (1 << GLOBAL_SHIFT) + r.global_offset[k])
                          * r.active[k])
            dropped = bool(r.dropped[k]) if r.dropped is not None else False
            out.setdefault(int(w), []).append(
                (r.index, tuple(bool(x) for x in r.active[k]), tuple(int(x) for x in r.smem[k]), g, dropped))
    return out


def expand_reference(ref: Reference) -> dict[int, list[tuple[Any, ...]]]:
    out: dict[int, list[tuple[Any, ...]]] = {}
    for r in ref.records:
        g = None if r.gsrc is None else tuple(v if a else 0 for v, a in zip(r.gsrc, r.active))
        out.setdefault(r.warp, []).append((r.index, r.active, tuple(v if a else 0 for v, a in zip(r.smem, r.active)), g,
                                           r.dropped))
    return out

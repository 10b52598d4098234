"""Turn parsed instructions into executable ops: operand readers/writers and the opcode table.

Each PTX instruction is decoded once into an :class:`Op` whose ``run(machine, mask)``
computes its effect for the threads in ``mask`` (``None``: every live thread, so
results may be written without masking).  Operand access is resolved here too:
:meth:`Context.reader` gives a function ``machine -> Value`` for a register, special
register, immediate or symbol; :meth:`Context.writer` one that stores a result.

Builders register themselves per root opcode in :data:`BUILDERS` (see
:mod:`.intops`, :mod:`.floatops`, :mod:`.memops`, :mod:`.warpops`, :mod:`.misc`); an
opcode without a builder raises :class:`KernelError` naming the line and opcode.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from layoutalg.core.validate import describe
from layoutalg.errors import KernelError
from layoutalg.kernel.interp.liveness import Liveness
from layoutalg.kernel.interp.operand_types import check_register
from layoutalg.kernel.interp.values import U64, Value, as_u
from layoutalg.kernel.ptx.nodes import (
    TYPE_BYTES,
    FloatImm,
    Imm,
    Instruction,
    Not,
    Operand,
    Reg,
    Sink,
    Sym,
)
from layoutalg.kernel.ptx.target import Target

Reader = Callable[[Any], Value]
Writer = Callable[[Any, Any, Any, Any], None]
UNDEFINED = Value(U64(0), False)
UNDEFINED_PRED = Value(np.bool_(False), False)

INT_TYPES = frozenset({"b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"})
FLOAT_TYPES = frozenset({"f16", "bf16", "f32", "f64", "f16x2", "bf16x2", "tf32"})


def type_bits(t: str) -> int:
    return 1 if t == "pred" else 8 * TYPE_BYTES[t]


ALL_TYPES = frozenset(INT_TYPES | FLOAT_TYPES | {"pred"})


def instr_type(ins: Instruction, candidates: set[str] | frozenset[str] | None = None) -> str:
    """The last type suffix of the mnemonic (``add.s32`` -> ``s32``), or raise."""
    found = _last_type(ins.parts, frozenset(candidates) if candidates else ALL_TYPES)
    if found is None:
        raise KernelError("instruction has no type suffix the tracer knows", ins.line, ins.opcode)
    return found


@lru_cache(maxsize=4096)
def _last_type(parts: tuple[str, ...], pool: frozenset[str]) -> str | None:
    for part in reversed(parts[1:]):
        if part in pool:
            return part
    return None


class Op:
    """A decoded instruction.  ``kind``: ``op`` (plain), ``bra``, ``exit``, ``bar``, ``nop``.

    ``run(machine, mask)`` executes it; ``dests`` are the registers it writes (made unknown under an
    unknown guard); ``shared``/``writes_shared`` say whether it touches shared memory; ``target`` is a
    branch's op index; ``barrier`` holds readers of a barrier's id and thread count.
    """

    __slots__ = ("index", "ins", "run", "kind", "target", "dests", "shared", "writes_shared", "barrier",
                 "barrier_mode")

    def __init__(self, index: int, ins: Instruction, run: Callable[[Any, Any], None] | None = None,
                 kind: str = "op", target: int = -1, dests: list[str] | None = None, shared: bool = False,
                 writes_shared: bool = False, barrier_mode: str = "sync") -> None:
        self.index = index
        self.ins = ins
        self.run = run
        self.kind = kind
        self.target = target
        self.dests = dests if dests is not None else []
        self.shared = shared  # touches shared memory (an unknown guard makes it data-dependent)
        self.writes_shared = writes_shared
        self.barrier: tuple[Reader | None, Reader | None] = (None, None)
        self.barrier_mode = barrier_mode


Builder = Callable[[Instruction, "Context", int], Op]
BUILDERS: dict[str, Builder] = {}


def builder(*roots: str) -> Callable[[Builder], Builder]:
    def deco(fn: Builder) -> Builder:
        for r in roots:
            BUILDERS[r] = fn
        return fn

    return deco


class Context:
    """What decoding needs: register types, symbol addresses, the machine's special registers, the module's
    ``.target``/``.version`` (``isa``: instructions whose forms depend on them, :mod:`.tensormap`), and the bytes
    of its initialised ``.const`` variables (``constants``: (global address, bytes), read by ``ld.const``)."""

    def __init__(self, registers: dict[str, str], symbols: dict[str, int], labels: dict[str, int],
                 special: Callable[[str, int], Value], params: dict[str, int], isa: Target,
                 constants: tuple[tuple[int, bytes], ...] = (), body: Sequence[Instruction] = ()) -> None:
        self.registers = registers
        self.symbols = symbols
        self.labels = labels
        self.special = special
        self.params = params
        self.isa = isa
        self.constants = constants
        self.body = body
        self.liveness = Liveness(body, labels)

    def result_read(self, index: int, name: str) -> bool:
        """Whether the value instruction ``index`` writes to register ``name`` may be read
        (:meth:`.liveness.Liveness.result_read`)."""
        return self.liveness.result_read(index, name)

    def reg_width(self, name: str) -> int:
        t = self.registers.get(name)
        return type_bits(t) if t else 64

    def reader(self, op: Operand, type_: str, ins: Instruction, address: bool = False) -> Reader:
        """A function ``machine -> Value`` for a source operand read as ``type_``; a register must fit the
        type, or be an integer or bit-size one when it is read as an ``address`` (:mod:`.operand_types`)."""
        if isinstance(op, Reg):
            name = op.name
            if name not in self.registers:
                line = ins.line
                return lambda m: m.special_value(name, line)
            check_register(op, self.registers, type_, ins, address)
            if self.registers[name] == "pred":
                return lambda m: m.regs.get(name, UNDEFINED_PRED)
            return lambda m: m.regs.get(name, UNDEFINED)
        if isinstance(op, Not):
            check_register(op.reg, self.registers, "pred", ins)
            inner = op.reg.name
            return lambda m: _negate(m.regs.get(inner, UNDEFINED_PRED))
        if isinstance(op, Imm):
            if type_ == "pred":
                v_pred = Value(bool(op.value), True)
                return lambda m: v_pred
            if type_ in FLOAT_TYPES and type_ not in ("f16x2", "bf16x2"):
                raise KernelError(f"integer literal {op.value} where a .{type_} operand is expected "
                                  "(PTX writes float constants as 0f/0d bits)", ins.line, ins.opcode)
            v = Value(U64(op.value % (1 << 64)))
            return lambda m: v
        if isinstance(op, FloatImm):
            v = Value(U64(_float_literal(op, type_, ins)))
            return lambda m: v
        if isinstance(op, Sym):
            if op.name not in self.symbols:
                raise KernelError(f"unknown symbol {describe(op.name)}", ins.line, ins.opcode)
            v = Value(U64((self.symbols[op.name] + op.offset) % (1 << 64)))
            return lambda m: v
        raise KernelError(f"operand {describe(op)} cannot be read here", ins.line, ins.opcode)

    def writer(self, op: Operand, ins: Instruction, value_bits: int = 64,
               type_: str | None = None) -> tuple[Writer, list[str]]:
        """(``write(machine, bits, known, mask)``, destination register names) for a destination operand of
        type ``type_`` (the register must fit it, :mod:`.operand_types`; None: not stated, not checked).

        Results are cut to the register's width, unless ``value_bits`` (what the instruction can produce)
        already fits in it."""
        if isinstance(op, Sink):
            return (lambda m, b, k, mask: None), []
        if isinstance(op, Reg):
            if op.name not in self.registers:
                raise KernelError(f"{op.name} is not a writable register", ins.line, ins.opcode)
            check_register(op, self.registers, type_, ins)
            name = op.name
            width = self.reg_width(name)
            if width == 1:
                return (lambda m, b, k, mask: m.write(name, np.asarray(b, dtype=bool), k, mask)), [name]
            if value_bits <= width:
                return (lambda m, b, k, mask: m.write(name, b, k, mask)), [name]
            return (lambda m, b, k, mask: m.write(name, as_u(b, width) if k is not False else b, k, mask)), [name]
        raise KernelError(f"operand {describe(op)} is not a destination register", ins.line, ins.opcode)


def _negate(v: Value) -> Value:
    return Value(np.logical_not(v.bits), v.known)


def _float_literal(op: FloatImm, type_: str, ins: Instruction) -> int:
    """The literal's bits in ``type_``'s format (0f literals used by .f64 instructions are widened, etc.)."""
    if type_ in ("f32", "b32", "u32", "s32", "tf32") and op.width == 32:
        return op.bits
    if type_ in ("f64", "b64", "u64", "s64") and op.width == 64:
        return op.bits
    value = struct.unpack("<f", struct.pack("<I", op.bits))[0] if op.width == 32 else \
        struct.unpack("<d", struct.pack("<Q", op.bits))[0]
    if type_ == "f64":
        return int(struct.unpack("<Q", struct.pack("<d", value))[0])
    if type_ == "f32":
        return int(np.array([value], dtype=np.float32).view(np.uint32)[0])
    if type_ == "f16":
        return int(np.array([value], dtype=np.float16).view(np.uint16)[0])
    raise KernelError(f"float literal used as .{type_}", ins.line, ins.opcode)

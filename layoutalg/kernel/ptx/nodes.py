"""The parsed form of a PTX module: operands, instructions, declarations, entries.

Everything here is plain immutable data; the parser (:mod:`.parser`) builds it and
the interpreter (:mod:`layoutalg.kernel.interp`) reads it.  Names follow the PTX
ISA (8.x): a *state space* is ``.reg .shared .global .const .param .local``, a
*type* ``.b8 .. .b128 .u8 .. .u64 .s8 .. .s64 .f16 .f16x2 .bf16 .bf16x2 .f32
.f64 .pred``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, SupportsIndex, Union, overload

from layoutalg.core.dtypes import dtype_bits
from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.target import Target

#: bytes per PTX scalar type (the one dtype table), plus the packed pairs (``.f16x2``/``.bf16x2`` are 32-bit,
#: ``.e4m3x2``/``.e5m2x2`` 16-bit) and ``.pred`` (one byte in a register file of bytes)
TYPE_BYTES: dict[str, int] = {
    name: dtype_bits(name) // 8
    for name in ("b8", "u8", "s8", "e4m3", "e5m2", "b16", "u16", "s16", "f16", "bf16", "b32", "u32", "s32", "f32",
                 "tf32", "b64", "u64", "s64", "f64", "b128")
}
TYPE_BYTES.update({f"{name}x2": 2 * TYPE_BYTES[name] for name in ("f16", "bf16", "e4m3", "e5m2")})
TYPE_BYTES["pred"] = 1


# ----------------------------------------------------------------------------- operands
@dataclass(frozen=True)
class Reg:
    """A register (``%r1``, ``p``) or special register (``%tid.x``)."""

    name: str


@dataclass(frozen=True)
class Imm:
    """An integer immediate (decimal, hex, octal, binary; negative allowed)."""

    value: int


@dataclass(frozen=True)
class FloatImm:
    """A floating-point immediate given as its IEEE bits: ``0f3F800000`` (width 32) or ``0d...`` (64)."""

    bits: int
    width: int


@dataclass(frozen=True)
class Sym:
    """A symbol (variable, label, function, parameter), optionally plus a byte offset: ``smem+128``."""

    name: str
    offset: int = 0


@dataclass(frozen=True)
class Addr:
    """An address operand ``[base+offset]``; ``base`` is a register, a symbol or None (absolute address)."""

    base: Union[Reg, Sym, None]
    offset: int = 0


@dataclass(frozen=True)
class Vec:
    """A vector operand ``{%r1, %r2, _}``."""

    items: tuple["Operand", ...]


@dataclass(frozen=True)
class TensorAddr:
    """A tensor address ``[tensorMap, {c0, c1, ...}]`` (``cp.async.bulk.tensor``, PTX ISA "Tensor Copy")."""

    base: Addr
    coords: Vec


@dataclass(frozen=True)
class PredPair:
    """The dual destination of ``setp``: ``%p|%q``."""

    first: Reg
    second: Reg


@dataclass(frozen=True)
class Not:
    """A negated predicate source ``!%p``."""

    reg: Reg


@dataclass(frozen=True)
class Sink:
    """The bit bucket ``_``."""


Operand = Union[Reg, Imm, FloatImm, Sym, Addr, TensorAddr, Vec, PredPair, Not, Sink]


class MissingOperandError(KernelError):
    """An instruction read for an operand it does not have (:class:`Operands`)."""


class Operands(tuple[Operand, ...]):
    """An instruction's operands: a tuple that knows its instruction, so that reading an operand the
    instruction lacks (``ins.operands[1]`` of ``st.shared.f32 [%r1];``) raises :class:`MissingOperandError`
    naming the PTX line, the opcode and the operand, never an ``IndexError``.  A slice is an ``Operands``
    too, counting operands as the instruction does (``ins.operands[1:][1]`` is operand 3).  Equal to, and
    hashed as, the plain tuple of its items."""

    line: int
    opcode: str
    text: str
    offset: int  # the instruction's index of item 0 (a slice's start)
    total: int  # the instruction's operand count

    def __new__(cls, items: Any = (), line: int = 0, opcode: str = "", text: str = "", offset: int = 0,
                total: int | None = None) -> Operands:
        self = super().__new__(cls, items)
        self.line, self.opcode, self.text, self.offset = line, opcode, text, offset
        self.total = len(self) if total is None else total
        return self

    @overload
    def __getitem__(self, key: SupportsIndex) -> Operand: ...

    @overload
    def __getitem__(self, key: slice) -> Operands: ...

    def __getitem__(self, key: SupportsIndex | slice) -> Any:
        if isinstance(key, slice):
            start, _, step = key.indices(len(self))
            return Operands(tuple.__getitem__(self, key), self.line, self.opcode, self.text,
                            self.offset + start if step == 1 else self.offset, self.total)
        try:
            return tuple.__getitem__(self, key)
        except IndexError:
            k = key.__index__()
            which = f"operand {self.offset + k + 1}" if k >= 0 else f"operand {-k} from the end"
            count = f"{self.total} operand{'' if self.total == 1 else 's'}"
            raise MissingOperandError(f"{which} is missing: the instruction has {count} ({self.text or self.opcode})",
                                      self.line, self.opcode) from None


# ----------------------------------------------------------------------------- statements
@dataclass(frozen=True)
class Loc:
    """Source position from ``.loc``: file name (from ``.file``) and line."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Instruction:
    """One PTX instruction.

    ``parts`` is the mnemonic split at dots (``('ld', 'shared', 'v4', 'b32')``);
    ``guard`` is ``(register, negated)`` for ``@%p`` / ``@!%p``; ``line`` the PTX
    line it starts on; ``loc`` the innermost ``.loc`` in force (None without line info) and ``site``
    the outermost location of its ``inlined_at`` chain (the user's own source line when the
    instruction comes from an inlined header function; equal to ``loc`` otherwise).
    """

    opcode: str
    parts: tuple[str, ...]
    operands: tuple[Operand, ...]
    guard: tuple[str, bool] | None
    line: int
    loc: Loc | None
    text: str
    site: Loc | None = None
    root: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", self.parts[0])
        object.__setattr__(self, "operands", Operands(self.operands, self.line, self.opcode, self.text))


@dataclass(frozen=True)
class Variable:
    """A declared variable of a state space (``.shared``, ``.global``, ``.const``, ``.local``, ``.param``).

    ``count`` is the array length (1 for a scalar; 0 for an unsized ``[]`` array such as the
    dynamic ``extern .shared`` array); ``size`` = element bytes x count.
    """

    name: str
    space: str
    type: str
    align: int
    count: int
    extern: bool = False
    initializer: tuple[int, ...] | None = None
    is_pointer: bool = False
    line: int = 0

    @property
    def element_bytes(self) -> int:
        return TYPE_BYTES[self.type]

    @property
    def size(self) -> int:
        return self.element_bytes * self.count


@dataclass
class Function:
    """An ``.entry`` (kernel) or ``.func`` (callee) with its body.

    ``body`` lists the instructions in order; ``labels`` maps a label (qualified by its scope,
    see :mod:`.parser`) to the index of the instruction it precedes; ``registers`` maps every
    declared register (after renaming of nested scopes) to its type; ``directives`` holds
    performance directives (``maxntid``, ``reqntid``, ``minnctapersm``, ...) as int tuples.
    """

    name: str
    kind: str  # "entry" | "func"
    params: list[Variable]
    returns: list[Variable]
    line: int
    body: list[Instruction] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    registers: dict[str, str] = field(default_factory=dict)
    variables: list[Variable] = field(default_factory=list)
    directives: dict[str, tuple[int, ...]] = field(default_factory=dict)
    scope_of: list[tuple[int, ...]] = field(default_factory=list)
    defined: bool = True
    linkage: str = ""  # "", "visible", "weak" or "extern" (of every declaration of the name, :mod:`.parser`)


@dataclass
class Module:
    """A whole PTX file: header, ``.file`` table, module-scope variables, entries and functions.

    ``address_size`` is 32 when ``.address_size`` is omitted (PTX ISA ".address_size": "defaults to 32").
    Nothing reads it: the tracer's addresses are 64-bit.  ptxas 13.0 (sm_90) compiles a module without the
    directive whose addresses are 64-bit, and refuses one with 32-bit addressing ("32-Bit ABI ... is not
    supported on sm_90 or higher"), as it refuses an explicit ``.address_size 32``, which the parser refuses.
    """

    version: str = ""
    target: str = ""
    address_size: int = 32
    isa: Target = field(default_factory=Target)  # the platform of .target and the .version, read
    files: dict[int, str] = field(default_factory=dict)
    variables: list[Variable] = field(default_factory=list)
    entries: dict[str, Function] = field(default_factory=dict)
    functions: dict[str, Function] = field(default_factory=dict)

    def entry(self, name: str) -> Function:
        return self.entries[name]

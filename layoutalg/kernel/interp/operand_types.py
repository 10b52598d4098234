"""Which declared register may stand for an operand of a given type (PTX ISA, "Operand Type Information").

The rule is the ISA's "Type Checking Rules" table, with the relaxations of "Operand Size Exceeding
Instruction-Type Size", as ptxas 13.0 applies them (``tests/data/ptxas_operand_widths.json`` records its
verdicts; ``tools/probe_ptx_operand_widths.py`` made it):

* sizes: a register must have the operand type's size exactly; only the data operands of ``ld``, ``ldu``,
  ``st`` and ``cvt`` may be wider (the value is chopped, or zero/sign-extended, to the register), never
  narrower (nor wider for a ``cvt`` to or from ``.bf16x2``, ``.tf32`` or an fp8 pair); the registers of one vector have one size (``ld.v4.u8`` into four ``.b16`` or four ``.b32``);
* kinds: a bit-size operand (``.bN``) takes any register of the size; an integer operand (``.uN``/``.sN``)
  a bit-size or integer one (not ``.f``); a float operand (``.fN``, ``.f16x2``; ``.bf16``, ``.tf32``, fp8) a
  bit-size register or one of its own type exactly; a ``.pred`` operand only a ``.pred`` register, and a ``.pred`` register nothing else;
* what ptxas accepts beyond the table (a layoutalg refusal there would refuse valid input): a ``.f16x2``
  register wherever a 32-bit integer or bit-size operand is (and as an operand of a ``.pred``-typed
  instruction, ``and.pred``, ``mov.pred``); in a vector, a float register beside a bit-size one is an
  integer element, integer registers only are a float element, and a ``.pred`` register is a 32-bit
  non-float element beside 32-bit registers (``ld.v2.b32 {%r, %p}``; ``ldmatrix`` takes ``{%p}`` too).

Sizes are what make a mismatch unsound (a 32-bit source of a 64-bit ``shl`` would be read zero-extended,
where ptxas refuses the instruction), so they are always checked; the kind rules are checked as far as the
builders state the ISA's operand type.  A register read as an address must be an integer or bit-size one;
its size is not checked (ptxas takes 8 to 64 bits for a ``.shared`` address, and refuses a 32-bit ``.global``
or generic one under ``.address_size 64``, which the decoder does not know: ``docs/DESIGN.md``, Known gaps).
"""

from __future__ import annotations

from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.nodes import TYPE_BYTES, Addr, Instruction, Not, Operand, PredPair, Reg, Vec

#: instructions whose data operands may be wider than the instruction type (ISA: "ld, st, and cvt")
RELAXED_ROOTS = frozenset({"ld", "ldu", "st", "cvt"})
#: cvt forms whose registers must have their type's size even so (ptxas 13.0 refuses a wider one)
EXACT_CVT_TYPES = frozenset({"bf16x2", "tf32", "e4m3x2", "e5m2x2"})


def _kind(t: str) -> str:
    """``pred``, ``b`` (bit-size), ``i`` (signed/unsigned integer), ``f`` (float, packed or not: ``.bf16``,
    ``.tf32`` and the fp8 ``.e4m3x2`` too, whose operands take bit-size registers, as ptxas 13.0 requires)."""
    if t == "pred":
        return "pred"
    return "f" if t.startswith("bf") else {"b": "b", "u": "i", "s": "i"}.get(t[0], "f")


def _bits(t: str) -> int:
    return 1 if t == "pred" else 8 * TYPE_BYTES[t]


def refusal(register: str, operand: str, relaxed: bool = False, siblings: tuple[str, ...] | None = None,
            typed: bool = False) -> str | None:
    """Why a ``.register`` register may not be an ``.operand`` operand, or None when it may.

    ``relaxed``: a data operand of ld/st/cvt (may be wider); ``siblings``: for an item of a vector operand, the
    types of the vector's other non-``.pred`` registers; ``typed``: the operand's type is the instruction's own
    type suffix (not one the ISA fixes, such as a shift amount's ``.u32`` or ``setp``'s ``.pred`` destination)."""
    rk, ok_ = _kind(register), _kind(operand)
    rb, ob = _bits(register), _bits(operand)
    if ok_ == "pred" or rk == "pred":
        if register == operand or (register == "f16x2" and typed) or (
                siblings is not None and ob == 32 and ok_ != "f" and all(_bits(t) == 32 for t in siblings)):
            return None
        return "a predicate operand takes a .pred register only" if ok_ == "pred" else \
            "a .pred register is no ." + operand + " operand (in a vector: only beside 32-bit registers)"
    if rb < ob:
        return f"the register is narrower ({rb} bits) than the operand ({ob} bits)"
    if rb > ob and not relaxed:
        return f"the register is wider ({rb} bits) than the operand ({ob} bits); only ld, st and cvt data may be"
    if ok_ == "f":
        if rk == "b" or register == operand or (siblings is not None and rb == ob and rk == "i"
                                                and all(_kind(t) == "i" for t in siblings)):
            return None
        return f"a .{operand} operand takes a bit-size register or a .{operand} one"
    if ok_ == "i" and rk == "f" and register != "f16x2" and not any(_kind(t) == "b" for t in siblings or ()):
        return "an integer operand takes no float register"
    return None


def place(op: Operand, ins: Instruction) -> tuple[int, Vec | None]:
    """(operand position, the vector ``op`` is an item of, or None) of the node ``op`` in ``ins`` (by identity)."""
    for k, o in enumerate(ins.operands):
        inner = (o.first, o.second) if isinstance(o, PredPair) else (o.reg,) if isinstance(o, Not) else \
            (o.base,) if isinstance(o, Addr) else ()
        if o is op or any(x is op for x in inner):
            return k, None
        if isinstance(o, Vec) and any(x is op for x in o.items):
            return k, o
    return -1, None


def _siblings(vec: Vec, op: Reg, registers: dict[str, str]) -> tuple[str, ...]:
    """The types of ``vec``'s registers other than ``op`` and ``.pred`` ones."""
    return tuple(registers[x.name] for x in vec.items if isinstance(x, Reg) and x is not op
                 and registers.get(x.name, "pred") != "pred")


def address_refusal(register: str) -> str | None:
    """Why a ``.register`` register may not hold an address: only integer and bit-size registers may (ptxas
    refuses ``.pred`` and float ones; it takes any size from 8 bits for a ``.shared`` address)."""
    return None if _kind(register) in ("b", "i") else "an address register must be an integer or bit-size one"


def check_register(op: Reg, registers: dict[str, str], operand: str | None, ins: Instruction,
                   address: bool = False) -> None:
    """Raise :class:`KernelError` naming the line and the operand when the declared register ``op`` (its type in
    ``registers``) may not be ``ins``'s ``.operand`` operand, or its ``address`` (see the module doc);
    ``operand`` None: a type the builder does not state (not checked)."""
    register = registers.get(op.name)
    if register is None or operand is None or not (operand == "pred" or operand in TYPE_BYTES):
        return
    k, vec = place(op, ins)
    sizes = {} if vec is None else {x.name: _bits(registers[x.name]) for x in vec.items
                                    if isinstance(x, Reg) and registers.get(x.name, "pred") != "pred"}
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{n} ({b} bits)" for n, b in sizes.items())
        raise KernelError(f"operand {k}: the registers of one vector must have one size: {listed} (ptxas: "
                          "Arguments mismatch; PTX ISA, Type Checking Rules)", ins.line, ins.opcode)
    why = address_refusal(register) if address else \
        refusal(register, operand, relaxed=ins.root in RELAXED_ROOTS and EXACT_CVT_TYPES.isdisjoint(ins.parts),
                siblings=None if vec is None else _siblings(vec, op, registers), typed=operand in ins.parts)
    if why is not None:
        where = f"operand {k}" if k >= 0 else "the guard" if ins.guard and ins.guard[0] == op.name else "an operand"
        raise KernelError(f"{where} ({op.name}, a .{register} register) cannot be a .{operand} operand: {why} "
                          "(ptxas: Arguments mismatch; PTX ISA, Type Checking Rules)", ins.line, ins.opcode)

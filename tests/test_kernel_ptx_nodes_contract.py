"""The parsed form of PTX (layoutalg/kernel/ptx/nodes.py): the byte size of every PTX type per the PTX ISA
(packed pairs ``.f16x2``/``.bf16x2`` 32-bit, ``.e4m3x2``/``.e5m2x2`` 16-bit, ``.pred`` one byte in a register
file of bytes), operands and statements as immutable, hashable values whose repr rebuilds them, and the
defaults a declaration gets when the PTX does not say (not extern, no pointer)."""

from __future__ import annotations

import dataclasses

import pytest

from layoutalg.kernel.ptx import nodes
from layoutalg.kernel.ptx.nodes import (
    TYPE_BYTES,
    Addr,
    FloatImm,
    Imm,
    Instruction,
    Loc,
    Not,
    PredPair,
    Reg,
    Sink,
    Sym,
    TensorAddr,
    Variable,
    Vec,
)

# PTX ISA "Fundamental Types" / "Packed Data Types": bits per type
ISA_BITS = {"b8": 8, "u8": 8, "s8": 8, "e4m3": 8, "e5m2": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
            "b32": 32, "u32": 32, "s32": 32, "f32": 32, "tf32": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64,
            "b128": 128, "f16x2": 32, "bf16x2": 32, "e4m3x2": 16, "e5m2x2": 16}


def test_every_ptx_type_has_its_isa_size_in_bytes() -> None:
    assert {t: 8 * b for t, b in TYPE_BYTES.items() if t != "pred"} == ISA_BITS
    assert TYPE_BYTES["pred"] == 1


R = Reg("%r1")
VALUES = [R, Imm(-3), FloatImm(0x3F800000, 32), Sym("smem", 128), Addr(R, 4), Vec((R, Sink())),
          TensorAddr(Addr(Reg("%rd1")), Vec((R, Imm(0)))), PredPair(Reg("%p1"), Reg("%p2")), Not(Reg("%p1")), Sink(),
          Loc("k.cu", 7),
          Instruction("ld.shared.b32", ("ld", "shared", "b32"), (R, Addr(R)), ("%p1", True), 12, Loc("k.cu", 7),
                      "@!%p1 ld.shared.b32 %r1, [%r1];", Loc("k.cu", 3)),
          Variable("sm", "shared", "b8", 16, 1024)]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_parsed_values_are_immutable_hashable_and_rebuilt_by_their_repr(value: object) -> None:
    field = dataclasses.fields(value)[0].name if dataclasses.fields(value) else "x"  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, None)
    assert {value: 1}[value] == 1 and hash(value) == hash(eval(repr(value), vars(nodes)))
    assert eval(repr(value), vars(nodes)) == value


def test_an_instruction_s_root_is_its_first_part() -> None:
    ins = Instruction("cp.async.cg.shared.global", ("cp", "async", "cg", "shared", "global"), (), None, 1, None, "")
    assert ins.root == "cp"


def test_operand_and_declaration_defaults() -> None:
    assert Sym("smem") == Sym("smem", 0) and Addr(R) == Addr(R, 0)
    v = Variable("sm", "shared", "b32", 4, 8)
    assert (v.extern, v.initializer, v.is_pointer, v.line) == (False, None, False, 0)
    assert v.size == 32 and v.element_bytes == 4

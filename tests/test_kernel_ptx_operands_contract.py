"""PTX operand reader (PTX ISA 8.x "Operand Types", "Constants"): each accepted form gives its node, and
each malformed one raises KernelError naming the line."""

from __future__ import annotations

import struct

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.nodes import Addr, FloatImm, Imm, Not, PredPair, Reg, Sink, Sym, TensorAddr, Vec
from layoutalg.kernel.ptx.operands import parse_int, parse_operand, split_top


@pytest.mark.parametrize(("text", "node"), [
    ("%r1", Reg("%r1")),
    ("%tid.x", Reg("%tid.x")),
    ("_", Sink()),
    ("42", Imm(42)),
    ("-7", Imm(-7)),
    ("0x1F", Imm(31)),
    ("0b101", Imm(5)),
    ("017", Imm(15)),
    ("5U", Imm(5)),
    ("0f3F800000", FloatImm(0x3F800000, 32)),
    ("0d3FF0000000000000", FloatImm(0x3FF0000000000000, 64)),
    ("1.5", FloatImm(struct.unpack("<Q", struct.pack("<d", 1.5))[0], 64)),
    ("-2.5e3", FloatImm(struct.unpack("<Q", struct.pack("<d", -2500.0))[0], 64)),
    ("3e2", FloatImm(struct.unpack("<Q", struct.pack("<d", 300.0))[0], 64)),
    ("smem", Sym("smem")),
    ("smem+128", Sym("smem", 128)),
    ("smem - 0x10", Sym("smem", -16)),
    ("[%rd1]", Addr(Reg("%rd1"), 0)),
    ("[%rd1+8]", Addr(Reg("%rd1"), 8)),
    ("[%rd1+-8]", Addr(Reg("%rd1"), -8)),
    ("[%rd1 - 4]", Addr(Reg("%rd1"), -4)),
    ("[4096]", Addr(None, 4096)),
    ("[smem+64]", Addr(Sym("smem"), 64)),
    ("[tmap, {%r1, %r2}]", TensorAddr(Addr(Sym("tmap"), 0), Vec((Reg("%r1"), Reg("%r2"))))),
    ("{%r1, _, 3}", Vec((Reg("%r1"), Sink(), Imm(3)))),
    ("!%p1", Not(Reg("%p1"))),
    ("%p1|%p2", PredPair(Reg("%p1"), Reg("%p2"))),
])
def test_each_operand_form_gives_its_node(text: str, node: object) -> None:
    assert parse_operand(text, 3) == node


def test_inline_asm_registers_without_percent_are_registers_only_when_declared() -> None:
    assert parse_operand("p", 1, {"p"}) == Reg("p")
    assert parse_operand("p", 1) == Sym("p")
    assert parse_operand("!p", 1, {"p"}) == Not(Reg("p"))


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty operand"),
    ("   ", "empty operand"),
    ("[%rd1 + x]", "address offset 'x'"),
    ("[%rd1 %rd2]", "cannot read address operand"),
    ("!5", "'!' applies to a predicate register"),
    ("!smem", "'!' applies to a predicate register"),
    ("%r-1", "bad register name"),
    ("0f3F80", "needs 8 hex digits"),
    ("0d3FF0", "needs 16 hex digits"),
    ("smem+x", "cannot read operand"),
    ("1..2", "cannot read operand"),
    ("@@", "cannot read operand"),
    ("{%r1", "cannot read operand '{%r1'"),
    ("[%rd1", "cannot read operand '\\[%rd1'"),
])
def test_malformed_operands_raise_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(KernelError, match=message) as e:
        parse_operand(text, 17)
    assert e.value.line == 17


def test_parse_int_reads_every_literal_base_and_refuses_huge_ones() -> None:
    assert [parse_int(t) for t in ("0", "10", "-0x10", "+0b11", "0777", "12u")] == [0, 10, -16, 3, 511, 12]
    assert parse_int("1.0") is None and parse_int("x") is None
    with pytest.raises(KernelError, match="integer literal"):
        parse_int("1" * 200)


def test_split_top_splits_only_outside_brackets() -> None:
    assert split_top("a, {b, c}, [d, e], (f, g)") == ["a", "{b, c}", "[d, e]", "(f, g)"]
    assert split_top("") == []
    assert split_top("a,") == ["a", ""]


@pytest.mark.parametrize("prefix", ["", "0x", "0X", "0b", "0B"])
def test_a_literal_may_have_128_significant_digits_in_any_base_and_leading_zeros_do_not_count(prefix: str) -> None:
    # documented bound (MAX_LITERAL_DIGITS): 128 significant digits are read, 129 are refused
    digits = "1" * 128
    base = {"": 10, "0x": 16, "0X": 16, "0b": 2, "0B": 2}[prefix]
    assert parse_int(prefix + digits) == int(digits, base)
    assert parse_int("-" + prefix + "0" * 50 + digits + "U") == -int(digits, base if prefix else 8)  # 0... is octal
    with pytest.raises(KernelError, match="an integer literal of 129 digits"):
        parse_int(prefix + "1" + digits)


def test_a_refused_literal_is_quoted_by_its_first_20_characters() -> None:
    text = "1234567890" * 13
    with pytest.raises(KernelError) as e:
        parse_int(text)
    assert f"of 130 digits ({text[:20]}...)" in str(e.value)


def test_a_negated_operand_that_is_not_a_register_is_named_without_its_bang() -> None:
    with pytest.raises(KernelError, match="not '5'$"):
        parse_operand("!5", 2)


def test_split_top_keeps_a_single_bracketed_piece() -> None:
    assert split_top("[%rd1]") == ["[%rd1]"]
    assert split_top("{a, b}") == ["{a, b}"]
    assert split_top("{a},") == ["{a}", ""]

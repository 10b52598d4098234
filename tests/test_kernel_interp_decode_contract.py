"""Operand decoding (decode.py): float literals take the instruction's format (PTX ISA "Floating-Point
Literals": 0f is an f32 bit pattern, 0d an f64 one, converted to the instruction's type), sink destinations
discard, and operands that cannot be read or written are refused naming the line."""

from __future__ import annotations

import struct

import numpy as np
from kernel_interp_harness import lanes, launch, refusal

REGS = ".reg .b32 %r<40>;\n.reg .b64 %rd<16>;\n.reg .pred %p<16>;\n.reg .f64 %fd<4>;\n.reg .b16 %rs<4>;"


def f32_bits(x: float) -> int:
    return int(struct.unpack("<I", struct.pack("<f", x))[0])


def f64_bits(x: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", x))[0])


def test_float_literals_are_converted_to_the_instructions_format():
    body = ("mov.b64 %fd1, 0;\nadd.rn.f64 %fd2, %fd1, 0f3FC00000;\n"  # 1.5 as f32 bits, used by an f64 add
            "mov.b32 %r1, 0;\nadd.rn.f32 %r2, %r1, 0d3FF8000000000000;\n"  # 1.5 as f64 bits, used by an f32 add
            "mov.b16 %rs1, 0;\nadd.rn.f16 %rs2, %rs1, 0f3FC00000;\n"  # 1.5 as f16
            "add.rn.f32 %r3, %r1, 0d3FF0000000000001;")  # 1 + 2^-52 rounds to 1.0f
    m = launch(body, threads=1, regs=REGS)
    assert lanes(m, "%fd2") == [f64_bits(1.5)]
    assert lanes(m, "%r2") == [f32_bits(1.5)]
    assert lanes(m, "%rs2") == [int(np.array([1.5], dtype=np.float16).view(np.uint16)[0])]
    assert lanes(m, "%r3") == [f32_bits(1.0)]


def test_a_0d_literal_of_a_64_bit_integer_or_bit_instruction_keeps_its_exact_bits():
    # PTX ISA "Floating-Point Literals": 0d gives the exact 64-bit pattern; a .b64/.u64/.s64 instruction takes it
    # as it is (no conversion), the sign bit and a NaN payload included
    body = ("mov.b64 %rd1, 0d400921FB54442D18;\nmov.u64 %rd2, 0dC000000000000001;\n"
            "mov.s64 %rd3, 0d7FF0000000000001;\nadd.s64 %rd4, %rd1, 0d0000000000000001;")
    m = launch(body, threads=1, regs=REGS)
    assert lanes(m, "%rd1") == [f64_bits(3.141592653589793)]
    assert lanes(m, "%rd2") == [0xC000000000000001]
    assert lanes(m, "%rd3") == [0x7FF0000000000001]
    assert lanes(m, "%rd4") == [f64_bits(3.141592653589793) + 1]


def test_literals_of_the_wrong_kind_are_refused_naming_the_line():
    cases = [("add.rn.f32 %r2, %r1, 1;", "integer literal 1 where a .f32"),
             ("add.u16 %rs2, %rs1, 0f3FC00000;", "float literal used as .u16")]
    for text, words in cases:
        err, line = refusal(text, text, regs=REGS)
        assert err.line == line and words in str(err), text


def test_a_sink_destination_element_discards_and_the_other_elements_are_written():
    m = launch("mov.u64 %rd1, tile;\nst.shared.v2.u32 [%rd1], {%r30, %r31};\nld.shared.v2.u32 {_, %r2}, [%rd1];",
               [[5, 6]] * 32, decls=".shared .align 16 .b8 tile[64];")
    assert lanes(m, "%r2") == [6] * 32


def test_bad_operands_are_refused_naming_the_line():
    cases = [("mov.u32 %tid.x, 1;", "not a writable register"),
             ("mov.u64 %rd1, nosuch;", "unknown symbol"),
             ("match.any.sync %r1, %r30, 0xffffffff;", "no type suffix"),
             ("add.u32 %r1, [%rd1], 1;", "cannot be read here"),
             ("add.u32 [%rd1], %r1, 1;", "is not a destination register"),
             ("mov.u32 tab, %r1;", "is not a destination register")]
    for text, words in cases:
        err, line = refusal(text, text, regs=REGS)
        assert err.line == line and words in str(err), text


def test_type_bits_are_the_ptx_widths_and_a_predicate_is_one_bit():
    from layoutalg.kernel.interp.decode import type_bits

    # PTX ISA "Fundamental Types": .pred is a 1-bit predicate; the others are 8, 16, 32 or 64 bits wide
    assert type_bits("pred") == 1
    assert [type_bits(t) for t in ("b8", "u16", "f16", "bf16", "s32", "f32", "tf32", "b64", "f64")] == \
        [8, 16, 16, 16, 32, 32, 32, 64, 64]


def test_a_symbol_plus_or_minus_an_offset_is_its_address_moved_by_the_offset_modulo_2_to_the_64():
    # PTX ISA "Addresses as Operands": var+imm is var's address plus imm, in 64-bit address arithmetic; tab is
    # the kernel's first parameter and tile the first static shared variable (SMEM_BASE = 1024, spaces.py)
    body = "mov.u64 %rd1, tab;\nmov.u64 %rd2, tab+24;\nmov.u64 %rd3, tab-8;\nmov.u64 %rd4, tile;\nmov.u64 %rd5, tile+100;"
    m = launch(body, threads=1, decls=".shared .align 16 .b8 tile[1024];")
    tab = lanes(m, "%rd1")[0]
    assert tab is not None
    assert lanes(m, "%rd2") == [tab + 24]
    assert lanes(m, "%rd3") == [(tab - 8) % (1 << 64)]
    assert lanes(m, "%rd4") == [1024] and lanes(m, "%rd5") == [1124]

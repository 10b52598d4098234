"""How the check names what a C element holds (layoutalg/kernel/dataflow/checker_base.py ``describe_group``), on
the harness's scalar GEMM with lane 13 (C(1, 5)) storing something else: a loaded element of B or A is named by
its coordinate through the spec's layout (B(k, n) with row-major B 2 x 8: byte offset 4 (8 k + n)), an offset
outside the layout by its element index, a value made of two sources as parts of several values."""

from __future__ import annotations

import pytest
from dataflow_synth import MmaCase, mma_kernel
from kernel_dataflow_contract_harness import SPECS, gemm

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module

LANE13 = "setp.eq.u32 %p3, %r2, 13;\n"  # lane 13 = 8 * 1 + 5: C(1, 5)
PICK = "selp.f32 %f40, {held}, {{acc}}, %p3;\nst.global.f32 [%rd5], %f40;"


@pytest.mark.parametrize("prep,held,want", [
    ("", "%f20", "B(0, 5)"),   # lane 13's B factor of k = 0: B(0, n = 5)
    ("", "%f21", "B(1, 5)"),
    ("", "%f10", "A(1, 0)"),   # its A factor of k = 0: A(m = 1, 0)
    ("mov.f32 %f41, 0f3F800000;\n", "%f41", "an untagged value (not loaded from A or B)"),
    ("ld.global.f32 %f41, [%rd2+60];\n", "%f41", "B(1, 7)"),  # byte 60 = element 15 = 8 * 1 + 7
    ("ld.global.f32 %f41, [%rd1+40];\n", "%f41", "element 10 of A's buffer (outside its layout)"),  # A has 8
    ("mov.b32 {{%h1, %h2}}, {acc};\nmov.b32 {{%h3, %h4}}, %f20;\nmov.b32 %r50, {{%h1, %h4}};\n"
     "mov.b32 %f42, %r50;\n", "%f42", "parts of several values"),  # low half accumulator, high half B
])
def test_a_wrong_c_element_names_what_it_holds(prep: str, held: str, want: str) -> None:
    store = LANE13 + prep + PICK.format(held=held)  # gemm formats {acc}; {{ }} are literal braces
    r = check_mma(trace(parse_module(gemm(store=store)), block=32), **SPECS)
    assert r.verdict == "refuted" and r.counterexample["element"] == [1, 5]
    assert r.counterexample["held"] == want and r.counterexample["lane"] == 13


def test_a_c_input_loaded_from_another_buffer_is_named_by_its_bytes_and_parameter() -> None:
    # pD (the first parameter, buffer 0) is none of A, B, C: the f32 loaded from its byte 8 is bytes 8..11 of pD
    text = gemm(k_products=(0,)).replace(".entry g(.param .u64 pA,", ".entry g(.param .u64 pD, .param .u64 pA,")
    text = text.replace("mov.f32 %f0, 0f00000000;", "ld.param.u64 %rd40, [pD];\nld.global.f32 %f0, [%rd40+8];")
    r = check_mma(trace(parse_module(text), block=32), **SPECS)
    assert r.verdict == "refuted" and r.counterexample is not None and r.counterexample["kind"] == "fma"
    assert r.reason.endswith("lane 0 accumulates into bytes 8..11 of buffer pD, not the accumulator of C(0, 0) or zero")


def test_a_16_bit_c_input_loaded_from_another_buffer_is_named_by_its_two_bytes() -> None:
    # after tests/dataflow_synth.py's f16 mma: an f16 fma A(0, 0) * B(0, 0) + (bytes 6..7 of pD)
    fma = ("  .reg .b16 %q<4>;\n  ld.param.u64 %rd500, [pD];\n  ld.global.b16 %q0, [%rd1];\n  ld.global.b16 %q1, [%rd2];\n"
           "  ld.global.b16 %q2, [%rd500+6];\n  fma.rn.f16 %q3, %q0, %q1, %q2;\n  ret;")
    text = mma_kernel(MmaCase()).replace("  ret;", fma).replace("synth_mma(.param .u64 pA,",
                                                                "synth_mma(.param .u64 pD, .param .u64 pA,")
    r = check_mma(trace(parse_module(text), block=32),
                  a="pA@(16,32):(32,1)", b="pB@(32,8):(8,1)", c="pC@(16,8):(8,1)")
    assert r.verdict == "refuted" and r.counterexample is not None and r.counterexample["kind"] == "fma"
    assert r.reason.endswith("lane 0 accumulates into bytes 6..7 of buffer pD, not the accumulator of C(0, 0) or zero")


def test_accumulators_that_start_from_zero_are_not_claimed_to_start_from_c() -> None:
    r = check_mma(trace(parse_module(gemm()), block=32), **SPECS)
    assert r.verdict == "proved" and "C's old values" not in r.claim


def test_a_c_input_loaded_from_a_module_global_variable_is_named_by_the_variable() -> None:
    # .global variables get buffers after the kernel's parameters, in declaration order
    text = gemm(k_products=(0,)).replace(".visible .entry g(", ".global .align 4 .f32 gv[4];\n.global .align 4 .f32 gw[4];\n"
                                         ".visible .entry g(")
    text = text.replace("mov.f32 %f0, 0f00000000;", "mov.u64 %rd40, gw;\nld.global.f32 %f0, [%rd40+8];")
    r = check_mma(trace(parse_module(text), block=32), **SPECS)
    assert r.verdict == "refuted"
    assert r.reason.endswith("lane 0 accumulates into bytes 8..11 of buffer gw, not the accumulator of C(0, 0) or zero")


def test_a_c_input_loaded_past_every_buffer_is_named_by_its_buffer_number() -> None:
    # pC + 2**44 is the base of a fourth buffer of the launch's address map, which no parameter or variable holds
    text = gemm(k_products=(0,)).replace("mov.f32 %f0, 0f00000000;", "add.s64 %rd40, %rd3, 17592186044416;\n"
                                         "ld.global.f32 %f0, [%rd40+8];")
    r = check_mma(trace(parse_module(text), block=32), **SPECS)
    assert r.verdict == "refuted"
    assert r.reason.endswith("lane 0 accumulates into bytes 8..11 of buffer 3 (no parameter or variable), "
                             "not the accumulator of C(0, 0) or zero")


def test_a_16_bit_c_element_holding_an_a_element_outside_as_layout_is_named_by_its_element_index() -> None:
    # f16 GEMM (2-byte elements): lane 13 stores the half at A's byte 20 = element 20 / 2 = 10 (A 4 x 2 has 8)
    from test_kernel_dataflow_c_stores_contract import F16_GEMM

    store = "st.global.b16 [%rd5], %h6;"
    text = F16_GEMM.replace(store, "setp.eq.u32 %p3, %r1, 13;\nld.global.b16 %h7, [%rd1+20];\n"
                            "selp.b16 %h6, %h7, %h6, %p3;\n" + store)
    text = text.replace(".reg .b16 %h<8>;", ".reg .pred %p<8>;\n.reg .b16 %h<8>;")
    r = check_mma(trace(parse_module(text), block=32), **SPECS)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex is not None and cex["element"] == [1, 5]
    assert cex["held"] == "element 10 of A's buffer (outside its layout)"


"""How the check names what a C element holds (layoutalg/kernel/dataflow/checker_base.py ``describe_group``), on
the harness's scalar GEMM with lane 13 (C(1, 5)) storing something else: a loaded element of B or A is named by
its coordinate through the spec's layout (B(k, n) with row-major B 2 x 8: byte offset 4 (8 k + n)), an offset
outside the layout by its element index, a value made of two sources as parts of several values."""

from __future__ import annotations

import pytest
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

"""A C that holds no accumulator the data flow followed, only OPAQUE values (layoutalg/kernel/dataflow/
c_stores.py): the verdict is "unknown" unless an element is surely wrong whatever the OPAQUE values are -- never
written over the whole grid, or holding only zero units or the exact bits of one loaded element.  C = A B
depends on every A(m, k) and B(k, n), so a value that depends on at most one element differs from it on some
input.  An untagged value is not taken as surely wrong: a selp of constants on a predicate computed from loaded
data is untagged and may depend on A and B.

The kernel is the harness's scalar GEMM (tests/kernel_dataflow_contract_harness.py: C 4 x 8 row-major f32,
lane l of warp 0 stores C(l // 8, l % 8)), its accumulator made OPAQUE by adding an A element to it."""

from __future__ import annotations

from typing import Any

from kernel_dataflow_contract_harness import SPECS, gemm

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module

OPAQUE = ("add.f32 %f40, %f31, %f11;", "setp.eq.u32 %p2, %r2, 5;")  # acc + A(m, 1): mixes an operand in
STORE = "st.global.f32 [%rd5], %f40;"


def check(tail: tuple[str, ...], store: str = STORE) -> Any:
    return check_mma(trace(parse_module(gemm(tail=OPAQUE + tail, store=store)), block=32), **SPECS)


def test_an_all_opaque_c_is_unknown() -> None:
    r = check(())
    assert r.verdict == "unknown" and "no accumulator the data flow followed" in r.reason


def test_an_element_holding_one_loaded_a_element_is_refuted_among_opaque_ones() -> None:
    # lane 5 stores A(0, 0) itself (%f10, loaded, no arithmetic): C(0, 5) depends on one element of A only
    r = check(("@%p2 mov.f32 %f40, %f10;",))
    cex = r.counterexample
    assert r.verdict == "refuted" and (cex["kind"], cex["element"], cex["lane"]) == ("store", [0, 5], 5)
    assert cex["held"] == "A(0, 0)" and cex["register"] == "%f40"
    assert "depends on no more than one element of A or B (read as 32-bit elements" in cex["message"]


def test_an_element_never_written_is_refuted_among_opaque_ones() -> None:
    r = check((), store="@!%p2 " + STORE)
    cex = r.counterexample
    assert r.verdict == "refuted" and (cex["kind"], cex["element"]) == ("store", [0, 5])
    assert cex["held"] == "nothing (never written)"


def test_a_masked_half_of_an_a_element_is_refuted_but_an_untagged_constant_is_not() -> None:
    # lane 5 stores A(0, 0)'s low 16 bits with the high ones masked to zero (a GLOBAL unit and a ZERO unit)
    r = check(("@%p2 mov.b32 %r50, %f10;", "@%p2 and.b32 %r51, %r50, 65535;", "@%p2 mov.b32 %f40, %r51;"))
    cex = r.counterexample
    assert r.verdict == "refuted" and (cex["element"], cex["lane"]) == ([0, 5], 5)
    # a constant is untagged, and an untagged value may depend on loaded data (through a predicate): unknown
    for constant in ("0f3F800000", "0f00000000"):
        assert check((f"@%p2 mov.f32 %f40, {constant};",)).verdict == "unknown"

"""The final check of C (layoutalg/kernel/dataflow/c_stores.py, through check_mma) on a hand-written scalar
GEMM: one warp, lane = 8 m + n computes C(m, n) = sum_k A(m, k) B(k, n) (A 4 x K row-major, B K x 8, C 4 x 8
row-major) with one fma per k.  Each planted fault has the answer the definition of C = A B implies: a
skipped or repeated product, an element never written, a value that is no accumulator, and a second warp
storing another value to C with or without a barrier between (the last store wins: unordered stores race)."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import SPECS, STORE, gemm

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module


def check(text: str, block: int = 32):
    return check_mma(trace(parse_module(text), block=block), **SPECS)


def line_of(text: str, ins: str, nth: int = 0) -> int:
    return [i + 1 for i, x in enumerate(text.split("\n")) if x.strip() == ins][nth]


def test_the_unfaulted_gemm_is_proved() -> None:
    assert check(gemm()).verdict == "proved"


@pytest.mark.parametrize("k", [0, 1])
def test_a_product_accumulated_twice_is_refuted_naming_it(k: int) -> None:
    r = check(gemm((0, k, 1) if k == 0 else (0, 1, 1)))
    assert r.verdict == "refuted" and r.counterexample["kind"] == "duplicate"
    assert r.counterexample["element"] == [0, 0, k]  # lane 0: C(0, 0); its product of this k
    assert f"A(0, {k}) * B({k}, 0)" in r.reason


def test_a_skipped_product_is_refuted_at_the_first_element_with_what_it_holds() -> None:
    text = gemm((0,))
    r = check(text)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["kind"] == "store" and cex["element"] == [0, 0]
    assert cex["expected"] == "the accumulator of C(0, 0) after 2 k-products"
    assert cex["held"].startswith("the accumulator of C(0, 0) after 1 k-products")
    assert cex["line"] == line_of(text, "st.global.f32 [%rd5], %f30;") and cex["register"] == "%f30"
    assert (cex["cta"], cex["warp"], cex["lane"]) == ([0, 0, 0], 0, 0)


def test_an_element_never_written_is_refuted() -> None:
    text = gemm(store="setp.ne.u32 %p2, %r2, 13;\n@%p2 st.global.f32 [%rd5], {acc};")
    r = check(text)
    assert r.verdict == "refuted" and r.counterexample["element"] == [1, 5]  # lane 13 = 8 * 1 + 5
    assert r.counterexample["held"] == "nothing (never written)" and "C(1, 5) is never written" in r.reason


def test_a_loaded_value_stored_instead_of_the_accumulator_is_refuted() -> None:
    r = check(gemm(store="st.global.f32 [%rd5], %f10;"))
    assert r.verdict == "refuted" and "no accumulator value is stored to C" in r.reason


def test_an_accumulator_the_model_lost_track_of_makes_the_answer_unknown() -> None:
    # xor with the lane: lane 0 (xor 0) keeps its accumulator, the others' values are lost
    r = check(gemm(store="mov.b32 %r40, {acc};\nxor.b32 %r41, %r40, %r2;\nst.global.u32 [%rd5], %r41;"))
    assert r.verdict == "unknown" and r.reason.startswith("C(1, 0) receives a value derived at PTX line")
    # xor 0x80008000 (both sign bits of the two halves): no lane keeps an accumulator
    r = check(gemm(store="mov.b32 %r40, {acc};\nxor.b32 %r41, %r40, -2147450880;\nst.global.u32 [%rd5], %r41;"))
    assert r.verdict == "unknown" and r.reason.startswith("C receives a value derived at PTX line")
    assert r.reason.endswith("and no accumulator the data flow followed")


def test_c_receiving_16_and_32_bit_accumulators_is_refuted() -> None:
    r = check(gemm(store="setp.lt.u32 %p3, %r4, 4;\n@%p3 st.global.f32 [%rd5], {acc};\ncvt.rn.f16.f32 %h1, {acc};\n"
                         "@!%p3 st.global.b16 [%rd5], %h1;"))
    assert r.verdict == "refuted" and "C receives both 16-bit and 32-bit accumulator values" in r.reason


def test_a_kernel_with_no_product_is_unknown() -> None:
    r = check(gemm(k_products=(), store="st.global.f32 [%rd5], %f0;"))
    assert r.verdict == "unknown" and "no mma and no A x B fma" in r.reason


W1_STORE = ("mul.wide.u32 %rd20, %r2, 4;", "add.s64 %rd21, %rd1, %rd20;", "ld.global.f32 %f50, [%rd21];",
            "st.global.f32 [%rd5], %f50;")


def test_another_warps_unordered_store_of_another_value_is_a_global_race() -> None:
    text = gemm(warp1=W1_STORE)
    r = check(text, block=64)
    first, second = line_of(text, "st.global.f32 [%rd5], %f31;"), line_of(text, "st.global.f32 [%rd5], %f50;")
    assert r.verdict == "refuted" and r.counterexample["kind"] == "global race"
    assert (r.counterexample["first_line"], r.counterexample["line"]) == (first, second)
    assert r.reason == (f"bytes 0..1 of C are stored by PTX line {first} (CTA (0, 0, 0) warp 0 lane 0) and by PTX "
                        f"line {second} (CTA (0, 0, 0) warp 1 lane 0) with different values and nothing ordering "
                        "the two stores")


def test_a_barrier_orders_the_other_warps_store_before_the_accumulators() -> None:
    assert check(gemm(tail=("bar.sync 0;",), warp1=W1_STORE + ("bar.sync 0;",)), block=64).verdict == "proved"
    r = check(gemm(store=STORE + "\nbar.sync 0;", warp1=("bar.sync 0;",) + W1_STORE), block=64)  # after: it wins
    assert r.verdict == "refuted" and r.counterexample["kind"] == "store"
    r = check(gemm(tail=("bar.sync 0;",), warp1=("bar.sync 0;",) + W1_STORE), block=64)  # both after: unordered
    assert r.verdict == "refuted" and r.counterexample["kind"] == "global race"


def test_a_global_race_names_the_lane_of_each_store() -> None:
    # warp 1 stores only from lanes 3.. (thread 32 + l stores C[l], as lane l of warp 0 does): C[0..2] keep warp 0's
    # accumulators, and the first unordered unit is lane 3's C(0, 3) at bytes 12..13
    text = gemm(warp1=("setp.ge.u32 %p4, %r2, 3;", "@%p4 bra W1S;", "bra END;", "W1S:") + W1_STORE)
    r = check(text, block=64)
    first, second = line_of(text, "st.global.f32 [%rd5], %f31;"), line_of(text, "st.global.f32 [%rd5], %f50;")
    assert r.verdict == "refuted" and r.counterexample["kind"] == "global race"
    assert r.reason == (f"bytes 12..13 of C are stored by PTX line {first} (CTA (0, 0, 0) warp 0 lane 3) and by PTX "
                        f"line {second} (CTA (0, 0, 0) warp 1 lane 3) with different values and nothing ordering "
                        "the two stores")

"""Scalar k-products in the mma check (layoutalg/kernel/dataflow/fma_check.py), on the harness's scalar GEMM
(C 4x8 = A 4x2 . B 2x8, lane l of warp 0 computes C(l / 8, l % 8) with one fma per k).  An fma whose factors
are an A and a B element (either order) is a 1x1x1 mma: the factors must share k, and the C input must be zero
(a known zero counts) or the unmodified accumulator of the same (m, n); each fault is planted here by hand and
the counterexample names the lane, the element held and the one required."""

from __future__ import annotations

from kernel_dataflow_contract_harness import SPECS, gemm

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module

FMA0 = "fma.rn.f32 %f30, %f10, %f20, %f0;"  # the first k-product: A(m, 0) * B(0, n) + 0
FMA1 = "fma.rn.f32 %f31, %f11, %f21, %f30;"  # the second: A(m, 1) * B(1, n) + acc


def check(text: str):
    return check_mma(trace(parse_module(text), block=32), **SPECS)


def line_of(text: str, ins: str) -> int:
    return [i + 1 for i, x in enumerate(text.split("\n")) if x.strip() == ins][0]


def test_a_correct_scalar_gemm_is_proved_with_every_lane_product_counted() -> None:
    r = check(gemm())
    assert r.verdict == "proved" and "64 scalar A x B fma products" in r.claim


def test_factors_in_either_order_are_a_k_product() -> None:
    text = gemm().replace(FMA0, "fma.rn.f32 %f30, %f20, %f10, %f0;").replace(
        FMA1, "fma.rn.f32 %f31, %f21, %f11, %f30;")
    r = check(text)
    assert r.verdict == "proved" and "64 scalar A x B fma products" in r.claim


def test_factors_of_different_k_are_refuted_naming_both() -> None:
    text = gemm().replace("add.u32 %r11, %r4, 0;", "add.u32 %r11, %r4, 8;")  # the first B load reads row k = 1
    r = check(text)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["kind"] == "fma"
    assert (cex["line"], cex["lane"], cex["warp"], cex["cta"]) == (line_of(text, FMA0), 0, 0, [0, 0, 0])
    assert (cex["held"], cex["expected"]) == ("B(1, 0)", "B(0, 0)")
    assert r.reason == f"PTX line {line_of(text, FMA0)}: lane 0 multiplies A(0, 0) by B(1, 0)"


def test_an_fma_with_only_one_matrix_factor_is_not_a_product() -> None:
    text = gemm().replace(FMA0, "fma.rn.f32 %f30, %f10, %f10, %f0;").replace(FMA1, "fma.rn.f32 %f31, %f11, %f11, %f30;")
    r = check(text)
    assert r.verdict != "proved" and "scalar A x B fma products" not in r.claim


def test_a_nonzero_start_value_is_refuted() -> None:
    text = gemm().replace("mov.f32 %f0, 0f00000000;", "mov.f32 %f0, 0f3F800000;")  # 1.0
    cex = check(text).counterexample
    assert cex["kind"] == "fma" and cex["lane"] == 0
    assert cex["held"] == "an untagged value (not loaded from A or B)"
    assert cex["expected"] == "the accumulator of C(0, 0) or 0"


def test_a_start_value_known_to_be_zero_in_one_lane_only_refutes_the_other_lanes() -> None:
    # %f0 = popc(lane): 0 in lane 0, nonzero in lane 1
    text = gemm().replace(FMA0, "popc.b32 %r40, %r1;\nmov.b32 %f0, %r40;\n" + FMA0)
    cex = check(text).counterexample
    assert cex["kind"] == "fma" and cex["lane"] == 1 and cex["expected"] == "the accumulator of C(0, 1) or 0"


def test_a_start_value_chosen_by_loaded_data_between_zero_and_one_is_refuted() -> None:
    # %f0 = A(m, 1) > 0 ? 1.0 : 0 (the 0 is %f10 & 0): nonzero for some data, so the proof must not hold
    for order in ("0x3F800000, %r42", "%r42, 0x3F800000"):
        start = ("mov.b32 %r41, %f10;\nand.b32 %r42, %r41, 0;\nsetp.gt.f32 %p5, %f11, 0f00000000;\n"
                 f"selp.b32 %r43, {order}, %p5;\nmov.b32 %f0, %r43;\n")
        r = check(gemm().replace(FMA0, start + FMA0))
        assert r.verdict == "refuted", order
        cex = r.counterexample
        assert (cex["kind"], cex["lane"], cex["expected"]) == ("fma", 0, "the accumulator of C(0, 0) or 0"), order


def test_accumulating_into_a_matrix_element_is_refuted_naming_it() -> None:
    text = gemm().replace(FMA0, "fma.rn.f32 %f30, %f10, %f20, %f10;")
    cex = check(text).counterexample
    assert cex["kind"] == "fma" and cex["lane"] == 0 and cex["held"] == "A(0, 0)"


def test_accumulating_into_another_elements_accumulator_is_refuted() -> None:
    text = gemm().replace(FMA1, "shfl.sync.bfly.b32 %f40, %f30, 1, 31, -1;\nfma.rn.f32 %f31, %f11, %f21, %f40;")
    cex = check(text).counterexample
    assert cex["kind"] == "fma" and cex["lane"] == 0
    assert cex["held"] == "the accumulator of C(0, 1) after 1 k-products"
    assert cex["expected"] == "the accumulator of C(0, 0) or 0"


def test_accumulating_into_a_scaled_accumulator_is_refuted() -> None:
    text = gemm().replace(FMA1, "mul.f32 %f40, %f30, 0f40000000;\nfma.rn.f32 %f31, %f11, %f21, %f40;")
    cex = check(text).counterexample
    assert cex["kind"] == "fma" and cex["lane"] == 0
    assert cex["held"] == "the accumulator of C(0, 0) after 1 k-products (after element-wise arithmetic)"


def test_a_start_value_the_model_cannot_follow_makes_the_check_unknown() -> None:
    text = gemm().replace(FMA0, "ld.global.u32 %r40, [%rd7];\npopc.b32 %r40, %r40;\nmov.b32 %f0, %r40;\n" + FMA0)
    r = check(text)
    assert r.verdict == "unknown" and r.counterexample is None
    assert f"PTX line {line_of(text, FMA0)}: lane 0 accumulates into a value derived at PTX line " \
        f"{line_of(text, 'popc.b32 %r40, %r40;')} (popc.b32) through" in r.reason


def test_a_chain_missing_a_k_product_is_not_proved() -> None:
    r = check(gemm(k_products=(0,)))
    assert r.verdict == "refuted" and r.counterexample["kind"] == "store"
    assert "32 scalar A x B fma products" in r.claim


def test_negative_zero_is_a_zero_start_value_but_any_other_bit_is_not() -> None:
    assert check(gemm().replace("mov.f32 %f0, 0f00000000;", "mov.f32 %f0, 0f80000000;")).verdict == "proved"
    for word in ("0f40000000", "0f00000001", "0f00010000", "0fC0000000"):  # 2.0, the least denormal, bit 16, -2.0
        cex = check(gemm().replace("mov.f32 %f0, 0f00000000;", f"mov.f32 %f0, {word};")).counterexample
        assert cex["kind"] == "fma" and cex["lane"] == 0, word


def test_a_start_value_unknown_at_trace_time_is_not_taken_for_zero() -> None:
    text = gemm().replace(FMA0, "mov.u32 %r40, %clock;\nmov.b32 %f0, %r40;\n" + FMA0)
    cex = check(text).counterexample
    assert cex["kind"] == "fma" and cex["lane"] == 0 and cex["held"] == "an untagged value (not loaded from A or B)"


def test_a_start_value_whose_low_half_the_model_cannot_follow_is_unknown() -> None:
    text = gemm().replace(FMA0, "ld.global.u32 %r40, [%rd7];\npopc.b32 %r40, %r40;\nmov.b32 {%h1, %h2}, %r40;\n"
                          "mov.b16 %h2, 0;\nmov.b32 %f0, {%h1, %h2};\n" + FMA0)
    r = check(text)
    assert r.verdict == "unknown" and "accumulates into a value derived at PTX line" in r.reason


def test_reading_a_matrix_as_elements_of_two_sizes_is_unknown() -> None:
    f16 = ("ld.global.b16 %h3, [%rd1];", "ld.global.b16 %h4, [%rd2];", "mov.b16 %h6, 0;",
           "fma.rn.f16 %h5, %h3, %h4, %h6;")  # A(0, 0) * B(0, 0) as 2-byte elements
    text = gemm(tail=f16)
    r = check(text)
    assert r.verdict == "unknown"
    assert f"A is read as 4-byte and as 2-byte elements (PTX line {line_of(text, f16[-1])})" in r.reason

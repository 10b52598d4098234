"""Scalar k-products in the mma check (layoutalg/kernel/dataflow/fma_check.py), on the harness's scalar GEMM
(C 4x8 = A 4x2 . B 2x8, lane l of warp 0 computes C(l / 8, l % 8) with one fma per k).  An fma whose factors
are an A and a B element (either order) is a 1x1x1 mma: the factors must share k, and the C input must be zero
(a known zero counts) or the unmodified accumulator of the same (m, n); each fault is planted here by hand and
the counterexample names the lane, the element held and the one required."""

from __future__ import annotations

import pytest
from dataflow_synth import MmaCase, mma_kernel
from kernel_dataflow_contract_harness import HEADER, SPECS, STORE, gemm

from layoutalg.errors import LayoutError
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


def test_an_fma_with_a_constant_factor_is_element_wise_not_a_product() -> None:
    # 1.0 * B(0, n) + 0: one factor is no matrix element, so the fma is arithmetic on B, and the next fma's C
    # input is that derived value (unknown), never a product or a crash
    text = gemm().replace(FMA0, "fma.rn.f32 %f30, 0f3F800000, %f20, %f0;")
    r = check(text)
    assert r.verdict == "unknown" and "no products" in r.claim
    assert r.reason.startswith(f"PTX line {line_of(text, FMA1)}: lane 0 accumulates into a value derived at PTX line "
                               f"{line_of(text, 'fma.rn.f32 %f30, 0f3F800000, %f20, %f0;')} (fma.rn.f32)")


# C 4x16 (f16) = A 4x2 . B 2x16: lane l computes C(l / 8, 2 (l % 8)) and the next column with one fma.rn.f16x2
# per k: A(m, k) in both halves times B(k, n0), B(k, n0 + 1) (one b32 load), plus the packed start value
F16_SPECS = {"a": "pA@(4,2):(2,1)", "b": "pB@(2,16):(16,1)", "c": "pC@(4,16):(16,1)"}


def gemm_f16x2(start: str = "0") -> str:
    lines = [HEADER, ".visible .entry g(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
             ".reg .b16 %h<8>;", ".reg .b32 %r<64>;", ".reg .b64 %rd<64>;",
             "ld.param.u64 %rd1, [pA];", "ld.param.u64 %rd2, [pB];", "ld.param.u64 %rd3, [pC];",
             "mov.u32 %r1, %tid.x;", "shr.u32 %r3, %r1, 3;", "and.b32 %r4, %r1, 7;", "shl.b32 %r5, %r4, 1;",
             f"mov.b32 %r20, {start};"]
    for k in range(2):
        lines += [f"mad.lo.u32 %r10, %r3, 2, {k};", "mul.wide.u32 %rd6, %r10, 2;", "add.s64 %rd7, %rd1, %rd6;",
                  f"ld.global.b16 %h{1 + k}, [%rd7];", f"mov.b32 %r{30 + k}, {{%h{1 + k}, %h{1 + k}}};",
                  f"add.u32 %r11, %r5, {16 * k};", "mul.wide.u32 %rd8, %r11, 2;", "add.s64 %rd9, %rd2, %rd8;",
                  f"ld.global.b32 %r{40 + k}, [%rd9];", f"fma.rn.f16x2 %r{21 + k}, %r{30 + k}, %r{40 + k}, %r{20 + k};"]
    lines += ["mad.lo.u32 %r12, %r3, 16, %r5;", "mul.wide.u32 %rd10, %r12, 2;", "add.s64 %rd11, %rd3, %rd10;",
              "st.global.b32 [%rd11], %r22;", "ret;", "}", ""]
    return "\n".join(lines)


def test_a_packed_f16x2_gemm_is_proved_with_both_halves_counted() -> None:
    r = check_mma(trace(parse_module(gemm_f16x2()), block=32), **F16_SPECS)
    assert r.verdict == "proved" and "128 scalar A x B fma products" in r.claim  # 32 lanes x 2 halves x 2 k


@pytest.mark.parametrize("word", ["0x00010000", "0x40000000", "0x3C000000"])  # high half: least denormal, 2.0, 1.0
def test_a_nonzero_high_half_of_a_packed_start_value_is_refuted_at_the_second_column(word: str) -> None:
    text = gemm_f16x2(word)
    r = check_mma(trace(parse_module(text), block=32), **F16_SPECS)
    cex = r.counterexample or {}
    assert r.verdict == "refuted" and (cex["kind"], cex["lane"]) == ("fma", 0)
    assert cex["line"] == line_of(text, "fma.rn.f16x2 %r21, %r30, %r40, %r20;")
    assert cex["expected"] == "the accumulator of C(0, 1) or 0"  # the high half is lane 0's second column


def test_a_packed_start_value_of_two_negative_zeros_is_a_zero() -> None:
    r = check_mma(trace(parse_module(gemm_f16x2("0x80008000")), block=32), **F16_SPECS)
    assert r.verdict == "proved"


def test_lanes_that_skip_a_refuted_fma_are_not_counted_as_products() -> None:
    # lanes 0..15 run the first fma with B's row 1 (refuted); lanes 16..31 do not run it: no product is counted
    text = gemm().replace("add.u32 %r11, %r4, 0;", "add.u32 %r11, %r4, 8;").replace(
        FMA0, "setp.lt.u32 %p2, %r2, 16;\n@%p2 " + FMA0)
    r = check(text)
    assert r.verdict == "refuted" and (r.counterexample["kind"], r.counterexample["lane"]) == ("fma", 0)
    assert "no products receive" in r.claim


def test_an_accumulator_of_a_column_past_2_to_the_19_is_its_own() -> None:
    # C is 1 x (2**19 + 32); lane l accumulates C(0, 2**19 + l) over k = 0, 1 (n uses tag bits 20..39): both
    # fma of every lane are products; the check refutes only the C elements no lane writes
    n = 2**19 + 32
    text = gemm().replace("shr.u32 %r3, %r2, 3;", "mov.u32 %r3, 0;")
    text = text.replace("and.b32 %r4, %r2, 7;", "mov.u32 %r4, %r2;")
    text = text.replace("add.u32 %r11, %r4, 0;", f"add.u32 %r11, %r4, {2**19};").replace(
        "add.u32 %r11, %r4, 8;", f"add.u32 %r11, %r4, {n + 2**19};")
    text = text.replace("mul.wide.u32 %rd4, %r2, 4;", f"add.u32 %r5, %r2, {2**19};\nmul.wide.u32 %rd4, %r5, 4;")
    r = check_mma(trace(parse_module(text), block=32), a="pA@(1,2):(2,1)", b=f"pB@(2,{n}):({n},1)",
                  c=f"pC@(1,{n}):({n},1)")
    assert "64 scalar A x B fma products" in r.claim
    cex = r.counterexample or {}
    assert r.verdict == "refuted" and (cex.get("kind"), cex.get("element")) == ("store", [0, 0])


def test_an_f16_fma_repeating_a_product_of_an_f16_mma_is_a_duplicate() -> None:
    # the mma reads A and B as 2-byte elements, and so does fma.rn.f16: A(0, 0) * B(0, 0) is then counted twice
    text = mma_kernel(MmaCase()).replace("  ret;", "  ld.global.b16 %h120, [%rd1];\n  ld.global.b16 %h121, [%rd2];\n"
                                         "  mov.b16 %h122, 0;\n  fma.rn.f16 %h123, %h120, %h121, %h122;\n  ret;")
    r = check_mma(trace(parse_module(text), block=32), a="pA@(16,32):(32,1)", b="pB@(32,8):(8,1)",
                  c="pC@(16,8):(8,1)")
    assert r.verdict == "refuted"
    assert r.reason == (f"PTX line {line_of(text, 'fma.rn.f16 %h123, %h120, %h121, %h122;')}: the product "
                        "A(0, 0) * B(0, 0) is accumulated a second time (into C(0, 0))")


def test_a_product_of_elements_read_at_a_second_size_is_an_unproved_product() -> None:
    # after the f32 GEMM, lane 0 multiplies A(0, 0) by B(0, 0) as f16 elements and stores the result over C(0, 0):
    # C then holds a product the check could not prove, not element-wise arithmetic on operand elements
    tail = ("ld.global.b16 %h3, [%rd1];", "ld.global.b16 %h4, [%rd2];", "mov.b16 %h6, 0;",
            "fma.rn.f16 %h5, %h3, %h4, %h6;", "setp.eq.u32 %p2, %r2, 0;")
    text = gemm(tail=tail, store=STORE + "\nmov.b32 %r50, {{%h5, %h5}};\n@%p2 st.global.b32 [%rd3], %r50;")
    r = check(text)
    assert r.verdict == "unknown"
    assert [f.message for f in r.findings if f.kind == "store"] == [
        f"C(0, 0) receives a value derived at PTX line {line_of(text, tail[3])} (fma.rn.f16) through an mma or fma "
        f"whose operands were not all proved (see the counterexample) (stored at PTX line "
        f"{line_of(text, '@%p2 st.global.b32 [%rd3], %r50;')} by CTA (0, 0, 0) warp 0 lane 0), not the accumulator "
        f"of C(0, 0) after 2 k-products"]


def gemm_f64() -> str:
    """The scalar GEMM with 8-byte elements (ld/fma/st .f64; A, B and C as in SPECS, in doubles)."""
    text = gemm(store="st.global.f64 [%rd5], {acc};").replace(".reg .f32 %f<64>;", ".reg .f64 %f<64>;")
    text = text.replace("mov.f32 %f0, 0f00000000;", "mov.f64 %f0, 0d0000000000000000;")
    text = text.replace("ld.global.f32", "ld.global.f64").replace("fma.rn.f32", "fma.rn.f64")
    for r in ("%rd6, %r10", "%rd8, %r11", "%rd4, %r2"):
        text = text.replace(f"mul.wide.u32 {r}, 4;", f"mul.wide.u32 {r}, 8;")
    return text


def test_a_correct_f64_scalar_gemm_is_not_refuted() -> None:
    # tags model 16- and 32-bit accumulators only: a right double-precision GEMM is unknown (never refuted),
    # the reason naming the first f64 k-product
    text = gemm_f64()
    r = check(text)
    assert r.verdict == "unknown" and r.counterexample is None
    assert r.reason == (f"PTX line {line_of(text, 'fma.rn.f64 %f30, %f10, %f20, %f0;')}: fma.rn.f64 multiplies A "
                        "and B elements of 8 bytes; 64-bit accumulators are not modelled")


def tf32_mma(tail: tuple[str, ...] = ()) -> str:
    """One warp, one m16n8k8 tf32 mma (A 16x8, B 8x8, C 16x8 row-major f32), fragments per the PTX ISA: with
    g = lane / 4 and t = lane % 4, a0..a3 = A(g, t), A(g+8, t), A(g, t+4), A(g+8, t+4); b0, b1 = B(t, g),
    B(t+4, g); c0..c3 = C(g, 2t), C(g, 2t+1), C(g+8, 2t), C(g+8, 2t+1); then ``tail``."""
    body = ["ld.param.u64 %rd1, [pA];", "ld.param.u64 %rd2, [pB];", "ld.param.u64 %rd3, [pC];", "mov.u32 %r1, %laneid;",
            "shr.u32 %r2, %r1, 2;", "and.b32 %r3, %r1, 3;", "shl.b32 %r4, %r2, 3;", "add.u32 %r5, %r4, 64;"]
    ld = ["mul.wide.u32 %rd20, %r9, 4;", "add.s64 %rd21, {base}, %rd20;", "ld.global.f32 {dst}, [%rd21];"]
    for i, (row, plus) in enumerate([("%r4", 0), ("%r5", 0), ("%r4", 4), ("%r5", 4)]):
        body += [f"add.u32 %r9, {row}, %r3;", f"add.u32 %r9, %r9, {plus};",
                 *(x.format(base="%rd1", dst=f"%f{10 + i}") for x in ld)]
    for i, plus in enumerate((0, 32)):
        body += ["shl.b32 %r9, %r3, 3;", "add.u32 %r9, %r9, %r2;", f"add.u32 %r9, %r9, {plus};",
                 *(x.format(base="%rd2", dst=f"%f{20 + i}") for x in ld)]
    body += [f"mov.f32 %f{k}, 0f00000000;" for k in range(4)]
    body += ["mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f4, %f5, %f6, %f7}, {%f10, %f11, %f12, %f13}, "
             "{%f20, %f21}, {%f0, %f1, %f2, %f3};"]
    for i, (row, plus) in enumerate([("%r4", 0), ("%r4", 1), ("%r5", 0), ("%r5", 1)]):
        body += ["shl.b32 %r9, %r3, 1;", f"add.u32 %r9, %r9, {row};", f"add.u32 %r9, %r9, {plus};",
                 "mul.wide.u32 %rd20, %r9, 4;", "add.s64 %rd21, %rd3, %rd20;", f"st.global.f32 [%rd21], %f{4 + i};"]
    return "\n".join([HEADER, ".visible .entry t(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
                      ".reg .b32 %r<32>;", ".reg .f32 %f<64>;", ".reg .b64 %rd<32>;", *body, *tail, "ret;", "}", ""])


TF32_SPECS = {"a": "pA@(16,8):(8,1)", "b": "pB@(8,8):(8,1)", "c": "pC@(16,8):(8,1)"}


def test_an_f32_fma_repeating_a_product_of_a_tf32_mma_is_a_duplicate() -> None:
    # the tf32 mma reads A and B as 4-byte elements, and so does fma.rn.f32
    assert check_mma(trace(parse_module(tf32_mma()), block=32), **TF32_SPECS).verdict == "proved"
    fma = "fma.rn.f32 %f42, %f40, %f41, %f0;"
    text = tf32_mma(("ld.global.f32 %f40, [%rd1];", "ld.global.f32 %f41, [%rd2];", fma))
    r = check_mma(trace(parse_module(text), block=32), **TF32_SPECS)
    assert r.verdict == "refuted"
    assert r.reason == (f"PTX line {line_of(text, fma)}: the product A(0, 0) * B(0, 0) is accumulated a second time "
                        "(into C(0, 0))")


def test_a_4_byte_product_of_elements_read_at_a_second_size_is_an_unproved_product() -> None:
    # after the f16x2 GEMM (2-byte elements), lane 0 multiplies A(0, 0..1) by B(0, 0..1) as one f32 each and stores
    # the result over C(0, 0..1): C then holds a product the check could not prove (as for 2-byte elements after
    # a 4-byte GEMM), not an instruction the model does not follow
    tail = ["ld.global.b32 %r50, [%rd1];", "ld.global.b32 %r51, [%rd2];", "mov.b32 %r52, 0;",
            "fma.rn.f32 %r53, %r50, %r51, %r52;", "setp.eq.u32 %p2, %r1, 0;", "@%p2 st.global.b32 [%rd3], %r53;"]
    text = gemm_f16x2().replace(".reg .b16 %h<8>;", ".reg .pred %p<4>;\n.reg .b16 %h<8>;").replace(
        "st.global.b32 [%rd11], %r22;", "st.global.b32 [%rd11], %r22;\n" + "\n".join(tail))
    r = check_mma(trace(parse_module(text), block=32), **F16_SPECS)
    assert r.verdict == "unknown"
    assert f"A is read as 2-byte and as 4-byte elements (PTX line {line_of(text, tail[3])})" in r.reason
    stores = [f.message for f in r.findings if f.kind == "store"]
    assert stores and all(f"derived at PTX line {line_of(text, tail[3])} (fma.rn.f32) through an mma or fma whose "
                          "operands were not all proved" in s for s in stores), stores


def test_a_factor_register_narrower_than_the_fma_type_is_refused() -> None:
    # fma.rn.f32 reading a 16-bit register: ptxas 13.0 refuses it ("Arguments mismatch"), so does the tracer (the
    # GEMM was left unproved before; now no verdict is given on invalid PTX)
    text = gemm().replace("ld.global.f32 %f10, [%rd7];", "ld.global.b16 %h1, [%rd7];").replace(
        FMA0, "fma.rn.f32 %f30, %h1, %f20, %f0;")
    with pytest.raises(LayoutError, match=r"fma\.rn\.f32: operand 1 \(%h1, a \.b16 register\).*narrower"):
        check(text)


def test_a_start_value_made_of_the_sign_bits_of_loaded_data_is_not_a_zero() -> None:
    # cvt.s32.s16 into a 64-bit register sign-extends to all 64 bits (PTX ISA, operand wider than the type):
    # the high word is 0 or 0xFFFFFFFF (a NaN as f32) by the sign of A's first 2 bytes, never a known zero
    start = ["ld.global.b16 %h1, [%rd1];", "cvt.s32.s16 %rd40, %h1;", "mov.b64 {%r40, %r41}, %rd40;",
             "mov.b32 %f0, %r41;"]
    text = gemm().replace("mov.f32 %f0, 0f00000000;", "\n".join(start))
    r = check(text)
    assert r.verdict != "proved"
    assert r.reason.startswith(f"PTX line {line_of(text, FMA0)}: lane 0 accumulates into a value derived at PTX line "
                               f"{line_of(text, start[1])} (cvt.s32.s16)"), r.reason

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
    assert_global_race(text, "12..13", ("warp 0 lane 3", "warp 1 lane 3"))


def assert_global_race(text: str, byte_range: str, by: tuple[str, str]) -> None:
    """``text`` (two warps, 64 threads) is refuted by a global race on C's bytes ``byte_range``, stored first by the
    accumulator store (``%f31``) of ``by[0]`` and then by the store of ``%f50`` of ``by[1]``."""
    r = check(text, block=64)
    first, second = line_of(text, "st.global.f32 [%rd5], %f31;"), line_of(text, "st.global.f32 [%rd5], %f50;")
    assert r.verdict == "refuted" and r.counterexample["kind"] == "global race"
    assert r.reason == (f"bytes {byte_range} of C are stored by PTX line {first} (CTA (0, 0, 0) {by[0]}) and by PTX "
                        f"line {second} (CTA (0, 0, 0) {by[1]}) with different values and nothing ordering "
                        "the two stores")


def warp1_computes(text: str) -> str:
    """The GEMM with the warps' roles swapped: warp 1 accumulates and stores, warp 0 runs ``warp1``."""
    return text.replace("setp.ge.u32 %p1, %r1, 32;", "setp.lt.u32 %p1, %r1, 32;")


def test_a_warps_second_store_to_its_element_replaces_its_first_without_a_race() -> None:
    # warp 1 stores A(m, 0) to C(m, n), then (program order) its accumulator: the accumulator is what C holds
    assert check(warp1_computes(gemm(tail=("st.global.f32 [%rd5], %f10;",))), block=64).verdict == "proved"


def test_a_barrier_only_the_second_warp_takes_orders_nothing_before_it() -> None:
    # warp 1 stores its accumulators; warp 0 passes barrier 1 alone (32 threads: PTX bar.sync a, b with b = the
    # warp's own threads) and stores A(0, lane / 2) values: nothing orders the two stores -- a race, first by warp 1
    text = warp1_computes(gemm(warp1=("bar.sync 1, 32;",) + W1_STORE))
    assert_global_race(text, "0..1", ("warp 1 lane 0", "warp 0 lane 0"))


# 512 x 8 x 65535 = 268 431 360 products > 2**27: the products are counted as sorted keys, checked at the end
BIG = {"a": "pA@(512,65535):(65535,1)", "b": "pB@(65535,8):(8,1)", "c": "pC@(512,8):(8,1)"}


def big(text: str) -> str:
    """The GEMM with A's rows 65535 elements apart (A(m, k) at 65535 m + k, as BIG's A)."""
    for k in (0, 1):
        text = text.replace(f"mad.lo.u32 %r10, %r3, 2, {k};", f"mad.lo.u32 %r10, %r3, 65535, {k};")
    return text


def test_a_duplicate_found_among_sorted_keys_is_named_by_its_own_m_n_k() -> None:
    # only k = 1; lane 31 computes C(2, 5) as lane 21 does: A(2, 1) * B(1, 5) twice, the one repeated product
    text = big(gemm((1,))).replace("and.b32 %r4, %r2, 7;", "and.b32 %r4, %r2, 7;\nsetp.eq.u32 %p5, %r2, 31;\n"
                                   "selp.u32 %r3, 2, %r3, %p5;\nselp.u32 %r4, 5, %r4, %p5;")
    r = check_mma(trace(parse_module(text), block=32), **BIG)
    (dup,) = [f for f in r.findings if f.kind == "duplicate"]
    assert dup.fields["element"] == [2, 5, 1]
    assert dup.message == "the product A(2, 1) * B(1, 5) is accumulated more than once"
    r = check_mma(trace(parse_module(big(gemm((1, 0)))), block=32), **BIG)  # each product once
    assert [f for f in r.findings if f.kind == "duplicate"] == []


def test_c_holding_opaque_units_and_nothing_else_names_that_units_instruction() -> None:
    # every lane stores the low unit of its xor-ed accumulator: read as 32-bit elements each C element holds an
    # OPAQUE unit, so none is surely wrong (as 16-bit ones every other is never written, but the width is unknown)
    text = gemm(store="mov.b32 %r40, {acc};\nxor.b32 %r41, %r40, -2147450880;\nmov.b32 {{%h1, %h2}}, %r41;\n"
                      "st.global.b16 [%rd5], %h1;")
    r = check(text)
    xor = line_of(text, "xor.b32 %r41, %r40, -2147450880;")
    assert r.verdict == "unknown" and r.reason.startswith(f"C receives a value derived at PTX line {xor} (xor.b32)")
    # lane 0 alone storing it leaves C(0, 1) never written, whichever the width: refuted (it was "unknown")
    text = gemm(store="mov.b32 %r40, {acc};\nxor.b32 %r41, %r40, -2147450880;\nmov.b32 {{%h1, %h2}}, %r41;\n"
                      "setp.eq.u32 %p5, %r2, 0;\n@%p5 st.global.b16 [%rd5], %h1;")
    r = check(text)
    assert r.verdict == "refuted" and (r.counterexample or {}).get("held") == "nothing (never written)"


F16_GEMM = """.version 8.0
.target sm_90
.address_size 64
.visible .entry g(.param .u64 pA, .param .u64 pB, .param .u64 pC)
{
.reg .b16 %h<8>;
.reg .b32 %r<16>;
.reg .b64 %rd<16>;
ld.param.u64 %rd1, [pA];
ld.param.u64 %rd2, [pB];
ld.param.u64 %rd3, [pC];
mov.u32 %r1, %tid.x;
shr.u32 %r3, %r1, 3;
and.b32 %r4, %r1, 7;
mul.wide.u32 %rd4, %r1, 2;
add.s64 %rd5, %rd3, %rd4;
mov.b16 %h0, 0;
mul.lo.u32 %r10, %r3, 2;
mul.wide.u32 %rd6, %r10, 2;
add.s64 %rd7, %rd1, %rd6;
ld.global.b16 %h1, [%rd7];
ld.global.b16 %h2, [%rd7+2];
mul.wide.u32 %rd8, %r4, 2;
add.s64 %rd9, %rd2, %rd8;
ld.global.b16 %h3, [%rd9];
ld.global.b16 %h4, [%rd9+16];
fma.rn.f16 %h5, %h1, %h3, %h0;
fma.rn.f16 %h6, %h2, %h4, %h5;
st.global.b16 [%rd5], %h6;
ret;
}
"""


def test_a_gemm_with_16_bit_accumulators_is_proved() -> None:
    # f16 A 4 x 2, B 2 x 8, C 4 x 8 (row-major, 2-byte elements): lane = 8 m + n, C(m, n) = A(m, 0) B(0, n) +
    # A(m, 1) B(1, n) by two f16 fma, stored to bytes 2 lane..2 lane + 1
    assert check(F16_GEMM).verdict == "proved"
    r = check(F16_GEMM.replace("st.global.b16 [%rd5], %h6;", "st.global.b16 [%rd5], %h5;"))
    assert r.verdict == "refuted" and r.counterexample["held"] == "the accumulator of C(0, 0) after 1 k-products"


def test_a_definitely_wrong_element_is_reported_before_values_the_model_lost_track_of() -> None:
    # xor with the lane: lanes 1.. store values the model lost (OPAQUE); lane 31 stores nothing: C(3, 7) is
    # definitely wrong, so the answer is refuted there, not unknown at C(1, 0)
    r = check(gemm(store="mov.b32 %r40, {acc};\nxor.b32 %r41, %r40, %r2;\nsetp.ne.u32 %p5, %r2, 31;\n"
                         "@%p5 st.global.u32 [%rd5], %r41;"))
    assert r.verdict == "refuted" and r.counterexample["element"] == [3, 7]
    assert "C(3, 7) is never written" in r.reason


def test_a_wrong_element_of_a_vector_store_names_its_own_source_register() -> None:
    # lanes with odd n store their accumulator; then lanes with even n store {accumulator, A(m, 1)} as a v2 over
    # C(m, n), C(m, n + 1): C(m, odd n) end up holding A(m, 1), the first (column-major) being C(0, 1) by lane 0
    store = ("and.b32 %r40, %r2, 1;\nsetp.eq.u32 %p5, %r40, 1;\n@%p5 st.global.f32 [%rd5], {acc};\n"
             "@!%p5 st.global.v2.f32 [%rd5], {{{acc}, %f11}};")
    text = gemm(store=store)
    r = check(text)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["element"] == [0, 1] and cex["held"] == "A(0, 1)"
    assert cex["line"] == line_of(text, "@!%p5 st.global.v2.f32 [%rd5], {%f31, %f11};")
    assert (cex["lane"], cex["register"]) == (0, "%f11")


def test_a_store_just_past_cs_layout_leaves_c_alone() -> None:
    # C 4 x 8 f32 is bytes 0..127: a store at byte 128 is outside C (its elements still hold their accumulators)
    r = check(gemm(store=STORE + "\nmov.f32 %f60, 0f00000000;\nsetp.eq.u32 %p5, %r2, 0;\n"
                                 "@%p5 st.global.f32 [%rd5+128], %f60;"))
    assert r.verdict == "proved"


@pytest.mark.parametrize("byte", [0, 1, 3])
def test_a_byte_stored_into_an_accumulator_after_it_is_refuted_at_any_byte(byte: int) -> None:
    # lane 0 overwrites byte 0, 1 or 3 of C(0, 0) (its f32 accumulator) with a zero byte: C(0, 0) no longer holds
    # the accumulator for every input (a store to an odd byte address writes that byte: PTX st.u8)
    r = check(gemm(store=STORE + f"\nmov.u16 %h5, 0;\nsetp.eq.u32 %p5, %r2, 0;\n@%p5 st.global.u8 [%rd5+{byte}], %h5;"))
    assert r.verdict == "refuted" and r.counterexample["element"] == [0, 0]


def test_a_correct_kernel_traced_on_some_of_its_ctas_is_proved_with_no_other_finding() -> None:
    # two CTAs each compute all of C; only CTA 0 is traced: every element it stores is right
    r = check_mma(trace(parse_module(gemm()), block=32, grid=2, ctas=[(0, 0, 0)]), **SPECS)
    assert r.verdict == "proved" and r.findings == []


def test_traced_ctas_storing_accumulators_only_between_cs_elements_leave_the_answer_unknown() -> None:
    # C 4 x 8 with rows 16 elements apart: lane 8 m + n stores its accumulator to element 16 m + n + 8, a gap
    # between rows (or past the last row), never an element of C; with CTA 1 untraced, C may still be right
    text = gemm().replace("mul.wide.u32 %rd4, %r2, 4;",
                          "mad.lo.u32 %r5, %r3, 16, %r4;\nadd.u32 %r5, %r5, 8;\nmul.wide.u32 %rd4, %r5, 4;")
    r = check_mma(trace(parse_module(text), block=32, grid=2, ctas=[(0, 0, 0)]), **{**SPECS, "c": "pC@(4,8):(16,1)"})
    assert r.verdict == "unknown" and r.reason == "the traced CTAs store no element of C"


def test_an_element_only_partly_written_names_the_store_that_wrote_it() -> None:
    # lanes store only the high 16 bits of their f32 accumulator (bytes 4 lane + 2, + 3): C(0, 0)'s low half is
    # never written, its high half by lane 0's st.global.b16 -- the report names that store, its lane and register
    text = gemm(store="mov.b32 {{%h1, %h2}}, {acc};\nst.global.b16 [%rd5+2], %h2;")
    r = check(text)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["kind"] == "store" and cex["element"] == [0, 0]
    assert cex["line"] == line_of(text, "st.global.b16 [%rd5+2], %h2;") and cex["opcode"] == "st.global.b16"
    assert (cex["cta"], cex["warp"], cex["lane"], cex["register"]) == ([0, 0, 0], 0, 0, "%h2")


def test_a_wrong_element_of_a_16_bit_vector_store_names_its_own_source_register() -> None:
    # f16: lanes with odd n store their accumulator, then lanes with even n store {accumulator, A(m, 1)} as a v2
    # over C(m, n), C(m, n + 1): C(0, 1) (the first wrong, column-major) holds A(0, 1) from lane 0's %h2
    store = "st.global.b16 [%rd5], %h6;"
    v2 = "@!%p5 st.global.v2.b16 [%rd5], {%h6, %h2};"
    text = F16_GEMM.replace(store, "and.b32 %r11, %r1, 1;\nsetp.eq.u32 %p5, %r11, 1;\n@%p5 " + store + "\n" + v2)
    text = text.replace(".reg .b16 %h<8>;", ".reg .pred %p<8>;\n.reg .b16 %h<8>;")
    r = check(text)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["element"] == [0, 1] and cex["held"] == "A(0, 1)"
    assert (cex["line"], cex["lane"], cex["register"]) == (line_of(text, v2), 0, "%h2")


def test_two_warps_storing_different_16_bit_values_to_one_element_unordered_race() -> None:
    # warp 0 stores its f16 accumulators, warp 1 (lane l to C(l / 8, l % 8) as well) A(0, 0), no barrier
    text = F16_GEMM.replace("mov.u32 %r1, %tid.x;", "mov.u32 %r20, %tid.x;\nand.b32 %r1, %r20, 31;")
    text = text.replace("mov.b16 %h0, 0;", "mov.b16 %h0, 0;\nsetp.ge.u32 %p5, %r20, 32;\n@%p5 bra W1;")
    text = text.replace("st.global.b16 [%rd5], %h6;", "st.global.b16 [%rd5], %h6;\nbra END;\nW1:\n"
                        "ld.global.b16 %h7, [%rd1];\nst.global.b16 [%rd5], %h7;\nEND:")
    text = text.replace(".reg .b16 %h<8>;", ".reg .pred %p<8>;\n.reg .b16 %h<8>;").replace("%r<16>", "%r<32>")
    r = check(text, block=64)
    assert r.verdict == "refuted" and r.counterexample["kind"] == "global race"


def test_two_warps_storing_the_two_bytes_of_one_unit_do_not_race() -> None:
    # C(0, 0): warp 0 lane 0 stores byte 0 (a byte of its accumulator), warp 1 lane 0 byte 1 (a byte of A): two
    # distinct bytes, no race; C(0, 0) then holds byte mixtures the model does not follow (unknown), not a race
    store = ("setp.eq.u32 %p5, %r2, 0;\n@!%p5 st.global.f32 [%rd5], {acc};\nmov.b32 {{%h1, %h2}}, {acc};\n"
             "@%p5 st.global.u8 [%rd5], %h1;")
    warp1 = ("setp.eq.u32 %p6, %r2, 0;", "ld.global.u16 %h3, [%rd1];", "@%p6 st.global.u8 [%rd5+1], %h3;")
    r = check(gemm(store=store, warp1=warp1), block=64)
    assert r.verdict == "unknown" and [f.kind for f in r.findings] == ["store"]
    assert r.reason.startswith("C(0, 0) receives")


def test_a_wrong_element_of_a_vector_byte_store_names_a_register_whose_bytes_it_holds() -> None:
    # f16 C: every lane stores its accumulator; then lane 0 stores the four bytes {%q0, %q1, %q2, %q3} over C bytes
    # 0..3 (PTX st.v4.u8: element j to byte j) and stores C(0, 0) again: C(0, 1) = bytes 2, 3 holds %q2 and %q3
    store = "st.global.b16 [%rd5], %h6;"
    v4 = "@%p5 st.global.v4.u8 [%rd5], {%q0, %q1, %q2, %q3};"
    text = F16_GEMM.replace(store, "setp.eq.u32 %p5, %r1, 0;\nmov.u16 %q0, 1;\nmov.u16 %q1, 2;\nmov.u16 %q2, 3;\n"
                            "mov.u16 %q3, 4;\n" + store + "\n" + v4 + "\n@%p5 " + store)
    text = text.replace(".reg .b16 %h<8>;", ".reg .pred %p<8>;\n.reg .b16 %h<8>;\n.reg .b16 %q<4>;")
    r = check(text)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["element"] == [0, 1]
    assert (cex["line"], cex["lane"]) == (line_of(text, v4), 0) and cex["register"] in ("%q2", "%q3")


def test_an_element_whose_only_store_is_the_kernels_first_instruction_names_that_store() -> None:
    # the first instruction stores %h1 (never set: untagged) to the absolute address of C's bytes 2..3 (C, the
    # kernel's third parameter, is the launch's buffer 2, based at 3 * 2**44): the high half of C(0, 0), which lane
    # 0 (its only other writer) skips -- the report names that first store, at its own line
    first = f"st.global.b16 [{3 * 2 ** 44 + 2}], %h1;"
    text = gemm(store="setp.ne.u32 %p5, %r2, 0;\n@%p5 st.global.f32 [%rd5], {acc};")
    text = text.replace("ld.param.u64 %rd1, [pA];", first + "\nld.param.u64 %rd1, [pA];")
    r = check(text)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["kind"] == "store" and cex["element"] == [0, 0], r.reason
    assert cex["line"] == line_of(text, first) and cex["opcode"] == "st.global.b16"

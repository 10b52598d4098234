"""Element-wise float arithmetic of the data-flow model (layoutalg/kernel/dataflow/arith.py): element
classification and the result rule of its module doc, on tags packed by hand from the documented bit layout
(kind 60..62; GLOBAL buf 40..55, off 0..39, derived 58; ACC m 0..19, n 20..39, depth 40..55, part 56,
wide 57, derived 58), and the same rules on one-warp PTX snippets."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_dataflow_contract_harness import lane_units, what

from layoutalg.errors import KernelError
from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.arith import acc_units, classify, elementwise

DER = 1 << 58


def g(buf: int, off: int) -> int:
    return (1 << 60) | (buf << 40) | off


def acc(m: int, n: int, d: int, part: int = 0, wide: int = 0, der: int = 0) -> int:
    return (2 << 60) | (der << 58) | (wide << 57) | (part << 56) | (d << 40) | (n << 20) | m


def opq(op: int, why: int) -> int:
    return (3 << 60) | (why << 32) | op


def cls(rows: list[list[int]]) -> list[tuple[bool, bool, bool]]:
    none, is_acc, glob, _ = classify(np.array(rows, dtype=np.int64))
    return list(zip(np.asarray(none).tolist(), np.asarray(is_acc).tolist(), np.asarray(glob).tolist()))


def test_classify_16_bit_elements() -> None:
    rows = [[-1], [-2], [acc(1, 2, 3)], [acc(1, 2, 3, part=1)], [acc(1, 2, 3, wide=1)], [acc(1, 2, 3, der=1)],
            [g(0, 6)], [g(0, 7)], [opq(4, 1)]]
    assert cls(rows) == [(True, False, False), (True, False, False), (False, True, False), (False, False, False),
                         (False, False, False), (False, True, False), (False, False, True), (False, False, False),
                         (False, False, False)]


def test_classify_32_bit_elements() -> None:
    w = acc(5, 6, 7, 0, 1)
    rows = [[-1, -1], [-1, g(0, 2)], [w, w | (1 << 56)], [w, w], [acc(5, 6, 7), acc(5, 6, 7, 1)],
            [w, acc(5, 6, 8, 1, 1)], [g(1, 8), g(1, 10)], [g(1, 10), g(1, 12)], [g(1, 8), g(1, 12)],
            [g(1, 8), g(2, 10)], [opq(1, 1), opq(1, 1)]]
    assert cls(rows) == [(True, False, False), (False, False, False), (False, True, False), (False, False, False),
                         (False, False, False), (False, False, False), (False, False, True), (False, False, False),
                         (False, False, False), (False, False, False), (False, False, False)]


def test_classify_64_bit_elements_has_no_accumulator_and_aligned_consecutive_loads() -> None:
    rows = [[-1] * 4, [-1, -1, -1, g(0, 6)], [g(0, 16 + 2 * j) for j in range(4)],
            [g(0, 8 + 2 * j) for j in range(4)], [g(0, 12 + 2 * j) for j in range(4)],
            [g(0, 16), g(0, 18), g(0, 20), g(0, 24)], [acc(1, 1, 1, j % 2, 1) for j in range(4)]]
    assert cls(rows) == [(True, False, False), (False, False, False), (False, False, True), (False, False, True),
                         (False, False, False), (False, False, False), (False, False, False)]


@pytest.mark.parametrize("ue,derived", [(1, False), (1, True), (2, False), (2, True)])
def test_acc_units_re_encode_an_accumulator_for_the_element_width(ue: int, derived: bool) -> None:
    for ident in (acc(9, 3, 16, 0, 1), acc(9, 3, 16, 1, 0), acc(9, 3, 16, 0, 0, 1)):
        got = acc_units(np.array([ident], dtype=np.int64), ue, derived)[0].tolist()
        der = 1 if derived or ident & DER else 0
        assert got == [acc(9, 3, 16, j, int(ue == 2), der) for j in range(ue)]


def ew(groups: list[list[list[int]]], ue_out: int, buffers: set[int] = frozenset()) -> list[list[int]]:
    return elementwise([np.array(x, dtype=np.int64) for x in groups], ue_out, 7, set(buffers)).tolist()


MIX = opq(7, tg.W_MIX)


def test_one_accumulator_with_untagged_or_non_operand_loads_stays_that_accumulator_derived() -> None:
    a32 = [acc(2, 3, 4, 0, 1), acc(2, 3, 4, 1, 1)]
    want = [acc(2, 3, 4, 0, 1, 1), acc(2, 3, 4, 1, 1, 1)]
    assert ew([[a32], [[-1, -1]]], 2) == [want]
    assert ew([[[-1, -1]], [a32]], 2) == [want]
    assert ew([[a32], [[g(2, 0), g(2, 2)]]], 2, {0, 1}) == [want]        # beta * C + acc, C not an operand
    assert ew([[a32], [[g(1, 0), g(1, 2)]]], 2, {0, 1}) == [[MIX, MIX]]  # an operand element mixed in
    assert ew([[a32]], 1) == [[acc(2, 3, 4, 0, 0, 1)]]                   # cvt f16 <- f32 accumulator


def test_two_accumulators_or_an_opaque_source_give_opaque_mix() -> None:
    a32 = [acc(2, 3, 4, 0, 1), acc(2, 3, 4, 1, 1)]
    assert ew([[a32], [a32]], 2) == [[MIX, MIX]]
    assert ew([[a32], [[opq(1, 1), -1]]], 2) == [[MIX, MIX]]
    assert ew([[[-1, -1]], [[-1, opq(1, 1)]]], 2) == [[MIX, MIX]]


def test_one_non_operand_load_of_the_result_width_stays_that_load_derived() -> None:
    assert ew([[[g(2, 8), g(2, 10)]], [[-1, -1]]], 2) == [[g(2, 8) | DER, g(2, 10) | DER]]
    assert ew([[[g(2, 8), g(2, 10)]], [[-1, -1]]], 2, {0, 1}) == [[g(2, 8) | DER, g(2, 10) | DER]]
    assert ew([[[g(1, 8), g(1, 10)]]], 2, {0, 1}) == [[MIX, MIX]]         # an operand element: no
    assert ew([[[g(2, 8), g(2, 10)]], [[g(2, 8), g(2, 10)]]], 2) == [[MIX, MIX]]  # two loads
    assert ew([[[g(2, 8), g(2, 10)]]], 1) == [[MIX]]                      # another width: a conversion
    assert ew([[[-1, -1]], [[-2, -1]]], 2) == [[-1, -1]]


def test_elementwise_decides_each_row_on_its_own() -> None:
    a16 = acc(1, 1, 2)
    got = ew([[[a16], [a16], [-1], [g(3, 4)]], [[-1], [a16], [-1], [-1]]], 1)
    assert got == [[acc(1, 1, 2, 0, 0, 1)], [MIX], [-1], [g(3, 4) | DER]]


LD = ["ld.global.f32 %f1, [%rd4];", "ld.global.f32 %f2, [%rd4+4];"]
ST = "st.global.f32 [%rd5], %f3;"


def a(t: int, b: int, *extra: str) -> tuple:
    return ("A", 16 * t + b, *extra)


@pytest.mark.parametrize("ins", ["mul.f32 %f3, %f1, 0f40000000;", "neg.f32 %f3, %f1;", "abs.f32 %f3, %f1;",
                                 "add.rn.f32 %f3, 0f3F800000, %f1;", "max.f32 %f3, %f1, 0f00000000;"])
def test_float_op_on_one_loaded_element_and_constants_keeps_it_derived(ins: str) -> None:
    got = lane_units(LD + [ins, ST])
    assert all(row == [a(t, 0, "derived"), a(t, 2, "derived")] for t, row in enumerate(got))


@pytest.mark.parametrize("ins", ["add.f32 %f3, %f1, %f2;", "fma.rn.f32 %f3, %f1, %f2, 0f00000000;",
                                 "mul.f32 %f3, %f1, %f1;"])
def test_float_op_on_two_loaded_elements_is_opaque(ins: str) -> None:
    got = lane_units(LD + [ins, ST])
    assert all(row == [("opaque", tg.W_MIX)] * 2 for row in got)


def test_f16x2_arithmetic_acts_on_each_half_as_its_own_element() -> None:
    got = lane_units(["ld.global.u32 %r2, [%rd4];", "ld.global.u16 %h1, [%rd4+8];", "mov.b32 %r3, {%h1, %h2};",
                      "mul.f16x2 %r6, %r2, %r3;", "st.global.u32 [%rd5], %r6;"])
    assert all(row == [("opaque", tg.W_MIX), a(t, 2, "derived")] for t, row in enumerate(got))


def test_f64_arithmetic_keeps_an_aligned_loaded_element() -> None:
    got = lane_units(["ld.global.f64 %fd1, [%rd4+8];", "mul.f64 %fd2, %fd1, 0d4000000000000000;",
                      "st.global.f64 [%rd5], %fd2;"], units=4)
    assert all(row == [a(t, 8 + 2 * j, "derived") for j in range(4)] for t, row in enumerate(got))


def test_cvt_pack_to_f16x2_puts_the_first_source_in_the_high_half() -> None:
    # PTX ISA cvt.rn.f16x2.f32 d, a, b: d = {cvt(a) in the upper half, cvt(b) in the lower half}
    got = lane_units(LD + ["cvt.rn.f16x2.f32 %r6, %f1, 0f3F800000;", "st.global.u32 [%rd5], %r6;"])
    assert all(row == ["none", ("opaque", tg.W_MIX)] for row in got)
    got = lane_units(LD + ["cvt.rn.f16x2.f32 %r6, 0f3F800000, %f1;", "st.global.u32 [%rd5], %r6;"])
    assert all(row == [("opaque", tg.W_MIX), "none"] for row in got)


def test_float_cvt_of_a_loaded_element_to_another_width_is_opaque_and_of_untagged_is_none() -> None:
    got = lane_units(LD + ["cvt.rn.f16.f32 %h2, %f1;", "st.global.u16 [%rd5], %h2;"], units=1)
    assert all(row == [("opaque", tg.W_MIX)] for row in got)
    got = lane_units(LD + ["cvt.f32.f32 %f3, %f1;", ST])
    assert all(row == [a(t, 0, "derived"), a(t, 2, "derived")] for t, row in enumerate(got))
    got = lane_units(["mov.f32 %f1, 0f3F800000;", "cvt.rn.f16.f32 %h2, %f1;", "st.global.u16 [%rd5], %h2;"], units=1)
    assert all(row == ["none"] for row in got)


def test_unpacked_f16x2_conversion_is_the_default_rule() -> None:
    got = lane_units(["ld.global.u32 %r2, [%rd4];", "cvt.f32.f16x2 %f3, %r2;", ST])  # not a 1-element type
    assert all(row[0] == ("opaque", tg.W_UNMODELLED) for row in got)


def test_widening_float_cvt_of_a_loaded_element_makes_every_result_unit_opaque() -> None:
    # cvt.f32.f16: both units of the f32 are computed from the half; neither is zero by construction
    got = lane_units(["ld.global.u16 %h1, [%rd4];", "cvt.f32.f16 %f3, %h1;", ST])
    assert all(row == [("opaque", tg.W_MIX)] * 2 for row in got)
    assert ew([[[g(2, 0)]]], 2) == [[MIX, MIX]] and ew([[[-1]], [[-1]]], 2) == [[-1, -1]]


def test_or_with_a_widened_converted_value_does_not_claim_the_other_words_high_unit() -> None:
    got = lane_units(["ld.global.u16 %h1, [%rd4];", "cvt.f32.f16 %f3, %h1;", "mov.b32 %r4, %f3;",
                      "ld.global.u32 %r5, [%rd4+4];", "and.b32 %r7, %r5, -65536;", "or.b32 %r6, %r4, %r7;",
                      "st.global.u32 [%rd5], %r6;"])
    assert all(row[1][0] == "opaque" for row in got), got[:2]


def test_classify_a_32_bit_accumulator_needs_its_low_part_first_and_a_loaded_one_4_byte_alignment() -> None:
    hi = acc(5, 6, 7, 1, 1)  # the high unit of a 32-bit accumulator, twice: no element starts with a high part
    assert cls([[hi, hi], [g(1, 1), g(1, 3)], [g(1, 2), g(1, 4)]]) == [(False, False, False)] * 3  # offsets 1, 2: unaligned


def test_a_loaded_element_through_two_float_ops_stays_that_load_derived() -> None:
    # 2 * (2 * x) of one loaded element: still that element (alpha * beta * C), still marked derived
    got = lane_units(LD + ["mul.f32 %f4, %f1, 0f40000000;", "mul.f32 %f3, %f4, 0f40000000;", ST])
    assert all(row == [a(t, 0, "derived"), a(t, 2, "derived")] for t, row in enumerate(got))
    assert ew([[[g(2, 8) | DER, g(2, 10) | DER]], [[-1, -1]]], 2) == [[g(2, 8) | DER, g(2, 10) | DER]]


@pytest.mark.parametrize("lines,register", [
    (["ld.global.u16 %h1, [%rd4];", "mul.f32 %f3, %h1, 0f40000000;", ST], "%h1"),
    (LD + ["mul.f64 %fd2, %f1, 0d4000000000000000;", "st.global.f64 [%rd5], %fd2;"], "%f1"),
    (["ld.global.u16 %h1, [%rd4];", "mov.b32 %r3, 1006648320;", "mul.f16x2 %r6, %h1, %r3;", "st.global.u32 [%rd5], %r6;"],
     "%h1"),
])
def test_a_float_op_reading_a_register_narrower_than_its_type_is_refused(lines: list[str], register: str) -> None:
    # ptxas 13.0: "Arguments mismatch" (PTX ISA, Type Checking Rules: a float operand's register has its size);
    # the tracer used to read the missing units as untagged
    with pytest.raises(KernelError, match=rf"\({register}, a \.\w+ register\).*narrower"):
        lane_units(lines, units=4)


def test_a_cvt_to_f16x2_from_one_16_bit_value_is_not_followed() -> None:
    # PTX has no cvt.f16x2.f16 (f16x2 comes from two f32 sources): the default rule, OPAQUE "not followed"
    got = lane_units(["ld.global.u16 %h1, [%rd4];", "cvt.rn.f16x2.f16 %r6, %h1;", "st.global.u32 [%rd5], %r6;"])
    assert all(row == [("opaque", tg.W_UNMODELLED)] * 2 for row in got)


def test_an_mma_without_a_consumer_makes_its_results_opaque_and_leaves_its_sources() -> None:
    from kernel_dataflow_contract_harness import kernel

    from layoutalg.kernel.dataflow import flow, launch_of
    from layoutalg.kernel.ptx import parse_module

    body = ["ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];", "ld.global.v2.u32 {%r6, %r7}, [%rd4];",
            "mov.f32 %f1, 0f00000000;",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f2, %f3, %f4, %f5}, {%r2, %r3, %r4, %r5}, "
            "{%r6, %r7}, {%f1, %f1, %f1, %f1};",
            "shl.b32 %r8, %r1, 4;", "mov.u32 %r9, sm;", "add.u32 %r10, %r9, %r8;",
            "st.shared.v4.f32 [%r10], {%f2, %f3, %f4, %f5};", "st.shared.v4.u32 [%r10+512], {%r2, %r3, %r4, %r5};"]
    res = flow(launch_of(parse_module(kernel(body)), block=32))
    mma = next(i for i, x in enumerate(res.fn.body) if x.opcode.startswith("mma"))
    d_store, a_store = sorted(res.samples)
    _w, _i, _u, d_tags = res.samples[d_store].arrays()
    _w, _i, units, a_tags = res.samples[a_store].arrays()
    assert {what(int(t)) for t in d_tags} == {("opaque", tg.W_UNMODELLED)}
    assert {int(tg.opaque_fields(int(t))[0]) for t in d_tags} == {mma}
    # thread t stored its A registers (A bytes 16 t .. 16 t + 7, as loaded) at shared bytes 512 + 16 t
    assert all(what(int(t)) == ("A", int(u) * 2 - 512) for u, t in zip(units, a_tags))


def gemm_check(text: str):
    from kernel_dataflow_contract_harness import SPECS

    from layoutalg.kernel import check_mma, trace
    from layoutalg.kernel.ptx import parse_module

    return check_mma(trace(parse_module(text), block=32), **SPECS)


def test_an_accumulator_plus_a_scaled_operand_element_is_not_the_accumulator() -> None:
    # C = A B + 2 A(m, 1): the scaled A element is still an operand element (A is an mma operand), so the sum
    # mixes the accumulator with it -- OPAQUE, never the accumulator "derived" (which would prove C = A B)
    from kernel_dataflow_contract_harness import gemm

    r = gemm_check(gemm(tail=("mul.f32 %f40, %f11, 0f40000000;", "add.f32 %f41, %f31, %f40;"),
                        store="st.global.f32 [%rd5], %f41;"))
    assert r.verdict == "unknown"
    assert "(add.f32) through element-wise arithmetic that mixes accumulators or operand elements" in r.reason


def test_fma_lanes_that_are_no_k_product_follow_the_element_wise_rule() -> None:
    # the k = 1 fma multiplies A(m, 1) by B(1, n) in lanes 0..15 only; lanes 16..31 multiply it by 1.0: A(m, 1) +
    # acc, an operand element mixed in (OPAQUE), not some accumulator -- C(2, 0) (lane 16) is the first such
    from kernel_dataflow_contract_harness import gemm

    fma = "fma.rn.f32 %f31, %f11, %f21, %f30;"
    text = gemm().replace(fma, "setp.lt.u32 %p5, %r2, 16;\nselp.f32 %f25, %f21, 0f3F800000, %p5;\n"
                          "fma.rn.f32 %f31, %f11, %f25, %f30;")
    r = gemm_check(text)
    assert r.verdict == "unknown" and r.reason.startswith("C(2, 0) receives a value derived at PTX line")
    assert "(fma.rn.f32) through element-wise arithmetic that mixes accumulators or operand elements" in r.reason
    assert "warp 0 lane 16)" in r.reason


def test_integer_add_of_a_loaded_value_is_not_followed() -> None:
    # add.u32 shares the root "add" with the float ops but is no float element-wise op: its result depends on the
    # loaded word, so it is OPAQUE (the default rule), never left untagged
    got = lane_units(["ld.global.u32 %r2, [%rd4];", "add.u32 %r3, %r2, 1;", "st.global.u32 [%rd5], %r3;"])
    assert all(row == [("opaque", tg.W_UNMODELLED)] * 2 for row in got)


def test_a_16_bit_float_result_into_a_32_bit_register_is_refused() -> None:
    # ptxas 13.0 refuses a destination wider than the type outside ld/st/cvt ("Arguments mismatch")
    with pytest.raises(KernelError, match=r"\(%r6, a \.b32 register\).*wider"):
        lane_units(["ld.global.u16 %h1, [%rd4];", "mov.b16 %h2, 0x3C00;", "mul.f16 %r6, %h1, %h2;",
                    "st.global.u32 [%rd5], %r6;"])

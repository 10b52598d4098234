"""Origin keys of the mma check (layoutalg/kernel/dataflow/mma_check.py): ``pack_origin`` folds a (row origin,
column origin) pair, each within +-2**30, into one int64 and ``unpack_origin`` gives the pair back exactly;
distinct pairs give distinct keys.  The C-input check of an m16n8k16 f32 mma (tests/dataflow_synth.py's kernel,
fragments per the PTX ISA table: lane 0's c0, c1 are C(0, 0), C(0, 1) and c2, c3 are C(8, 0), C(8, 1), one f32
register each) names the register and what it holds."""

from __future__ import annotations

import itertools
import re
import struct

import numpy as np
import pytest
from dataflow_synth import MmaCase, mma_kernel, mma_truth
from kernel_dataflow_contract_harness import HEADER, SPECS, gemm

from layoutalg.errors import LayoutError
from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.dataflow.mma_check import pack_origin, unpack_origin
from layoutalg.kernel.ptx import parse_module

EDGES = [-(2**30), -(2**30) + 1, -65537, -2, -1, 0, 1, 2, 7, 65535, 65536, 2**31 // 2 - 1]


def test_origin_keys_round_trip_at_the_edges_of_their_range() -> None:
    pairs = list(itertools.product(EDGES, EDGES))
    o0 = np.array([p[0] for p in pairs], dtype=np.int64)
    o1 = np.array([p[1] for p in pairs], dtype=np.int64)
    keys = pack_origin(o0, o1)
    r0, r1 = unpack_origin(keys)
    assert r0.tolist() == o0.tolist() and r1.tolist() == o1.tolist()
    assert len(set(keys.tolist())) == len(pairs)


def test_origin_keys_are_ordered_by_row_then_column() -> None:
    keys = pack_origin(np.array([0, 0, 1, -1]), np.array([0, 5, -3, 2**30 - 1])).tolist()
    assert keys[3] < keys[0] < keys[1] < keys[2]
    assert unpack_origin(pack_origin(3, -4)) == (3, -4)


SYNTH = {"a": "pA@(16,32):(32,1)", "b": "pB@(32,8):(8,1)", "c": "pC@(16,8):(8,1)"}


def check_synth(text: str):
    return check_mma(trace(parse_module(text), block=32), **SYNTH)


def test_a_wrong_f32_c_input_names_the_register_of_its_element() -> None:
    # the second mma reads its C operand {%f4, %f6, %f5, %f7}: c1 (C(0, 1) in lane 0) is the register holding c2,
    # the accumulator of C(8, 0) after the first mma's 16 k-products
    r = check_synth(mma_kernel(MmaCase(mutations=[("chain", 1, 2)])))
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["kind"] == "accumulator" and cex["operand"] == "C"
    assert (cex["lane"], cex["element"], cex["register"]) == (0, 1, "%f6")
    assert cex["held"].startswith("the accumulator of C(8, 0) after 16 k-products")
    assert cex["expected"] == "the accumulator of C(0, 1), its old value or 0"


def test_a_constant_f32_c_input_is_reported_with_its_exact_bits() -> None:
    # the first mma's c1 starts as 0f3F800001 instead of 0: no accumulator, not zero, not C's old value
    text = mma_kernel(MmaCase()).replace("mov.f32 %f1, 0f00000000;", "mov.f32 %f1, 0f3F800001;")
    r = check_synth(text)
    cex = r.counterexample
    value = struct.unpack("<f", struct.pack("<I", 0x3F800001))[0]
    assert r.verdict == "refuted" and cex["kind"] == "accumulator"
    assert (cex["lane"], cex["element"], cex["register"]) == (0, 1, "%f1")
    assert cex["held"] == f"the constant {value!r} (bits 0x3f800001), not loaded from A or B"


def test_problems_past_the_tag_fields_are_rejected_naming_the_limits() -> None:
    # tags hold m, n in 20 bits and the depth in 16: M, N < 2**20 and K <= 65535 (the scalar GEMM kernel serves)
    t = trace(parse_module(gemm()), block=32)

    def specs(m: int, n: int, k: int) -> dict[str, str]:
        return {"a": f"pA@({m},{k}):({k},1)", "b": f"pB@({k},{n}):({n},1)", "c": f"pC@({m},{n}):({n},1)"}

    for m, n, k in ((1, 2**20, 1), (2**20, 1, 1), (1, 1, 65536)):
        with pytest.raises(LayoutError, match=rf"problem {m} x {n} x {k}: the check tags M, N < 1048576 and "
                                              r"K <= 65535"):
            check_mma(t, **specs(m, n, k))
    assert check_mma(t, **specs(1, 1, 65535)).verdict == "refuted"  # at the limit: checked (B's row 1 is A's k)


def test_racing_stores_past_the_end_of_c_are_not_checked() -> None:
    # C is 4 x 8 f32 (bytes 0..127): warp 0's lane 0 also stores its accumulator at byte 128 and warp 1 stores 0
    # there with no barrier; that word is not C, so the GEMM stays proved -- and the same pair on C's last element
    # is a race
    def kernel(byte: int) -> str:
        return gemm(tail=("setp.eq.u32 %p2, %r2, 0;", f"@%p2 st.global.f32 [%rd3+{byte}], %f31;"),
                    warp1=("mov.f32 %f50, 0f00000000;", f"st.global.f32 [%rd3+{byte}], %f50;"))

    assert check_mma(trace(parse_module(kernel(128)), block=64), **SPECS).verdict == "proved"
    r = check_mma(trace(parse_module(kernel(124)), block=64), **SPECS)
    assert r.verdict == "refuted" and (r.counterexample or {}).get("kind") == "global race"


def _fragment_from(text: str, role: str, other: str) -> str:
    """``role``'s loads read the other operand's buffer (same offsets)."""
    src, dst = {"A": "%rd1", "B": "%rd2"}[role], {"A": "%rd1", "B": "%rd2"}[other]
    return re.sub(rf"add\.s64 (%rd\d+), {src},", rf"add.s64 \1, {dst},", text)


def _mma_registers(text: str, i: int, role: str) -> list[str]:
    line = [x for x in text.split("\n") if "mma.sync" in x][i]
    groups = re.findall(r"\{([^}]*)\}", line)
    return [x.strip() for x in groups[{"D": 0, "A": 1, "B": 2, "C": 3}[role]].split(",")]


@pytest.mark.parametrize("role, held, position", [
    # PTX ISA m16n8k16 .f16: a0 of lane 0 is A(0, 0), read from B's buffer at offset 0 = B(0, 0) (a1: B(0, 1),
    # lane 1's a0: B(0, 2)); b0 of lane 0 is B(0, 0), offset 0 = A(0, 0) (b1: A(0, 8), lane 1's b0: A(0, 16))
    ("A", "B(0, 0)", "(0, 0)"), ("B", "A(0, 0)", "(0, 0)")])
def test_a_fragment_without_any_element_of_its_matrix_is_refuted_at_lane_0s_first_half(role: str, held: str,
                                                                                         position: str) -> None:
    text = _fragment_from(mma_kernel(MmaCase()), role, "B" if role == "A" else "A")
    r = check_synth(text)
    cex = r.counterexample
    reg = _mma_registers(text, 0, role)[0]
    assert r.verdict == "refuted" and (cex["kind"], cex["operand"], cex["warp"], cex["lane"]) == ("operand", role, 0, 0)
    assert (cex["register"], cex["element"], cex["half"], cex["held"]) == (reg, 0, 0, held)
    assert cex["expected"] == f"an element of {role} (at fragment position {position} of the tile)"
    assert r.reason.endswith(f"no {role} element in any lane of this mma, so its tile cannot be derived (lane 0 "
                             f"register {reg} ({role.lower()}0) holds {held})")


def test_a_fragment_without_any_a_element_in_the_second_warp_names_that_warp() -> None:
    # warp 1 (threads 32..63) reads its A fragment from B's buffer; warp 0 is right
    text = mma_kernel(MmaCase()).replace("ld.param.u64 %rd3, [pC];", "ld.param.u64 %rd3, [pC];\n  mov.u32 %r2, "
                                         "%tid.x;\n  setp.ge.u32 %p7, %r2, 32;\n  @%p7 mov.b64 %rd1, %rd2;")
    r = check_mma(trace(parse_module(text), block=64), **SYNTH)
    cex = r.counterexample or {}
    assert r.verdict == "refuted" and (cex["kind"], cex["operand"], cex["warp"], cex["lane"]) == ("operand", "A", 1, 0)


def test_an_element_the_tile_places_past_the_matrix_edge_must_be_zero() -> None:
    # A is 16 x 24 (row stride 32): the second mma's A tile covers k = 16..31, and lane 0's a4 is A(0, 24)
    r = check_mma(
        trace(parse_module(mma_kernel(MmaCase())), block=32), a="pA@(16,24):(32,1)", b="pB@(24,8):(8,1)",
        c="pC@(16,8):(8,1)")
    cex = r.counterexample or {}
    assert r.verdict == "refuted" and (cex["operand"], cex["lane"], cex["element"]) == ("A", 0, 4)
    assert cex["expected"] == "0 (its position A(0, 24) lies outside the 16 x 24 matrix)"


def test_a_b_fragment_of_another_k_tile_is_judged_against_the_a_fragments_tile() -> None:
    # every B element of the first mma is moved one row down (k tile origin 1, A's is 0)
    text = mma_kernel(MmaCase(mutations=[("B", 0, lane, i, 8) for lane in range(32) for i in range(4)]))
    cex = check_synth(text).counterexample
    assert (cex["kind"], cex["operand"], cex["lane"], cex["element"], cex["held"]) == ("operand", "B", 0, 0, "B(1, 0)")
    assert cex["expected"] == ("B(0, 0) (the A fragment is the tile at k = 0; most B elements here are from the "
                               "tile at k = 1)")


def test_an_uninitialised_c_input_is_named_as_unknown_at_trace_time() -> None:
    r = check_synth(mma_kernel(MmaCase()).replace("mov.f32 %f1, 0f00000000;", ""))
    cex = r.counterexample
    assert r.verdict == "refuted" and (cex["kind"], cex["lane"], cex["element"], cex["register"]) == \
        ("accumulator", 0, 1, "%f1")
    assert cex["held"] == "an untagged value unknown at trace time (uninitialised, or computed from such a value)"


@pytest.mark.parametrize("c01, c23, element, where", [("0x3C010000", "0", 1, "C(0, 1)"),
                                                      ("0", "0x00003C01", 2, "C(8, 0)")])
def test_a_constant_f16_c_input_is_named_with_the_bits_of_its_half(c01: str, c23: str, element: int,
                                                                     where: str) -> None:
    # an f16-accumulating mma (c0, c1 in the first C register, low half first; c2, c3 in the second) whose C
    # holds 0x3C01 (1.0009765625) in one half and zeros elsewhere
    base = mma_kernel(MmaCase())
    first = [x for x in base.split("\n") if "mma.sync" in x][0]
    a, b = ("{" + ", ".join(_mma_registers(base, 0, x)) + "}" for x in "AB")
    text = base.replace(first, f"  mov.b32 %r1000, {c01};\n  mov.b32 %r1001, {c23};\n  mma.sync.aligned.m16n8k16.row."
                               f"col.f16.f16.f16.f16 {{%r1002, %r1003}}, {a}, {b}, {{%r1000, %r1001}};")
    r = check_synth(text.replace(".reg .b32 %r<1024>;", ".reg .b32 %r<1100>;"))
    cex = r.counterexample
    assert r.verdict == "refuted" and (cex["kind"], cex["lane"], cex["element"]) == ("accumulator", 0, element)
    assert cex["register"] == ("%r1000" if element < 2 else "%r1001")
    assert cex["held"] == f"the constant {1 + 2**-10!r} (bits 0x3c01)"
    assert cex["expected"] == f"the accumulator of {where}, its old value or 0"


def test_an_accumulator_plus_an_operand_element_is_not_an_accumulator() -> None:
    # acc + A(m, 1) mixes an accumulator with an A element: not the accumulator (alpha * acc would be one)
    text = gemm(tail=("add.f32 %f40, %f31, %f11;",), store="st.global.f32 [%rd5], %f40;")
    r = check_mma(trace(parse_module(text), block=32), **SPECS)
    assert r.verdict == "unknown"
    line = text.split("\n").index("add.f32 %f40, %f31, %f11;") + 1
    assert r.reason == (f"C receives a value derived at PTX line {line} (add.f32) through element-wise arithmetic "
                        "that mixes accumulators or operand elements and no accumulator the data flow followed")
    scaled = gemm(tail=("mul.f32 %f40, %f31, 0f40000000;",), store="st.global.f32 [%rd5], %f40;")
    assert check_mma(trace(parse_module(scaled), block=32), **SPECS).verdict == "proved"


def test_the_result_of_an_mma_with_a_wrong_element_is_no_accumulator() -> None:
    # lane 3's a2 of the first mma is moved one column: that mma is refuted, and the second mma's C input is its
    # unproved result, not an accumulator
    text = mma_kernel(MmaCase(mutations=[("A", 0, 3, 2, 1)]))
    first, second = (i + 1 for i, x in enumerate(text.split("\n")) if "mma.sync" in x)
    r = check_synth(text)
    assert r.verdict == "refuted" and (r.counterexample["kind"], r.counterexample["line"]) == ("operand", first)
    c_inputs = [f for f in r.findings if f.kind == "accumulator"]
    assert [(f.verdict, f.fields["line"], f.fields["held"]) for f in c_inputs] == [
        ("unknown", second, f"a value derived at PTX line {first} (mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32) "
                            "through an mma or fma whose operands were not all proved (see the counterexample)")]


def test_a_thread_overwriting_a_half_word_it_stored_is_no_race_in_ctas_off_the_origin() -> None:
    # grid 3 x 3 x 3 of one-warp CTAs, CTAs (1, 1, 1) and (2, 2, 2) traced: each thread stores a 16-bit zero to
    # C word x (x = ctaid.x), then a loaded f32 over the whole word -- the same thread in program order, so no race
    # (and no product at all: nothing to check)
    text = "\n".join([HEADER, ".visible .entry g(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
                      ".reg .b16 %h<4>;", ".reg .b32 %r<16>;", ".reg .f32 %f<4>;", ".reg .b64 %rd<16>;",
                      "ld.param.u64 %rd1, [pA];", "ld.param.u64 %rd3, [pC];", "mov.u32 %r1, %ctaid.x;",
                      "mul.wide.u32 %rd4, %r1, 4;", "add.s64 %rd5, %rd3, %rd4;", "mov.b16 %h1, 0;",
                      "st.global.b16 [%rd5], %h1;", "ld.global.f32 %f1, [%rd1];", "st.global.f32 [%rd5], %f1;", "ret;",
                      "}", ""])
    r = check_mma(trace(parse_module(text), grid=(3, 3, 3), block=32, ctas=[(1, 1, 1), (2, 2, 2)]), **SPECS)
    assert r.verdict == "unknown" and [f.kind for f in r.findings] == ["no products"]


def test_a_wrong_c_input_in_the_second_warp_names_its_thread_register_and_element() -> None:
    # threads 33..63 (warp 1, lanes 1..31) start c3 at 1.0: the first is lane 1, whose c3 is C(8, 2 * 1 + 1)
    text = mma_kernel(MmaCase()).replace("mov.f32 %f3, 0f00000000;", "mov.f32 %f3, 0f00000000;\n  mov.u32 %r2, "
                                         "%tid.x;\n  setp.ge.u32 %p7, %r2, 33;\n  @%p7 mov.f32 %f3, 0f3F800000;")
    r = check_mma(trace(parse_module(text), block=64), **SYNTH)
    cex = r.counterexample or {}
    assert r.verdict == "refuted" and (cex["kind"], cex["warp"], cex["lane"]) == ("accumulator", 1, 1)
    assert (cex["element"], cex["register"]) == (3, "%f3")
    assert cex["held"] == "the constant 1.0 (bits 0x3f800000), not loaded from A or B"
    assert cex["expected"] == "the accumulator of C(8, 3), its old value or 0"


def test_a_c_input_whose_low_half_the_model_cannot_follow_is_unknown() -> None:
    # c0's low 16 bits come from popc of loaded data (not followed), its high 16 bits are a known zero
    text = mma_kernel(MmaCase()).replace("mov.f32 %f0, 0f00000000;", "ld.global.u32 %r3, [%rd1];\n  popc.b32 %r3, %r3;"
                                         "\n  mov.b32 {%h100, %h101}, %r3;\n  mov.b16 %h101, 0;\n  mov.b32 %f0, "
                                         "{%h100, %h101};")
    r = check_synth(text)
    lines = text.split("\n")
    popc = lines.index("  popc.b32 %r3, %r3;") + 1
    first = [i + 1 for i, x in enumerate(lines) if "mma.sync" in x][0]
    assert r.verdict == "unknown" and r.counterexample is None
    assert r.reason == (f"PTX line {first}: the C input of element c0 in lane 0 is a value derived at PTX line {popc} "
                        "(popc.b32) through an instruction the data-flow model does not follow, not the accumulator "
                        "of C(0, 0), its old value or 0")


def test_an_a_fragment_with_both_a_stray_a_element_and_a_non_a_element_is_refuted_at_the_stray_one() -> None:
    # first mma, lane 0's a0 reads A(0, 1) (PTX ISA m16n8k16: it must be A(0, 0)) and lane 1's a0 reads element
    # 2 + 600 of A's buffer, past the 16 x 32 matrix: one warp whose A elements disagree and which holds a non-A one
    case = MmaCase(mutations=[("A", 0, 0, 0, 1), ("A", 0, 1, 0, 600)])
    assert not mma_truth(case)
    text = mma_kernel(case)
    r = check_synth(text)
    cex = r.counterexample or {}
    assert r.verdict == "refuted" and (cex["kind"], cex["operand"], cex["warp"], cex["lane"], cex["element"]) == \
        ("operand", "A", 0, 0, 0)
    assert (cex["register"], cex["held"], cex["expected"]) == (_mma_registers(text, 0, "A")[0], "A(0, 1)", "A(0, 0)")


@pytest.mark.parametrize("element, held, expected, reg_i, half", [
    # PTX ISA m16n8k16 .f16 A fragment, lane 0: a1 is A(0, 1) (the high half of a0's register), a2 is A(8, 0)
    # (the low half of the second register); each load is moved one column to the right
    (1, "A(0, 2)", "A(0, 1)", 0, 1), (2, "A(8, 1)", "A(8, 0)", 1, 0)])
def test_a_stray_f16_element_names_its_register_and_half(element: int, held: str, expected: str, reg_i: int,
                                                         half: int) -> None:
    text = mma_kernel(MmaCase(mutations=[("A", 0, 0, element, 1)]))
    r = check_synth(text)
    cex = r.counterexample or {}
    assert r.verdict == "refuted" and (cex["kind"], cex["operand"], cex["warp"], cex["lane"]) == ("operand", "A", 0, 0)
    assert (cex["element"], cex["half"], cex["held"], cex["expected"]) == (element, half, held, expected)
    assert cex["register"] == _mma_registers(text, 0, "A")[reg_i]


def _tf32_kernel(moved: tuple[int, int] | None = None) -> str:
    """m16n8k8 tf32 mma of A 16 x 8 and B 8 x 8 (row-major f32) into C 16 x 8 (row-major f32), fragments per the
    PTX ISA (g = lane / 4, t = lane % 4): a_i = A(g + 8 (i % 2), t + 4 (i / 2)), b_j = B(t + 4 j, g), c0, c1 =
    C(g, 2t), C(g, 2t + 1), c2, c3 the same 8 rows down.  ``moved`` = (thread, i): that thread's a_i load reads
    one column to the right."""
    thread, moved_i = moved if moved is not None else (-1, -1)
    out = [HEADER, ".visible .entry tf32(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
           ".reg .pred %p<4>;", ".reg .b32 %r<64>;", ".reg .f32 %f<32>;", ".reg .b64 %rd<64>;",
           "ld.param.u64 %rd1, [pA];", "ld.param.u64 %rd2, [pB];", "ld.param.u64 %rd3, [pC];",
           "mov.u32 %r1, %laneid;", "mov.u32 %r9, %tid.x;", "shr.u32 %r2, %r1, 2;", "and.b32 %r3, %r1, 3;",
           f"setp.eq.u32 %p1, %r9, {max(thread, 0)};",
           "mad.lo.u32 %r4, %r2, 8, %r3;", "mul.wide.u32 %rd4, %r4, 4;", "add.s64 %rd5, %rd1, %rd4;"]
    for i in range(4):
        out.append(f"add.s64 %rd{10 + i}, %rd5, {256 * (i % 2) + 16 * (i // 2)};")
        if i == moved_i:
            out.append(f"@%p1 add.s64 %rd{10 + i}, %rd{10 + i}, 4;")
        out.append(f"ld.global.b32 %r{10 + i}, [%rd{10 + i}];")
    out += ["mad.lo.u32 %r5, %r3, 8, %r2;", "mul.wide.u32 %rd6, %r5, 4;", "add.s64 %rd7, %rd2, %rd6;",
            "ld.global.b32 %r20, [%rd7];", "ld.global.b32 %r21, [%rd7+128];"]
    out += [f"mov.f32 %f{k}, 0f00000000;" for k in range(4)]
    out += ["mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f4, %f5, %f6, %f7}, {%r10, %r11, %r12, %r13}, "
            "{%r20, %r21}, {%f0, %f1, %f2, %f3};",
            "shl.b32 %r6, %r3, 1;", "mad.lo.u32 %r7, %r2, 8, %r6;", "mul.wide.u32 %rd8, %r7, 4;",
            "add.s64 %rd9, %rd3, %rd8;", "st.global.f32 [%rd9], %f4;", "st.global.f32 [%rd9+4], %f5;",
            "st.global.f32 [%rd9+256], %f6;", "st.global.f32 [%rd9+260], %f7;", "ret;", "}", ""]
    return "\n".join(out)


TF32 = {"a": "pA@(16,8):(8,1)", "b": "pB@(8,8):(8,1)", "c": "pC@(16,8):(8,1)"}


@pytest.mark.parametrize("thread, i, warp, lane, held, expected", [
    # thread 0 (g = 0, t = 0): a1 is A(8, 0); thread 37 is warp 1's lane 5 (g = 1, t = 1): a3 is A(9, 5)
    (0, 1, 0, 0, "A(8, 1)", "A(8, 0)"), (37, 3, 1, 5, "A(9, 6)", "A(9, 5)")])
def test_a_stray_tf32_element_names_its_warp_lane_and_own_register(thread: int, i: int, warp: int, lane: int,
                                                                   held: str, expected: str) -> None:
    # one 32-bit register per tf32 element: a_i is the i-th A register, and no half is named
    assert check_mma(trace(parse_module(_tf32_kernel()), block=32), **TF32).verdict == "proved"
    r = check_mma(trace(parse_module(_tf32_kernel((thread, i))), block=64 if thread >= 32 else 32), **TF32)
    cex = r.counterexample or {}
    assert r.verdict == "refuted" and (cex["kind"], cex["operand"], cex["warp"], cex["lane"]) == \
        ("operand", "A", warp, lane)
    assert (cex["element"], cex["register"], cex["half"]) == (i, f"%r{10 + i}", None)
    assert (cex["held"], cex["expected"]) == (held, expected)


def _f16_kernel(a: str = "load", b: str = "load", c: str = "zero") -> str:
    """m16n8k16 f16 mma with an f16 accumulator: A 16 x 16 row-major, B 16 x 8 column-major, C 16 x 8 row-major
    (all f16), fragments per the PTX ISA (g = lane / 4, t = lane % 4): A register j holds A(g + 8 (j % 2),
    2t + 8 (j / 2)) and the next column, B register j B(2t + 8j, g) and the next row, C register j C(g + 8j, 2t)
    and the next column -- each one aligned 32-bit load.  ``a`` / ``b``: "load" or a constant word;
    ``c``: "zero", "old" (C's own elements, loaded), "shifted" (the elements one row down) or a constant word."""
    out = [HEADER, ".visible .entry f16(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
           ".reg .b32 %r<64>;", ".reg .b64 %rd<64>;",
           "ld.param.u64 %rd1, [pA];", "ld.param.u64 %rd2, [pB];", "ld.param.u64 %rd3, [pC];",
           "mov.u32 %r1, %laneid;", "shr.u32 %r2, %r1, 2;", "and.b32 %r3, %r1, 3;", "shl.b32 %r4, %r3, 1;",
           "mad.lo.u32 %r5, %r2, 16, %r4;", "mul.wide.u32 %rd4, %r5, 2;", "add.s64 %rd5, %rd1, %rd4;",
           "add.s64 %rd6, %rd2, %rd4;", "mad.lo.u32 %r6, %r2, 8, %r4;", "mul.wide.u32 %rd7, %r6, 2;",
           "add.s64 %rd8, %rd3, %rd7;"]
    for j in range(4):
        out.append(f"ld.global.b32 %r{10 + j}, [%rd5+{256 * (j % 2) + 16 * (j // 2)}];" if a == "load" else
                   f"mov.b32 %r{10 + j}, {a};")
    for j in range(2):
        out.append(f"ld.global.b32 %r{20 + j}, [%rd6+{16 * j}];" if b == "load" else f"mov.b32 %r{20 + j}, {b};")
    for j in range(2):
        if c in ("old", "shifted"):
            out.append(f"ld.global.b32 %r{30 + j}, [%rd8+{128 * j + (16 if c == 'shifted' else 0)}];")
        else:
            out.append(f"mov.b32 %r{30 + j}, {0 if c == 'zero' else c};")
    out += ["mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r40, %r41}, {%r10, %r11, %r12, %r13}, "
            "{%r20, %r21}, {%r30, %r31};",
            "st.global.b32 [%rd8], %r40;", "st.global.b32 [%rd8+128], %r41;", "ret;", "}", ""]
    return "\n".join(out)


F16 = {"a": "pA@(16,16):(16,1)", "b": "pB@(16,8):(1,16)", "c": "pC@(16,8):(8,1)"}


def check_f16(**kw: str):
    return check_mma(trace(parse_module(_f16_kernel(**kw)), block=32), **F16)


def test_an_f16_c_input_loaded_from_its_own_c_elements_starts_the_chain() -> None:
    # D = A B + C with C's old f16 values: c0, c1 of lane 0 are C(0, 0), C(0, 1) at bytes 0 and 2 of C
    assert check_f16().verdict == "proved"
    assert check_f16(c="old").verdict == "proved"
    # the elements one row down are another element's old value
    r = check_f16(c="shifted")
    cex = r.counterexample or {}
    assert r.verdict == "refuted" and (cex["kind"], cex["lane"], cex["element"], cex["register"]) == \
        ("accumulator", 0, 0, "%r30")
    assert cex["expected"] == "the accumulator of C(0, 0), its old value or 0"


def test_the_c_input_of_an_mma_refuted_for_its_a_fragment_and_with_zero_b_is_not_judged() -> None:
    # A holds the constant 1.0 (0x3C00) in every half: no A element, so the mma is refuted at A; B is all zeros
    # (no product) and C holds 1.0 too: the one finding of that mma is A's, not C's as well
    r = check_f16(a="0x3C003C00", b="0", c="0x3C003C00")
    assert r.verdict == "refuted" and (r.counterexample or {}).get("operand") == "A"
    assert [f for f in r.findings if f.kind == "accumulator"] == []
    # with B loaded, C's constant is judged as well
    r = check_f16(c="0x3C003C00")
    assert [(f.fields["lane"], f.fields["element"]) for f in r.findings if f.kind == "accumulator"] == [(0, 0)]


def test_a_tie_between_two_tile_origins_goes_to_lane_0s_tile() -> None:
    # the second mma's A tile is k = 16..31; lanes 16-31 (rows 4-7 and 12-15) load every element 16 columns to
    # the left: 128 elements say origin (0, 0), 128 say (0, 16).  The tie goes to lane 0's tile (0, 16), so the
    # counterexample is lane 16's a0 (row 4, PTX ISA: g = lane / 4 = 4, k = 2 (lane % 4) = 0), which holds A(4, 0)
    # where A(4, 16) belongs; the smallest key (0, 0) would have blamed lane 0, whose elements are right.
    text = mma_kernel(MmaCase(mutations=[("A", 1, lane, i, -16) for lane in range(16, 32) for i in range(8)]))
    cex = check_synth(text).counterexample or {}
    assert (cex["kind"], cex["operand"], cex["lane"], cex["element"]) == ("operand", "A", 16, 0)
    assert (cex["held"], cex["expected"]) == ("A(4, 0)", "A(4, 16)")

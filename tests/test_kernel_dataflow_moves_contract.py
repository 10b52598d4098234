"""Bit moves of the data-flow model (layoutalg/kernel/dataflow/moves.py) on one-warp PTX snippets: a 16-bit
unit moved whole keeps the tag of the loaded bytes (PTX ISA semantics of mov packing, cvt, selp, prmt,
shifts, masks, shfl and movmatrix written out here), a unit made of pieces is OPAQUE, a vacated unit is zero.

Thread t loads A bytes 16 t .. 16 t + 15 (harness), so ``("A", 16 t + b)`` is "A's bytes b, b + 1 of thread t"."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import lane_units
from kernel_interp_harness import lanes, launch

from layoutalg.errors import KernelError
from layoutalg.kernel.dataflow import tags as tg

LD2 = ["ld.global.u32 %r2, [%rd4];", "ld.global.u32 %r3, [%rd4+4];"]  # r2 = units A0 A2, r3 = units A4 A6
ST = "st.global.u32 [%rd5], %r6;"
SPLIT, BYTE, GUARD, UNMODELLED = ("opaque", tg.W_SPLIT), ("opaque", tg.W_BYTE), ("opaque", tg.W_GUARD), \
    ("opaque", tg.W_UNMODELLED)


def a(t: int, b: int) -> tuple[str, int]:
    return ("A", 16 * t + b)


def test_mov_packs_two_halves_low_first_and_unpacks_them_back() -> None:
    got = lane_units(["ld.global.u16 %h1, [%rd4];", "ld.global.u16 %h2, [%rd4+6];", "mov.b32 %r6, {%h1, %h2};", ST])
    assert all(row == [a(t, 0), a(t, 6)] for t, row in enumerate(got))
    got = lane_units(LD2[:1] + ["mov.b32 {%h1, %h2}, %r2;", "mov.b32 %r6, {%h2, %h1};", ST])
    assert all(row == [a(t, 2), a(t, 0)] for t, row in enumerate(got))


def test_mov_b64_unpacks_into_two_words_of_two_units_each() -> None:
    got = lane_units(["ld.global.u64 %rd6, [%rd4];", "mov.b64 {%r7, %r6}, %rd6;", ST])
    assert all(row == [a(t, 4), a(t, 6)] for t, row in enumerate(got))
    got = lane_units(["ld.global.u64 %rd6, [%rd4];", "mov.b64 {%r6, %r7}, %rd6;", ST])
    assert all(row == [a(t, 0), a(t, 2)] for t, row in enumerate(got))


def test_packing_or_unpacking_bytes_makes_tagged_units_opaque() -> None:
    got = lane_units(["ld.global.u16 %h1, [%rd4];", "mov.b16 {%c1, %c2}, %h1;", "mov.b16 %h3, {%c2, %c1};",
                      "cvt.u32.u16 %r6, %h3;", ST])
    assert all(row[0][0] == "opaque" and row[1] == "zero" for row in got)


def test_plain_mov_copies_the_units_of_its_width() -> None:
    got = lane_units(LD2[:1] + ["mov.b32 %r6, %r2;", ST])
    assert all(row == [a(t, 0), a(t, 2)] for t, row in enumerate(got))


@pytest.mark.parametrize("cvt,expect", [
    ("cvt.u16.u32 %h1, %r2;\ncvt.u32.u16 %r6, %h1;", lambda t: [a(t, 0), "zero"]),   # truncate, zero-extend
    ("cvt.s16.s32 %h1, %r2;\ncvt.s32.s16 %r6, %h1;", lambda t: [a(t, 0), SPLIT]),    # sign-extend: data bits
    ("cvt.u32.u32 %r6, %r2;", lambda t: [a(t, 0), a(t, 2)]),
    ("cvt.u8.u32 %c1, %r2;\ncvt.u32.u8 %r6, %c1;", lambda t: [BYTE, "zero"]),        # an 8-bit piece of a unit
])
def test_integer_cvt_keeps_whole_units_and_fills_the_extension(cvt: str, expect) -> None:
    got = lane_units(LD2[:1] + cvt.split("\n") + [ST])
    assert all(row == expect(t) for t, row in enumerate(got)), got[:2]


def test_cvt_u64_u32_keeps_two_units_and_zero_extends_the_rest() -> None:
    got = lane_units(LD2[:1] + ["cvt.u64.u32 %rd6, %r2;", "st.global.u64 [%rd5], %rd6;"], units=4)
    assert all(row == [a(t, 0), a(t, 2), "zero", "zero"] for t, row in enumerate(got))


def test_selp_on_a_known_predicate_picks_per_lane() -> None:
    got = lane_units(LD2 + ["setp.lt.u32 %p1, %r1, 16;", "selp.b32 %r6, %r2, %r3, %p1;", ST])
    assert all(row == ([a(t, 0), a(t, 2)] if t < 16 else [a(t, 4), a(t, 6)]) for t, row in enumerate(got))


def test_selp_of_an_untagged_side_gives_none_where_picked() -> None:
    got = lane_units(LD2[:1] + ["setp.lt.u32 %p1, %r1, 16;", "selp.b32 %r6, %r2, 7, %p1;", ST])
    assert all(row == ([a(t, 0), a(t, 2)] if t < 16 else ["none", "none"]) for t, row in enumerate(got))
    got = lane_units(LD2[:1] + ["setp.lt.u32 %p1, %r1, 16;", "selp.b32 %r6, 7, %r2, %p1;", ST])
    assert all(row == (["none", "none"] if t < 16 else [a(t, 0), a(t, 2)]) for t, row in enumerate(got))


def test_selp_on_a_predicate_of_loaded_data_is_opaque() -> None:
    got = lane_units(LD2 + ["setp.lt.u32 %p1, %r3, 16;", "selp.b32 %r6, %r2, 5, %p1;", ST])
    assert all(row == [GUARD, GUARD] for row in got)


@pytest.mark.parametrize("setp", ["setp.lt.u32 %p1, %r3, 16;", "setp.ge.u32 %p1, %r3, 16;"])
def test_selp_on_a_predicate_of_loaded_data_between_zero_and_a_constant_is_not_zero(setp: str) -> None:
    # %r7 = %r2 & 0 is zero in every unit; selp picks it or 5 by loaded data, so the result is 0 on some
    # threads and 5 on others: not a zero by construction (the predicate's trace-time bits mean nothing)
    zero = ["and.b32 %r7, %r2, 0;", setp]
    for sel in ("selp.b32 %r6, %r7, 5, %p1;", "selp.b32 %r6, 5, %r7, %p1;"):
        assert all(row == ["none", "none"] for row in lane_units(LD2 + zero + [sel, ST])), sel
    assert all(row == ["zero", "zero"] for row in lane_units(LD2 + zero + ["selp.b32 %r6, %r7, %r7, %p1;", ST]))


@pytest.mark.parametrize("base", [0x3210, 0x7654])
def test_prmt_with_a_selector_of_loaded_data_over_zero_and_a_constant_is_not_zero(base: int) -> None:
    # the selector %r8 = %r3 | base is unknown at trace time: its bytes may pick %r7's zero bytes or 5's
    zero = ["and.b32 %r7, %r2, 0;", f"or.b32 %r8, %r3, {base};"]
    for sel in ("prmt.b32 %r6, %r7, 5, %r8;", "prmt.b32 %r6, 5, %r7, %r8;"):
        assert all(row == ["none", "none"] for row in lane_units(LD2 + zero + [sel, ST])), sel
    assert all(row == ["zero", "zero"] for row in lane_units(LD2 + zero + ["prmt.b32 %r6, %r7, %r7, %r8;", ST]))


@pytest.mark.parametrize("sel", [0x3210, 0x5410, 0x7654, 0x1032, 0x7632, 0x3276, 0x1054])
def test_prmt_with_whole_unit_selectors_moves_the_selected_units(sel: int) -> None:
    # PTX ISA prmt default mode: result byte k = byte (sel >> 4k) & 7 of {b, a} (a = bytes 0..3, b = 4..7)
    got = lane_units(LD2 + [f"prmt.b32 %r6, %r2, %r3, {sel};", ST])
    for t, row in enumerate(got):
        assert row == [a(t, 2 * (((sel >> (8 * k)) & 7) // 2)) for k in range(2)], (hex(sel), row)


@pytest.mark.parametrize("sel", [0x2100, 0x3201, 0x3210 | 0x8000, 0x3210 | 0x0800, 0x4321, 0x1810])
def test_prmt_that_splits_a_unit_or_replicates_a_sign_makes_it_opaque(sel: int) -> None:
    got = lane_units(LD2 + [f"prmt.b32 %r6, %r2, %r3, {sel};", ST])
    for row in got:
        for k in range(2):
            n0, n1 = (sel >> (8 * k)) & 15, (sel >> (8 * k + 4)) & 15
            whole = n0 % 2 == 0 and n1 == n0 + 1  # sign flag (bit 3) set: not whole
            assert (row[k] == SPLIT) == (not whole), (hex(sel), k, row)


def test_prmt_with_an_untagged_second_source_gives_none_for_its_bytes() -> None:
    got = lane_units(LD2[:1] + ["prmt.b32 %r6, %r2, 0, 0x5410;", ST])
    assert all(row == [a(t, 0), "none"] for t, row in enumerate(got))
    got = lane_units(LD2[:1] + ["prmt.b32 %r6, 0, %r2, 0x5410;", ST])
    assert all(row == ["none", a(t, 0)] for t, row in enumerate(got))


def test_prmt_with_a_selector_unknown_at_trace_time_is_opaque() -> None:
    got = lane_units(LD2 + ["prmt.b32 %r6, %r2, 0, %r3;", ST])
    assert all(row == [SPLIT, SPLIT] for row in got)


@pytest.mark.parametrize("ins,expect", [
    ("shl.b32 %r6, %r2, 16;", lambda t: ["zero", a(t, 0)]),
    ("shr.u32 %r6, %r2, 16;", lambda t: [a(t, 2), "zero"]),
    ("shr.b32 %r6, %r2, 16;", lambda t: [a(t, 2), "zero"]),
    ("shl.b32 %r6, %r2, 0;", lambda t: [a(t, 0), a(t, 2)]),
    ("shl.b32 %r6, %r2, 32;", lambda t: ["zero", "zero"]),
    ("shr.u32 %r6, %r2, 48;", lambda t: ["zero", "zero"]),
    ("shr.s32 %r6, %r2, 16;", lambda t: [UNMODELLED, UNMODELLED]),  # the sign bit fills: not a move
    ("shl.b32 %r6, %r2, 8;", lambda t: [UNMODELLED, UNMODELLED]),
    ("shl.b32 %r6, %r2, %r1;", lambda t: [UNMODELLED, UNMODELLED]),
])
def test_shifts_by_multiples_of_16_move_whole_units(ins: str, expect) -> None:
    got = lane_units(LD2 + [ins, ST])
    assert all(row == expect(t) for t, row in enumerate(got)), got[:2]


@pytest.mark.parametrize("ins,signed", [("shr.s32.x %r6, %r2, 16;", True), ("shr.s32.b32 %r6, %r2, 16;", False)])
def test_a_shift_with_a_trailing_suffix_is_signed_by_the_type_the_tracer_decodes(ins: str, signed: bool) -> None:
    # the tracer reads an instruction's type as its last type suffix (s32, then b32 here); PTX ISA shr.s32 fills
    # the vacated bits with the sign (0x80000000 >> 16 is 0xffff8000: the top unit is not zero), shr.b32 with 0
    x = 0x80000000
    isa = ((x - (1 << 32)) >> 16) & 0xFFFFFFFF if signed else x >> 16
    assert lanes(launch("mov.u32 %r2, 0x80000000;\n" + ins.replace("%r6", "%r1")), "%r1") == [isa] * 32
    got = lane_units(LD2 + [ins, ST])
    expect = (lambda t: [UNMODELLED, UNMODELLED]) if signed else (lambda t: [a(t, 2), "zero"])
    assert all(row == expect(t) for t, row in enumerate(got)), got[:2]


def test_shl_b64_by_16_moves_every_unit_up_one() -> None:
    got = lane_units(["ld.global.u64 %rd6, [%rd4];", "shl.b64 %rd7, %rd6, 16;", "st.global.u64 [%rd5], %rd7;"],
                     units=4)
    assert all(row == ["zero", a(t, 0), a(t, 2), a(t, 4)] for t, row in enumerate(got))
    got = lane_units(["ld.global.u64 %rd6, [%rd4];", "shr.u64 %rd7, %rd6, 32;", "st.global.u64 [%rd5], %rd7;"],
                     units=4)
    assert all(row == [a(t, 4), a(t, 6), "zero", "zero"] for t, row in enumerate(got))


def test_shifting_a_16_bit_register_held_in_a_wider_one_keeps_its_unit() -> None:
    got = lane_units(["ld.global.u16 %h1, [%rd4+2];", "cvt.u32.u16 %r2, %h1;", "shl.b32 %r6, %r2, 16;", ST])
    assert all(row == ["zero", a(t, 2)] for t, row in enumerate(got))


@pytest.mark.parametrize("ins,expect", [
    ("and.b32 %r6, %r2, 65535;", lambda t: [a(t, 0), "zero"]),
    ("and.b32 %r6, %r2, -65536;", lambda t: ["zero", a(t, 2)]),
    ("and.b32 %r6, 65535, %r2;", lambda t: [a(t, 0), "zero"]),
    ("and.b32 %r6, %r2, 0;", lambda t: ["zero", "zero"]),
    ("and.b32 %r6, %r2, 16711935;", lambda t: [SPLIT, SPLIT]),   # 0x00FF00FF keeps bytes of each unit
    ("or.b32 %r6, %r2, 0;", lambda t: [a(t, 0), a(t, 2)]),
    ("xor.b32 %r6, 0, %r2;", lambda t: [a(t, 0), a(t, 2)]),
    ("or.b32 %r6, %r2, 1;", lambda t: [SPLIT, a(t, 2)]),
    ("xor.b32 %r6, %r2, %r3;", lambda t: [SPLIT, SPLIT]),
])
def test_masks_keep_the_units_an_all_ones_or_zero_unit_leaves_whole(ins: str, expect) -> None:
    got = lane_units(LD2 + [ins, ST])
    assert all(row == expect(t) for t, row in enumerate(got)), got[:2]


def test_or_of_two_disjointly_masked_words_merges_their_units() -> None:
    got = lane_units(LD2 + ["and.b32 %r7, %r2, 65535;", "and.b32 %r8, %r3, -65536;", "or.b32 %r6, %r7, %r8;", ST])
    assert all(row == [a(t, 0), a(t, 6)] for t, row in enumerate(got))
    got = lane_units(LD2 + ["and.b32 %r7, %r2, 65535;", "and.b32 %r8, %r3, -65536;", "or.b32 %r6, %r8, %r7;", ST])
    assert all(row == [a(t, 0), a(t, 6)] for t, row in enumerate(got))


def isa_shfl_source(mode: str, lane: int, b: int, c: int) -> int:
    """PTX ISA shfl.sync: the lane whose value ``lane`` receives (its own when out of range)."""
    bval, cval, seg = b & 31, c & 31, (c >> 8) & 31
    max_lane, min_lane = (lane & seg) | (cval & ~seg), lane & seg
    if mode == "up":
        j, ok = lane - bval, lane - bval >= max_lane
    elif mode == "down":
        j, ok = lane + bval, lane + bval <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        ok = j <= max_lane
    else:
        j = min_lane | (bval & ~seg)
        ok = j <= max_lane
    return j if ok else lane


@pytest.mark.parametrize("mode,b,c", [("up", 1, 0), ("up", 5, 0), ("down", 1, 31), ("down", 3, 31),
                                      ("bfly", 1, 31), ("bfly", 6, 31), ("idx", 5, 31), ("idx", 3, 0x1807),
                                      ("down", 1, 0x1807), ("up", 2, 0x1800), ("bfly", 4, 0x1007),
                                      ("idx", 31, 31), ("idx", 7, 0x1807), ("idx", 1, 0x1F1F), ("bfly", 1, 0x1F1F)])
def test_shfl_moves_each_lane_the_units_of_the_isa_source_lane(mode: str, b: int, c: int) -> None:
    got = lane_units(LD2[:1] + [f"shfl.sync.{mode}.b32 %r6, %r2, {b}, {c}, -1;", ST])
    for t, row in enumerate(got):
        s = isa_shfl_source(mode, t, b, c)
        assert row == [a(s, 0), a(s, 2)], (mode, b, c, t, row)


def test_shfl_with_a_predicate_destination_moves_the_value_too() -> None:
    got = lane_units(LD2[:1] + ["shfl.sync.bfly.b32 %r6|%p2, %r2, 1, 31, -1;", ST])
    assert all(row == [a(t ^ 1, 0), a(t ^ 1, 2)] for t, row in enumerate(got))


def test_movmatrix_trans_gives_each_lane_the_transposed_halves() -> None:
    # PTX ISA: element M[r][c] of the 8x8 b16 matrix sits in lane 4 r + c // 2, half c % 2;
    # after .trans lane t holds (M[2 (t % 4)][t // 4], M[2 (t % 4) + 1][t // 4]) = M^T row t // 4.
    got = lane_units(LD2[:1] + ["movmatrix.sync.aligned.m8n8.trans.b16 %r6, %r2;", ST])
    for t, row in enumerate(got):
        c = t // 4
        want = []
        for r in (2 * (t % 4), 2 * (t % 4) + 1):
            want.append(a(4 * r + c // 2, 2 * (c % 2)))
        assert row == want, (t, row)


@pytest.mark.parametrize("mode,sel,expect", [
    ("rc16", 0, lambda t: [a(t, 0), a(t, 0)]),   # PTX ISA .rc16: c[0] = 0 replicates bytes 0,1 (a's low half)
    ("rc16", 1, lambda t: [a(t, 2), a(t, 2)]),   # c[0] = 1 replicates bytes 2,3
    ("f4e", 0, lambda t: [a(t, 0), a(t, 2)]),    # .f4e c = 0: bytes 0 1 2 3
    ("f4e", 2, lambda t: [a(t, 2), a(t, 4)]),    # c = 2: bytes 2 3 4 5
    ("f4e", 1, lambda t: [SPLIT, SPLIT]),        # c = 1: bytes 1 2 3 4 cut every unit
])
def test_prmt_modes_move_whole_units_only_where_their_byte_table_does(mode: str, sel: int, expect) -> None:
    got = lane_units(LD2 + [f"prmt.b32.{mode} %r6, %r2, %r3, {sel};", ST])
    assert all(row == expect(t) for t, row in enumerate(got)), got[:2]


@pytest.mark.parametrize("cvt", ["cvt.rn.f32.s32 %f3, %r2;\nmov.b32 %r6, %f3;", "cvt.rzi.s32.f32 %r6, %f3;"])
def test_cvt_between_integer_and_float_is_a_computation_not_a_move(cvt: str) -> None:
    got = lane_units(LD2[:1] + ["mov.b32 %f3, %r2;"] + cvt.split("\n") + [ST])
    assert all(row == [UNMODELLED, UNMODELLED] for row in got), got[:1]


@pytest.mark.parametrize("ins", ["shl.b64 %rd10, %r2, 16;", "shr.u64 %rd10, %r2, 16;", "or.b64 %rd10, %r2, 0;",
                                 "and.b64 %rd10, %r2, -1;"])
def test_a_32_bit_register_read_by_a_64_bit_shift_or_mask_is_refused(ins: str) -> None:
    # ptxas rejects a .b32 operand of a .b64 instruction ("Arguments mismatch"); layoutalg used to read it
    # zero-extended, and now refuses it naming the line and the register
    with pytest.raises(KernelError, match=r"operand 1 \(%r2, a \.b32 register\).*narrower"):
        lane_units(LD2 + [ins, "st.global.u64 [%rd5], %rd10;"], units=4)


def test_selp_between_two_loaded_values_on_a_predicate_of_loaded_data_is_opaque() -> None:
    # either side may be picked, by data the trace does not know: the result is neither A's bytes 0.. nor 4..
    got = lane_units(LD2 + ["setp.lt.u32 %p1, %r3, 16;", "selp.b32 %r6, %r2, %r3, %p1;", ST])
    assert all(row == [GUARD, GUARD] for row in got), got[:1]


def test_selp_on_a_never_written_predicate_is_opaque() -> None:
    # %p7 is read before any instruction writes it: its value is undefined, so is the side selp picks
    got = lane_units(LD2 + ["selp.b32 %r6, %r2, %r3, %p7;", ST])
    assert all(row == [GUARD, GUARD] for row in got), got[:1]


def test_cvt_to_an_fp8_pair_is_a_computation_not_a_move() -> None:
    # cvt.rn.satfinite.e4m3x2.f32 d, a, b packs two rounded 8-bit floats into d's low 16 bits (PTX ISA cvt):
    # computed from the loaded bits of a and b, not a copy of any loaded unit
    got = lane_units(LD2 + ["mov.b32 %f1, %r2;", "mov.b32 %f2, %r3;", "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;",
                            "cvt.u32.u16 %r6, %h1;", ST])
    assert all(row == [UNMODELLED, "zero"] for row in got), got[:1]


@pytest.mark.parametrize("lines,register", [
    (["ld.global.u16 %h1, [%rd4];", "prmt.b32 %r6, %h1, %r3, 0x5410;"], "%h1"),
    (["ld.global.u64 %rd9, [%rd4];", "prmt.b32 %r6, %rd9, %r2, 0x5410;"], "%rd9"),
    (["ld.global.u64 %rd9, [%rd4];", "prmt.b32 %r6, %r3, %rd9, 0x5410;"], "%rd9"),
    (["ld.global.u64 %rd9, [%rd4];", "shfl.sync.bfly.b32 %r6, %rd9, 1, 31, -1;"], "%rd9"),
    (["ld.global.u16 %h1, [%rd4];", "shfl.sync.bfly.b32 %r6, %h1, 1, 31, -1;"], "%h1"),
])
def test_a_16_or_64_bit_register_read_by_prmt_or_shfl_b32_is_refused(lines: list[str], register: str) -> None:
    # ptxas rejects a .b16 or .b64 operand of prmt.b32 / shfl.sync.b32 ("Arguments mismatch"); layoutalg used to
    # read it zero-extended or chopped
    with pytest.raises(KernelError, match=rf"\({register}, a \.b(16|64) register\)"):
        lane_units(LD2 + lines + [ST])


def test_shfl_in_a_two_warp_block_reads_from_its_own_warp() -> None:
    # PTX ISA shfl.sync: lanes exchange within their warp; idx 0 gives every lane its own warp's lane 0
    got = lane_units(LD2[:1] + ["shfl.sync.idx.b32 %r6, %r2, 0, 31, -1;", ST], block=64)
    assert all(row == [a(32 * (t // 32), 0), a(32 * (t // 32), 2)] for t, row in enumerate(got)), got[32]
    got = lane_units(LD2[:1] + ["shfl.sync.bfly.b32 %r6, %r2, 1, 31, -1;", ST], block=64)
    assert all(row == [a(t ^ 1, 0), a(t ^ 1, 2)] for t, row in enumerate(got)), got[32]


@pytest.mark.parametrize("ins", ["selp.b32 _, %r2, %r3, %p1;", "and.b32 _, %r2, 65535;", "or.b32 _, %r2, %r3;",
                                 "shfl.sync.bfly.b32 _, %r2, 1, 31, -1;"])
def test_a_move_into_the_sink_writes_no_register(ins: str) -> None:
    # PTX's sink `_` discards the result: %r2 and %r3 keep A's units and the later copy of %r2 stores them
    got = lane_units(LD2 + ["setp.lt.u32 %p1, %r1, 16;", ins, "mov.b32 %r6, %r2;", ST])
    assert all(row == [a(t, 0), a(t, 2)] for t, row in enumerate(got)), got[:1]


def test_shfl_from_lane_0_gives_its_units_only_while_lane_0_takes_part() -> None:
    # PTX ISA shfl.sync: a lane reading an inactive source lane gets an undefined value; idx 0 reads lane 0
    body = LD2[:1] + ["mov.b32 %r6, 0;", "setp.ne.u32 %p3, %r1, 1;",
                      "@%p3 shfl.sync.idx.b32 %r6, %r2, 0, 31, -3;", ST]  # lane 1 sits out (membermask ~2)
    got = lane_units(body)
    assert all(row == [a(0, 0), a(0, 2)] for t, row in enumerate(got) if t != 1), got[:3]
    body = LD2[:1] + ["mov.b32 %r6, 0;", "setp.ne.u32 %p3, %r1, 0;",
                      "@%p3 shfl.sync.idx.b32 %r6, %r2, 0, 31, -2;", ST]  # lane 0 sits out (membermask ~1)
    got = lane_units(body)
    assert all(row == ["none", "none"] for row in got), got[:3]



def test_or_with_a_zero_filled_register_keeps_the_other_sides_units() -> None:
    # cp.async with src-size 0 zero-fills its 4 shared bytes (PTX ISA): %r7 is zero, and x | 0 == x bit for bit
    zero = ["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 4, %r10;", "cp.async.ca.shared.global [%r11], [%rd4], 4, 0;",
            "cp.async.commit_group;", "cp.async.wait_group 0;", "ld.shared.u32 %r7, [%r11];"]
    got = lane_units(LD2 + zero + ["or.b32 %r6, %r2, %r7;", ST])
    assert all(row == [a(t, 0), a(t, 2)] for t, row in enumerate(got)), got[:2]


def test_a_signed_cvt_to_a_wider_integer_extends_the_sign_of_the_sources_high_unit() -> None:
    # PTX ISA cvt.s64.s32: the high 32 bits repeat bit 31, which lies in unit 1 of the source.  A zero-extended
    # u16 has unit 1 zero: the extension carries no data; a source with A data in unit 1 extends data bits.
    got = lane_units(["ld.global.u16 %r2, [%rd4];", "cvt.s64.s32 %rd6, %r2;", "st.global.u64 [%rd5], %rd6;"],
                     units=4)
    assert all(row[:2] == [a(t, 0), "zero"] and set(row[2:]) <= {"none", "zero"} for t, row in enumerate(got))
    got = lane_units(LD2[:1] + ["cvt.s64.s32 %rd6, %r2;", "st.global.u64 [%rd5], %rd6;"], units=4)
    assert all(row == [a(t, 0), a(t, 2), SPLIT, SPLIT] for t, row in enumerate(got))


@pytest.mark.parametrize("cvt,units,expect", [
    # PTX ISA "Operand Size Exceeding Instruction-Type Size": a destination register wider than the cvt's
    # destination type is sign-extended when that type is signed.  Sign bits of A data are data, never zero.
    ("cvt.s32.s16 %rd6, %h1;", 4, lambda t: [a(t, 0), SPLIT, SPLIT, SPLIT]),
    ("cvt.s32.s32 %rd6, %r2;", 4, lambda t: [a(t, 0), a(t, 2), SPLIT, SPLIT]),
    ("cvt.s16.s32 %r6, %r2;", 2, lambda t: [a(t, 0), SPLIT]),
    ("cvt.s16.s16 %r6, %h1;", 2, lambda t: [a(t, 0), SPLIT]),
    ("cvt.s8.s32 %r6, %r2;", 2, lambda t: [BYTE, SPLIT]),
    ("cvt.s32.s8 %r6, %c1;", 2, lambda t: [BYTE, SPLIT]),       # s8 -> s32 sign-extends the byte
    ("cvt.u32.s8 %r6, %c1;", 2, lambda t: [BYTE, SPLIT]),       # signed source: extended to 32 bits
    ("cvt.u32.s16 %rd6, %h1;", 4, lambda t: [a(t, 0), SPLIT, "zero", "zero"]),  # then zero to the register
    ("cvt.s32.u16 %rd6, %h1;", 4, lambda t: [a(t, 0), "zero", "zero", "zero"]),  # bit 31 of a zero extension
    ("cvt.u16.s32 %r6, %r2;", 2, lambda t: [a(t, 0), "zero"]),
    ("cvt.u16.s8 %r6, %c1;", 2, lambda t: [BYTE, "zero"]),     # s8 -> u16 sign-extends within unit 0 only
])
def test_a_cvt_into_a_register_wider_than_its_type_sign_extends_only_signed_values(cvt: str, units: int,
                                                                                   expect) -> None:
    pre = LD2[:1] + ["mov.b32 {%h1, %h2}, %r2;", "cvt.u8.u16 %c1, %h1;"]
    store = "st.global.u64 [%rd5], %rd6;" if units == 4 else ST
    got = lane_units(pre + [cvt, store], units=units)
    assert all(row == expect(t) for t, row in enumerate(got)), got[:2]


def test_prmt_keeps_a_whole_unit_next_to_a_sign_replicated_byte_of_the_other_unit() -> None:
    # PTX ISA prmt default mode, selector 0x1090: byte 0 = a.byte0, byte 1 = sign of a.byte1 (nibble 9),
    # bytes 2, 3 = a.byte0, a.byte1: unit 0 mixes a byte with sign bits, unit 1 is a's unit 0 moved whole
    got = lane_units(LD2 + ["prmt.b32 %r6, %r2, %r3, 0x1090;", ST])
    assert all(row == [SPLIT, a(t, 0)] for t, row in enumerate(got))


def test_shfl_from_an_inactive_lane_31_delivers_no_data() -> None:
    # lanes 0..30 run shfl.bfly 1; lane 30's source is lane 31, which does not run it: PTX ISA leaves the value
    # undefined, so lane 30 receives no A data (lanes 0..29 receive their partner's)
    body = LD2[:1] + ["mov.u32 %r6, 0;", "setp.lt.u32 %p1, %r1, 31;",
                      "@%p1 shfl.sync.bfly.b32 %r6, %r2, 1, 31, 0x7fffffff;", ST]
    got = lane_units(body)
    assert all(got[t] == [a(t ^ 1, 0), a(t ^ 1, 2)] for t in range(30))
    assert all(x in ("none", "zero") for x in got[30]), got[30]


@pytest.mark.parametrize("ins", ["mov.b32 {%r6, %r7}, %r2;", "mov.b32 {%r7, %r6}, %r2;"])
def test_mov_unpacking_into_registers_wider_than_the_elements_is_refused(ins: str) -> None:
    # mov.b32 {d0, d1}, a takes two 16-bit registers: ptxas 13.0 refuses 32-bit ones ("Arguments mismatch")
    with pytest.raises(KernelError, match=r"mov\.b32: operand 0 \(%r[67], a \.b32 register\).*wider"):
        lane_units(LD2[:1] + [ins, ST])

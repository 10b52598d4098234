"""Data-flow tags (layoutalg/kernel/dataflow/tags.py) against the bit layout its module doc states, packed
here by hand with Python ints: kind 60..62; GLOBAL buf 40..55, off 0..39, derived 58; ACC m 0..19, n 20..39,
depth 40..55, part 56, wide 57, derived 58; OPAQUE op 0..31, why 32..39; NONE -1, ZERO -2."""

from __future__ import annotations

import numpy as np
import pytest

from layoutalg.kernel.dataflow import tags as tg


def packed_global(buf: int, off: int) -> int:
    return (1 << 60) | (buf << 40) | off


def packed_acc(m: int, n: int, depth: int, part: int = 0, wide: int = 0, derived: int = 0) -> int:
    return (2 << 60) | (derived << 58) | (wide << 57) | (part << 56) | (depth << 40) | (n << 20) | m


def test_none_and_zero_are_minus_one_and_minus_two_and_limits_are_the_field_widths() -> None:
    assert int(tg.NONE) == -1 and int(tg.ZERO) == -2
    assert tg.MAX_DIM == 2**20 and tg.MAX_OFFSET == 2**40 and tg.MAX_DEPTH == 2**16 - 1


@pytest.mark.parametrize("buf,off", [(0, 0), (1, 2), (7, 12345), (2**16 - 1, 2**40 - 1), (3, 2**39)])
def test_global_tags_pack_buffer_and_offset_into_their_fields(buf: int, off: int) -> None:
    t = tg.glob(buf, off)
    assert int(t) == packed_global(buf, off)
    assert int(tg.kind(t)) == 1 and int(tg.glob_buf(t)) == buf and int(tg.glob_off(t)) == off
    assert int(tg.glob_derived(t)) == 0 and int(tg.glob_derived(int(t) | (1 << 58))) == 1


@pytest.mark.parametrize("buf,off", [(-1, 0), (2**16, 0), (0, -2), (0, 2**40), (5, 2**40 + 4)])
def test_global_tags_outside_the_fields_are_none(buf: int, off: int) -> None:
    assert int(tg.glob(buf, off)) == -1


def test_global_tags_are_vectorised_per_element() -> None:
    got = tg.glob(np.array([0, 1, 2**16]), np.array([[4], [2**40 - 2]]))
    want = [[packed_global(b, o) if b < 2**16 and o < 2**40 else -1 for b in (0, 1, 2**16)] for o in (4, 2**40 - 2)]
    assert got.tolist() == want


@pytest.mark.parametrize("fields", [(0, 0, 0, 0, 0, 0), (2**20 - 1, 0, 0, 0, 0, 0), (0, 2**20 - 1, 0, 0, 0, 0),
                                    (3, 5, 2**16 - 1, 1, 1, 1), (17, 9, 4, 0, 1, 0), (1, 2, 3, 1, 0, 1)])
def test_acc_tags_pack_and_unpack_every_field(fields: tuple[int, ...]) -> None:
    m, n, d, part, wide, der = fields
    t = tg.acc(m, n, d, part, wide, der)
    assert int(t) == packed_acc(m, n, d, part, wide, der)
    assert int(tg.kind(t)) == 2
    assert tuple(int(x) for x in tg.acc_fields(t)) == fields


def test_acc_identity_is_equal_for_the_two_parts_of_one_value_only() -> None:
    lo, hi = tg.acc(3, 4, 8, 0, True), tg.acc(3, 4, 8, 1, True)
    assert int(tg.acc_identity(lo)) == int(tg.acc_identity(hi)) == packed_acc(3, 4, 8, 0, 1)
    assert int(tg.acc_identity(tg.acc(3, 4, 9, 1, True))) != int(tg.acc_identity(lo))
    assert int(tg.acc_identity(tg.acc(3, 4, 8, 1, True, True))) == packed_acc(3, 4, 8, 0, 1, 1)


def test_set_derived_marks_accumulators_and_leaves_every_other_tag() -> None:
    tags = np.array([packed_acc(1, 2, 3), packed_acc(1, 2, 3, 1, 1), packed_global(0, 6), -1, -2,
                     (3 << 60) | (9 << 32) | 4])
    got = tg.set_derived(tags).tolist()
    assert got == [packed_acc(1, 2, 3, 0, 0, 1), packed_acc(1, 2, 3, 1, 1, 1)] + tags[2:].tolist()


@pytest.mark.parametrize("op,why", [(0, 1), (5, 11), (2**32 - 1, 255), (123456, 7)])
def test_opaque_tags_pack_instruction_and_reason(op: int, why: int) -> None:
    t = tg.opaque(op, why)
    assert int(t) == (3 << 60) | (why << 32) | op
    assert int(tg.kind(t)) == 3 and tuple(int(x) for x in tg.opaque_fields(t)) == (op, why)


def test_kind_of_none_and_zero_is_negative() -> None:
    assert tg.kind(np.array([-1, -2])).tolist() == [-1, -1]


def test_reason_codes_are_the_numbers_of_the_why_table_in_order() -> None:
    codes = [tg.W_UNMODELLED, tg.W_GLOBAL_ADDR, tg.W_WRITTEN, tg.W_SMEM_WRITE, tg.W_CONFLICT, tg.W_GUARD,
             tg.W_BYTE, tg.W_SPLIT, tg.W_MIX, tg.W_MMA, tg.W_SRC_SIZE]
    assert codes == list(range(1, 12)) and sorted(tg.WHY) == codes
    assert "8-bit" in tg.WHY[tg.W_BYTE] and "guard" in tg.WHY[tg.W_GUARD] and "splits" in tg.WHY[tg.W_SPLIT]
    assert "cp.async" in tg.WHY[tg.W_SRC_SIZE] and "already wrote" in tg.WHY[tg.W_WRITTEN]
    assert "atomics" in tg.WHY[tg.W_SMEM_WRITE] and "mixes" in tg.WHY[tg.W_MIX]


def test_describe_names_each_kind_in_words() -> None:
    assert tg.describe(-2) == "zero"
    assert tg.describe(-1) == "an untagged value (computed by the kernel, not loaded)"
    assert tg.describe(packed_global(2, 10)) == "bytes 10..11 of buffer 2"
    assert tg.describe(packed_global(2, 10), names={2: "B"}) == "bytes 10..11 of B"
    assert tg.describe(packed_acc(3, 7, 16)) == "the accumulator of C(3, 7) after 16 k-products"
    assert tg.describe(packed_acc(3, 7, 16, 1, 1)) == \
        "the accumulator of C(3, 7) after 16 k-products (high half of its 32-bit value)"
    assert tg.describe(packed_acc(3, 7, 16, 0, 1, 1)) == \
        "the accumulator of C(3, 7) after 16 k-products (low half of its 32-bit value), after element-wise arithmetic"
    assert tg.describe((3 << 60) | (8 << 32) | 42) == \
        "a value derived at instruction #42 through a permutation or shift that splits a 16-bit unit"
    assert tg.describe((3 << 60) | (200 << 32) | 42) == "a value derived at instruction #42 through something unmodelled"
    assert tg.describe(1) == "tag 0x1" and tg.describe((4 << 60) | 5) == "tag 0x4000000000000005"  # no such kind


def test_describe_asks_the_where_callback_first_and_falls_back_when_it_has_no_text() -> None:
    t = packed_global(0, 4)
    assert tg.describe(t, where=lambda x: "A(1, 2)" if x == t else None) == "A(1, 2)"
    assert tg.describe(t, where=lambda x: None) == "bytes 4..5 of buffer 0"
    assert tg.describe(-2, where=lambda x: "never") == "zero"


@pytest.mark.parametrize("bits,units", [(8, 1), (16, 1), (32, 2), (64, 4), (128, 8)])
def test_units_of_bits_counts_16_bit_units_with_one_for_a_byte(bits: int, units: int) -> None:
    assert tg.units_of_bits(bits) == units


def test_any_tagged_is_true_when_some_plane_exists() -> None:
    assert tg.any_tagged([None, np.zeros((1, 1))]) is True
    assert tg.any_tagged([None, None]) is False and tg.any_tagged([]) is False


def test_acc_defaults_to_part_0_of_a_narrow_value_not_derived() -> None:
    assert int(tg.acc(1, 2, 3)) == packed_acc(1, 2, 3, 0, 0, 0)


def test_set_derived_twice_keeps_the_mark() -> None:
    """Element-wise arithmetic on a value already derived leaves it derived (two epilogue steps stay marked)."""
    tags = np.array([packed_acc(1, 2, 3), packed_acc(1, 2, 3, 1, 1, 1)])
    assert tg.set_derived(tg.set_derived(tags)).tolist() == [packed_acc(1, 2, 3, 0, 0, 1), packed_acc(1, 2, 3, 1, 1, 1)]


def test_describe_shows_a_tag_of_kind_0_in_hex_not_as_untagged() -> None:
    assert tg.describe(0) == "tag 0x0"

"""The wgmma shared-memory matrix descriptor (layoutalg.atoms.gmma_desc) against the PTX ISA.

Oracle: PTX ISA "Matrix Descriptor Format" (asynchronous warpgroup-level matrix, shared-memory layout):
bits 0-13 start address >> 4, 16-29 leading dimension byte offset >> 4, 32-45 stride dimension byte
offset >> 4, 49-51 base offset, 62-63 swizzle mode (0 none, 1 128B, 2 64B, 3 32B); the other bits are
unused.  Addresses: the canonical layouts of the same section written out per byte (a core matrix is 8
rows of 16 bytes; a swizzled row is 16*W bytes, W = 1, 2, 4, 8) and Swizzle<B,4,3> on the absolute
byte address (bits [7, 7+B) XORed into [4, 4+B)).
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from layoutalg.atoms.gmma_desc import LAYOUT_TYPES, GmmaDescriptor, make_gmma_desc, swizzle_address
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

FIELD_MAX = (1 << 14) - 1
#: PTX swizzle mode code and swizzle width in 16-byte units, per layout type.
MODES = {"INTERLEAVE": (0, 1), "B128": (1, 8), "B64": (2, 4), "B32": (3, 2)}


def sw(byte: int, width_units: int) -> int:
    """Swizzle<B,4,3> on a byte address, B = log2(width_units)."""
    b = width_units.bit_length() - 1
    return byte ^ (((byte >> 7) & ((1 << b) - 1)) << 4)


def k_major_byte(start: int, lbo: int, sbo: int, w: int, mn: int, k: int, bits: int) -> int:
    """PTX canonical K-major layout, in bytes: 8-row groups SBO apart; K blocks of 16 bytes LBO apart
    (no swizzle, rows 16 bytes apart) or rows 16*W bytes apart (swizzled, one K row per descriptor)."""
    kbyte = k * bits // 8
    r, g = mn % 8, mn // 8
    if w == 1:
        return start + g * sbo + (kbyte // 16) * lbo + 16 * r + kbyte % 16
    return sw(start + g * sbo + 16 * w * r + kbyte, w)


def mn_major_byte(start: int, lbo: int, sbo: int, w: int, mn: int, k: int, bits: int) -> int:
    """PTX canonical MN-major layout, in bytes: K rows 16*W bytes apart within 8-row groups.  No swizzle:
    16-byte MN chunks SBO apart, 8-row K groups LBO apart; swizzled: 16*W-byte MN blocks LBO apart, 8-row
    K groups SBO apart."""
    mbyte = mn * bits // 8
    r, h = k % 8, k // 8
    if w == 1:
        return start + (mbyte // 16) * sbo + h * lbo + 16 * r + mbyte % 16
    return sw(start + (mbyte // (16 * w)) * lbo + h * sbo + 16 * w * r + mbyte % (16 * w), w)


# --- the 64-bit word ------------------------------------------------------------------------------------


def test_each_field_sits_at_its_ptx_bit_position_and_holds_fourteen_bits() -> None:
    top = FIELD_MAX << 4  # the largest 16-byte multiple a 14-bit field holds
    assert GmmaDescriptor(top, 0, 0).encode() == FIELD_MAX
    assert GmmaDescriptor(0, top, 0).encode() == FIELD_MAX << 16
    assert GmmaDescriptor(0, 0, top).encode() == FIELD_MAX << 32
    assert GmmaDescriptor(0, 0, 0, base_offset=7).encode() == 7 << 49
    assert GmmaDescriptor(16, 32, 48, "B64", 5).encode() == 1 | 2 << 16 | 3 << 32 | 5 << 49 | 2 << 62
    everything = GmmaDescriptor(top, top, top, "B32", 7).encode()
    assert everything == FIELD_MAX | FIELD_MAX << 16 | FIELD_MAX << 32 | 7 << 49 | 3 << 62


def test_a_descriptor_is_an_immutable_hashable_value() -> None:
    desc = GmmaDescriptor(32, 16, 1024, "B128")
    with pytest.raises(dataclasses.FrozenInstanceError):
        desc.start_address = 64  # type: ignore[misc]
    assert {desc: 1}[GmmaDescriptor(32, 16, 1024, "B128")] == 1


@pytest.mark.parametrize("layout_type", sorted(MODES))
def test_layout_type_is_the_ptx_swizzle_mode_code(layout_type: str) -> None:
    code, width = MODES[layout_type]
    assert LAYOUT_TYPES[layout_type] == code
    desc = GmmaDescriptor(0, 0, 0, layout_type)
    assert desc.encode() == code << 62
    assert desc.swizzle_width_units == width
    assert GmmaDescriptor.decode(code << 62).layout_type == layout_type


def test_decode_reads_every_field_at_its_full_width() -> None:
    top = FIELD_MAX << 4
    assert GmmaDescriptor.decode((1 << 64) - 1) == GmmaDescriptor(top, top, top, "B32", 7)
    assert GmmaDescriptor.decode(FIELD_MAX << 32) == GmmaDescriptor(0, 0, top)
    assert GmmaDescriptor.decode(FIELD_MAX << 16) == GmmaDescriptor(0, top, 0)
    assert GmmaDescriptor.decode(FIELD_MAX) == GmmaDescriptor(top, 0, 0)
    assert GmmaDescriptor.decode(5 << 49) == GmmaDescriptor(0, 0, 0, base_offset=5)


def test_decode_drops_the_unused_bits_between_fields() -> None:
    unused = (3 << 14) | (3 << 30) | (7 << 46) | (((1 << 10) - 1) << 52)
    assert GmmaDescriptor.decode(unused) == GmmaDescriptor(0, 0, 0)
    word = GmmaDescriptor(0x1230, 0x40, 0x400, "B128", 1).encode()
    assert GmmaDescriptor.decode(word | unused).encode() == word


def test_encode_and_decode_round_trip_on_random_descriptors() -> None:
    rng = np.random.default_rng(1717)
    for _ in range(200):
        start, lbo, sbo = (int(x) << 4 for x in rng.integers(0, 1 << 14, 3))
        kind = sorted(MODES)[int(rng.integers(0, 4))]
        base = int(rng.integers(0, 8))
        desc = GmmaDescriptor(start, lbo, sbo, kind, base)
        word = desc.encode()
        assert word == start >> 4 | (lbo >> 4) << 16 | (sbo >> 4) << 32 | base << 49 | MODES[kind][0] << 62
        assert GmmaDescriptor.decode(word) == desc
        assert GmmaDescriptor.decode(np.uint64(word)) == desc  # numpy integers are words too


# --- refusals ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["start_address", "leading_byte_offset", "stride_byte_offset"])
@pytest.mark.parametrize("value", [8, 24, -16, 1 << 18, (1 << 18) + 16])
def test_an_offset_that_is_not_a_16_byte_multiple_in_range_is_refused_by_name(field: str, value: int) -> None:
    kwargs = dict(start_address=0, leading_byte_offset=0, stride_byte_offset=0) | {field: value}
    with pytest.raises(LayoutError, match=f"{field} must be a multiple of 16"):
        GmmaDescriptor(**kwargs)


@pytest.mark.parametrize("field", ["start_address", "leading_byte_offset", "stride_byte_offset"])
def test_the_range_of_an_offset_ends_at_two_to_the_eighteen(field: str) -> None:
    kwargs = dict(start_address=0, leading_byte_offset=0, stride_byte_offset=0)
    assert getattr(GmmaDescriptor(**(kwargs | {field: (1 << 18) - 16})), field) == (1 << 18) - 16
    assert getattr(GmmaDescriptor(**(kwargs | {field: 16})), field) == 16


@pytest.mark.parametrize("base_offset", [-1, 8, 9])
def test_a_base_offset_outside_three_bits_is_refused(base_offset: int) -> None:
    with pytest.raises(LayoutError, match=r"base_offset must be in \[0, 8\)"):
        GmmaDescriptor(0, 0, 0, base_offset=base_offset)
    assert GmmaDescriptor(0, 0, 0, base_offset=0).base_offset == 0


@pytest.mark.parametrize("field", ["start_address", "base_offset"])
@pytest.mark.parametrize("value", [True, 16.0, "16"])
def test_a_field_that_is_not_an_int_is_refused_by_name(field: str, value: object) -> None:
    kwargs: dict[str, object] = dict(start_address=0, leading_byte_offset=0, stride_byte_offset=0) | {field: value}
    with pytest.raises(LayoutError, match=f"{field} must be an int"):
        GmmaDescriptor(**kwargs)  # type: ignore[arg-type]


def test_numpy_integers_are_accepted_as_fields() -> None:
    desc = GmmaDescriptor(np.int64(32), np.uint16(16), np.int32(1024), "B128", np.int8(2))  # type: ignore[arg-type]
    assert desc == GmmaDescriptor(32, 16, 1024, "B128", 2) and type(desc.start_address) is int


@pytest.mark.parametrize("layout_type", ["B256", "b128", 1, None])
def test_an_unknown_layout_type_is_refused(layout_type: object) -> None:
    with pytest.raises(LayoutError, match="layout_type must be one of"):
        GmmaDescriptor(0, 0, 0, layout_type)  # type: ignore[arg-type]


@pytest.mark.parametrize("word", [-1, 1 << 64, True, 1.0, "0"])
def test_decode_refuses_what_is_not_a_64_bit_unsigned_word(word: object) -> None:
    with pytest.raises(LayoutError, match="64-bit unsigned int"):
        GmmaDescriptor.decode(word)  # type: ignore[arg-type]
    assert GmmaDescriptor.decode((1 << 64) - 1).base_offset == 7


# --- the address function ---------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [4, 8, 16, 32, 64])
@pytest.mark.parametrize("layout_type", sorted(MODES))
def test_k_major_addresses_follow_the_ptx_canonical_layout(layout_type: str, bits: int) -> None:
    w = MODES[layout_type][1]
    lbo, sbo = (2048, 256) if w == 1 else (16, 8 * 16 * w)
    for start in (0, 1024, 3 * 4096):
        desc = GmmaDescriptor(start, lbo, sbo, layout_type)
        k_ext = 16 * w * 8 // bits if w > 1 else 4 * 128 // bits
        for mn in range(24):
            for k in range(k_ext):
                assert desc.address("K", mn, k, bits) == k_major_byte(start, lbo, sbo, w, mn, k, bits), (mn, k)


@pytest.mark.parametrize("bits", [4, 8, 16, 32, 64])
@pytest.mark.parametrize("layout_type", sorted(MODES))
def test_mn_major_addresses_follow_the_ptx_canonical_layout(layout_type: str, bits: int) -> None:
    w = MODES[layout_type][1]
    lbo, sbo = (4096, 128) if w == 1 else (8 * 16 * w, 3 * 8 * 16 * w)
    for start in (0, 2048):
        desc = GmmaDescriptor(start, lbo, sbo, layout_type)
        mn_ext = 3 * 16 * w * 8 // bits
        for mn in range(mn_ext):
            for k in range(20):
                assert desc.address("MN", mn, k, bits) == mn_major_byte(start, lbo, sbo, w, mn, k, bits), (mn, k)


def test_the_swizzle_acts_on_the_absolute_address_so_an_unaligned_start_moves_chunks() -> None:
    # 128 B past a 1024-byte boundary is swizzle row 1: the first 16-byte chunk becomes chunk 1
    desc = GmmaDescriptor(128, 16, 1024, "B128")
    assert desc.address("K", 0, 0, 16) == 128 + 16
    assert desc.address("K", 0, 8, 16) == 128  # chunk 1 of row 1 is XORed back to chunk 0
    assert GmmaDescriptor(128, 16, 1024, "INTERLEAVE").address("K", 0, 0, 16) == 128


def test_a_k_major_swizzled_descriptor_covers_one_swizzle_row_of_k() -> None:
    for layout_type, row_bytes in (("B32", 32), ("B64", 64), ("B128", 128)):
        desc = GmmaDescriptor(0, 16, 8 * row_bytes, layout_type)
        last = row_bytes // 2 - 1  # 16-bit elements
        assert desc.address("K", 0, last, 16) == sw(2 * last, row_bytes // 16)
        message = (f"K-major {layout_type}: k={last + 1} ({row_bytes} bytes) is past the swizzle row of "
                   f"{row_bytes} bytes; advance start_address for the next K block")
        with pytest.raises(LayoutError, match=re.escape(message)):
            desc.address("K", 0, last + 1, 16)
    # no swizzle: K goes on through LBO
    assert GmmaDescriptor(0, 512, 128, "INTERLEAVE").address("K", 0, 8, 16) == 512


@pytest.mark.parametrize("bits", [0, 1, 2, 12, 128, -16])
def test_address_refuses_an_element_width_wgmma_has_not(bits: int) -> None:
    with pytest.raises(LayoutError, match="bits must be 4, 8, 16, 32 or 64"):
        GmmaDescriptor(0, 16, 1024, "B128").address("K", 0, 0, bits)


@pytest.mark.parametrize("mn, k", [(-1, 0), (0, -1), (-8, -8)])
def test_address_refuses_negative_coordinates(mn: int, k: int) -> None:
    with pytest.raises(LayoutError, match="coordinates must be non-negative"):
        GmmaDescriptor(0, 16, 1024, "B128").address("MN", mn, k, 16)
    assert GmmaDescriptor(0, 16, 1024, "B128").address("MN", 0, 0, 16) == 0


@pytest.mark.parametrize("major", ["k", "M", "N", "", None])
def test_address_refuses_a_major_other_than_k_or_mn(major: object) -> None:
    with pytest.raises(LayoutError, match="major must be 'K' or 'MN'"):
        GmmaDescriptor(0, 16, 1024, "B128").address(major, 0, 0, 16)  # type: ignore[arg-type]


@pytest.mark.parametrize("layout_type", sorted(MODES))
def test_swizzle_address_xors_row_bits_seven_up_into_chunk_bits_four_up(layout_type: str) -> None:
    w = MODES[layout_type][1]
    for byte in range(0, 8192, 3):
        assert swizzle_address(byte, layout_type) == sw(byte, w)
    assert swizzle_address(128 * 7 + 5, layout_type) == 128 * 7 + 16 * (7 & (w - 1)) + 5


# --- make_gmma_desc on hand-built canonical layouts ----------------------------------------------------------


def _k_swizzled(bits: int, b: int, rows: int) -> ComposedLayout:
    """K-major swizzled tile: rows of 16*2**b bytes, Swizzle<b,4,3> on bytes = Swizzle<b, 7-log2(bits), 3>."""
    per_row = 16 * (1 << b) * 8 // bits
    return ComposedLayout(Swizzle(b, 7 - (bits.bit_length() - 1), 3), 0, Layout((rows, per_row), (per_row, 1)))


@pytest.mark.parametrize("bits", [8, 16, 32])
@pytest.mark.parametrize("b, layout_type", [(1, "B32"), (2, "B64"), (3, "B128")])
def test_make_gmma_desc_reads_a_k_major_swizzled_tile(bits: int, b: int, layout_type: str) -> None:
    desc = make_gmma_desc(_k_swizzled(bits, b, 32), "K", bits, start_address=4096)
    assert desc == GmmaDescriptor(4096, 16, 8 * 16 * (1 << b), layout_type)


def test_make_gmma_desc_reads_interleaved_tiles_of_both_majors() -> None:
    # K-major: core matrices (8 rows x 8 halves), 4 down M (64 elements apart), 2 along K (256 apart)
    k_tile = Layout(((8, 4), (8, 2)), ((8, 64), (1, 256)))
    assert make_gmma_desc(k_tile, "K", 16) == GmmaDescriptor(0, 512, 128, "INTERLEAVE")
    # MN-major: 8 halves of M contiguous, 8 K rows 8 apart; 4 chunks along M 64 apart, 2 K groups 256 apart
    mn_tile = Layout(((8, 4), (8, 2)), ((1, 64), (8, 256)))
    assert make_gmma_desc(mn_tile, "MN", 16, start_address=16) == GmmaDescriptor(16, 512, 128, "INTERLEAVE")


def test_make_gmma_desc_reads_an_mn_major_swizzled_tile() -> None:
    # 64B swizzle, 16-bit: 32 M elements per 64-byte row, 8 K rows; 2 M blocks (256 el) and 2 K groups (512 el)
    tile = ComposedLayout(Swizzle(2, 3, 3), 0, Layout(((32, 2), (8, 2)), ((1, 256), (32, 512))))
    assert make_gmma_desc(tile, "MN", 16) == GmmaDescriptor(0, 512, 1024, "B64")


def test_make_gmma_desc_names_every_mode_it_tried_for_a_non_canonical_layout() -> None:
    with pytest.raises(LayoutError, match="not a canonical K-major GMMA layout for 16-bit data") as err:
        make_gmma_desc(Layout((64, 16), (1, 64)), "K", 16)
    for layout_type in ("B128", "B64", "B32", "INTERLEAVE"):
        assert f"{layout_type}: " in str(err.value)
    with pytest.raises(LayoutError, match="Layout_MN_SW128_Atom"):
        make_gmma_desc(Layout((64, 16), (16, 1)), "MN", 16)


@pytest.mark.parametrize("layout, match", [
    (5, "make_gmma_desc needs a Layout or ComposedLayout"),
    ("(8,8):(8,1)", "make_gmma_desc needs a Layout or ComposedLayout"),
    (Layout(64), "rank-2 \\(MN, K\\) layout"),
    (Layout((8, 8, 2), (8, 1, 64)), "rank-2 \\(MN, K\\) layout"),
])
def test_make_gmma_desc_refuses_what_is_not_a_rank_2_layout(layout: object, match: str) -> None:
    with pytest.raises(LayoutError, match=match):
        make_gmma_desc(layout, "K", 16)


def test_make_gmma_desc_refuses_an_array_that_has_a_shape_but_is_no_layout() -> None:
    with pytest.raises(LayoutError, match="make_gmma_desc needs a Layout or ComposedLayout"):
        make_gmma_desc(np.zeros((64, 64)), "K", 16)


@pytest.mark.parametrize("bits", [4, 64, 12, 0])
def test_make_gmma_desc_refuses_an_operand_width_other_than_8_16_32(bits: int) -> None:
    with pytest.raises(LayoutError, match="bits must be 8, 16 or 32 for a wgmma operand"):
        make_gmma_desc(_k_swizzled(16, 3, 8), "K", bits)


def test_make_gmma_desc_refuses_an_unknown_major() -> None:
    with pytest.raises(LayoutError, match="^major must be 'K' or 'MN', got 'k'$"):
        make_gmma_desc(_k_swizzled(16, 3, 8), "k", 16)

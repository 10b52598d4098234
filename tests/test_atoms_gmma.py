"""wgmma shared-memory matrix descriptor: bit encoding and make_gmma_desc on CuTe's canonical layouts."""

from __future__ import annotations

import pytest

from layoutalg.atoms.gmma import GmmaDescriptor, make_gmma_desc, swizzle_address
from layoutalg.atoms.smem import get_smem_atom, tile_to_shape
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError


def test_encoding_bit_positions():
    # start_address >> 4 in [0,14), LBO >> 4 in [16,30), SBO >> 4 in [32,46), base_offset in [49,52),
    # layout type in [62,64) with SWIZZLE_128B = 1, 64B = 2, 32B = 3 (CUTLASS GmmaDescriptor)
    d = GmmaDescriptor(0x400, 16, 1024, "B128", 3)
    assert d.encode() == 0x40 | (1 << 16) | (64 << 32) | (3 << 49) | (1 << 62)
    assert GmmaDescriptor.decode(d.encode()) == d
    for lt, code in (("INTERLEAVE", 0), ("B128", 1), ("B64", 2), ("B32", 3)):
        assert GmmaDescriptor(0, 0, 0, lt).encode() >> 62 == code
    for bad in (dict(start_address=8), dict(leading_byte_offset=-16), dict(stride_byte_offset=1 << 18)):
        kwargs = dict(start_address=0, leading_byte_offset=0, stride_byte_offset=0) | bad
        with pytest.raises(LayoutError):
            GmmaDescriptor(**kwargs)
    with pytest.raises(LayoutError):
        GmmaDescriptor(0, 0, 0, "B256")


def test_swizzle_address_is_the_128b_pattern():
    # 128B swizzle: the 16-byte chunk index (bits 4-6) is XORed with the row within 8 rows (bits 7-9)
    for row in range(8):
        for chunk in range(8):
            assert swizzle_address(128 * row + 16 * chunk + 5, "B128") == 128 * row + 16 * (chunk ^ row) + 5


@pytest.mark.parametrize("name,shape,major,lbo,sbo,layout_type", [
    # K-major: SBO = bytes between 8-row groups = 8 rows x swizzle width; LBO unused (16) when swizzled
    ("Layout_K_SW128_Atom", (64, 64), "K", 16, 8 * 128, "B128"),
    ("Layout_K_SW64_Atom", (64, 32), "K", 16, 8 * 64, "B64"),
    ("Layout_K_SW32_Atom", (64, 16), "K", 16, 8 * 32, "B32"),
    # interleave: 8x16-byte core matrices, tiled column-major: 8 of them down MN (128 B apart), then K
    ("Layout_K_INTER_Atom", (64, 16), "K", 8 * 128, 128, "INTERLEAVE"),
    # MN-major (column-major atoms tiled 2 x 2): LBO = next swizzle-wide MN block, SBO = next 8 K rows
    ("Layout_MN_SW128_Atom", (128, 16), "MN", 1024, 2048, "B128"),
    ("Layout_MN_SW64_Atom", (64, 16), "MN", 512, 1024, "B64"),
    ("Layout_MN_SW32_Atom", (64, 16), "MN", 256, 1024, "B32"),
    ("Layout_MN_INTER_Atom", (64, 16), "MN", 1024, 128, "INTERLEAVE"),
])
def test_make_gmma_desc_on_canonical_layouts(name, shape, major, lbo, sbo, layout_type):
    layout = tile_to_shape(get_smem_atom(name, 16), shape)
    desc = make_gmma_desc(layout, major, 16, start_address=2048)
    assert (desc.leading_byte_offset, desc.stride_byte_offset, desc.layout_type) == (lbo, sbo, layout_type)
    for m in range(shape[0]):
        for k in range(shape[1]):
            assert desc.address(major, m, k, 16) == 2048 + 2 * layout((m, k))


def test_make_gmma_desc_refuses_a_non_canonical_layout():
    with pytest.raises(LayoutError, match="not a canonical K-major"):
        make_gmma_desc(Layout((64, 16), (1, 64)), "K", 16)  # M contiguous is not K-major
    with pytest.raises(LayoutError):
        make_gmma_desc(Layout((64, 16), (16, 1)), "X", 16)
    with pytest.raises(LayoutError):
        make_gmma_desc(Layout(64), "K", 16)


def test_k_major_swizzled_address_stays_in_one_swizzle_row():
    with pytest.raises(LayoutError, match="next K block"):
        GmmaDescriptor(0, 16, 1024, "B128").address("K", 0, 64, 16)

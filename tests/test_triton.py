"""Triton linear layouts: export/import against the XOR-of-bases semantics and Triton's own printed forms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, NotLinearError, ParseError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.f2 import is_f2_linear
from layoutalg.swizzle.strategies import pow2_layouts, swizzled_layouts
from layoutalg.swizzle.swizzle import Swizzle
from layoutalg.swizzle.triton import TritonLinearLayout, from_triton, parse_triton, to_triton

# From Triton's own lit test (test/TritonGPU/amd/invalid.mlir): the attribute and the toString it prints.
TRITON_ATTR = (
    "#ttg.linear<{register = [[1, 0], [2, 0], [0, 1], [0, 2]], "
    "lane = [[0, 4], [0, 8], [0, 16], [4, 0], [8, 0], [16, 0]], warp = [], block = []}>"
)
TRITON_TEXT = """
 - register=1 -> (1, 0)
   register=2 -> (2, 0)
   register=4 -> (0, 1)
   register=8 -> (0, 2)
 - lane=1 -> (0, 4)
   lane=2 -> (0, 8)
   lane=4 -> (0, 16)
   lane=8 -> (4, 0)
   lane=16 -> (8, 0)
   lane=32 -> (16, 0)
 - warp is a size 1 dimension
 - block is a size 1 dimension
where out dims are: [dim0 (size 32), dim1 (size 32)]"""


def xor_of_bases(bases: dict[str, list[tuple[int, ...]]], inputs: dict[str, int], width: int) -> tuple[int, ...]:
    out = [0] * width
    for name, value in inputs.items():
        for i, vec in enumerate(bases[name]):
            if (value >> i) & 1:
                out = [o ^ v for o, v in zip(out, vec)]
    return tuple(out)


def test_triton_text_and_attribute_agree() -> None:
    from_text = parse_triton(TRITON_TEXT)
    from_attr = parse_triton(TRITON_ATTR, shape=[32, 32])
    assert from_text == from_attr
    assert from_text.to_string() == TRITON_TEXT
    assert parse_triton(from_attr.to_attribute(), shape=[32, 32]) == from_attr


def test_import_evaluates_like_triton() -> None:
    tll = parse_triton(TRITON_TEXT)
    layout = from_triton(tll, in_order=["register", "lane"])
    bases = {name: list(vecs) for name, vecs in tll.bases}
    for reg in range(16):
        for lane in range(64):
            d0, d1 = xor_of_bases(bases, {"register": reg, "lane": lane}, 2)
            assert layout(reg, lane) == d0 + 32 * d1
            assert tll(register=reg, lane=lane) == (d0, d1)


def test_mma_m16n8_accumulator_matches_triton_mmav2() -> None:
    """CuTe's SM80 16x8 C layout ((4,8),(2,2)):((32,1),(16,8)) against Triton's MMAv2 bases written from the PTX ISA.

    PTX ISA (mma.m16n8k16 C fragment): row = lane/4 + 8*(i/2), col = 2*(lane%4) + i%2.
    """
    cute_c = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))
    tll = to_triton(cute_c, [("lane", 32), ("register", 4)], out_shape=(16, 8))
    bases = dict(tll.bases)
    assert bases["register"] == ((0, 1), (8, 0))
    assert bases["lane"] == ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))
    for lane in range(32):
        for i in range(4):
            assert tll(lane=lane, register=i) == (lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2)


@given(pow2_layouts(max_modes=3))
@settings(max_examples=120, deadline=None)
def test_export_matches_layout_everywhere(layout: Layout) -> None:
    if not is_f2_linear(layout):
        with pytest.raises(NotLinearError):
            to_triton(layout)
        return
    size = layout.size()
    top = max(layout(i) for i in range(size))
    n_out = top.bit_length()
    lo = n_out // 2
    out_shape = (1 << lo, 1 << (n_out - lo))
    in_bits = (size.bit_length() - 1)
    split = in_bits // 2
    in_dims = [("lane", 1 << split), ("register", 1 << (in_bits - split))]
    tll = to_triton(layout, in_dims, out_shape)
    for i in range(size):
        lane, reg = i % (1 << split), i >> split
        offset = layout(i)
        assert tll(lane=lane, register=reg) == (offset % out_shape[0], offset // out_shape[0])
    back = from_triton(tll)
    assert [back(i) for i in range(size)] == [layout(i) for i in range(size)]
    assert parse_triton(tll.to_string()) == tll


@given(swizzled_layouts(compact=True))
@settings(max_examples=80, deadline=None)
def test_swizzled_round_trip(composed: ComposedLayout) -> None:
    tll = to_triton(composed)
    back = from_triton(tll)
    size = composed.size()
    assert [back(i) for i in range(size)] == [composed(i) for i in range(size)]


def test_swizzled_smem_tile_round_trip() -> None:
    composed = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
    tll = to_triton(composed, [("row", 8), ("col", 64)], out_shape=(64, 8))
    assert dict(tll.bases)["row"] == ((8, 1), (16, 2), (32, 4))  # row r flips chunk r: bit k of row XORs col bit 3+k
    back = from_triton(tll)
    assert back == composed


def test_errors() -> None:
    with pytest.raises(NotLinearError):
        to_triton(Layout(3, 1))
    with pytest.raises(LayoutError):
        to_triton(Layout(8, 1), [("lane", 4)])
    with pytest.raises(LayoutError):
        to_triton(Layout(8, 4), out_shape=(4,))
    with pytest.raises(ParseError):
        parse_triton(" - lane=2 -> (1)\nwhere out dims are: [dim0 (size 4)]")
    with pytest.raises(ParseError):
        parse_triton(" - lane=1 -> (1)")
    with pytest.raises(LayoutError):
        TritonLinearLayout.make({"lane": [[4]]}, {"dim0": 4})
    with pytest.raises(LayoutError):
        parse_triton(TRITON_TEXT)(register=16)
    with pytest.raises(LayoutError):
        parse_triton(TRITON_TEXT)(thread=1)

"""What Triton cannot hold, or layoutalg cannot read, is refused with a LayoutError naming it; never a wrong answer,
an internal error or a dead process.

* Gluon objects Triton's C++ aborts on (its ``assert``) are read in a forked child (``interop/isolated.py``): this
  test process surviving each of them is part of the check.
* ``#ttg`` text: every field of the kinds read here is known (an unknown one, a CTA split or an fp4 padding used
  to be dropped silently), required, and of its type.
* Shared bases: one per offset bit, inside the shape, a bijection; GF(2)-linear layouts that are no swizzle read
  as F2 strides, checked at every offset against Triton's bases by brute force.
"""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

import layoutalg as la
from layoutalg import LayoutError
from layoutalg.errors import ParseError
from layoutalg.interop import isolated
from layoutalg.interop.triton import from_triton

gl = pytest.importorskip("triton.experimental.gluon.language")


# ----------------------------------------------------------------------------- the forked child


def _abort() -> None:
    os.abort()


def _raise() -> None:
    raise RuntimeError("the library says no")


def _sleep() -> None:
    time.sleep(30)


def test_run_isolated_returns_results_and_turns_deaths_errors_and_hangs_into_layout_errors(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert isolated.run_isolated(sorted, ([3, 1, 2],), "sorting") == [1, 2, 3]
    with pytest.raises(LayoutError, match=r"aborting: the library aborted \(signal 6\)"):
        isolated.run_isolated(_abort, (), "aborting")
    with pytest.raises(LayoutError, match="refused it: RuntimeError: the library says no"):
        isolated.run_isolated(_raise, (), "raising")
    monkeypatch.setattr(isolated, "TIME_LIMIT", 0.5)
    start = time.monotonic()
    with pytest.raises(LayoutError, match="did not answer within"):
        isolated.run_isolated(_sleep, (), "sleeping")
    assert time.monotonic() - start < 10


@pytest.mark.parametrize(("obj", "shape", "words"), [
    (gl.NVMMADistributedLayout([1, 0], [4, 1], [16, 8]), (64, 64), "aborted"),  # Triton: isHopper()
    (gl.NVMMADistributedLayout([4, 0], [2, 2], [16, 8]), (32, 32), "aborted"),
    (gl.NVMMADistributedLayout([2, 0], [3, 2], [16, 8]), (32, 32), "aborted"),  # 3 warps
    (gl.NVMMADistributedLayout([3, 0], [4, 1], [16, 24, 16]), (64, 64), "aborted"),
    (gl.DotOperandLayout(0, gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 3), (32, 32), "aborted"),
    (gl.BlockedLayout([3, 1], [4, 8], [1, 1], [1, 0]), (8, 8), "RuntimeError: Every element in sizePerThread"),
    (gl.DotOperandLayout(0, gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 0), (32, 32), "refused it"),
])
def test_gluon_objects_triton_cannot_build_are_layout_errors(obj: Any, shape: tuple[int, int], words: str) -> None:
    with pytest.raises(LayoutError, match=words):
        from_triton(obj, shape=shape)
    # the process lives on and still reads a valid layout
    assert from_triton(gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]), shape=(64, 64)).size() == 4096


# ----------------------------------------------------------------------------- #ttg text

BLOCKED = "sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]"


@pytest.mark.parametrize("text", [
    f"#ttg.blocked<{{{BLOCKED}, CGALayout = [[1, 0]]}}>",
    f"#ttg.blocked<{{{BLOCKED}, CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[1, 0]]}>",
    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CGALayout = [[0, 1]]}>",
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8], "
    "CGALayout = [[1, 0]]}>",
])
def test_text_of_a_layout_spread_over_several_ctas_is_refused(text: str) -> None:
    with pytest.raises(ParseError, match="spread over several CTAs"):
        from_triton(text, shape=(64, 64))


def test_single_cta_fields_read_as_the_plain_text() -> None:
    plain = from_triton(f"#ttg.blocked<{{{BLOCKED}}}>", shape=(64, 64))
    for extra in ("CGALayout = []", "CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]"):
        assert from_triton(f"#ttg.blocked<{{{BLOCKED}, {extra}}}>", shape=(64, 64)) == plain


@pytest.mark.parametrize(("text", "words"), [
    (f"#ttg.blocked<{{{BLOCKED}, foo = 3}}>", "no field 'foo'"),
    ("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8}>", "needs the field.* order"),
    ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2]}>", "needs the field.* instrShape"),
    ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false}>", "needs the field.* elementBitWidth"),
    ("#ttg.linear<{register = 3, lane = [[0, 2]], warp = [], block = []}>", "'register' holds a list of"),
    ("#ttg.blocked<{sizePerThread = 1, threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>",
     "'sizePerThread' holds a list of integers"),
    ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = 1, elementBitWidth = 16}>", "'transposed' holds true"),
    ("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2}>, kWidth = 2}>", "nested attribute"),
])
def test_text_fields_are_known_required_and_typed(text: str, words: str) -> None:
    with pytest.raises(ParseError, match=words):
        from_triton(text, shape=(64, 64))


def test_fp4_padded_text_is_refused_as_the_object_is() -> None:
    text = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8, fp4Padded = true}>"
    obj = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=8, rank=2, transposed=True, fp4_padded=True)
    for layout in (text, obj):
        with pytest.raises(LayoutError, match="fp4-padded"):
            from_triton(layout, shape=(128, 64))


# ----------------------------------------------------------------------------- shared bases


@pytest.mark.parametrize(("layout", "shape", "words"), [
    (gl.SharedLinearLayout([[0, -1], [1, 0]]), (2, 2), "outside"),
    (gl.SharedLinearLayout([[0, 1], [1, 0], [0, 2]]), (2, 2), "3 offset bases for the 4 elements"),
    (gl.SharedLinearLayout([[0, 1], [0, 1]]), None, "2 offset bases for the 2 elements"),
    (gl.SharedLinearLayout([[0, 1], [0, 1]]), (1, 4), "not a bijection"),
    (gl.SwizzledSharedLayout(8, 0, 8, [1, 0]), (8, 8), "per_phase is a positive integer"),
    (gl.SwizzledSharedLayout(8, 1, 0, [1, 0]), (8, 8), "max_phase is a positive integer"),
    ("#ttg.padded_shared<[0:+4] {order = [1, 0], shape = [8, 8]}>", None, r"interval 0 of \[0, 4\]"),
    ("#ttg.padded_shared<[8:+3] {order = [1, 0], shape = [8, 8]}>", None, r"padding 3 of \[8, 3\]"),
    ("#ttg.shared_linear<{offset = [[0, 1], [1]]}, alignment = 16>", None, "2 non-negative coordinates"),
    ("#ttg.linear<{register = [[0, 9]], lane = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = [], block = []}>",
     (8, 8), "not a coordinate of the shape"),
])
def test_invalid_shared_and_linear_bases_are_refused(layout: Any, shape: Any, words: str) -> None:
    with pytest.raises(LayoutError, match=words):
        from_triton(layout, shape=shape)


def _triton_offsets(bases: list[list[int]], shape: tuple[int, int]) -> dict[int, int]:
    """Brute force: offset -> colexicographic tile index, the XOR of the bases of the offset's bits."""
    out = {}
    for offset in range(1 << len(bases)):
        coord = [0, 0]
        for k, basis in enumerate(bases):
            if offset >> k & 1:
                coord = [coord[0] ^ basis[0], coord[1] ^ basis[1]]
        out[offset] = coord[0] + shape[0] * coord[1]
    return out


@pytest.mark.parametrize(("bases", "shape"), [
    ([[32, 0], [40, 0], [48, 0], [2, 0], [1, 0], [6, 0], [0, 1]], (64, 2)),
    ([[1, 1], [0, 1], [2, 0], [4, 1]], (8, 2)),
    ([[3, 0], [1, 0], [0, 1], [4, 1]], (8, 2)),
])
def test_gf2_linear_shared_layouts_of_no_swizzle_form_read_exactly(bases: list[list[int]],
                                                                    shape: tuple[int, int]) -> None:
    ours = from_triton(gl.SharedLinearLayout(bases), shape=shape)
    index_of = _triton_offsets(bases, shape)
    assert sorted(index_of.values()) == list(range(shape[0] * shape[1]))  # a bijection, so a shared layout
    assert all(int(ours(index)) == offset for offset, index in index_of.items())


@pytest.mark.parametrize(("shape", "dtype"), [((32, 2), "float16"), ((2, 64), "float16"), ((4, 64), "float32"),
                                              ((64, 4), "float8e4nv"), ((1, 8), "float16")])
def test_unswizzled_nvmma_layouts_triton_picks_for_small_tiles_are_row_major(shape: tuple[int, int],
                                                                            dtype: str) -> None:
    obj = gl.NVMMASharedLayout.get_default_for(list(shape), getattr(gl, dtype))
    assert obj.swizzle_byte_width == 0
    ours = from_triton(obj, shape=shape)
    assert [int(ours(m + shape[0] * n)) for n in range(shape[1]) for m in range(shape[0])] == \
        [m * shape[1] + n for n in range(shape[1]) for m in range(shape[0])]


def test_a_layout_string_with_a_shape_is_still_parsed_as_layout_text() -> None:
    assert la.as_layout("(8,8):(8,1)", shape=(8, 8)) == la.parse("(8,8):(8,1)")


# ----------------------------------------------------------------------------- every XOR map reads back


def _random_distributed(rng: Any) -> Any:
    """A random Triton distributed layout onto an 8 x 16 tile: 5 lane bases and 2 register bases drawn from the
    tile's 7 coordinate bits under a random invertible XOR mix, then one register basis repeated (a broadcast)."""
    columns = [1 << k for k in range(7)]
    for _ in range(12):  # random row operations keep the columns a basis
        i, j = rng.sample(range(7), 2)
        columns[i] ^= columns[j]
    rng.shuffle(columns)
    coords = [[c % 8, c // 8] for c in columns]
    return gl.DistributedLinearLayout(reg_bases=coords[5:] + [coords[5]], lane_bases=coords[:5], warp_bases=[],
                                      block_bases=[], shape=[8, 16])


def _bases_values(obj: Any) -> list[int]:
    """Brute force: the tile index (m + 8 n) of every (thread, register) point, thread-major as a TV layout."""
    out = []
    regs, lanes = obj.reg_bases, obj.lane_bases
    for r in range(1 << len(regs)):
        for t in range(1 << len(lanes)):
            m = n = 0
            for k, basis in enumerate(lanes):
                if t >> k & 1:
                    m, n = m ^ basis[0], n ^ basis[1]
            for k, basis in enumerate(regs):
                if r >> k & 1:
                    m, n = m ^ basis[0], n ^ basis[1]
            out.append(m + 8 * n)
    return out


def test_random_xor_distributed_layouts_read_exactly_and_round_trip() -> None:
    import random

    rng = random.Random(1811)
    f2_forms = 0
    for _ in range(60):
        obj = _random_distributed(rng)
        ours = from_triton(obj)
        assert [int(ours(i)) for i in range(ours.size())] == _bases_values(obj)
        back = la.to_triton(ours, tile=(8, 16))
        assert _bases_values(back) == _bases_values(obj)
        f2_forms += isinstance(ours, la.StrideLayout)
    assert f2_forms > 0  # some have no swizzle form and need the F2 strides


def _random_shared_bases(rng: Any, rows: int, cols: int) -> list[list[int]]:
    """Offset bases of a random bijection onto a rows x cols tile: the unit coordinates under random XOR mixing."""
    bits = (rows * cols).bit_length() - 1
    columns = [1 << k for k in range(bits)]
    for _ in range(3 * bits):
        i, j = rng.sample(range(bits), 2)
        columns[i] ^= columns[j]
    return [[c % rows, c // rows] for c in columns]


def test_random_xor_shared_layouts_read_exactly_and_export_again() -> None:
    import random

    rng = random.Random(1812)
    f2_forms = 0
    for _ in range(40):
        rows, cols = rng.choice([(8, 8), (16, 4), (64, 2), (4, 32)])
        bases = _random_shared_bases(rng, rows, cols)
        ours = from_triton(gl.SharedLinearLayout(bases), shape=(rows, cols))
        index_of = _triton_offsets(bases, (rows, cols))
        assert all(int(ours(index)) == offset for offset, index in index_of.items())
        back = la.to_triton(ours, dtype="f16")
        assert _triton_offsets([list(b) for b in back.offset_bases], (rows, cols)) == index_of
        f2_forms += isinstance(ours, la.StrideLayout)
    assert f2_forms > 0


def test_xor_distributed_layouts_without_registers_read_and_export() -> None:
    obj = gl.DistributedLinearLayout(reg_bases=[], lane_bases=[[0, 10], [0, 21], [0, 1], [0, 6], [0, 2]],
                                     warp_bases=[], block_bases=[], shape=[1, 32])
    ours = from_triton(obj)
    assert [int(ours(i)) for i in range(32)] == [
        (10 * (t & 1)) ^ (21 * (t >> 1 & 1)) ^ (t >> 2 & 1) ^ (6 * (t >> 3 & 1)) ^ (2 * (t >> 4 & 1)) for t in range(32)]
    back = la.to_triton(ours, tile=(1, 32))
    assert back.lane_bases == obj.lane_bases and back.reg_bases == []


def test_tv_values_past_int64_are_layout_errors() -> None:
    for text in ("((2,2,2,2,2),2):((1,2,4,8,16),9223372036854775808)",
                 "((2,2,2,2,2),2):((F1,F2,F4,F8,F16),F9223372036854775808)"):
        with pytest.raises(LayoutError, match="past"):
            la.to_triton(la.parse(text), tile=(64, 1))

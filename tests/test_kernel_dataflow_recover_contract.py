"""Layout recovery (layoutalg/kernel/dataflow/recover.py) on one-warp kernels built here: thread t holds A's
element (m, k) = (t % 8, t / 8) of an 8 x 4 A (16-bit, row-major in global memory) and writes it to shared
element ``L(m, k)`` for a layout L chosen by the test (an exact per-lane table, no arithmetic the model
could misread); reads come back from the same places.  The oracle is L itself: the recovered layout plus its
offset must equal L (less its least offset: offsets count from the matrix's first shared element) on every
(m, k) of the 8 x 4 tile, by brute force; a map no ``Layout`` / ``Swizzle o Layout`` reproduces gets none and
says why; a tile written again after a barrier at a fixed distance gets a stage mode."""

from __future__ import annotations

import random

import numpy as np
import pytest

from layoutalg.core.layout import Layout
from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
SPECS = {"a": "pA@(8,4):(4,1)", "b": "pB@(4,8):(8,1)", "c": "pC@(8,8):(8,1)"}
COORDS = [(t % 8, t // 8) for t in range(32)]


def lane_table(dst: str, values: list[int]) -> list[str]:
    out = [f"mov.u32 {dst}, {values[0]};"]
    for lane in range(1, 32):
        out += [f"setp.eq.u32 %p1, %r1, {lane};", f"selp.b32 {dst}, {values[lane]}, {dst}, %p1;"]
    return out


def kernel(epochs: list[list[int]], read: bool = True) -> str:
    """Per barrier epoch, thread t writes its A element to shared element epochs[e][t] (then reads it back)."""
    body = [HEADER, ".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
            ".reg .pred %p<4>;", ".reg .b16 %h<4>;", ".reg .b32 %r<16>;", ".reg .b64 %rd<8>;",
            ".shared .align 16 .b8 sm[4096];", "ld.param.u64 %rd1, [pA];", "mov.u32 %r1, %tid.x;",
            "and.b32 %r2, %r1, 7;", "shr.u32 %r3, %r1, 3;", "mad.lo.u32 %r4, %r2, 4, %r3;",  # A element 4 m + k
            "mul.wide.u32 %rd2, %r4, 2;", "add.s64 %rd3, %rd1, %rd2;", "ld.global.u16 %h1, [%rd3];",
            "mov.u32 %r6, sm;"]
    for offsets in epochs:
        body += [*lane_table("%r5", offsets), "mad.lo.u32 %r7, %r5, 2, %r6;", "st.shared.u16 [%r7], %h1;",
                 "bar.sync 0;"]
        if read:
            body += ["ld.shared.u16 %h2, [%r7];", "bar.sync 0;"]
    return "\n".join(body + ["ret;", "}", ""])


def recovered(epochs: list[list[int]], read: bool = True) -> list:
    return check_mma(trace(parse_module(kernel(epochs, read)), block=32), **SPECS).layouts()


def table(f) -> list[int]:
    """L(m, k) for thread t's (m, k)."""
    return [int(f(m + 8 * k)) for m, k in COORDS]


def assert_same_function(rec, offsets: list[int], lo: int | None = None) -> None:
    """rec.layout(m + 8 k) + rec.offset == L(m, k) - lo (default min L) on the whole tile."""
    assert rec.layout is not None, rec.note
    lo = min(offsets) if lo is None else lo
    got = np.asarray(rec.layout.to_numpy())
    for (m, k), want in zip(COORDS, offsets):
        value = int(got[m + 8 * k])
        value = value ^ rec.offset if isinstance(rec.layout, ComposedLayout) and rec.offset else value + rec.offset
        assert value == want - lo, (m, k)


LAYOUTS = [Layout((8, 4), (4, 1)), Layout((8, 4), (1, 8)), Layout(((2, 4), 4), ((1, 16), 4)),
           Layout((8, 4), (2, 16)), Layout((8, 4), (1, 64))]


@pytest.mark.parametrize("lay", LAYOUTS, ids=str)
@pytest.mark.parametrize("base", [0, 100])
def test_a_written_and_read_layout_is_recovered_as_the_same_function(lay: Layout, base: int) -> None:
    offsets = [x + base for x in table(lay)]
    recs = recovered([offsets])
    assert [(r.opcode, r.direction, r.matrix, r.tile) for r in recs] == \
        [("st.shared.u16", "write", "A", (8, 4)), ("ld.shared.u16", "read", "A", (8, 4))]
    for r in recs:
        assert_same_function(r, offsets)
        assert not r.own and r.element_bytes == 2


@pytest.mark.parametrize("sw", [Swizzle(2, 0, 3), Swizzle(1, 1, 3), Swizzle(1, 0, 4)], ids=str)
def test_a_swizzled_layout_is_recovered_as_a_swizzle_of_a_layout(sw: Swizzle) -> None:
    offsets = [int(sw(x)) for x in table(Layout((8, 4), (4, 1)))]
    for r in recovered([offsets]):
        assert isinstance(r.layout, ComposedLayout)
        assert_same_function(r, offsets)


def test_a_map_no_layout_reproduces_gets_no_layout_and_says_why() -> None:
    offsets = list(range(32))
    random.Random(5).shuffle(offsets)
    recs = recovered([offsets])
    assert [r.layout for r in recs] == [None, None]
    assert all(r.note.startswith("no layout of the form Layout or Swizzle o Layout fits its accesses") for r in recs)


def test_a_tile_written_again_after_a_barrier_at_a_fixed_distance_is_a_stage_mode() -> None:
    lay = Layout((8, 4), (4, 1))
    first = table(lay)
    recs = recovered([first, [x + 32 for x in first], [x + 64 for x in first]], read=False)
    assert len(recs) == 3
    for r in recs:
        assert r.tile == (8, 4, 3) and r.offset == 0
        got = np.asarray(r.layout.to_numpy())
        for s in range(3):
            for (m, k), want in zip(COORDS, first):
                assert int(got[m + 8 * k + 32 * s]) == want + 32 * s
        assert r.note == "stages 3 x 32" and len(r.lines) == 3  # one pooled fit of the three writes


def test_uneven_bases_are_no_stage_mode_each_write_keeps_its_own_offset() -> None:
    first = table(Layout((8, 4), (4, 1)))
    recs = recovered([first, [x + 32 for x in first], [x + 96 for x in first]], read=False)
    assert [r.offset for r in recs] == [0, 32, 96]
    for r, shift in zip(recs, (0, 32, 96)):
        assert r.tile == (8, 4) and r.note == "per-execution bases [0, 32, 96]"
        assert_same_function(r, [x + shift for x in first], lo=0)


def rotated_lanes(text: str) -> str:
    """Thread t holds the element of thread (t + 25) % 32 (and writes it where that thread would): lane 0 holds
    (m, k) = (1, 3), so no instance's first sample is the tile's origin or on its first row or column."""
    return text.replace("mov.u32 %r1, %tid.x;", "mov.u32 %r1, %tid.x;\nadd.u32 %r1, %r1, 25;\nand.b32 %r1, %r1, 31;")


@pytest.mark.parametrize("first", [[31 - x for x in table(Layout((8, 4), (4, 1)))],
                                   [int(Swizzle(2, 0, 3)(x)) for x in table(Layout((8, 4), (4, 1)))]],
                         ids=["descending", "swizzled"])
def test_stages_of_a_descending_or_swizzled_tile_are_recovered_whatever_lane_holds_the_origin(first: list) -> None:
    """The tile written in three epochs 32 apart, at L(m, k) = 31 - (4 m + k) (its least offset, stage 0's base,
    is at (7, 3), not at the origin) or at Sw<2,0,3>(4 m + k); lanes rotated.  The stage layout must give every
    element of every stage."""
    stages = [[x + 32 * s for x in first] for s in range(3)]
    recs = check_mma(trace(parse_module(rotated_lanes(kernel(stages, read=False))), block=32), **SPECS).layouts()
    assert len(recs) == 3
    for r in recs:
        assert r.tile == (8, 4, 3) and r.note == "stages 3 x 32" and not r.own
        got = np.asarray(r.layout.to_numpy())
        composed = isinstance(r.layout, ComposedLayout)
        for s, offsets in enumerate(stages):
            for (m, k), want in zip(COORDS, offsets):
                value = int(got[m + 8 * k + 32 * s])
                assert (value ^ r.offset if composed else value + r.offset) == want, (s, m, k)


def test_two_writes_of_different_layouts_each_get_their_own_fit() -> None:
    row, col = table(Layout((8, 4), (4, 1))), table(Layout((8, 4), (1, 8)))
    recs = recovered([row, [x + 32 for x in col]], read=False)
    assert [r.own for r in recs] == [True, True]
    assert [r.note for r in recs] == ["", ""]  # no pooled fit to differ from: the writes together fit none
    assert_same_function(recs[0], row)
    assert_same_function(recs[1], [x + 32 for x in col], lo=0)  # offsets count from A's first shared element


SPECS_K8 = {"a": "pA@(8,8):(8,1)", "b": "pB@(8,8):(8,1)", "c": "pC@(8,8):(8,1)"}


def kernel_k8(epochs: list[list[list[int]]]) -> str:
    """A is 8 x 8; per barrier epoch, store h (one per list) writes thread t's element (t % 8, t / 8 + 4 h)."""
    body = [HEADER, ".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
            ".reg .pred %p<4>;", ".reg .b16 %h<4>;", ".reg .b32 %r<16>;", ".reg .b64 %rd<8>;",
            ".shared .align 16 .b8 sm[4096];", "ld.param.u64 %rd1, [pA];", "mov.u32 %r1, %tid.x;",
            "and.b32 %r2, %r1, 7;", "shr.u32 %r3, %r1, 3;", "mov.u32 %r6, sm;"]
    for stores in epochs:
        for h, offsets in enumerate(stores):
            body += [f"add.u32 %r8, %r3, {4 * h};", "mad.lo.u32 %r4, %r2, 8, %r8;", "mul.wide.u32 %rd2, %r4, 2;",
                     "add.s64 %rd3, %rd1, %rd2;", "ld.global.u16 %h1, [%rd3];", *lane_table("%r5", offsets),
                     "mad.lo.u32 %r7, %r5, 2, %r6;", "st.shared.u16 [%r7], %h1;"]
        body.append("bar.sync 0;")
    return "\n".join(body + ["ret;", "}", ""])


def test_stages_one_epoch_covers_together_continue_the_k_mode() -> None:
    """Two stores per epoch write k 0..3 and k 4..7 at L and L + 32: the K mode is 8 wide, no stage mode."""
    lo = table(Layout((8, 4), (4, 1)))
    recs = check_mma(trace(parse_module(kernel_k8([[lo, [x + 32 for x in lo]]])), block=32), **SPECS_K8).layouts()
    assert len(recs) == 2
    for r in recs:
        assert r.tile == (8, 8) and r.note == ""
        got = np.asarray(r.layout.to_numpy())
        for m in range(8):
            for k in range(8):
                assert int(got[m + 8 * k]) + r.offset == 4 * m + k % 4 + 32 * (k // 4), (m, k)


def test_epochs_beyond_the_k_width_stay_pipeline_stages() -> None:
    lo = table(Layout((8, 4), (4, 1)))
    epochs = [[[x + 64 * s for x in lo], [x + 64 * s + 32 for x in lo]] for s in range(3)]
    recs = check_mma(trace(parse_module(kernel_k8(epochs)), block=32), **SPECS_K8).layouts()
    assert len(recs) == 6
    for r in recs:
        assert r.tile == (8, 8, 3) and r.note == "stages 3 x 64"
        got = np.asarray(r.layout.to_numpy())
        for s in range(3):
            for m in range(8):
                for k in range(8):
                    assert int(got[m + 8 * k + 64 * s]) + r.offset == 4 * m + k % 4 + 32 * (k // 4) + 64 * s


def _assert_stages_of_32(recs: list, stages: int, lo: list) -> None:
    """Every record is an 8 x 4 tile of ``stages`` stages 32 apart, each stage ``lo`` shifted by 32 per stage."""
    for r in recs:
        assert r.tile == (8, 4, stages) and r.note == f"stages {stages} x 32"
        got = np.asarray(r.layout.to_numpy())
        assert [int(got[m + 8 * k + 32 * s]) + r.offset for s in range(stages) for m, k in COORDS] == \
            [x + 32 * s for s in range(stages) for x in lo]


def test_stages_that_do_not_fill_whole_k_widths_all_stay_pipeline_stages() -> None:
    """Two epochs cover k 0..7 (two stores each), the last only k 0..3: five bases 32 apart.  The common epoch
    width is 8 = two k-tiles, but five stages are not whole pairs: none folds into K, all five stay stages."""
    lo = table(Layout((8, 4), (4, 1)))
    epochs = [[lo, [x + 32 for x in lo]], [[x + 64 for x in lo], [x + 96 for x in lo]], [[x + 128 for x in lo]]]
    recs = check_mma(trace(parse_module(kernel_k8(epochs)), block=32), **SPECS_K8).layouts()
    assert len(recs) == 5
    _assert_stages_of_32(recs, 5, lo)


def kernel_ktiles(epochs: list[list[tuple[int, int, list[int]]]], cols: int) -> list:
    """The recovered writes of a kernel over an 8 x ``cols`` A: per barrier epoch, each store (kt, lanes, offsets)
    has threads t < lanes write their element (t % 8, t / 8 + 4 kt) (k-tile kt) to shared element offsets[t]."""
    body = [HEADER, ".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
            ".reg .pred %p<4>;", ".reg .b16 %h<4>;", ".reg .b32 %r<16>;", ".reg .b64 %rd<8>;",
            ".shared .align 16 .b8 sm[4096];", "ld.param.u64 %rd1, [pA];", "mov.u32 %r1, %tid.x;",
            "and.b32 %r2, %r1, 7;", "shr.u32 %r3, %r1, 3;", "mov.u32 %r6, sm;"]
    for stores in epochs:
        for kt, lanes, offsets in stores:
            body += [f"add.u32 %r8, %r3, {4 * kt};", f"mad.lo.u32 %r4, %r2, {cols}, %r8;", "mul.wide.u32 %rd2, %r4, 2;",
                     "add.s64 %rd3, %rd1, %rd2;", "ld.global.u16 %h1, [%rd3];", *lane_table("%r5", offsets),
                     "mad.lo.u32 %r7, %r5, 2, %r6;", f"setp.lt.u32 %p2, %r1, {lanes};", "@%p2 st.shared.u16 [%r7], %h1;"]
        body.append("bar.sync 0;")
    specs = {"a": f"pA@(8,{cols}):({cols},1)", "b": f"pB@({cols},8):(8,1)", "c": "pC@(8,8):(8,1)"}
    return check_mma(trace(parse_module("\n".join(body + ["ret;", "}", ""])), block=32), **specs).layouts()


def _assert_k_of_8_in_stages_of_64(recs: list, stages: int) -> None:
    """Every record: k 0..7 of each stage at 4 m + k % 4 + 32 (k / 4), stages 64 apart."""
    for r in recs:
        assert r.tile == (8, 8, stages) and r.note == f"stages {stages} x 64" and not r.own
        got = np.asarray(r.layout.to_numpy())
        assert [int(got[m + 8 * k + 64 * s]) + r.offset for s in range(stages) for k in range(8) for m in range(8)] \
            == [4 * m + k % 4 + 32 * (k // 4) + 64 * s for s in range(stages) for k in range(8) for m in range(8)]


def test_successive_epochs_on_successive_k_tiles_each_cover_their_own_k_width() -> None:
    """A mainloop: epoch e writes k-tiles 2e and 2e + 1 (k 8e..8e+7) at L + 64 e and L + 64 e + 32 over a 32-wide
    K.  Each epoch touches 8 k (its own range, not a neighbour's), so two k-tiles continue K: 4 stages of 8 x 8."""
    lo = table(Layout((8, 4), (4, 1)))
    epochs = [[(kt, 32, [x + 32 * kt for x in lo]) for kt in (2 * e, 2 * e + 1)] for e in range(4)]
    recs = kernel_ktiles(epochs, 32)
    assert len(recs) == 8
    _assert_k_of_8_in_stages_of_64(recs, 4)


def test_the_k_width_most_epochs_touch_decides_how_many_stages_continue_k() -> None:
    """Three epochs write k 0..7 (two k-tiles), two more only k 0..3: 8 stages 32 apart; the common epoch width
    is 8, so pairs of stages continue K (4 stages of 8 x 8), as in the even case."""
    lo = table(Layout((8, 4), (4, 1)))
    epochs = [[(0, 32, [x + 64 * e for x in lo]), (1, 32, [x + 64 * e + 32 for x in lo])] for e in range(3)] + \
        [[(0, 32, [x + 192 + 32 * j for x in lo])] for j in range(2)]
    recs = kernel_ktiles(epochs, 8)
    assert len(recs) == 8
    _assert_k_of_8_in_stages_of_64(recs, 4)


def test_epochs_touching_part_of_a_k_tile_count_as_one_k_tile_wide() -> None:
    """Three epochs write k 0..7, four more only k 0..1 (two) or k 0 (two): the partial ones each count as one
    k-tile (4) wide, so 4 is the common width and all 10 stages stay pipeline stages."""
    lo = table(Layout((8, 4), (4, 1)))
    epochs = [[(0, 32, [x + 64 * e for x in lo]), (1, 32, [x + 64 * e + 32 for x in lo])] for e in range(3)] + \
        [[(0, 16 if j < 2 else 8, [x + 192 + 32 * j for x in lo])] for j in range(4)]
    recs = kernel_ktiles(epochs, 8)
    assert len(recs) == 10
    _assert_stages_of_32(recs, 10, lo)


def test_a_k_tile_one_element_wide_is_recovered() -> None:
    """A is 32 x 1: every access holds k = 0 only, so the tile is 32 x 1."""
    body = [HEADER, ".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
            ".reg .pred %p<4>;", ".reg .b16 %h<4>;", ".reg .b32 %r<16>;", ".reg .b64 %rd<8>;",
            ".shared .align 16 .b8 sm[4096];", "ld.param.u64 %rd1, [pA];", "mov.u32 %r1, %tid.x;",
            "mul.wide.u32 %rd2, %r1, 2;", "add.s64 %rd3, %rd1, %rd2;", "ld.global.u16 %h1, [%rd3];", "mov.u32 %r6, sm;",
            *lane_table("%r5", [3 * t for t in range(32)]), "mad.lo.u32 %r7, %r5, 2, %r6;", "st.shared.u16 [%r7], %h1;",
            "ret;", "}", ""]
    specs = {"a": "pA@(32,1):(1,1)", "b": "pB@(1,8):(8,1)", "c": "pC@(32,8):(8,1)"}
    (r,) = check_mma(trace(parse_module("\n".join(body)), block=32), **specs).layouts()
    assert r.tile == (32, 1) and r.layout is not None
    assert [int(x) for x in np.asarray(r.layout.to_numpy())[:32]] == [3 * t for t in range(32)]


@pytest.mark.parametrize("lay", [Layout((4, 8), (8, 1)), Layout((4, 8), (1, 4))], ids=str)
def test_accumulators_staged_in_shared_memory_give_cs_layout_in_32_bit_elements(lay: Layout) -> None:
    """The harness's scalar GEMM (lane l holds the accumulator of C(l / 8, l % 8)) stores it to shared
    element L(m, n) of 4 bytes."""
    from kernel_dataflow_contract_harness import SPECS as GEMM_SPECS
    from kernel_dataflow_contract_harness import gemm

    offsets = [int(lay(m + 4 * n)) for m, n in ((lane // 8, lane % 8) for lane in range(32))]
    tail = ("mov.u32 %r41, %tid.x;", *[x.replace("%r1,", "%r41,").replace("%p1", "%p3") for x in lane_table("%r42", offsets)],
            "mov.u32 %r43, sm;", "mad.lo.u32 %r44, %r42, 4, %r43;", "st.shared.f32 [%r44], %f31;")
    text = gemm(tail=tail).replace(".reg .b64 %rd<64>;", ".reg .b64 %rd<64>;\n.shared .align 16 .b8 sm[256];")
    (r,) = check_mma(trace(parse_module(text), block=32), **GEMM_SPECS).layouts()
    assert (r.matrix, r.element_bytes, r.tile, r.direction) == ("C", 4, (4, 8), "write")
    got = np.asarray(r.layout.to_numpy())
    assert [int(got[m + 4 * n]) + r.offset for m in range(4) for n in range(8)] == \
        [int(lay(m + 4 * n)) for m in range(4) for n in range(8)]


def test_a_tile_copied_twice_in_one_epoch_is_two_copies_each_with_its_base() -> None:
    """Two stores of the same 8 x 4 tile before one barrier, at L and L + 32: each copy is a stage."""
    lo = table(Layout((8, 4), (4, 1)))
    specs = {"a": "pA@(8,4):(4,1)", "b": "pB@(4,8):(8,1)", "c": "pC@(8,8):(8,1)"}
    text = kernel([lo], read=False).replace("st.shared.u16 [%r7], %h1;",
                                            "st.shared.u16 [%r7], %h1;\nst.shared.u16 [%r7+64], %h1;")
    recs = check_mma(trace(parse_module(text), block=32), **specs).layouts()
    assert len(recs) == 2
    _assert_stages_of_32(recs, 2, lo)


def copies_in_one_epoch(copies: list[int]) -> list:
    """The recovered writes of a kernel whose epoch e stores the 8 x 4 tile ``copies[e]`` times, the j-th copy
    overall (counting on across epochs) at L + 32 j (one store each)."""
    lo = table(Layout((8, 4), (4, 1)))
    store = "st.shared.u16 [%r7], %h1;"
    parts = kernel([[x + 32 * sum(copies[:e]) for x in lo] for e in range(len(copies))], read=False) \
        .replace("sm[4096]", "sm[8192]").split(store)
    text = parts[0]
    for e, count in enumerate(copies):
        text += store + "".join(f"\nst.shared.u16 [%r7+{64 * j}], %h1;" for j in range(1, count)) + parts[e + 1]
    return check_mma(trace(parse_module(text), block=32), **SPECS).layouts()


@pytest.mark.parametrize("copies", [[64, 1], [65], [63, 2]], ids=str)
def test_sixty_four_and_more_copies_of_a_tile_in_one_epoch_each_keep_their_own_base(copies: list[int]) -> None:
    """65 copies 32 apart are 65 stages of one pooled fit however the barriers split them: the copies of one
    epoch are told apart by count, past any fixed number of copies."""
    recs = copies_in_one_epoch(copies)
    assert len(recs) == 65 and not any(r.own for r in recs)
    _assert_stages_of_32(recs, 65, table(Layout((8, 4), (4, 1))))


def test_an_instruction_whose_own_accesses_fit_no_layout_says_its_own_reason_not_the_pooled_one() -> None:
    """Two writes of C (4-byte accumulators): a shuffled st.shared.f32 (no layout fits it) and a st.shared.u16 of
    each accumulator's low half at a byte 2 mod 4 (not aligned to the element).  The pooled writes fail on the
    alignment; each instruction then reports why its own accesses fit no layout."""
    from kernel_dataflow_contract_harness import SPECS as GEMM_SPECS
    from kernel_dataflow_contract_harness import gemm

    shuffled = list(range(32))
    random.Random(5).shuffle(shuffled)
    tail = ("mov.u32 %r41, %tid.x;", *[x.replace("%r1,", "%r41,").replace("%p1", "%p3") for x in lane_table("%r42", shuffled)],
            "mov.u32 %r43, sm;", "mad.lo.u32 %r44, %r42, 4, %r43;", "st.shared.f32 [%r44], %f31;",
            "mov.b32 {%h1, %h2}, %f31;", "mad.lo.u32 %r45, %r41, 4, %r43;", "st.shared.u16 [%r45+130], %h1;")
    text = gemm(tail=tail).replace(".reg .b64 %rd<64>;", ".reg .b64 %rd<64>;\n.shared .align 16 .b8 sm[512];")
    recs = check_mma(trace(parse_module(text), block=32), **GEMM_SPECS).layouts()
    assert [(r.opcode, r.matrix, r.layout) for r in recs] == [("st.shared.f32", "C", None), ("st.shared.u16", "C", None)]
    assert recs[0].note.startswith("no layout of the form Layout or Swizzle o Layout fits its accesses")
    assert recs[1].note == "elements are not aligned to their size in shared memory"


def staged_accumulators(lay: Layout, lanes: str) -> list:
    """The scalar GEMM's accumulators (lane l: C(l / 8, l % 8)) staged to shared element L(m, n) by the lanes
    with ``n`` (= lane % 8, %r4) satisfying ``lanes`` (a setp comparison with an immediate, e.g. 'ge 4')."""
    from kernel_dataflow_contract_harness import SPECS as GEMM_SPECS
    from kernel_dataflow_contract_harness import gemm

    offsets = [int(lay(m + 4 * n)) for m, n in ((lane // 8, lane % 8) for lane in range(32))]
    cmp, bound = lanes.split()
    tail = ("mov.u32 %r41, %tid.x;", *[x.replace("%r1,", "%r41,").replace("%p1", "%p3") for x in lane_table("%r42", offsets)],
            "mov.u32 %r43, sm;", "mad.lo.u32 %r44, %r42, 4, %r43;", f"setp.{cmp}.u32 %p4, %r4, {bound};",
            "@%p4 st.shared.f32 [%r44], %f31;")
    text = gemm(tail=tail).replace(".reg .b64 %rd<64>;", ".reg .b64 %rd<64>;\n.shared .align 16 .b8 sm[256];")
    return check_mma(trace(parse_module(text), block=32), **GEMM_SPECS).layouts()


def test_a_c_tile_staged_from_column_4_on_is_recovered_over_its_own_columns() -> None:
    """Only C's columns n = 4..7 are staged: the tile is 4 x 4 from column 4, (m, n - 4) -> L(m, n) (less the least
    offset: offsets count from C's first shared element)."""
    lay = Layout((4, 8), (8, 1))
    (r,) = staged_accumulators(lay, "ge 4")
    assert (r.matrix, r.tile) == ("C", (4, 4)) and r.layout is not None, r.note
    got = np.asarray(r.layout.to_numpy())
    want = [int(lay(m + 4 * n)) for m in range(4) for n in range(4, 8)]
    assert [int(got[m + 4 * (n - 4)]) + r.offset for m in range(4) for n in range(4, 8)] == [x - min(want) for x in want]


def test_a_c_tile_two_columns_wide_is_a_two_column_tile() -> None:
    lay = Layout((4, 8), (1, 4))
    (r,) = staged_accumulators(lay, "lt 2")
    assert (r.matrix, r.tile) == ("C", (4, 2)) and r.layout is not None, r.note
    got = np.asarray(r.layout.to_numpy())
    assert [int(got[m + 4 * n]) + r.offset for m in range(4) for n in range(2)] == \
        [int(lay(m + 4 * n)) for m in range(4) for n in range(2)]


def test_an_a_tile_of_rows_8_to_15_is_recovered_over_its_own_rows() -> None:
    """A is 16 x 4 and the kernel reads rows 8..15 (its pointer 8 rows on): the tile is 8 x 4 from row 8."""
    lay = Layout((8, 4), (1, 8))
    offsets = table(lay)
    text = kernel([offsets]).replace("ld.param.u64 %rd1, [pA];", "ld.param.u64 %rd1, [pA];\nadd.s64 %rd1, %rd1, 64;")
    recs = check_mma(trace(parse_module(text), block=32), **{**SPECS, "a": "pA@(16,4):(4,1)", "c": "pC@(16,8):(8,1)"}).layouts()
    assert [(r.matrix, r.tile) for r in recs] == [("A", (8, 4)), ("A", (8, 4))]
    for r in recs:
        assert_same_function(r, offsets)


def test_an_a_tile_two_rows_high_is_a_two_row_tile() -> None:
    """A is 2 x 16: thread t holds A(t % 2, t / 2) and writes it to shared L(m, k)."""
    lay = Layout((2, 16), (16, 1))
    coords = [(t % 2, t // 2) for t in range(32)]
    offsets = [int(lay(m + 2 * k)) for m, k in coords]
    text = kernel([offsets]).replace("and.b32 %r2, %r1, 7;", "and.b32 %r2, %r1, 1;") \
        .replace("shr.u32 %r3, %r1, 3;", "shr.u32 %r3, %r1, 1;").replace("mad.lo.u32 %r4, %r2, 4, %r3;", "mad.lo.u32 %r4, %r2, 16, %r3;")
    specs = {"a": "pA@(2,16):(16,1)", "b": "pB@(16,8):(8,1)", "c": "pC@(2,8):(8,1)"}
    recs = check_mma(trace(parse_module(text), block=32), **specs).layouts()
    assert [(r.matrix, r.tile) for r in recs] == [("A", (2, 16)), ("A", (2, 16))]
    for r in recs:
        got = np.asarray(r.layout.to_numpy())
        assert [int(got[m + 2 * k]) + r.offset for m, k in coords] == offsets


@pytest.mark.parametrize("copies", [[1, 2], [2, 1], [2, 2], [1, 3]], ids=str)
def test_copies_of_a_tile_in_successive_epochs_each_keep_their_own_base(copies: list[int]) -> None:
    """Epoch e writes the 8 x 4 tile ``copies[e]`` times, copy j at L + 96 e + 32 j (one store each): every store
    is recovered as L at its own offset from the writes' pooled fit, however many copies the epochs before held."""
    lo = table(Layout((8, 4), (4, 1)))
    store = "st.shared.u16 [%r7], %h1;"
    parts = kernel([[x + 96 * e for x in lo] for e in range(len(copies))], read=False).split(store)
    text = parts[0]
    for e, count in enumerate(copies):
        text += store + "".join(f"\nst.shared.u16 [%r7+{64 * j}], %h1;" for j in range(1, count)) + parts[e + 1]
    recs = check_mma(trace(parse_module(text), block=32), **SPECS).layouts()
    assert [r.offset for r in recs] == [96 * e + 32 * j for e, count in enumerate(copies) for j in range(count)]
    for r in recs:
        assert r.layout == Layout((8, 4), (4, 1)) and not r.own and len(r.lines) == sum(copies)


def test_a_half_tile_in_one_epoch_does_not_shift_the_copies_of_the_next() -> None:
    """Epoch 0 writes only k = 0, 1 of the tile (threads 0..15), epoch 1 the whole tile twice (L + 96 and L + 128):
    copies are counted per epoch, so each of epoch 1's stores keeps one base however epoch 0 covered the tile."""
    lo = table(Layout((8, 4), (4, 1)))
    store = "st.shared.u16 [%r7], %h1;"
    first, second, rest = kernel([lo, [x + 96 for x in lo]], read=False).split(store)
    text = first + "setp.lt.u32 %p2, %r1, 16;\n@%p2 " + store + second + store + "\nst.shared.u16 [%r7+64], %h1;" + rest
    recs = check_mma(trace(parse_module(text), block=32), **SPECS).layouts()
    assert [r.offset for r in recs] == [0, 96, 128]
    for r in recs:
        assert r.layout == Layout((8, 4), (4, 1)) and not r.own


def test_k_tiles_of_one_epoch_are_counted_apart_when_they_cover_the_tile_unevenly() -> None:
    """One epoch of the 8 x 8 A: k-tile 0 (k 0..3) written only for k 0, 1 (threads 0..15) at L, k-tile 1 written
    whole twice, at L + 32 and L + 96: each store keeps its own base."""
    lo = table(Layout((8, 4), (4, 1)))
    store = "st.shared.u16 [%r7], %h1;"
    first, second, rest = kernel_k8([[lo, [x + 32 for x in lo]]]).split(store)
    text = first + "setp.lt.u32 %p2, %r1, 16;\n@%p2 " + store + second + store + "\nst.shared.u16 [%r7+128], %h1;" + rest
    recs = check_mma(trace(parse_module(text), block=32), **SPECS_K8).layouts()
    assert [r.offset for r in recs] == [0, 32, 96]
    for r in recs:
        assert r.layout == Layout((8, 4), (4, 1)) and r.tile == (8, 4) and not r.own


def two_warp_k_tiles(distance: int) -> list:
    """Two warps, one epoch, A of 8 x (distance + 4): warp 0's lanes 0..15 store their elements (m, k) = (l % 8,
    l / 8) at L, warp 1 stores its elements (l % 8, distance + l / 8) twice, at L + 32 and L + 96 (l: lane)."""
    lo = table(Layout((8, 4), (4, 1)))
    cols = distance + 4
    body = [HEADER, ".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
            ".reg .pred %p<4>;", ".reg .b16 %h<4>;", ".reg .b32 %r<16>;", ".reg .b64 %rd<8>;",
            ".shared .align 16 .b8 sm[4096];", "ld.param.u64 %rd1, [pA];", "mov.u32 %r1, %laneid;",
            "mov.u32 %r9, %tid.x;", "shr.u32 %r9, %r9, 5;", "and.b32 %r2, %r1, 7;", "shr.u32 %r3, %r1, 3;",
            f"mad.lo.u32 %r3, %r9, {distance}, %r3;", f"mad.lo.u32 %r4, %r2, {cols}, %r3;", "mul.wide.u32 %rd2, %r4, 2;",
            "add.s64 %rd3, %rd1, %rd2;", "ld.global.u16 %h1, [%rd3];", "mov.u32 %r6, sm;", *lane_table("%r5", lo),
            "mad.lo.u32 %r7, %r5, 2, %r6;", "setp.eq.u32 %p3, %r9, 1;", "setp.lt.u32 %p2, %r1, 16;", "@%p3 bra W1;",
            "@%p2 st.shared.u16 [%r7], %h1;", "bra DONE;", "W1:", "st.shared.u16 [%r7+64], %h1;",
            "st.shared.u16 [%r7+192], %h1;", "DONE:", "bar.sync 0;", "ret;", "}", ""]
    specs = {"a": f"pA@(8,{cols}):({cols},1)", "b": f"pB@({cols},8):(8,1)", "c": "pC@(8,8):(8,1)"}
    return check_mma(trace(parse_module("\n".join(body)), block=64), **specs).layouts()


@pytest.mark.parametrize("distance", [4, 1024, 4096], ids=str)
def test_k_tiles_far_apart_in_one_epoch_are_counted_apart(distance: int) -> None:
    """As the uneven k-tiles above, with the two k-tiles 1, 256 or 1024 k-tiles apart (warps of a split k): each
    store keeps its own base, however far apart the k-tiles lie."""
    recs = two_warp_k_tiles(distance)
    assert [(r.offset, r.tile, r.own) for r in recs] == [(0, (8, 4), False), (32, (8, 4), False), (96, (8, 4), False)]
    for r in recs:
        assert r.layout == Layout((8, 4), (4, 1)) and r.note == "per-execution bases [0, 32, 96]"


def test_a_b_tile_stored_beside_a_is_recovered_as_b_not_as_a() -> None:
    """Thread t also loads B's element (k, n) = (t / 8, t % 8) (row-major 4 x 8, so at t) and stores it to shared
    element 256 + t: that store is B's, (n, k) -> n + 8 k in CuTe's (N, K) order; the A store stays A's."""
    lay = Layout((8, 4), (4, 1))
    text = kernel([table(lay)], read=False).replace(
        "st.shared.u16 [%r7], %h1;",
        "st.shared.u16 [%r7], %h1;\nld.param.u64 %rd4, [pB];\nmul.wide.u32 %rd5, %r1, 2;\nadd.s64 %rd6, %rd4, %rd5;\n"
        "ld.global.u16 %h2, [%rd6];\nmad.lo.u32 %r8, %r1, 2, %r6;\nst.shared.u16 [%r8+512], %h2;")
    recs = check_mma(trace(parse_module(text), block=32), **SPECS).layouts()
    assert [(r.matrix, r.tile) for r in recs] == [("A", (8, 4)), ("B", (8, 4))]
    assert_same_function(recs[0], table(lay))
    got = np.asarray(recs[1].layout.to_numpy())
    assert [int(got[n + 8 * k]) + recs[1].offset for k in range(4) for n in range(8)] == list(range(32))


def test_a_swizzled_write_of_half_the_tile_keeps_its_base_as_offset() -> None:
    """Swizzle(2,0,3) o (8,4):(4,1) written whole at base 0, only for k = 2, 3 (threads 16..31) at base 32, and whole
    at base 96 (uneven bases: no stage mode): the half write's offset is its base, 32, although it never touches the
    coordinates the swizzle maps to 0."""
    sw = Swizzle(2, 0, 3)
    lo = [int(sw(x)) for x in table(Layout((8, 4), (4, 1)))]
    store = "st.shared.u16 [%r7], %h1;"
    first, second, third, rest = kernel([lo, [x + 32 for x in lo], [x + 96 for x in lo]], read=False).split(store)
    text = first + store + second + "setp.ge.u32 %p2, %r1, 16;\n@%p2 " + store + third + store + rest
    recs = check_mma(trace(parse_module(text), block=32), **SPECS).layouts()
    assert [r.offset for r in recs] == [0, 32, 96]
    for r in recs:
        assert isinstance(r.layout, ComposedLayout) and not r.own
        assert_same_function(r, [x + r.offset for x in lo], lo=0)


def test_a_write_whose_accesses_the_pooled_fit_splits_across_bases_gets_its_own_fit_and_says_it_differs() -> None:
    """One epoch: threads 0..15 store k = 0, 1 of the tile at L, then every thread stores the whole tile at L + 32.
    Pooled by copy, the second store's k = 0, 1 are a second copy and its k = 2, 3 a first one: the pooled fit puts
    them at different bases, so the second store is fitted alone (L at offset 32) and says it differs."""
    lo = table(Layout((8, 4), (4, 1)))
    store = "st.shared.u16 [%r7], %h1;"
    first, rest = kernel([lo], read=False).split(store)
    text = first + "setp.lt.u32 %p2, %r1, 16;\n@%p2 " + store + "\nst.shared.u16 [%r7+64], %h1;" + rest
    recs = check_mma(trace(parse_module(text), block=32), **SPECS).layouts()
    second = recs[1]
    assert (second.own, second.note, second.offset, second.layout) == \
        (True, "differs from the other writes of A", 32, Layout((8, 4), (4, 1)))


def test_an_a_tile_across_an_aligned_row_block_does_not_fit_one_tile() -> None:
    """A is 16 x 4 and the kernel reads rows 1..8: 8 rows make an 8-row tile, but rows 1..8 straddle the aligned
    blocks 0..7 and 8..15 (row 8 is one past the block of row 1), so no 8-row tile holds them and the recovery says so."""
    text = kernel([table(Layout((8, 4), (4, 1)))]).replace("ld.param.u64 %rd1, [pA];",
                                                            "ld.param.u64 %rd1, [pA];\nadd.s64 %rd1, %rd1, 8;")
    recs = check_mma(trace(parse_module(text), block=32), **{**SPECS, "a": "pA@(16,4):(4,1)", "c": "pC@(16,8):(8,1)"}).layouts()
    assert [(r.matrix, r.layout, r.note) for r in recs] == [("A", None, "the accesses do not fit one tile")] * 2


def test_a_c_tile_across_an_aligned_column_block_does_not_fit_one_tile() -> None:
    """Only C's columns 1..4 are staged: four columns, but they straddle the aligned 4-column blocks 0..3, 4..7."""
    from kernel_dataflow_contract_harness import SPECS as GEMM_SPECS
    from kernel_dataflow_contract_harness import gemm

    lay = Layout((4, 8), (8, 1))
    offsets = [int(lay(m + 4 * n)) for m, n in ((lane // 8, lane % 8) for lane in range(32))]
    tail = ("mov.u32 %r41, %tid.x;", *[x.replace("%r1,", "%r41,").replace("%p1", "%p3") for x in lane_table("%r42", offsets)],
            "mov.u32 %r43, sm;", "mad.lo.u32 %r44, %r42, 4, %r43;", "setp.ge.u32 %p4, %r4, 1;",
            "setp.lt.u32 %p5, %r4, 5;", "and.pred %p4, %p4, %p5;", "@%p4 st.shared.f32 [%r44], %f31;")
    text = gemm(tail=tail).replace(".reg .b64 %rd<64>;", ".reg .b64 %rd<64>;\n.shared .align 16 .b8 sm[256];")
    (r,) = check_mma(trace(parse_module(text), block=32), **GEMM_SPECS).layouts()
    assert (r.matrix, r.layout, r.note) == ("C", None, "the accesses do not fit one tile")


def test_a_write_of_part_of_the_tile_at_a_base_sharing_bits_with_the_layout_keeps_that_base_as_offset() -> None:
    """L = (8,4):(4,1) written whole at base 0, only for k = 2, 3 at base 34, whole at base 96 (uneven: no stage
    mode): the part write's offset is 34 (its elements sit at L(m, k) + 34), not a value read off its least element."""
    lo = table(Layout((8, 4), (4, 1)))
    store = "st.shared.u16 [%r7], %h1;"
    first, second, third, rest = kernel([lo, [x + 34 for x in lo], [x + 96 for x in lo]], read=False).split(store)
    text = first + store + second + "setp.ge.u32 %p2, %r1, 16;\n@%p2 " + store + third + store + rest
    recs = check_mma(trace(parse_module(text), block=32), **SPECS).layouts()
    assert [(r.offset, r.layout, r.own) for r in recs] == [(b, Layout((8, 4), (4, 1)), False) for b in (0, 34, 96)]


def test_an_instruction_moving_no_matrix_element_is_reported_as_such_in_16_bit_units() -> None:
    """A store of untagged data (the thread index) to shared memory: no matrix, no layout, 32 lanes x one unit."""
    text = kernel([table(Layout((8, 4), (4, 1)))], read=False).replace("st.shared.u16 [%r7], %h1;",
                                                                       "cvt.u16.u32 %h3, %r1;\nst.shared.u16 [%r7], %h3;")
    (r,) = check_mma(trace(parse_module(text), block=32), **SPECS).layouts()
    assert r.as_dict() == {"line": r.line, "opcode": "st.shared.u16", "direction": "write", "atom": r.atom,
                           "matrix": None, "element_bits": 16, "tile": [], "layout": None, "offset": 0,
                           "own_fit": False, "note": "its accesses carry no element of A, B or C", "samples": 32}


def test_the_k_tile_width_counts_every_access_of_the_execution_the_first_one_included() -> None:
    """Thread 0 stores (0, 0) and threads 8..15 store (m, 1): one warp execution touches k 0..1, a 2-wide k-tile
    (the only access at k = 0 is the execution's first): the tile is 8 x 2 at L = (8,4):(4,1) restricted to it."""
    store = "st.shared.u16 [%r7], %h1;"
    guard = ["setp.eq.u32 %p2, %r1, 0;", "setp.ge.u32 %p3, %r1, 8;", "setp.lt.u32 %p1, %r1, 16;",
             "and.pred %p3, %p3, %p1;", "or.pred %p2, %p2, %p3;", "@%p2 " + store]
    text = kernel([table(Layout((8, 4), (4, 1)))], read=False).replace(store, "\n".join(guard))
    (r,) = check_mma(trace(parse_module(text), block=32), **SPECS).layouts()
    assert (r.tile, r.layout, r.offset) == ((8, 2), Layout((8, 2), (4, 1)), 0)


def test_one_store_of_two_warps_on_k_tiles_far_apart_keeps_each_warp_s_k_tile_width() -> None:
    """Both warps run one store in one epoch: warp w stores its A elements (l % 8, 8 w + l / 8) (k-tiles 0 and 2 of a
    12-wide K) at L + 64 w.  Each warp execution touches a 4-wide k-tile, so the tile is 8 x 4 and the two k-tiles
    are two bases 64 apart (the epoch's 16-wide k block is no whole number of 2 bases: no K continuation)."""
    lo = table(Layout((8, 4), (4, 1)))
    body = [HEADER, ".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
            ".reg .pred %p<4>;", ".reg .b16 %h<4>;", ".reg .b32 %r<16>;", ".reg .b64 %rd<8>;",
            ".shared .align 16 .b8 sm[4096];", "ld.param.u64 %rd1, [pA];", "mov.u32 %r1, %laneid;",
            "mov.u32 %r9, %tid.x;", "shr.u32 %r9, %r9, 5;", "and.b32 %r2, %r1, 7;", "shr.u32 %r3, %r1, 3;",
            "mad.lo.u32 %r3, %r9, 8, %r3;", "mad.lo.u32 %r4, %r2, 12, %r3;", "mul.wide.u32 %rd2, %r4, 2;",
            "add.s64 %rd3, %rd1, %rd2;", "ld.global.u16 %h1, [%rd3];", "mov.u32 %r6, sm;", *lane_table("%r5", lo),
            "mad.lo.u32 %r5, %r9, 64, %r5;", "mad.lo.u32 %r7, %r5, 2, %r6;", "st.shared.u16 [%r7], %h1;",
            "bar.sync 0;", "ret;", "}", ""]
    specs = {"a": "pA@(8,12):(12,1)", "b": "pB@(12,8):(8,1)", "c": "pC@(8,8):(8,1)"}
    (r,) = check_mma(trace(parse_module("\n".join(body)), block=64), **specs).layouts()
    assert (r.tile, r.layout, r.offset, r.note) == ((8, 4, 2), Layout((8, 4, 2), (4, 1, 64)), 0, "stages 2 x 64")


def test_an_instruction_fitted_alone_counts_epochs_touching_part_of_a_k_tile_as_one_k_tile_wide() -> None:
    """A 8 x 8, two warps, one store in a 7-iteration loop with a barrier each: iterations 0..2 have warp w store
    k-tile w (k 4w..4w+3), iterations 3, 4 have warp 0's lanes 0..7 store k = 0 and iterations 5, 6 its lanes 0..15
    store k = 0, 1; the g-th copy sits at L + 32 g (L = (8,4):(4,1)).  A column-major store of warp 0 after the loop
    keeps the pooled fit from existing, so the loop's store is fitted alone.  Three epochs span 8 k, four touch part
    of one k-tile (each counts 4 wide): 4 is the common width, so all 10 copies stay pipeline stages."""
    lo, col = table(Layout((8, 4), (4, 1))), table(Layout((8, 4), (1, 8)))
    body = [HEADER, ".visible .entry k(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
            ".reg .pred %p<8>;", ".reg .b16 %h<4>;", ".reg .b32 %r<32>;", ".reg .b64 %rd<8>;",
            ".shared .align 16 .b8 sm[4096];", "ld.param.u64 %rd1, [pA];", "mov.u32 %r1, %laneid;",
            "mov.u32 %r9, %tid.x;", "shr.u32 %r9, %r9, 5;", "mov.u32 %r6, sm;", *lane_table("%r5", lo),
            *[x.replace("%p1", "%p5") for x in lane_table("%r27", col)],
            "mov.u32 %r20, 0;", "LOOP:",  # %r20: iteration e; %r23: copy g; %r24: k-tile; %p3: the storing lanes
            "setp.lt.u32 %p1, %r20, 3;", "mad.lo.u32 %r21, %r20, 2, %r9;", "add.u32 %r22, %r20, 3;",
            "selp.b32 %r23, %r21, %r22, %p1;", "selp.b32 %r24, %r9, 0, %p1;",
            "setp.lt.u32 %p2, %r20, 5;", "selp.b32 %r25, 8, 16, %p2;", "setp.lt.u32 %p3, %r1, %r25;",
            "setp.eq.u32 %p2, %r9, 0;", "and.pred %p3, %p3, %p2;", "or.pred %p3, %p3, %p1;",
            "shr.u32 %r3, %r1, 3;", "mad.lo.u32 %r3, %r24, 4, %r3;", "and.b32 %r2, %r1, 7;",
            "mad.lo.u32 %r4, %r2, 8, %r3;", "mul.wide.u32 %rd2, %r4, 2;", "add.s64 %rd3, %rd1, %rd2;",
            "ld.global.u16 %h1, [%rd3];", "mad.lo.u32 %r26, %r23, 32, %r5;", "mad.lo.u32 %r7, %r26, 2, %r6;",
            "@%p3 st.shared.u16 [%r7], %h1;", "bar.sync 0;", "add.u32 %r20, %r20, 1;", "setp.lt.u32 %p1, %r20, 7;",
            "@%p1 bra LOOP;",
            "shr.u32 %r3, %r1, 3;", "and.b32 %r2, %r1, 7;", "mad.lo.u32 %r4, %r2, 8, %r3;", "mul.wide.u32 %rd2, %r4, 2;",
            "add.s64 %rd3, %rd1, %rd2;", "ld.global.u16 %h1, [%rd3];", "add.u32 %r28, %r27, 1024;",
            "mad.lo.u32 %r7, %r28, 2, %r6;", "setp.eq.u32 %p2, %r9, 0;", "@%p2 st.shared.u16 [%r7], %h1;",
            "ret;", "}", ""]
    specs = {"a": "pA@(8,8):(8,1)", "b": "pB@(8,8):(8,1)", "c": "pC@(8,8):(8,1)"}
    loop, after = check_mma(trace(parse_module("\n".join(body)), block=64), **specs).layouts()
    assert (loop.own, loop.tile, loop.layout, loop.offset) == (True, (8, 4, 10), Layout((8, 4, 10), (4, 1, 32)), 0)
    assert (after.own, after.layout, after.offset) == (True, Layout((8, 4), (1, 8)), 1024)


def test_a_c_tile_one_column_wide_is_a_one_column_tile() -> None:
    # only column n = 0 is staged: C's tile is 4 x 1 (one column, not rounded up to two)
    lay = Layout((4, 8), (1, 4))
    (r,) = staged_accumulators(lay, "lt 1")
    assert (r.matrix, r.tile) == ("C", (4, 1)) and r.layout is not None, r.note
    got = np.asarray(r.layout.to_numpy())
    assert [int(got[m]) + r.offset for m in range(4)] == [int(lay(m)) for m in range(4)]


@pytest.mark.parametrize("lay", [Layout((4, 8), (8, 1)), Layout((4, 8), (1, 4))], ids=str)
def test_16_bit_accumulators_staged_in_shared_memory_give_cs_layout_in_16_bit_elements(lay: Layout) -> None:
    """The f16 GEMM (lane l = 8 m + n holds the f16 accumulator of C(m, n)) stores it to shared element L(m, n)
    of 2 bytes."""
    from kernel_dataflow_contract_harness import SPECS as GEMM_SPECS
    from test_kernel_dataflow_c_stores_contract import F16_GEMM

    offsets = [int(lay(m + 4 * n)) for m, n in ((lane // 8, lane % 8) for lane in range(32))]
    tail = [*lane_table("%r12", offsets),
            "mov.u32 %r13, sm;", "mad.lo.u32 %r14, %r12, 2, %r13;", "st.shared.b16 [%r14], %h6;"]
    store = "st.global.b16 [%rd5], %h6;"
    text = F16_GEMM.replace(store, store + "\n" + "\n".join(tail))
    text = text.replace(".reg .b16 %h<8>;", ".reg .pred %p<4>;\n.reg .b16 %h<8>;\n.shared .align 16 .b8 sm[256];")
    (r,) = check_mma(trace(parse_module(text), block=32), **GEMM_SPECS).layouts()
    assert (r.matrix, r.element_bytes, r.tile, r.direction) == ("C", 2, (4, 8), "write"), r.note
    got = np.asarray(r.layout.to_numpy())
    assert [int(got[m + 4 * n]) + r.offset for m in range(4) for n in range(8)] == \
        [int(lay(m + 4 * n)) for m in range(4) for n in range(8)]

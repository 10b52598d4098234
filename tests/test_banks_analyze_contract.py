"""banks.analyze: byte addresses, input guards and the Analysis summaries (worst, conflict_bits, summary).

Truths are written here: addresses are ``element bytes * layout(coordinate)`` called per lane, and the colliding
bits of an instance whose conflicted banks each hold two words are the set bits of those two byte addresses' XOR.
"""

from __future__ import annotations

import dataclasses
import types

import numpy as np
import pytest

from layoutalg.banks.access import Access
from layoutalg.banks.analyze import Analysis, analyze, byte_addresses
from layoutalg.core.layout import Layout
from layoutalg.errors import CoordinateError, LayoutError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

LD32 = "ld.shared.b32"
LDSM_X1 = "ldmatrix.sync.aligned.m8n8.x1.shared.b16"
LINE = Layout((512,), (1,))


def _lanes(fn, **ranges):
    return Access.from_fn(LD32, fn, **ranges)


def _two_word_banks(lane, i=0):
    """Lanes 0-15 read words 0-15, lanes 16-31 words 96-111: 16 banks of two words 384 bytes apart."""
    return (lane % 16 + 96 * (lane // 16),)


def _colliding_bits(addresses) -> dict[int, int]:
    """Per bit, the conflicted banks whose two distinct words differ there (every bank here holds <= 2 words)."""
    counts: dict[int, int] = {}
    for row in np.asarray(addresses).reshape(-1, 32):
        words: dict[int, set[int]] = {}
        for a in row:
            words.setdefault(int(a) // 4 % 32, set()).add(int(a) // 4)
        for ws in words.values():
            assert len(ws) <= 2
            if len(ws) == 2:
                a, b = sorted(ws)
                diff = (a * 4) ^ (b * 4)
                for bit in range(diff.bit_length()):
                    counts[bit] = counts.get(bit, 0) + (diff >> bit & 1)
    return {b: n for b, n in counts.items() if n}


# ---------------------------------------------------------------- Analysis summaries


def test_worst_ranks_instances_by_excess_not_by_cost():
    res = Analysis(LD32, ("i",), np.array([4, 3, 1]), np.array([4, 1, 1]), np.zeros((3, 32), dtype=np.int64))
    assert res.worst(1) == [({"i": 1}, 3, 1)]
    assert [idx["i"] for idx, _, _ in res.worst()] == [1, 0, 2]


def test_worst_lists_five_instances_by_default():
    res = analyze(LINE, _lanes(_two_word_banks, i=7), "f32")
    assert len(res.worst()) == 5 and len(res.worst(7)) == 7


def test_conflict_bits_are_the_bits_where_colliding_words_differ():
    res = analyze(LINE, _lanes(_two_word_banks, i=1), "f32")
    assert res.total - res.total_ideal == 1  # 16 banks of 2 words: 2 wavefronts for ideal 1
    assert res.conflict_bits() == _colliding_bits(res.addresses) == {7: 16, 8: 16}


def test_conflict_bits_limit_counts_conflicted_instances_only():
    # instance 0 is conflict-free (32 consecutive words), instance 1 has the two-word banks
    fn = lambda lane, i: (np.where(i == 0, lane, lane % 16 + 96 * (lane // 16)),)  # noqa: E731
    res = analyze(LINE, _lanes(fn, i=2), "f32")
    assert list(res.wavefronts - res.ideal) == [0, 1]
    assert res.conflict_bits(limit=1) == _colliding_bits(res.addresses[1]) == {7: 16, 8: 16}


def test_conflict_bits_looks_at_256_conflicted_instances_by_default():
    res = analyze(LINE, _lanes(_two_word_banks, i=300), "f32")
    assert res.conflict_bits() == {7: 16 * 256, 8: 16 * 256}


def test_summary_names_the_three_worst_instances():
    text = analyze(LINE, _lanes(_two_word_banks, i=6), "f32").summary()
    assert sum(line.startswith("  worst: ") for line in text.splitlines()) == 3


def test_analysis_cannot_be_altered_after_it_is_built():
    res = analyze(LINE, _lanes(_two_word_banks, i=1), "f32")
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.instruction = "st.shared.b32"  # type: ignore[misc]


# ---------------------------------------------------------------- byte_addresses


def test_byte_addresses_start_at_byte_zero_by_default():
    addrs = byte_addresses(Layout((64,), (2,)), _lanes(lambda lane: (lane,)), "f32")
    assert [int(a) for a in addrs] == [8 * lane for lane in range(32)]


class _DuckLayout:
    """A layout from elsewhere: shape, a scalar __call__ and to_numpy (no Layout/ComposedLayout class)."""

    def __init__(self, layout):
        self._layout = layout
        self.shape = layout.shape

    def __call__(self, *crd):
        return self._layout(*crd)

    def to_numpy(self):
        return self._layout.to_numpy()


def test_a_duck_typed_layout_is_evaluated_like_the_layout_it_wraps():
    inner = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((32, 64), (64, 1)))
    acc = Access.from_fn(LD32, lambda lane, k: (lane, (lane * 3 + 2 * k) % 64), k=4)
    addrs = byte_addresses(_DuckLayout(inner), acc, "f32", base=256)
    expect = [[256 + 4 * inner(lane, (lane * 3 + 2 * k) % 64) for lane in range(32)] for k in range(4)]
    assert addrs.tolist() == expect
    assert analyze(_DuckLayout(inner), acc, "f32").wavefronts.tolist() == analyze(inner, acc, "f32").wavefronts.tolist()


@pytest.mark.parametrize("obj", [types.SimpleNamespace(shape=(512,)), types.SimpleNamespace(to_numpy=lambda: None)])
def test_byte_addresses_refuses_an_object_that_is_not_a_layout(obj):
    with pytest.raises(LayoutError, match="smem_layout must be a Layout or ComposedLayout"):
        byte_addresses(obj, _lanes(lambda lane: (lane,)), "f32")


def test_a_coordinate_equal_to_the_extent_is_out_of_range_and_named():
    acc = _lanes(lambda lane: (lane % 8, lane // 8 * 4))  # columns 0, 4, 8, 12 of a 16-column layout: 12 fits
    byte_addresses(Layout((8, 16), (16, 1)), acc, "f32")
    with pytest.raises(CoordinateError, match="access coordinate 12 in mode 1 is outside smem_layout's extent 12"):
        byte_addresses(Layout((8, 12), (12, 1)), acc, "f32")


def test_lanes_an_ldmatrix_x1_ignores_may_hold_any_coordinate_and_get_address_zero():
    # x1 uses lanes 0-7 (PTX); the rest hold coordinates outside the layout, even of an extent-1 mode
    coords = np.full((32, 3), 999, dtype=np.int64)
    coords[:8] = [[r, 0, 0] for r in range(8)]
    tile = Layout((8, 8, 1), (8, 1, 64))
    addrs = byte_addresses(tile, Access(LDSM_X1, coords), "f16")
    assert [int(a) for a in addrs] == [16 * r for r in range(8)] + [0] * 24
    assert int(analyze(tile, Access(LDSM_X1, coords), "f16").total) == 1  # 8 rows of one 128-byte line


# ---------------------------------------------------------------- analyze guards


def test_analyze_refuses_an_object_with_only_half_a_tiled_copy():
    half = types.SimpleNamespace(layout_tv=Layout((32,), (1,)))
    with pytest.raises(LayoutError, match="access must be an Access or an instruction string"):
        analyze(LINE, half, "f32")


def test_analyze_refuses_a_callable_without_a_shape_as_smem_layout():
    with pytest.raises(LayoutError, match="smem_layout must be a Layout or a ComposedLayout"):
        analyze(lambda *c: 0, LD32, "f32")


@pytest.mark.parametrize("access", [42, None, [LD32]])
def test_analyze_refuses_an_access_of_another_type(access):
    with pytest.raises(LayoutError, match="access must be an Access or an instruction string"):
        analyze(LINE, access, "f32")


def test_cp_async_without_global_layout_says_how_to_pass_it():
    tile = Layout((32, 32), (32, 1))
    with pytest.raises(LayoutError, match="cost depends on where each lane's data comes from; pass global_layout="):
        analyze(tile, "cp.async.cg", "f32")


def test_a_symbolic_access_is_refused_by_analysis_and_suggestion_and_still_proved():
    from layoutalg import Layout
    from layoutalg.banks.analyze import analyze
    from layoutalg.banks.proof import conflict_free, symbolic_access
    from layoutalg.banks.suggest import suggest_swizzle
    from layoutalg.prove import param

    k = param("k", 4)
    access = symbolic_access("ld.shared.b32", lambda lane, i: (lane + 32 * k, i), i=2)
    layout = Layout((128, 2), (1, 128))
    for call in (lambda: analyze(layout, access, "f32"), lambda: suggest_swizzle((128, 2), "f32", [access])):
        with pytest.raises(LayoutError, match="symbolic .*conflict_free"):
            call()
    assert conflict_free(layout, access, "f32").proved


@pytest.mark.parametrize("stride", [2**63 - 1, 2**64 + 1, 2**57])
def test_an_offset_past_any_shared_memory_is_refused_naming_it(stride: int) -> None:
    """A row stride past int64 raised numpy's OverflowError out of conflict_free / analyze; the offset of row 1 is
    ``stride`` itself, so that is the one named."""
    from layoutalg import prove
    from layoutalg.core.layout import Layout
    from layoutalg.errors import InstructionError

    smem = Layout((64, 64), (stride, 1))
    for call in (lambda: prove.conflict_free(smem, "ldmatrix.x4", "f16"), lambda: analyze(smem, "ldmatrix.x4", "f16")):
        with pytest.raises(InstructionError, match=r"puts a lane at byte address \d+, outside any GPU's shared memory"):
            call()


@pytest.mark.parametrize("base", [0.5, 4.0, "4", None])
def test_a_base_that_is_not_an_int_is_refused_naming_it(base):
    # int(base) used to turn 4.7 into 4 and "4" into 4 without a word
    with pytest.raises(LayoutError, match="base must be an int"):
        analyze(Layout((32, 32), (32, 1)), "ld.shared.b32", "f32", base=base)
    with pytest.raises(LayoutError, match="global_base must be an int"):
        analyze(Layout((64, 64), (64, 1)), "cp.async.cg", "f16", global_layout=Layout((64, 64), (64, 1)),
                global_base=base)


def test_byte_addresses_past_64_bits_are_refused_not_wrapped_or_overflowed():
    from layoutalg.errors import InstructionError

    tile = Layout((64, 64), (64, 1))
    # 63 rows of 2^56 f64 elements: byte 63 * 2^59 > 2^63 (numpy used to wrap it to a "negative" source offset)
    with pytest.raises(LayoutError, match=r"global_layout \(64,64\):\(72057594037927936,1\) puts a lane at byte "
                                          r"offset 36317027395115680248, which does not fit in 64 bits"):
        analyze(tile, "cp.async.ca.8", "f64", global_layout=Layout((64, 64), (1 << 56, 1)))
    # offsets past 2^63 themselves (an object array of Python ints) used to raise OverflowError
    with pytest.raises(LayoutError, match="does not fit in 64 bits"):
        analyze(tile, "cp.async.cg", "f16", global_layout=Layout((64, 64), (1 << 70, 1)))
    with pytest.raises(LayoutError, match="from global_base 1180591620717411303424, which does not fit"):
        analyze(tile, "cp.async.cg", "f16", global_layout=tile, global_base=1 << 70)
    with pytest.raises(InstructionError, match="outside any GPU's shared memory"):
        analyze(Layout((64, 64), (1 << 62, 1)), "ld.shared.b32", "f32")
    with pytest.raises(InstructionError, match="outside any GPU's shared memory"):
        analyze(tile, "ld.shared.b32", "f32", base=1 << 70)
    # exact below 2^63: a global row 2^61 bytes away is costed (one line per row)
    far = analyze(Layout((4, 64), (64, 1)), "cp.async.cg", "f16", global_layout=Layout((4, 64), (1 << 60, 1)))
    assert int(far.global_addresses.max()) == 3 * (1 << 61) + 2 * 56 and far.total == far.total_ideal == 4


@pytest.mark.parametrize("layout, instruction, dtype, element, offset", [
    (Layout((32, 32), (64, 2)), "ld.shared.v4.b32", "f16", 1, 2),              # halves 2 apart
    (Layout((64, 64), (64, 3)), "ld.shared.v4.b32", "f16", 1, 3),              # aligned, but 3 apart
    (Layout((64, (4, 16)), (8, (1, 512))), "ldmatrix.x4", "f16", 4, 512),    # a matrix row split after 4 halves
    (Layout((8, 64), (128, 2)), "ld.shared.b32", "f16", 1, 2),
])
def test_a_tile_sweep_over_a_layout_that_splits_a_lanes_elements_is_refused(layout, instruction, dtype, element,
                                                                            offset):
    # each lane of the sweep moves consecutive bytes holding its vector (or ldmatrix row); where the layout puts
    # those elements apart, no such instruction exists (CuTe refuses the copy: "doesn't vectorize"); the lane's
    # first address alone used to be costed
    from layoutalg.banks.proof import conflict_free

    message = rf"does not keep them together: the lane at \(0, 0\) \(offset 0\) has its element {element} at offset {offset}"
    with pytest.raises(LayoutError, match=message):
        analyze(layout, instruction, dtype)
    with pytest.raises(LayoutError, match=message):
        conflict_free(layout, instruction, dtype)


def test_the_elements_of_a_cp_async_sweep_must_be_contiguous_on_the_global_side_too():
    tile = Layout((64, 64), (64, 1))
    with pytest.raises(LayoutError, match=r"but global_layout \(64,64\):\(128,2\) does not keep them together"):
        analyze(tile, "cp.async.cg", "f16", global_layout=Layout((64, 64), (128, 2)))
    # a swizzle that moves whole vectors keeps them: CUTLASS's atom, read and filled
    sw = ComposedLayout(Swizzle(3, 3, 3), 0, tile)
    assert analyze(sw, "ldmatrix.x4", "f16").conflict_free
    assert analyze(sw, "cp.async.cg", "f16", global_layout=tile).conflict_free
    # an Access of bare coordinates says only where each lane starts: not checked
    starts = Access("ld.shared.v4.b32", np.array([[(lane // 4, 8 * (lane % 4)) for lane in range(32)]]))
    assert analyze(Layout((64, 64), (64, 3)), starts, "f16").count == 1


@pytest.mark.parametrize("index, message", [
    ({"row_block": 4, "col_block": 0}, r"row_block=4 is outside the access's 4 instances on that axis"),
    ({"row_block": -1, "col_block": 0}, r"row_block=-1 is outside"),  # used to be numpy's ValueError
    ({"row_block": 0, "col_block": 0, "warp": 1}, r"got warp=\.\.\., which is not an axis"),  # was ignored
    ({"row_block": 1.5, "col_block": 0}, "row_block must be an int"),  # was int(1.5) = 1
    ({"row_block": "1", "col_block": 0}, "row_block must be an int"),
])
def test_report_refuses_an_index_that_names_no_instance(index, message):
    res = analyze(Layout((64, 64), (64, 1)), "ldmatrix.x4", "f16")
    with pytest.raises(CoordinateError, match=message):
        res.report(**index)
    assert res.report(row_block=np.int64(3), col_block=3).wavefronts == 32


def test_worst_and_conflict_bits_take_a_count_not_a_slice():
    res = analyze(Layout((64, 64), (64, 1)), "ldmatrix.x4", "f16")
    for bad in (-1, 2.5, "3"):  # -1 used to slice from the end: all instances but one
        with pytest.raises(LayoutError, match="must be"):
            res.worst(bad)
        with pytest.raises(LayoutError, match="must be"):
            res.conflict_bits(bad)
    assert res.worst(0) == [] and res.conflict_bits(0) == {}


def test_a_global_layout_given_for_an_access_that_is_no_cp_async_is_refused_not_ignored():
    from layoutalg.banks.proof import conflict_free

    tile = Layout((32, 32), (32, 1))
    for run in (analyze, conflict_free):
        with pytest.raises(LayoutError, match="global_layout is for cp.async accesses only, not ld.shared.b32"):
            run(tile, "ld.shared.b32", "f32", global_layout=tile)

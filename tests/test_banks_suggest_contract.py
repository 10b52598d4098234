"""``suggest_swizzle``'s contract: what it accepts and refuses, and what its answer says about itself.

Every suggested layout is re-costed here with ``analyze`` (the measured model) and its proof re-checked: a
suggestion claiming to be conflict-free must cost its ideal on every access, and its offsets must be a
permutation of the plain layout's (a swizzle) or a wider pitch (padding).
"""

from __future__ import annotations

import json
import re

import pytest

from layoutalg.banks import analyze, suggest_swizzle
from layoutalg.banks.access import Access, tile_access
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError, LayoutError

LDSM_X4 = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"


def _column(cols: int) -> Access:
    return Access.from_fn("ld.shared.b32", lambda lane, c: (lane, c), c=cols)


def test_an_already_conflict_free_tile_is_kept_as_it_is() -> None:
    s = suggest_swizzle((32, 32), "f32", "ld.shared.b32")  # row sweep of a row-major tile: conflict-free
    assert s.layout == Layout((32, 32), (32, 1)) and s.swizzle is None and s.padding == 0
    assert s.conflict_free and s.wavefronts == s.baseline_wavefronts == s.ideal == 32
    assert s.candidates_tried == 1 and s.proof.proved
    assert str(s).startswith("suggestion: the plain row-major layout: (32,32):(32,1)\n  32 wavefronts (ideal 32; "
                             "row-major without it: 32)  conflict-free\n  1 candidates tried\n")


@pytest.mark.parametrize("accesses", [
    ("ld.shared.b32", "column"),
    [("ld.shared.b32", "column")],
    [_column(32)],
    _column(32),
])
def test_every_spelling_of_the_accesses_means_the_same_sweep(accesses: object) -> None:
    s = suggest_swizzle((32, 32), "f32", accesses, max_swizzle_bits=0)
    assert s.padding == 1 and s.layout == Layout((32, 32), (33, 1))
    assert s.baseline_wavefronts == 32 * 32 and s.wavefronts == s.ideal == 32


def test_padding_is_searched_in_whole_vectors_of_the_widest_access() -> None:
    # 16-byte column reads of a 32x32 f32 tile: rows 128 bytes apart; a pitch of 32 + 4 elements (one vector)
    # puts consecutive rows one 16-byte unit apart
    col4 = Access.from_fn("ld.shared.v4.b32", lambda lane, c: (lane, 4 * c), c=8)
    s = suggest_swizzle((32, 32), "f32", [col4], max_swizzle_bits=0)
    assert s.padding == 4 and s.layout == Layout((32, 32), (36, 1)) and s.conflict_free
    res = analyze(s.layout, col4, dtype="f32")
    assert res.total == s.wavefronts == res.total_ideal
    assert s.per_access == (("ld.shared.v4.b32", res.total, res.total_ideal),)
    assert "padding of 4 elements per row" in str(s)


def test_when_nothing_is_conflict_free_the_fewest_wavefronts_win_and_say_so() -> None:
    # padding only, at most 0 bytes (or less than one vector): nothing but the plain layout; none conflict-free
    s = suggest_swizzle((32, 32), "f32", [_column(32)], max_swizzle_bits=0, max_padding_bytes=0)
    assert s.padding == 0 and s.swizzle is None and not s.conflict_free
    assert s.wavefronts == s.baseline_wavefronts == 32 * 32
    assert "(no candidate is conflict-free; fewest wavefronts)" in str(s)
    assert s.proof.refuted
    col4 = Access.from_fn("ld.shared.v4.b32", lambda lane, c: (lane, 4 * c), c=8)
    assert suggest_swizzle((32, 32), "f32", [col4], max_swizzle_bits=0, max_padding_bytes=12).padding == 0
    # padding up to 4 bytes: 32 + 1 is tried and wins
    one = suggest_swizzle((32, 32), "f32", [_column(32)], max_swizzle_bits=0, max_padding_bytes=4)
    assert one.padding == 1 and one.conflict_free and one.candidates_tried == 2


def test_a_padding_that_no_longer_fits_shared_memory_is_not_tried() -> None:
    # 227 x 256 f32 is exactly sm_90's 227 KiB; one more element per row (all rows but the last) is not
    col = Access.from_fn("ld.shared.b32", lambda lane, r, c: (32 * r + lane, c), r=7, c=256)
    s = suggest_swizzle((227, 256), "f32", [col], max_swizzle_bits=0)
    assert s.padding == 0 and s.candidates_tried == 1 and not s.conflict_free


def test_to_json_carries_every_field_of_the_answer() -> None:
    s = suggest_swizzle((64, 64), "f16", [LDSM_X4])
    data = s.to_json()
    assert json.loads(json.dumps(data)) == data
    assert data["layout"] == str(s.layout) and data["padding"] == 0
    assert data["swizzle"] == {"bits": s.swizzle.bits, "base": s.swizzle.base, "shift": s.swizzle.shift}
    assert (data["wavefronts"], data["ideal"], data["baseline_wavefronts"]) == (s.wavefronts, s.ideal,
                                                                                 s.baseline_wavefronts)
    assert data["conflict_free"] is True and data["candidates_tried"] == s.candidates_tried
    assert data["per_access"] == [{"instruction": i, "wavefronts": w, "ideal": d} for i, w, d in s.per_access]
    assert data["proof"] == s.proof.to_dict()
    plain = suggest_swizzle((32, 32), "f32", "ld.shared.b32").to_json()
    assert plain["swizzle"] is None
    text = str(s)
    assert f"  {s.candidates_tried} candidates tried" in text
    assert f"  {LDSM_X4}: {s.wavefronts} wavefronts (ideal {s.ideal})" in text
    assert "\n  proof: " in text


@pytest.mark.parametrize("shape", [(64,), (64, 0), (0, 64), (64, True), (64.0, 64), "64", "64x0", (64, 64, 1)])
def test_a_bad_tile_shape_is_refused(shape: object) -> None:
    with pytest.raises(LayoutError, match="smem_shape must be \\(rows, cols\\) of positive ints"):
        suggest_swizzle(shape, "f16", [LDSM_X4])


def test_the_shape_may_be_written_as_the_clis_shape() -> None:
    def without_timing(text: str) -> str:  # the proof's wall time ("enum, 0.002s") differs from run to run
        return re.sub(r"\d+\.\d+s\b", "<time>", text)

    from_text = str(suggest_swizzle("64x64", "f16", [LDSM_X4]))
    assert "<time>" in without_timing(from_text)
    assert without_timing(from_text) == without_timing(str(suggest_swizzle((64, 64), "f16", [LDSM_X4])))


def test_a_list_shape_is_accepted_like_a_tuple() -> None:
    assert suggest_swizzle([32, 32], "f32", "ld.shared.b32").layout == Layout((32, 32), (32, 1))


@pytest.mark.parametrize("kwargs, message", [
    ({"pitch": 31}, r"pitch must be an int >= cols \(32\), got 31"),
    ({"pitch": True}, "pitch must be an int >= cols"),
    ({"pitch": 33.0}, "pitch must be an int >= cols"),
    ({"max_swizzle_bits": -1}, r"max_swizzle_bits must be an int in \[0, 8\], got -1"),
    ({"max_swizzle_bits": 9}, r"max_swizzle_bits must be an int in \[0, 8\], got 9"),
    ({"max_swizzle_bits": True}, "max_swizzle_bits must be an int"),
    ({"max_swizzle_bits": 2.0}, "max_swizzle_bits must be an int"),
    ({"global_ld": 32}, "global_layout / global_ld is for cp.async accesses only"),
    # max_padding_bytes used to be unchecked: a str or None raised TypeError, -8 and True passed as bounds
    ({"max_padding_bytes": -8, "max_swizzle_bits": 0}, r"max_padding_bytes must be an int >= 0 \(0: no padding\), got -8"),
    ({"max_padding_bytes": True}, "max_padding_bytes must be an int >= 0"),
    ({"max_padding_bytes": 64.5, "max_swizzle_bits": 0}, "max_padding_bytes must be an int >= 0"),
    ({"max_padding_bytes": "128", "max_swizzle_bits": 0}, "max_padding_bytes must be an int >= 0"),
    ({"max_padding_bytes": None, "max_swizzle_bits": 0}, "max_padding_bytes must be an int >= 0"),
])
def test_bad_search_options_are_refused_naming_them(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        suggest_swizzle((32, 32), "f32", "ld.shared.b32", **kwargs)  # type: ignore[arg-type]


def test_the_search_bounds_themselves_are_allowed() -> None:
    assert suggest_swizzle((32, 32), "f32", "ld.shared.b32", pitch=32, max_swizzle_bits=8).conflict_free
    assert suggest_swizzle((32, 32), "f32", _column(32), max_swizzle_bits=1).conflict_free


@pytest.mark.parametrize("global_ld, message", [
    (0, "global_ld must be a positive int"),
    (-64, "global_ld must be a positive int"),
    (True, "global_ld must be a positive int"),
    (64.0, "global_ld must be a positive int"),
    (63, "global_ld = 63 is smaller than the tile's row of 64 elements"),
    # 68 halves = 136 bytes: row 1's copies would start misaligned (the error used to name no argument)
    (68, "global_ld = 68: global rows of 136 bytes start misaligned for a 16-byte cp.async; the leading "
         "dimension must be a multiple of 8 elements"),
    (1 << 70, "does not fit in 64 bits"),  # used to raise OverflowError
])
def test_a_bad_global_leading_dimension_is_refused(global_ld: object, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        suggest_swizzle((64, 64), "f16", "cp.async.cg.shared.global", global_ld=global_ld)  # type: ignore[arg-type]


def test_a_global_layout_must_be_a_layout_of_the_tiles_size() -> None:
    with pytest.raises(LayoutError, match="global_layout must be a Layout or ComposedLayout, got int"):
        suggest_swizzle((64, 64), "f16", "cp.async.cg.shared.global", global_layout=64)
    with pytest.raises(LayoutError, match=r"global_layout \(32,64\):\(64,1\) has 2048 elements; the tile has 4096"):
        suggest_swizzle((64, 64), "f16", "cp.async.cg.shared.global", global_layout=Layout((32, 64), (64, 1)))
    exact = suggest_swizzle((64, 64), "f16", "cp.async.cg.shared.global", global_ld=64)
    assert exact.conflict_free and exact.proof.proved


def test_a_tile_or_pitch_past_shared_memory_is_refused_before_searching() -> None:
    with pytest.raises(LayoutError, match="a 256x256 tile has 65536"):
        suggest_swizzle((256, 256), "f32", "ld.shared.b32")
    with pytest.raises(LayoutError, match=r"a 128x128 tile with a pitch of 512 elements spans 260608 bytes, more "
                                          r"than the 232448 bytes"):
        suggest_swizzle((128, 128), "f32", "ld.shared.b32", pitch=512)
    with pytest.raises(LayoutError, match="on sm_86"):
        suggest_swizzle((128, 128), "f32", "ld.shared.b32", pitch=256, arch="sm_86")
    with pytest.raises(InstructionError, match="stmatrix"):
        suggest_swizzle((64, 64), "f16", "stmatrix.x4", arch="sm_80")


def test_each_access_is_one_of_the_three_spellings() -> None:
    with pytest.raises(LayoutError, match=r"each access must be an instruction string, \(instruction, "
                                          r"'row'\|'column'\) or an Access, got \('ld.shared.b32', 'row', 1\)"):
        suggest_swizzle((32, 32), "f32", [("ld.shared.b32", "row", 1)])
    with pytest.raises(InstructionError, match="unknown mnemonic 'diagonal'"):
        suggest_swizzle((32, 32), "f32", ("ld.shared.b32", "diagonal"))  # not a direction: two instructions
    with pytest.raises(LayoutError, match="needs at least one access"):
        suggest_swizzle((32, 32), "f32", ())


def test_a_padding_ending_exactly_at_the_capacity_is_tried() -> None:
    # 587 x 98 f32, read by column: pitch 98 words is 2-way; pitch 99 spans 586*99 + 98 = 58112 words, exactly
    # sm_90's 227 KiB, and is conflict-free
    col = Access.from_fn("ld.shared.b32", lambda lane, r, c: (32 * r + lane, c), r=18, c=98)
    s = suggest_swizzle((587, 98), "f32", [col], max_swizzle_bits=0)
    assert s.padding == 1 and s.conflict_free and s.layout == Layout((587, 98), (99, 1))


def _documented_search(shape: tuple[int, int], dtype: str, accesses: list[Access], pitch: int,
                       max_bits: int, vec: int) -> tuple[tuple[int, int, int] | None, int]:
    """Brute force of the module doc's order: Swizzle<B,M,S> by B, then S, then M; M at least log2 of the vector;
    S >= B; every bit inside the tile's offsets; kept only when it permutes them.  (winner, candidates tried)."""
    from layoutalg.swizzle.composed import ComposedLayout
    from layoutalg.swizzle.swizzle import Swizzle

    rows, cols = shape
    plain = Layout((rows, cols), (pitch, 1))
    offsets = sorted(plain.to_numpy().tolist())
    top = max(1, (rows * pitch - 1).bit_length())
    order = sorted(((b, m, s) for b in range(1, max_bits + 1) for s in range(b, top + 1)
                    for m in range(vec.bit_length() - 1, top + 1) if m + s + b <= top), key=lambda t: (t[0], t[2], t[1]))
    tried = 1
    for b, m, s in order:
        sw = Swizzle(b, m, s)
        if sorted(sw(o) for o in offsets) != offsets:
            continue
        tried += 1
        layout = ComposedLayout(sw, 0, plain)
        if all(analyze(layout, a, dtype=dtype).conflict_free for a in accesses):
            return (b, m, s), tried
    return None, tried


@pytest.mark.parametrize("shape, dtype, access, pitch, vec", [
    ((64, 64), "f16", tile_access(LDSM_X4, (64, 64), "f16"), 64, 8),
    ((64, 48), "f16", tile_access(LDSM_X4, (64, 48), "f16"), 48, 8),
    ((32, 24), "f32", Access.from_fn("ld.shared.b32", lambda lane, c: (lane, c), c=24), 24, 1),
    ((32, 32), "f32", Access.from_fn("ld.shared.b32", lambda lane, c: (lane, c), c=32), 36, 1),
    # one row padded to 2**8 + 1 elements: offset bit 8 lies inside the padded span, so the swizzles reading it
    # (the identity on this row's offsets, still costed) are tried before Swizzle<3,0,5> breaks the 8-way conflict
    ((1, 256), "f32", Access.from_fn("ld.shared.b32", lambda lane: (0, 32 * (lane % 8) + 8 * (lane // 8))), 257, 1),
])
def test_the_first_conflict_free_swizzle_in_the_documented_order_wins(
        shape: tuple[int, int], dtype: str, access: Access, pitch: int, vec: int) -> None:
    s = suggest_swizzle(shape, dtype, [access], pitch=pitch, max_swizzle_bits=3)
    winner, tried = _documented_search(shape, dtype, [access], pitch, 3, vec)
    assert winner is not None and s.swizzle is not None
    assert (s.swizzle.bits, s.swizzle.base, s.swizzle.shift) == winner
    assert s.candidates_tried == tried and s.padding == 0
    # a conflict-free swizzle ends the search: padding is never tried after it
    assert suggest_swizzle(shape, dtype, [access], pitch=pitch, max_swizzle_bits=3,
                           max_padding_bytes=0).candidates_tried == tried


def test_odd_but_valid_inputs_are_accepted() -> None:
    # one row, one column, a leading dimension of one element
    assert suggest_swizzle((1, 32), "f32", "ld.shared.b32").conflict_free
    one_col = suggest_swizzle((128, 1), "f32", "cp.async.ca.4", global_ld=1)
    assert one_col.proof.status in ("proved", "refuted") and one_col.layout == Layout((128, 1), (1, 1))
    # an access narrower than an element: the padding step is still one element
    bytes_of_words = Access.from_fn("ld.shared.u8", lambda lane, c: (lane, c), c=32)
    assert suggest_swizzle((32, 32), "f32", [bytes_of_words], max_swizzle_bits=0).padding == 1


def test_tuples_that_are_not_an_instruction_and_a_direction_are_refused() -> None:
    col = _column(32)
    with pytest.raises(LayoutError, match="each access must be an instruction string"):
        suggest_swizzle((32, 32), "f32", (col, "column"))
    with pytest.raises(LayoutError, match="each access must be an instruction string"):
        suggest_swizzle((32, 32), "f32", [(3, "row")])


def test_a_suggestion_is_immutable() -> None:
    import dataclasses

    s = suggest_swizzle((32, 32), "f32", "ld.shared.b32")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.padding = 3  # type: ignore[misc]


def test_by_default_five_xor_bits_are_searched_and_padding_stops_at_the_first_conflict_free_pitch() -> None:
    # 32 rows of one bank each (a column of a 32-word-wide tile) need all five bank bits XORed
    s = suggest_swizzle((32, 32), "f32", [_column(32)])
    assert s.swizzle is not None and s.swizzle.bits == 5 and s.conflict_free
    padded = suggest_swizzle((32, 32), "f32", [_column(32)], max_swizzle_bits=0)
    assert padded.padding == 1 and padded.candidates_tried == 2  # the plain layout, then pitch 33


def test_a_pitch_that_misaligns_the_rows_is_refused_naming_it() -> None:
    # 33 floats = 132 bytes: row 1's 16-byte vectors are misaligned (the error used to name no argument)
    with pytest.raises(LayoutError, match="pitch = 33: rows of 132 bytes start misaligned for the 16-byte access; "
                                          "the pitch must be a multiple of 4 elements"):
        suggest_swizzle((32, 32), "f32", "ld.shared.v4.b32", pitch=33)
    assert suggest_swizzle((32, 32), "f32", "ld.shared.v4.b32", pitch=36).conflict_free
    assert suggest_swizzle((1, 32), "f32", "ld.shared.b32", pitch=33).conflict_free  # one row: no second row to align


def test_a_candidate_stops_being_costed_once_it_cannot_beat_the_best_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    # the same answer as costing every access of every candidate, with fewer analyses: the second access of a
    # candidate whose first access already costs as much as the best total so far is never analysed
    import layoutalg.banks.suggest as suggest_module

    accesses = [_column(32), _column(32), _column(32)]
    calls = []
    real = suggest_module.analyze

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(suggest_module, "analyze", counting)
    s = suggest_swizzle((32, 32), "f32", accesses, max_swizzle_bits=0, max_padding_bytes=0)
    assert s.wavefronts == s.baseline_wavefronts == 3 * 32 * 32 and s.candidates_tried == 1 and len(calls) == 3
    calls.clear()
    s = suggest_swizzle((32, 32), "f32", accesses, max_swizzle_bits=5)
    assert s.swizzle is not None and s.swizzle.bits == 5 and s.conflict_free and s.wavefronts == 3 * 32
    assert len(calls) < 3 * s.candidates_tried

"""The symbolic route of ``conflict_free``: the same validity errors as enumeration, proved over every parameter
value, and counterexamples whose keys never collide with the user's own names.

Each invalid access here is also enumerated (the same access with its range made concrete) and must raise the
same error type naming the same fault; facts of a refutation are re-derived from the layout's ``__call__``.
"""

from __future__ import annotations

import pytest

from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free, symbolic_access
from layoutalg.banks.proof_symbolic import coord_names
from layoutalg.core.layout import Layout
from layoutalg.errors import CoordinateError, InstructionError

TILE = Layout((32, 32), (32, 1))


def test_coordinate_names_follow_the_layouts_rank() -> None:
    assert coord_names(1) == ["index"]
    assert coord_names(2) == ["row", "col"]
    assert coord_names(4) == ["row", "col", "mode2", "mode3"]


@pytest.mark.parametrize("fn, base, error, message", [
    (lambda lane, i: (lane + i, 0), 0, CoordinateError, r"access coordinate 32 \(row\) in mode 0 is outside "
                                                         r"smem_layout's extent 32"),
    (lambda lane, i: (lane, 31 + i), 0, CoordinateError, r"access coordinate 32 \(col\) in mode 1 is outside"),
    (lambda lane, i: (lane, i), -4, InstructionError, "negative shared-memory address -4 in ld.shared.b32"),
    (lambda lane, i: (lane, i), 227 * 1024 - 3972, InstructionError, r"its 4 bytes end at 232452, past the "
                                                                            "232448 bytes"),
    (lambda lane, i: (lane, i), 2, InstructionError, "misaligned address 2 of ld.shared.b32: must be a multiple of 4"),
])
def test_an_invalid_symbolic_access_raises_what_enumeration_raises(fn, base, error, message) -> None:  # type: ignore[no-untyped-def]
    sym = symbolic_access("ld.shared.b32", fn, i=2)
    with pytest.raises(error, match=message):
        conflict_free(TILE, sym, "f32", base=base, method="z3")
    with pytest.raises(error):
        conflict_free(TILE, Access.from_fn("ld.shared.b32", fn, i=2), "f32", base=base)


def test_a_symbolic_refutation_renames_proof_variables_that_clash_with_the_users_axes() -> None:
    # the user's axis is called "lane" and "bank": the proof's own lane/bank keys are primed, the user's kept
    acc = Access.from_fn("ld.shared.b32", lambda ln, lane, bank: (ln, (lane + bank) % 32), lane=2, bank=2)
    res = conflict_free(TILE, acc, "f32", method="z3")
    cex = res.counterexample
    assert res.refuted and cex is not None
    assert {"lane", "bank", "lane'", "lane_b", "bank'"} <= set(cex)
    col = (cex["lane"] + cex["bank"]) % 32
    a, b = cex["lane'"], cex["lane_b"]
    assert (4 * TILE(a, col) // 4) % 32 == (4 * TILE(b, col) // 4) % 32 == cex["bank'"]
    assert res.explanation.startswith(f"at lane={cex['lane']}, bank={cex['bank']}: lanes {a} (row {a}, col {col}")


def test_route_one_proves_a_swizzled_column_read_by_the_gf2_rank_argument() -> None:
    from layoutalg.swizzle.composed import ComposedLayout
    from layoutalg.swizzle.swizzle import Swizzle

    sw = ComposedLayout(Swizzle(5, 0, 5), 0, TILE)
    acc = Access.from_fn("ld.shared.b32", lambda lane, c: (lane, c), c=32)
    res = conflict_free(sw, acc, "f32", method="f2")
    assert res.proved and res.method == "f2"
    assert res.explanation == ("every phase's 32 lanes x 1 words map one-to-one onto banks (GF(2) rank argument), "
                               "for every instance")


def test_an_access_function_of_the_wrong_rank_is_refused() -> None:
    from layoutalg.errors import LayoutError

    sym = symbolic_access("ld.shared.b32", lambda lane, i: (lane, i, 0), i=2)
    with pytest.raises(LayoutError, match="the access function returns 3 coordinates; the layout has 2 modes"):
        conflict_free(TILE, sym, "f32", method="z3")


def test_a_parameter_named_like_a_proof_variable_keeps_its_name_in_the_counterexample() -> None:
    from layoutalg.prove.expr import param

    bank = param("bank", lo=0, hi=1 << 16)  # the user's own parameter, inside the access function
    sym = symbolic_access("ld.shared.b32", lambda lane, i: (lane, (i + bank) % 32), i=2)
    res = conflict_free(TILE, sym, "f32", method="z3")
    cex = res.counterexample
    assert res.refuted and cex is not None and "bank" in cex and "bank'" in cex
    a, b, col = cex["lane"], cex["lane_b"], (cex["i"] + cex["bank"]) % 32
    assert TILE(a, col) % 32 == TILE(b, col) % 32 == cex["bank'"]


def _enumerated(layout: Layout, instruction: str, fn, dtype: str, **ranges: int):  # type: ignore[no-untyped-def]
    """The exact model's verdict on every instance (enumeration), the truth the symbolic route must meet."""
    return conflict_free(layout, Access.from_fn(instruction, fn, **ranges), dtype, method="enum")


def _words_collide(layout: Layout, cex: dict[str, int], e: int) -> bool:
    word_a, word_b = cex["address"] // 4, cex["address_b"] // 4
    return (cex["address"] == layout(cex["row"], cex["col"]) * e
            and cex["address_b"] == layout(cex["row_b"], cex["col_b"]) * e
            and word_a % 32 == word_b % 32 and word_a != word_b)


def test_a_broadcast_read_is_proved_conflict_free_by_route_two() -> None:
    # lanes 16..31 read the words of lanes 0..15: the bank map is not one-to-one (route 1 fails), but two words
    # in one bank are always the same word
    fn = lambda lane, i: (i, lane % 16)  # noqa: E731
    assert _enumerated(TILE, "ld.shared.b32", fn, "f32", i=4).proved
    result = conflict_free(TILE, symbolic_access("ld.shared.b32", fn, i=4), "f32", method="z3")
    assert result.proved


def test_a_two_way_conflict_found_by_route_two_names_two_lanes_whose_words_share_a_bank() -> None:
    fn = lambda lane, i: (2 * (lane % 2) + i, lane // 2)  # noqa: E731 - rows 0 and 2: 64 words apart
    assert _enumerated(TILE, "ld.shared.b32", fn, "f32", i=2).refuted
    for method in ("auto", "z3"):
        result = conflict_free(TILE, symbolic_access("ld.shared.b32", fn, i=2), "f32", method=method)
        assert result.refuted, method
        cex = result.counterexample or {}
        assert _words_collide(TILE, cex, 4), cex
        assert f"lanes {cex['lane']} (row {cex['row']}, col {cex['col']}, byte {cex['address']})" in result.explanation
        assert f"both need bank {cex['bank']}" in result.explanation


def test_the_gf2_method_alone_leaves_a_broadcast_unknown_and_says_to_try_z3() -> None:
    fn = lambda lane, i: (i, lane % 16)  # noqa: E731
    result = conflict_free(TILE, symbolic_access("ld.shared.b32", fn, i=4), "f32", method="f2")
    assert result.status == "unknown" and "try method='z3'" in result.explanation


@pytest.mark.parametrize("instruction", ["ld.shared.v2.b32", "ld.shared.v4.b32"])
def test_a_wide_load_conflict_is_replayed_on_the_exact_model_at_z3s_instance(instruction: str) -> None:
    layout = Layout((64, 64), (64, 1))
    width = 2 if instruction.endswith("v2.b32") else 4  # f32 elements per lane
    fn = lambda lane, i: (lane % 2 + 2 * i, width * (lane // 2))  # noqa: E731 - rows 0/1 are 256 bytes apart
    truth = _enumerated(layout, instruction, fn, "f32", i=4)
    result = conflict_free(layout, symbolic_access(instruction, fn, i=4), "f32", method="z3")
    assert truth.refuted and result.refuted
    assert "replayed on the exact model" in result.explanation
    assert 0 <= (result.counterexample or {})["i"] < 4


def test_a_wide_load_conflict_free_under_the_exact_model_is_not_refuted() -> None:
    # v2 loads of consecutive 8-byte words: the exact model's half-warp phases are conflict-free
    layout = Layout((64, 64), (64, 1))
    fn = lambda lane, i: (i, 2 * lane)  # noqa: E731
    truth = _enumerated(layout, "ld.shared.v2.b32", fn, "f32", i=2)
    result = conflict_free(layout, symbolic_access("ld.shared.v2.b32", fn, i=2), "f32", method="z3")
    assert truth.proved and result.status in ("proved", "unknown")
    assert result.status == "proved" or "does not decide it" in result.explanation


def test_a_16_byte_store_is_judged_in_phases_of_eight_lanes() -> None:
    # each phase of 8 lanes covers the 8 bank groups once; lane 7 and lane 13 share a group but lie in
    # different phases, so the store is conflict-free (phases of 7 or 16 lanes would pair them)
    layout = Layout((32, 64), (64, 1))
    fn = lambda lane, i: (lane // 8 + 4 * i, 4 * ((lane % 8 + 2 * ((lane // 8) % 2)) % 8))  # noqa: E731
    assert _enumerated(layout, "st.shared.v4.b32", fn, "f32", i=2).proved
    assert conflict_free(layout, symbolic_access("st.shared.v4.b32", fn, i=2), "f32", method="z3").proved
    assert conflict_free(layout, symbolic_access("st.shared.v4.b32", fn, i=2), "f32").proved


def test_an_ldmatrix_conflict_inside_its_second_matrix_is_found_in_every_phase() -> None:
    # each matrix's 8 rows start 16 bytes further right row by row (8 distinct bank groups), except matrix 1
    # (lanes 8-15), whose rows move right only every second row: two of its rows share banks
    layout = Layout((64, 64), (64, 1))
    step = lambda lane: 1 + ((lane // 8) % 2) * (1 - lane // 16)  # noqa: E731 - 2 for lanes 8-15, else 1
    fn = lambda lane, i: (lane + 32 * i, 8 * ((lane % 8) // step(lane)))  # noqa: E731
    truth = _enumerated(layout, "ldmatrix.x4", fn, "f16", i=2)
    result = conflict_free(layout, symbolic_access("ldmatrix.x4", fn, i=2), "f16", method="z3")
    assert truth.refuted and result.refuted
    cex = result.counterexample or {}
    assert 8 <= cex["lane"] < 16 and 8 <= cex["lane_b"] < 16


def test_a_two_byte_load_is_proved_over_its_one_word_per_lane() -> None:
    fn = lambda lane, i: (i, lane)  # noqa: E731 - 32 halves: 16 words, pairs of lanes share a word
    assert _enumerated(TILE, "ld.shared.u16", fn, "f16", i=2).proved
    assert conflict_free(TILE, symbolic_access("ld.shared.u16", fn, i=2), "f16", method="z3").proved


def test_a_wide_load_refuted_only_at_a_symbolic_parameter_is_unknown_not_refuted_or_proved() -> None:
    from layoutalg.prove import expr as ex

    tile = Layout((32, 64), (64, 1))
    k = ex.param("k", 4)
    wide = conflict_free(tile, symbolic_access("ld.shared.v2.b32", lambda lane: (lane, 2 * k)), "f32", method="z3")
    # every lane reads column 2k of its own row: one bank for all 32 lanes, but the 8-byte load's exact wavefront
    # model cannot be replayed at a parameter's value, so the answer is neither "proved" nor a made-up refutation
    assert wide.status == "unknown"
    assert "parameters the exact model cannot replay" in wide.explanation
    narrow = conflict_free(tile, symbolic_access("ld.shared.b32", lambda lane: (lane, 2 * k)), "f32", method="z3")
    assert narrow.refuted and narrow.counterexample is not None and "k" in narrow.counterexample

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

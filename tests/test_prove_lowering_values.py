"""Lowering layouts and swizzles to primitive terms (``ex.lower``): every lowered term takes the layout's own
value at every index (the layout's ``__call__`` is the reference), power-of-two pieces stay GF(2)-linear,
constants fold, and bad shapes of coordinates are refused."""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import claims
from layoutalg.prove import expr as ex
from layoutalg.swizzle import ComposedLayout, Swizzle

LAYOUTS = [
    Layout((4, 8), (0, 1)),            # a broadcast mode: stride 0
    Layout((1, 8), (5, 1)),            # a size-1 mode before the last
    Layout((3, 5), (7, 3)),            # neither extents nor strides powers of two
    Layout((4, 2, 8), (16, 1, 2)),     # power-of-two extents and strides
    Layout(((2, 3), 4), ((1, 24), 6)),  # nested, mixed
    Layout((6, 4), (4, 1)),            # a power-of-two stride after a non-power-of-two extent
]


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_a_lowered_layout_takes_the_layouts_value_at_every_index(layout: Layout) -> None:
    i = ex.var("i", layout.size())
    lowered = ex.lower(ex.sym(layout)(i))
    assert [ex.evaluate(lowered, {"i": k}) for k in range(layout.size())] == [layout(k) for k in range(layout.size())]


@pytest.mark.parametrize("swizzle", [Swizzle(3, 3, 3), Swizzle(2, 0, 4), Swizzle(2, 4, -3),
                                     Swizzle(0, 4, 3)], ids=str)
def test_a_lowered_swizzle_takes_the_swizzles_value_at_every_offset(swizzle: Swizzle) -> None:
    x = ex.var("x", 1 << 10)
    lowered = ex.lower(ex.sym(swizzle)(x))
    assert [ex.evaluate(lowered, {"x": k}) for k in range(1 << 10)] == [swizzle(k) for k in range(1 << 10)]


def test_a_one_element_coordinate_tuple_of_a_rank_one_layout_is_its_index() -> None:
    layout = Layout(8, 3)
    i = ex.var("i", 8)
    lowered = ex.lower(ex.sym(layout)((i,)))
    assert [ex.evaluate(lowered, {"i": k}) for k in range(8)] == [3 * k for k in range(8)]


def test_a_coordinate_of_the_wrong_rank_is_refused_naming_the_mode() -> None:
    i, j, k = ex.var("i", 4), ex.var("j", 8), ex.var("k", 2)
    with pytest.raises(ProofError, match="does not match the layout's mode"):
        ex.lower(ex.sym(Layout((4, 8), (8, 1)))((i, j, k)))
    with pytest.raises(ProofError, match=r"does not match the layout's mode \[1\]"):
        ex.lower(ex.sym(Layout((4, 8), (8, 1)))((i, (j, k))))


def test_a_swizzle_given_a_coordinate_tuple_is_refused() -> None:
    i, j = ex.var("i", 4), ex.var("j", 8)
    with pytest.raises(ProofError, match="a swizzle takes one offset"):
        ex.lower(ex.sym(Swizzle(3, 3, 3))((i, j)))


def test_a_power_of_two_swizzled_layout_is_decided_by_the_gf2_engine() -> None:
    # shifts and masks, not * // %, so the claim stays GF(2)-linear and needs no enumeration or z3
    swizzled = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
    assert len({swizzled(k) for k in range(512)}) == 512
    result = claims.injective(swizzled)
    assert result.proved and result.method == "f2"


def test_lowering_folds_constant_terms_and_refuses_constant_faults() -> None:
    folded = ex.lower(ex.Const(6) * ex.Const(7) + ex.Const(1))
    assert isinstance(folded, ex.Const) and folded.value == 43
    with pytest.raises(ProofError):
        ex.lower(ex.Const(1) // ex.Const(0))


def test_a_shift_by_zero_is_kept_and_a_negative_shift_is_refused() -> None:
    x = ex.var("x", 16)
    lowered = ex.lower(x << 0)
    assert [ex.evaluate(lowered, {"x": k}) for k in range(16)] == list(range(16))
    with pytest.raises(ProofError, match=r"shift amount must be a non-negative constant .*\(it is -1\)"):
        ex.lower(x << ex.Const(-1))
    with pytest.raises(ProofError, match="shift amount must be a non-negative constant"):
        ex.lower(x >> ex.var("y", 4))


def test_lowering_refuses_an_object_that_is_not_a_term() -> None:
    with pytest.raises(ProofError, match="not a term: 'x'"):
        ex.lower(ex.BinOp("+", ex.var("x", 4), "x"))  # type: ignore[arg-type]

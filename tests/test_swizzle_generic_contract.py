"""The generic algebra's contract (``layoutalg.swizzle.generic``): results equal the brute-force composition of the
functions, refusals are CompositionError / LayoutError naming the argument, and each stated bound holds on both sides.

Truths come from CuTe's definitions evaluated element by element here: ``Swizzle<B,M,S>(x) = x ^ ((x & yyy) >> S)``
with ``yyy = (2**B - 1) << (M + max(0, S))`` (cute/swizzle.hpp), a plain layout evaluated by the core, and a composed
layout ``outer o off o inner`` as ``outer(off + inner(i))``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import CompositionError, LayoutError
from layoutalg.swizzle.composed import ComposedLayout, eval_layout_at
from layoutalg.swizzle.generic import commute_swizzle, composition, layout_after_swizzle
from layoutalg.swizzle.swizzle import Swizzle

CHECKED = 1 << 22  # the most elements the generic operations check exactly


def cute_swizzle(sw: Swizzle, x: Any) -> Any:
    """CuTe's Swizzle<B,M,S> on an int or an int64 array, from B, M, S alone."""
    yyy = ((1 << sw.bits) - 1) << (sw.base + max(0, sw.shift))
    picked = x & yyy
    return x ^ (picked >> sw.shift if sw.shift >= 0 else picked << -sw.shift)


def function_values(f: Any) -> list[int]:
    """Every value of a Layout or ComposedLayout over its domain, evaluated from its parts."""
    if isinstance(f, Layout):
        return [int(v) for v in eval_layout_at(f, np.arange(f.size(), dtype=np.int64))]
    positions = f.offset + eval_layout_at(f.inner, np.arange(f.size(), dtype=np.int64))
    if isinstance(f.outer, Swizzle):
        return [int(v) for v in cute_swizzle(f.outer, positions)]
    return [int(v) for v in eval_layout_at(f.outer, positions)]


# ---------------------------------------------------------------------------
# commute_swizzle: CuTe's Sw' read off the images of the swizzle's bits


@pytest.mark.parametrize(
    ("layout", "swizzle", "expected"),
    [
        # 16:2 doubles every index: the bits 2,3 read and 0,1 written move up by one.
        (Layout(16, 2), Swizzle(2, 0, 2), Swizzle(2, 1, 2)),
        # (4,4):(4,1) swaps the two 2-bit halves: the read bits land below the written ones (S < 0).
        (Layout((4, 4), (4, 1)), Swizzle(2, 0, 2), Swizzle(2, 0, -2)),
        # bit 3 is outside [0, 8) and bit 1 has stride 0: one bit of each mask has an image, bit 2 -> 2, bit 0 -> 1.
        (Layout((2, 2, 2), (1, 0, 2)), Swizzle(2, 0, 2), Swizzle(1, 0, 1)),
        # a swizzle reading a bit above the layout's domain [0, 4) is the identity there
        (Layout(4, 1), Swizzle(1, 2, 1), Swizzle(0, 0, 0)),
        # a single element: no bit of either mask lies inside the domain
        (Layout(1, 1), Swizzle(1, 0, 1), Swizzle(0, 0, 0)),
        (Layout(64, 1), Swizzle(3, 0, -3), Swizzle(3, 0, -3)),
    ],
)
def test_commute_swizzle_returns_cutes_swizzle_of_the_bit_images_and_commutes_on_every_index(
    layout: Layout, swizzle: Swizzle, expected: Swizzle
) -> None:
    got = commute_swizzle(layout, swizzle)
    assert got == expected
    index = np.arange(layout.size(), dtype=np.int64)
    lhs = eval_layout_at(layout, cute_swizzle(swizzle, index))
    rhs = cute_swizzle(expected, eval_layout_at(layout, index))
    assert lhs.tolist() == rhs.tolist()


def test_commute_swizzle_refuses_when_only_one_mask_has_an_image_as_cutes_make_swizzle_does() -> None:
    # Sw<1,2,1> reads bit 3 (outside [0, 8)) into bit 2: the read mask has no image, the written one has 4.
    with pytest.raises(CompositionError, match="do not map to a swizzle"):
        commute_swizzle(Layout(8, 1), Swizzle(1, 2, 1))


def test_commute_swizzle_refuses_a_swizzle_that_leaves_the_layouts_domain() -> None:
    # Sw<1,0,1> maps 2 to 3, one past the domain [0, 3) of 3:1.
    with pytest.raises(CompositionError, match=r"outside its domain \[0, 3\)"):
        commute_swizzle(Layout(3, 1), Swizzle(1, 0, 1))


def test_commute_swizzle_refuses_a_candidate_that_fails_on_some_index() -> None:
    # (3,2):(2,1) maps 1 -> 2 and 2 -> 4, so CuTe's candidate is Sw<1,1,1>; but L(Sw(2)) = L(3) = 1 while
    # Sw<1,1,1>(L(2)) = Sw<1,1,1>(4) = 6.
    layout = Layout((3, 2), (2, 1))
    assert layout(3) == 1 and cute_swizzle(Swizzle(1, 1, 1), layout(2)) == 6
    with pytest.raises(CompositionError, match="is not a swizzle composed with"):
        commute_swizzle(layout, Swizzle(1, 0, 1))


def test_commute_swizzle_checks_2_to_22_indices_and_refuses_one_more() -> None:
    assert commute_swizzle(Layout(CHECKED, 1), Swizzle(1, 0, 1)) == Swizzle(1, 0, 1)
    with pytest.raises(CompositionError, match="too large to check exactly"):
        commute_swizzle(Layout(CHECKED + 1, 1), Swizzle(1, 0, 1))


# ---------------------------------------------------------------------------
# composition


def test_a_swizzle_composed_with_the_identity_is_itself_and_with_itself_is_the_identity_sw000() -> None:
    sw = Swizzle(2, 0, 3)
    assert composition(Swizzle(0, 0, 0), sw) == sw
    assert composition(sw, Swizzle(0, 0, 0)) == sw
    # a swizzle is an involution; the identity it leaves is the canonical Sw<0,0,0>
    assert composition(sw, sw) == Swizzle(0, 0, 0)
    assert str(composition(sw, sw)) == "Sw<0,0,0>"


def test_composition_of_a_swizzle_with_a_number_is_a_layout_error_naming_b() -> None:
    with pytest.raises(LayoutError, match="b must be a Layout, Swizzle or ComposedLayout, got"):
        composition(Swizzle(2, 0, 3), 5)


def test_layout_after_swizzle_is_the_layout_of_the_swizzled_index() -> None:
    layout = Layout(16, 2)
    got = composition(layout, Swizzle(2, 0, 2))
    assert isinstance(got, ComposedLayout)
    index = np.arange(16, dtype=np.int64)
    assert function_values(got) == eval_layout_at(layout, cute_swizzle(Swizzle(2, 0, 2), index)).tolist()


def test_layout_after_swizzle_factors_over_gf2_at_2_to_22_indices_and_refuses_one_more() -> None:
    # Sw<1,21,1> reads bit 22, outside [0, 2**22): CuTe's form does not exist (one mask has no image), the GF(2)
    # factorisation finds the identity.
    assert layout_after_swizzle(Layout(CHECKED, 1), Swizzle(1, 21, 1)) == Layout(CHECKED, 1)
    with pytest.raises(CompositionError):
        layout_after_swizzle(Layout(CHECKED + 1, 1), Swizzle(1, 21, 1))


def test_composed_layout_after_composed_layout_with_swizzle_outers_is_their_brute_force_composition() -> None:
    a = ComposedLayout(Swizzle(1, 0, 1), 4, Layout(8, 1))
    b = ComposedLayout(Swizzle(0, 0, 0), 2, Layout(4, 1))
    got = composition(a, b)
    assert isinstance(got, ComposedLayout)
    assert function_values(got) == [cute_swizzle(Swizzle(1, 0, 1), 4 + v) for v in function_values(b)]


def test_a_layout_outer_composed_layout_after_a_swizzle_is_refused() -> None:
    with pytest.raises(CompositionError, match="layout-outer composed layout after a swizzle"):
        composition(ComposedLayout(Layout(8, 1), 0, Layout(8, 1)), Swizzle(1, 0, 1))


def test_a_composed_layout_after_a_swizzle_that_cancels_on_its_domain_keeps_its_own_swizzle() -> None:
    # Sw<1,2,1> reads bit 3, never set on [0, 8): the result is the composed layout itself.
    a = ComposedLayout(Swizzle(1, 0, 1), 0, Layout(8, 1))
    got = composition(a, Swizzle(1, 2, 1))
    assert isinstance(got, ComposedLayout)
    assert function_values(got) == [cute_swizzle(Swizzle(1, 0, 1), cute_swizzle(Swizzle(1, 2, 1), i)) for i in range(8)]


def test_layout_after_composed_with_a_swizzle_cancelled_on_its_domain_and_an_offset_keeps_the_offset() -> None:
    # 8:1 o (Sw<1,2,1> o _2 o 2:1): the positions 2, 3 never set bit 3, so the swizzle cancels; the offset stays.
    got = composition(Layout(8, 1), ComposedLayout(Swizzle(1, 2, 1), 2, Layout(2, 1)))
    assert got == ComposedLayout(Swizzle(0, 0, 0), 2, Layout(2, 1))
    assert function_values(got) == [2, 3]


def test_layout_after_composed_with_a_cancelled_swizzle_and_no_offset_is_a_plain_layout() -> None:
    got = composition(Layout(8, 1), ComposedLayout(Swizzle(1, 2, 1), 0, Layout(4, 2)))
    assert isinstance(got, Layout)
    assert got == Layout(4, 2)


def test_layout_after_composed_with_an_offset_is_the_layout_at_the_shifted_positions() -> None:
    b = ComposedLayout(Swizzle(1, 0, 1), 4, Layout(4, 1))
    got = composition(Layout(16, 1), b)
    assert function_values(got) == [cute_swizzle(Swizzle(1, 0, 1), 4 + i) for i in range(4)]


def test_layout_after_composed_whose_shifted_positions_are_not_affine_is_refused() -> None:
    # (2,2):(1,10) at 1, 2, 3 is 1, 10, 11: no layout of shape 3 takes those values.
    with pytest.raises(CompositionError, match="is not a layout"):
        composition(Layout((2, 2), (1, 10)), ComposedLayout(Swizzle(0, 0, 0), 1, Layout(3, 1)))


def test_layout_after_composed_with_negative_values_is_refused() -> None:
    with pytest.raises(CompositionError, match="takes negative values"):
        composition(Layout(8, 1), ComposedLayout(Swizzle(0, 0, 0), 0, Layout(4, -1)))


def test_layout_after_a_layout_outer_composed_layout_is_their_brute_force_composition() -> None:
    b = ComposedLayout(Layout(8, 1), 1, Layout(4, 1))
    got = composition(Layout(16, 2), b)
    assert function_values(got) == [2 * (1 + i) for i in range(4)]


def test_layout_after_a_layout_outer_composed_layout_never_returns_a_wrong_function() -> None:
    # 2:1 o _0 o 4:1 runs its outer layout past its 2 elements (positions 0..3); (2,2):(1,10) there is 0, 1, 10, 11,
    # which the core composition (2,2):(1,10) o 2:1 = 2:1 extended does not give.
    a = Layout((2, 2), (1, 10))
    b = ComposedLayout(Layout(2, 1), 0, Layout(4, 1))
    try:
        got = composition(a, b)
    except CompositionError:
        return
    assert function_values(got) == [0, 1, 10, 11]


def test_a_swizzle_after_a_composed_layout_combines_the_swizzles() -> None:
    b = ComposedLayout(Swizzle(1, 0, 1), 0, Layout(8, 1))
    kept = composition(Swizzle(0, 0, 0), b)
    assert isinstance(kept, ComposedLayout) and function_values(kept) == [cute_swizzle(Swizzle(1, 0, 1), i) for i in range(8)]
    # Sw o Sw cancels: the plain inner layout
    cancelled = composition(Swizzle(1, 0, 1), b)
    assert isinstance(cancelled, Layout) and cancelled == Layout(8, 1)
    # with an offset the cancelled swizzle stays as the identity around it
    shifted = composition(Swizzle(1, 0, 1), ComposedLayout(Swizzle(1, 0, 1), 2, Layout(8, 1)))
    assert function_values(shifted) == [cute_swizzle(Swizzle(1, 0, 1), cute_swizzle(Swizzle(1, 0, 1), 2 + i))
                                        for i in range(8)]


def test_a_swizzle_after_a_layout_outer_composed_layout_is_refused() -> None:
    with pytest.raises(CompositionError, match="is not a single swizzle composed with a layout"):
        composition(Swizzle(1, 0, 1), ComposedLayout(Layout(8, 1), 0, Layout(8, 1)))


def test_layout_outer_composed_after_composed_reduces_when_the_inner_composition_is_a_layout() -> None:
    a = ComposedLayout(Layout(16, 3), 0, Layout(8, 1))
    b = ComposedLayout(Swizzle(1, 2, 1), 0, Layout(4, 2))
    got = composition(a, b)
    assert function_values(got) == [3 * 2 * i for i in range(4)]
    with pytest.raises(CompositionError, match="two composed functions do not reduce to one"):
        composition(a, ComposedLayout(Swizzle(1, 0, 1), 0, Layout(4, 1)))


def test_a_swizzle_after_a_composed_layout_of_2_to_22_elements_is_checked_and_one_more_refused() -> None:
    b = ComposedLayout(Swizzle(1, 0, 1), 0, Layout(CHECKED, 1))
    assert composition(Swizzle(1, 0, 1), b) == Layout(CHECKED, 1)
    with pytest.raises(CompositionError, match=f"over the {CHECKED} this operation checks exactly"):
        composition(Swizzle(1, 0, 1), ComposedLayout(Swizzle(1, 0, 1), 0, Layout(CHECKED + 1, 1)))

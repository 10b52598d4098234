"""The generic algebra's contract (``layoutalg.swizzle.generic``): results equal the brute-force composition of the
functions, refusals are CompositionError / LayoutError naming the argument, and each stated bound holds on both sides.

Truths come from CuTe's definitions evaluated element by element here: ``Swizzle<B,M,S>(x) = x ^ ((x & yyy) >> S)``
with ``yyy = (2**B - 1) << (M + max(0, S))`` (cute/swizzle.hpp), a plain layout evaluated by the core, and a composed
layout ``outer o off o inner`` as ``outer(off + inner(i))``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.stride_scalars import E
from layoutalg.core.tensor import Tensor
from layoutalg.errors import CompositionError, LayoutError
from layoutalg.swizzle import generic
from layoutalg.swizzle.composed import ComposedLayout, eval_layout_at
from layoutalg.swizzle.generic import (
    coalesce,
    commute_swizzle,
    composition,
    downcast,
    layout_after_swizzle,
    left_inverse,
    local_partition,
    local_tile,
    recast,
    right_inverse,
    slice_and_offset,
    upcast,
)
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


# ---------------------------------------------------------------------------
# operations on the domain; tensors keep their engine


def test_coalesce_with_a_profile_coalesces_each_mode_apart_on_layouts_and_composed_layouts() -> None:
    # CuTe's by-mode coalesce: mode 0 is 2:1, mode 1 (2,2):(2,4) merges into 4:2; the two modes stay apart.
    layout = Layout((2, (2, 2)), (1, (2, 4)))
    assert coalesce(layout, (1, 1)) == Layout((2, 4), (1, 2))
    composed = ComposedLayout(Swizzle(1, 0, 1), 0, layout)
    assert coalesce(composed, (1, 1)) == ComposedLayout(Swizzle(1, 0, 1), 0, Layout((2, 4), (1, 2)))
    # without a profile the whole layout merges into one mode
    assert coalesce(composed) == ComposedLayout(Swizzle(1, 0, 1), 0, Layout(8, 1))


@pytest.mark.parametrize("name", ["zipped_divide", "tiled_divide", "flat_divide"])
def test_a_divide_of_a_tensor_is_the_tensor_on_the_same_engine_with_its_layout_divided(name: str) -> None:
    engine = list(range(64))
    tensor = Tensor(engine, Layout((8, 8), (8, 1)))
    got = getattr(generic, name)(tensor, (2, 4))
    assert isinstance(got, Tensor) and got.engine is engine
    assert got.layout == getattr(generic, name)(tensor.layout, (2, 4))


def test_composition_and_coalesce_of_a_tensor_keep_its_engine_and_its_elements() -> None:
    engine = list(range(64))
    tensor = Tensor(engine, Layout((8, 8), (8, 1)))
    composed = composition(tensor, Layout(4, 2))
    assert isinstance(composed, Tensor) and composed.engine is engine
    assert [composed[i] for i in range(4)] == [engine[tensor.layout(2 * i)] for i in range(4)]
    merged = coalesce(tensor, (1, 1))
    assert isinstance(merged, Tensor) and merged.engine is engine
    assert [merged[i] for i in range(64)] == [tensor[i] for i in range(64)]


def test_zipped_divide_of_the_identity_groups_the_tiles_then_the_rests() -> None:
    # PyCuTe: zipped_divide(None, T) is ((T_0, T_1), (C_0, C_1)) where logical_divide(None, T) is ((T_0, C_0), (T_1, C_1)).
    zipped = generic.zipped_divide(None, (2, 2))
    by_axis = generic.logical_divide(None, (2, 2))
    assert zipped.shape == ((by_axis.shape[0][0], by_axis.shape[1][0]), (by_axis.shape[0][1], by_axis.shape[1][1]))
    assert zipped.stride == ((by_axis.stride[0][0], by_axis.stride[1][0]), (by_axis.stride[0][1], by_axis.stride[1][1]))


def test_logical_product_of_a_coordinate_layout_repeats_it_past_its_own_extent() -> None:
    identity = StrideLayout((4, 3), (E(0), E(1)))
    product = generic.logical_product(identity, Layout(2, 1))
    assert product.size() == 24
    first = [product(i) for i in range(12)]
    second = [product(12 + i) for i in range(12)]
    assert first == [identity(i) for i in range(12)]
    assert not any(v in first for v in second)  # the copy lies elsewhere ...
    shift = second[0] - first[0]
    assert all(b - a == shift for a, b in zip(first, second))  # ... as one translate of the first


def test_slicing_a_coordinate_layout_to_one_mode_gives_a_rank_one_layout_like_a_plain_layout() -> None:
    identity = StrideLayout((4, 3), (E(0), E(1)))
    sub: Any
    both: Any
    sub, offset = slice_and_offset(identity, (None, 1))
    plain_sub, _ = slice_and_offset(Layout((4, 3), (1, 4)), (None, 1))
    assert sub.shape == plain_sub.shape == (4,)  # one kept mode, still a tuple (CuTe)
    assert sub.stride == (E(0),) and offset == E(1)
    assert [sub(i) + offset for i in range(4)] == [identity(i, 1) for i in range(4)]
    both, zero = slice_and_offset(identity, (None, None))
    assert both.shape == (4, 3) and both.stride == (E(0), E(1)) and zero == 0


# ---------------------------------------------------------------------------
# local_tile / local_partition against the tile arithmetic


def _colex(index: int, shape: tuple[int, ...]) -> list[int]:
    out = []
    for extent in shape:
        out.append(index % extent)
        index //= extent
    return out


def test_local_tile_with_a_by_mode_tiler_is_the_tile_at_its_coordinate() -> None:
    # (4,6,2):(1,4,24) tiled by (2,3): tile (r0, r1, m2) holds a(2*r0 + c0, 3*r1 + c1, m2).
    a = Layout((4, 6, 2), (1, 4, 24))
    tile, offset = local_tile(a, (2, 3), (1, 1, 1))
    assert [offset + tile(i) for i in range(6)] == [a(2 + c0, 3 + c1, 1) for c1 in range(3) for c0 in range(2)]
    # a shorter coordinate keeps the untiled third mode
    tile, offset = local_tile(a, (2, 3), (1, 1))
    expected = [a(2 + c[0], 3 + c[1], c[2]) for c in (_colex(i, (2, 3, 2)) for i in range(12))]
    assert [offset + tile(i) for i in range(12)] == expected
    with pytest.raises(LayoutError, match="has more modes than the 3 tile modes"):
        local_tile(a, (2, 3), (1, 1, 1, 1))


def test_local_tile_of_a_one_mode_layout_takes_an_int_or_a_one_entry_coordinate() -> None:
    a = Layout(16, 1)
    assert local_tile(a, Layout(4, 1), 2) == local_tile(a, Layout(4, 1), (2,))
    tile, offset = local_tile(a, Layout(4, 1), (2,))
    assert [offset + tile(i) for i in range(4)] == [8, 9, 10, 11]
    with pytest.raises(LayoutError, match="has more modes than the 1 tile modes"):
        local_tile(a, Layout(4, 1), (2, 1))


def test_local_tile_with_a_strided_layout_tiler_follows_its_complement() -> None:
    # zipped_divide(16:1, 4:2) tiles by 4:2 and walks the tiles by its complement (2,2):(1,8): tile 1 starts at 1.
    tile, offset = local_tile(Layout(16, 1), Layout(4, 2), 1)
    assert [offset + tile(i) for i in range(4)] == [1, 3, 5, 7]


def test_local_partition_gives_each_thread_its_coordinate_in_every_tile() -> None:
    # thread 4 of (2,3):(3,1) sits at (1, 1); on (4,6):(6,1) it owns a(1 + 2*p0, 1 + 3*p1).
    a = Layout((4, 6), (6, 1))
    part, offset = local_partition(a, Layout((2, 3), (3, 1)), 4)
    assert [offset + part(i) for i in range(4)] == [a(1 + 2 * p[0], 1 + 3 * p[1]) for p in (_colex(i, (2, 2)) for i in range(4))]
    # a third mode the thread layout does not tile stays whole
    a3 = Layout((4, 6, 2), (1, 4, 24))
    part, offset = local_partition(a3, Layout((2, 3), (3, 1)), 4)
    expected = [a3(1 + 2 * p[0], 1 + 3 * p[1], p[2]) for p in (_colex(i, (2, 2, 2)) for i in range(8))]
    assert [offset + part(i) for i in range(8)] == expected
    part, offset = local_partition(Layout(16, 1), Layout(4, 1), 1)
    assert [offset + part(i) for i in range(4)] == [1, 5, 9, 13]


def test_local_partition_refuses_a_bool_or_non_integer_thread_index() -> None:
    for index in (True, "1"):
        with pytest.raises(LayoutError, match="local_partition index must be an int"):
            local_partition(Layout(16, 1), Layout(4, 1), index)  # type: ignore[arg-type]


def test_local_partition_names_a_missing_and_a_repeated_thread_index() -> None:
    with pytest.raises(LayoutError, match="thread index 9 is not a value of 4:1"):
        local_partition(Layout(16, 1), Layout(4, 1), 9)
    with pytest.raises(LayoutError, match=r"thread index 1 is reached more than once by \(2,2\):\(1,0\)"):
        local_partition(Layout(16, 1), Layout((2, 2), (1, 0)), 1)


def test_local_partition_inverts_a_thread_layout_of_2_to_22_threads_and_refuses_one_more() -> None:
    part, offset = local_partition(Layout(CHECKED, 1), Layout(CHECKED, 1), 5)
    assert part.size() == 1 and offset + part(0) == 5
    with pytest.raises(LayoutError, match="too large to invert"):
        local_partition(Layout(CHECKED + 1, 1), Layout(CHECKED + 1, 1), 5)


# ---------------------------------------------------------------------------
# inverses


class _UserLayout(Layout):
    """A user's subclass of Layout: still a Layout to the algebra."""


def test_right_and_left_inverse_of_plain_layouts_and_their_subclasses_invert_them() -> None:
    for a in (Layout((4, 4), (4, 1)), _UserLayout((4, 4), (4, 1))):
        r = right_inverse(a)
        assert r.size() == 16 and [a(r(i)) for i in range(16)] == list(range(16))
        li = left_inverse(a)
        assert [li(a(i)) for i in range(16)] == list(range(16))


def test_right_inverse_of_a_swizzled_bijection_covers_its_whole_domain() -> None:
    a = ComposedLayout(Swizzle(1, 0, 1), 0, Layout(8, 1))
    r = right_inverse(a)
    assert r.size() == 8
    values = function_values(a)
    assert [values[v] for v in function_values(r)] == list(range(8))


def test_right_inverse_refuses_a_composed_layout_with_an_offset() -> None:
    with pytest.raises(CompositionError, match=r"non-zero offset \(4\)"):
        right_inverse(ComposedLayout(Swizzle(1, 0, 1), 4, Layout(4, 1)))


@pytest.mark.parametrize("outer", [Layout(5, 1), Layout(16, 1)])
def test_right_inverse_whose_candidate_leaves_the_domain_falls_back_to_a_prefix(outer: Layout) -> None:
    # right_inverse(outer) runs past the 4 elements of the inner layout: never indexed out of range; the
    # prefix of right_inverse(inner) on which the outer layout is the identity is the answer.
    a = ComposedLayout(outer, 0, Layout(4, 1))
    r = right_inverse(a)
    assert r.size() == 4 and [a(r(i)) for i in range(4)] == [0, 1, 2, 3]


@pytest.mark.parametrize(("a", "size"), [
    # values 0..5 at indices 0, 4, 8, 1, 5, 9; then 6 at 2, so 4:1's index 12 breaks it: (3,2):(4,1)
    (ComposedLayout(Swizzle(1, 3, -3), 0, Layout((4, 3), (3, 1))), 6),
    # values 0..7 at indices 0, 3, ..., 21; 8 at 7 breaks stride 3
    (ComposedLayout(Swizzle(2, 1, 2), 0, Layout((3, 8), (8, 1))), 8),
    (ComposedLayout(Layout((2, 3), (3, 1)), 0, Layout(6, 1)), 6),
])
def test_right_inverse_where_the_swizzled_form_fails_is_the_longest_exact_prefix(a: ComposedLayout, size: int) -> None:
    values = function_values(a)
    r = right_inverse(a)
    assert r.size() == size
    assert [values[v] for v in function_values(r)] == list(range(size))


def test_right_inverse_never_returns_a_function_that_is_not_one() -> None:
    # 4:1 o _0 o 2:2 takes the values 0, 2: only R = 1:0 is a right inverse.
    a = ComposedLayout(Layout(4, 1), 0, Layout(2, 2))
    try:
        r = right_inverse(a)
    except CompositionError:
        return
    values = function_values(a)
    assert [values[v] for v in function_values(r)] == list(range(r.size()))


def test_left_inverse_reads_other_composed_layouts_on_their_values() -> None:
    # 0 at 4: no layout search reads it (a layout is 0 at 0), refused saying why
    with pytest.raises(CompositionError, match="it is 4 at 0"):
        left_inverse(ComposedLayout(Swizzle(1, 0, 1), 4, Layout(4, 1)))
    # a layout outer, a swizzle the identity on the image, and a non-injective one (the generalized inverse)
    for a in (ComposedLayout(Layout(8, 1), 0, Layout(4, 1)), ComposedLayout(Swizzle(3, 2, 4), 0, Layout(5, 1)),
              ComposedLayout(Swizzle(1, 2, -4), 0, Layout(5, 8))):
        inverse = left_inverse(a)
        assert [inverse(a(i)) for i in range(a.size())] == list(range(a.size()))
    shared = ComposedLayout(Swizzle(1, 0, 1), 0, Layout((2, 2), (1, 0)))
    general = left_inverse(shared)
    assert [shared(general(shared(i))) for i in range(4)] == [shared(i) for i in range(4)]


@pytest.mark.parametrize(
    "a",
    [
        ComposedLayout(Swizzle(1, 0, 1), 0, Layout(1, 0)),  # one element: the value 0 only
        ComposedLayout(Swizzle(1, 0, 1), 0, Layout(8, 2)),
        ComposedLayout(Swizzle(2, 0, 2), 0, Layout((4, 4), (4, 1))),
        ComposedLayout(Swizzle(1, 1, -1), 0, Layout(4, 1)),  # the swizzle moves 2, 3 past the inner cosize
        ComposedLayout(Swizzle(2, 1, 3), 0, Layout((2, 8), (1, 4))),
    ],
)
def test_left_inverse_of_a_swizzled_injective_layout_maps_every_value_back_to_its_index(a: ComposedLayout) -> None:
    li = left_inverse(a)
    values = function_values(a)
    assert li.size() > max(values)  # defined on every value of a
    assert [int(v) for v in generic.eval_at(li, np.array(values, dtype=np.int64))] == list(range(len(values)))


# ---------------------------------------------------------------------------
# recast


def test_upcast_and_downcast_of_plain_layouts_scale_the_unit_stride_mode() -> None:
    assert upcast(Layout(64, 1), 4) == Layout(16, 1)
    assert downcast(Layout(16, 1), 2) == Layout(32, 1)


def test_upcast_of_a_swizzled_layout_reads_every_nth_element_divided_by_n() -> None:
    a = ComposedLayout(Swizzle(2, 4, 3), 8, Layout(64, 1))
    up = upcast(a, 4)
    values = function_values(a)
    assert function_values(up) == [values[4 * j] // 4 for j in range(16)]
    assert recast(a, 2) == upcast(a, 2)  # PyCuTe's ratio form: new/old = 2
    assert function_values(recast(a, 2)) == [values[2 * j] // 2 for j in range(32)]


def test_upcast_refuses_an_offset_that_is_not_a_multiple_of_the_factor() -> None:
    with pytest.raises(CompositionError, match="offset 2 is not a multiple of 4"):
        upcast(ComposedLayout(Swizzle(2, 4, 3), 2, Layout(64, 1)), 4)


def test_downcast_of_a_swizzled_layout_splits_every_element_into_n() -> None:
    a = ComposedLayout(Swizzle(2, 4, 3), 3, Layout(16, 1))
    down = downcast(a, 2)
    values = function_values(a)
    assert function_values(down) == [2 * values[k // 2] + k % 2 for k in range(32)]


def test_recast_refuses_a_layout_outer_composed_layout_and_keeps_an_equal_width() -> None:
    a = ComposedLayout(Layout(64, 1), 0, Layout(64, 1))
    with pytest.raises(CompositionError, match="only a swizzle outer function can be recast"):
        upcast(a, 2)
    with pytest.raises(CompositionError, match="only a swizzle outer function can be recast"):
        downcast(a, 2)
    swizzled = ComposedLayout(Swizzle(2, 4, 3), 8, Layout(64, 1))
    assert recast(swizzled, 16, 16) == swizzled


@pytest.mark.parametrize("ratio", [0, Fraction(-1, 2), 2.0, "x", True], ids=["zero", "negative", "float", "str", "bool"])
def test_recast_of_a_swizzled_layout_by_one_ratio_refuses_anything_but_a_positive_int_or_fraction(ratio: object) -> None:
    swizzled = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    with pytest.raises(LayoutError, match=r"^recast ratio must be a positive int or Fraction, got "):
        recast(swizzled, ratio)


# ---------------------------------------------------------------------------
# composition(Layout, ComposedLayout): an answer wherever one of B's shape exists


def _plain_strides(values: list[int], shape: Any) -> Layout | None:
    """Brute force: the plain layout of ``shape`` with these values (strides read at unit coordinates), or None."""
    import itertools

    from layoutalg.core import int_tuple as it

    extents = it.flatten(shape) if isinstance(shape, tuple) else (shape,)
    strides, running = [], 1
    for extent in extents:
        strides.append(values[running] - values[0] if extent > 1 else 0)
        running *= extent
    if values[0] != 0:
        return None
    for index, coord in enumerate(itertools.product(*[range(e) for e in reversed(extents)])):
        if sum(c * d for c, d in zip(reversed(coord), strides)) != values[index]:
            return None
    return Layout(shape, it.unflatten(tuple(strides), shape))


@pytest.mark.parametrize(("a", "b", "expected"), [
    (Layout(8, 1), ComposedLayout(Swizzle(2, 1, -5), 0, Layout(2, 1)), "2:1"),  # the swizzle moves nothing b reaches
    (Layout(6, 0), ComposedLayout(Swizzle(1, 0, -1), 0, Layout(3, 1)), "3:0"),  # CuTe's domain-wide commute fails
    # values 2, 3 of b, so 6, 9: affine at an offset, a plain layout after the offset 6
    (Layout(8, 3), ComposedLayout(Swizzle(1, 2, -3), 2, Layout(2, 1)), "Sw<0,0,0> o _6 o 2:3"),
])
def test_composition_with_a_composed_layout_is_a_plain_layout_where_the_function_is_one(
        a: Layout, b: ComposedLayout, expected: str) -> None:
    result = composition(a, b)
    assert str(result) == expected
    assert function_values(result) == [a(b(i)) for i in range(b.size())]


def test_composition_keeps_the_swizzle_where_it_holds_on_b_s_reach_only() -> None:
    # 6:2 o Sw<1,0,-1> is no swizzle on all of [0, 6) (index 5 goes to 7), but on b's values 0, 3, 2 it is
    a, b = Layout(6, 2), ComposedLayout(Swizzle(1, 0, -1), 0, Layout(3, 1))
    result = composition(a, b)
    assert isinstance(result, ComposedLayout) and isinstance(result.outer, Swizzle)
    assert function_values(result) == [a(b(i)) for i in range(3)] == [0, 6, 4]


def test_composition_with_random_composed_layouts_answers_whenever_a_plain_layout_fits() -> None:
    import random

    rng = random.Random(2611)
    answered = 0
    for _ in range(400):
        b_bits, m, shift = rng.randint(1, 2), rng.randint(0, 3), rng.choice([-5, -3, -2, -1, 1, 2, 3, 4])
        if abs(shift) < b_bits:
            continue
        rank = rng.randint(1, 2)
        inner = Layout(tuple(rng.randint(1, 4) for _ in range(rank)), tuple(rng.randint(0, 6) for _ in range(rank)))
        b = ComposedLayout(Swizzle(b_bits, m, shift), 0, inner)
        values = function_values(b)
        if min(values) < 0:
            continue
        a = Layout(rng.randint(max(values) + 1, max(values) + 8), rng.randint(0, 3))
        expected = [a(v) for v in values]
        try:
            result = composition(a, b)
        except CompositionError:
            assert _plain_strides(expected, inner.shape) is None, (a, b)
            continue
        answered += 1
        assert function_values(result) == expected, (a, b, result)
    assert answered > 200


# ---------------------------------------------------------------------------
# swizzles and int layouts composed with F2-stride layouts


def _f2_layout(rng: Any) -> Any:
    from layoutalg.core.stride_layout import stride_layout
    from layoutalg.core.stride_scalars import F2

    return stride_layout((2, (2, 2), 2), (F2(rng.randint(0, 31)), (F2(rng.randint(0, 31)), F2(rng.randint(0, 31))),
                                          F2(rng.randint(0, 31))))


def test_a_swizzle_or_an_int_layout_after_an_f2_layout_is_read_as_a_layout_of_its_shape() -> None:
    import random

    rng = random.Random(1813)
    for _ in range(150):
        b = _f2_layout(rng)
        offsets = [int(b(i)) for i in range(b.size())]
        for a in (Swizzle(rng.randint(1, 2), rng.randint(0, 2), rng.choice([-3, 2, 3])), Layout(64, rng.randint(1, 3)),
                  Layout(32, 1)):
            expected = [a(v) for v in offsets]
            try:
                result = composition(a, b)
            except CompositionError:
                # only where no layout holds it: a stride-s int layout of XOR values is linear over GF(2) only
                # where s is a power of two
                assert isinstance(a, Layout) and a.stride & (a.stride - 1), (a, b)
                continue
            assert [int(result(i)) for i in range(b.size())] == expected, (a, b, result)


def test_a_swizzle_after_a_coordinate_layout_is_refused() -> None:
    with pytest.raises(CompositionError, match="acts on offsets"):
        composition(Swizzle(1, 0, 2), StrideLayout((4, 3), (E(1), E(0))))

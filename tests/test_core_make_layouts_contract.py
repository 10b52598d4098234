"""Contract of ``layoutalg.core.make_layouts``: ``make_ordered_layout``, ``make_layout_like`` and ``tile_to_shape``
(expected values from the definitions: compact strides growing in the given order; refusals name the ranks)."""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la

X, Y = sympy.symbols("x y", positive=True, integer=True)


def test_make_ordered_layout_puts_symbolic_order_values_after_static_ones_left_to_right() -> None:
    # static order 0 first (stride 1), then the symbolic ones in mode order: x (stride 4), y (stride 4*2)
    a = la.make_ordered_layout((2, 3, 4), (X, Y, 0))
    assert a.shape == (2, 3, 4) and a.stride == (4, 8, 1)


def test_make_layout_like_of_a_symbolic_layout_is_compact_in_its_stride_order() -> None:
    s = la.symbolic_layout((X, 4), (8, 2))  # mode 1 has the smaller stride: it becomes 1, mode 0 then 4
    r = la.make_layout_like(s)
    assert r.shape == (X, 4) and r.stride == (4, 1)


def test_tile_to_shape_refuses_a_block_of_higher_rank_than_the_target_naming_both() -> None:
    with pytest.raises(la.ShapeError, match=r"block \(2,2,2\):\(1,2,4\) has rank 3 > rank of target shape \(4, 4\)"):
        la.tile_to_shape(la.Layout((2, 2, 2)), (4, 4))


def test_tile_to_shape_of_a_swizzled_block_tiles_its_inner_layout_and_keeps_the_swizzle() -> None:
    """CuTe C++'s ComposedLayout overload: ``tile_to_shape(S o L, shape) == S o tile_to_shape(L, shape)``; truth:
    the swizzle applied to the inner tiling's values, enumerated."""
    inner = la.Layout((4, 8), (8, 1))
    swz = la.Swizzle(2, 1, 2)
    got = la.tile_to_shape(la.composition(swz, inner), (8, 16))
    plain = la.tile_to_shape(inner, (8, 16))
    assert got.outer == swz and got.offset == 0 and got.inner == plain
    assert [got(i) for i in range(128)] == [swz(plain(i)) for i in range(128)]

"""Compact layouts built from a shape and an order: ``make_ordered_layout``, ``make_layout_like``, ``tile_to_shape``.

* ``make_ordered_layout(shape, order)`` (CuTe ``make_ordered_layout`` / ``compact_order``):
  the compact layout of ``shape`` whose leaves get prefix-product strides in increasing
  ``order``, ties broken left to right.  ``order`` is congruent to ``shape`` (PyCuTe) or,
  as in CuTe C++, *weakly* congruent: an int order on a sub-tree orders that whole mode,
  which is compact column-major inside (``product_like(shape, order)``).  ``None`` /
  ``"left"`` is column-major, ``"right"`` row-major.
  ``make_ordered_layout((2,3,4), (2,0,1)) == (2,3,4):(12,1,3)``.
* ``make_layout_like(L)`` (CuTe ``make_layout_like``): ``L``'s shape, stride-0 leaves kept at
  0, every other leaf compact in the order of ``L``'s strides (ties left to right):
  ``make_layout_like((2,3,4,5):(0,42,1,0)) == (2,3,4,5):(0,4,1,0)``.
* ``tile_to_shape(block, shape, order)`` (CuTe ``tile_to_shape``): ``block`` padded to
  ``rank(shape)`` and repeated by ``blocked_product`` over
  ``make_ordered_layout(shape / block, order)``, coalesced by mode; each target mode must
  be a multiple of the block's.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout, as_layout
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.symbolic import SymbolicLayout, is_sym, order_key
from layoutalg.core.validate import as_int, check_depth, describe, is_plain_tuple
from layoutalg.errors import ShapeError


def make_ordered_layout(shape: Any, order: Any = None) -> Layout:
    """The compact layout of ``shape`` with strides growing in ``order`` (see the module docstring)."""
    shape_t = it.to_int_tuple(shape, "make_ordered_layout shape")
    if order is None or (isinstance(order, str) and order == "left"):
        return Layout(shape_t)
    if isinstance(order, str) and order == "right":
        return Layout.right(shape_t)
    order_t = _order_tree(order, "make_ordered_layout order")
    if not it.weakly_congruent(order_t, shape_t):
        raise ShapeError(f"make_ordered_layout: order {describe(order_t)} is not congruent to shape {describe(shape_t)}")
    groups: list[tuple[Any, int, IntTuple]] = []  # (order value, position, sub-shape it orders)
    _pair_leaves(order_t, shape_t, groups)
    strides: list[IntTuple] = [0] * len(groups)
    running = 1
    for _, pos, sub in sorted(groups, key=lambda g: order_key(g[0], g[1])):
        strides[pos] = it.prefix_product(sub, running)
        running *= it.product(sub)
    return Layout(shape_t, _rebuild(order_t, shape_t, iter(strides)))


def _order_tree(order: Any, what: str) -> Any:
    """``order`` as a tree of tuples whose leaves are ints or sympy expressions (PyCuTe orders by symbols too);
    a numpy integer array is read as its nested list, any other leaf (None, a float, a string) is refused."""
    if is_plain_tuple(order):  # the common case: an int tuple within the limits
        return order
    if isinstance(order, str):
        raise ShapeError(f"{what} must be None, 'left', 'right' or an int tuple, got {describe(order)}")
    if hasattr(order, "shape") and hasattr(order, "dtype") and getattr(order, "ndim", 0) != 0:
        if getattr(order.dtype, "kind", "") not in ("i", "u"):
            raise ShapeError(f"{what} must hold ints, got a numpy array of dtype {order.dtype}")
        order = order.tolist()
    check_depth(order, what)
    return _order_leaves(order, what)


def _order_leaves(order: Any, what: str) -> Any:
    if isinstance(order, (tuple, list)):
        return tuple(_order_leaves(o, f"{what}[{i}]") for i, o in enumerate(order))
    if is_sym(order):
        return order
    return as_int(order, what, ShapeError)


def _pair_leaves(order: Any, shape: IntTuple, out: list[tuple[Any, int, IntTuple]]) -> None:
    if isinstance(order, tuple):
        for o, s in zip(order, shape):  # type: ignore[arg-type]
            _pair_leaves(o, s, out)
    else:
        out.append((order, len(out), shape))


def _rebuild(order: Any, shape: IntTuple, strides: Any) -> IntTuple:
    if isinstance(order, tuple):
        return tuple(_rebuild(o, s, strides) for o, s in zip(order, shape))  # type: ignore[arg-type]
    return next(strides)  # type: ignore[no-any-return]


def make_layout_like(layout: Layout) -> Layout:
    """``layout``'s shape, compact in the order of its strides, stride-0 leaves kept at 0 (basis strides order by
    their path, colexicographically, then by their scale)."""
    if type(layout) is StrideLayout:
        from layoutalg.core import stride_layout_ops

        return stride_layout_ops.make_layout_like(layout)
    if type(layout) is SymbolicLayout:
        from layoutalg.core import symbolic_ops

        return symbolic_ops.make_layout_like(layout)  # type: ignore[no-any-return]
    layout = as_layout(layout, "make_layout_like layout")
    shapes, strides = it.flatten(layout.shape), it.flatten(layout.stride)
    out = [0] * len(shapes)
    running = 1
    for k in sorted((k for k in range(len(shapes)) if strides[k] != 0), key=lambda k: (strides[k], k)):
        out[k] = running
        running *= shapes[k]
    return Layout._trusted(layout.shape, it.unflatten(out, layout.shape))


def tile_to_shape(block: Layout, shape: Any, order: Any = None) -> Layout:
    """CuTe ``tile_to_shape`` (see the module docstring); ``ShapeError`` if a mode does not divide.  (A composed
    block is the swizzle layer's: :func:`layoutalg.swizzle.generic.tile_to_shape`.)"""
    from layoutalg.core import algebra
    from layoutalg.core.divide_product import blocked_product

    block = as_layout(block, "tile_to_shape block")
    target = it.to_int_tuple(shape, "tile_to_shape target shape")
    target_modes = list(target) if isinstance(target, tuple) else [target]
    block_modes = list(block) if isinstance(block.shape, tuple) else [block]
    if len(block_modes) > len(target_modes):
        raise ShapeError(f"tile_to_shape: block {block} has rank {len(block_modes)} > rank of target shape {target}")
    block_modes += [Layout._trusted(1, 0)] * (len(target_modes) - len(block_modes))
    reps = []
    for k, (mode, tgt) in enumerate(zip(block_modes, target_modes)):
        size, want = mode.size(), it.product(tgt)
        if want % size:
            raise ShapeError(f"tile_to_shape: block mode {k} of size {size} does not divide target mode {k} of size {want}")
        reps.append(want // size)
    padded = Layout(tuple(m.shape for m in block_modes), tuple(m.stride for m in block_modes))
    product_shape = tuple(reps)
    return algebra.coalesce(blocked_product(padded, make_ordered_layout(product_shape, order)), product_shape)


__all__ = ["make_ordered_layout", "make_layout_like", "tile_to_shape"]

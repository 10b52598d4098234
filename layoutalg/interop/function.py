"""A layoutalg layout from a function's values: the one reader behind objects known only by what they compute.

:func:`layout_from_values` returns, for the values ``f(0), ..., f(size - 1)`` over an int-tuple ``shape``
(colexicographic index), the first of

* a plain ``Layout`` over ``shape`` when ``f`` is affine with ``f(0) == 0`` (one stride per leaf, read at the
  leaf's unit coordinate, checked at every point);
* when every leaf extent is a power of two: a plain ``Layout`` with one stride per index *bit* (affine in the
  bits, which covers padded and bit-permuted layouts), coalesced within each top-level mode;
* when ``f`` is linear over GF(2): the ``Layout`` or ``Sw o _0 o Layout`` of
  :func:`layoutalg.swizzle.f2.from_f2`, over ``shape`` where it fits, else with the same top-level modes, else
  the layout with one F2 stride per index bit (a :class:`~layoutalg.core.stride_layout.StrideLayout`: any
  GF(2)-linear map, ``((2,2),2):((F16,F8),F64)``);

and a LayoutError saying that no layoutalg layout equals it otherwise.  Every answer equals ``f`` at every point.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.algebra import coalesce
from layoutalg.core.tuple_ops import transform_leaf
from layoutalg.errors import LayoutError
from layoutalg.swizzle.composed import fit_affine
from layoutalg.swizzle.f2 import BitMatrix, from_f2


def _bits(extent: int) -> int:
    return extent.bit_length() - 1


def _bit_shape(shape: Any) -> Any:
    """Each leaf ``2**k`` replaced by ``(2,) * k`` (``1`` for a leaf of 1)."""
    if isinstance(shape, tuple):
        return tuple(_bit_shape(e) for e in shape)
    bits = _bits(shape)
    return tuple([2] * bits) if bits > 1 else 2 if bits == 1 else 1


def _same(candidate: Any, array: Any) -> bool:
    import numpy as np

    return bool(np.array_equal(np.asarray(candidate.to_numpy(), dtype=np.int64), array))


def layout_from_values(values: Any, shape: Any, what: str) -> Any:
    """The layoutalg layout over ``shape`` whose values are ``values`` (see the module docstring)."""
    import numpy as np

    array = np.asarray(values, dtype=np.int64).reshape(-1)
    if array.size != it.product(shape):
        raise LayoutError(f"{what}: {array.size} values for shape {shape}")
    fitted = fit_affine(array, shape)
    if fitted is not None and fitted[1] == 0:
        return fitted[0]
    leaves = it.flatten(shape) if isinstance(shape, tuple) else [shape]
    if all(e > 0 and e & (e - 1) == 0 for e in leaves) and array.size > 1:
        per_bit = fit_affine(array, _bit_shape(shape))
        if per_bit is not None and per_bit[1] == 0:
            modes = len(shape) if isinstance(shape, tuple) else 1
            merged = coalesce(per_bit[0], tuple([1] * modes)) if modes > 1 else coalesce(per_bit[0])
            if _same(merged, array):
                return merged
        if array.min() >= 0:
            n_in = _bits(array.size)
            columns = [int(array[1 << k]) for k in range(n_in)]
            index = np.arange(array.size, dtype=np.int64)
            expect = np.zeros(array.size, dtype=np.int64)
            for k, c in enumerate(columns):
                expect ^= ((index >> k) & 1) * c
            if np.array_equal(expect, array):
                matrix = BitMatrix(n_in, max(1, int(array.max()).bit_length()), tuple(columns))
                top = shape if isinstance(shape, tuple) else (shape,)
                for attempt in ({"shape": shape}, {"mode_bits": [_bits(it.product(m)) for m in top]}):
                    try:
                        result = from_f2(matrix, **attempt)  # type: ignore[arg-type]
                    except LayoutError:
                        continue
                    if _same(result, array):
                        return result
                return f2_bit_layout(shape, columns)
    raise LayoutError(f"{what} is neither affine nor linear over GF(2) on {shape}; no layoutalg layout equals it")


def integer_values(layout: Any, limit: int, what: str) -> list[int]:
    """Every value of a layout whose values are integers (``Layout``, ``ComposedLayout``, or a layout with int or
    F2 strides: :func:`~layoutalg.core.stride_layout_ops.offset_values`, at most 2**20 points); LayoutError past
    ``limit`` points, for coordinate values, or past 2**62."""
    from layoutalg.core.stride_layout_ops import offset_values

    size = layout.size()
    if size > limit:
        raise LayoutError(f"{what}: {layout} has {size} points; at most {limit} are read")
    values = [int(v) for v in layout.to_numpy()] if hasattr(layout, "to_numpy") else offset_values(layout, what)
    if values and not -(1 << 62) < min(values) <= max(values) < 1 << 62:
        raise LayoutError(f"{what}: {layout} reaches values past 2**62")
    return values


def layout_of_callable(obj: Any, shape: Any, what: str, limit: int = 1 << 20) -> Any:
    """The layoutalg layout over ``shape`` equal to a library object known only by its values ``obj(0), obj(1), ...``
    (:func:`layout_from_values`, at most ``limit`` points); LayoutError where none is."""
    size = it.product(shape)
    if size > limit:
        raise LayoutError(f"{what}: {size} points; at most {limit} are read value by value")
    values = []
    for i in range(size):
        value = obj(i)
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise LayoutError(f"{what} maps {i} to {value!r}, not an integer offset")
        values.append(int(value))
    return layout_from_values(values, shape, what)


def without_f2_strides(layout: Any, library: str) -> Any:
    """A layout with F2 (or int) strides as the plain ``Layout`` or ``Sw o _0 o Layout`` with the same value at every
    point (:func:`layout_from_values`), for a library that has no F2 strides; LayoutError where neither form
    equals it (a GF(2)-linear map of no swizzle form) or for coordinate (basis) values."""
    from layoutalg.core.layout import Layout
    from layoutalg.swizzle.composed import ComposedLayout

    what = f"{library} export of {layout}"
    values = integer_values(layout, 1 << 20, what)
    try:
        result = layout_from_values(values, layout.shape, what)
    except LayoutError:
        result = None
    if not isinstance(result, (Layout, ComposedLayout)):
        raise LayoutError(f"{library} has no F2 strides, and no plain or swizzled layout has the values of {layout} "
                          "(its F2 strides are no swizzle's); it has no form there")
    return result


def f2_bit_layout(shape: Any, columns: list[int]) -> Any:
    """The layout with one F2 stride per index bit (``columns[j]`` the value at ``2**j``) over ``shape``'s leaves
    split into bits: its value is the XOR of the strides of the set index bits, so it equals a function that is
    linear over GF(2) with those columns, exactly and at every point."""
    from layoutalg.core.stride_layout import stride_layout
    from layoutalg.core.stride_scalars import F2

    strides = iter([F2(c) for c in columns])
    bit_shape = _bit_shape(shape)
    return stride_layout(bit_shape, transform_leaf(lambda extent: next(strides) if extent == 2 else F2(0), bit_shape))


__all__ = ["layout_from_values", "layout_of_callable", "integer_values", "without_f2_strides", "f2_bit_layout"]

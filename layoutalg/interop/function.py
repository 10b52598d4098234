"""A layoutalg layout from a function's values: the one reader behind objects known only by what they compute.

:func:`layout_from_values` returns, for the values ``f(0), ..., f(size - 1)`` over an int-tuple ``shape``
(colexicographic index), a plain ``Layout`` over that shape when ``f`` is affine with ``f(0) == 0`` (one
stride per leaf, read at the leaf's unit coordinate and checked at every point), else, when every leaf
extent is a power of two and ``f`` is linear over GF(2), the ``Layout`` or ``Sw o _0 o Layout`` of
:func:`layoutalg.swizzle.f2.from_f2`; anything else is a LayoutError saying that no layoutalg layout equals it.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.errors import LayoutError
from layoutalg.swizzle.composed import fit_affine
from layoutalg.swizzle.f2 import BitMatrix, from_f2


def layout_from_values(values: Any, shape: Any, what: str) -> Any:
    """The layoutalg layout over ``shape`` whose values are ``values`` (see the module docstring)."""
    import numpy as np

    array = np.asarray(values, dtype=np.int64)
    if array.size != it.product(shape):
        raise LayoutError(f"{what}: {array.size} values for shape {shape}")
    fitted = fit_affine(array, shape)
    if fitted is not None and fitted[1] == 0:
        return fitted[0]
    extents = it.flatten(shape) if isinstance(shape, tuple) else [shape]
    if all(e > 0 and e & (e - 1) == 0 for e in extents) and array.min() >= 0:
        bits = array.size.bit_length() - 1
        columns = [int(array[1 << k]) for k in range(bits)]
        index = np.arange(array.size, dtype=np.int64)
        expect = np.zeros(array.size, dtype=np.int64)
        for k, c in enumerate(columns):
            expect ^= ((index >> k) & 1) * c
        if np.array_equal(expect, array):
            n_out = max(1, int(array.max()).bit_length())
            try:
                result = from_f2(BitMatrix(bits, n_out, tuple(columns)), shape=shape)
            except LayoutError:
                result = from_f2(BitMatrix(bits, n_out, tuple(columns)))
            if np.array_equal(np.asarray(result.to_numpy(), dtype=np.int64), array):
                return result
    raise LayoutError(f"{what} is neither affine nor linear over GF(2) on {shape}; no layoutalg layout equals it")


__all__ = ["layout_from_values"]

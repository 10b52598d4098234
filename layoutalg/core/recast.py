"""Re-expressing a layout in wider or narrower elements: CuTe's ``upcast``, ``downcast``, ``recast_layout``.

The formulas are CuTe's (``cute/layout.hpp``), applied leaf by leaf, keeping the
structure:

* ``upcast(L, N)`` (N old elements make one new element): a leaf ``s:d``
  becomes ``shape_div(s, shape_div(N, |d|)) : sign(d) * shape_div(|d|, N)``;
  stride-0 leaves are kept.  A unit-stride mode of 8 elements becomes 2 vectors
  of 4 (``8:1 -> 2:1``); a stride of 8 becomes 2 (``4:8 -> 4:2``).
* ``downcast(L, N)`` (one old element becomes N new ones): a leaf with stride
  ``+-1`` gets ``N`` times the extent, any other leaf ``N`` times the stride.
* ``recast_layout(new_bits, old_bits, L)``: with ``new/old = num/den`` in lowest
  terms, ``downcast(upcast(L, num), den)`` (one of them is the identity when
  ``num`` or ``den`` is 1).

Where CuTe would floor a division that does not come out even (its
``shape_div`` on dynamic values), a :class:`~layoutalg.errors.ShapeError`
naming the leaf is raised instead: such a result would not describe the same
memory.
"""

from __future__ import annotations

from math import gcd
from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout, as_layout
from layoutalg.core.validate import describe, plain_int
from layoutalg.errors import ShapeError


def _positive(n: Any, what: str) -> int:
    n = plain_int(n, what)
    if not it.is_int(n) or n < 1:
        raise ShapeError(f"{what} must be a positive int, got {describe(n)}")
    return int(n)


def _exact_div(a: int, b: int, what: str) -> int:
    try:
        return it.shape_div(a, b)  # type: ignore[return-value]
    except ShapeError:
        raise ShapeError(f"{what}: neither {a} nor {b} divides the other") from None


def upcast(layout: Layout, n: int) -> Layout:
    """CuTe ``upcast<N>``: the layout in units of N-element vectors (see the module docstring)."""
    layout = as_layout(layout, "upcast layout")
    n = _positive(n, "upcast factor")
    leaves: list[tuple[int, int]] = []
    for k, (s, d) in enumerate(zip(it.flatten(layout.shape), it.flatten(layout.stride))):
        if d == 0:
            leaves.append((s, 0))
            continue
        what = f"upcast by {n} of leaf {k} ({s}:{d}) of {layout}"
        per_vector = _exact_div(n, abs(d), what)
        new_s = _exact_div(s, per_vector, what)
        new_d = _exact_div(abs(d), n, what)
        leaves.append((new_s, new_d if d > 0 else -new_d))
    return _rebuild(layout, leaves)


def downcast(layout: Layout, n: int) -> Layout:
    """CuTe ``downcast<N>``: each element becomes N narrower ones (see the module docstring)."""
    layout = as_layout(layout, "downcast layout")
    n = _positive(n, "downcast factor")
    leaves = [
        (s * n, d) if d in (1, -1) else (s, d * n) for s, d in zip(it.flatten(layout.shape), it.flatten(layout.stride))
    ]
    return _rebuild(layout, leaves)


def recast_layout(new_bits: int, old_bits: int, layout: Layout) -> Layout:
    """CuTe ``recast_layout<Old, New>`` (CuTe DSL's argument order): from ``old_bits``-wide to ``new_bits``-wide elements."""
    new_bits = _positive(new_bits, "recast new_bits")
    old_bits = _positive(old_bits, "recast old_bits")
    g = gcd(new_bits, old_bits)
    num, den = new_bits // g, old_bits // g
    result = as_layout(layout, "recast layout")
    if num != 1:
        result = upcast(result, num)
    if den != 1:
        result = downcast(result, den)
    return result


def recast(layout: Layout, old_bits: int, new_bits: int) -> Layout:
    """``recast_layout(new_bits, old_bits, layout)`` with the layout first."""
    return recast_layout(new_bits, old_bits, layout)


def _rebuild(layout: Layout, leaves: list[tuple[int, int]]) -> Layout:
    shape: IntTuple = it.unflatten((s for s, _ in leaves), layout.shape)
    stride: IntTuple = it.unflatten((d for _, d in leaves), layout.shape)
    return Layout._trusted(shape, stride)


__all__ = ["upcast", "downcast", "recast_layout", "recast"]

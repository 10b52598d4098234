"""``recast_by(L, ratio)``: ``L`` re-expressed in elements ``ratio`` times as wide, by CuTe C++'s rule (PyCuTe ``recast``).

``ratio = new_bits / old_bits`` (an int, or a ``Fraction`` below 1), in lowest terms
``num/den``: ``upcast(num)`` then ``downcast(den)``, leaf by leaf, as CuTe C++ writes them
(``cute/layout.hpp``, ``upcast<N>`` / ``downcast<N>``):

* upcast by ``N``: a stride-0 leaf is kept; otherwise ``s:d`` becomes
  ``ceil(s / ceil(N/|d|)) : sign(d) * ceil(|d|/N)``, and ``|d|`` and ``N`` must divide one
  another (CuTe's static assert; :class:`ShapeError` here).  Where the extent does not
  divide, the ceiling makes the result *cover* the wider elements the leaf touches:
  ``recast_by((8,4,6):(1,0,2), 8) == (1,4,2):(1,0,1)`` (six elements at stride 2 touch
  two 8-wide elements).  :func:`~layoutalg.core.recast.upcast` refuses that case instead,
  because the result is then not a per-element re-indexing.
* downcast by ``N``: a leaf of stride ``+-1`` gets ``N`` times the extent, any other ``N``
  times the stride.

Non-power-of-two ratios work (``recast_by(24:1, 6) == 4:1``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout, as_layout
from layoutalg.core.recast import downcast
from layoutalg.core.validate import describe
from layoutalg.errors import ShapeError


def _ratio(ratio: Any) -> Fraction:
    if isinstance(ratio, bool) or not isinstance(ratio, (int, Fraction)):
        raise ShapeError(f"recast ratio must be a positive int or Fraction, got {describe(ratio)}")
    value = Fraction(ratio)
    if value <= 0:
        raise ShapeError(f"recast ratio must be positive, got {describe(ratio)}")
    return value


def upcast_covering(layout: Layout, n: int) -> Layout:
    """CuTe C++ ``upcast<N>`` (ceiling extents; see the module docstring)."""
    layout = as_layout(layout, "upcast layout")
    leaves = []
    for k, (s, d) in enumerate(zip(it.flatten(layout.shape), it.flatten(layout.stride))):
        if d == 0:
            leaves.append((s, 0))
            continue
        if abs(d) % n and n % abs(d):
            raise ShapeError(f"upcast by {n} of leaf {k} ({s}:{d}) of {layout}: neither {abs(d)} nor {n} divides the other")
        per_element = it.ceil_div(n, abs(d))
        step = it.ceil_div(abs(d), n)
        leaves.append((it.ceil_div(s, per_element), step if d > 0 else -step))
    shape = it.unflatten((s for s, _ in leaves), layout.shape)
    stride = it.unflatten((d for _, d in leaves), layout.shape)
    return Layout._trusted(shape, stride)


def recast_by(layout: Layout, ratio: Any) -> Layout:
    """``layout`` in elements ``ratio = new_bits/old_bits`` times as wide (see the module docstring)."""
    if type(ratio) is int and ratio > 0:
        num, den = ratio, 1
    else:
        value = _ratio(ratio)
        num, den = value.numerator, value.denominator
    result = as_layout(layout, "recast layout")
    if num != 1:
        result = upcast_covering(result, num)
    if den != 1:
        result = downcast(result, den)
    return result


__all__ = ["recast_by", "upcast_covering"]

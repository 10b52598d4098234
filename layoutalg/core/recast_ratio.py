"""``recast_by(L, ratio)``: ``L`` re-expressed in elements ``ratio`` times as wide, by CuTe C++'s rule (PyCuTe ``recast``).

``ratio = new_bits / old_bits`` (an int or a ``Fraction``), in lowest terms ``num/den``, leaf by
leaf: an int ratio is ``upcast(num)``, a ratio ``1/den`` is ``downcast(den)``, as CuTe C++ writes
them (``cute/layout.hpp``, ``upcast<N>`` / ``downcast<N>``); a ratio ``p/q`` with both above 1
takes PyCuTe's leaf rule, exact in the ratio (upcast by ``p`` then downcast by ``q`` over-covers:
``recast_by(4:1, 3/2)`` is ``3:1``, the new elements that ``[0, 4)`` old ones touch, not ``4:1``;
``recast_by(8:3, 3/2)`` is ``8:2``, each old element one new one, not ``16:1``).  A leaf of
extent 1 is one element at offset 0 whatever the ratio, so it never breaks the divisibility rule.

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
            if s == 1:  # one element, at offset 0: no divisibility needed
                leaves.append((s, d))
                continue
            raise ShapeError(f"upcast by {n} of leaf {k} ({s}:{d}) of {layout}: neither {abs(d)} nor {n} divides the other")
        per_element = it.ceil_div(n, abs(d))
        step = it.ceil_div(abs(d), n)
        leaves.append((it.ceil_div(s, per_element), step if d > 0 else -step))
    shape = it.unflatten((s for s, _ in leaves), layout.shape)
    stride = it.unflatten((d for _, d in leaves), layout.shape)
    return Layout._trusted(shape, stride)


def _leaf_by(s: int, d: int, num: int, den: int, k: int, layout: Layout) -> tuple[int, int]:
    """One leaf ``s:d`` re-expressed in elements ``num/den`` old ones wide (PyCuTe's ``recast`` rule, exact in the
    ratio rather than upcast-then-downcast, which over-covers for ``p/q`` with both above 1)."""
    if d == 0:
        return s, d
    sign = 1 if d > 0 else -1
    if abs(d) == 1:  # the contiguous leaf: the new elements covering [0, s) old ones
        return it.ceil_div(s * den, num), d
    if (abs(d) * den) % num == 0:  # the ratio divides the stride: each element stays one, at d*den/num
        return s, sign * (abs(d) * den // num)
    if num % (abs(d) * den) == 0:  # the stride divides the ratio: num/(d*den) elements share one new element
        return it.ceil_div(s, num // (abs(d) * den)), sign
    if s == 1:
        return s, d  # one element, at offset 0: no divisibility needed
    raise ShapeError(f"recast by {Fraction(num, den)} of leaf {k} ({s}:{d}) of {layout}: neither {abs(d)} nor "
                     f"{Fraction(num, den)} divides the other")


def recast_by(layout: Layout, ratio: Any) -> Layout:
    """``layout`` in elements ``ratio = new_bits/old_bits`` times as wide (see the module docstring)."""
    if type(ratio) is int and ratio > 0:
        num, den = ratio, 1
    else:
        value = _ratio(ratio)
        num, den = value.numerator, value.denominator
    layout = as_layout(layout, "recast layout")
    if den == 1:
        return upcast_covering(layout, num)
    if num == 1:
        return downcast(layout, den)
    leaves = [_leaf_by(s, d, num, den, k, layout)
              for k, (s, d) in enumerate(zip(it.flatten(layout.shape), it.flatten(layout.stride)))]
    shape = it.unflatten((s for s, _ in leaves), layout.shape)
    stride = it.unflatten((d for _, d in leaves), layout.shape)
    return Layout._trusted(shape, stride)


__all__ = ["recast_by", "upcast_covering"]

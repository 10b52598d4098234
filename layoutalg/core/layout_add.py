"""``layout_add(A, B)``: the layout ``R`` with ``R(i) == A(i) + B(i)`` on ``[0, size)`` (PyCuTe ``layout_add``).

Definition (PyCuTe, ``pycute.algebra.layout_add``; CuTe has no counterpart): ``A`` and ``B``
of one size; ``R`` is a layout of that size whose value at every index is the sum.
The result is returned coalesced (flat), as PyCuTe returns it.

How.  Both are coalesced, and their modes are split at each other's breakpoints in the
index domain: while the current extents ``a`` and ``b`` divide one another, the smaller
one ``t`` becomes a mode ``t : (dA + dB)`` and the larger mode goes on as ``(a/t) :
(t*dA)``.  This common refinement gives the sum leaf by leaf (each index's digits are
the same in both), so the answer is exact by construction.  Where the extents do not
divide (PyCuTe raises there: ``(5,3):(3,1) + (3,5):(5,1)``), the sum may still be a
layout: it is read off the values in coalesced form and checked on the whole domain;
if that fails, no layout has that function and :class:`CompositionError` says so.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.composition import synthesise_1d
from layoutalg.core.flat import Pairs, check_domain, coalesce_pairs, from_pairs, leaf_pairs
from layoutalg.core.layout import Layout, offsets_of_modes
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.validate import describe
from layoutalg.errors import CompositionError, ShapeError


def _refine(pa: Pairs, pb: Pairs) -> Pairs | None:
    """Leafwise sum over the common refinement of two coalesced layouts of one size, or None if none aligns."""
    out: Pairs = []
    ia = ib = 0
    a = b = 1
    da = db = 0
    while True:
        if a == 1:
            if ia == len(pa):
                break
            a, da = pa[ia]
            ia += 1
        if b == 1:
            if ib == len(pb):
                break
            b, db = pb[ib]
            ib += 1
        if a % b and b % a:
            return None
        t = min(a, b)
        out.append((t, da + db))
        a, da = a // t, da * t
        b, db = b // t, db * t
    return out


def layout_add(a: Layout, b: Layout) -> Layout:
    """The layout of ``i -> A(i) + B(i)``, coalesced: ``layout_add(12:2, (4,3):(3,1)) == (4,3):(5,9)``.

    Raises :class:`ShapeError` for arguments that are not layouts or differ in size, and
    :class:`CompositionError` when the sum is not the function of any layout.
    """
    if type(a) is StrideLayout or type(b) is StrideLayout:
        from layoutalg.core import stride_layout_ops

        return stride_layout_ops.layout_add(a, b)
    for name, x in (("A", a), ("B", b)):
        if not isinstance(x, Layout):
            raise ShapeError(f"layout_add {name} must be a Layout, got {describe(x)} ({type(x).__name__})")
    if a.size() != b.size():
        raise ShapeError(f"layout_add needs layouts of one size; {a} has {a.size()}, {b} has {b.size()}")
    pa, pb = coalesce_pairs(leaf_pairs(a)), coalesce_pairs(leaf_pairs(b))
    summed = _refine(pa, pb)
    if summed is not None:
        return from_pairs(coalesce_pairs(summed))
    return _from_values(a, b)


def _from_values(a: Layout, b: Layout) -> Layout:
    """The sum's coalesced layout read off its values, checked on the whole domain."""
    import numpy as np

    check_domain(a.size(), f"layout_add({a}, {b})")
    values: Any = a.to_numpy() + b.to_numpy()
    pairs = synthesise_1d(values)
    if pairs is not None:
        candidate = from_pairs(coalesce_pairs(pairs))
        got = offsets_of_modes([s for s, _ in leaf_pairs(candidate)], [d for _, d in leaf_pairs(candidate)])
        if np.array_equal(got, values):
            return candidate
    first = [int(v) for v in values[:6]]
    raise CompositionError(
        f"layout_add({a}, {b}): the sums {first}... are not the values of any layout "
        "(their extents do not refine each other, and no layout fits the function)"
    )


__all__ = ["layout_add"]

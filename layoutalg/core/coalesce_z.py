"""``coalesce_z(A, profile)``: coalesce that keeps ``A``'s function on *every* index ``i >= 0`` (PyCuTe ``coalesce_z``).

A layout is defined past its size: the last leaf keeps counting (``(4,1):(1,0)`` sends
5 to 1, where its ``coalesce`` ``4:1`` sends it to 5).  ``coalesce_z`` is ``coalesce``
(drop size-1 leaves, merge ``s0:d0, s1:d1`` when ``s0*d0 == d1``) except that the last
leaf is never dropped, only merged into its neighbour when ``s0*d0 == d1`` holds for it
(then the merged mode extends the same way).  So ``coalesce_z((3,4,1):(100,300,0)) ==
(12,1):(100,0)`` and ``coalesce_z(R) == R`` for its results.

``profile`` works as in :func:`~layoutalg.core.algebra.coalesce`: a tuple coalesces mode
by mode (``None`` keeps a mode as it is, modes past the profile are kept).
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.flat import check_layout, coalesce_extended, from_pairs, leaf_pairs
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.symbolic import SymbolicLayout
from layoutalg.errors import ShapeError


def coalesce_z(layout: Layout, profile: Any = None) -> Layout:
    """The shortest flat layout with ``layout``'s function on every ``i >= 0`` (see the module docstring)."""
    kind = type(layout)
    if type(layout) is StrideLayout and type(profile) is not tuple:
        from layoutalg.core import stride_layout_ops

        return stride_layout_ops.coalesce_z(layout)  # type: ignore[no-any-return]
    if type(layout) is SymbolicLayout and type(profile) is not tuple:
        from layoutalg.core import symbolic_ops

        return symbolic_ops.coalesce_z(layout)  # type: ignore[no-any-return]
    if kind is not StrideLayout and kind is not SymbolicLayout:
        layout = check_layout(layout, "coalesce_z layout")
        if type(profile) is not tuple:
            return from_pairs(coalesce_extended(leaf_pairs(layout)))
    modes = list(layout) if it.is_tuple(layout.shape) else [layout]
    if len(profile) > len(modes):
        raise ShapeError(f"coalesce_z profile {profile} has more modes than the rank-{len(modes)} layout {layout}")
    parts = [m if p is None else coalesce_z(m, p) for m, p in zip(modes, profile)] + modes[len(profile) :]
    shape, stride = tuple(p.shape for p in parts), tuple(p.stride for p in parts)
    if kind is StrideLayout:  # by mode, whatever the strides (basis, F2, int)
        from layoutalg.core.stride_layout import stride_layout

        return stride_layout(shape, stride)  # type: ignore[no-any-return]
    if kind is SymbolicLayout:
        return SymbolicLayout(shape, stride)  # type: ignore[return-value]
    return Layout._trusted(shape, stride)


__all__ = ["coalesce_z"]

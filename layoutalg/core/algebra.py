"""CuTe's layout algebra on :class:`Layout`: coalesce and filter here; the rest gathered from
:mod:`~layoutalg.core.composition`, :mod:`~layoutalg.core.complement` and
:mod:`~layoutalg.core.inverses`, so that ``algebra.<name>`` is the one place to call them.

Every function keeps CuTe's name, argument order and result structure, and is
*sound*: it never returns a layout whose function differs from the
mathematical definition.  Where CuTe's algorithm is not provably right for an
input, the result is checked against the definition (by an exact argument
or, failing that, by enumerating the whole domain) and either repaired or
refused with a :class:`~layoutalg.errors.LayoutError` subclass that names the
mode at fault.

Conventions shared by all functions here:
  * a layout ``A`` is defined on every index ``x >= 0``: past ``size(A)`` the
    last mode keeps counting (CuTe's convention, which composition relies on);
  * "coalesced" means flat, no size-1 modes, no adjacent pair with
    ``s0 * d0 == d1``; its 1-D function is the same as the original's.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.complement import GREEDY_LIMIT, complement
from layoutalg.core.composition import _compose, composition, synthesise_1d
from layoutalg.core.flat import ENUMERATION_LIMIT, check_layout, coalesce_pairs, from_pairs, leaf_pairs
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.inverses import left_inverse, max_common_layout, max_common_vector, right_inverse
from layoutalg.core.layout import Layout
from layoutalg.core.validate import check_depth
from layoutalg.errors import ShapeError

__all__ = [
    "ENUMERATION_LIMIT",
    "GREEDY_LIMIT",
    "coalesce",
    "complement",
    "composition",
    "filter",
    "filter_zeros",
    "left_inverse",
    "max_common_layout",
    "max_common_vector",
    "right_inverse",
    "synthesise_1d",
]
_ = _compose  # re-exported: benchmarks clear its memo cache


def coalesce(layout: Layout, profile: IntTuple | None = None) -> Layout:
    """CuTe ``coalesce``: the shortest flat layout with the same 1-D function on ``[0, size)``.

    Size-1 modes are dropped and neighbouring modes with ``s0*d0 == d1`` merge
    into ``(s0*s1):d0``; an empty result is ``1:0`` and a single mode is an int
    shape.  With a tuple ``profile`` the coalescing is by mode: mode ``i`` is
    coalesced against ``profile[i]`` and modes past ``len(profile)`` are kept
    as they are (``coalesce(((2,2),(3,1),5):((1,2),(4,0),12), (1,1))`` is
    ``(4,3,5):(1,4,12)``); an int profile means "coalesce the whole mode", and a
    ``None`` entry keeps that mode as it is (PyCuTe's ``coalesce(A, (None, 1))``).
    """
    if type(layout) is not Layout:
        layout = check_layout(layout, "coalesce layout")
    if profile is None or type(profile) is not tuple:
        return _coalesced(layout)
    check_depth(profile, "coalesce profile")  # its nesting becomes the result's: limited as a shape's is
    shape: Any = layout.shape
    stride: Any = layout.stride
    if type(shape) is not tuple:
        shape, stride = (shape,), (stride,)
    if len(profile) > len(shape):
        raise ShapeError(f"coalesce profile {profile} has more modes than the rank-{len(shape)} layout {layout}")
    shapes = list(shape)
    strides = list(stride)
    for i, p in enumerate(profile):
        if p is not None:
            mode = Layout._trusted(shapes[i], strides[i])
            part = _coalesced(mode) if type(p) is not tuple else coalesce(mode, p)
            shapes[i] = part.shape
            strides[i] = part.stride
    return Layout._trusted(tuple(shapes), tuple(strides))


_ONE_ZERO = Layout._trusted(1, 0)  # layouts are immutable: the empty result is shared


def _coalesced(layout: Layout) -> Layout:
    """Whole-layout coalesce, written out flat (the hot path of the algebra); an already coalesced flat layout is
    returned as it is."""
    shape: Any = layout.shape
    if type(shape) is int:
        return layout if shape != 1 else _ONE_ZERO
    stride: Any = layout.stride
    ss: list[int] = []
    dd: list[int] = []
    ps = pd = 0  # the mode being grown (ps == 0: none yet); kept modes go to ss, dd
    for s, d in zip(shape, stride):
        if type(s) is not int:
            return _coalesced_nested(shape, stride)
        if s == 1:
            continue
        if ps and ps * pd == d:
            ps *= s
        else:
            if ps:
                ss.append(ps)
                dd.append(pd)
            ps, pd = s, d
    if not ps:
        return _ONE_ZERO
    if not ss:
        return Layout._trusted(ps, pd)
    ss.append(ps)
    dd.append(pd)
    if len(ss) == len(shape):
        return layout  # nothing dropped or merged
    return Layout._trusted(tuple(ss), tuple(dd))


def _coalesced_nested(shape: tuple[Any, ...], stride: tuple[Any, ...]) -> Layout:
    """Whole-layout coalesce of a nested layout: its leaves merged in one left-to-right walk (:func:`_merge_leaves`)."""
    ss: list[int] = []
    dd: list[int] = []
    _merge_leaves(shape, stride, ss, dd)
    if len(ss) > 1:
        return Layout._trusted(tuple(ss), tuple(dd))
    return Layout._trusted(ss[0], dd[0]) if ss else _ONE_ZERO


def _merge_leaves(shape: tuple[Any, ...], stride: tuple[Any, ...], ss: list[int], dd: list[int]) -> None:
    """Append the leaves of ``shape:stride`` to the coalesced modes ``ss:dd``: an extent-1 leaf is dropped, a
    leaf continuing the last mode (``s * d == d'``) merges into it."""
    for s, d in zip(shape, stride):
        if type(s) is not int:
            _merge_leaves(s, d, ss, dd)
        elif s != 1:
            if ss and ss[-1] * dd[-1] == d:
                ss[-1] *= s
            else:
                ss.append(s)
                dd.append(d)


def filter_zeros(layout: Layout) -> Layout:
    """CuTe ``filter_zeros``: every stride-0 mode gets extent 1 (the structure is kept)."""
    layout = check_layout(layout, "filter_zeros layout")
    shape = it.zip_transform(lambda s, d: 1 if d == 0 else s, layout.shape, layout.stride)
    return Layout._trusted(shape, layout.stride)


def filter(layout: Layout) -> Layout:
    """CuTe ``filter``: ``coalesce(filter_zeros(layout))``, the layout without its broadcast modes."""
    layout = check_layout(layout, "filter layout")
    return from_pairs(coalesce_pairs([(s, d) for s, d in leaf_pairs(layout) if d != 0]))

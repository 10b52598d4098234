"""Mode bookkeeping on layouts: CuTe's ``append``, ``prepend``, ``group`` (``group_modes``) and ``select``.

None of these changes the function of the modes it keeps; they only move modes
around the top level.  A layout with an int shape counts as one mode.
"""

from __future__ import annotations

from typing import Any, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout, as_layout
from layoutalg.core.validate import MAX_RANK, check_depth, count_text, describe, plain_int
from layoutalg.errors import CoordinateError, LayoutError, ShapeError


def top_modes(layout: Layout) -> list[Layout]:
    """The top-level modes; an int-shaped layout is its own single mode."""
    if type(layout.shape) is tuple:
        return [Layout._trusted(s, d) for s, d in zip(layout.shape, layout.stride)]  # type: ignore[call-overload, arg-type]
    return [layout]


def from_modes(modes: Sequence[Layout]) -> Layout:
    """The layout whose top-level modes are ``modes`` (always a tuple shape)."""
    return Layout._trusted(tuple([m.shape for m in modes]), tuple([m.stride for m in modes]))


def by_mode(op: Any, a: Layout, tiler: Sequence[Any], name: str, keep_rest: bool = True) -> Layout:
    """``op(mode_i, tiler[i])`` for the first ``len(tiler)`` top-level modes (``None`` keeps a mode), errors
    naming the mode; modes past the tiler are kept (CuTe's by-mode divides and products), or dropped with
    ``keep_rest`` False (CuTe's by-mode ``composition``: "drop any modes of lhs that aren't hit by rhs")."""
    for mode_tiler in tiler:  # the tiler's nesting becomes the result's: limited as a shape's is (if it nests)
        if isinstance(mode_tiler, (tuple, list)):
            check_depth(tiler, f"{name} tiler")
            break
    modes = top_modes(a)
    if len(tiler) > len(modes):
        raise ShapeError(f"{name}: tiler of rank {len(tiler)} has more modes than the rank-{len(modes)} layout {a}")
    if not keep_rest:
        modes = modes[: len(tiler)]
    parts = []
    for i, mode in enumerate(modes):
        if i < len(tiler) and tiler[i] is not None:
            try:
                parts.append(op(mode, tiler[i]))
            except LayoutError as err:
                raise type(err)(f"{name} mode {i}: {err}") from None
        else:
            parts.append(mode)
    return from_modes(parts)


def _mode_arg(x: Any, what: str) -> Layout:
    if x is None:
        return Layout._trusted(1, 0)
    return as_layout(x, what)


def append(layout: Layout, mode: Any = None, n: int | None = None) -> Layout:
    """CuTe ``append``: add ``mode`` (default ``1:0``) as a new last top-level mode.

    With ``n`` (CuTe's ``append<N>``), pad with copies of ``mode`` up to rank
    ``n``; a layout already of rank ``>= n`` comes back unchanged.
    """
    layout = as_layout(layout, "append layout")
    extra = _mode_arg(mode, "append mode")
    modes = top_modes(layout)
    if n is None:
        return from_modes(modes + [extra])
    n = _rank_arg(n, "append rank n")
    if len(modes) >= n:
        return layout
    return from_modes(modes + [extra] * (n - len(modes)))


def prepend(layout: Layout, mode: Any = None, n: int | None = None) -> Layout:
    """CuTe ``prepend``: add ``mode`` (default ``1:0``) as a new first top-level mode (padding to rank ``n``)."""
    layout = as_layout(layout, "prepend layout")
    extra = _mode_arg(mode, "prepend mode")
    modes = top_modes(layout)
    if n is None:
        return from_modes([extra] + modes)
    n = _rank_arg(n, "prepend rank n")
    if len(modes) >= n:
        return layout
    return from_modes([extra] * (n - len(modes)) + modes)


def _rank_arg(n: Any, what: str) -> int:
    """A target rank: a positive int of at most ``MAX_RANK`` (2**16) modes, far past any real layout's rank."""
    n = plain_int(n, what)
    if not it.is_int(n) or n < 1:
        raise ShapeError(f"{what} must be a positive int, got {describe(n)}")
    if n > MAX_RANK:
        raise ShapeError(f"{what} {count_text(n)} is past the largest rank a layout may be padded to "
                         f"(MAX_RANK = {MAX_RANK} modes)")
    return int(n)


def group(layout: Layout, begin: int, end: int | None = None) -> Layout:
    """CuTe ``group<B,E>`` (``group_modes``): modes ``[begin, end)`` become one nested mode.

    ``end`` defaults to the rank; negative indices count from the end; an empty
    range is an error (as in CuTe DSL).
    ``group((2,3,4,5):(1,2,6,24), 1, 3) == (2,(3,4),5):(1,(2,6),24)``.
    """
    layout = as_layout(layout, "group layout")
    modes = top_modes(layout)
    r = len(modes)
    b = _index(begin, r, "group begin", allow_end=True)
    e = r if end is None else _index(end, r, "group end", allow_end=True)
    if b >= e:
        raise CoordinateError(f"group begin {begin} must be before end {e} (rank-{r} layout); CuTe DSL refuses empty groups too")
    if not it.is_tuple(layout.shape) and (b, e) == (0, 1):
        return from_modes(modes)  # CuTe DSL: grouping the one mode of an int-shaped layout wraps it once
    return from_modes(modes[:b] + [from_modes(modes[b:e])] + modes[e:])


def select(layout: Layout, *indices: int) -> Layout:
    """CuTe ``select<I...>``: the layout made of the given top-level modes, in the given order."""
    layout = as_layout(layout, "select layout")
    modes = top_modes(layout)
    if len(indices) == 1 and isinstance(indices[0], (tuple, list)):
        indices = tuple(indices[0])
    return from_modes([modes[_index(i, len(modes), f"select index {describe(i)}")] for i in indices])


def _index(i: Any, rank: int, what: str, allow_end: bool = False) -> int:
    i = plain_int(i, what)
    if not it.is_int(i):
        raise CoordinateError(f"{what} must be an int, got {describe(i)}")
    k = i + rank if i < 0 else i
    top = rank if allow_end else rank - 1
    if not 0 <= k <= top:
        raise CoordinateError(f"{what} is out of range for a rank-{rank} layout")
    return k


__all__ = ["append", "prepend", "group", "select", "top_modes", "from_modes"]

"""CuTe's hierarchical-tuple utilities (``cute/util/tuple_algorithms.hpp``; PyCuTe ``htuple``).

Plain functions on int tuples (or any nested tuples), named as CuTe / PyCuTe name them:

* ``wrap(x)``: ``x`` as a tuple (``7 -> (7,)``); ``unwrap(t)``: strip 1-tuples, recursively
  (``((42,),) -> 42``).
* ``get(t, mode=(i, j, ...))``: ``t[i][j]...`` (a Layout's modes too); ``lift(v, mode, pad=0)``: the
  smallest structure with ``v`` at that path and ``pad`` elsewhere, so ``get(lift(v, p), p) == v``.
* ``take(t, begin, end)``: modes ``[begin, end)`` (a Layout gives a Layout, as CuTe's ``take<B,E>``).
* ``slice_(crd, t)`` / ``dice_(crd, t)``: the sub-trees of ``t`` where ``crd`` is ``None`` (CuTe's ``_``)
  / where it is not, collected into one flat tuple (CuTe's ``slice`` / ``dice``).
* ``repeat_like(v, profile)``, ``transform_leaf(f, *ts)``, ``transform_apply_leaf(g, f, t)``,
  ``leaves(t)``: the leafwise map and fold helpers.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterator

from layoutalg.core.validate import MAX_DEPTH, MAX_RANK, as_int, check_depth, describe, walk_leaves
from layoutalg.errors import CoordinateError, ShapeError


def _is_tuple(x: Any) -> bool:
    return isinstance(x, (tuple, list))


def wrap(x: Any) -> tuple[Any, ...]:
    """``x`` if it is a tuple, else ``(x,)``."""
    return tuple(x) if _is_tuple(x) else (x,)


def unwrap(x: Any) -> Any:
    """Strip 1-tuples from the outside in: ``unwrap((((42,)),)) == 42``; ``(1, 2)`` is kept."""
    while _is_tuple(x) and len(x) == 1:
        x = x[0]
    return x


def _path(mode: Any) -> tuple[int, ...]:
    if mode is None:
        return ()
    return tuple(mode) if _is_tuple(mode) else (mode,)


def get(x: Any, mode: Any = ()) -> Any:
    """The element at path ``mode``: ``get((1, (2, (3, 4))), mode=(1, 1, 0)) == 3``; ``()`` is ``x`` itself."""
    out = x
    for depth, i in enumerate(_path(mode)):
        try:
            out = out[i]
        except (IndexError, TypeError, KeyError):
            raise CoordinateError(f"get: path {_path(mode)} leaves {describe(x)} at step {depth} (index {describe(i)})") from None
    return out


def lift(x: Any, mode: Any = (), pad: Any = 0, make: Any = None) -> Any:
    """``x`` placed at path ``mode`` in a ``pad``-filled structure: ``lift(42, (0, 2, 3))`` is ``((0, 0, (0, 0, 0, 42)),)``;
    ``make`` (PyCuTe's) builds the outermost tuple: ``lift(Layout(4, 2), (1,), pad=Layout(1, 0),
    make=make_layout) == Layout((1, 4), (0, 2))``."""
    if make is not None:
        check_callable(make, 1, "lift: make")
    lifted = _lift(x, mode, pad)
    return make(lifted) if make is not None and _path(mode) else lifted


def _lift(x: Any, mode: Any, pad: Any) -> Any:
    path = _path(mode)
    if len(path) > MAX_DEPTH:
        raise ShapeError(f"lift: path {describe(path)} is longer than {MAX_DEPTH} (MAX_DEPTH): the result would nest "
                         "deeper than a shape may")
    for i in path:
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise CoordinateError(f"lift: path entries must be non-negative ints, got {describe(i)}")
        if i >= MAX_RANK:
            raise ShapeError(f"lift: path entry {describe(i)} would build a tuple of more than {MAX_RANK} modes")
    out = x
    for i in reversed(path):
        out = tuple([pad] * i + [out])
    return out


def take(x: Any, begin: int, end: int) -> Any:
    """Modes ``[begin, end)`` of ``x``: a tuple for a tuple, a Layout for a Layout (CuTe ``take<B,E>``)."""
    from layoutalg.core.layout import Layout
    from layoutalg.core.shape_ops import from_modes, top_modes

    begin, end = as_int(begin, "take: begin", CoordinateError), as_int(end, "take: end", CoordinateError)
    modes = top_modes(x) if isinstance(x, Layout) else list(wrap(x))
    if not 0 <= begin <= end <= len(modes):
        raise CoordinateError(f"take: range [{begin}, {end}) is not inside the {len(modes)} modes of {describe(x)}")
    if isinstance(x, Layout):
        return from_modes(modes[begin:end])
    return tuple(modes[begin:end])


def _collect(crd: Any, t: Any, keep_none: bool, out: list[Any]) -> None:
    if crd is None or not _is_tuple(crd):
        if (crd is None) == keep_none:
            out.append(t)
        return
    if not _is_tuple(t) or len(crd) != len(t):
        raise ShapeError(f"slice/dice: coordinate {describe(crd)} does not match {describe(t)}")
    for c, s in zip(crd, t):
        _collect(c, s, keep_none, out)


def slice_(crd: Any, t: Any, g: Any = tuple) -> Any:
    """CuTe ``slice(crd, t)``: the sub-trees of ``t`` where ``crd`` holds ``None``, in order, as one tuple (``g``,
    PyCuTe's, builds it instead: ``slice_((None, 1), (Layout(4), Layout(8)), make_layout) == Layout((4,), (1,))``)."""
    check_callable(g, 1, "slice_: g")
    check_depth(crd, "slice_ crd", CoordinateError)
    check_depth(t, "slice_ t")
    out: list[Any] = []
    _collect(crd, t, True, out)
    return g(out)


def dice_(crd: Any, t: Any) -> tuple[Any, ...]:
    """CuTe ``dice(crd, t)``: the sub-trees of ``t`` where ``crd`` holds a value, in order, as one tuple."""
    check_depth(crd, "dice_ crd", CoordinateError)
    check_depth(t, "dice_ t")
    out: list[Any] = []
    _collect(crd, t, False, out)
    return tuple(out)


def repeat_like(value: Any, profile: Any) -> Any:
    """``profile``'s tree with every leaf ``value``: ``repeat_like(0, ((1, (2, 3)), 4)) == ((0, (0, 0)), 0)``."""
    check_depth(profile, "repeat_like profile")
    return _repeat_like(value, profile)


def _repeat_like(value: Any, profile: Any) -> Any:
    if _is_tuple(profile):
        return tuple(_repeat_like(value, p) for p in profile)
    return value


def transform_leaf(fn: Callable[..., Any], *tuples: Any) -> Any:
    """``fn`` applied to corresponding leaves of congruent tuples, the tree rebuilt.

    ``fn`` must be callable with one argument per tuple (checked before any call); an exception ``fn``
    raises is its own and propagates."""
    if not tuples:
        raise ShapeError("transform_leaf needs at least one tuple")
    check_callable(fn, len(tuples), "transform_leaf: fn")
    return _transform_leaf(fn, tuples, 0)


def _transform_leaf(fn: Callable[..., Any], tuples: tuple[Any, ...], depth: int) -> Any:
    if _is_tuple(tuples[0]):
        if any(not _is_tuple(t) or len(t) != len(tuples[0]) for t in tuples):
            raise ShapeError(f"transform_leaf: {describe(tuples)} are not congruent")
        if depth >= MAX_DEPTH:
            raise ShapeError(f"transform_leaf: tuples nested more than {MAX_DEPTH} levels deep")
        return tuple(_transform_leaf(fn, parts, depth + 1) for parts in zip(*tuples))
    return fn(*tuples)


def check_callable(fn: Any, arity: int, what: str) -> None:
    """``fn`` callable with ``arity`` positional arguments, else ShapeError naming ``what``."""
    if not callable(fn):
        raise ShapeError(f"{what} must be callable, got {describe(fn)}")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: it answers for itself
        return
    try:
        signature.bind(*([None] * arity))
    except TypeError:
        raise ShapeError(f"{what} {describe(fn)} cannot take {arity} positional argument(s)") from None


def transform_apply_leaf(combine: Callable[[Any], Any], fn: Callable[..., Any], t: Any, *tuples: Any) -> Any:
    """Like :func:`transform_leaf`, with ``combine`` (e.g. ``sum``) applied to each level's results."""
    check_callable(combine, 1, "transform_apply_leaf: combine")
    check_callable(fn, 1 + len(tuples), "transform_apply_leaf: fn")
    return _transform_apply_leaf(combine, fn, (t, *tuples), 0)


def _transform_apply_leaf(combine: Callable[[Any], Any], fn: Callable[..., Any], tuples: tuple[Any, ...],
                          depth: int) -> Any:
    if _is_tuple(tuples[0]):
        if any(not _is_tuple(u) or len(u) != len(tuples[0]) for u in tuples):
            raise ShapeError(f"transform_apply_leaf: {describe(tuples)} are not congruent")
        if depth >= MAX_DEPTH:
            raise ShapeError(f"transform_apply_leaf: tuples nested more than {MAX_DEPTH} levels deep")
        return combine(_transform_apply_leaf(combine, fn, parts, depth + 1) for parts in zip(*tuples))
    return fn(*tuples)


def leaves(t: Any) -> Iterator[Any]:
    """The leaves of ``t`` (tuples and lists are inner nodes), left to right (walked without recursion; nested past
    ``MAX_DEPTH``: ShapeError)."""
    return walk_leaves(t, "leaves: a tuple")


__all__ = ["wrap", "unwrap", "get", "lift", "take", "slice_", "dice_", "repeat_like", "transform_leaf",
           "transform_apply_leaf", "leaves"]

"""The walks and queries PyCuTe adds over hierarchical tuples: ``profile``, ``replace``, ``zip_leaves``,
``fold_leaf``, ``coordinates`` and ``in_bounds`` (the maps and surgery CuTe shares are :mod:`.tuple_ops`).

A hierarchical tuple (an *htuple*) is a leaf or a tuple of htuples; the leaves may hold anything (ints,
symbolic extents, basis or F2 values, layouts of a tiler).  The definitions are PyCuTe's (its ``htuple.py``
and ``shape.py`` docstrings, NVlabs/CuTe 9b4e5c0):

* ``profile(x)``: the shape of a layout or tensor, else ``x`` itself (a stride or a tiler is its own profile);
* ``replace(t, x, mode)``: ``t`` with the element at the path ``mode`` replaced by ``x`` (``replace(t, x, ())
  == x``); a leaf at a step of the path is a tuple of one (PyCuTe's ``wrap``);
* ``zip_leaves(t, *ts)``: the tuples of corresponding leaves, ``t`` driving the walk (where ``t`` has a leaf
  the others' sub-trees come whole; where they are shorter, ``None``);
* ``fold_leaf(f, v, *ts)``: ``v = f(v, *leaves)`` over ``zip_leaves(*ts)``;
* ``coordinates(shape)``: the natural coordinates of ``shape`` in colexicographic order (the first mode
  fastest), ``[idx2crd(i, shape) for i in range(size(shape))]``;
* ``in_bounds(crd, shape)``: every leaf of ``idx2crd(crd, shape)`` within its extent (an int beyond the size
  lands in the last leaf, so it is out of bounds).
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Any, Callable, Iterator

from layoutalg.core import int_tuple as it
from layoutalg.core.tuple_ops import _path, check_callable
from layoutalg.core.validate import MAX_DEPTH, as_htuple, as_int, check_depth, describe
from layoutalg.errors import CoordinateError, LayoutError, ShapeError


def profile(obj: Any) -> Any:
    """The tree of ``obj``: a layout's or tensor's shape, else ``obj`` itself (total: refuses nothing)."""
    shape = getattr(obj, "shape", None)
    if shape is not None and not isinstance(obj, tuple):
        return profile(shape() if callable(shape) else shape)
    return obj


def replace(obj: Any, value: Any, mode: Any = ()) -> Any:
    """``obj`` with the element at the path ``mode`` (an int or a sequence of ints) replaced by ``value``."""
    path = list(_path(mode))
    if len(path) > MAX_DEPTH:
        raise CoordinateError(f"replace: a mode path deeper than {MAX_DEPTH}")
    check_depth(obj, "replace obj")
    return _replace(obj, value, [as_int(i, "replace mode", CoordinateError) for i in path], path)


def _replace(obj: Any, value: Any, path: list[int], whole: list[int]) -> Any:
    if not path:
        return value
    items = tuple(obj) if isinstance(obj, (tuple, list)) else (obj,)
    head = path[0]
    if not 0 <= head < len(items):
        raise CoordinateError(f"replace: no mode {head} in {describe(items)} (path {whole})")
    return tuple(_replace(x, value, path[1:], whole) if k == head else x for k, x in enumerate(items))


def zip_leaves(htuple: Any, *tuples: Any) -> Iterator[tuple[Any, ...]]:
    """The corresponding leaves of every input, as tuples; ``htuple`` drives the walk."""
    return _zip_leaves(htuple, tuples, 0)


def _zip_leaves(htuple: Any, tuples: tuple[Any, ...], depth: int) -> Iterator[tuple[Any, ...]]:
    if depth > MAX_DEPTH:
        raise ShapeError(f"zip_leaves: nesting deeper than {MAX_DEPTH}")
    if isinstance(htuple, (tuple, list)):
        for other in tuples:
            if not isinstance(other, (tuple, list)):
                raise ShapeError(f"zip_leaves: {describe(other)} is a leaf where {describe(htuple)} is a tuple (not weakly congruent)")
        for row in zip_longest(htuple, *tuples):
            yield from _zip_leaves(row[0], tuple(row[1:]), depth + 1)
    else:
        yield (htuple, *tuples)


def fold_leaf(fn: Callable[..., Any], value: Any, *tuples: Any) -> Any:
    """Left fold of ``fn`` over the corresponding leaves of ``tuples`` from ``value``."""
    if not tuples:
        raise ShapeError("fold_leaf needs at least one tuple to fold over")
    check_callable(fn, 1 + len(tuples), "fold_leaf: fn")
    for leaves in zip_leaves(*tuples):
        value = fn(value, *leaves)
    return value


def coordinates(shape: Any) -> Iterator[Any]:
    """Every natural coordinate of ``shape``, colexicographically (the first mode varies fastest)."""
    checked = as_htuple(shape, "coordinates shape")
    for leaf in it.flatten(checked) if isinstance(checked, tuple) else [checked]:
        if not isinstance(leaf, int):
            raise ShapeError(f"coordinates takes a shape of int extents, got {describe(checked)}")
    return _coordinates(checked)


def _coordinates(shape: Any) -> Iterator[Any]:
    if isinstance(shape, int):
        yield from range(shape)
        return
    if not shape:
        yield ()
        return
    for rest in _coordinates(shape[1:]):
        for first in _coordinates(shape[0]):
            yield (first,) + rest


def in_bounds(crd: Any, shape: Any) -> bool:
    """Whether ``crd`` (an index, a coordinate, a basis value) names an element of ``shape``."""
    from layoutalg.core.int_tuple_api import idx2crd

    natural = idx2crd(crd, shape)
    pairs = list(zip_leaves(natural, as_htuple(shape, "in_bounds shape")))
    try:
        return all(0 <= int(c) < int(s) for c, s in pairs)
    except (TypeError, ValueError) as bad:
        raise LayoutError(f"in_bounds({describe(crd)}, {describe(shape)}): {bad}") from None


__all__ = ["profile", "replace", "zip_leaves", "fold_leaf", "coordinates", "in_bounds"]

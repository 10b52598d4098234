"""Mode bookkeeping on a ``Layout`` or a ``ComposedLayout``: ``flatten``, ``group``, ``select``, ``append``, ``prepend``.

For ``C = outer o off o inner`` each acts on ``inner`` and keeps ``outer`` and
``off``: the modes it keeps hold the same function, so
``group(C, 0, 2)(((i, j), k)) == C((i, j, k))``,
``select(C, 1)(j) == C((0, j))`` (the modes left out sit at 0) and
``flatten(C)(i) == C(i)``.  Plain layouts (and shapes) go to
:mod:`layoutalg.core.shape_ops` and :mod:`layoutalg.core.int_tuple_api`.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple_api, shape_ops
from layoutalg.swizzle.composed import ComposedLayout


def _keep_outer(fn: Any, a: Any, *args: Any) -> Any:
    if isinstance(a, ComposedLayout):
        return ComposedLayout(a.outer, a.offset, fn(a.inner, *args))
    return fn(a, *args)


def flatten(a: Any, g: Any = None) -> Any:
    """CuTe ``flatten`` of an int tuple, a Layout or a ComposedLayout (its inner layout flattened); ``g`` builds
    the result from the leaves (PyCuTe's, see :func:`layoutalg.core.int_tuple_api.flatten`)."""
    if g is not None:
        return int_tuple_api.flatten(a, g)
    return _keep_outer(int_tuple_api.flatten, a)


def group(a: Any, begin: int, end: int | None = None) -> Any:
    """CuTe ``group<B,E>``: top-level modes ``[begin, end)`` become one nested mode (see ``core.shape_ops.group``)."""
    return _keep_outer(shape_ops.group, a, begin, end)


def select(a: Any, *indices: int) -> Any:
    """CuTe ``select<I...>``: the given top-level modes, in the given order."""
    return _keep_outer(shape_ops.select, a, *indices)


def append(a: Any, mode: Any = None, n: int | None = None) -> Any:
    """CuTe ``append``: ``mode`` (default ``1:0``) as a new last top-level mode (padding to rank ``n``)."""
    return _keep_outer(shape_ops.append, a, mode, n)


def prepend(a: Any, mode: Any = None, n: int | None = None) -> Any:
    """CuTe ``prepend``: ``mode`` (default ``1:0``) as a new first top-level mode (padding to rank ``n``)."""
    return _keep_outer(shape_ops.prepend, a, mode, n)


__all__ = ["flatten", "group", "select", "append", "prepend"]

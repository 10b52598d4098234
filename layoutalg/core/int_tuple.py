"""Hierarchical integer tuples: the shapes, strides and coordinates of CuTe.

An *int tuple* is a Python ``int`` or a ``tuple`` of int tuples, e.g.
``((2, 4), 8)``.  Every function here is a short recursion over that tree and
never mutates its input.  Coordinates are colexicographic (the leftmost mode
varies fastest), as in CuTe.

Invariants (checked by the callers that build layouts, not by every helper):
  * extents of a shape are positive ``int`` (``bool`` is not an int here);
  * a stride is congruent to its shape (same tree, ints at the same leaves).

The functions here trust their input (they are the algebra's inner loops);
the public, validating versions that ``layoutalg`` exports are in
:mod:`layoutalg.core.int_tuple_api`.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Iterator, Union

from layoutalg.core.validate import as_int_tuple
from layoutalg.errors import CoordinateError, ShapeError

IntTuple = Union[int, tuple["IntTuple", ...]]

_SMALL = 1 << 62  # ints below this need no bit-length check


def is_int(x: Any) -> bool:
    """True for a plain integer leaf (``bool`` excluded)."""
    return isinstance(x, int) and not isinstance(x, bool)


def is_tuple(x: Any) -> bool:
    return isinstance(x, tuple)


def to_int_tuple(x: Any, what: str = "int tuple") -> IntTuple:
    """Normalise lists to tuples and check every leaf is an int; ``what`` names the argument in errors.

    Numpy integers are ints; see :func:`layoutalg.core.validate.as_int_tuple` for the limits.
    """
    if type(x) is int and -_SMALL < x < _SMALL:  # fast path: the common flat cases need no walk
        return x
    if type(x) is tuple and all(type(e) is int and -_SMALL < e < _SMALL for e in x):
        return x
    return as_int_tuple(x, what)  # type: ignore[no-any-return]


def flatten(t: IntTuple) -> tuple[int, ...]:
    """All leaves, left to right: ``flatten(((2,4),8)) == (2,4,8)``."""
    if type(t) is tuple:
        if all(type(e) is int for e in t):
            return t  # type: ignore[return-value]
        out: list[int] = []
        _flatten_into(t, out)
        return tuple(out)
    return (t,)  # type: ignore[return-value]


def _flatten_into(t: tuple[Any, ...], out: list[int]) -> None:
    for e in t:
        if type(e) is tuple:
            _flatten_into(e, out)
        else:
            out.append(e)


def rank(t: IntTuple) -> int:
    """Number of top-level modes (1 for an int)."""
    return len(t) if is_tuple(t) else 1  # type: ignore[arg-type]


def depth(t: IntTuple) -> int:
    """Nesting depth: 0 for an int, 1 for a flat tuple."""
    if is_tuple(t):
        return 1 + max((depth(e) for e in t), default=0)  # type: ignore[union-attr]
    return 0


def product(t: IntTuple) -> int:
    """Product of all leaves (1 for the empty tuple)."""
    if type(t) is tuple:
        if all(type(e) is int for e in t):
            return math.prod(t)  # type: ignore[arg-type]
        return math.prod(product(e) for e in t)
    return t  # type: ignore[return-value]


def inner_product(a: IntTuple, b: IntTuple) -> int:
    """Sum of leafwise products of two congruent int tuples."""
    if is_tuple(a):
        if not is_tuple(b) or len(a) != len(b):  # type: ignore[arg-type]
            raise ShapeError(f"inner_product of incongruent {a} and {b}")
        return sum(inner_product(x, y) for x, y in zip(a, b))  # type: ignore[arg-type, misc]
    if is_tuple(b):
        raise ShapeError(f"inner_product of incongruent {a} and {b}")
    return a * b  # type: ignore[operator, return-value]


def congruent(a: IntTuple, b: IntTuple) -> bool:
    """Same tree structure (ints in the same places)."""
    if is_tuple(a) and is_tuple(b):
        return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    return not is_tuple(a) and not is_tuple(b)


def weakly_congruent(a: IntTuple, b: IntTuple) -> bool:
    """``a`` is a coarsening of ``b``: an int in ``a`` may stand for any subtree of ``b``."""
    if not is_tuple(a):
        return True
    if not is_tuple(b):
        return False
    return len(a) == len(b) and all(weakly_congruent(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]


def prefix_product(shape: IntTuple, init: IntTuple = 1) -> IntTuple:
    """Exclusive prefix products in colexicographic order: the compact column-major strides.

    ``prefix_product(((2,4),8)) == ((1,2),8)``; ``prefix_product((3,2), 5) == (5,15)``.  A
    tuple ``init`` (CuTe's) gives each top-level mode its own start:
    ``prefix_product(((2,3),4), (1,10)) == ((1,2),10)``; it must have the shape's rank.
    """
    if is_tuple(init):
        if not is_tuple(shape) or len(shape) != len(init):  # type: ignore[arg-type]
            raise ShapeError(f"prefix_product: tuple init {init} must have the rank of shape {shape}")
        return tuple(prefix_product(x, i) for x, i in zip(shape, init))  # type: ignore[arg-type]
    return _prefix(shape, init)[0]  # type: ignore[arg-type]


def _prefix(shape: IntTuple, init: int) -> tuple[IntTuple, int]:
    """(exclusive prefix products of ``shape`` from ``init``, ``init`` times its size): one pass over the leaves."""
    if type(shape) is int:
        return init, init * shape
    out: list[IntTuple] = []
    running = init
    for mode in shape:  # type: ignore[union-attr]
        if type(mode) is int:
            out.append(running)
            running *= mode
        else:
            value, running = _prefix(mode, running)
            out.append(value)
    return tuple(out), running


def suffix_product(shape: IntTuple, init: IntTuple = 1) -> IntTuple:
    """Exclusive products from the right: compact row-major (``LayoutRight``) strides (a tuple ``init`` as in
    :func:`prefix_product`)."""
    if is_tuple(init):
        if not is_tuple(shape) or len(shape) != len(init):  # type: ignore[arg-type]
            raise ShapeError(f"suffix_product: tuple init {init} must have the rank of shape {shape}")
        return tuple(suffix_product(x, i) for x, i in zip(shape, init))  # type: ignore[arg-type]
    if is_tuple(shape):
        out = []
        running = init
        for mode in reversed(shape):  # type: ignore[arg-type]
            out.append(suffix_product(mode, running))
            running *= product(mode)
        return tuple(reversed(out))
    return init


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for positive ``b``."""
    if b == 0:
        raise ShapeError("ceil_div by zero")
    return -(-a // b)


def shape_div(a: IntTuple, b: IntTuple) -> IntTuple:
    """CuTe's ``shape_div``: divide ``a`` by ``b`` mode by mode, consuming ``b`` from the left.

    For ints, either ``b`` divides ``a`` (result ``a // b``) or ``a`` divides ``b``
    (result 1, the mode is used up).  Anything else is a :class:`ShapeError`,
    where CuTe would silently floor.
    """
    if is_tuple(a):
        if is_tuple(b):
            if len(a) != len(b):  # type: ignore[arg-type]
                raise ShapeError(f"shape_div of incongruent {a} and {b}")
            return tuple(shape_div(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
        out = []
        remaining: int = b  # type: ignore[assignment]
        for mode in a:  # type: ignore[union-attr]
            out.append(shape_div(mode, remaining))
            remaining = shape_div(remaining, product(mode))  # type: ignore[assignment]
        return tuple(out)
    if is_tuple(b):
        return shape_div(a, product(b))
    if b == 0:
        raise ShapeError("shape_div by zero")
    if a % b == 0:  # type: ignore[operator]
        return a // b  # type: ignore[operator]
    if b % a == 0:  # type: ignore[operator]
        return 1
    raise ShapeError(f"shape_div: neither {a} nor {b} divides the other")


def index_digits(shape: IntTuple, stride: IntTuple) -> Iterator[tuple[int, int, int, bool]]:
    """The leaves a 1-D index's value depends on: ``(running, extent, stride, last)`` per leaf.

    ``L(i) = sum(stride * digit)`` with ``digit = (i // running) % extent``, except for the last leaf,
    whose digit is ``i // running`` (CuTe's extension past size).  Stride-0 leaves, and extent-1
    leaves other than the last, contribute nothing and are skipped.  Term builders (z3, sympy) share it.
    """
    extents, steps = flatten(shape), flatten(stride)
    running = 1
    for k, (s, d) in enumerate(zip(extents, steps)):
        last = k == len(extents) - 1
        if d != 0 and (s != 1 or last):
            yield running, s, d, last
        running *= s


def crd2idx(crd: IntTuple, shape: IntTuple, stride: IntTuple | None = None) -> int:
    """Map a coordinate to its offset: ``sum(c_i * d_i)`` over the modes (``stride`` defaults to the compact
    column-major one, ``prefix_product(shape)``, as in CuTe's two-argument form).

    ``crd`` may be an int (a 1-D index into ``shape``, unfolded colexicographically,
    the last mode unbounded as in CuTe) or a tuple congruent to a prefix-tree of
    ``shape``.
    """
    if stride is None:
        if type(crd) is int:
            return crd  # a 1-D index is its own offset under the compact column-major strides
        stride = prefix_product(shape)
    if is_tuple(crd):
        if not is_tuple(shape) or len(crd) != len(shape):  # type: ignore[arg-type]
            raise CoordinateError(f"coordinate {crd} does not match the rank of shape {shape}")
        return sum(crd2idx(c, s, d) for c, s, d in zip(crd, shape, stride))  # type: ignore[arg-type, misc]
    if is_tuple(shape):
        return crd2idx(idx2crd(crd, shape), shape, stride)
    return crd * stride  # type: ignore[operator, return-value]


def idx2crd(idx: IntTuple, shape: IntTuple) -> IntTuple:
    """Unfold a 1-D index into a coordinate of ``shape`` (colexicographic; the last mode is not wrapped)."""
    if is_tuple(idx):
        if not is_tuple(shape) or len(idx) != len(shape):  # type: ignore[arg-type]
            raise CoordinateError(f"coordinate {idx} does not match the rank of shape {shape}")
        return tuple(idx2crd(i, s) for i, s in zip(idx, shape))  # type: ignore[arg-type]
    if is_tuple(shape):
        out = []
        modes = shape  # type: ignore[assignment]
        for k, mode in enumerate(modes):  # type: ignore[arg-type]
            n = product(mode)
            if k == len(modes) - 1:  # type: ignore[arg-type]
                out.append(idx2crd(idx, mode))
            else:
                out.append(idx2crd(idx % n, mode))  # type: ignore[operator]
                idx = idx // n  # type: ignore[operator]
        return tuple(out)
    return idx


def crd2crd(crd: IntTuple, src_shape: IntTuple, dst_shape: IntTuple) -> IntTuple:
    """Re-express a coordinate of ``src_shape`` as one of ``dst_shape`` (same size)."""
    return idx2crd(crd2idx(crd, src_shape, prefix_product(src_shape)), dst_shape)


def elem_scale(a: IntTuple, b: IntTuple) -> IntTuple:
    """Leafwise ``a * product(b)`` where ``a`` is an int, else recurse."""
    if is_tuple(a):
        return tuple(elem_scale(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    return a * product(b)  # type: ignore[operator]


def zip_transform(fn: Any, *tuples: IntTuple) -> IntTuple:
    """Apply ``fn`` to corresponding leaves of congruent int tuples."""
    if is_tuple(tuples[0]):
        return tuple(zip_transform(fn, *parts) for parts in zip(*tuples))  # type: ignore[call-overload]
    return fn(*tuples)  # type: ignore[no-any-return]


def unflatten(flat: Iterable[Any], profile: IntTuple) -> Any:
    """Inverse of :func:`flatten`: rebuild ``profile``'s tree from a flat sequence."""
    items = iter(flat)

    def build(p: IntTuple) -> IntTuple:
        if is_tuple(p):
            return tuple(build(e) for e in p)  # type: ignore[union-attr]
        return next(items)

    return build(profile)


__all__ = [
    "IntTuple",
    "is_int",
    "is_tuple",
    "to_int_tuple",
    "flatten",
    "rank",
    "depth",
    "product",
    "inner_product",
    "congruent",
    "weakly_congruent",
    "prefix_product",
    "suffix_product",
    "ceil_div",
    "shape_div",
    "crd2idx",
    "idx2crd",
    "crd2crd",
    "elem_scale",
    "zip_transform",
    "unflatten",
]

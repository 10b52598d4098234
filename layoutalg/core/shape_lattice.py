"""The compatibility order on shapes: ``compatible``, its join ``common_refinement`` and meet ``common_coarsening``.

Definitions (CuTe's, as the PyCuTe reference states them; PyCuTe whitepaper §2.2.1):

* ``compatible(a, b)``  (``a ≼ b``): ``a`` is ``b`` with some sub-trees replaced by their
  sizes, and ``size(a) == size(b)``.  An int ``n`` is compatible with any shape of size
  ``n``; a tuple only with a tuple of the same rank, mode by mode.  So ``24 ≼ (24,)`` but
  not ``(24,) ≼ 24``, and ``(2,(3,5))`` and ``((3,2),5)`` are not comparable.
* ``common_refinement(a, b)``: the least ``c`` with ``a ≼ c`` and ``b ≼ c`` (the join).
  It exists iff the two agree wherever both are tuples: an int side takes the other
  side's sub-tree (sizes must match), two tuples must have one rank and join by mode.
* ``common_coarsening(a, b)``: the greatest ``c`` with ``c ≼ a`` and ``c ≼ b`` (the
  meet).  It exists iff ``size(a) == size(b)``: an int side forces an int; two tuples of
  one rank meet by mode, and when some mode has no meet (its sizes differ) the whole
  pair falls back to its size, as does a rank mismatch.

A Layout argument (or a Layout inside a tuple, as in a tiler) stands for its shape.  Both operations raise :class:`ShapeError`
when no join / meet exists.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core import symbolic
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.validate import check_depth
from layoutalg.errors import ShapeError


def _shapes(x: Any) -> Any:
    """A Layout (anywhere in a tuple, as in a tiler) stands for its shape."""
    if hasattr(x, "shape") and hasattr(x, "stride"):
        return x.shape
    if isinstance(x, (tuple, list)):
        return tuple(_shapes(e) for e in x)
    return x


def _shape(x: Any, what: str) -> IntTuple:
    """An int tuple; a shape with sympy leaves (PyCuTe's symbolic extents) is kept symbolic."""
    check_depth(x, what)  # before the recursive walks below
    shape = _shapes(x)
    if symbolic.has_sym(shape, what):
        return symbolic.norm_tuple(shape, what)  # type: ignore[no-any-return]
    return it.to_int_tuple(shape, what)


def _size(t: IntTuple) -> Any:
    return symbolic.product(t) if symbolic.has_sym(t) else it.product(t)


def _same(a: Any, b: Any) -> bool:
    """Equal sizes: ints by value, symbolic ones provably (for every value of the symbols)."""
    return a == b if type(a) is int and type(b) is int else symbolic.equal(a, b)


def compatible(a: Any, b: Any) -> bool:
    """``a ≼ b``: ``a`` coarsens ``b`` and has the same size (see the module docstring)."""
    return _compatible(_shape(a, "compatible a"), _shape(b, "compatible b"))


def _compatible(a: IntTuple, b: IntTuple) -> bool:
    if not it.is_tuple(a):
        return _same(a, _size(b))
    if not it.is_tuple(b) or len(a) != len(b):  # type: ignore[arg-type]
        return False
    return all(_compatible(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]


def common_refinement(a: Any, b: Any) -> IntTuple:
    """The join of ``a`` and ``b`` under ``≼``: ``common_refinement((4,(3,5)), ((2,2),15)) == ((2,2),(3,5))``."""
    return _join(_shape(a, "common_refinement a"), _shape(b, "common_refinement b"), "")


def _join(a: IntTuple, b: IntTuple, path: str) -> IntTuple:
    where = f" at mode {path}" if path else ""
    if not it.is_tuple(a) or not it.is_tuple(b):
        if not _same(_size(a), _size(b)):
            raise ShapeError(f"common_refinement: sizes {_size(a)} and {_size(b)} differ{where}")
        return b if not it.is_tuple(a) else a
    if len(a) != len(b):  # type: ignore[arg-type]
        raise ShapeError(f"common_refinement: ranks {len(a)} and {len(b)} differ{where}")  # type: ignore[arg-type]
    return tuple(_join(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b)))  # type: ignore[arg-type]


def common_coarsening(a: Any, b: Any) -> IntTuple:
    """The meet of ``a`` and ``b`` under ``≼``: ``common_coarsening(((2,3),4), ((3,2),4)) == (6,4)``."""
    sa, sb = _shape(a, "common_coarsening a"), _shape(b, "common_coarsening b")
    if not _same(_size(sa), _size(sb)):
        raise ShapeError(f"common_coarsening: sizes {_size(sa)} and {_size(sb)} differ")
    return _meet(sa, sb)


def _meet(a: IntTuple, b: IntTuple) -> IntTuple:
    """Meet of two shapes of equal size (always exists)."""
    if not it.is_tuple(a) or not it.is_tuple(b) or len(a) != len(b):  # type: ignore[arg-type]
        return _size(a)  # type: ignore[no-any-return]
    if any(not _same(_size(x), _size(y)) for x, y in zip(a, b)):  # type: ignore[arg-type]
        return _size(a)  # type: ignore[no-any-return]
    return tuple(_meet(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]


def product_each(shape: Any) -> IntTuple:
    """CuTe ``product_each``: the size of each top-level mode, the rank kept: ``((2,3),4) -> (6,4)``; an int is itself."""
    s = _shape(shape, "product_each shape")
    if not it.is_tuple(s):
        return s
    return tuple(_size(m) for m in s)  # type: ignore[union-attr]


__all__ = ["compatible", "common_refinement", "common_coarsening", "product_each"]

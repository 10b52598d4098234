"""CuTe DSL's free query functions, over int tuples, ``Layout`` and ``ComposedLayout`` alike.

``size(x, mode=[...])``, ``cosize``, ``rank``, ``depth``, ``shape``, ``stride`` and ``get``, spelled and
keyworded as in ``cutlass.cute`` (cute/core.py): ``mode`` is a path of mode indices (an int is a path of
one), applied first, so ``size(L, mode=[1, 0])`` is the size of mode 0 of mode 1, CuTe C++'s
``size<1,0>(L)``.  Semantics are CuTe's: ``rank`` of an int is 1, ``depth`` of an int is 0 and of a flat
tuple 1, ``size`` is the product of the shape's leaves; ``cosize`` is one past the largest offset (exact for
negative strides and swizzles, see :meth:`Layout.cosize`), and for a coordinate or F2 layout the size of its
coshape (CuTe: ``cosize(L) == size(coshape(L))``).  Plain, swizzled, coordinate/F2 (``StrideLayout``) and
symbolic layouts are read alike, and tuples may hold symbolic extents (``size((N, 4)) == 4*N``) or, for the
tree queries, stride scalars.  Anything else with ``.shape`` (a TV layout, a tensor) is read through its
shape.
"""

from __future__ import annotations

from typing import Any, Sequence, Union

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.symbolic import SymbolicLayout
from layoutalg.core.validate import as_htuple, check_depth, describe
from layoutalg.errors import CoordinateError, LayoutError
from layoutalg.swizzle.composed import ComposedLayout

#: Every layout kind the queries read directly (coordinate/F2 and symbolic layouts included, as in PyCuTe).
LAYOUTS = (Layout, ComposedLayout, StrideLayout, SymbolicLayout)

Mode = Union[int, Sequence[int], None]


def _path(mode: Mode) -> list[int]:
    if mode is None:
        return []
    if isinstance(mode, int) and not isinstance(mode, bool):
        return [mode]
    if isinstance(mode, (list, tuple)) and all(isinstance(m, int) and not isinstance(m, bool) for m in mode):
        return list(mode)
    raise CoordinateError(f"mode must be an int or a list of ints (a path of mode indices), got {describe(mode)}")


def _is_int_tuple(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return True
    return isinstance(x, tuple) and all(_is_int_tuple(e) for e in x)


def get(x: Any, mode: Mode = None) -> Any:
    """The sub-object at ``mode`` (CuTe DSL ``get(x, mode=[i, j])``, C++ ``get<i, j>(x)``)."""
    path = _path(mode)
    check_depth(x, "get argument")  # before the recursive _is_int_tuple
    for depth, i in enumerate(path):
        here = path[: depth + 1]
        if _is_int_tuple(x):
            n = it.rank(x)
            if not -n <= i < n:
                raise CoordinateError(f"mode {here} is out of range: rank {n} at that level")
            x = x[i] if isinstance(x, tuple) else x
        elif isinstance(x, LAYOUTS):
            n = x.rank()
            if not -n <= i < n:
                raise CoordinateError(f"mode {here} is out of range for {x} (rank {n} at that level)")
            x = x[i]
        else:
            raise LayoutError(f"get takes a tuple or a layout, got {type(x).__name__}")
    return x


def _shape_of(x: Any, what: str) -> Any:
    if isinstance(x, LAYOUTS):
        return x.shape
    if isinstance(x, (int, tuple, list)) or (hasattr(x, "__index__") and getattr(x, "ndim", 0) == 0) \
            or hasattr(x, "free_symbols"):
        return as_htuple(x, f"{what} argument")  # checked: numpy ints read, bools and floats refused
    shape_attr = getattr(x, "shape", None)
    check_depth(shape_attr, f"{what} argument's shape")
    if shape_attr is not None and _is_int_tuple(shape_attr):
        return shape_attr
    raise LayoutError(f"{what} takes a tuple or a layout, got {type(x).__name__}")


def _at(x: Any, mode: Mode, what: str) -> Any:
    """``x`` at ``mode``: a layout stays a layout, anything else is read through its shape."""
    if isinstance(x, LAYOUTS):
        return get(x, mode)
    return get(_shape_of(x, what), mode)


def size(x: Any, mode: Mode = None) -> Any:
    """Number of elements of the domain of ``x`` at ``mode`` (CuTe DSL ``size(a, mode=[])``); a sympy expression
    where the shape has symbolic extents."""
    shape = _shape_of(_at(x, mode, "size"), "size")
    leaves = it.flatten(shape) if isinstance(shape, tuple) else (shape,)
    if any(type(e).__name__ in ("ArithTuple", "F2") for e in leaves):
        raise LayoutError(f"size takes a shape of extents, got {shape} (basis or F2 values are not extents)")
    return it.product(shape)


def rank(x: Any, mode: Mode = None) -> int:
    """Number of top-level modes at ``mode`` (1 for an int)."""
    return it.rank(_shape_of(_at(x, mode, "rank"), "rank"))


def depth(x: Any, mode: Mode = None) -> int:
    """Nesting depth at ``mode``: 0 for an int, 1 for a flat tuple."""
    return it.depth(_shape_of(_at(x, mode, "depth"), "depth"))


def shape(x: Any, mode: Mode = None) -> Any:
    """The shape at ``mode`` (CuTe DSL ``shape(a, mode=...)``)."""
    return _shape_of(_at(x, mode, "shape"), "shape")


def stride(x: Any, mode: Mode = None) -> Any:
    """The stride of a layout at ``mode`` (a tuple or a stride scalar is its own stride, as in PyCuTe's
    ``stride((1, (4, 8))) == (1, (4, 8))``); a swizzled layout has none (LayoutError)."""
    if not isinstance(x, LAYOUTS) and (isinstance(x, (tuple, list)) or type(x).__name__ in ("ArithTuple", "F2")):
        return get(as_htuple(x, "stride argument"), mode)  # a stride is its own stride (PyCuTe)
    sub = _at(x, mode, "stride")
    if isinstance(sub, (Layout, StrideLayout, SymbolicLayout)):
        return sub.stride
    raise LayoutError(f"stride takes a layout with strides, got {type(x).__name__}"
                      + (" (a swizzled layout has no stride; use .inner)" if isinstance(sub, ComposedLayout) else ""))


def cosize(x: Any, mode: Mode = None) -> int:
    """One past the largest offset of the (sub-)layout at ``mode`` (CuTe DSL ``cosize(a, mode=[])``)."""
    sub = _at(x, mode, "cosize")
    if isinstance(sub, (Layout, ComposedLayout)):
        return sub.cosize()
    if isinstance(sub, StrideLayout):
        from layoutalg.core.stride_codomain import coshape

        return it.product(coshape(sub))
    if isinstance(sub, SymbolicLayout):
        from layoutalg.core.symbolic_ops import cosize as symbolic_cosize

        return symbolic_cosize(sub)
    raise LayoutError(f"cosize takes a layout, got {type(x).__name__}")


__all__ = ["get", "size", "cosize", "rank", "depth", "shape", "stride"]

"""``pycute``: the legacy package shipped in ``nvidia-cutlass`` and NVIDIA's PyCuTe (github NVlabs/CuTe).

Both import as ``pycute`` and share ``Layout(shape, stride)`` with ``.shape``/``.stride`` and
``Swizzle(bits, base, shift)``; they are told apart by what they hold, not by their version:

* the legacy ``pycute.ComposedLayout(layoutB, offset, layoutA)`` evaluates ``layoutB(offset + layoutA(c))``,
  the same order as ours (outer, offset, inner);
* PyCuTe writes swizzles as layouts with ``F2`` strides (``F2(v)``: ``+`` is XOR, ``c * F2(d)`` the
  carry-less product; ``int(F2(v)) == v``, per its docs/06_swizzle.md).  Such a layout is read as the same
  function: a plain layout where the values are affine, else a swizzle composed with a layout (found over
  GF(2)), else (no such form: an extent that is no power of two) layoutalg's own F2-stride layout.
* PyCuTe's coordinate strides (``E(i)``, ``ArithTuple``: its ``.data`` holds the leaves, per its
  ``atuple.py``) and sympy shapes or strides become layoutalg's basis-stride
  (:class:`~layoutalg.core.stride_layout.StrideLayout`) and symbolic layouts, leaf for leaf; a layout mixing
  nonzero integer and F2 strides is refused (PyCuTe cannot add them either).

:func:`to_pycute` writes the legacy package's objects (the one on PyPI); a layout with F2 strides goes as the plain
or swizzled layout with its values (:func:`~layoutalg.interop.function.without_f2_strides`), where one exists.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError, ShapeError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


def _plain_tuple(t: Any, what: str) -> IntTuple:
    if isinstance(t, (tuple, list)):
        return tuple(_plain_tuple(e, f"{what}[{i}]") for i, e in enumerate(t))
    if isinstance(t, bool) or not isinstance(t, int):
        raise ShapeError(f"{what} holds {describe(t)}, which is not a static integer")
    return int(t)


def is_pycute(obj: Any) -> bool:
    """Whether ``obj`` is an object of the legacy ``pycute`` package."""
    return (type(obj).__module__ or "").split(".")[0] == "pycute"


def _is_f2(x: Any) -> bool:
    return type(x).__name__ == "F2"


def _leaves(t: Any) -> list[Any]:
    return [leaf for e in t for leaf in _leaves(e)] if isinstance(t, (tuple, list)) else [t]


#: Largest PyCuTe F2-stride layout whose values are listed to find a plain or swizzled layout equal to it.
_MAX_F2_VALUES = 1 << 20


def _from_f2_layout(shape: IntTuple, strides: list[Any]) -> Any:
    """A PyCuTe layout whose stride leaves are ``F2`` values (``None`` for an integer 0), as the same function."""
    import numpy as np

    from layoutalg.core import int_tuple as it
    from layoutalg.core.f2_strides import int_values
    from layoutalg.interop.function import layout_from_values

    if it.product(shape) > _MAX_F2_VALUES:  # not listed value by value: kept as the F2-stride layout (exact)
        raise LayoutError(f"{shape}: more than {_MAX_F2_VALUES} values")
    pairs = [(extent, 0 if d is None else int(d)) for extent, d in zip(it.flatten(shape), strides)]
    return layout_from_values(np.asarray(int_values(pairs), dtype=np.int64), shape, "PyCuTe F2-stride layout")


def _scalar(x: Any, what: str) -> Any:
    """A PyCuTe shape or stride leaf as layoutalg's: an integer (numpy's included), an ``F2``, an ``ArithTuple``
    (its ``.data``, leaf by leaf), or a sympy expression."""
    from layoutalg.core.stride_scalars import F2, ArithTuple
    from layoutalg.core.symbolic import is_sym

    if isinstance(x, (tuple, list)):
        return tuple(_scalar(e, f"{what}[{i}]") for i, e in enumerate(x))
    if is_sym(x):
        return x
    if _is_f2(x):
        return F2(int(x))
    if type(x).__name__ == "ArithTuple" and isinstance(getattr(x, "data", None), tuple):
        return ArithTuple(tuple(_scalar(e, f"{what}[{i}]") for i, e in enumerate(x.data)))
    if not isinstance(x, bool) and hasattr(x, "__index__"):
        return int(x.__index__())
    raise ShapeError(f"{what} holds {describe(x)} ({type(x).__name__}), which is no integer, F2, ArithTuple or sympy leaf")


def _from_layout(obj: Any) -> Any:
    from layoutalg.core.validate import check_depth

    check_depth(obj.shape, "shape")  # before the recursive walks below: nesting and node count (a shape built by
    check_depth(obj.stride, "stride")  # pairing one tuple with itself 60 times has 2**60 leaves)
    strides = _leaves(obj.stride)
    if all(isinstance(d, int) and not isinstance(d, bool) for d in strides):  # the legacy package's, mostly
        try:
            return Layout(_plain_tuple(obj.shape, "shape"), _plain_tuple(obj.stride, "stride"))
        except ShapeError:
            pass  # a sympy or numpy shape: read leaf by leaf below
    if any(_is_f2(d) for d in strides):
        if not all(_is_f2(d) or (isinstance(d, int) and d == 0) for d in strides):
            raise ShapeError(f"stride {describe(obj.stride)} mixes integer and F2 strides (PyCuTe cannot add them either)")
        shape = _plain_tuple(obj.shape, "shape")
        try:
            return _from_f2_layout(shape, [d if _is_f2(d) else None for d in strides])
        except LayoutError:
            pass  # no plain or swizzled form has these values: layoutalg's F2-stride layout is the same function
    from layoutalg.core.layout import make_layout

    return make_layout(_scalar(obj.shape, "shape"), stride=_scalar(obj.stride, "stride"))


def from_pycute(obj: Any) -> Any:
    """A ``pycute`` (legacy or PyCuTe) ``Layout``, ``Swizzle`` or ``ComposedLayout`` as ours."""
    if not is_pycute(obj):
        raise LayoutError(f"from_pycute expects a pycute object, got {type(obj).__name__} from {describe(type(obj).__module__)}")
    kind = type(obj).__name__
    if kind == "Layout":
        return _from_layout(obj)
    if kind == "Swizzle":
        return Swizzle(obj.bits, obj.base, obj.shift)
    if kind == "ComposedLayout":
        outer, inner = from_pycute(obj.layoutB), from_pycute(obj.layoutA)
        if isinstance(outer, (Swizzle, Layout)) and isinstance(inner, Layout):
            return ComposedLayout(outer, int(obj.offset), inner)
        # a composition of compositions, which no ComposedLayout of ours nests: read it by its values
        from layoutalg.interop.function import layout_of_callable

        return layout_of_callable(obj, inner.shape, f"pycute {obj!r}")
    raise LayoutError(f"from_pycute: unsupported pycute type {kind}")


def to_pycute(x: Any) -> Any:
    """Ours as a pycute object (``Layout``, ``Swizzle`` or ``ComposedLayout(outer, offset, inner)``)."""
    try:
        import pycute
    except ImportError as exc:
        raise LayoutError("to_pycute needs pycute: pip install nvidia-cutlass") from exc

    from layoutalg.core.stride_layout import StrideLayout

    if isinstance(x, StrideLayout):  # F2 strides: the plain or swizzled layout with the same values, if one exists
        from layoutalg.interop.function import without_f2_strides

        x = without_f2_strides(x, "pycute")
    if isinstance(x, Layout):
        return pycute.Layout(x.shape, x.stride)
    if isinstance(x, ComposedLayout):
        return pycute.ComposedLayout(to_pycute(x.outer), x.offset, to_pycute(x.inner))
    if isinstance(x, Swizzle):
        # pycute's Swizzle recurses forever when called with shift 0 (its shiftr(a, 0) calls shiftl(a, 0), which
        # calls shiftr(a, 0), ...); |S| >= B makes such a swizzle one of 0 bits, the identity, so it is written
        # with shift 1, the same (identity) function.
        return pycute.Swizzle(x.bits, x.base, x.shift if x.shift else 1)
    raise LayoutError(f"to_pycute takes a Layout, Swizzle, ComposedLayout or a layout with F2 strides, got "
                      f"{type(x).__name__}")


__all__ = ["is_pycute", "from_pycute", "to_pycute"]

"""``tensor-layouts`` (``pip install tensor-layouts``): its ``Layout``, ``Swizzle`` and ``ComposedLayout`` and back.

tensor-layouts' ``ComposedLayout(outer, inner, offset=k)`` evaluates ``outer(k + inner(c))``: our
``ComposedLayout(outer, k, inner)`` with the arguments reordered (its ``offset`` is keyword-only).  Its
``Swizzle(bits, base, shift)`` moves bits ``[base + shift, base + shift + bits)`` onto ``[base, base + bits)``
like CuTe's ``Swizzle<B, M, S>`` (negative shifts the other way).  A composition no ``ComposedLayout`` of ours
nests so (a composition of compositions; the inverse form whose inner part is a Swizzle, what its ``right_inverse``
of a swizzled layout with an offset returns, over its outer layout's 1-D domain) is read by its values: the plain,
swizzled or F2-stride layout equal to it, else refused.
A layout with F2 strides is written as the plain or swizzled layout with its values, where one exists.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError, ShapeError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


def is_tensor_layouts(obj: Any) -> bool:
    return (type(obj).__module__ or "").split(".")[0] == "tensor_layouts"


def _ints(t: Any, what: str) -> IntTuple:
    if isinstance(t, (tuple, list)):
        return tuple(_ints(e, f"{what}[{i}]") for i, e in enumerate(t))
    if isinstance(t, bool) or not isinstance(t, int):
        raise ShapeError(f"{what} holds {describe(t)}, which is not an integer; only integer layouts are read")
    return t


def from_tensor_layouts(obj: Any) -> Any:
    """A tensor-layouts ``Layout``, ``Swizzle`` or ``ComposedLayout`` as ours."""
    if not is_tensor_layouts(obj):
        raise LayoutError(f"from_tensor_layouts expects a tensor_layouts object, got {type(obj).__name__}")
    kind = type(obj).__name__
    if kind == "Layout":
        from layoutalg.core.validate import check_depth

        check_depth(obj.shape, "shape")  # before the recursive _ints: nesting and node count
        check_depth(obj.stride, "stride")
        return Layout(_ints(obj.shape, "shape"), _ints(obj.stride, "stride"))
    if kind == "Swizzle":
        return Swizzle(int(obj.bits), int(obj.base), int(obj.shift))
    if kind == "ComposedLayout":
        offset = obj.offset
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise ShapeError(f"ComposedLayout offset {describe(offset)} is not an integer")
        inner_kind, outer_kind = type(obj.inner).__name__, type(obj.outer).__name__
        if inner_kind == "Layout" and outer_kind in ("Layout", "Swizzle"):
            return ComposedLayout(from_tensor_layouts(obj.outer), offset, from_tensor_layouts(obj.inner))
        # a composition of compositions (its compose of two swizzled layouts), or the inverse form (a Swizzle inner,
        # over the 1-D domain of its outer layout): no ComposedLayout of ours nests so; read it by its values
        from layoutalg.interop.function import layout_of_callable

        shape = _ints(obj.outer.shape if inner_kind == "Swizzle" else obj.inner.shape, "shape")
        return layout_of_callable(obj, shape, f"tensor_layouts {obj!r}")
    raise LayoutError(f"from_tensor_layouts: a {kind} is not a layout (Layout, Swizzle or ComposedLayout)")


def to_tensor_layouts(x: Any) -> Any:
    """Ours as a tensor-layouts object."""
    try:
        import tensor_layouts as tl
    except ImportError as exc:
        raise LayoutError("to_tensor_layouts needs tensor-layouts: pip install tensor-layouts") from exc
    from layoutalg.core.stride_layout import StrideLayout

    if isinstance(x, StrideLayout):  # F2 strides: the plain or swizzled layout with the same values, if one exists
        from layoutalg.interop.function import without_f2_strides

        x = without_f2_strides(x, "tensor-layouts")
    if isinstance(x, Layout):
        return tl.Layout(x.shape, x.stride)
    if isinstance(x, Swizzle):
        return tl.Swizzle(x.bits, x.base, x.shift)
    if isinstance(x, ComposedLayout):
        return tl.ComposedLayout(to_tensor_layouts(x.outer), to_tensor_layouts(x.inner), offset=x.offset)
    raise LayoutError(f"to_tensor_layouts takes a Layout, Swizzle, ComposedLayout or a layout with F2 strides, "
                      f"got {type(x).__name__}")


__all__ = ["is_tensor_layouts", "from_tensor_layouts", "to_tensor_layouts"]

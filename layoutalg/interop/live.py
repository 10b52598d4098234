"""``layoutalg.as_layout``: any library's layout object (or text) as the same function in layoutalg's types.

Accepted, by what the object is (each library is imported only when its object is met):

* layoutalg's ``Layout``, ``Swizzle``, ``ComposedLayout``, basis/F2-stride and symbolic layouts (returned as
  they are);
* a string in any notation :func:`layoutalg.parse` reads;
* an int or a tuple of ints: the compact column-major layout of that shape (CuTe's ``make_layout(shape)``);
* CuTe DSL ``Layout`` / ``ComposedLayout`` / ``Swizzle`` (inside ``@cute.jit``, where the DSL builds them);
* ``pycute`` objects, legacy or NVIDIA's PyCuTe (``F2``, ``E``/``ArithTuple`` and sympy leaves included);
* ``tensor_layouts`` objects;
* Triton/Gluon layouts (Gluon layout objects, ``triton.tools.LinearLayout``, ``TritonLinearLayout``):
  distributed ones as TV layouts, shared ones as smem layouts; ``shape=(M, N)`` where the object has none.

Anything else, and any value with no layoutalg form (a dynamic DSL value, a layout that is neither affine
nor GF(2)-linear), is a :class:`~layoutalg.errors.LayoutError` saying which.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.symbolic import SymbolicLayout
from layoutalg.core.validate import check_depth
from layoutalg.errors import LayoutError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


def _is_int_tuple(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return True
    return isinstance(x, tuple) and len(x) > 0 and all(_is_int_tuple(e) for e in x)


def library_of(obj: Any) -> str | None:
    """Which supported library ``obj`` comes from (by its type's module), or None."""
    module = type(obj).__module__ or ""
    top = module.split(".")[0]
    if module.startswith("cutlass"):
        return "cute_dsl"
    if top in ("pycute", "tensor_layouts"):
        return top
    if top == "triton" or type(obj).__name__ == "TritonLinearLayout":
        return "triton"
    return None


def as_layout(obj: Any, shape: Any = None) -> Any:
    """``obj`` as a layoutalg ``Layout``, ``ComposedLayout`` or ``Swizzle`` with the same function."""
    if isinstance(obj, (Layout, ComposedLayout, Swizzle, StrideLayout, SymbolicLayout)):
        return obj
    if isinstance(obj, str):
        from layoutalg.interop.triton_text import ttg_attribute

        # Triton's attributes that carry no shape: #ttg.KIND<...>, an alias definition (#blocked = #ttg...) or the
        # dialect's name before Triton 3.2 (#triton_gpu.KIND<...>), all read by from_triton with the shape
        if shape is not None and ttg_attribute(obj) is not None:
            from layoutalg.interop.triton import from_triton

            return from_triton(obj, shape=shape)
        from layoutalg.interop.text import parse

        return parse(obj)
    check_depth(obj, "as_layout shape")  # before the recursive _is_int_tuple
    if _is_int_tuple(obj):
        return Layout(obj)
    library = library_of(obj)
    if library == "cute_dsl":
        from layoutalg.interop.cute_dsl import from_cute_dsl

        return from_cute_dsl(obj)
    if library == "pycute":
        from layoutalg.interop.pycute import from_pycute

        return from_pycute(obj)
    if library == "tensor_layouts":
        from layoutalg.interop.tensor_layouts import from_tensor_layouts

        return from_tensor_layouts(obj)
    if library == "triton":
        from layoutalg.interop.triton import from_triton

        return from_triton(obj, shape=shape)
    raise LayoutError(f"as_layout cannot read a {type(obj).__module__}.{type(obj).__name__}: it takes layoutalg, "
                      "CuTe DSL, pycute/PyCuTe, tensor_layouts and Triton/Gluon layouts, layout text or a shape")


__all__ = ["as_layout", "library_of"]

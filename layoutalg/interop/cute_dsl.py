"""CuTe DSL (``cutlass.cute``): its ``Layout``, ``ComposedLayout`` and ``Swizzle`` to ours and back.

CuTe DSL objects exist only while a ``@cute.jit`` function is traced, so call these inside one.
Static layouts only: their shapes and strides are Python ints at trace time (a dynamic value is refused,
naming the mode); a coordinate layout's ``ScaledBasis`` strides (``make_identity_layout``) become layoutalg's
basis strides and go back as ``value * cute.E(mode)``; F2 strides go as the plain or swizzled layout with their values,
where one exists.  CuTe DSL names the parts of a composed layout the other way round:
``make_composed_layout(inner, offset, outer)`` evaluates ``inner(offset + outer(c))``, so its ``.inner``
is our outer function (the swizzle) and its ``.outer`` our inner layout.  Its prints
(``S<3,3,3> o 0 o (8,64):(64,1)``) go through :func:`layoutalg.parse`.
"""

from __future__ import annotations

import re
from typing import Any

from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError, ShapeError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


def _dsl_int(value: Any, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ShapeError(
        f"{what} is a dynamic CuTe DSL value ({describe(value)}); only static layouts can be read: "
        "build it from Python ints or cutlass.Constexpr")


def _dsl_tuple(t: Any, what: str) -> IntTuple:
    if isinstance(t, (tuple, list)):
        return tuple(_dsl_tuple(e, f"{what}[{i}]") for i, e in enumerate(t))
    return _dsl_int(t, what)


def _is_scaled_basis(x: Any) -> bool:
    return type(x).__name__ == "ScaledBasis" and hasattr(x, "value") and hasattr(x, "mode")


def _dsl_stride(t: Any, what: str) -> Any:
    """A stride leaf: an int, or CuTe DSL's ``ScaledBasis`` (``value @ mode``, ``mode`` the basis path, outermost
    first: ``E((1,0))`` is mode ``[1, 0]``, printed ``1@0@1``) as ``value * E(*mode)``."""
    if isinstance(t, (tuple, list)):
        return tuple(_dsl_stride(e, f"{what}[{i}]") for i, e in enumerate(t))
    if _is_scaled_basis(t):
        from layoutalg.core.stride_scalars import E

        path = [_dsl_int(m, f"{what} basis mode") for m in t.mode]
        return _dsl_int(t.value, f"{what} basis value") * E(*path)
    return _dsl_int(t, what)


def _has_basis(t: Any) -> bool:
    return any(_has_basis(e) for e in t) if isinstance(t, (tuple, list)) else _is_scaled_basis(t)


def is_cute_dsl(obj: Any) -> bool:
    """Whether ``obj`` is a CuTe DSL object (its type lives in ``cutlass.cute``)."""
    return (type(obj).__module__ or "").startswith("cutlass.cute")


def from_cute_dsl(obj: Any) -> Any:
    """A CuTe DSL ``Layout`` / ``Swizzle`` / ``ComposedLayout`` (inside a ``@cute.jit`` trace) as ours."""
    kinds = {c.__name__ for c in type(obj).__mro__}
    if "ComposedLayout" in kinds:
        if isinstance(obj.offset, (tuple, list)):
            raise LayoutError(f"this CuTe DSL composed layout's offset is the coordinate {describe(obj.offset)}; "
                              "only integer offsets are read (CuTe DSL itself does not evaluate it at an index)")
        outer, offset, inner = from_cute_dsl(obj.inner), _dsl_int(obj.offset, "offset"), from_cute_dsl(obj.outer)
        if isinstance(outer, (Swizzle, Layout)) and isinstance(inner, Layout):
            return ComposedLayout(outer, offset, inner)
        if not isinstance(inner, (Layout, ComposedLayout)):
            raise LayoutError(f"CuTe DSL {obj}: a composed layout over a coordinate layout is not read (CuTe DSL "
                              "itself does not evaluate it at an index)")
        # a composition of compositions, which no ComposedLayout of ours nests: read by its values, each part
        # evaluated as read
        from layoutalg.interop.function import layout_of_callable

        return layout_of_callable(lambda i: outer(offset + inner(i)), inner.shape, f"CuTe DSL {obj}")
    if "Layout" in kinds and hasattr(obj, "stride"):
        from layoutalg.core.validate import check_depth

        check_depth(obj.shape, "shape")  # before the recursive walks below: nesting and node count
        check_depth(obj.stride, "stride")
        if _has_basis(obj.stride):  # a coordinate layout (make_identity_layout): layoutalg's basis-stride layout
            from layoutalg.core.stride_layout import stride_layout

            return stride_layout(_dsl_tuple(obj.shape, "shape"), _dsl_stride(obj.stride, "stride"))
        return Layout(_dsl_tuple(obj.shape, "shape"), _dsl_tuple(obj.stride, "stride"))
    if "Swizzle" in kinds and hasattr(obj, "num_bits"):
        return Swizzle(_dsl_int(obj.num_bits, "bits"), _dsl_int(obj.num_base, "base"), _dsl_int(obj.num_shift, "shift"))
    raise LayoutError(f"from_cute_dsl: cannot read a {type(obj).__name__} (a Layout, ComposedLayout or Swizzle "
                      "is expected; a Tensor's layout is its .layout)")


def to_cute_dsl(x: Any) -> Any:
    """Ours as a CuTe DSL value; call inside a ``@cute.jit`` function (CuTe DSL needs a trace)."""
    try:
        import cutlass.cute as cute
    except ImportError as exc:
        raise LayoutError("to_cute_dsl needs CuTe DSL: pip install nvidia-cutlass-dsl") from exc

    from layoutalg.core.stride_layout import StrideLayout

    if not isinstance(x, (Layout, ComposedLayout, Swizzle, StrideLayout)):
        raise LayoutError(f"to_cute_dsl takes a Layout, Swizzle, ComposedLayout or a basis-stride layout, got "
                          f"{type(x).__name__}")
    _check_dsl_range(x)
    try:
        if isinstance(x, Layout):
            return cute.make_layout(x.shape, stride=x.stride)
        if isinstance(x, StrideLayout):
            if _has_f2(x.stride):  # F2 strides: the plain or swizzled layout with the same values, if one exists
                from layoutalg.interop.function import without_f2_strides

                return to_cute_dsl(without_f2_strides(x, "CuTe DSL"))
            return cute.make_layout(x.shape, stride=_basis_to_dsl(cute, x.stride))
        if isinstance(x, ComposedLayout):
            return cute.make_composed_layout(to_cute_dsl(x.outer), x.offset, to_cute_dsl(x.inner))
        made = cute.make_swizzle(x.bits, x.base, x.shift)
        if x.bits and (made.num_bits, made.num_base, made.num_shift) != (x.bits, x.base, x.shift):
            raise LayoutError(f"CuTe DSL's swizzles span at most {_DSL_SWIZZLE_BITS} bits (B + M + |S| <= "
                              f"{_DSL_SWIZZLE_BITS}); it makes {x} the identity S<{made.num_bits},{made.num_base},"
                              f"{made.num_shift}>")
        return made
    except LayoutError:
        raise
    except Exception as exc:  # CuTe DSL's own errors (DSLUserCodeRuntimeError outside a trace, ...)
        reason = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().split("\n")[0]
        raise LayoutError(f"CuTe DSL refused {x} ({type(exc).__name__}: {reason}); to_cute_dsl builds CuTe DSL "
                          "values, which exist only inside a @cute.jit function: call it there") from exc


#: CuTe DSL keeps a swizzle's masks in 32 bits: ``make_swizzle(B, M, S)`` with ``B + M + |S| > 32`` silently
#: gives the identity ``S<0,4,3>`` (tried: ``S<3,26,3>`` is kept, ``S<3,27,3>`` is not).
_DSL_SWIZZLE_BITS = 32


def _check_dsl_range(x: Any) -> None:
    """LayoutError where CuTe DSL cannot hold ``x``'s function: a swizzle past :data:`_DSL_SWIZZLE_BITS` bits (it
    would silently become the identity), or values reaching past the 64-bit integers CuTe DSL evaluates in."""
    if isinstance(x, Swizzle):
        if x.bits and x.bits + x.base + abs(x.shift) > _DSL_SWIZZLE_BITS:
            raise LayoutError(f"CuTe DSL's swizzles span at most {_DSL_SWIZZLE_BITS} bits (B + M + |S| <= "
                              f"{_DSL_SWIZZLE_BITS}); {x} spans {x.bits + x.base + abs(x.shift)} (CuTe DSL would make it "
                              "the identity)")
        return
    if isinstance(x, ComposedLayout):
        _check_dsl_range(x.outer)
        _check_dsl_range(x.inner)
        reach = abs(x.offset) + _reach(x.inner)
    elif isinstance(x, Layout):
        reach = _reach(x)
    else:
        return
    if reach >= 1 << 63:
        raise LayoutError(f"{x} reaches values of magnitude {reach}, past the 64-bit integers CuTe DSL evaluates in")


def _reach(layout: Layout) -> int:
    from layoutalg.core import int_tuple as it

    return sum((s - 1) * abs(d) for s, d in zip(it.flatten(layout.shape), it.flatten(layout.stride)))


def _basis_to_dsl(cute: Any, t: Any) -> Any:
    """Basis strides as CuTe DSL writes them: ``v * E(i)`` is ``v * cute.E(mode)`` (an int stays an int; an F2
    stride has no CuTe DSL form)."""
    from layoutalg.core.stride_scalars import ArithTuple

    if isinstance(t, tuple):
        return tuple(_basis_to_dsl(cute, e) for e in t)
    if isinstance(t, ArithTuple):
        terms = t.terms()
        if not terms:  # the zero vector (0*E(1)): the stride 0
            return 0
        if len(terms) != 1 or type(terms[0][0]) is not int:
            raise LayoutError(f"stride {t} is not one scaled basis vector; CuTe DSL writes value * E(mode) only")
        value, path = terms[0]
        return value * cute.E(tuple(path) if len(path) > 1 else path[0])
    if isinstance(t, int):
        return t
    raise LayoutError(f"stride {t} ({type(t).__name__}) has no CuTe DSL form (F2 strides are PyCuTe's)")


def _has_f2(t: Any) -> bool:
    from layoutalg.core.stride_scalars import F2, ArithTuple

    if isinstance(t, tuple):
        return any(_has_f2(e) for e in t)
    return isinstance(t, F2) or (isinstance(t, ArithTuple) and any(isinstance(v, F2) for v, _ in t.terms()))


def _tuple_text(t: IntTuple) -> str:
    if isinstance(t, tuple):
        return "(" + ",".join(_tuple_text(e) for e in t) + ")"
    return str(t)


def to_dsl_string(x: Any) -> str:
    """How CuTe DSL prints ``x``: ``(8,64):(64,1)``, ``S<3,3,3> o 0 o (8,64):(64,1)``."""
    if isinstance(x, Layout):
        return f"{_tuple_text(x.shape)}:{_tuple_text(x.stride)}"
    if isinstance(x, ComposedLayout):
        return f"{to_dsl_string(x.outer)} o {x.offset} o {to_dsl_string(x.inner)}"
    if isinstance(x, Swizzle):
        return f"S<{x.bits},{x.base},{x.shift}>"
    raise LayoutError(f"to_dsl_string takes a Layout, Swizzle or ComposedLayout, got {type(x).__name__}")


__all__ = ["is_cute_dsl", "from_cute_dsl", "to_cute_dsl", "to_dsl_string"]

"""The legacy ``pycute`` (``import pycute``, shipped in ``nvidia-cutlass``): its objects to ours and back.

``pycute.ComposedLayout(layoutB, offset, layoutA)`` evaluates ``layoutB(offset + layoutA(c))``, the same
order as ours (outer, offset, inner).
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, ShapeError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


def _plain_tuple(t: Any, what: str) -> IntTuple:
    if isinstance(t, (tuple, list)):
        return tuple(_plain_tuple(e, f"{what}[{i}]") for i, e in enumerate(t))
    if isinstance(t, bool) or not isinstance(t, int):
        raise ShapeError(f"{what} holds {t!r}, which is not a static integer")
    return int(t)


def is_pycute(obj: Any) -> bool:
    """Whether ``obj`` is an object of the legacy ``pycute`` package."""
    return (type(obj).__module__ or "").split(".")[0] == "pycute"


def from_pycute(obj: Any) -> Any:
    """A ``pycute.Layout``, ``pycute.Swizzle`` or ``pycute.ComposedLayout`` as ours."""
    if not is_pycute(obj):
        raise LayoutError(f"from_pycute expects a pycute object, got {type(obj).__name__} from {type(obj).__module__!r}")
    kind = type(obj).__name__
    if kind == "Layout":
        return Layout(_plain_tuple(obj.shape, "shape"), _plain_tuple(obj.stride, "stride"))
    if kind == "Swizzle":
        return Swizzle(obj.bits, obj.base, obj.shift)
    if kind == "ComposedLayout":
        return ComposedLayout(from_pycute(obj.layoutB), int(obj.offset), from_pycute(obj.layoutA))
    raise LayoutError(f"from_pycute: unsupported pycute type {kind}")


def to_pycute(x: Any) -> Any:
    """Ours as a pycute object (``Layout``, ``Swizzle`` or ``ComposedLayout(outer, offset, inner)``)."""
    try:
        import pycute
    except ImportError as exc:
        raise LayoutError("to_pycute needs pycute: pip install nvidia-cutlass") from exc

    if isinstance(x, Layout):
        return pycute.Layout(x.shape, x.stride)
    if isinstance(x, ComposedLayout):
        return pycute.ComposedLayout(to_pycute(x.outer), x.offset, to_pycute(x.inner))
    if isinstance(x, Swizzle):
        if x.shift == 0 and x.bits > 0:  # pragma: no cover - our Swizzle refuses |S| < B anyway
            raise LayoutError("pycute's Swizzle recurses forever with shift 0")
        return pycute.Swizzle(x.bits, x.base, x.shift)
    raise LayoutError(f"to_pycute takes a Layout, Swizzle or ComposedLayout, got {type(x).__name__}")


__all__ = ["is_pycute", "from_pycute", "to_pycute"]

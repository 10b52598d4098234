"""Layouts, swizzles and composed layouts as symbolic functions of terms (``sym``, ``idx2crd``, ``tv_coord``)."""

from __future__ import annotations

from typing import Any, Callable

from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove.terms import Apply, BinOp, Const, Expr, as_expr


def kind_of(fn: Any) -> str:
    """``'layout'``, ``'swizzle'`` or ``'composed'`` (duck-typed on the DESIGN.md contracts)."""
    if isinstance(fn, Layout):
        return "layout"
    if all(hasattr(fn, a) for a in ("outer", "offset", "inner")):
        return "composed"
    if all(hasattr(fn, a) for a in ("bits", "base", "shift")):
        return "swizzle"
    raise ProofError(f"expected a Layout, Swizzle or ComposedLayout, got {describe(fn)} ({type(fn).__name__})")


class Sym:
    """A layout-like object as a function of terms: ``sym(L)(i)``, ``sym(L)(row, col)``."""

    __slots__ = ("fn",)

    fn: Any

    def __init__(self, fn: Any) -> None:
        kind_of(fn)
        object.__setattr__(self, "fn", fn)

    def __call__(self, *args: Any) -> Expr:
        if not args:
            raise ProofError(f"{self.fn} applied to no coordinate")
        crd = args[0] if len(args) == 1 else tuple(args)
        return Apply(self.fn, _as_crd(crd))

    def __repr__(self) -> str:
        return f"sym({self.fn})"


def sym(fn: Any) -> Sym:
    """Wrap a ``Layout``, ``Swizzle`` or ``ComposedLayout`` so it can be applied to symbolic terms."""
    return fn if isinstance(fn, Sym) else Sym(fn)


def _as_crd(crd: Any) -> Any:
    if isinstance(crd, (tuple, list)):
        return tuple(_as_crd(c) for c in crd)
    return as_expr(crd)


def idx2crd(index: Any, shape: Any) -> Any:
    """CuTe ``idx2crd`` on a term: the colexicographic coordinate of ``index`` in ``shape`` (nested like it).

    ``idx2crd(i, (4, 8)) == (i % 4, i // 4)``; the last mode keeps counting, as in CuTe.
    """
    from layoutalg.core import int_tuple as it

    idx = as_expr(index)
    shape_t = it.to_int_tuple(shape, "shape")

    def go(term: Expr, s: Any, last: bool) -> Any:
        if isinstance(s, tuple):
            out = []
            running = 1
            for k, mode in enumerate(s):
                is_last = last and k == len(s) - 1
                sub = term if running == 1 else BinOp("//", term, Const(running))
                n = it.product(mode)
                out.append(go(sub if is_last else BinOp("%", sub, Const(n)), mode, is_last))
                running *= n
            return tuple(out)
        return term

    return go(idx, shape_t, True)


def tv_coord(tv_layout: Any, tile_shape: Any) -> Callable[..., Any]:
    """``(thr, val) -> coordinate in the tile`` of a CuTe TV layout (its index decoded by :func:`idx2crd`).

    For an MMA atom's ``a_layout`` and tile ``(M, K)`` this gives ``(m, k)`` of the value a thread holds.
    """
    s = sym(tv_layout)
    return lambda *args: idx2crd(s(*args), tile_shape)

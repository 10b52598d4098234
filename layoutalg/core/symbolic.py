"""Layouts with symbolic (sympy) shapes and strides: PyCuTe's ``Layout(N, X)`` with ``N, X`` sympy integers.

A :class:`SymbolicLayout` is a CuTe layout whose leaves are Python ints or sympy
expressions (PyCuTe declares its symbols ``positive=True, integer=True``).  The
algebra on it (:mod:`layoutalg.core.symbolic_ops`) is CuTe's algorithm run with
*provable* arithmetic only:

* two leaves are equal when ``sympy.expand(a - b) == 0`` (or ``simplify`` proves it);
* ``a`` divides ``b`` when ``b / a`` is provably an integer (sympy's ``is_integer`` is
  ``True``); an undecidable condition is *refused* (:class:`~layoutalg.errors.ShapeError`)
  rather than assumed, so every answer holds for every value of the symbols;
* a symbolic value is never compared by magnitude: where an order is needed (sorting
  strides, ``make_ordered_layout``), static values come first by value and symbolic ones
  after them, left to right (CuTe's rule for dynamic values, PyCuTe's for symbols).

sympy is imported on first use only; ``import layoutalg`` does not pull it in.
"""

from __future__ import annotations

import numbers
from typing import Any

from layoutalg.core.validate import MAX_DEPTH, any_leaf, check_depth, describe
from layoutalg.errors import ShapeError


def sympy_module() -> Any:
    import sympy

    return sympy


def is_sym(x: Any) -> bool:
    """A sympy object (the test is by module, so sympy need not be imported)."""
    return type(x).__module__.startswith("sympy")


def has_sym(t: Any, what: str = "shape") -> bool:
    """Some leaf of the (nested) tuple ``t`` is a sympy object; walked without recursion, a tuple nested more
    than ``MAX_DEPTH`` levels is refused (ShapeError naming ``what``)."""
    return any_leaf(t, is_sym, what, ShapeError, tuple)


def norm(x: Any, what: str = "leaf") -> Any:
    """A leaf as an int when it is a number, else a sympy expression; anything else raises ShapeError."""
    if type(x) is int:
        return x
    if is_sym(x):
        sp = sympy_module()
        if not isinstance(x, sp.Expr):
            raise ShapeError(f"{what} {describe(x)} is not a sympy expression")
        if x.is_Integer:
            return int(x)
        if x.is_number or x.is_integer is False:
            raise ShapeError(f"{what} {x} is not an integer")
        return x
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):  # int subclasses, numpy integers
        return int(x)
    raise ShapeError(f"{what} must be an int or a sympy expression, got {type(x).__name__} {describe(x)}")


def norm_tuple(t: Any, what: str, depth: int = 0) -> Any:
    if isinstance(t, (tuple, list)):
        if depth >= MAX_DEPTH:
            raise ShapeError(f"{what} is nested more than {MAX_DEPTH} levels deep (MAX_DEPTH)")
        if depth == 0:
            check_depth(t, what)  # the node count too, before the recursion below walks every node
        return tuple(norm_tuple(e, what, depth + 1) for e in t)
    return norm(t, what)


def simplify(x: Any) -> Any:
    """``x`` with a number folded to an int."""
    if is_sym(x):
        sp = sympy_module()
        x = sp.expand(x)
        return int(x) if x.is_Integer else x
    return x


def equal(a: Any, b: Any) -> bool:
    """``a == b`` provably (for every value of the symbols)."""
    if type(a) is int and type(b) is int:
        return a == b
    sp = sympy_module()
    diff = sp.expand(a - b)
    if diff == 0:
        return True
    return bool(sp.simplify(diff) == 0)


def divides(a: Any, b: Any) -> bool:
    """``a`` divides ``b`` provably (``b / a`` is an integer for every value of the symbols)."""
    if type(a) is int and type(b) is int:
        return a != 0 and b % a == 0
    if type(a) is int and a == 1:
        return True
    sp = sympy_module()
    q = sp.simplify(sp.Rational(1) * b / a)
    return q.is_integer is True


def quotient(b: Any, a: Any) -> Any:
    """``b / a`` where ``a`` divides ``b`` (:func:`divides`)."""
    if type(a) is int and type(b) is int:
        return b // a
    sp = sympy_module()
    return simplify(sp.simplify(b / a))


def ceil_div(a: Any, b: Any) -> Any:
    """``ceil(a / b)`` written ``(a + b - 1) // b`` (sympy renders it ``floor(a/b + (b-1)/b)``, as PyCuTe does)."""
    if type(a) is int and type(b) is int:
        return -(-a // b)
    if divides(b, a):
        return quotient(a, b)
    return simplify((a + b - 1) // b)


def product(t: Any) -> Any:
    if isinstance(t, tuple):
        out: Any = 1
        for e in t:
            out = out * product(e)
        return simplify(out)
    return t


def flat(t: Any) -> list[Any]:
    if isinstance(t, tuple):
        return [x for e in t for x in flat(e)]
    return [t]


def unflatten(values: list[Any], profile: Any) -> Any:
    it_ = iter(values)

    def build(p: Any) -> Any:
        if isinstance(p, tuple):
            return tuple(build(e) for e in p)
        return next(it_)

    return build(profile)


def prefix_product(shape: Any, init: Any = 1) -> Any:
    """Compact column-major strides of ``shape`` from ``init`` (leaves may be symbolic)."""
    out: list[Any] = []
    running = init
    for s in flat(shape):
        out.append(running)
        running = simplify(running * s)
    return unflatten(out, shape)


def order_key(value: Any, position: int) -> tuple[int, Any, int]:
    """Sort key: static values by value first, symbolic ones after them, left to right."""
    if is_sym(value) and not value.is_Integer:
        return (1, 0, position)
    return (0, value, position)


class SymbolicLayout:
    """A layout ``shape:stride`` whose leaves are ints or sympy expressions (see the module docstring)."""

    __slots__ = ("shape", "stride")

    def __init__(self, shape: Any, stride: Any = None) -> None:
        shape = norm_tuple(shape, "shape")
        stride = prefix_product(shape) if stride is None else norm_tuple(stride, "stride")
        if not _congruent(shape, stride):
            raise ShapeError(f"stride {stride} is not congruent to shape {shape}")
        for s in flat(shape):
            if type(s) is int and s < 1:
                raise ShapeError(f"shape {shape} has a non-positive extent {s}")
            if is_sym(s) and s.is_positive is False:
                raise ShapeError(f"shape {shape} has a non-positive extent {s}")
        self.shape = shape
        self.stride = stride

    # -- structure ---------------------------------------------------------
    def size(self) -> Any:
        return product(self.shape)

    def rank(self) -> int:
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    def depth(self) -> int:
        def d(t: Any) -> int:
            return 1 + max((d(e) for e in t), default=0) if isinstance(t, tuple) else 0

        return d(self.shape)

    def pairs(self) -> list[tuple[Any, Any]]:
        return list(zip(flat(self.shape), flat(self.stride)))

    def __len__(self) -> int:
        return self.rank()

    def __getitem__(self, i: int) -> Any:
        if not isinstance(self.shape, tuple):
            if i in (0, -1):
                return self
            raise ShapeError(f"mode {i} of a rank-1 layout")
        if not -len(self.shape) <= i < len(self.shape):
            raise ShapeError(f"mode {i} of a rank-{len(self.shape)} layout")
        return make(self.shape[i], self.stride[i])

    def __iter__(self) -> Any:
        return iter([self[i] for i in range(self.rank())])

    # -- evaluation --------------------------------------------------------
    def __call__(self, index: Any) -> Any:
        """``L(i)`` for an int index (the last mode keeps counting past the size); the shape must be static where
        the index needs it."""
        if type(index) is not int or index < 0:
            raise ShapeError(f"index {describe(index)} must be a non-negative int")
        pairs = self.pairs()
        total: Any = 0
        rest = index
        for k, (s, d) in enumerate(pairs):
            last = k == len(pairs) - 1
            if last:
                c = rest
            elif type(s) is int:
                c, rest = rest % s, rest // s
            elif rest == 0:
                c = 0
            else:
                raise ShapeError(f"index {index} needs the coordinate of the symbolic extent {s}")
            total = total + c * d
        return simplify(total)

    def subs(self, env: dict[Any, int]) -> Any:
        """The layout with the symbols replaced by ints (a plain :class:`Layout` when no symbol is left)."""
        from layoutalg.core.layout import Layout

        def sub(t: Any) -> Any:
            if isinstance(t, tuple):
                return tuple(sub(e) for e in t)
            return simplify(t.subs(env)) if is_sym(t) else t

        shape, stride = sub(self.shape), sub(self.stride)
        if has_sym(shape) or has_sym(stride):
            return SymbolicLayout(shape, stride)
        return Layout(shape, stride)

    def free_symbols(self) -> set[Any]:
        out: set[Any] = set()
        for x in flat(self.shape) + flat(self.stride):
            if is_sym(x):
                out |= x.free_symbols
        return out

    # -- comparison and printing --------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SymbolicLayout):
            shape, stride = getattr(other, "shape", None), getattr(other, "stride", None)
            if shape is None or type(other).__name__ != "Layout":
                return NotImplemented
        else:
            shape, stride = other.shape, other.stride
        return _same_tree(self.shape, shape) and _same_tree(self.stride, stride)

    def __hash__(self) -> int:
        return hash((str(self.shape), str(self.stride)))

    def __repr__(self) -> str:
        return f"{_fmt(self.shape)}:{_fmt(self.stride)}"

    __str__ = __repr__


def _congruent(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_congruent(x, y) for x, y in zip(a, b))
    return not isinstance(b, tuple)


def _same_tree(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same_tree(x, y) for x, y in zip(a, b)))
    try:
        return equal(a, b)
    except TypeError:
        return False


def _fmt(t: Any) -> str:
    if isinstance(t, tuple):
        return "(" + ",".join(_fmt(e) for e in t) + ")"
    return str(t)


def make(shape: Any, stride: Any) -> Any:
    """A :class:`SymbolicLayout`, or a plain :class:`Layout` when every leaf is an int."""
    from layoutalg.core.layout import Layout

    shape, stride = norm_tuple(shape, "shape"), norm_tuple(stride, "stride")
    if has_sym(shape) or has_sym(stride):
        return SymbolicLayout(shape, stride)
    return Layout(shape, stride)


def symbolic_layout(shape: Any, stride: Any = None) -> Any:
    """``shape:stride`` with sympy leaves allowed (compact column-major strides by default); a plain
    :class:`~layoutalg.core.layout.Layout` when every leaf is an int."""
    shape = norm_tuple(shape, "shape")
    return make(shape, prefix_product(shape) if stride is None else stride)


__all__ = ["SymbolicLayout", "symbolic_layout"]

"""A small expression language for stating properties of index arithmetic.

Users build integer terms from named variables with Python operators::

    lane, reg = var("lane", 32), var("reg", 4)
    k = param("k_tile", 64)                  # a parameter: "for every k-tile"
    ld = param("ld", lo=64, hi=4096, multiple_of=8)
    S = sym(smem_layout)                     # a Layout / Swizzle / ComposedLayout as a symbolic function
    offset = S(lane % 16, (lane // 16) * 8) + k * 512

and predicates from comparisons (``==`` builds a predicate, as in z3)
combined with ``&`` / ``|`` / ``~`` or :func:`all_of` / :func:`any_of` /
:func:`implies`.

Semantics (shared by every engine, so they agree by construction of the
definition, and are checked against each other by the tests): values are
unbounded mathematical integers; ``//`` and ``%`` are *floor* division and
modulus as in Python (``%`` has the sign of the divisor); ``&``, ``|``, ``^``,
``>>`` act on two's-complement integers of unbounded width (Python's
semantics; ``>>`` is floor division by a power of two); ``<<`` and ``>>`` take
a constant, non-negative shift.  A layout applied to a term follows CuTe's
``crd2idx``: a 1-D index is unfolded colexicographically and the last mode
keeps counting past its extent.  Division by a term that may be zero is a
:class:`~layoutalg.errors.ProofError`.

Every term is an immutable tree; :func:`lower` rewrites layout, swizzle and
composed-layout applications into the primitive operators (``>>``/``&`` for
power-of-two extents, ``//``/``%`` otherwise, which are equal as integer
functions), so each engine only handles primitives.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Iterator, Sequence, Union

from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError

IntLike = Union["Expr", int]

INT_OPS = ("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>")
CMP_OPS = ("==", "!=", "<", "<=", ">", ">=")


class Expr:
    """An integer-valued term.  Operators build new terms; ``==`` builds a :class:`Pred`."""

    __slots__ = ()

    def _bin(self, op: str, other: Any, flip: bool = False) -> "Expr":
        rhs = as_expr(other)
        return BinOp(op, rhs, self) if flip else BinOp(op, self, rhs)

    def __add__(self, o: Any) -> "Expr":
        return self._bin("+", o)

    def __radd__(self, o: Any) -> "Expr":
        return self._bin("+", o, True)

    def __sub__(self, o: Any) -> "Expr":
        return self._bin("-", o)

    def __rsub__(self, o: Any) -> "Expr":
        return self._bin("-", o, True)

    def __mul__(self, o: Any) -> "Expr":
        return self._bin("*", o)

    def __rmul__(self, o: Any) -> "Expr":
        return self._bin("*", o, True)

    def __floordiv__(self, o: Any) -> "Expr":
        return self._bin("//", o)

    def __rfloordiv__(self, o: Any) -> "Expr":
        return self._bin("//", o, True)

    def __mod__(self, o: Any) -> "Expr":
        return self._bin("%", o)

    def __rmod__(self, o: Any) -> "Expr":
        return self._bin("%", o, True)

    def __and__(self, o: Any) -> "Expr":
        return self._bin("&", o)

    def __rand__(self, o: Any) -> "Expr":
        return self._bin("&", o, True)

    def __or__(self, o: Any) -> "Expr":
        return self._bin("|", o)

    def __ror__(self, o: Any) -> "Expr":
        return self._bin("|", o, True)

    def __xor__(self, o: Any) -> "Expr":
        return self._bin("^", o)

    def __rxor__(self, o: Any) -> "Expr":
        return self._bin("^", o, True)

    def __lshift__(self, o: Any) -> "Expr":
        return self._bin("<<", o)

    def __rshift__(self, o: Any) -> "Expr":
        return self._bin(">>", o)

    def __neg__(self) -> "Expr":
        return BinOp("-", Const(0), self)

    def __pos__(self) -> "Expr":
        return self

    # comparisons build predicates (like z3); hashing stays by identity
    def __eq__(self, o: Any) -> "Pred":  # type: ignore[override]
        return Cmp("==", self, as_expr(o))

    def __ne__(self, o: Any) -> "Pred":  # type: ignore[override]
        return Cmp("!=", self, as_expr(o))

    def __lt__(self, o: Any) -> "Pred":
        return Cmp("<", self, as_expr(o))

    def __le__(self, o: Any) -> "Pred":
        return Cmp("<=", self, as_expr(o))

    def __gt__(self, o: Any) -> "Pred":
        return Cmp(">", self, as_expr(o))

    def __ge__(self, o: Any) -> "Pred":
        return Cmp(">=", self, as_expr(o))

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise ProofError("a symbolic term has no truth value; build a predicate and pass it to forall()")

    def __index__(self) -> int:
        raise ProofError("a symbolic term is not a Python int (use sym(layout)(...) to apply a layout to it)")


class Const(Expr):
    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        object.__setattr__(self, "value", int(value))

    value: int

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("terms are immutable")

    def __repr__(self) -> str:
        return str(self.value)


class Var(Expr):
    """A universally quantified integer ``lo <= v < hi`` with optional constraints.

    ``kind`` is ``"var"`` (a domain coordinate such as a lane or register) or
    ``"param"`` (a parameter such as a tile index, shared by both copies of
    the domain in :func:`~layoutalg.prove.injective` and ``disjoint``).
    ``multiple_of`` and ``pow2`` restrict the values further.
    """

    __slots__ = ("name", "lo", "hi", "multiple_of", "pow2", "kind")

    name: str
    lo: int
    hi: int
    multiple_of: int
    pow2: bool
    kind: str

    def __init__(self, name: str, lo: int, hi: int, multiple_of: int = 1, pow2: bool = False, kind: str = "var") -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ProofError(f"variable name must be an identifier, got {name!r}")
        for label, bound in (("lo", lo), ("hi", hi), ("multiple_of", multiple_of)):
            if isinstance(bound, bool) or not isinstance(bound, int):
                raise ProofError(f"variable {name!r}: {label} must be an int, got {bound!r}")
        if hi <= lo:
            raise ProofError(f"variable {name!r} has an empty range [{lo}, {hi})")
        if multiple_of < 1:
            raise ProofError(f"variable {name!r}: multiple_of must be >= 1, got {multiple_of}")
        if kind not in ("var", "param"):
            raise ProofError(f"variable {name!r}: kind must be 'var' or 'param', got {kind!r}")
        for slot, v in (("name", name), ("lo", lo), ("hi", hi), ("multiple_of", multiple_of), ("pow2", bool(pow2)), ("kind", kind)):
            object.__setattr__(self, slot, v)
        if not any(True for _ in self.values_iter(limit=1)):
            raise ProofError(f"variable {name!r} has no value satisfying its constraints")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("terms are immutable")

    @property
    def extent(self) -> int:
        return self.hi - self.lo

    def is_plain(self) -> bool:
        """No constraint beyond the range."""
        return self.multiple_of == 1 and not self.pow2

    def admits(self, value: int) -> bool:
        if not self.lo <= value < self.hi:
            return False
        if value % self.multiple_of:
            return False
        return not self.pow2 or (value > 0 and value & (value - 1) == 0)

    def values_iter(self, limit: int | None = None) -> Iterable[int]:
        count = 0
        if self.pow2:
            v = 1
            while v < self.hi:
                if self.admits(v):
                    yield v
                    count += 1
                    if limit is not None and count >= limit:
                        return
                v <<= 1
            return
        start = self.lo + (-self.lo) % self.multiple_of
        for v in range(start, self.hi, self.multiple_of):
            yield v
            count += 1
            if limit is not None and count >= limit:
                return

    def count(self) -> int:
        """How many values the variable takes."""
        if self.pow2:
            return sum(1 for _ in self.values_iter())
        start = self.lo + (-self.lo) % self.multiple_of
        return max(0, (self.hi - 1 - start) // self.multiple_of + 1)

    def describe(self) -> str:
        extra = ""
        if self.multiple_of > 1:
            extra += f", multiple of {self.multiple_of}"
        if self.pow2:
            extra += ", power of two"
        return f"{self.name} in [{self.lo}, {self.hi}){extra}"

    def same_as(self, other: "Var") -> bool:
        return (self.name, self.lo, self.hi, self.multiple_of, self.pow2, self.kind) == (
            other.name,
            other.lo,
            other.hi,
            other.multiple_of,
            other.pow2,
            other.kind,
        )

    def __repr__(self) -> str:
        return self.name


class BinOp(Expr):
    __slots__ = ("op", "a", "b")

    op: str
    a: Expr
    b: Expr

    def __init__(self, op: str, a: Expr, b: Expr) -> None:
        if op not in INT_OPS:
            raise ProofError(f"unknown operator {op!r}")
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("terms are immutable")

    def __repr__(self) -> str:
        return f"({self.a!r} {self.op} {self.b!r})"


class Ite(Expr):
    """``a if cond else b``."""

    __slots__ = ("cond", "a", "b")

    cond: "Pred"
    a: Expr
    b: Expr

    def __init__(self, cond: "Pred", a: Expr, b: Expr) -> None:
        object.__setattr__(self, "cond", as_pred(cond))
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("terms are immutable")

    def __repr__(self) -> str:
        return f"ite({self.cond!r}, {self.a!r}, {self.b!r})"


class Apply(Expr):
    """A layout, swizzle or composed layout applied to a (nested) coordinate of terms."""

    __slots__ = ("fn", "args")

    fn: Any
    args: Any

    def __init__(self, fn: Any, args: Any) -> None:
        object.__setattr__(self, "fn", fn)
        object.__setattr__(self, "args", args)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("terms are immutable")

    def __repr__(self) -> str:
        return f"{self.fn}{self.args!r}"


# ---------------------------------------------------------------- predicates
class Pred:
    """A boolean-valued term."""

    __slots__ = ()

    def __and__(self, o: Any) -> "Pred":
        return BoolOp("and", (self, as_pred(o)))

    def __rand__(self, o: Any) -> "Pred":
        return BoolOp("and", (as_pred(o), self))

    def __or__(self, o: Any) -> "Pred":
        return BoolOp("or", (self, as_pred(o)))

    def __ror__(self, o: Any) -> "Pred":
        return BoolOp("or", (as_pred(o), self))

    def __invert__(self) -> "Pred":
        return BoolOp("not", (self,))

    def __bool__(self) -> bool:
        raise ProofError("a symbolic predicate has no truth value; pass it to forall()")


class BoolConst(Pred):
    __slots__ = ("value",)

    value: bool

    def __init__(self, value: bool) -> None:
        object.__setattr__(self, "value", bool(value))

    def __repr__(self) -> str:
        return str(self.value)


class Cmp(Pred):
    __slots__ = ("op", "a", "b")

    op: str
    a: Expr
    b: Expr

    def __init__(self, op: str, a: Expr, b: Expr) -> None:
        if op not in CMP_OPS:
            raise ProofError(f"unknown comparison {op!r}")
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def __repr__(self) -> str:
        return f"({self.a!r} {self.op} {self.b!r})"


class BoolOp(Pred):
    __slots__ = ("op", "args")

    op: str
    args: tuple[Pred, ...]

    def __init__(self, op: str, args: Sequence[Pred]) -> None:
        if op not in ("and", "or", "not", "implies"):
            raise ProofError(f"unknown connective {op!r}")
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "args", tuple(as_pred(a) for a in args))

    def __repr__(self) -> str:
        if self.op == "not":
            return f"~{self.args[0]!r}"
        return "(" + f" {self.op} ".join(repr(a) for a in self.args) + ")"


# ---------------------------------------------------------------- builders
def as_expr(x: Any) -> Expr:
    if isinstance(x, Expr):
        return x
    if isinstance(x, bool) or isinstance(x, float):
        raise ProofError(f"a term must be an int or a symbolic term, got {x!r}")
    if isinstance(x, int):
        return Const(x)
    if hasattr(x, "__index__"):
        return Const(int(x.__index__()))
    raise ProofError(f"a term must be an int or a symbolic term, got {x!r} ({type(x).__name__})")


def as_pred(x: Any) -> Pred:
    if isinstance(x, Pred):
        return x
    if isinstance(x, bool):
        return BoolConst(x)
    raise ProofError(f"a predicate must be a comparison of terms or a bool, got {x!r}")


def var(name: str, extent: int | None = None, *, lo: int = 0, hi: int | None = None, multiple_of: int = 1, pow2: bool = False) -> Var:
    """A domain coordinate: ``var("lane", 32)`` ranges over ``0..31``."""
    return Var(name, lo, _hi(name, extent, lo, hi), multiple_of, pow2, "var")


def param(name: str, extent: int | None = None, *, lo: int = 0, hi: int | None = None, multiple_of: int = 1, pow2: bool = False) -> Var:
    """A parameter (tile index, k-iteration, leading dimension, ...): ``param("ld", lo=8, hi=4097, multiple_of=8)``."""
    return Var(name, lo, _hi(name, extent, lo, hi), multiple_of, pow2, "param")


def _hi(name: str, extent: int | None, lo: int, hi: int | None) -> int:
    if (extent is None) == (hi is None):
        raise ProofError(f"variable {name!r}: give exactly one of extent or hi")
    if extent is not None:
        if isinstance(extent, bool) or not isinstance(extent, int) or extent < 1:
            raise ProofError(f"variable {name!r}: extent must be a positive int, got {extent!r}")
        return lo + extent
    return hi  # type: ignore[return-value]


def ite(cond: Any, a: Any, b: Any) -> Expr:
    return Ite(as_pred(cond), as_expr(a), as_expr(b))


def all_of(*preds: Any) -> Pred:
    flat = [as_pred(p) for p in preds]
    return BoolOp("and", flat) if flat else BoolConst(True)


def any_of(*preds: Any) -> Pred:
    flat = [as_pred(p) for p in preds]
    return BoolOp("or", flat) if flat else BoolConst(False)


def implies(a: Any, b: Any) -> Pred:
    return BoolOp("implies", (as_pred(a), as_pred(b)))


def min_(a: Any, b: Any) -> Expr:
    a, b = as_expr(a), as_expr(b)
    return Ite(Cmp("<=", a, b), a, b)


def max_(a: Any, b: Any) -> Expr:
    a, b = as_expr(a), as_expr(b)
    return Ite(Cmp(">=", a, b), a, b)


# ---------------------------------------------------------------- layouts as symbolic functions
def kind_of(fn: Any) -> str:
    """``'layout'``, ``'swizzle'`` or ``'composed'`` (duck-typed on the DESIGN.md contracts)."""
    if isinstance(fn, Layout):
        return "layout"
    if all(hasattr(fn, a) for a in ("outer", "offset", "inner")):
        return "composed"
    if all(hasattr(fn, a) for a in ("bits", "base", "shift")):
        return "swizzle"
    raise ProofError(f"expected a Layout, Swizzle or ComposedLayout, got {fn!r} ({type(fn).__name__})")


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


# ---------------------------------------------------------------- traversal
def free_vars(*roots: Any) -> dict[str, Var]:
    """Every variable in the terms/predicates, by name (two different variables with one name is an error)."""
    found: dict[str, Var] = {}
    seen: set[int] = set()
    stack: list[Any] = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, Var):
            old = found.get(node.name)
            if old is not None and not old.same_as(node):
                raise ProofError(f"two different variables are named {node.name!r}: {old.describe()} and {node.describe()}")
            found[node.name] = node
        elif isinstance(node, (BinOp, Cmp)):
            stack.extend((node.a, node.b))
        elif isinstance(node, Ite):
            stack.extend((node.cond, node.a, node.b))
        elif isinstance(node, Apply):
            stack.append(node.args)
        elif isinstance(node, BoolOp):
            stack.extend(node.args)
    return found


# ---------------------------------------------------------------- lowering
def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _mul_const(e: Expr, c: int) -> Expr:
    if c == 0:
        return Const(0)
    if c == 1:
        return e
    if _is_pow2(c):
        return BinOp("<<", e, Const(c.bit_length() - 1))
    return BinOp("*", e, Const(c))


def _split(e: Expr, extent: int, running: int, last: bool) -> Expr:
    """Coordinate ``(e // running) % extent`` (no ``%`` for the last mode)."""
    if running == 1:
        q = e
    elif _is_pow2(running):
        q = BinOp(">>", e, Const(running.bit_length() - 1))
    else:
        q = BinOp("//", e, Const(running))
    if last:
        return q
    if extent == 1:
        return Const(0)
    if _is_pow2(extent):
        return BinOp("&", q, Const(extent - 1))
    return BinOp("%", q, Const(extent))


def _sum(terms: list[Expr]) -> Expr:
    terms = [t for t in terms if not (isinstance(t, Const) and t.value == 0)]
    if not terms:
        return Const(0)
    out = terms[0]
    for t in terms[1:]:
        out = BinOp("+", out, t)
    return out


def _layout_index(shape: Any, stride: Any, idx: Expr) -> Expr:
    """CuTe ``crd2idx`` of a 1-D index into ``shape:stride`` (colexicographic; last leaf unbounded)."""
    from layoutalg.core import int_tuple as it

    extents, steps = it.flatten(shape), it.flatten(stride)
    terms: list[Expr] = []
    running = 1
    for k, (s, d) in enumerate(zip(extents, steps)):
        last = k == len(extents) - 1
        if d != 0 and (s != 1 or last):
            terms.append(_mul_const(_split(idx, s, running, last), d))
        running *= s
    return _sum(terms)


def _layout_crd(shape: Any, stride: Any, crd: Any, path: str) -> Expr:
    if isinstance(crd, tuple):
        if not isinstance(shape, tuple) or len(shape) != len(crd):
            raise ProofError(f"coordinate {crd!r} does not match the layout's mode {path or 'shape'} = {shape}")
        return _sum([_layout_crd(s, d, c, f"{path}[{i}]") for i, (s, d, c) in enumerate(zip(shape, stride, crd))])
    return _layout_index(shape, stride, crd)


def _swizzle(sw: Any, x: Expr) -> Expr:
    bits, base, shift = int(sw.bits), int(sw.base), int(sw.shift)
    if bits == 0:
        return x
    yyy = ((1 << bits) - 1) << (base + max(0, shift))
    picked = BinOp("&", x, Const(yyy))
    moved = BinOp(">>", picked, Const(shift)) if shift >= 0 else BinOp("<<", picked, Const(-shift))
    return BinOp("^", x, moved)


def apply_fn(fn: Any, crd: Any) -> Expr:
    """The primitive term of ``fn(crd)`` for a Layout / Swizzle / ComposedLayout."""
    kind = kind_of(fn)
    if kind == "layout":
        if isinstance(crd, tuple) and len(crd) == 1 and not isinstance(fn.shape, tuple):
            crd = crd[0]
        return _layout_crd(fn.shape, fn.stride, crd, "")
    if kind == "swizzle":
        if isinstance(crd, tuple):
            raise ProofError(f"a swizzle takes one offset, got the coordinate {crd!r}")
        return _swizzle(fn, crd)
    inner = apply_fn(fn.inner, crd)
    offset = int(fn.offset)
    shifted = inner if offset == 0 else BinOp("+", Const(offset), inner)
    return apply_fn(fn.outer, shifted)


def lower(root: Any, memo: dict[int, Any] | None = None) -> Any:
    """Rewrite every :class:`Apply` into primitive operators (shared sub-terms stay shared)."""
    memo = {} if memo is None else memo

    def go(node: Any) -> Any:
        key = id(node)
        if key in memo:
            return memo[key][1]
        if isinstance(node, tuple):
            out: Any = tuple(go(c) for c in node)
        elif isinstance(node, (Const, Var, BoolConst)):
            out = node
        elif isinstance(node, BinOp):
            out = BinOp(node.op, go(node.a), go(node.b))
        elif isinstance(node, Ite):
            out = Ite(go(node.cond), go(node.a), go(node.b))
        elif isinstance(node, Apply):
            out = go(apply_fn(node.fn, go(node.args)))
        elif isinstance(node, Cmp):
            out = Cmp(node.op, go(node.a), go(node.b))
        elif isinstance(node, BoolOp):
            out = BoolOp(node.op, tuple(go(a) for a in node.args))
        else:
            raise ProofError(f"not a term: {node!r}")
        memo[key] = (node, out)  # keep node alive so its id is not reused
        return out

    return go(root)


def substitute(root: Any, mapping: dict[str, Expr]) -> Any:
    """Replace variables by name (used to make the second copy of a domain)."""
    memo: dict[int, Any] = {}

    def go(node: Any) -> Any:
        key = id(node)
        if key in memo:
            return memo[key][1]
        if isinstance(node, tuple):
            out: Any = tuple(go(c) for c in node)
        elif isinstance(node, Var):
            out = mapping.get(node.name, node)
        elif isinstance(node, (Const, BoolConst)):
            out = node
        elif isinstance(node, BinOp):
            out = BinOp(node.op, go(node.a), go(node.b))
        elif isinstance(node, Ite):
            out = Ite(go(node.cond), go(node.a), go(node.b))
        elif isinstance(node, Apply):
            out = Apply(node.fn, go(node.args))
        elif isinstance(node, Cmp):
            out = Cmp(node.op, go(node.a), go(node.b))
        elif isinstance(node, BoolOp):
            out = BoolOp(node.op, tuple(go(a) for a in node.args))
        else:
            raise ProofError(f"not a term: {node!r}")
        memo[key] = (node, out)
        return out

    return go(root)


# ---------------------------------------------------------------- concrete evaluation
def _floordiv(a: Any, b: Any) -> Any:
    return a // b


def evaluate(root: Any, env: dict[str, Any], memo: dict[int, Any] | None = None) -> Any:
    """Value of a term/predicate (or nested tuple of them) with Python ints or numpy arrays in ``env``.

    Division by zero raises :class:`ProofError` naming the term.
    """
    memo = {} if memo is None else memo

    def go(node: Any) -> Any:
        key = id(node)
        if key in memo:
            return memo[key]
        if isinstance(node, tuple):
            out: Any = tuple(go(c) for c in node)
        elif isinstance(node, Const):
            out = node.value
        elif isinstance(node, Var):
            if node.name not in env:
                raise ProofError(f"no value for variable {node.name!r}")
            out = env[node.name]
        elif isinstance(node, BinOp):
            out = _int_op(node, go(node.a), go(node.b))
        elif isinstance(node, Ite):
            c = go(node.cond)
            if isinstance(c, bool):
                out = go(node.a) if c else go(node.b)
            else:
                import numpy as np

                out = np.where(c, go(node.a), go(node.b))
        elif isinstance(node, Apply):
            out = go(apply_fn(node.fn, node.args))
        elif isinstance(node, BoolConst):
            out = node.value
        elif isinstance(node, Cmp):
            out = _cmp_op(node.op, go(node.a), go(node.b))
        elif isinstance(node, BoolOp):
            vals = [go(a) for a in node.args]
            out = _bool_op(node.op, vals)
        else:
            raise ProofError(f"not a term: {node!r}")
        memo[key] = out
        return out

    return go(root)


def _nonzero_divisor(node: BinOp, b: Any) -> None:
    zero = (b == 0) if isinstance(b, int) else bool((b == 0).any())
    if zero:
        raise ProofError(f"division by zero in {node!r}")


def _int_op(node: BinOp, a: Any, b: Any) -> Any:
    op = node.op
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("//", "%"):
        _nonzero_divisor(node, b)
        return a // b if op == "//" else a % b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if not isinstance(b, int) or b < 0:
        raise ProofError(f"shift amount must be a non-negative constant in {node!r}")
    return a << b if op == "<<" else a >> b


def _cmp_op(op: str, a: Any, b: Any) -> Any:
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


def _bool_op(op: str, vals: list[Any]) -> Any:
    if all(isinstance(v, bool) for v in vals):
        if op == "and":
            return all(vals)
        if op == "or":
            return any(vals)
        if op == "not":
            return not vals[0]
        return (not vals[0]) or vals[1]
    import numpy as np

    if op == "and":
        out = vals[0]
        for v in vals[1:]:
            out = np.logical_and(out, v)
        return out
    if op == "or":
        out = vals[0]
        for v in vals[1:]:
            out = np.logical_or(out, v)
        return out
    if op == "not":
        return np.logical_not(vals[0])
    return np.logical_or(np.logical_not(vals[0]), vals[1])


# ---------------------------------------------------------------- interval analysis
Interval = tuple[int, int]


def _bitlen_bound(lo: int, hi: int) -> int:
    return max(abs(lo).bit_length(), abs(hi).bit_length(), 1)


def interval(root: Any, memo: dict[int, Interval] | None = None) -> Interval:
    """Sound bounds ``lo <= value <= hi`` of a *lowered* term over its variables' ranges."""
    memo = {} if memo is None else memo

    def go(node: Any) -> Interval:
        key = id(node)
        if key in memo:
            return memo[key]
        if isinstance(node, Const):
            out = (node.value, node.value)
        elif isinstance(node, Var):
            out = (node.lo, node.hi - 1)
        elif isinstance(node, BinOp):
            out = _interval_op(node, go(node.a), go(node.b))
        elif isinstance(node, Ite):
            walk_pred(node.cond, go)
            (alo, ahi), (blo, bhi) = go(node.a), go(node.b)
            out = (min(alo, blo), max(ahi, bhi))
        elif isinstance(node, Apply):
            out = go(lower(node))
        else:
            raise ProofError(f"not an integer term: {node!r}")
        memo[key] = out
        return out

    return go(root)


def subterms(roots: Any) -> Iterator[Any]:
    """Every distinct integer term (by identity) in ``roots``: terms, predicates or nested tuples of them.

    Descends through predicates, ``BinOp`` operands and ``Ite`` branches and
    conditions; each node is yielded once, before its children.
    """
    stack = list(roots)
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, Pred):
            walk_pred(node, stack.append)
            continue
        yield node
        if isinstance(node, BinOp):
            stack.extend((node.a, node.b))
        elif isinstance(node, Ite):
            stack.extend((node.cond, node.a, node.b))


def walk_pred(p: Any, on_term: Callable[[Any], Any]) -> None:
    """Call ``on_term`` on every integer term directly under predicate ``p``."""
    if isinstance(p, Cmp):
        on_term(p.a)
        on_term(p.b)
    elif isinstance(p, BoolOp):
        for a in p.args:
            walk_pred(a, on_term)


def _interval_op(node: BinOp, a: Interval, b: Interval) -> Interval:
    op = node.op
    (alo, ahi), (blo, bhi) = a, b
    if op == "+":
        return (alo + blo, ahi + bhi)
    if op == "-":
        return (alo - bhi, ahi - blo)
    if op == "*":
        corners = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        return (min(corners), max(corners))
    if op in ("//", "%"):
        if blo <= 0 <= bhi:
            raise ProofError(f"the divisor in {node!r} may be zero (its range is [{blo}, {bhi}])")
        if op == "//":
            corners = [alo // blo, alo // bhi, ahi // blo, ahi // bhi]
            return (min(corners), max(corners))
        if blo == bhi and alo // blo == ahi // blo:
            return (alo % blo, ahi % blo)
        if blo > 0:
            return (0, bhi - 1)
        return (blo + 1, 0)
    if op in ("<<", ">>"):
        if blo != bhi or blo < 0:
            raise ProofError(f"shift amount must be a non-negative constant in {node!r}")
        return (alo << blo, ahi << blo) if op == "<<" else (alo >> blo, ahi >> blo)
    # bitwise
    if alo >= 0 and blo >= 0:
        if op == "&":
            return (0, min(ahi, bhi))
        return (0, (1 << max(ahi.bit_length(), bhi.bit_length())) - 1)
    if op == "&" and (alo >= 0 or blo >= 0):
        return (0, ahi if alo >= 0 else bhi)
    k = max(_bitlen_bound(alo, ahi), _bitlen_bound(blo, bhi))
    return (-(1 << k), (1 << k) - 1)


def signed_width(lo: int, hi: int) -> int:
    """Bits of a two's-complement number that holds every integer of ``[lo, hi]``."""
    return max(_bitlen_bound(lo, hi) + 1, 2)


def domain_size(variables: Iterable[Var]) -> int:
    return math.prod(v.count() for v in variables)


__all__ = [
    "Expr",
    "Const",
    "Var",
    "BinOp",
    "Ite",
    "Apply",
    "Pred",
    "BoolConst",
    "Cmp",
    "BoolOp",
    "var",
    "param",
    "ite",
    "all_of",
    "any_of",
    "implies",
    "min_",
    "max_",
    "sym",
    "Sym",
    "as_expr",
    "as_pred",
    "free_vars",
    "lower",
    "substitute",
    "evaluate",
    "interval",
    "signed_width",
    "domain_size",
    "apply_fn",
    "kind_of",
    "idx2crd",
    "tv_coord",
]

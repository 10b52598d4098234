"""The term language's nodes: integer terms (Expr and its kinds), predicates, and their builders.

Semantics and the user-facing overview: :mod:`layoutalg.prove.expr`.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence, Union

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

    def __init__(
        self, name: str, lo: int, hi: int, multiple_of: int = 1, pow2: bool = False, kind: str = "var"
    ) -> None:
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
        for slot, v in (
            ("name", name),
            ("lo", lo),
            ("hi", hi),
            ("multiple_of", multiple_of),
            ("pow2", bool(pow2)),
            ("kind", kind),
        ):
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


def var(
    name: str,
    extent: int | None = None,
    *,
    lo: int = 0,
    hi: int | None = None,
    multiple_of: int = 1,
    pow2: bool = False,
) -> Var:
    """A domain coordinate: ``var("lane", 32)`` ranges over ``0..31``."""
    return Var(name, lo, _hi(name, extent, lo, hi), multiple_of, pow2, "var")


def param(
    name: str,
    extent: int | None = None,
    *,
    lo: int = 0,
    hi: int | None = None,
    multiple_of: int = 1,
    pow2: bool = False,
) -> Var:
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

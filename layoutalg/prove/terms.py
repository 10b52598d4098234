"""The term language's nodes: integer terms (Expr and its kinds), predicates, and their builders.

Semantics and the user-facing overview: :mod:`layoutalg.prove.expr`.
"""

from __future__ import annotations

from typing import Any, Sequence, Union

from layoutalg.core.validate import MAX_INT_BITS, as_int, describe
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


class BinOp(Expr):
    __slots__ = ("op", "a", "b")

    op: str
    a: Expr
    b: Expr

    def __init__(self, op: str, a: Expr, b: Expr) -> None:
        if op not in INT_OPS:
            raise ProofError(f"unknown operator {describe(op)}")
        if op in ("<<", ">>") and isinstance(b, Const) and b.value > MAX_INT_BITS:  # negative: the engines say
            raise ProofError(f"a shift by {describe(b.value)} bits: shift amounts are at most {MAX_INT_BITS}")
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
        # a call: "L(x, y)", "L(x + 1)", "L(x)" (a bare term is parenthesised; a tuple and a BinOp already are)
        crd = repr(self.args)
        return f"{self.fn}{crd}" if isinstance(self.args, (tuple, BinOp)) else f"{self.fn}({crd})"


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
            raise ProofError(f"unknown comparison {describe(op)}")
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
            raise ProofError(f"unknown connective {describe(op)}")
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
        raise ProofError(f"a term must be an int or a symbolic term, got {describe(x)}")
    if isinstance(x, int):
        return Const(x)
    if hasattr(x, "__index__"):
        return Const(as_int(x, "a term", ProofError))
    raise ProofError(f"a term must be an int or a symbolic term, got {describe(x)} ({type(x).__name__})")


def as_pred(x: Any) -> Pred:
    if isinstance(x, Pred):
        return x
    if isinstance(x, bool):
        return BoolConst(x)
    raise ProofError(f"a predicate must be a comparison of terms or a bool, got {describe(x)}")


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

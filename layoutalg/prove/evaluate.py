"""Concrete evaluation of terms and predicates, on Python ints or vectorised over numpy arrays."""

from __future__ import annotations

from typing import Any

from layoutalg.errors import ProofError
from layoutalg.prove.lowering import apply_fn
from layoutalg.prove.terms import Apply, BinOp, BoolConst, BoolOp, Cmp, Const, Ite, Var


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

"""Concrete evaluation of terms and predicates, on Python ints or vectorised over numpy arrays."""

from __future__ import annotations

from typing import Any

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove.lowering import apply_fn, free_vars
from layoutalg.prove.ops import bool_op, cmp_op, int_op
from layoutalg.prove.terms import Apply, BinOp, BoolConst, BoolOp, Cmp, Const, Ite
from layoutalg.prove.variables import Var


def evaluate(root: Any, env: dict[Any, Any], memo: dict[int, tuple[Any, Any]] | None = None) -> Any:
    """Value of a term/predicate (or nested tuple of them) with Python ints or numpy arrays in ``env``.

    ``env`` maps each variable's key (:attr:`Var.key`: a user's variable's name) to its value(s).
    Operators mean what :mod:`layoutalg.prove.ops` says; division by zero, a shift by a term with
    variables or by a negative amount raise :class:`ProofError` naming the term.
    """
    memo = {} if memo is None else memo
    objects = _has_objects(env)

    def go(node: Any) -> Any:
        key = id(node)
        hit = memo.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        if isinstance(node, tuple):
            out: Any = tuple(go(c) for c in node)
        elif isinstance(node, Const):
            out = node.value
        elif isinstance(node, Var):
            if node.key not in env:
                raise ProofError(f"no value for variable {describe(node.name)}")
            out = env[node.key]
        elif isinstance(node, BinOp):
            if node.op in ("<<", ">>") and not isinstance(node.b, Const) and free_vars(node.b):
                raise ProofError(f"shift amount must be a non-negative constant in {describe(node)}")
            out = int_op(node.op, go(node.a), go(node.b), node)
        elif isinstance(node, Ite):
            c = go(node.cond)
            if isinstance(c, bool):
                out = go(node.a) if c else go(node.b)
            else:
                out = _select(c, go(node.a), go(node.b), objects)
        elif isinstance(node, Apply):
            out = go(apply_fn(node.fn, node.args))
        elif isinstance(node, BoolConst):
            out = node.value
        elif isinstance(node, Cmp):
            out = cmp_op(node.op, go(node.a), go(node.b))
        elif isinstance(node, BoolOp):
            out = bool_op(node.op, [go(a) for a in node.args])
        else:
            raise ProofError(f"not a term: {describe(node)}")
        memo[key] = (node, out)  # keeps node (maybe a temporary lowering) alive, so its id is not reused
        return out

    return go(root)


def _has_objects(env: dict[Any, Any]) -> bool:
    """True when ``env`` holds numpy arrays of Python integers (enumeration's mode for values past int64)."""
    return any(getattr(getattr(v, "dtype", None), "kind", "") == "O" for v in env.values())


def _select(cond: Any, a: Any, b: Any, objects: bool) -> Any:
    """``ite`` over an array of conditions, keeping the evaluation's integer mode.

    ``np.where`` types Python-int branches by their values: two constants become an int64 array even when
    they lie past ``2**63`` (wrapped, or an OverflowError past ``2**64``), and small ones become int64 where
    the rest of the evaluation runs on Python integers, so a later ``*``/``<<`` would wrap silently.  With
    object arrays in ``env`` both branches are taken as Python integers, so ``ite`` is exact at any width.
    """
    import numpy as np

    if objects:
        return np.where(cond, np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    return np.where(cond, a, b)

"""What each operator of the term language means on Python ints and numpy arrays: the one definition.

The evaluator (:mod:`layoutalg.prove.evaluate`), enumeration and constant folding (:func:`~layoutalg.prove.lowering.lower`)
all compute through these functions, so a constant-only sub-term means exactly what it means at run time, in
every engine.  Semantics are Python's: unbounded integers, floor ``//`` and ``%`` (sign of the divisor),
two's-complement ``& | ^`` of unbounded width, ``<<``/``>>`` by a constant non-negative amount (``>>`` floors).
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError


def _nonzero_divisor(where: Any, b: Any) -> None:
    zero = (b == 0) if isinstance(b, int) else bool((b == 0).any())
    if zero:
        raise ProofError(f"division by zero in {describe(where)}")


def int_op(op: str, a: Any, b: Any, where: Any) -> Any:
    """``a op b``; ``where`` (the term) names the place in errors.  A shift amount must be an int >= 0."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("//", "%"):
        _nonzero_divisor(where, b)
        return a // b if op == "//" else a % b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op in ("<<", ">>"):
        if isinstance(b, bool) or not isinstance(b, int) or b < 0:
            raise ProofError(f"shift amount must be a non-negative constant in {describe(where)}")
        return a << b if op == "<<" else a >> b
    raise ProofError(f"unknown operator {describe(op)}")


def cmp_op(op: str, a: Any, b: Any) -> Any:
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


def bool_op(op: str, vals: list[Any]) -> Any:
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

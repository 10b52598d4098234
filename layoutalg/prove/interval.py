"""Interval analysis of terms (sound bounds for bit-vector widths) and term traversal helpers."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Iterator

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove.lowering import lower
from layoutalg.prove.ops import int_op
from layoutalg.prove.terms import Apply, BinOp, BoolOp, Cmp, Const, Ite, Pred
from layoutalg.prove.variables import Var

# ---------------------------------------------------------------- interval analysis
Interval = tuple[int, int]


def _bitlen_bound(lo: int, hi: int) -> int:
    return max(abs(lo).bit_length(), abs(hi).bit_length(), 1)


def interval(root: Any, memo: dict[int, Interval] | None = None) -> Interval:
    """Sound bounds ``lo <= value <= hi`` of a term over its variables' ranges (an ``Apply`` is lowered first).

    Operands whose bounds are single points give the exact point (the operator applied to the two values,
    by :func:`~layoutalg.prove.ops.int_op`), so constant-only sub-terms have their exact value.
    """
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
            out = interval(lower(node))  # its own memo: the lowered temporaries must not leave ids behind
        else:
            raise ProofError(f"not an integer term: {describe(node)}")
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
    if alo == ahi and blo == bhi:
        value = int_op(op, alo, blo, node)
        return (value, value)
    if op == "+":
        return (alo + blo, ahi + bhi)
    if op == "-":
        return (alo - bhi, ahi - blo)
    if op == "*":
        corners = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        return (min(corners), max(corners))
    if op in ("//", "%"):
        if blo <= 0 <= bhi:
            raise ProofError(f"the divisor in {describe(node)} may be zero (its range is [{blo}, {bhi}])")
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
            raise ProofError(f"shift amount must be a non-negative constant in {describe(node)}")
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

"""Free variables, lowering of layout applications into primitive operators, and substitution.

:func:`lower` also folds every constant-only sub-term to its value (computed by :mod:`layoutalg.prove.ops`,
the one definition of the operators) and refuses a shift whose amount is not constant, so the engines only
ever see a constant where both operands are constant, and a ``Const`` shift amount.
"""

from __future__ import annotations

from typing import Any, Callable

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove.ops import int_op
from layoutalg.prove.symbolic_layouts import kind_of
from layoutalg.prove.terms import Apply, BinOp, BoolConst, BoolOp, Cmp, Const, Expr, Ite
from layoutalg.prove.variables import Var, VarKey


def free_vars(*roots: Any) -> dict[VarKey, Var]:
    """Every variable in the terms/predicates, by key (two different variables with one name is an error)."""
    found: dict[VarKey, Var] = {}
    seen: set[int] = set()
    stack: list[Any] = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:  # every node once, tuples too: a tuple shared many times is walked once
            continue
        seen.add(id(node))
        if isinstance(node, (tuple, list)):
            stack.extend(node)
            continue
        if isinstance(node, Var):
            old = found.get(node.key)
            if old is not None and not old.same_as(node):
                raise ProofError(
                    f"two different variables are named {describe(node.name)}: {old.describe()} and {node.describe()}"
                )
            found[node.key] = node
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
    from layoutalg.core.int_tuple import index_digits

    return _sum([_mul_const(_split(idx, s, running, last), d) for running, s, d, last in index_digits(shape, stride)])


def _layout_crd(shape: Any, stride: Any, crd: Any, path: str) -> Expr:
    if isinstance(crd, tuple):
        if not isinstance(shape, tuple) or len(shape) != len(crd):
            raise ProofError(f"coordinate {describe(crd)} does not match the layout's mode {path or 'shape'} = {shape}")
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
            raise ProofError(f"a swizzle takes one offset, got the coordinate {describe(crd)}")
        return _swizzle(fn, crd)
    inner = apply_fn(fn.inner, crd)
    offset = int(fn.offset)
    shifted = inner if offset == 0 else BinOp("+", Const(offset), inner)
    return apply_fn(fn.outer, shifted)


def lower(root: Any, memo: dict[int, Any] | None = None) -> Any:
    """Rewrite every :class:`Apply` into primitive operators and fold constants (shared sub-terms stay shared).

    A ``BinOp`` of two constants becomes the constant :func:`~layoutalg.prove.ops.int_op` gives (division by
    zero and negative shifts raise :class:`ProofError` here, as they would at run time); a shift whose amount
    still has variables is a :class:`ProofError` (the language's shifts are by constants).
    """
    return _rebuild(root, lambda v: v, lambda node, go: go(apply_fn(node.fn, go(node.args))), memo, fold=True)


def substitute(root: Any, mapping: dict[VarKey, Expr]) -> Any:
    """Replace variables by key (:attr:`Var.key`; a user's variable's name), e.g. to make a second copy of a domain."""
    return _rebuild(root, lambda v: mapping.get(v.key, v), lambda node, go: Apply(node.fn, go(node.args)))


def _folded(node: BinOp, a: Expr, b: Expr) -> Expr:
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(int_op(node.op, a.value, b.value, node))
    if node.op in ("<<", ">>"):
        if not isinstance(b, Const):
            raise ProofError(f"shift amount must be a non-negative constant in {describe(node)}")
        if b.value < 0:
            raise ProofError(f"shift amount must be a non-negative constant in {describe(node)} (it is {b.value})")
    return BinOp(node.op, a, b)


def _rebuild(
    root: Any,
    on_var: Callable[[Var], Any],
    on_apply: Callable[[Apply, Callable[[Any], Any]], Any],
    memo: dict[int, Any] | None = None,
    fold: bool = False,
) -> Any:
    """Rebuild a term (or nested tuple of terms) bottom-up, each shared sub-term once.

    ``on_var`` gives a variable's replacement; ``on_apply(node, go)`` an
    application's, with ``go`` the rebuild of any sub-term.
    """
    memo = {} if memo is None else memo

    def go(node: Any) -> Any:
        key = id(node)
        if key in memo:
            return memo[key][1]
        if isinstance(node, tuple):
            out: Any = tuple(go(c) for c in node)
        elif isinstance(node, Var):
            out = on_var(node)
        elif isinstance(node, (Const, BoolConst)):
            out = node
        elif isinstance(node, BinOp):
            out = _folded(node, go(node.a), go(node.b)) if fold else BinOp(node.op, go(node.a), go(node.b))
        elif isinstance(node, Ite):
            out = Ite(go(node.cond), go(node.a), go(node.b))
        elif isinstance(node, Apply):
            out = on_apply(node, go)
        elif isinstance(node, Cmp):
            out = Cmp(node.op, go(node.a), go(node.b))
        elif isinstance(node, BoolOp):
            out = BoolOp(node.op, tuple(go(a) for a in node.args))
        else:
            raise ProofError(f"not a term: {describe(node)}")
        memo[key] = (node, out)  # keep node alive so its id is not reused
        return out

    return go(root)

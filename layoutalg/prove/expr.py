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
a constant, non-negative shift (a term without variables).  A layout applied to a term follows CuTe's
``crd2idx``: a 1-D index is unfolded colexicographically and the last mode
keeps counting past its extent.  Division by a term that may be zero is a
:class:`~layoutalg.errors.ProofError`.

Every term is an immutable tree; :func:`lower` rewrites layout, swizzle and
composed-layout applications into the primitive operators (``>>``/``&`` for
power-of-two extents, ``//``/``%`` otherwise, which are equal as integer
functions) and folds constant-only sub-terms, so each engine only handles
primitives.  Variables are looked up by ``Var.key``: a user's variable by its
name, one the prover generates by identity (:mod:`layoutalg.prove.variables`).
"""

from __future__ import annotations

from layoutalg.prove.evaluate import evaluate
from layoutalg.prove.interval import Interval, domain_size, interval, signed_width, subterms, walk_pred
from layoutalg.prove.lowering import apply_fn, free_vars, lower, substitute
from layoutalg.prove.symbolic_layouts import Sym, idx2crd, kind_of, sym, tv_coord
from layoutalg.prove.terms import (
    CMP_OPS,
    INT_OPS,
    Apply,
    BinOp,
    BoolConst,
    BoolOp,
    Cmp,
    Const,
    Expr,
    IntLike,
    Ite,
    Pred,
    all_of,
    any_of,
    as_expr,
    as_pred,
    implies,
    ite,
    max_,
    min_,
)
from layoutalg.prove.variables import Fresh, Var, VarKey, param, var

__all__ = [
    "CMP_OPS",
    "INT_OPS",
    "IntLike",
    "Interval",
    "subterms",
    "walk_pred",
    "Expr",
    "Const",
    "Var",
    "Fresh",
    "VarKey",
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

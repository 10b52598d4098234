"""The prover: state a property of your data movement, get a proof or a counterexample.

    from layoutalg.prove import var, param, sym, equivalent, injective, theorem

Claims (:mod:`claims`): ``equivalent``, ``injective``, ``bijective_onto``,
``in_bounds``, ``aligned``, ``contiguous``, ``disjoint``, ``forall``; each
returns a :class:`ProofResult`.  Terms (:mod:`expr`): ``var``, ``param``,
``sym`` (apply a layout/swizzle to terms), ``ite``, ``all_of``, ``any_of``,
``implies``.  Engines: GF(2) (:mod:`engine_f2`), z3 (:mod:`engine_z3`),
enumeration (:mod:`engine_enum`).  Theorem files: ``@theorem`` and
``layoutalg prove PATH`` (:mod:`runner`).  ``formula(layout)`` renders a
layout's index function with sympy.  z3 and sympy are imported lazily.
"""

from __future__ import annotations

from typing import Any

from layoutalg.prove.claims import (
    aligned,
    bijective_onto,
    contiguous,
    disjoint,
    equivalent,
    forall,
    in_bounds,
    injective,
)
from layoutalg.prove.config import settings
from layoutalg.prove.expr import all_of, any_of, idx2crd, implies, ite, max_, min_, param, sym, tv_coord, var
from layoutalg.prove.problem import EngineDisagreementError
from layoutalg.prove.result import ProofResult, combine
from layoutalg.prove.theorem import theorem


def formula(layout: Any, *args: Any, **kwargs: Any) -> Any:
    """A layout's index function as a sympy expression (see :mod:`layoutalg.prove.formula`)."""
    from layoutalg.prove.formula import formula as _formula

    return _formula(layout, *args, **kwargs)


def run_cli(argv: list[str] | None = None) -> int:
    """``layoutalg prove PATH... [--json] [--timeout S]`` (see :mod:`layoutalg.prove.runner`)."""
    from layoutalg.prove.runner import run_cli as _run_cli

    return _run_cli(argv)


__all__ = [
    "equivalent",
    "injective",
    "bijective_onto",
    "in_bounds",
    "aligned",
    "contiguous",
    "disjoint",
    "forall",
    "var",
    "param",
    "sym",
    "ite",
    "all_of",
    "any_of",
    "implies",
    "min_",
    "max_",
    "idx2crd",
    "tv_coord",
    "theorem",
    "ProofResult",
    "combine",
    "settings",
    "EngineDisagreementError",
    "formula",
    "run_cli",
]

"""The prover: state a property of your data movement, get a proof or a counterexample in kernel terms.

    from layoutalg.prove import var, param, sym, equivalent, injective, theorem

    lane, k = var("lane", 32), param("k_tile", 1 << 16)
    equivalent(lambda lane, reg: ..., lambda lane, reg: ..., {"lane": 32, "reg": 4})

* Claims (:mod:`claims`), each returning a :class:`ProofResult` (``status`` proved /
  refuted / unknown, ``counterexample``, ``seconds``, ``method``, ``claim``,
  ``explanation``): ``equivalent``, ``injective``, ``bijective_onto``,
  ``in_bounds``, ``aligned``, ``contiguous``, ``disjoint``, ``forall``.
* Terms (:mod:`expr`): ``var`` (a domain coordinate), ``param`` (a quantified
  parameter with range / ``multiple_of`` / ``pow2`` constraints), ``sym``
  (a Layout / Swizzle / ComposedLayout / TV layout applied to terms),
  ``idx2crd``, ``tv_coord``, ``ite``, ``min_``, ``max_``, ``all_of``,
  ``any_of``, ``implies``; Python operators build terms and ``==`` builds predicates.
* Engines: GF(2) linear algebra (:mod:`engine_f2`) when every term is
  bit-linear, exhaustive enumeration (:mod:`engine_enum`) for small domains,
  z3 (:mod:`engine_z3`; exact integer or overflow-free bit-vector encoding,
  :mod:`encode`) otherwise.  ``cross_check=True`` (or ``settings(cross_check=True)``,
  ``LAYOUTALG_CROSS_CHECK=1``, ``layoutalg prove --cross-check``) runs a second
  engine and raises :class:`EngineDisagreementError` if the verdicts differ.
  "proved" only from unsat, a GF(2) rank/span argument, or the whole domain; a
  timeout is "unknown"; every counterexample is re-checked by plain evaluation.
* ``fragment_delivers(copy, smem, mma, operand)`` (:mod:`fragment`): the flagship theorem in one
  call -- an ldmatrix / stmatrix / movmatrix moves exactly an mma fragment, for every tile, lane,
  register and half, or the first wrong element in the kernel's terms.
* Theorem files: ``@theorem(expect=...)``, ``layoutalg prove PATH...``
  (:mod:`runner`, :func:`run_cli`) and the pytest plugin (``layoutalg.pytest_plugin``).
* ``formula(layout)``: the index function as a sympy formula (text and LaTeX).

z3, sympy and numpy are imported only when a claim or formula needs them.
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
from layoutalg.prove.fragment import FragmentResult, fragment_delivers
from layoutalg.prove.problem import EngineDisagreementError
from layoutalg.prove.result import ProofResult, combine
from layoutalg.prove.theorem import theorem


def formula(layout: Any, names: Any = None, form: str = "coord") -> Any:
    """A layout's index function as a sympy expression (see :mod:`layoutalg.prove.index_formula`)."""
    from layoutalg.prove.index_formula import formula as _formula

    return _formula(layout, names, form)


def conflict_free(smem_layout: Any, access: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """Prove an access pattern bank-conflict-free (see :func:`layoutalg.banks.proof.conflict_free`).

    The proof lives in the banks layer, which sits above this one because it
    needs the hardware wavefront model.  This facade is the one sanctioned
    upward reference (listed in ``tests/test_layering.py``): it imports the
    banks layer only when called, so the symbolic layer never loads it itself.
    """
    import importlib

    banks_proof = importlib.import_module("layoutalg.banks.proof")
    return banks_proof.conflict_free(smem_layout, access, dtype, **kwargs)


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
    "fragment_delivers",
    "FragmentResult",
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
    "conflict_free",
    "run_cli",
]

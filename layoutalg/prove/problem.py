"""The two logical forms every claim reduces to, and what an engine answers.

* :class:`Forall` -- ``for all values of variables: pred`` (``pred`` lowered).
* :class:`Collision` -- ``for all params p, x in X, y in Y: not (x != y and f(p, x) == g(p, y))``;
  injectivity is ``g = f`` over a generated copy of ``X`` with ``distinct=True``,
  disjointness is ``distinct=False`` (two different functions).

Variables are identified by :attr:`~layoutalg.prove.variables.Var.key`; a witness maps keys to values.

An engine returns an :class:`Outcome` (status and, when refuted, the variable
values of a counterexample), or raises :class:`NotApplicableError` when it cannot
decide the problem (nonlinear for GF(2), too large for enumeration).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove import expr as ex


class NotApplicableError(Exception):
    """This engine cannot decide this problem (the reason is the message)."""


class EngineDisagreementError(ProofError):
    """Two engines decided one claim differently, or an engine's counterexample does not refute it."""


@dataclass(frozen=True)
class Forall:
    variables: tuple[ex.Var, ...]
    pred: Any  # lowered Pred

    @property
    def all_vars(self) -> tuple[ex.Var, ...]:
        return self.variables


@dataclass(frozen=True)
class Collision:
    params: tuple[ex.Var, ...]
    xs: tuple[ex.Var, ...]
    ys: tuple[ex.Var, ...]
    f: tuple[Any, ...]  # lowered terms over params + xs
    g: tuple[Any, ...]  # lowered terms over params + ys
    distinct: bool  # require the x point and the y point to differ (injectivity)

    @property
    def all_vars(self) -> tuple[ex.Var, ...]:
        return self.params + self.xs + self.ys

    def as_forall(self) -> Forall:
        """The same claim as one predicate over params, xs and ys (used by z3)."""
        if len(self.f) != len(self.g):
            raise ProofError("the two functions have different numbers of outputs")
        same = ex.all_of(*[a == b for a, b in zip(self.f, self.g)])
        if self.distinct:
            differ = ex.any_of(*[x != y for x, y in zip(self.xs, self.ys)])
            return Forall(self.all_vars, ex.implies(differ, ~same))
        return Forall(self.all_vars, ~same)


Problem = Forall | Collision


@dataclass(frozen=True)
class Outcome:
    status: str  # proved | refuted | unknown
    witness: dict[ex.VarKey, int] | None = None  # variable values of a counterexample, by Var.key
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def holds_at(problem: Problem, env: dict[ex.VarKey, int]) -> bool:
    """Evaluate the problem at one point with Python ints (the referee for every counterexample)."""
    for v in problem.all_vars:
        if v.key not in env:
            raise EngineDisagreementError(f"counterexample has no value for {describe(v.name)}")
        if not v.admits(int(env[v.key])):
            raise EngineDisagreementError(f"counterexample value {v.name}={env[v.key]} is outside {v.describe()}")
    point = {k: int(x) for k, x in env.items()}
    if isinstance(problem, Forall):
        return bool(ex.evaluate(problem.pred, point))
    fx = ex.evaluate(problem.f, point)
    gy = ex.evaluate(problem.g, point)
    if problem.distinct and all(point[x.key] == point[y.key] for x, y in zip(problem.xs, problem.ys)):
        return True
    return bool(fx != gy)


def points(problem: Problem) -> int:
    """How many points enumeration evaluates: the domain, or for a collision both sides (one if distinct)."""
    if isinstance(problem, Forall):
        return math.prod(v.count() for v in problem.variables)
    per_param = math.prod(v.count() for v in problem.params)
    xs = math.prod(v.count() for v in problem.xs)
    return per_param * (xs if problem.distinct else xs + math.prod(v.count() for v in problem.ys))


__all__ = ["Forall", "Collision", "Problem", "Outcome", "NotApplicableError", "EngineDisagreementError", "holds_at", "points"]

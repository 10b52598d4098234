"""How claims word their results: counterexample values, domains and the ProofResult itself.
"""

from __future__ import annotations

from typing import Any

from layoutalg.prove import expr as ex
from layoutalg.prove.functions import Fn, call_on
from layoutalg.prove.problem import Collision, Outcome, Problem
from layoutalg.prove.result import ProofResult


def fmt_vals(pairs: list[tuple[str, int]]) -> str:
    return ", ".join(f"{k}={v}" for k, v in pairs)


def named(pairs: list[tuple[str, int]]) -> dict[str, int]:
    """A counterexample dict from display pairs; a name already taken gets ``#2``, ``#3``... (nothing is lost)."""
    out: dict[str, int] = {}
    for name, value in pairs:
        key, k = name, 2
        while key in out:
            key, k = f"{name}#{k}", k + 1
        out[key] = int(value)
    return out


def point_inputs(variables: tuple[ex.Var, ...], env: dict[ex.VarKey, int]) -> list[tuple[str, int]]:
    """Each variable's display name and value at a witness (keys are :attr:`Var.key`)."""
    return [(v.name, int(env[v.key])) for v in variables]


def witness_inputs(problem: Problem, env: dict[ex.VarKey, int]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(first point incl. params, second point) as display pairs (the second point's copies are shown primed)."""
    if isinstance(problem, Collision):
        return point_inputs(problem.params + problem.xs, env), point_inputs(problem.ys, env)
    return point_inputs(problem.variables, env), []


def out_vals(fn: Fn, terms: tuple[Any, ...], env: dict[ex.VarKey, int]) -> list[tuple[str, int]]:
    vals = ex.evaluate(tuple(terms), env)
    return [(f"{fn.name}{'.' if comp and not comp.startswith('[') else ''}{comp}", int(v)) for (comp, _), v in zip(fn.outputs, vals)]


def shown_values(show: Any, variables: tuple[ex.Var, ...], env: dict[ex.VarKey, int]) -> list[tuple[str, int]]:
    if not show:
        return []
    out = []
    for name, t in show.items():
        term = call_on(t, variables, f"show[{name!r}]")
        out.append((name, int(ex.evaluate(ex.as_expr(term), env))))
    return out


def proof_result(
    claim: str, out: Outcome, method: str, notes: list[str], seconds: float, cex: dict[str, int] | None, why: str
) -> ProofResult:
    allnotes = list(notes)
    if out.status == "unknown" and out.note:
        allnotes.append(out.note)
    return ProofResult(out.status, cex, seconds, method, claim, why, tuple(dict.fromkeys(allnotes)))


def domain_text(variables: tuple[ex.Var, ...], params: tuple[ex.Var, ...] = ()) -> str:
    return ", ".join(v.describe() for v in variables + params)

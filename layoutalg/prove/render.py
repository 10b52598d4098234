"""How claims word their results: counterexample values, domains and the ProofResult itself.
"""

from __future__ import annotations

from typing import Any

from layoutalg.prove import expr as ex
from layoutalg.prove.functions import Fn, call_on
from layoutalg.prove.problem import (
    SECOND,
    Collision,
    Outcome,
    Problem,
)
from layoutalg.prove.result import ProofResult


def fmt_vals(pairs: list[tuple[str, int]]) -> str:
    return ", ".join(f"{k}={v}" for k, v in pairs)


def witness_inputs(problem: Problem, env: dict[str, int]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(first point incl. params, second point primed) as display pairs."""
    if isinstance(problem, Collision):
        first = [(v.name, env[v.name]) for v in problem.params + problem.xs]
        second = [(_display(y.name), env[y.name]) for y in problem.ys]
        return first, second
    return [(_display(v.name), env[v.name]) for v in problem.variables], []


def _display(name: str) -> str:
    return name[: -len(SECOND)] + "'" if name.endswith(SECOND) else name


def out_vals(fn: Fn, terms: tuple[Any, ...], env: dict[str, int]) -> list[tuple[str, int]]:
    vals = ex.evaluate(tuple(terms), env)
    return [(f"{fn.name}{'.' if comp and not comp.startswith('[') else ''}{comp}", int(v)) for (comp, _), v in zip(fn.outputs, vals)]


def shown_values(show: Any, variables: tuple[ex.Var, ...], env: dict[str, int]) -> list[tuple[str, int]]:
    if not show:
        return []
    out = []
    for name, t in show.items():
        term = call_on(t, variables, f"show[{name!r}]")
        out.append((name, int(ex.evaluate(ex.as_expr(term), env))))
    return out


def proof_result(claim: str, out: Outcome, method: str, notes: list[str], seconds: float, cex: dict[str, int] | None, why: str) -> ProofResult:
    allnotes = list(notes)
    if out.status == "unknown" and out.note:
        allnotes.append(out.note)
    return ProofResult(out.status, cex, seconds, method, claim, why, tuple(dict.fromkeys(allnotes)))


def domain_text(variables: tuple[ex.Var, ...], params: tuple[ex.Var, ...] = ()) -> str:
    return ", ".join(v.describe() for v in variables + params)

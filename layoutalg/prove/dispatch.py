"""Choosing and running an engine for a problem (``method`` = auto / f2 / z3 / enum), validating every
refutation by plain evaluation, and optionally cross-checking with a second engine.
"""

from __future__ import annotations

import math
from typing import Callable

from layoutalg.errors import ProofError
from layoutalg.prove import config
from layoutalg.prove import expr as ex
from layoutalg.prove.problem import (
    Collision,
    EngineDisagreementError,
    Forall,
    NotApplicableError,
    Outcome,
    Problem,
    holds_at,
)

METHODS = ("auto", "f2", "z3", "enum")


def _engine(name: str) -> Callable[..., Outcome]:
    if name == "f2":
        from layoutalg.prove import engine_f2

        return engine_f2.decide
    if name == "z3":
        from layoutalg.prove import engine_z3

        return engine_z3.decide
    if name == "enum":
        from layoutalg.prove import engine_enum

        lim = config.current().enum_limit
        return lambda p, timeout=None: engine_enum.decide(p, timeout, lim)
    raise ProofError(f"method must be one of {METHODS}, got {name!r}")


def _points(problem: Problem) -> int:
    skip = {y.name for y in problem.ys} if isinstance(problem, Collision) else set()
    return math.prod(v.count() for v in problem.all_vars if v.name not in skip)


def _run_one(problem: Problem, method: str, timeout: float) -> tuple[Outcome, str, list[str]]:
    notes: list[str] = []
    if method != "auto":
        try:
            return _engine(method)(problem, timeout=timeout), method, notes
        except NotApplicableError as exc:
            return Outcome("unknown", note=f"{method} not applicable: {exc}"), method, [f"{method} not applicable: {exc}"]
    try:
        return _engine("f2")(problem, timeout=timeout), "f2", notes
    except NotApplicableError as exc:
        notes.append(f"f2 not applicable: {exc}")
    if _points(problem) <= config.current().auto_enum_limit:
        try:
            return _engine("enum")(problem, timeout=timeout), "enum", notes
        except NotApplicableError as exc:
            notes.append(f"enum not applicable: {exc}")
    out = _engine("z3")(problem, timeout=timeout)
    if out.status == "unknown" and _points(problem) <= config.current().enum_limit:
        notes.append(f"z3 gave up ({out.note}); enumerated instead")
        return _engine("enum")(problem, timeout=timeout), "enum", notes
    return out, "z3", notes


def _small_box(problem: Problem, per_var: int) -> Problem:
    """The same problem over the first ``per_var`` admissible values of every variable."""

    def shrink(v: ex.Var) -> ex.Var:
        values = list(v.values_iter(limit=per_var))
        return ex.Var(v.name, v.lo, values[-1] + 1, v.multiple_of, v.pow2, v.kind)

    if isinstance(problem, Forall):
        return Forall(tuple(shrink(v) for v in problem.variables), problem.pred)
    return Collision(
        tuple(shrink(v) for v in problem.params),
        tuple(shrink(v) for v in problem.xs),
        tuple(shrink(v) for v in problem.ys),
        problem.f,
        problem.g,
        problem.distinct,
    )


def _readable_witness(problem: Problem, out: Outcome) -> Outcome:
    """After a z3 refutation, look for a counterexample with small values (kernel authors read these).

    Enumerates a small box of the domain (each variable's first few values); failing that, asks z3 to
    pin variables to their lowest values one by one (``engine_z3.minimize``).  Any counterexample
    found is as valid as z3's and is re-checked like every other; otherwise z3's model is kept.
    """
    from layoutalg.prove import engine_enum

    n = len(problem.all_vars) - (len(problem.ys) if isinstance(problem, Collision) else 0)
    per_var = 16 if 16**n <= 1 << 16 else 4 if 4**n <= 1 << 16 else 2
    try:
        small = engine_enum.decide(_small_box(problem, per_var), None, 1 << 16)
    except (NotApplicableError, ProofError):
        small = Outcome("unknown")
    if small.status == "refuted" and small.witness is not None:
        return Outcome("refuted", small.witness, out.note, out.extra)
    if out.witness is None:
        return out
    from layoutalg.prove import engine_z3

    try:
        smaller = engine_z3.minimize(problem, out.witness)
    except ProofError:
        return out
    if not holds_at(problem, smaller):
        return Outcome("refuted", smaller, out.note, out.extra)
    return out


def _validate(problem: Problem, out: Outcome, method: str) -> None:
    if out.status == "refuted":
        if out.witness is None or holds_at(problem, out.witness):
            raise EngineDisagreementError(f"engine {method} returned a counterexample {out.witness} at which the claim holds")


def run_problem(problem: Problem, method: str, timeout: float | None, cross_check: bool | None) -> tuple[Outcome, str, list[str]]:
    """Decide with the chosen engine (validated), optionally cross-checked by a second one."""
    if method not in METHODS:
        raise ProofError(f"method must be one of {METHODS}, got {method!r}")
    cfg = config.current()
    tmo = cfg.timeout if timeout is None else timeout
    if isinstance(tmo, bool) or not isinstance(tmo, (int, float)) or not tmo > 0:
        raise ProofError(f"timeout must be a positive number of seconds, got {tmo!r}")
    cross = cfg.cross_check if cross_check is None else cross_check
    out, used, notes = _run_one(problem, method, tmo)
    _validate(problem, out, used)
    if out.status == "refuted" and used == "z3":
        out = _readable_witness(problem, out)
        _validate(problem, out, used)
    if cross and out.status != "unknown":
        for other in ("z3", "enum", "f2"):
            if other == used or (other == "enum" and _points(problem) > cfg.enum_limit):
                continue
            try:
                second = _engine(other)(problem, timeout=tmo)
            except NotApplicableError:
                continue
            _validate(problem, second, other)
            if second.status != "unknown" and second.status != out.status:
                raise EngineDisagreementError(
                    f"engines disagree: {used} says {out.status} ({out.note}), {other} says {second.status} ({second.note})"
                )
            if second.status != "unknown":
                used = f"{used}+{other}"
                break
    return out, used, notes

"""Choosing and running an engine for a problem (``method`` = auto / f2 / z3 / enum), validating every
refutation by plain evaluation, and optionally cross-checking with a second engine.

Everything :func:`run_problem` does -- the engine, auto's fallbacks, the search for a readable
counterexample and the cross-check -- runs under one deadline (:mod:`layoutalg.prove.budget`).
"""

from __future__ import annotations

from typing import Callable

from layoutalg.core.validate import describe, one_of
from layoutalg.errors import ProofError
from layoutalg.prove import budget, config
from layoutalg.prove import expr as ex
from layoutalg.prove.problem import (
    Collision,
    EngineDisagreementError,
    Forall,
    NotApplicableError,
    Outcome,
    Problem,
    holds_at,
    points,
)

METHODS = ("auto", "f2", "z3", "enum")
Engine = Callable[[Problem, budget.Deadline], Outcome]


def _engine(name: str) -> Engine:
    if name == "f2":
        from layoutalg.prove import engine_f2

        return engine_f2.decide
    if name == "z3":
        from layoutalg.prove import engine_z3

        return engine_z3.decide
    if name == "enum":
        from layoutalg.prove import engine_enum

        lim = config.current().enum_limit
        return lambda p, deadline: engine_enum.decide(p, deadline, lim)
    raise ProofError(f"method must be one of {METHODS}, got {describe(name)}")


def _attempt(name: str, problem: Problem, deadline: budget.Deadline) -> Outcome:
    """One engine's outcome; :class:`NotApplicableError` propagates, running out of time is "unknown"."""
    try:
        return _engine(name)(problem, deadline)
    except budget.DeadlineExceededError as exc:
        return Outcome("unknown", note=f"{name} {exc}")


def _run_one(problem: Problem, method: str, deadline: budget.Deadline) -> tuple[Outcome, str, list[str]]:
    notes: list[str] = []
    if method != "auto":
        try:
            return _attempt(method, problem, deadline), method, notes
        except NotApplicableError as exc:
            return Outcome("unknown", note=f"{method} not applicable: {exc}"), method, [f"{method} not applicable: {exc}"]
    try:
        return _attempt("f2", problem, deadline), "f2", notes
    except NotApplicableError as exc:
        notes.append(f"f2 not applicable: {exc}")
    size = points(problem)
    if size <= config.current().auto_enum_limit:
        try:
            return _attempt("enum", problem, deadline), "enum", notes
        except NotApplicableError as exc:
            notes.append(f"enum not applicable: {exc}")
    can_enumerate = size <= config.current().enum_limit
    out = _attempt("z3", problem, deadline.share(0.5) if can_enumerate else deadline)
    if out.status == "unknown" and can_enumerate:
        notes.append(f"z3 gave up ({out.note}); enumerated instead")
        try:
            return _attempt("enum", problem, deadline), "enum", notes
        except NotApplicableError as exc:
            notes.append(f"enum not applicable: {exc}")
    return out, "z3", notes


def _small_box(problem: Problem, per_var: int) -> Problem:
    """The same problem over the first ``per_var`` admissible values of every variable."""

    def shrink(v: ex.Var) -> ex.Var:
        values = list(v.values_iter(limit=per_var))
        return v.with_range(v.lo, values[-1] + 1)

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

    n = len(problem.all_vars) - (len(problem.ys) if isinstance(problem, Collision) and problem.distinct else 0)
    per_var = 16 if 16**n <= 1 << 16 else 4 if 4**n <= 1 << 16 else 2
    try:
        small = engine_enum.decide(_small_box(problem, per_var), budget.current(), 1 << 16)
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
    """Decide with the chosen engine (validated), optionally cross-checked by a second one.

    ``timeout`` (default ``settings().timeout``; ``inf`` for none) bounds the whole call, and is itself
    cut to any enclosing :func:`budget.limit`.
    """
    one_of(method, METHODS, "method", ProofError)
    if cross_check is not None and not isinstance(cross_check, bool):
        raise ProofError(f"cross_check must be True, False or None, got {describe(cross_check)}")
    check_well_defined(problem)
    cfg = config.current()
    with budget.limit(cfg.timeout if timeout is None else timeout) as deadline:
        return _run_checked(problem, method, deadline, cfg.cross_check if cross_check is None else cross_check)


def check_well_defined(problem: Problem) -> None:
    """:class:`ProofError` unless every divisor is non-zero over the whole domain by interval analysis.

    The same rule for every engine (z3 needs it to encode ``//`` and ``%``), so a claim is accepted or
    refused independently of the method chosen.
    """
    roots = [problem.pred] if isinstance(problem, Forall) else list(problem.f) + list(problem.g)
    intervals: dict[int, ex.Interval] = {}
    for node in ex.subterms(roots):
        if isinstance(node, ex.BinOp) and node.op in ("//", "%"):
            lo, hi = ex.interval(node.b, intervals)
            if lo <= 0 <= hi:
                raise ProofError(f"the divisor in {describe(node)} may be zero (its range is [{lo}, {hi}])")


def _run_checked(problem: Problem, method: str, deadline: budget.Deadline, cross: bool) -> tuple[Outcome, str, list[str]]:
    cfg = config.current()
    out, used, notes = _run_one(problem, method, deadline)
    _validate(problem, out, used)
    if out.status == "refuted" and used == "z3":
        out = _readable_witness(problem, out)
        _validate(problem, out, used)
    if cross and out.status != "unknown":
        for other in ("z3", "enum", "f2"):
            if other == used or (other == "enum" and points(problem) > cfg.enum_limit):
                continue
            try:
                second = _attempt(other, problem, deadline)
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
            notes.append(f"cross-check by {other} undecided: {second.note}")
    return out, used, notes

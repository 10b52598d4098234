"""z3: prove a claim by showing its negation unsatisfiable.

The claim ``for all x in D: P(x)`` is proved exactly when z3 answers ``unsat``
for ``D(x) and not P(x)``.  Two exact encodings (:mod:`layoutalg.prove.encode`):

* **integers** (``IntEncoder``), used first when every operator has an exact
  integer meaning (no ``|``/``^``, ``&`` only with a low mask ``2**k - 1``):
  nonlinear index arithmetic such as ``row * lda < M * lda`` is far easier
  for z3's arithmetic solvers than for bit-blasting;
* **bit-vectors** (``Encoder``) at an overflow-free width, used for XOR
  swizzles and other bit operations, and when the integer attempt is ``unknown``.

``sat`` gives a model, returned as a counterexample (and re-checked by plain
evaluation in :mod:`claims`).  A timeout or any other ``unknown`` answer is
``unknown``, never ``proved``; the deadline (:mod:`layoutalg.prove.budget`)
covers both attempts together (the integer attempt gets half the time left
when the bit-vector one may follow).
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove import budget, config
from layoutalg.prove import encode as enc_mod
from layoutalg.prove import expr as ex
from layoutalg.prove.problem import Collision, Forall, Outcome, Problem

Witness = dict[ex.VarKey, int]


def _solve(enc: Any, forall: Forall, deadline: budget.Deadline, logic: str | None) -> tuple[str, Witness | None, str]:
    import z3

    if deadline.expired():
        return "unknown", None, "no time left"
    solver = z3.SolverFor(logic) if logic else z3.Solver()
    ms = deadline.z3_ms()
    if ms is not None:
        solver.set("timeout", ms)
    for v in forall.variables:
        solver.add(*enc.constraints(v))
    solver.add(z3.Not(enc.pred(forall.pred)))
    answer = solver.check()
    if answer == z3.unsat:
        return "proved", None, ""
    if answer == z3.sat:
        model = solver.model()
        witness = {}
        for v in forall.variables:
            value = model.eval(enc.variable(v), model_completion=True)
            witness[v.key] = value.as_signed_long() if z3.is_bv(value) else value.as_long()
        return "refuted", witness, ""
    return "unknown", None, str(solver.reason_unknown())


def decide(problem: Problem, deadline: budget.Deadline | None = None) -> Outcome:
    """z3's verdict on ``problem`` before ``deadline`` (default: the current :func:`budget.limit`)."""
    deadline = budget.current() if deadline is None else deadline
    forall = problem.as_forall() if isinstance(problem, Collision) else problem
    variables = list(forall.variables)
    notes = []
    encoding = config.current().z3_encoding
    if encoding not in ("auto", "int", "bv"):
        raise ProofError(f"z3_encoding must be 'auto', 'int' or 'bv', got {describe(encoding)}")
    use_int = encoding != "bv" and enc_mod.int_expressible([forall.pred])
    if encoding == "int" and not use_int:
        return Outcome("unknown", note="z3 over the integers: the claim uses bit operations with no exact integer form")
    if use_int:
        intervals: dict[int, Any] = {}
        first = deadline if encoding == "int" else deadline.share(0.5)
        status, witness, why = _solve(enc_mod.IntEncoder(intervals), forall, first, None)
        if status != "unknown":
            return Outcome(status, witness, note="z3 over the integers")
        notes.append(f"z3 over the integers: {why}")
        if encoding == "int":
            return Outcome("unknown", note="; ".join(notes))
    enc = enc_mod.encoder_for([forall.pred], variables)
    status, witness, why = _solve(enc, forall, deadline, "QF_BV")
    if status != "unknown":
        return Outcome(status, witness, note=f"z3 over {enc.width}-bit vectors")
    notes.append(f"z3 over {enc.width}-bit vectors: {why}")
    return Outcome("unknown", note="; ".join(notes))


def minimize(problem: Problem, witness: Witness, seconds: float = 0.5) -> Witness:
    """A counterexample with each variable, in domain order, at its smallest possible value (readability).

    Greedy, one variable at a time in domain order: with the earlier variables fixed at their chosen
    values, the variable takes the smallest value ``v`` for which a counterexample still exists.  It is
    found by binary search between the variable's lowest admissible value and its current value: each
    step asks z3 for a counterexample with ``x <= mid`` and adopts the model it gives (so every value
    held is part of a real counterexample), else raises the lower end to ``mid + 1``.  Each query has a
    share of ``seconds`` (cut to the current deadline); a query z3 cannot answer in its share counts as
    "none", so under time pressure a value may stay above the smallest.  The result is re-checked by the
    caller like any counterexample.
    """
    import z3

    seconds = min(seconds, budget.current().left())
    if seconds <= 0.001:
        return dict(witness)
    until = budget.Deadline.after(seconds)
    forall = problem.as_forall() if isinstance(problem, Collision) else problem
    use_int = enc_mod.int_expressible([forall.pred])
    enc: Any = enc_mod.IntEncoder({}) if use_int else enc_mod.encoder_for([forall.pred], list(forall.variables))
    solver = z3.Solver()
    per_query = seconds / max(1, len(forall.variables))
    for v in forall.variables:
        solver.add(*enc.constraints(v))
    solver.add(z3.Not(enc.pred(forall.pred)))
    out = dict(witness)

    def pin(v: ex.Var, bound: int) -> bool:
        """Is there a counterexample with ``v <= bound`` (and the pins so far)?  Adopts its model if so."""
        solver.set("timeout", max(1, int(1000 * min(per_query, until.left()))))
        solver.push()
        solver.add(enc.variable(v) <= bound)
        found = solver.check() == z3.sat
        if found:
            model = solver.model()
            for w in forall.variables:
                value = model.eval(enc.variable(w), model_completion=True)
                out[w.key] = value.as_signed_long() if z3.is_bv(value) else value.as_long()
        solver.pop()
        return found

    for v in forall.variables:
        low = next(iter(v.values_iter(limit=1)))  # no counterexample below ``low`` (with the earlier pins)
        while low < out[v.key] and not until.expired():
            middle = (low + out[v.key] - 1) // 2
            if not pin(v, middle):
                low = middle + 1
        solver.add(enc.variable(v) == out[v.key])
    return out


__all__ = ["decide", "minimize"]

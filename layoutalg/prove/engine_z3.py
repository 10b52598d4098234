"""z3: prove a claim by showing its negation unsatisfiable over bit-vectors.

The claim ``for all x in D: P(x)`` is proved exactly when z3 answers ``unsat``
for ``D(x) and not P(x)`` (the bit width rules out overflow, see
:mod:`layoutalg.prove.encode`).  ``sat`` gives a model, which is returned as a
counterexample (and re-checked by plain evaluation in :mod:`claims`).  A
timeout or any other ``unknown`` answer is ``unknown``, never ``proved``.
"""

from __future__ import annotations

from layoutalg.prove import encode as enc_mod
from layoutalg.prove.problem import Collision, Outcome, Problem


def decide(problem: Problem, timeout: float | None = None) -> Outcome:
    import z3

    forall = problem.as_forall() if isinstance(problem, Collision) else problem
    variables = list(forall.variables)
    enc = enc_mod.encoder_for([forall.pred], variables)
    negated = z3.Not(enc.pred(forall.pred))
    solver = z3.SolverFor("QF_BV")
    if timeout is not None:
        solver.set("timeout", max(1, int(timeout * 1000)))
    for v in variables:
        solver.add(*enc.constraints(v))
    solver.add(negated)
    answer = solver.check()
    if answer == z3.unsat:
        return Outcome("proved", note=f"z3 unsat at {enc.width} bits")
    if answer == z3.sat:
        model = solver.model()
        witness = {v.name: model.eval(enc.variable(v), model_completion=True).as_signed_long() for v in variables}
        return Outcome("refuted", witness, note=f"z3 model at {enc.width} bits")
    return Outcome("unknown", note=f"z3: {solver.reason_unknown()}")


__all__ = ["decide"]

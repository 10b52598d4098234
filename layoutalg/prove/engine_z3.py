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
``unknown``, never ``proved``; the time limit covers both attempts together.
"""

from __future__ import annotations

import time
from typing import Any

from layoutalg.errors import ProofError
from layoutalg.prove import config
from layoutalg.prove import encode as enc_mod
from layoutalg.prove import expr as ex
from layoutalg.prove.problem import Collision, Forall, Outcome, Problem


def _solve(enc: Any, forall: Forall, timeout: float | None, logic: str | None) -> tuple[str, dict[str, int] | None, str]:
    import z3

    solver = z3.SolverFor(logic) if logic else z3.Solver()
    if timeout is not None:
        solver.set("timeout", max(1, int(timeout * 1000)))
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
            witness[v.name] = value.as_signed_long() if z3.is_bv(value) else value.as_long()
        return "refuted", witness, ""
    return "unknown", None, str(solver.reason_unknown())


def decide(problem: Problem, timeout: float | None = None) -> Outcome:
    forall = problem.as_forall() if isinstance(problem, Collision) else problem
    variables = list(forall.variables)
    start = time.perf_counter()
    notes = []
    encoding = config.current().z3_encoding
    if encoding not in ("auto", "int", "bv"):
        raise ProofError(f"z3_encoding must be 'auto', 'int' or 'bv', got {encoding!r}")
    use_int = encoding != "bv" and enc_mod.int_expressible([forall.pred])
    if encoding == "int" and not use_int:
        return Outcome("unknown", note="z3 over the integers: the claim uses bit operations with no exact integer form")
    if use_int:
        intervals: dict[int, Any] = {}
        status, witness, why = _solve(enc_mod.IntEncoder(intervals), forall, None if timeout is None else timeout / 2, None)
        if status != "unknown":
            return Outcome(status, witness, note="z3 over the integers")
        notes.append(f"z3 over the integers: {why}")
        if encoding == "int":
            return Outcome("unknown", note="; ".join(notes))
    enc = enc_mod.encoder_for([forall.pred], variables)
    left = None if timeout is None else max(0.001, timeout - (time.perf_counter() - start))
    status, witness, why = _solve(enc, forall, left, "QF_BV")
    if status != "unknown":
        return Outcome(status, witness, note=f"z3 over {enc.width}-bit vectors")
    notes.append(f"z3 over {enc.width}-bit vectors: {why}")
    return Outcome("unknown", note="; ".join(notes))


def minimize(problem: Problem, witness: dict[str, int], budget: float = 0.5) -> dict[str, int]:
    """A counterexample with as many variables as possible at their smallest value (readability).

    Greedy, one variable at a time in domain order: pin it to its lowest admissible value if some
    counterexample still exists with the variables pinned so far, else pin it to the witness's value.
    Each query has a share of ``budget`` seconds; an unknown answer keeps the witness's value.  The
    result is re-checked by the caller like any counterexample.
    """
    import z3

    forall = problem.as_forall() if isinstance(problem, Collision) else problem
    use_int = enc_mod.int_expressible([forall.pred])
    enc: Any = enc_mod.IntEncoder({}) if use_int else enc_mod.encoder_for([forall.pred], list(forall.variables))
    solver = z3.Solver()
    solver.set("timeout", max(1, int(1000 * budget / max(1, len(forall.variables)))))
    for v in forall.variables:
        solver.add(*enc.constraints(v))
    solver.add(z3.Not(enc.pred(forall.pred)))
    out = dict(witness)

    def pin(v: ex.Var, bound: int) -> bool:
        """Is there a counterexample with ``v <= bound`` (and the pins so far)?  Adopts its model if so."""
        solver.push()
        solver.add(enc.variable(v) <= bound)
        found = solver.check() == z3.sat
        if found:
            model = solver.model()
            for w in forall.variables:
                value = model.eval(enc.variable(w), model_completion=True)
                out[w.name] = value.as_signed_long() if z3.is_bv(value) else value.as_long()
        solver.pop()
        return found

    for v in forall.variables:
        lowest = next(iter(v.values_iter(limit=1)))
        step = 0
        while out[v.name] > lowest and lowest + (1 << step) - 1 < out[v.name]:
            if pin(v, lowest + (1 << step) - 1):
                break
            step += 2
        solver.add(enc.variable(v) == out[v.name])
    return out


__all__ = ["decide", "minimize"]

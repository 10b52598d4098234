"""The prover API: claims about layouts and index arithmetic, each returning a :class:`ProofResult`.

A *function* argument may be

* a ``Layout``, ``ComposedLayout`` (or ``sym(...)`` of one): over its 1-D index
  ``index in [0, size)`` by default, or over the ``domain`` variables as a coordinate;
* a Python callable, called with the ``domain`` variables (symbolic terms) and
  returning a term, a tuple of terms, or a dict ``{"row": ..., "col": ...}``
  (the names appear in counterexamples);
* a term (or tuple/dict of terms) built from :func:`~layoutalg.prove.expr.var`.

A *domain* is an int ``n`` (one variable ``index``), a dict ``{"lane": 32,
"reg": 4}`` (or name -> ``Var``), or a list of ``Var``.  Parameters
(:func:`~layoutalg.prove.expr.param`) used in the terms are quantified too.

Every claim takes ``method`` (``"auto"``, ``"f2"``, ``"z3"``, ``"enum"``),
``timeout`` (seconds for the whole claim, every engine and fallback included;
``float('inf')`` for none; default ``settings().timeout``) and ``cross_check`` (run a second engine and raise
:class:`EngineDisagreementError` when the verdicts differ).  ``"auto"`` tries
GF(2) when every term is bit-linear, else enumerates domains of at most
``settings().auto_enum_limit`` points, else asks z3.  Every refutation is
re-checked by plain evaluation at the counterexample before it is returned,
and names every free variable of the claim (``where=`` included).
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove import budget, config
from layoutalg.prove import expr as ex
from layoutalg.prove.dispatch import METHODS, run_problem
from layoutalg.prove.functions import Fn, call_on, check_vars, domain_vars, is_layoutish, make_fn, params_in, size_of
from layoutalg.prove.problem import Collision, Forall
from layoutalg.prove.render import (
    domain_text,
    fmt_vals,
    named,
    out_vals,
    point_inputs,
    proof_result,
    shown_values,
    witness_inputs,
)
from layoutalg.prove.result import ProofResult, combine

Pairs = list[tuple[str, int]]
Explain = Callable[[dict[ex.VarKey, int], Pairs], tuple[Pairs, str]]


def _guarded(fn: Callable[..., ProofResult]) -> Callable[..., ProofResult]:
    """Public claims run under one deadline (their ``timeout``) and turn a too-deep term into a ProofError."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> ProofResult:
        timeout = kwargs.get("timeout")
        try:
            with budget.limit(config.current().timeout if timeout is None else timeout):
                return fn(*args, **kwargs)
        except RecursionError:
            raise ProofError(
                f"{fn.__name__}: a term is nested too deeply to analyse (build long sums with fewer, wider steps)"
            ) from None

    return wrapper



def _forall_problem(variables: tuple[ex.Var, ...], pred: Any, where: Any) -> Forall:
    """The claim over the domain and every parameter of ``pred`` *or* ``where`` (all are quantified)."""
    full = pred if where is None else ex.implies(where, pred)
    params = params_in(full)
    check_vars([full], variables, "the claim")
    return Forall(variables + params, ex.lower(full))


def _decide_forall(
    head: str,
    variables: tuple[ex.Var, ...],
    pred: Any,
    where: Any,
    explain: Explain,
    method: str,
    timeout: float | None,
    cross_check: bool | None,
) -> ProofResult:
    """Decide ``head for all <domain and parameters>``; a refutation is worded by ``explain(witness, inputs)``.

    ``inputs`` are the values of *every* quantified variable (domain first, then parameters, including
    those only ``where`` mentions), so no free variable is ever missing from a counterexample.
    """
    start = time.perf_counter()
    problem = _forall_problem(variables, pred, where)
    claim = f"{head} for all {domain_text(problem.variables)}"
    out, used, notes = run_problem(problem, method, timeout, cross_check)
    cex, why = (None, "")
    if out.status == "refuted" and out.witness is not None:
        inputs = point_inputs(problem.variables, out.witness)
        extra, why = explain(out.witness, inputs)
        cex = named(inputs + extra)
    return proof_result(claim, out, used, notes, time.perf_counter() - start, cex, why)


def _two_names(names: Any) -> tuple[str, str]:
    """``names`` as two strings (a ProofError otherwise): the claim text and the counterexample use them."""
    if not isinstance(names, (tuple, list)) or len(names) != 2 or not all(isinstance(n, str) for n in names):
        raise ProofError(f"names must be two strings, got {describe(names)}")
    return names[0], names[1]


@_guarded
def equivalent(
    f: Any,
    g: Any,
    domain: Any = None,
    *,
    names: tuple[str, str] = ("lhs", "rhs"),
    where: Any = None,
    show: dict[str, Any] | None = None,
    method: str = "auto",
    timeout: float | None = None,
    cross_check: bool | None = None,
) -> ProofResult:
    """``f(x) == g(x)`` for every ``x`` of the domain (all outputs, componentwise).

    Two layouts without a domain are compared over their common index range;
    layouts of different sizes are not comparable (``ProofError``).
    """
    names = _two_names(names)
    if domain is None and is_layoutish(f) and is_layoutish(g) and size_of(f) != size_of(g):
        raise ProofError(f"{names[0]} has size {size_of(f)} but {names[1]} has size {size_of(g)}: pass domain= to compare a sub-range")
    if domain is None and is_layoutish(g) and not is_layoutish(f):
        f, g, names = g, f, (names[1], names[0])
    F = make_fn(f, domain, names[0])
    G = make_fn(g, F.variables, names[1])
    if len(F.outputs) != len(G.outputs):
        raise ProofError(f"{names[0]} has {len(F.outputs)} outputs but {names[1]} has {len(G.outputs)}")
    variables = F.variables
    cond = call_on(where, variables, "where")
    pred = ex.all_of(*[a == b for a, b in zip(F.terms, G.terms)])

    def explain(env: dict[ex.VarKey, int], inputs: Pairs) -> tuple[Pairs, str]:
        fv, gv = out_vals(F, F.terms, env), out_vals(G, G.terms, env)
        extra = shown_values(show, variables, env)
        why = f"at {fmt_vals(inputs)}: {fmt_vals(fv)} but {fmt_vals(gv)}"
        if extra:
            why += f" ({fmt_vals(extra)})"
        return fv + gv + extra, why

    return _decide_forall(f"{names[0]} == {names[1]}", variables, pred, cond, explain, method, timeout, cross_check)


@_guarded
def forall(
    predicate: Any,
    domain: Any = None,
    *,
    name: str = "predicate",
    where: Any = None,
    show: dict[str, Any] | None = None,
    method: str = "auto",
    timeout: float | None = None,
    cross_check: bool | None = None,
) -> ProofResult:
    """``predicate`` holds at every point of the domain (and for every parameter value)."""
    variables = domain_vars(domain)
    if variables is None:
        if callable(predicate) and not isinstance(predicate, ex.Pred):
            raise ProofError("forall: a Python function needs domain=")
        if callable(where) and not isinstance(where, ex.Pred):
            raise ProofError("forall: a Python function as where= needs domain=")
        found = ex.free_vars(predicate, where) if isinstance(where, ex.Pred) else ex.free_vars(predicate)
        variables = tuple(sorted((v for v in found.values() if v.kind == "var"), key=lambda v: v.name))
    pred = ex.as_pred(call_on(predicate, variables, name))
    cond = call_on(where, variables, "where")

    def explain(env: dict[ex.VarKey, int], inputs: Pairs) -> tuple[Pairs, str]:
        extra = shown_values(show, variables, env)
        why = f"at {fmt_vals(inputs)}: {name} is false" + (f" ({fmt_vals(extra)})" if extra else "")
        return extra, why

    return _decide_forall(name, variables, pred, cond, explain, method, timeout, cross_check)


@_guarded
def in_bounds(
    f: Any,
    n: Any,
    domain: Any = None,
    *,
    lo: Any = 0,
    name: str = "offset",
    where: Any = None,
    show: dict[str, Any] | None = None,
    method: str = "auto",
    timeout: float | None = None,
    cross_check: bool | None = None,
) -> ProofResult:
    """``lo <= f(x) < n`` for every ``x`` (``n`` and ``lo`` may be terms over parameters)."""
    F = make_fn(f, domain, name)
    variables = F.variables
    pred = ex.all_of(*[ex.all_of(t >= lo, t < n) for t in F.terms])

    def explain(env: dict[ex.VarKey, int], inputs: Pairs) -> tuple[Pairs, str]:
        fv = out_vals(F, F.terms, env)
        bound = int(ex.evaluate(ex.as_expr(n), env))
        low = int(ex.evaluate(ex.as_expr(lo), env))
        extra = shown_values(show, variables, env)
        return fv + extra, f"at {fmt_vals(inputs)}: {fmt_vals(fv)} is outside [{low}, {bound})" + (
            f" ({fmt_vals(extra)})" if extra else ""
        )

    head = f"{lo} <= {name} < {n}"
    return _decide_forall(head, variables, pred, call_on(where, variables, "where"), explain, method, timeout, cross_check)


@_guarded
def aligned(
    f: Any,
    nbytes: int,
    domain: Any = None,
    *,
    element_bytes: int = 1,
    name: str = "offset",
    where: Any = None,
    show: dict[str, Any] | None = None,
    method: str = "auto",
    timeout: float | None = None,
    cross_check: bool | None = None,
) -> ProofResult:
    """``f(x) * element_bytes`` is a multiple of ``nbytes`` for every ``x`` (f gives element offsets)."""
    for label, v in (("nbytes", nbytes), ("element_bytes", element_bytes)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ProofError(f"aligned: {label} must be a positive int, got {describe(v)}")
    F = make_fn(f, domain, name)
    variables = F.variables
    pred = ex.all_of(*[(t * element_bytes) % nbytes == 0 for t in F.terms])

    def explain(env: dict[ex.VarKey, int], inputs: Pairs) -> tuple[Pairs, str]:
        fv = out_vals(F, F.terms, env)
        extra = shown_values(show, variables, env)
        addr = [(f"{k}_bytes", v * element_bytes) for k, v in fv]
        return fv + addr + extra, f"at {fmt_vals(inputs)}: byte address {fmt_vals(addr)} is not {nbytes}-byte aligned"

    head = f"{name} * {element_bytes} B is {nbytes}-byte aligned"
    return _decide_forall(head, variables, pred, call_on(where, variables, "where"), explain, method, timeout, cross_check)


@_guarded
def contiguous(
    f: Any,
    n: int,
    domain: Any = None,
    *,
    along: str | None = None,
    name: str = "offset",
    show: dict[str, Any] | None = None,
    method: str = "auto",
    timeout: float | None = None,
    cross_check: bool | None = None,
) -> ProofResult:
    """Every aligned run of ``n`` consecutive values of the variable ``along`` maps to ``n`` consecutive offsets.

    With ``along = v`` (default: the only domain variable, ``index`` for a
    layout), ``v`` is written ``n * run + elem`` and the claim is
    ``f(.., n*run + elem, ..) == f(.., n*run, ..) + elem`` -- the run of
    elements a vector access (``ld.shared.v4``) or an ldmatrix row (8 x b16)
    reads from one address.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ProofError(f"contiguous: n must be a positive int, got {describe(n)}")
    F = make_fn(f, domain, name)
    variables = F.variables
    if along is None:
        if len(variables) != 1:
            raise ProofError(f"contiguous: say which variable the run is along (along=one of {[v.name for v in variables]})")
        along = variables[0].name
    target = next((v for v in variables if v.name == along), None)
    if target is None:
        raise ProofError(f"contiguous: along={describe(along)} is not a domain variable ({[v.name for v in variables]})")
    if target.lo != 0 or not target.is_plain() or target.hi % n:
        raise ProofError(f"contiguous: {target.describe()} must start at 0 and have an extent divisible by n={n}")
    # the run and element indices are generated variables (their own namespace: no user name can clash)
    run = ex.Var.fresh(f"{along}_run", 0, target.hi // n)
    elem = ex.Var.fresh(f"{along}_elem", 0, n)
    new_vars = tuple(v for v in variables if v.name != along) + (run, elem)
    at = ex.substitute(F.terms, {target.key: run * n + elem})
    start = ex.substitute(F.terms, {target.key: run * n})
    pred = ex.all_of(*[a == b + elem for a, b in zip(at, start)])

    def explain(env: dict[ex.VarKey, int], inputs: Pairs) -> tuple[Pairs, str]:
        got = [int(x) for x in ex.evaluate(at, env)]
        base = [int(x) for x in ex.evaluate(start, env)]
        pos = env[run.key] * n + env[elem.key]
        extra = shown_values(show, variables, {**env, target.key: pos})
        return [(along, pos), (f"{name}", got[0]), (f"{name}_run_start", base[0])] + extra, (
            f"at {fmt_vals(inputs)} ({along}={pos}): {name}={got[0]} but the run starts at {base[0]}, "
            f"so element {env[elem.key]} should be at {base[0] + env[elem.key]}"
        )

    head = f"{name} is contiguous in runs of {n} along {along}"
    return _decide_forall(head, new_vars, pred, None, explain, method, timeout, cross_check)


def _rename(variables: tuple[ex.Var, ...]) -> tuple[tuple[ex.Var, ...], dict[ex.VarKey, ex.Expr]]:
    """Generated copies of ``variables`` (shown primed: ``lane'``), and the substitution to them."""
    copies = tuple(v.fresh_copy(v.name + "'") for v in variables)
    return copies, {v.key: c for v, c in zip(variables, copies)}


def _decide_collision(
    claim: str, problem: Collision, explain: Callable[[dict[ex.VarKey, int]], tuple[Pairs, str]],
    method: str, timeout: float | None, cross_check: bool | None,
) -> ProofResult:
    start = time.perf_counter()
    out, used, notes = run_problem(problem, method, timeout, cross_check)
    cex, why = (None, "")
    if out.status == "refuted" and out.witness is not None:
        pairs, why = explain(out.witness)
        cex = named(pairs)
    return proof_result(claim, out, used, notes, time.perf_counter() - start, cex, why)


@_guarded
def injective(
    f: Any,
    domain: Any = None,
    *,
    name: str = "offset",
    method: str = "auto",
    timeout: float | None = None,
    cross_check: bool | None = None,
) -> ProofResult:
    """``f(x) == f(y)`` implies ``x == y`` (for every parameter value): no two points share an offset."""
    F = make_fn(f, domain, name)
    copies, mapping = _rename(F.variables)
    params = params_in(F.terms)
    problem = Collision(params, F.variables, copies, ex.lower(F.terms), ex.lower(ex.substitute(F.terms, mapping)), True)

    def explain(env: dict[ex.VarKey, int]) -> tuple[Pairs, str]:
        first, second = witness_inputs(problem, env)
        fv = out_vals(F, F.terms, env)
        return first + second + fv, f"{fmt_vals(first)} and {fmt_vals(second)} both give {fmt_vals(fv)}"

    claim = f"{name} is injective over {domain_text(F.variables, params)}"
    return _decide_collision(claim, problem, explain, method, timeout, cross_check)


@_guarded
def disjoint(
    f: Any,
    g: Any,
    domain: Any = None,
    domain_g: Any = None,
    *,
    names: tuple[str, str] = ("f", "g"),
    method: str = "auto",
    timeout: float | None = None,
    cross_check: bool | None = None,
) -> ProofResult:
    """No value of ``f`` equals a value of ``g`` (for every parameter value): the two access sets never overlap."""
    names = _two_names(names)
    F = make_fn(f, domain, names[0])
    G = make_fn(g, domain if domain_g is None else domain_g, names[1])
    if len(F.outputs) != len(G.outputs):
        raise ProofError(f"{names[0]} has {len(F.outputs)} outputs but {names[1]} has {len(G.outputs)}")
    copies, mapping = _rename(G.variables)
    gterms = ex.substitute(G.terms, mapping)
    params = params_in(F.terms, gterms)
    problem = Collision(params, F.variables, copies, ex.lower(F.terms), ex.lower(gterms), False)

    def explain(env: dict[ex.VarKey, int]) -> tuple[Pairs, str]:
        first, second = witness_inputs(problem, env)
        fv = out_vals(F, F.terms, env)
        return first + second + fv, f"{names[0]} at {fmt_vals(first)} and {names[1]} at {fmt_vals(second)} both give {fmt_vals(fv)}"

    claim = f"{names[0]} and {names[1]} never overlap over {domain_text(F.variables, params)}"
    return _decide_collision(claim, problem, explain, method, timeout, cross_check)


@_guarded
def bijective_onto(
    f: Any,
    n: int,
    domain: Any = None,
    *,
    name: str = "offset",
    method: str = "auto",
    timeout: float | None = None,
    cross_check: bool | None = None,
) -> ProofResult:
    """``f`` maps its domain one-to-one onto ``[0, n)``: the domain has ``n`` points, ``f`` is injective and in bounds."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ProofError(f"bijective_onto: n must be a positive int, got {describe(n)}")
    start = time.perf_counter()
    F = make_fn(f, domain, name)
    if len(F.outputs) != 1:
        raise ProofError(f"bijective_onto: {name} must have one output, it has {len(F.outputs)}")
    count = math.prod(v.count() for v in F.variables)
    claim = f"{name} is a bijection onto [0, {n}) from {domain_text(F.variables, params_in(F.terms))}"
    if count != n:
        return ProofResult(
            "refuted",
            {"domain_size": count, "n": n},
            time.perf_counter() - start,
            "count",
            claim,
            f"the domain has {count} points, so it cannot be a bijection onto {n} offsets",
        )
    kw = {"method": method, "timeout": timeout, "cross_check": cross_check}
    parts = [
        in_bounds(F.terms[0], n, F.variables, name=name, **kw),  # type: ignore[arg-type]
        injective(F.terms[0], F.variables, name=name, **kw),  # type: ignore[arg-type]
    ]
    return combine(parts, claim)


__all__ = ["equivalent", "forall", "in_bounds", "aligned", "contiguous", "injective", "disjoint", "bijective_onto", "make_fn", "Fn", "run_problem", "METHODS"]

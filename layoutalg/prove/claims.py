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
``timeout`` (seconds for z3) and ``cross_check`` (run a second engine and raise
:class:`EngineDisagreementError` when the verdicts differ).  ``"auto"`` tries
GF(2) when every term is bit-linear, else enumerates domains of at most
``settings().auto_enum_limit`` points, else asks z3.  Every refutation is
re-checked by plain evaluation at the counterexample before it is returned.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable

from layoutalg.errors import LayoutError, ProofError
from layoutalg.prove import config
from layoutalg.prove import expr as ex
from layoutalg.prove.problem import (
    SECOND,
    Collision,
    EngineDisagreementError,
    Forall,
    NotApplicableError,
    Outcome,
    Problem,
    holds_at,
)
from layoutalg.prove.result import ProofResult, combine

METHODS = ("auto", "f2", "z3", "enum")


def _guarded(fn: Callable[..., ProofResult]) -> Callable[..., ProofResult]:
    """Public claims turn a too-deep term (Python's recursion limit) into a ProofError naming the claim."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> ProofResult:
        try:
            return fn(*args, **kwargs)
        except RecursionError:
            raise ProofError(
                f"{fn.__name__}: a term is nested too deeply to analyse (build long sums with fewer, wider steps)"
            ) from None

    return wrapper


# ------------------------------------------------------------ functions and domains
@dataclass(frozen=True)
class Fn:
    """A function given as named output terms over ordered domain variables."""

    name: str
    outputs: tuple[tuple[str, Any], ...]
    variables: tuple[ex.Var, ...]

    @property
    def terms(self) -> tuple[Any, ...]:
        return tuple(t for _, t in self.outputs)


def _domain_vars(domain: Any) -> tuple[ex.Var, ...] | None:
    if domain is None:
        return None
    if isinstance(domain, ex.Var):
        return (domain,)
    if isinstance(domain, bool):
        raise ProofError(f"domain must be an int, a dict or a list of variables, got {domain!r}")
    if isinstance(domain, int):
        return (ex.var("index", domain),)
    if isinstance(domain, dict):
        out = []
        for name, spec in domain.items():
            if isinstance(spec, ex.Var):
                if spec.name != name:
                    raise ProofError(f"domain key {name!r} names the variable {spec.name!r}")
                out.append(spec)
            elif isinstance(spec, tuple) and len(spec) == 2:
                out.append(ex.var(name, lo=spec[0], hi=spec[1]))
            else:
                out.append(ex.var(name, spec))
        return tuple(out)
    if isinstance(domain, (list, tuple)) and all(isinstance(v, ex.Var) for v in domain):
        return tuple(domain)
    raise ProofError(f"domain must be an int, a dict or a list of variables, got {domain!r}")


def _is_layoutish(f: Any) -> bool:
    if isinstance(f, ex.Sym):
        return True
    try:
        ex.kind_of(f)
    except ProofError:
        return False
    return True


def _size_of(f: Any) -> int:
    fn = f.fn if isinstance(f, ex.Sym) else f
    if ex.kind_of(fn) == "swizzle":
        raise ProofError(f"a bare swizzle {fn} has no domain; pass domain=N")
    return int(fn.size())


def _outputs(value: Any, what: str) -> tuple[tuple[str, Any], ...]:
    if isinstance(value, dict):
        if not value:
            raise ProofError(f"{what} returned an empty dict")
        return tuple((str(k), ex.as_expr(v)) for k, v in value.items())
    if isinstance(value, (tuple, list)):
        if not value:
            raise ProofError(f"{what} returned an empty tuple")
        return tuple((f"[{i}]", ex.as_expr(v)) for i, v in enumerate(value))
    return (("", ex.as_expr(value)),)


def make_fn(f: Any, domain: Any = None, name: str = "f") -> Fn:
    """Normalise a function argument (see module docstring) to an :class:`Fn`."""
    variables = _domain_vars(domain)
    if _is_layoutish(f):
        s = ex.sym(f)
        if variables is None:
            variables = (ex.var("index", _size_of(f)),)
        value: Any = s(*variables)
    elif isinstance(f, (ex.Expr, tuple, list, dict, int)) and not isinstance(f, bool):
        value = f
        if variables is None:
            found = ex.free_vars(*(f.values() if isinstance(f, dict) else [f]))
            variables = tuple(sorted((v for v in found.values() if v.kind == "var"), key=lambda v: v.name))
    elif callable(f):
        if variables is None:
            raise ProofError(f"{name}: a Python function needs domain= (e.g. domain={{'lane': 32, 'reg': 4}})")
        value = _call_user(f, variables, name)
    else:
        raise ProofError(f"{name} must be a Layout, a ComposedLayout, a term or a function of the domain, got {f!r}")
    outputs = _outputs(value, name)
    _check_vars([t for _, t in outputs], variables, name)
    return Fn(name, outputs, variables)


def _check_vars(terms: list[Any], variables: tuple[ex.Var, ...], what: str) -> None:
    names = {v.name: v for v in variables}
    if len(names) != len(variables):
        raise ProofError(f"{what}: two domain variables share a name")
    for v in ex.free_vars(*terms).values():
        if v.kind == "var":
            if v.name not in names:
                raise ProofError(f"{what} uses the variable {v.describe()} that is not in its domain {list(names)}")
            if not names[v.name].same_as(v):
                raise ProofError(f"{what}: variable {v.name!r} differs from the domain's {names[v.name].describe()}")


def _params(*roots: Any) -> tuple[ex.Var, ...]:
    found = ex.free_vars(*roots)
    return tuple(sorted((v for v in found.values() if v.kind == "param"), key=lambda v: v.name))


def _call_on(g: Any, variables: tuple[ex.Var, ...], what: str) -> Any:
    if g is None:
        return None
    if isinstance(g, bool):
        return ex.BoolConst(g)
    if isinstance(g, (ex.Expr, ex.Pred)):
        return g
    if callable(g):
        return _call_user(g, variables, what)
    raise ProofError(f"{what} must be a term, a predicate or a function of the domain, got {g!r}")


def _call_user(g: Callable[..., Any], variables: tuple[ex.Var, ...], what: str) -> Any:
    """Call a user's function on the symbolic domain; its own errors become a ProofError naming it."""
    try:
        return g(*variables)
    except LayoutError:
        raise
    except Exception as exc:
        raise ProofError(f"{what}: calling it on the symbolic domain {list(variables)} failed: {type(exc).__name__}: {exc}") from exc


# ------------------------------------------------------------ engines
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


# ------------------------------------------------------------ rendering
def _fmt_vals(pairs: list[tuple[str, int]]) -> str:
    return ", ".join(f"{k}={v}" for k, v in pairs)


def _witness_inputs(problem: Problem, env: dict[str, int]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(first point incl. params, second point primed) as display pairs."""
    if isinstance(problem, Collision):
        first = [(v.name, env[v.name]) for v in problem.params + problem.xs]
        second = [(_display(y.name), env[y.name]) for y in problem.ys]
        return first, second
    return [(_display(v.name), env[v.name]) for v in problem.variables], []


def _display(name: str) -> str:
    return name[: -len(SECOND)] + "'" if name.endswith(SECOND) else name


def _out_vals(fn: Fn, terms: tuple[Any, ...], env: dict[str, int]) -> list[tuple[str, int]]:
    vals = ex.evaluate(tuple(terms), env)
    return [(f"{fn.name}{'.' if comp and not comp.startswith('[') else ''}{comp}", int(v)) for (comp, _), v in zip(fn.outputs, vals)]


def _shown(show: Any, variables: tuple[ex.Var, ...], env: dict[str, int]) -> list[tuple[str, int]]:
    if not show:
        return []
    out = []
    for name, t in show.items():
        term = _call_on(t, variables, f"show[{name!r}]")
        out.append((name, int(ex.evaluate(ex.as_expr(term), env))))
    return out


def _result(claim: str, out: Outcome, method: str, notes: list[str], seconds: float, cex: dict[str, int] | None, why: str) -> ProofResult:
    allnotes = list(notes)
    if out.status == "unknown" and out.note:
        allnotes.append(out.note)
    return ProofResult(out.status, cex, seconds, method, claim, why, tuple(dict.fromkeys(allnotes)))


def _domain_text(variables: tuple[ex.Var, ...], params: tuple[ex.Var, ...] = ()) -> str:
    return ", ".join(v.describe() for v in variables + params)


# ------------------------------------------------------------ the claims
def _forall_problem(variables: tuple[ex.Var, ...], pred: Any, where: Any) -> Forall:
    full = pred if where is None else ex.implies(where, pred)
    params = _params(full)
    low = ex.lower(full)
    _check_vars([low], variables, "the claim")
    return Forall(variables + params, low)


def _decide_forall(
    claim: str,
    variables: tuple[ex.Var, ...],
    pred: Any,
    where: Any,
    explain: Callable[[dict[str, int]], tuple[dict[str, int], str]],
    method: str,
    timeout: float | None,
    cross_check: bool | None,
) -> ProofResult:
    start = time.perf_counter()
    problem = _forall_problem(variables, pred, where)
    out, used, notes = run_problem(problem, method, timeout, cross_check)
    cex, why = (None, "")
    if out.status == "refuted" and out.witness is not None:
        cex, why = explain(out.witness)
    return _result(claim, out, used, notes, time.perf_counter() - start, cex, why)


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
    if domain is None and _is_layoutish(f) and _is_layoutish(g) and _size_of(f) != _size_of(g):
        raise ProofError(f"{names[0]} has size {_size_of(f)} but {names[1]} has size {_size_of(g)}: pass domain= to compare a sub-range")
    if domain is None and _is_layoutish(g) and not _is_layoutish(f):
        f, g, names = g, f, (names[1], names[0])
    F = make_fn(f, domain, names[0])
    G = make_fn(g, F.variables, names[1])
    if len(F.outputs) != len(G.outputs):
        raise ProofError(f"{names[0]} has {len(F.outputs)} outputs but {names[1]} has {len(G.outputs)}")
    variables = F.variables
    cond = _call_on(where, variables, "where")
    pred = ex.all_of(*[a == b for a, b in zip(F.terms, G.terms)])

    def explain(env: dict[str, int]) -> tuple[dict[str, int], str]:
        inputs = [(v.name, env[v.name]) for v in variables] + [(p.name, env[p.name]) for p in _params(pred)]
        fv, gv = _out_vals(F, F.terms, env), _out_vals(G, G.terms, env)
        extra = _shown(show, variables, env)
        cex = dict(inputs + fv + gv + extra)
        why = f"at {_fmt_vals(inputs)}: {_fmt_vals(fv)} but {_fmt_vals(gv)}"
        if extra:
            why += f" ({_fmt_vals(extra)})"
        return cex, why

    claim = f"{names[0]} == {names[1]} for all {_domain_text(variables, _params(pred))}"
    return _decide_forall(claim, variables, pred, cond, explain, method, timeout, cross_check)


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
    variables = _domain_vars(domain)
    if variables is None:
        if callable(predicate) and not isinstance(predicate, ex.Pred):
            raise ProofError("forall: a Python function needs domain=")
        found = ex.free_vars(predicate)
        variables = tuple(sorted((v for v in found.values() if v.kind == "var"), key=lambda v: v.name))
    pred = ex.as_pred(_call_on(predicate, variables, name))
    cond = _call_on(where, variables, "where")

    def explain(env: dict[str, int]) -> tuple[dict[str, int], str]:
        inputs = [(v.name, env[v.name]) for v in variables] + [(p.name, env[p.name]) for p in _params(pred)]
        extra = _shown(show, variables, env)
        cex = dict(inputs + extra)
        why = f"at {_fmt_vals(inputs)}: {name} is false" + (f" ({_fmt_vals(extra)})" if extra else "")
        return cex, why

    claim = f"{name} for all {_domain_text(variables, _params(pred))}"
    return _decide_forall(claim, variables, pred, cond, explain, method, timeout, cross_check)


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

    def explain(env: dict[str, int]) -> tuple[dict[str, int], str]:
        inputs = [(v.name, env[v.name]) for v in variables] + [(p.name, env[p.name]) for p in _params(pred)]
        fv = _out_vals(F, F.terms, env)
        bound = int(ex.evaluate(ex.as_expr(n), env))
        low = int(ex.evaluate(ex.as_expr(lo), env))
        extra = _shown(show, variables, env)
        return dict(inputs + fv + extra), f"at {_fmt_vals(inputs)}: {_fmt_vals(fv)} is outside [{low}, {bound})" + (
            f" ({_fmt_vals(extra)})" if extra else ""
        )

    claim = f"{lo} <= {name} < {n} for all {_domain_text(variables, _params(pred))}"
    return _decide_forall(claim, variables, pred, _call_on(where, variables, "where"), explain, method, timeout, cross_check)


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
            raise ProofError(f"aligned: {label} must be a positive int, got {v!r}")
    F = make_fn(f, domain, name)
    variables = F.variables
    pred = ex.all_of(*[(t * element_bytes) % nbytes == 0 for t in F.terms])

    def explain(env: dict[str, int]) -> tuple[dict[str, int], str]:
        inputs = [(v.name, env[v.name]) for v in variables] + [(p.name, env[p.name]) for p in _params(pred)]
        fv = _out_vals(F, F.terms, env)
        extra = _shown(show, variables, env)
        addr = [(f"{k}_bytes", v * element_bytes) for k, v in fv]
        return dict(inputs + fv + addr + extra), f"at {_fmt_vals(inputs)}: byte address {_fmt_vals(addr)} is not {nbytes}-byte aligned"

    claim = f"{name} * {element_bytes} B is {nbytes}-byte aligned for all {_domain_text(variables, _params(pred))}"
    return _decide_forall(claim, variables, pred, _call_on(where, variables, "where"), explain, method, timeout, cross_check)


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
        raise ProofError(f"contiguous: n must be a positive int, got {n!r}")
    F = make_fn(f, domain, name)
    variables = F.variables
    if along is None:
        if len(variables) != 1:
            raise ProofError(f"contiguous: say which variable the run is along (along=one of {[v.name for v in variables]})")
        along = variables[0].name
    target = next((v for v in variables if v.name == along), None)
    if target is None:
        raise ProofError(f"contiguous: along={along!r} is not a domain variable ({[v.name for v in variables]})")
    if target.lo != 0 or not target.is_plain() or target.hi % n:
        raise ProofError(f"contiguous: {target.describe()} must start at 0 and have an extent divisible by n={n}")
    run = ex.var(f"{along}_run", target.hi // n)
    elem = ex.var(f"{along}_elem", n)
    new_vars = tuple(v for v in variables if v.name != along) + (run, elem)
    at = ex.substitute(F.terms, {along: run * n + elem})
    start = ex.substitute(F.terms, {along: run * n})
    pred = ex.all_of(*[a == b + elem for a, b in zip(at, start)])

    def explain(env: dict[str, int]) -> tuple[dict[str, int], str]:
        inputs = [(v.name, env[v.name]) for v in new_vars] + [(p.name, env[p.name]) for p in _params(pred)]
        got = [int(x) for x in ex.evaluate(at, env)]
        base = [int(x) for x in ex.evaluate(start, env)]
        pos = env[run.name] * n + env[elem.name]
        extra = _shown(show, variables, {**env, along: pos})
        cex = dict(inputs + [(along, pos), (f"{name}", got[0]), (f"{name}_run_start", base[0])] + extra)
        return cex, (
            f"at {_fmt_vals(inputs)} ({along}={pos}): {name}={got[0]} but the run starts at {base[0]}, "
            f"so element {env[elem.name]} should be at {base[0] + env[elem.name]}"
        )

    claim = f"{name} is contiguous in runs of {n} along {along} for all {_domain_text(new_vars, _params(pred))}"
    return _decide_forall(claim, new_vars, pred, None, explain, method, timeout, cross_check)


def _rename(variables: tuple[ex.Var, ...]) -> tuple[tuple[ex.Var, ...], dict[str, ex.Expr]]:
    copies = tuple(ex.Var(v.name + SECOND, v.lo, v.hi, v.multiple_of, v.pow2, "var") for v in variables)
    return copies, {v.name: c for v, c in zip(variables, copies)}


def _decide_collision(claim: str, problem: Collision, explain: Callable[[dict[str, int]], tuple[dict[str, int], str]], method: str, timeout: float | None, cross_check: bool | None) -> ProofResult:
    start = time.perf_counter()
    out, used, notes = run_problem(problem, method, timeout, cross_check)
    cex, why = (None, "")
    if out.status == "refuted" and out.witness is not None:
        cex, why = explain(out.witness)
    return _result(claim, out, used, notes, time.perf_counter() - start, cex, why)


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
    params = _params(F.terms)
    problem = Collision(params, F.variables, copies, ex.lower(F.terms), ex.lower(ex.substitute(F.terms, mapping)), True)

    def explain(env: dict[str, int]) -> tuple[dict[str, int], str]:
        first, second = _witness_inputs(problem, env)
        fv = _out_vals(F, F.terms, env)
        cex = dict(first + second + fv)
        return cex, f"{_fmt_vals(first)} and {_fmt_vals(second)} both give {_fmt_vals(fv)}"

    claim = f"{name} is injective over {_domain_text(F.variables, params)}"
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
    F = make_fn(f, domain, names[0])
    G = make_fn(g, domain if domain_g is None else domain_g, names[1])
    if len(F.outputs) != len(G.outputs):
        raise ProofError(f"{names[0]} has {len(F.outputs)} outputs but {names[1]} has {len(G.outputs)}")
    copies, mapping = _rename(G.variables)
    gterms = ex.substitute(G.terms, mapping)
    params = _params(F.terms, gterms)
    problem = Collision(params, F.variables, copies, ex.lower(F.terms), ex.lower(gterms), False)

    def explain(env: dict[str, int]) -> tuple[dict[str, int], str]:
        first, second = _witness_inputs(problem, env)
        fv = _out_vals(F, F.terms, env)
        cex = dict(first + second + fv)
        return cex, f"{names[0]} at {_fmt_vals(first)} and {names[1]} at {_fmt_vals(second)} both give {_fmt_vals(fv)}"

    claim = f"{names[0]} and {names[1]} never overlap over {_domain_text(F.variables, params)}"
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
        raise ProofError(f"bijective_onto: n must be a positive int, got {n!r}")
    start = time.perf_counter()
    F = make_fn(f, domain, name)
    if len(F.outputs) != 1:
        raise ProofError(f"bijective_onto: {name} must have one output, it has {len(F.outputs)}")
    count = math.prod(v.count() for v in F.variables)
    claim = f"{name} is a bijection onto [0, {n}) from {_domain_text(F.variables, _params(F.terms))}"
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

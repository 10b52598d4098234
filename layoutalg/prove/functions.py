"""What a claim's *function* and *domain* arguments may be, and how they become terms (:class:`Fn`, :func:`make_fn`).

The accepted forms are listed in :mod:`layoutalg.prove.claims`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError, ProofError
from layoutalg.prove import expr as ex


@dataclass(frozen=True)
class Fn:
    """A function given as named output terms over ordered domain variables."""

    name: str
    outputs: tuple[tuple[str, Any], ...]
    variables: tuple[ex.Var, ...]

    @property
    def terms(self) -> tuple[Any, ...]:
        return tuple(t for _, t in self.outputs)


def domain_vars(domain: Any) -> tuple[ex.Var, ...] | None:
    if domain is None:
        return None
    if isinstance(domain, ex.Var):
        return (domain,)
    if isinstance(domain, bool):
        raise ProofError(f"domain must be an int, a dict or a list of variables, got {describe(domain)}")
    if isinstance(domain, int):
        return (ex.var("index", domain),)
    if isinstance(domain, dict):
        out = []
        for name, spec in domain.items():
            if isinstance(spec, ex.Var):
                if spec.name != name:
                    raise ProofError(f"domain key {describe(name)} names the variable {describe(spec.name)}")
                out.append(spec)
            elif isinstance(spec, tuple) and len(spec) == 2:
                out.append(ex.var(name, lo=spec[0], hi=spec[1]))
            else:
                out.append(ex.var(name, spec))
        return tuple(out)
    if isinstance(domain, (list, tuple)) and all(isinstance(v, ex.Var) for v in domain):
        return tuple(domain)
    raise ProofError(f"domain must be an int, a dict or a list of variables, got {describe(domain)}")


def is_layoutish(f: Any) -> bool:
    if isinstance(f, ex.Sym):
        return True
    try:
        ex.kind_of(f)
    except ProofError:
        return False
    return True


def size_of(f: Any) -> int:
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
    variables = domain_vars(domain)
    if is_layoutish(f):
        s = ex.sym(f)
        if variables is None:
            variables = (ex.var("index", size_of(f)),)
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
        raise ProofError(f"{name} must be a Layout, a ComposedLayout, a term or a function of the domain, got {describe(f)}")
    outputs = _outputs(value, name)
    check_vars([t for _, t in outputs], variables, name)
    return Fn(name, outputs, variables)


def check_vars(terms: list[Any], variables: tuple[ex.Var, ...], what: str) -> None:
    """Every ``var`` in ``terms`` is one of ``variables`` (by key), and no two domain variables are one."""
    keys = {v.key: v for v in variables}
    if len(keys) != len(variables):
        raise ProofError(f"{what}: two domain variables share a name")
    for v in ex.free_vars(*terms, variables).values():
        if v.kind == "var":
            if v.key not in keys:
                raise ProofError(
                    f"{what} uses the variable {v.describe()} that is not in its domain {[d.name for d in variables]}"
                )
            if not keys[v.key].same_as(v):
                raise ProofError(f"{what}: variable {describe(v.name)} differs from the domain's {keys[v.key].describe()}")


def params_in(*roots: Any) -> tuple[ex.Var, ...]:
    found = ex.free_vars(*roots)
    return tuple(sorted((v for v in found.values() if v.kind == "param"), key=lambda v: v.name))


def call_on(g: Any, variables: tuple[ex.Var, ...], what: str) -> Any:
    if g is None:
        return None
    if isinstance(g, bool):
        return ex.BoolConst(g)
    if isinstance(g, (ex.Expr, ex.Pred)):
        return g
    if callable(g):
        return _call_user(g, variables, what)
    raise ProofError(f"{what} must be a term, a predicate or a function of the domain, got {describe(g)}")


def _call_user(g: Callable[..., Any], variables: tuple[ex.Var, ...], what: str) -> Any:
    """Call a user's function on the symbolic domain; its own errors become a ProofError naming it."""
    try:
        return g(*variables)
    except LayoutError:
        raise
    except Exception as exc:
        raise ProofError(f"{what}: calling it on the symbolic domain {list(variables)} failed: {type(exc).__name__}: {exc}") from exc

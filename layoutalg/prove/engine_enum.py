"""Exhaustive enumeration: evaluate the claim at every point of the domain.

Sound and complete for a finite domain by definition: "proved" means every
point was evaluated and satisfied the claim.  The terms are evaluated once on
broadcast numpy arrays (one axis per variable), in int64 when interval
analysis shows every intermediate value fits in 62 bits, else in Python
integers (object arrays), so no overflow can change a value.  A domain with
more than ``limit`` points raises :class:`NotApplicableError`.
"""

from __future__ import annotations

import math
from typing import Any

from layoutalg.prove import expr as ex
from layoutalg.prove.problem import Collision, Forall, NotApplicableError, Outcome, Problem

DEFAULT_LIMIT = 1 << 22


def _needs_objects(roots: list[Any]) -> bool:
    intervals: dict[int, ex.Interval] = {}
    limit = 1 << 62
    for node in ex.subterms(roots):
        lo, hi = ex.interval(node, intervals)
        if lo < -limit or hi > limit:
            return True
    return False


def _grid(variables: tuple[ex.Var, ...], objects: bool) -> tuple[dict[str, Any], tuple[int, ...]]:
    import numpy as np

    env: dict[str, Any] = {}
    shape = tuple(v.count() for v in variables)
    for axis, v in enumerate(variables):
        values = list(v.values_iter())
        arr = np.array(values, dtype=object if objects else np.int64)
        env[v.name] = arr.reshape([len(values) if k == axis else 1 for k in range(len(variables))])
    return env, shape


def _point(variables: tuple[ex.Var, ...], env: dict[str, Any], flat_index: int, shape: tuple[int, ...]) -> dict[str, int]:
    import numpy as np

    idx = np.unravel_index(flat_index, shape) if shape else ()
    return {v.name: int(env[v.name].reshape(-1)[idx[axis]]) for axis, v in enumerate(variables)}


def _check_size(problem: Problem, limit: int) -> None:
    skip = {y.name for y in problem.ys} if isinstance(problem, Collision) else set()
    size = math.prod(v.count() for v in problem.all_vars if v.name not in skip)
    if size > limit:
        raise NotApplicableError(f"domain has {size} points, more than the enumeration limit {limit}")


def decide(problem: Problem, timeout: float | None = None, limit: int = DEFAULT_LIMIT) -> Outcome:
    """Evaluate ``problem`` everywhere (``timeout`` is unused: the size limit bounds the work)."""
    if isinstance(problem, Forall):
        return _forall(problem, limit)
    return _collision(problem, limit)


def _forall(problem: Forall, limit: int) -> Outcome:
    import numpy as np

    _check_size(problem, limit)
    variables = problem.variables
    env, shape = _grid(variables, _needs_objects([problem.pred]))
    value = ex.evaluate(problem.pred, env)
    full = np.broadcast_to(np.asarray(value, dtype=bool), shape)
    if bool(full.all()):
        return Outcome("proved", note=f"all {full.size} points")
    flat = int(np.argmin(full.reshape(-1)))
    return Outcome("refuted", _point(variables, env, flat, shape))


def _keys(terms: tuple[Any, ...], env: dict[str, Any], shape: tuple[int, ...], lead: int) -> Any:
    """Values of ``terms`` as an array of shape ``(P, X, len(terms))`` (P = params points)."""
    import numpy as np

    vals = ex.evaluate(terms, env)
    cols = [np.broadcast_to(np.asarray(v), shape).reshape(lead, -1) for v in vals]
    return np.stack(cols, axis=-1)


def _collision(problem: Collision, limit: int) -> Outcome:
    import numpy as np

    _check_size(problem, limit)
    if len(problem.f) != len(problem.g):
        raise NotApplicableError("the two functions have different numbers of outputs")
    objects = _needs_objects(list(problem.f) + list(problem.g))
    p_count = math.prod(v.count() for v in problem.params)
    fvars = problem.params + problem.xs
    gvars = problem.params + problem.ys
    fenv, fshape = _grid(fvars, objects)
    fk = _keys(problem.f, fenv, fshape, p_count)
    if problem.distinct:
        gk = fk
    else:
        genv, gshape = _grid(gvars, objects)
        gk = _keys(problem.g, genv, gshape, p_count)
    nx = fk.shape[1]
    for p in range(p_count):
        if objects:
            found = _match_python(fk[p], None if problem.distinct else gk[p])
            if found is None:
                continue
            i, j = found
        elif problem.distinct:
            _, first, inverse, counts = np.unique(fk[p], axis=0, return_index=True, return_inverse=True, return_counts=True)
            dup = np.nonzero(counts > 1)[0]
            if dup.size == 0:
                continue
            group = int(dup[0])
            members = np.nonzero(inverse.reshape(-1) == group)[0]
            i, j = int(members[0]), int(members[1])
        else:
            both = np.concatenate([fk[p], gk[p]], axis=0)
            _, inverse = np.unique(both, axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
            common = np.intersect1d(inverse[:nx], inverse[nx:])
            if common.size == 0:
                continue
            group = int(common[0])
            i = int(np.nonzero(inverse[:nx] == group)[0][0])
            j = int(np.nonzero(inverse[nx:] == group)[0][0])
        env = _point(fvars, fenv, p * nx + i, fshape)
        if problem.distinct:
            same = _point(fvars, fenv, p * nx + j, fshape)
            gpoint = {y.name: same[x.name] for x, y in zip(problem.xs, problem.ys)}
        else:
            gpoint = _point(gvars, genv, p * gk.shape[1] + j, gshape)
        env.update({y.name: gpoint[y.name] for y in problem.ys})
        return Outcome("refuted", env)
    return Outcome("proved", note=f"all {p_count * nx} points")


def _match_python(fx: Any, gy: Any) -> tuple[int, int] | None:
    """First colliding pair with Python-int keys (object arrays): two equal rows of ``fx``, or a row of each."""
    seen: dict[tuple[int, ...], int] = {}
    for i, row in enumerate(fx):
        key = tuple(int(v) for v in row)
        if gy is None and key in seen:
            return seen[key], i
        seen.setdefault(key, i)
    if gy is None:
        return None
    for j, row in enumerate(gy):
        key = tuple(int(v) for v in row)
        if key in seen:
            return seen[key], j
    return None


__all__ = ["decide", "DEFAULT_LIMIT"]

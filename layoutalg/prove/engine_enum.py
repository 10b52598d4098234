"""Exhaustive enumeration: evaluate the claim at every point of the domain.

Sound and complete for a finite domain by definition: "proved" means every
point was evaluated and satisfied the claim.  Points are visited in blocks
(row-major over the variables in order); each block's terms are evaluated on
numpy arrays, in int64 only when interval analysis shows that every variable,
constant and intermediate value lies within ``±2**62`` (so no int64 operation
can overflow, and numpy's int64 operators agree with Python's), else on object
arrays of Python integers (any width).  A domain with more than ``limit`` points
raises :class:`NotApplicableError`; the deadline (:mod:`layoutalg.prove.budget`)
is checked between blocks, and passing it gives "unknown", never "proved".
"""

from __future__ import annotations

import math
from typing import Any, Iterator

from layoutalg.errors import ProofError
from layoutalg.prove import budget
from layoutalg.prove import expr as ex
from layoutalg.prove.problem import Collision, Forall, NotApplicableError, Outcome, Problem, points

DEFAULT_LIMIT = 1 << 22
INT64_SAFE = 1 << 62
BLOCK = 1 << 16  # points per block in int64
OBJECT_BLOCK = 1 << 14  # points per block with Python integers (slower per point)


def needs_objects(roots: list[Any], variables: tuple[ex.Var, ...]) -> bool:
    """True unless every variable bound and every sub-term's interval lies within ``±2**62``."""
    for v in variables:
        if v.lo < -INT64_SAFE or v.hi > INT64_SAFE or v.multiple_of > INT64_SAFE:
            return True
    intervals: dict[int, ex.Interval] = {}
    try:
        for node in ex.subterms(roots):
            lo, hi = ex.interval(node, intervals)
            if lo < -INT64_SAFE or hi > INT64_SAFE:
                return True
    except ProofError:
        return True  # no bound (a divisor that may be zero): evaluation decides, exactly, on Python ints
    return False


class _Grid:
    """The domain of ``variables`` as row-major blocks of points (one numpy array per variable and block).

    A variable's values are computed per block from their index (``first + index * multiple_of``; a
    power-of-two variable's few values are listed), so no block costs more than its own points.
    """

    def __init__(self, variables: tuple[ex.Var, ...], objects: bool) -> None:
        import numpy as np

        self.variables = variables
        self.objects = objects
        self.dtype = object if objects else np.int64
        self.listed = {v.key: np.array(list(v.values_iter()), dtype=self.dtype) for v in variables if v.pow2}
        self.shape = tuple(v.count() for v in variables)
        self.size = math.prod(self.shape)

    def _values(self, v: ex.Var, index: Any) -> Any:
        if v.key in self.listed:
            return self.listed[v.key][index]
        first = v.lo + (-v.lo) % v.multiple_of
        return index.astype(self.dtype) * v.multiple_of + first

    def block(self, start: int, stop: int) -> dict[ex.VarKey, Any]:
        import numpy as np

        flat = np.arange(start, stop, dtype=np.int64)
        idx = np.unravel_index(flat, self.shape) if self.shape else ()
        return {v.key: self._values(v, i) for v, i in zip(self.variables, idx)}

    def blocks(self, deadline: budget.Deadline, what: str) -> Iterator[tuple[int, int, dict[ex.VarKey, Any]]]:
        step = OBJECT_BLOCK if self.objects else BLOCK
        for start in range(0, self.size, step):
            deadline.check(f"{what}: {start} of {self.size} points evaluated")
            stop = min(self.size, start + step)
            yield start, stop, self.block(start, stop)

    def point(self, flat: int) -> dict[ex.VarKey, int]:
        env = self.block(flat, flat + 1)
        return {k: int(v[0]) for k, v in env.items()}


def _column(value: Any, n: int, objects: bool) -> Any:
    import numpy as np

    arr = np.asarray(value, dtype=object if objects else np.int64)
    return np.broadcast_to(arr, (n,))


def decide(problem: Problem, deadline: budget.Deadline | None = None, limit: int = DEFAULT_LIMIT) -> Outcome:
    """Evaluate ``problem`` everywhere, or answer "unknown" when ``deadline`` passes first."""
    deadline = budget.current() if deadline is None else deadline
    size = points(problem)
    if size > limit:
        raise NotApplicableError(f"domain has {size} points, more than the enumeration limit {limit}")
    try:
        if isinstance(problem, Forall):
            return _forall(problem, deadline)
        return _collision(problem, deadline)
    except budget.DeadlineExceededError as exc:
        return Outcome("unknown", note=f"enumeration {exc}")


def _forall(problem: Forall, deadline: budget.Deadline) -> Outcome:
    import numpy as np

    grid = _Grid(problem.variables, needs_objects([problem.pred], problem.variables))
    for start, stop, env in grid.blocks(deadline, "enumeration"):
        ok = np.broadcast_to(np.asarray(ex.evaluate(problem.pred, env), dtype=bool), (stop - start,))
        if not ok.all():
            return Outcome("refuted", grid.point(start + int(np.argmin(ok))))
    return Outcome("proved", note=f"all {grid.size} points")


def _table(terms: tuple[Any, ...], grid: _Grid, deadline: budget.Deadline, what: str) -> Any:
    """``(grid.size, len(terms))`` values of ``terms`` at every point, block by block."""
    import numpy as np

    parts = []
    for start, stop, env in grid.blocks(deadline, what):
        vals = ex.evaluate(terms, env)
        parts.append(np.stack([_column(v, stop - start, grid.objects) for v in vals], axis=-1))
    if not parts:
        return np.zeros((0, len(terms)), dtype=object if grid.objects else np.int64)
    return np.concatenate(parts, axis=0)


def _collision(problem: Collision, deadline: budget.Deadline) -> Outcome:
    """Rows ``(param point, f values)`` and ``(param point, g values)``; a collision is two equal rows."""
    import numpy as np

    if len(problem.f) != len(problem.g):
        raise NotApplicableError("the two functions have different numbers of outputs")
    objects = needs_objects(list(problem.f) + list(problem.g), problem.all_vars)
    fgrid = _Grid(problem.params + problem.xs, objects)
    nx = math.prod(v.count() for v in problem.xs)
    fkeys = _table(problem.f, fgrid, deadline, "enumeration of the first function")
    fp = np.arange(fgrid.size, dtype=np.int64) // max(nx, 1)
    if problem.distinct:
        pair = _equal_rows(fp, fkeys, None, None, deadline)
        if pair is None:
            return Outcome("proved", note=f"all {fgrid.size} points")
        i, j = pair
        env = fgrid.point(i)
        second = fgrid.point(j)
        env.update({y.key: second[x.key] for x, y in zip(problem.xs, problem.ys)})
        return Outcome("refuted", env)
    ggrid = _Grid(problem.params + problem.ys, objects)
    ny = math.prod(v.count() for v in problem.ys)
    gkeys = _table(problem.g, ggrid, deadline, "enumeration of the second function")
    gp = np.arange(ggrid.size, dtype=np.int64) // max(ny, 1)
    pair = _equal_rows(fp, fkeys, gp, gkeys, deadline)
    if pair is None:
        return Outcome("proved", note=f"all {fgrid.size + ggrid.size} points")
    i, j = pair
    env = fgrid.point(i)
    gpoint = ggrid.point(j)
    env.update({y.key: gpoint[y.key] for y in problem.ys})
    return Outcome("refuted", env)


def _equal_rows(fp: Any, fk: Any, gp: Any, gk: Any, deadline: budget.Deadline) -> tuple[int, int] | None:
    """Indices of two rows with the same parameter point and values: two of ``f`` (``gk`` None), or one of each."""
    import numpy as np

    if fk.dtype == object:
        return _equal_rows_python(fp, fk, gp, gk, deadline)
    if gk is None:
        rows = np.column_stack([fp, fk])
        side = np.zeros(len(rows), dtype=np.int64)
    else:
        rows = np.concatenate([np.column_stack([fp, fk]), np.column_stack([gp, gk])], axis=0)
        side = np.concatenate([np.zeros(len(fp), dtype=np.int64), np.ones(len(gp), dtype=np.int64)])
    deadline.check("enumeration: sorting the values")
    order = np.lexsort((side, *rows.T[::-1]))  # by (param point, values), f rows before g rows
    srt, sside = rows[order], side[order]
    same = (srt[1:] == srt[:-1]).all(axis=1)
    if gk is not None:
        same &= (sside[:-1] == 0) & (sside[1:] == 1)
    hits = np.nonzero(same)[0]
    if hits.size == 0:
        return None
    k = int(hits[0])
    first, second = int(order[k]), int(order[k + 1])
    return (first, second) if gk is None else (first, second - len(fp))


def _equal_rows_python(fp: Any, fk: Any, gp: Any, gk: Any, deadline: budget.Deadline) -> tuple[int, int] | None:
    """:func:`_equal_rows` with Python-int keys (values too wide for int64)."""
    seen: dict[tuple[int, ...], int] = {}
    for i in range(len(fk)):
        if i % OBJECT_BLOCK == 0:
            deadline.check(f"enumeration: {i} of {len(fk)} values compared")
        key = (int(fp[i]), *(int(v) for v in fk[i]))
        if gk is None and key in seen:
            return seen[key], i
        seen.setdefault(key, i)
    if gk is None:
        return None
    for j in range(len(gk)):
        if j % OBJECT_BLOCK == 0:
            deadline.check(f"enumeration: {j} of {len(gk)} values compared")
        key = (int(gp[j]), *(int(v) for v in gk[j]))
        if key in seen:
            return seen[key], j
    return None


__all__ = ["decide", "DEFAULT_LIMIT", "needs_objects"]

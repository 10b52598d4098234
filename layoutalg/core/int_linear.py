"""Exact linear algebra over the integers, for the algebra's existence searches.

Two small tools, both on Python ints (no overflow, no rounding):

* :class:`RowSpace` grows a set of equations ``row . x = rhs`` one at a time,
  keeps a fraction-free echelon form to tell whether a new equation is
  rationally independent of the ones before, and keeps the *original*
  independent equations.  Every dependent equation is a rational combination
  of those (right-hand side included, since the system is consistent), so an
  integer solution of the kept equations solves them all.
* :func:`solve_integer` decides ``M x = b`` over the integers by column-style
  Hermite elimination: unimodular column operations ``H = M U`` make ``H``
  lower column-echelon, forward substitution solves ``H y = b`` (each pivot
  must divide exactly), and ``x = U y``.  Unimodular ``U`` maps integer ``y``
  to integer ``x`` and back, so "no integer y" means "no integer x".
"""

from __future__ import annotations

import math
from typing import Sequence


def _xgcd(a: int, b: int) -> tuple[int, int, int]:
    """``(g, s, t)`` with ``g = s*a + t*b = gcd(a, b) >= 0``."""
    s0, s1, t0, t1 = 1, 0, 0, 1
    while b:
        q, r = divmod(a, b)
        a, b = b, r
        s0, s1 = s1, s0 - q * s1
        t0, t1 = t1, t0 - q * t1
    if a < 0:
        return -a, -s0, -t0
    return a, s0, t0


class RowSpace:
    """Equations over ``ncols`` unknowns, added one by one; see the module docstring.

    Once the equations fix every unknown they mention (full rank on the
    ``active`` leading columns), the rational solution is kept as integer
    numerators over one denominator, and a new equation is checked by one
    dot product instead of an elimination.
    """

    __slots__ = ("ncols", "echelon", "kept", "_solution")

    def __init__(self, ncols: int) -> None:
        self.ncols = ncols
        self.echelon: list[tuple[int, list[int]]] = []  # (pivot column, reduced row + rhs)
        self.kept: list[list[int]] = []  # the original independent rows (+ rhs)
        self._solution: tuple[int, list[int], int] | None = None  # (active, numerators, denominator)

    def copy(self) -> RowSpace:
        other = RowSpace(self.ncols)
        other.echelon = list(self.echelon)
        other.kept = list(self.kept)
        other._solution = self._solution
        return other

    def add(self, row: Sequence[int], rhs: int, active: int | None = None) -> bool:
        """Add ``row . x = rhs``; False when it contradicts the equations so far (no rational solution).

        ``active``: the row is zero past its first ``active`` columns, as every row so far.
        """
        active = self.ncols if active is None else active
        solution = self._solution
        if solution is None and len(self.echelon) == active:
            solution = self._solution = (active, *self._rational_solution())
        if solution is not None and solution[0] == active:
            _, numerators, denominator = solution
            return sum(r * n for r, n in zip(row, numerators)) == rhs * denominator
        v = list(row) + [rhs]
        for pivot, e in self.echelon:
            c = v[pivot]
            if c:
                p = e[pivot]
                v = [p * x - c * y for x, y in zip(v, e)]
                g = math.gcd(*v)
                if g > 1:
                    v = [x // g for x in v]
        new_pivot = next((k for k in range(self.ncols) if v[k]), None)
        if new_pivot is None:
            return v[-1] == 0
        self.echelon.append((new_pivot, v))
        self.kept.append(list(row) + [rhs])
        self._solution = None
        return True

    def implied_rhs(self, row: Sequence[int]) -> tuple[int, int] | None:
        """``(numerator, denominator)`` (denominator > 0) of the one right-hand side ``t`` for which ``row . x = t``
        is consistent with the equations so far, where ``row`` is in their row space (so it adds nothing else);
        None where ``row`` is independent of them (every ``t`` is then consistent).

        The row is reduced by the echelon with its right-hand side carried as ``a*t + b`` (each step multiplies
        the equation by the pivot and subtracts a multiple of an echelon row, so the form stays linear in
        ``t``); a row reduced to zero leaves ``0 = a*t + b``."""
        solution = self._solution
        if solution is not None and solution[0] == self.ncols:
            _, numerators, denominator = solution
            return sum(r * n for r, n in zip(row, numerators)), denominator
        v = list(row)
        a, b = 1, 0
        for pivot, e in self.echelon:
            c = v[pivot]
            if c:
                p = e[pivot]
                v = [p * x - c * y for x, y in zip(v, e)]
                a, b = p * a, p * b - c * e[-1]
                g = math.gcd(a, b, *v)
                if g > 1:
                    v = [x // g for x in v]
                    a, b = a // g, b // g
        if any(v):
            return None
        return (-b, a) if a > 0 else (b, -a)

    def fixes_a_fraction(self, active: int) -> bool:
        """True when the equations (zero past their first ``active`` columns) fix those unknowns uniquely and
        one of them is not an integer: then no integer solution exists, however many equations follow."""
        if len(self.echelon) != active:
            return False
        if self._solution is None or self._solution[0] != active:
            self._solution = (active, *self._rational_solution())
        _, numerators, denominator = self._solution
        return denominator != 1 and any(n % denominator for n in numerators)

    def _rational_solution(self) -> tuple[list[int], int]:
        """The solution with every non-pivot unknown 0 (unique on the pivot columns once they are), as numerators
        over a common denominator."""
        numerators = [0] * self.ncols
        denominator = 1
        for pivot, e in reversed(self.echelon):  # each row is zero at the pivots of the rows before it
            # e[p] x_p + sum_c e[c] n_c / den = rhs  =>  x_p = (rhs*den - sum) / (den * e[p])
            known = sum(e[c] * n for c, n in enumerate(numerators) if n)
            scale = e[pivot]
            numerators = [n * scale for n in numerators]
            numerators[pivot] = e[-1] * denominator - known
            denominator *= scale
            g = math.gcd(denominator, *numerators)
            if denominator < 0:
                g = -g
            if g != 1:
                numerators = [n // g for n in numerators]
                denominator //= g
        return numerators, denominator

    def integer_solution(self) -> list[int] | None:
        """An integer solution of every equation added so far, or None when none exists.

        Where the equations fix the unknowns they mention (a kept rational solution: every equation zero past
        its ``active`` columns, the echelon of full rank there), it answers if integral, else nothing does; the
        other unknowns are 0.  Else the solution with every non-pivot unknown 0 (an equation's pivot: its first
        unknown left once the earlier pivots are eliminated) answers where integral, else Hermite elimination."""
        solution = self._solution
        if solution is not None:
            _, numerators, denominator = solution
            if any(n % denominator for n in numerators):
                return None
            return [n // denominator for n in numerators]
        # The solution with every free unknown 0 (back substitution on the echelon, whose row space is the kept
        # equations'): when it is integral it answers; otherwise another choice of the free unknowns may still
        # give an integer solution, and the Hermite elimination decides.
        numerators, denominator = self._rational_solution()
        if denominator == 1:
            return numerators
        # Columns past the last one any equation uses are free (0): the elimination runs on the used ones only.
        used = max((max((k for k, c in enumerate(r[:-1]) if c), default=-1) for r in self.kept), default=-1) + 1
        found = solve_integer([r[:used] for r in self.kept], [r[-1] for r in self.kept], used)
        return None if found is None else found + [0] * (self.ncols - used)


def solve_integer(rows: Sequence[Sequence[int]], rhs: Sequence[int], ncols: int) -> list[int] | None:
    """An integer ``x`` with ``rows . x == rhs`` (free unknowns 0), or None when none exists."""
    h = [list(r) for r in rows]
    u = [[int(i == j) for j in range(ncols)] for i in range(ncols)]  # columns of U
    pivots: list[int | None] = []
    col = 0
    for i, r in enumerate(h):
        if col >= ncols or not any(r[col:]):
            pivots.append(None)
            continue
        for j in range(col + 1, ncols):
            if r[j] == 0:
                continue
            a, b = r[col], r[j]
            g, s, t = _xgcd(a, b)
            ag, bg = a // g, b // g
            # new col := s*col + t*j ; new j := -bg*col + ag*j  (determinant 1)
            for m in h[i:]:
                m[col], m[j] = s * m[col] + t * m[j], -bg * m[col] + ag * m[j]
            uc, uj = u[col], u[j]
            u[col] = [s * x + t * y for x, y in zip(uc, uj)]
            u[j] = [-bg * x + ag * y for x, y in zip(uc, uj)]
        if r[col] < 0:
            for m in h[i:]:
                m[col] = -m[col]
            u[col] = [-x for x in u[col]]
        pivots.append(col)
        col += 1
    y = [0] * ncols
    for i, r in enumerate(h):
        p = pivots[i]
        known = sum(r[k] * y[k] for k in range(col if p is None else p))
        if p is None:
            if known != rhs[i]:
                return None
            continue
        q, rem = divmod(rhs[i] - known, r[p])
        if rem:
            return None
        y[p] = q
    return [sum(u[k][n] * y[k] for k in range(ncols)) for n in range(ncols)]

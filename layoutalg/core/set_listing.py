"""A flat layout whose values are a given set, each once, in any order: what ``nullspace`` returns where the
zero set is not listed in increasing order by any layout.

Problem: given a finite set ``Z`` of non-negative ints holding 0, find ``(f1, ..., fk):(d1, ..., dk)`` whose
values ``{ c1*d1 + ... + ck*dk }`` (sums: int strides) or ``{ c1*d1 ^ ... ^ ck*dk }`` (XOR of carry-less
products: F2 strides) are exactly ``Z``, with ``f1*...*fk == |Z|`` (so each value once), or show none exists.
``(3,2):(2,3)`` lists ``{0, 2, 3, 4, 5, 7}``, which no layout lists in increasing order; ``5:F38`` lists
``{0, 38, 76, 106, 152}``.

The search is complete:

* The order of the modes does not change the set, so the first mode may be any of them.  With sums, every
  stride is a value (its unit coordinate) and the values are non-negative, so the smallest non-zero value
  ``u`` is some mode's stride (a sum of non-negative terms equal to ``u`` has one term, itself a value
  ``>= u``): the first mode's stride is ``u``.  With XOR no such order holds; every non-zero value is tried.
* A first mode ``f:d`` lists ``M = {c*d : c < f}`` (it must lie in ``Z``, distinct); the rest lists a set
  ``R`` holding 0 with ``Z = M + R``, every sum distinct: ``R``'s translates of ``M`` tile ``Z``.  With sums
  the tiling is forced: the smallest element not yet covered starts a tile (it is covered by no earlier
  start, and a start is covered by its own tile at ``0*d``).  With XOR the tile covering the smallest
  uncovered element ``x`` starts at ``x ^ m`` for some ``m`` in ``M``: each is tried.
* ``R`` is then listed the same way (remembered per set).

:data:`WORK_LIMIT` bounds the work (a candidate stride costs the values it reaches, a tile placement its
extent plus an eighth of the elements still uncovered, which ``min`` scans at C speed: about 0.2 s at the
bound); past it :class:`ListingExhaustedError` is raised (callers say "undecided"), never a wrong answer:
every answer is rebuilt from its pairs and compared with ``Z``.  With sums the search is nearly linear and
decides any set it is given; with XOR a random set of a thousand values is decided (none exists), one of
several thousand may not be.
"""

from __future__ import annotations

from typing import Any, Iterator

from layoutalg.core.stride_scalars import clmul
from layoutalg.errors import CompositionError

Pairs = list[tuple[int, int]]

#: The most work one search does before giving up: elements touched by candidate modes and tile placements.
WORK_LIMIT = 500_000


class ListingExhaustedError(Exception):
    """The search met :data:`NODE_LIMIT` before deciding (the caller turns it into a LayoutError)."""


def list_set(values: set[int] | frozenset[int], xor: bool) -> Pairs | None:
    """Flat pairs ``(extent, stride)`` of a layout whose values are exactly ``values`` (non-negative ints holding
    0), each once: int strides summed (``xor`` False) or F2 strides, carry-less products XOR-ed (``xor``
    True); None when no such layout exists.  Raises :class:`ListingExhaustedError` past :data:`WORK_LIMIT`."""
    target = frozenset(values)
    if 0 not in target or any(v < 0 for v in target):
        return None
    budget = [WORK_LIMIT]
    memo: dict[frozenset[int], Pairs | None] = {}
    found = _list(target, xor, budget, memo)
    if found is not None and _values_of(found, xor) != sorted(target):  # pragma: no cover - a defect guard
        raise CompositionError(f"internal: set listing {found} does not list {sorted(target)[:8]}")
    return found


def layout_listing(values: list[int], what: str) -> Any:
    """A layout listing the set ``values`` (:func:`list_set`): int strides where some such layout exists, else F2
    strides (its values, read as ints, are the set); CompositionError naming ``what`` where neither exists, or,
    saying "undecided", where the search passes its bound."""
    from layoutalg.core.flat import from_pairs
    from layoutalg.core.stride_layout import StrideLayout
    from layoutalg.core.stride_scalars import F2

    try:
        pairs = list_set(set(values), xor=False)
        if pairs is not None:
            return from_pairs(pairs or [(1, 0)])
        pairs = list_set(set(values), xor=True)
    except ListingExhaustedError:
        raise CompositionError(
            f"{what}: undecided; the search for a layout listing {_head(values)} passed its bound of "
            f"{WORK_LIMIT} units of work") from None
    if pairs is None:
        raise CompositionError(f"{what}: {_head(values)} are not the values of any layout (in any order, int or "
                               "F2 strides)")
    if len(pairs) == 1:
        return StrideLayout(pairs[0][0], F2(pairs[0][1]))
    return StrideLayout(tuple(f for f, _ in pairs), tuple(F2(d) for _, d in pairs))


def _head(values: list[int]) -> str:
    ordered = sorted(values)
    return "the indices " + ", ".join(map(str, ordered[:8])) + (", ..." if len(ordered) > 8 else "")


def _list(z: frozenset[int], xor: bool, budget: list[int], memo: dict[frozenset[int], Pairs | None]) -> Pairs | None:
    if len(z) == 1:
        return []
    if z in memo:
        return memo[z]
    n = len(z)
    nonzero = sorted(z - {0})
    found: Pairs | None = None
    for d in nonzero if xor else nonzero[:1]:
        # c*d for c = 0, 1, ... while in z (distinct: d != 0, and a carry-less product by d is injective too);
        # a mode f:d needs f <= len(prefix)
        prefix: list[int] = []
        while len(prefix) < n:
            v = clmul(len(prefix), d) if xor else len(prefix) * d
            if v not in z:
                break
            prefix.append(v)
        budget[0] -= len(prefix) + 1
        if budget[0] < 0:
            raise ListingExhaustedError
        for f in range(2, len(prefix) + 1):
            if n % f:
                continue
            for rest in _tilings(z, prefix[:f], xor, budget):
                sub = _list(rest, xor, budget, memo)
                if sub is not None:
                    found = [(f, d)] + sub
                    break
            if found is not None:
                break
        if found is not None:
            break
    memo[z] = found
    return found


def _tilings(z: frozenset[int], mode: list[int], xor: bool, budget: list[int]) -> Iterator[frozenset[int]]:
    """Every set ``R`` of tile starts (0 first) whose tiles ``{r (+ or ^) m : m in mode}`` cover ``z`` exactly."""
    tile0 = frozenset(mode)
    uncovered = set(z - tile0)

    def place(uncovered: set[int], starts: list[int]) -> Iterator[frozenset[int]]:
        budget[0] -= len(uncovered) // 8 + len(mode) + 1  # min() over a set is ~8x cheaper than a Python step
        if budget[0] < 0:
            raise ListingExhaustedError
        if not uncovered:
            yield frozenset(starts)
            return
        x = min(uncovered)
        for start in ([x ^ m for m in mode] if xor else [x]):
            tile = {start ^ m for m in mode} if xor else {start + m for m in mode}
            if tile <= uncovered:
                yield from place(uncovered - tile, starts + [start])

    yield from place(uncovered, [0])


def _values_of(pairs: Pairs, xor: bool) -> list[int]:
    values = [0]
    for f, d in pairs:
        values = [(v ^ clmul(c, d)) if xor else v + c * d for c in range(f) for v in values]
    return sorted(values)


__all__ = ["list_set", "layout_listing", "ListingExhaustedError", "WORK_LIMIT"]

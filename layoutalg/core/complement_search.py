"""The complete existence test for ``complement(A, M)`` where CuTe's construction fails.

Definition (the one :func:`layoutalg.complement` implements): ``R`` is a
complement of ``A`` for cotarget ``M`` when ``R`` is ordered
(``R(i) < R(i+1)``), ``(A, R)`` is injective, and its image covers ``[0, M)``.
``A``'s offsets here are non-negative and distinct (the caller has checked).

**R's offsets below M are forced.**  Let ``u`` be the smallest offset in
``[0, M)`` not covered by ``r + A`` for the offsets ``r`` of ``R`` found so
far.  Some ``r' + a`` with ``a >= 0`` covers ``u``, so ``r' <= u``; an ``r'``
already found would have covered ``u``, and an ``r' < u`` not yet found is
itself covered by an earlier ``r + a`` (``a > 0``), so ``r' + 0`` would
collide.  Hence ``r' == u``: the greedy "next uncovered offset" sequence
``G`` is ``R``'s offsets below ``M`` in order, for *every* complement ``R``.

**R's shortest prefix is forced too.**  Cut a complement ``R`` after the mode
that holds index ``len(G) - 1`` (``(s1..s(j-1), t):(d1..dj)`` with
``t = ceil(len(G) / (s1...s(j-1)))``): it still starts with ``G``, is
ordered, and (a subset) stays injective, so it is a complement too.  Its
coalesced modes are read off ``G`` greedily (:func:`layout_with_prefix`: stride
``G[1]``, extent the first index where ``G`` stops being linear, recurse on
every extent-th value), because in a coalesced layout the first extent is
exactly that index.  So a complement exists **iff** that one candidate is one;
the caller checks it on the whole domain.
"""

from __future__ import annotations

from typing import Sequence

Pairs = list[tuple[int, int]]


def forced_offsets(a_offsets: Sequence[int], m: int) -> tuple[list[int], tuple[int, int] | None]:
    """``(G, None)``: the offsets every complement must have below ``m``; or ``(G so far, (u, u + a))``
    when the forced offset ``u``'s copy of A hits the already covered offset ``u + a``.

    Costs one step per offset of A per pick, at most ``m + max(A)`` steps in all (the copies are disjoint);
    with many offsets each pick's copy is placed by one numpy operation.
    """
    a_sorted = sorted(a_offsets)
    if len(a_sorted) >= _VECTOR_FROM:
        return _forced_offsets_numpy(a_sorted, m)
    covered = bytearray(m + a_sorted[-1])
    picks: list[int] = []
    u = covered.find(0, 0, m)
    while u >= 0:
        for a in a_sorted:
            if covered[u + a]:
                return picks, (u, u + a)
            covered[u + a] = 1
        picks.append(u)
        u = covered.find(0, u + 1, m)
    return picks, None


_VECTOR_FROM = 256  # offsets of A from which one numpy operation per pick beats the Python loop


def _forced_offsets_numpy(a_sorted: list[int], m: int) -> tuple[list[int], tuple[int, int] | None]:
    import numpy as np

    a = np.asarray(a_sorted, dtype=np.int64)
    covered = bytearray(m + a_sorted[-1])  # found by bytearray.find, written through the numpy view
    view = np.frombuffer(covered, dtype=np.uint8)
    picks: list[int] = []
    u = covered.find(0, 0, m)
    while u >= 0:
        spots = u + a
        hit = view[spots]
        if hit.any():
            return picks, (u, u + a_sorted[int(np.argmax(hit))])
        view[spots] = 1
        picks.append(u)
        u = covered.find(0, u + 1, m)
    return picks, None


def layout_with_prefix(values: Sequence[int]) -> Pairs:
    """The smallest coalesced layout (as flat pairs) whose first ``len(values)`` values can be ``values``.

    Exact when some layout starts with ``values``; otherwise a candidate that
    the caller's check rejects.
    """
    pairs: Pairs = []
    step = 1
    n = len(values)
    while step < n:
        sub = values[::step]
        d = sub[1]
        extent = next((k for k in range(2, len(sub)) if sub[k] != k * d), len(sub))
        pairs.append((extent, d))
        step *= extent
    return pairs

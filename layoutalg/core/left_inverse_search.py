"""The complete search for a left inverse where CuTe's mixed-radix construction fails.

Problem: given the distinct offsets ``x = A(i) >= 0`` of an injective layout,
find a layout ``L`` with ``L(A(i)) == i`` (``L`` extended past its size by its
last mode, as every layout is), or show that none exists.  ``V`` is the
largest offset.

Three reductions make the search finite and complete:

1. **Prime radices suffice.**  A mode ``(a*b):D`` is the function of the two
   modes ``(a, b):(D, a*D)``, so every ``L`` has the same function as one whose
   extents are primes (the last mode stays unbounded).
2. **Radix products above V do not matter.**  On offsets ``<= V`` a mode that
   starts at a prefix product ``> V`` reads digit 0, and the mode holding
   ``V``'s top digit reads ``x // P`` without wrapping, so it can be the
   unbounded last mode.  And appending a mode never hurts:
   ``(..., oo):(..., D)`` equals ``(..., p, oo):(..., D, p*D)``.  So only the
   *maximal* prime sequences ``p1..pk`` with ``V/2 < p1*...*pk <= V`` need
   trying, each closed with an unbounded mode.
3. **For fixed radices the strides solve a linear system.**  With ``dig(x)``
   the digits of ``x``, ``L(x) = dig(x) . D``; the equations
   ``dig(A(i)) . D == i`` are decided over the integers exactly
   (:mod:`layoutalg.core.int_linear`).

The sequences are searched depth first.  At prefix product ``P``, offsets with
the same quotient ``x // P`` agree on every later digit, so their differences
constrain ``D1..Dk`` alone; when those are rationally inconsistent, no longer
sequence through this prefix can work, and the branch is cut.  At a maximal
sequence the quotient is 0 or 1, the last stride is fixed by one offset with
quotient 1, and what remains is the integer system of the differences.

Equations that repeat within a branch are added once, and a branch is cut as
soon as its equations fix ``D1..Dk`` to values that are not all integers (no
later equation can undo that).

The first leaf the search reaches, the radices ``2, 2, ..., 2``, is tried on its
own first (:func:`_first_leaf`): its equations have coefficients 0 and +-1, so
substitution decides it without the elimination.  Where that fixes every stride
the equations use and every equation holds, the search would return exactly
that leaf's answer; otherwise the search runs as described.

The search is bounded by :data:`NODE_LIMIT` tried prefixes and
:data:`WORK_LIMIT` units of work (a visited offset group is one unit, a row
operation of the elimination :data:`ROW_COST`; the budget is about 0.1 s of
work); past either the caller raises rather than guess (``None`` here means
"none exists", never "gave up").  Every tried prefix is a distinct prime
sequence with product ``<= V`` and visits at most ``V // P + 1`` groups
(``P`` its parent's product), and each visit adds at most one equation, of at
most ``ncols`` row operations; over the whole tree that is within both bounds
for every ``V < 192`` (``tests/test_exact_search.py`` recomputes it), so there
the search always decides.  Larger offsets usually decide too (a left inverse,
when one exists, is mostly found early); the rest are refused as undecided.
"""

from __future__ import annotations

import math
from typing import Sequence

from layoutalg.core.int_linear import RowSpace

Pairs = list[tuple[int, int]]

#: The most radix prefixes one search tries before giving up (it then says so); see the module docstring.
NODE_LIMIT = 3_000
#: The most units of work one search does: a visited offset group is 1, an elimination row operation ROW_COST.
WORK_LIMIT = 300_000
#: The cost of one row operation of the exact elimination, in group visits (measured: about 8).
ROW_COST = 8


class SearchExhaustedError(Exception):
    """The search met :data:`NODE_LIMIT` or :data:`WORK_LIMIT` before deciding (internal; the caller turns it
    into a LayoutError that says so)."""


def _primes_up_to(n: int) -> list[int]:
    sieve = bytearray([1]) * (n + 1)
    sieve[:2] = b"\x00\x00"[: min(2, n + 1)]
    for p in range(2, int(n**0.5) + 1):
        if sieve[p]:
            sieve[p * p :: p] = bytearray(len(sieve[p * p :: p]))
    return [p for p in range(2, n + 1) if sieve[p]]


def _nth_prime_bound(n: int) -> int:
    """An upper bound on the n-th prime (Rosser: ``p_n < n (ln n + ln ln n)`` for ``n >= 6``).

    The root alone tries every prime up to V in turn, each try spending one
    unit of the budget, so primes past the ``NODE_LIMIT + 1``-th are never
    reached: sieving further would only cost memory (V can be 2**40).
    """
    n = max(n, 6)
    return int(n * (math.log(n) + math.log(math.log(n)))) + 1


def find_left_inverse(offsets: Sequence[int], targets: Sequence[int] | None = None) -> Pairs | None:
    """Flat pairs of a layout ``L`` with ``L(offsets[i]) == targets[i]`` (default ``i``) for every ``i``, or None
    when no layout has that.

    ``offsets`` are distinct and non-negative with ``offsets[0] == 0`` (and ``targets[0] == 0``).
    Raises :class:`SearchExhaustedError` past :data:`NODE_LIMIT` prefixes or :data:`WORK_LIMIT` group visits.
    """
    top = max(offsets)
    if top == 0:
        return [(1, 0)]
    index_of = {x: (i if targets is None else targets[i]) for i, x in enumerate(offsets)}
    found = _first_leaf(index_of, top)
    if found is not None:
        return found
    return _search_all(index_of, top)


def _first_leaf(index_of: dict[int, int], top: int) -> Pairs | None:
    """The search's answer where its first leaf decides it alone, by substitution; or None (the search runs).

    Depth first with the smallest prime first, the search reaches the radices ``2, 2, ..., 2`` (``k`` of them,
    ``2**k <= top < 2**(k+1)``) before any other leaf.  Its equations there are the differences within the two
    groups ``x >> k == 0`` and ``== 1`` (every equation it adds on the way is such a difference, and they link
    each group to its smallest offset), so they span the same rows as the differences to each group's smallest
    offset, built here directly: row ``dig(x) - dig(rep)`` (as the bits set in ``x`` only and in ``rep`` only,
    each digit a bit of the offset) equals ``index(x) - index(rep)``.  Each row with one stride not yet known
    fixes it (its coefficient is +-1, so it is an integer); where that reaches every stride some row uses, the
    strides are unique (0 on the unused ones, as the search's back substitution leaves every non-pivot unknown)
    and, when every row holds, the search's answer: no branch on that path is cut, as each cut needs the path's
    equations, a subset of these, to have no integer solution.  A row that fails means this leaf fails, and a
    stride no substitution reaches may be free; both leave the decision to the search.  Also None where the path
    itself could pass the search's bounds (``k`` prefixes; per level at most one visit and one equation of
    ``ROW_COST * k`` per offset), so a refusal is never skipped."""
    k = top.bit_length() - 1
    n = len(index_of)
    if k > NODE_LIMIT or k * n * (1 + ROW_COST * max(1, k)) > WORK_LIMIT:
        return None
    half = 1 << k
    rows: list[tuple[int, int, int]] = []  # (bits only x has, bits only its group's smallest offset has, rhs)
    used = 0
    rep0 = rep1 = -1
    t0 = t1 = 0
    for x in sorted(index_of):
        t = index_of[x]
        if x < half:
            if rep0 < 0:
                rep0, t0 = x, t
                continue
            rep, t_rep = rep0, t0
        else:
            if rep1 < 0:
                rep1, t1 = x, t
                continue
            rep, t_rep = rep1, t1
        plus, minus = x & ~rep, rep & ~x  # bit k agrees within a group, and no offset has a higher one
        rows.append((plus, minus, t - t_rep))
        used |= plus | minus
    value: dict[int, int] = {}  # the stride of each bit (1 << j) fixed so far
    known = 0
    pending = rows
    while known != used:
        before = known
        waiting = []
        for row in pending:
            plus, minus, rhs = row
            free = (plus | minus) & ~known
            if free & (free - 1):  # two strides or more unknown: a later pass
                waiting.append(row)
            elif free:
                rest = _dot(value, plus & ~free) - _dot(value, minus & ~free)
                value[free] = rhs - rest if plus & free else rest - rhs
                known |= free
        if known == before:  # no row fixed a stride: left to the search
            return None
        pending = waiting
    for plus, minus, rhs in rows:
        if _dot(value, plus) - _dot(value, minus) != rhs:
            return None
    strides = [value.get(1 << j, 0) for j in range(k)]
    return [(2, d) for d in strides] + [(top // half + 1, t1 - _dot(value, rep1 & (half - 1)))]


def _dot(value: dict[int, int], bits: int) -> int:
    """The sum of the strides of the set bits of ``bits`` (every one in ``value``, or 0)."""
    total = 0
    while bits:
        bit = bits & -bits
        total += value.get(bit, 0)
        bits ^= bit
    return total


def _search_all(index_of: dict[int, int], top: int) -> Pairs | None:
    """:func:`find_left_inverse`'s complete depth-first search (see the module docstring)."""
    primes = _primes_up_to(min(top, _nth_prime_bound(NODE_LIMIT + 1)))
    ncols = top.bit_length() + 1  # at most log2(V) prime radices, plus the unbounded mode
    budget = [NODE_LIMIT, WORK_LIMIT]  # prefixes tried, groups visited

    # A group: the offsets with one quotient x // P, held as (its smallest offset, that offset's digits).
    Groups = dict[int, tuple[int, tuple[int, ...]]]

    def solve_leaf(radices: list[int], product: int, space: RowSpace, groups: Groups) -> Pairs | None:
        strides = space.integer_solution()
        if strides is None:
            return None
        last = 0
        if 1 in groups:  # one offset with quotient 1 fixes the unbounded mode's stride
            rep, rep_digits = groups[1]
            last = index_of[rep] - sum(d * s for d, s in zip(rep_digits, strides))
        pairs = [(p, strides[j]) for j, p in enumerate(radices)]
        pairs.append((top // product + 1, last))
        return pairs

    def search(radices: list[int], product: int, space: RowSpace, groups: Groups) -> Pairs | None:
        if product * 2 > top:
            return solve_leaf(radices, product, space, groups)
        active = len(radices) + 1
        for p in primes:
            if product * p > top:
                break
            budget[0] -= 1
            if budget[0] < 0:
                raise SearchExhaustedError
            branch = space.copy()
            merged: Groups = {}
            consistent = True
            budget[1] -= len(groups)
            if budget[1] < 0:
                raise SearchExhaustedError
            seen: set[tuple[tuple[int, ...], int]] = set()
            for q, (rep, rep_digits) in groups.items():  # increasing quotients: the first rep is the smallest
                digits = rep_digits + (q % p,)
                first = merged.setdefault(q // p, (rep, digits))
                if first[0] != rep:
                    row = tuple(a - b for a, b in zip(digits, first[1]))
                    rhs = index_of[rep] - index_of[first[0]]
                    if (row, rhs) in seen:  # the same equation again (common: the offsets repeat their digits)
                        continue
                    seen.add((row, rhs))
                    budget[1] -= ROW_COST * max(1, len(branch.echelon))
                    if budget[1] < 0:
                        raise SearchExhaustedError
                    if not branch.add(list(row) + [0] * (ncols - len(row)), rhs, active):
                        consistent = False
                        break
            if consistent and branch.fixes_a_fraction(active):
                consistent = False  # the equations fix D1..Dk, not all integers: no longer sequence can help
            if consistent:
                found = search(radices + [p], product * p, branch, merged)
                if found is not None:
                    return found
        return None

    start: Groups = {x: (x, ()) for x in sorted(index_of)}  # prefix product 1: every offset its own group
    return search([], 1, RowSpace(ncols), start)


def _maximal_prime_sequences(top: int, primes: list[int]) -> list[list[int]]:
    """Every sequence of primes ``p1..pk`` with ``p1*...*pk <= top < 2*p1*...*pk`` (reduction 2 of the module
    docstring), in depth-first order with smaller primes first; at most NODE_LIMIT of them, else
    SearchExhaustedError."""
    found: list[list[int]] = []
    stack: list[tuple[list[int], int]] = [([], 1)]
    while stack:
        radices, product = stack.pop()
        if product * 2 > top:
            found.append(radices)
            if len(found) > NODE_LIMIT:
                raise SearchExhaustedError
            continue
        for p in reversed(primes):  # pushed largest first, so popped smallest first
            if product * p <= top:
                stack.append((radices + [p], product * p))
    return found


def find_generalized_left_inverse(offsets: Sequence[int], preimages: Sequence[Sequence[int]]) -> Pairs | None:
    """Flat pairs of a layout ``L`` with ``L(offsets[i])`` in ``preimages[i]`` for every ``i``, or None when no
    layout has that (the generalized left inverse of a non-injective ``A``: ``preimages[i]`` are the indices
    ``A`` sends to ``offsets[i]``, so ``A(L(A(j))) == A(j)`` for every ``j``).

    Reductions 1 and 2 of the module docstring do not depend on the targets, so the maximal prime sequences
    are tried in turn, each closed by an unbounded mode.  For one sequence the offsets are taken fewest
    preimages first (then in increasing order: a forced row costs no branch, and fixes the unknowns the
    branching rows would), each adding ``dig(x) . D == t`` for a chosen target ``t``: where ``dig(x)`` depends
    on the rows before, at most one ``t`` is consistent (the value the earlier equations fix), so only rows
    that raise the rank branch, over every preimage: at most ``len(radices) + 1`` levels.  With every offset placed, an
    integer solution of the chosen equations (:meth:`RowSpace.integer_solution`, exact) is an answer, and only
    then; so every assignment of targets that some integer ``D`` realises is reached, and None means none
    exists.  The sequences are searched in rounds of growing work each (1/256 of the bound, then 4x more per
    round), so a sequence that is slow to rule out does not starve one after it that answers at once
    (``(4,4,3,2):(3,3,3,0)`` is answered by the sixth, ``(2,3,2,2)``); a sequence searched to its end leaves,
    so None still means every sequence was searched whole.  Raises SearchExhaustedError past
    :data:`NODE_LIMIT` sequences or :data:`WORK_LIMIT` units of work over all rounds (an equation tried is
    :data:`ROW_COST`, an offset's digits for one sequence 1), and at once where the offsets' equations alone
    would pass it."""
    order = sorted(range(len(offsets)), key=lambda k: (len(preimages[k]), offsets[k]))
    xs = [offsets[k] for k in order]
    targets = [sorted(preimages[k]) for k in order]
    top = max(xs)
    if top == 0:
        return [(1, 0)]
    if len(xs) * ROW_COST > WORK_LIMIT:  # every offset's equation must be placed, at ROW_COST each at least
        raise SearchExhaustedError
    left = WORK_LIMIT
    pending = []
    for radices in _maximal_prime_sequences(top, _primes_up_to(min(top, _nth_prime_bound(NODE_LIMIT + 1)))):
        left -= len(xs)  # the offsets' digits, one unit each
        if left < 0:
            raise SearchExhaustedError
        rows = []
        for x in xs:  # each offset's digits: one per radix, then the unbounded mode's quotient
            digits = []
            for p in radices:
                digits.append(x % p)
                x //= p
            rows.append(digits + [x])
        pending.append((radices, rows))
    # Rounds of growing work per sequence (a sequence with no answer may take long to rule out, and one after
    # it may answer at once): a sequence searched to the end leaves the list, one cut short waits for the next.
    share = max(WORK_LIMIT // 256, 64 * ROW_COST)
    while pending:
        waiting = []
        for radices, rows in pending:
            budget = [min(share, left)]
            spent_before = budget[0]
            try:
                strides = _place(rows, targets, 0, RowSpace(len(radices) + 1), budget)
            except SearchExhaustedError:
                left -= spent_before
                if left <= 0:
                    raise
                waiting.append((radices, rows))
                continue
            left -= spent_before - budget[0]
            if strides is not None:
                product = math.prod(radices)
                return [(p, strides[j]) for j, p in enumerate(radices)] + [(top // product + 1, strides[-1])]
        pending, share = waiting, share * 4
    return None


def _place(rows: list[list[int]], targets: list[list[int]], start: int, space: RowSpace,
           budget: list[int]) -> list[int] | None:
    """:func:`find_generalized_left_inverse` for one radix sequence from offset ``start`` on: integer strides, or
    None when no choice of targets from here has them.

    A row in the span of the equations so far fixes its right-hand side (:meth:`RowSpace.implied_rhs`): it is
    kept or the branch cut by one look-up in its targets; only a row that raises the rank branches, over every
    target that does not fix a fraction."""
    ncols = space.ncols
    k = start
    while k < len(rows):
        budget[0] -= ROW_COST
        if budget[0] < 0:
            raise SearchExhaustedError
        implied = space.implied_rhs(rows[k])
        if implied is not None:
            numerator, denominator = implied
            if numerator % denominator or numerator // denominator not in targets[k]:
                return None
            k += 1
            continue
        choices = []
        for t in targets[k]:
            budget[0] -= ROW_COST
            if budget[0] < 0:
                raise SearchExhaustedError
            branch = space.copy()
            branch.add(rows[k], t, ncols)  # independent: consistent with every t
            if not branch.fixes_a_fraction(ncols):
                choices.append(branch)
        if not choices:
            return None
        if len(choices) > 1:  # a row that raises the rank: every target is a branch
            for branch in choices:
                found = _place(rows, targets, k + 1, branch, budget)
                if found is not None:
                    return found
            return None
        space = choices[0]
        k += 1
    return space.integer_solution()

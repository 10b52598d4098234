"""CuTe's ``right_inverse``, ``left_inverse``, ``max_common_vector`` and ``max_common_layout``."""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core import left_inverse_search
from layoutalg.core.composition import _composed_values, composition
from layoutalg.core.flat import (
    ENUMERATION_LIMIT,
    Pairs,
    check_domain,
    check_layout,
    coalesce_pairs,
    from_pairs,
    leaf_pairs,
)
from layoutalg.core.layout import Layout
from layoutalg.core.left_inverse_search import (
    SearchExhaustedError,
    find_generalized_left_inverse,
    find_left_inverse,
)
from layoutalg.core.memo import memoized
from layoutalg.errors import CompositionError, LayoutError, NotInjectiveError


def _coalesced_with_index_strides(layout: Layout) -> tuple[Pairs, list[int]]:
    """``coalesce(layout)`` as flat pairs, and each mode's index stride (its extents' prefix product)."""
    flat = coalesce_pairs(leaf_pairs(layout))
    index_strides = []
    running = 1
    for s, _ in flat:
        index_strides.append(running)
        running *= s
    return flat, index_strides


def _right_inverse(layout: Layout) -> Layout:
    shape: Any = layout.shape
    stride: Any = layout.stride
    if type(shape) is int:  # s:1 is its own right inverse; any other single mode has only 1:0
        return layout if stride == 1 and shape > 1 else Layout._trusted(1, 0)
    flat = True
    for s in shape:
        if type(s) is not int:
            flat = False
            break
    extents: list[int] = []  # coalesce(layout), written out (the hot path)
    strides: list[int] = []
    for s, d in zip(shape, stride) if flat else leaf_pairs(layout):
        if s == 1:
            continue
        if extents and extents[-1] * strides[-1] == d:
            extents[-1] *= s
        else:
            extents.append(s)
            strides.append(d)
    first_with_stride: dict[int, int] = {}
    index_strides = []
    running = 1
    for k, d in enumerate(strides):
        if d not in first_with_stride:
            first_with_stride[d] = k
        index_strides.append(running)
        running *= extents[k]
    out_s: list[int] = []
    out_d: list[int] = []
    cur = 1
    while cur in first_with_stride:  # cur grows strictly (extents > 1), so no mode is taken twice
        j = first_with_stride[cur]
        out_s.append(extents[j])
        out_d.append(index_strides[j])
        cur *= extents[j]
    if len(out_s) > 1:
        return Layout._trusted(tuple(out_s), tuple(out_d))
    return Layout._trusted(out_s[0], out_d[0]) if out_s else Layout._trusted(1, 0)


def right_inverse(layout: Layout) -> Layout:
    """CuTe ``right_inverse``: ``R`` with ``A(R(i)) == i`` for every ``i < size(R)``, ``R`` as large as CuTe makes it.

    Follows the chain of strides from 1 through ``coalesce(A)``: the mode with
    stride 1, then the one with stride equal to its extent, and so on; ``R``
    maps ``i`` to the index whose coordinates are ``i``'s digits in those modes.
    Exact by construction.  Only positive strides are followed (CuTe C++
    follows ``|d|`` and negates, which gives ``A(R(i)) == -i``; CuTe DSL returns
    ``1:0`` for ``(4,2):(-1,4)`` as this does).  Stride-0 modes are skipped,
    where pycute stops at the first one.
    """
    return _right_inverse(layout if type(layout) is Layout else check_layout(layout, "right_inverse layout"))


def left_inverse(layout: Layout) -> Layout:
    """CuTe ``left_inverse``: ``L`` with ``L(A(i)) == i`` for every ``i < size(A)``.

    With ``coalesce(A)``'s modes sorted by stride ``d1 < d2 < ... < dn``,
    ``L = (d1, d2/d1, ..., dn/d(n-1), sn) : (0, j1, ..., j(n-1), jn)`` (``jk``
    the index stride of mode k), coalesced: the offset's mixed-radix digits in
    radices ``d(k+1)/dk`` are A's coordinates.  That is CuTe DSL's answer
    (``left_inverse((2,2):(1,3)) == (3,2):(1,2)``) and is exact when each
    stride divides the next and ``d(k+1) >= sk*dk``.

    Where those strides do not chain, a left inverse may still exist
    (``(2,2):(2,3)`` has ``(2,4):(1,1)``, ``(2,3):(3,2)`` has one with a negative
    stride); it is found by a complete search over prime radix sequences with
    an exact integer solve for the strides
    (:mod:`layoutalg.core.left_inverse_search` gives the argument), so ``L``
    is returned **exactly when one exists**.  Raises :class:`CompositionError`
    when no layout is a left inverse (with the reason), and also, saying so,
    when the search would pass its bound (about 0.1 s of work; never met
    while every offset is below 192).  More than 300,000 offsets are refused
    before any search.

    **Non-injective A: the generalized left inverse** (PyCuTe's definition,
    ``A(L(A(i))) == A(i)`` for every ``i``).  Stride-0 modes are skipped by
    the construction above, so their coordinates come back as 0
    (``left_inverse((2,4,8):(32,0,2)) == (2,16,2):(0,8,1)``, exact by
    construction).  Other non-injective layouts (``(2,2):(1,1)``) go to the
    search, asked first to send each offset to its smallest preimage, then to
    any of its preimages (no layout sends the offsets 0..3 of ``(2,3):(1,1)``
    to their smallest preimages 0, 1, 3, 5; ``(2,2):(1,4)`` sends them to
    0, 1, 4, 5); :class:`NotInjectiveError` when no
    layout does (every choice searched) or, saying so, when the search passes
    its bound.  Negative strides raise: ``L`` is defined on non-negative
    offsets only.
    """
    return _left_inverse(layout if type(layout) is Layout else check_layout(layout, "left_inverse layout"))


def left_inverse_fixing(layout: Layout, fixed: tuple[int, ...]) -> Layout:
    """A generalized left inverse of ``layout`` whose every answer leaves the coordinate of each leaf in ``fixed``
    (positions among ``layout``'s flat leaves, each of stride 0) at 0.

    What a coordinate layout's inverse taken axis by axis needs of each axis
    (:func:`layoutalg.core.stride_codomain.left_inverse`): there the other axes' leaves are this axis's
    stride-0 leaves, and the answers are summed, ``R(c) == R_0(c_0) + R_1(c_1) + ...``, which is a preimage of
    ``c`` only where no two ``R_k`` move the same leaf.  :func:`left_inverse` may pick any preimage
    (``(4,3,4):(0,3,6)`` has ``(2,2,4,2):(3,1,8,31)``, sending 6 to index 9, which moves the stride-0 leaf).
    The chained construction and the contiguous reading already leave every stride-0 leaf at 0 (they take the
    smallest preimage); the search is then asked for preimages with the ``fixed`` coordinates 0.
    CompositionError or NotInjectiveError where no such layout exists (the search's own refusals, complete)."""
    layout = layout if type(layout) is Layout else check_layout(layout, "left_inverse layout")
    strides = it.flatten(layout.stride) if type(layout.stride) is tuple else (layout.stride,)
    for k in fixed:
        if not 0 <= k < len(strides) or strides[k] != 0:
            raise LayoutError(f"left_inverse of {layout}: leaf {k} is to stay at 0 but "
                              + ("has a stride" if 0 <= k < len(strides) else "is no leaf"))
    return _left_inverse(layout, tuple(fixed))  # the leaves' index strides are read only where the search needs them


def fixed_digits(extents: list[int], fixed: tuple[int, ...]) -> Pairs:
    """``(extent, index stride)`` of each leaf in ``fixed`` wider than 1, the leaves' extents ``extents`` in index
    order: the digits :func:`left_inverse_of_values` keeps at 0."""
    digits = []
    running = 1
    for k, s in enumerate(extents):
        if k in fixed and s > 1:
            digits.append((s, running))
        running *= s
    return digits


def _left_inverse(layout: Layout, fixed: tuple[int, ...] = ()) -> Layout:
    flat, index_strides = _coalesced_with_index_strides(layout)
    for s, d in flat:
        if d < 0:
            raise LayoutError(f"left_inverse needs non-negative strides; {layout} has stride {d} (extent {s})")
    # Stride-0 modes are skipped: their coordinate comes back as 0 (the generalized left inverse).  Sorted by
    # (stride, position): a stable sort by stride, compared in C.
    order = sorted([(d, k) for k, (_, d) in enumerate(flat) if d])
    out: Pairs = []
    prev = 1
    for pos, (d, k) in enumerate(order):
        s = flat[k][0]
        chained = d % prev == 0 and (pos + 1 == len(order) or order[pos + 1][0] >= s * d)
        if not chained:
            return _unchained_left_inverse(layout, fixed)
        out.append((d // prev, 0 if pos == 0 else index_strides[order[pos - 1][1]]))
        prev = d
    if order:
        last = order[-1][1]
        out.append((flat[last][0], index_strides[last]))
    return from_pairs(coalesce_pairs(out))


@memoized
def _unchained_left_inverse(layout: Layout, fixed: tuple[int, ...]) -> Layout:
    """The left inverse where the strides do not chain: read off the offsets when they are exactly ``0..V``,
    else searched (both remembered, as the work is far more than the chained construction's).  ``fixed``: the
    stride-0 leaves an answer leaves at 0 (:func:`left_inverse_fixing`)."""
    flat = coalesce_pairs(leaf_pairs(layout))
    read = _contiguous_left_inverse(flat)
    return _searched_left_inverse(layout, fixed, flat) if read is None else read


def _contiguous_left_inverse(flat: Pairs) -> Layout | None:
    """The search's answer for the coalesced ``flat`` layout where its offsets are exactly ``0..V`` (any ``V``),
    at most ENUMERATION_LIMIT indices, and a layout fits them (:func:`_read_contiguous`)."""
    size = 1
    top = 0
    for s, d in flat:
        size *= s
        top += (s - 1) * d
    if not 0 < top or size <= top or size > ENUMERATION_LIMIT:  # too few (or many) indices
        return None
    values = _first_values(flat, size)
    n = len(values)
    smallest = dict(zip(reversed(values), range(n - 1, -1, -1)))  # offset -> its smallest index (the last write)
    if len(smallest) != top + 1:
        return None
    return _read_contiguous(list(map(smallest.__getitem__, range(top + 1))))


def _searched_left_inverse(layout: Layout, fixed: tuple[int, ...], flat: Pairs) -> Layout:
    """The left inverse found by the complete search, checked on every offset; or CompositionError (remembered by
    its one caller, :func:`_unchained_left_inverse`; ``flat``: ``coalesce(layout)``'s pairs).

    For a non-injective layout, the generalized left inverse (see :func:`left_inverse_of_values`; ``fixed`` as
    there).
    """
    size = 1
    for s, _ in flat:
        size *= s
    if size > left_inverse_search.WORK_LIMIT:  # the root alone visits every offset once per radix tried
        raise CompositionError(
            f"left_inverse of {layout}: undecided; its strides do not chain, and a search over its {size} offsets "
            f"would pass the search's bound of {left_inverse_search.WORK_LIMIT} units of work at once"
        )
    if size > ENUMERATION_LIMIT:  # coalescing keeps the size
        check_domain(size, f"left_inverse of {layout}")
    digits = fixed_digits([s for s, _ in leaf_pairs(layout)], fixed) if fixed else []
    return left_inverse_of_values(_flat_values(flat), layout, digits)


def left_inverse_of_values(values: list[int], name: object, fixed: Pairs | None = None) -> Layout:
    """A layout ``L`` read on the non-negative integer ``values`` of a function ``A`` (``values[i] == A(i)``,
    ``values[0] == 0``; at most WORK_LIMIT of them), ``name`` naming A in errors (its text, formatted only when
    an error is raised):

    * all distinct: ``L(values[i]) == i`` (the complete search, :func:`find_left_inverse`), else
      :class:`CompositionError`;
    * else the generalized left inverse, ``values[L(x)] == x`` on every value ``x``: first the layout sending
      each value to its smallest preimage (the search with fixed targets, usually decided at once), then the
      search over every choice of preimages (:func:`find_generalized_left_inverse`), which is complete; else
      :class:`NotInjectiveError`.

    ``fixed`` (pairs ``(extent, index stride)``): only indices whose digit ``(i // stride) % extent`` is 0 for
    each pair are answers (:func:`left_inverse_fixing`; the smallest preimages always are, when each pair is a
    leaf the values do not depend on).

    Either refusal says "undecided" instead when the search passes its bound.  Every answer is checked on every
    value."""
    offsets, first, injective = _first_appearances(values)
    if injective:
        try:
            found = find_left_inverse(offsets)
        except SearchExhaustedError:
            raise CompositionError(
                f"left_inverse of {name}: undecided; its strides do not chain, and the search for a left "
                f"inverse passed its bound of {left_inverse_search.NODE_LIMIT} radix prefixes or "
                f"{left_inverse_search.WORK_LIMIT} units of work (largest offset {max(offsets)}; "
                "below 192 it always decides)"
            ) from None
        if found is None:
            raise CompositionError(
                f"left_inverse of {name}: no layout L has L(A(i)) == i for all i (its strides do not chain, "
                "and no radices and strides fit its offsets)"
            )
    else:
        found = _generalized_pairs(values, offsets, first, name, fixed or [])
    pairs = coalesce_pairs(found)
    candidate = from_pairs(pairs)
    if not _sends_back(pairs, offsets, values):  # pragma: no cover
        raise CompositionError(f"left_inverse of {name}: internal search result {candidate} fails its check")
    return candidate


def _sends_back(pairs: Pairs, offsets: list[int], values: list[int]) -> bool:
    """Whether ``j = from_pairs(pairs)(x)`` is an index with ``values[j] == x`` for every offset ``x``: the layout
    evaluated inline (each ``x`` split into digits of the extents, the last mode unbounded, as a layout's call)."""
    if not pairs:
        return all(values[0] == x for x in offsets)
    *inner, (_, last) = pairs
    n = len(values)
    for x in offsets:
        j = 0
        q = x
        for s, d in inner:
            q, digit = divmod(q, s)
            j += digit * d
        j += q * last
        if not 0 <= j < n or values[j] != x:
            return False
    return True


def _generalized_pairs(values: list[int], offsets: list[int], first: list[int], name: object, fixed: Pairs) -> Pairs:
    """The pairs of a generalized left inverse (see :func:`left_inverse_of_values`; ``fixed`` as there), or
    NotInjectiveError."""
    bound = (f"its bound of {left_inverse_search.NODE_LIMIT} radix sequences or {left_inverse_search.WORK_LIMIT} "
             "units of work")
    try:
        found = find_left_inverse(offsets, first)
    except SearchExhaustedError:
        found = None
    if found is not None:
        return found
    preimages: dict[int, list[int]] = {x: [] for x in offsets}
    for i, v in enumerate(values):
        if all((i // stride) % extent == 0 for extent, stride in fixed):
            preimages[v].append(i)
    try:
        found = find_generalized_left_inverse(offsets, [preimages[x] for x in offsets])
    except SearchExhaustedError:
        raise NotInjectiveError(
            f"left_inverse of the non-injective {name}: undecided; the search for a layout L with "
            f"A(L(x)) == x on every offset x passed {bound}") from None
    if found is None:
        raise NotInjectiveError(
            f"left_inverse of the non-injective {name}: no layout L has A(L(x)) == x on every offset x "
            "(every choice of preimage searched)")
    return found


def _read_contiguous(target: list[int]) -> Layout | None:
    """The search's left inverse where A's offsets are exactly ``0..V``, read off the targets (``target[x]``: the
    smallest index A sends to ``x``) instead of searched; None when the reading fails its check (then no layout fits:
    the search decides).  The argument below holds for every ``V``, and the check compares the answer with every
    target, so past the search's exact range (``V < 192``, where it may stop at its bound undecided) the reading
    still answers, and never wrongly.

    Every ``x <= V`` is an offset, so ``L`` is fixed on ``0..V``, and a layout's function on ``0..V`` fixes its
    coalesced modes there: ``L(1)`` is the first stride, the first ``m`` with ``L(m) != m L(1)`` the first extent
    (a coalesced next mode never continues the run), and so on, each next mode read at the running product
    ``P``; the mode whose run reaches past ``V`` is the last.  The search builds the same modes from prime
    radices, tried in increasing order: a prefix product must sit at every boundary where ``L`` leaves a run, so
    its first success passes through those, and in the last run, where every radix fits, it takes 2 while
    ``2 P <= V``: a last mode ``(Q (V // (P Q) + 1)):d`` once coalesced, ``Q`` the largest power of 2 with
    ``P Q <= V``.  ``tests/test_fast_paths.py`` compares the two."""
    top = len(target) - 1
    pairs: Pairs = []
    running = 1
    while True:
        d = target[running] if running <= top else 0
        m = _run_length(target[::running], d)
        if m * running > top:
            q = 1
            while 2 * q * running <= top:
                q *= 2
            pairs.append((q * (top // (running * q) + 1), d))
            break
        pairs.append((m, d))
        running *= m
    pairs = coalesce_pairs(pairs)
    if _first_values(pairs, top + 1) != target:
        return None
    return from_pairs(pairs)


def _run_length(seq: list[int], d: int) -> int:
    """The first ``m >= 2`` with ``seq[m] != m * d``, or ``len(seq)`` (``seq[:2] == [0, d]``): a binary search on
    prefixes, each compared at C speed (prefix equality is monotone in the prefix length)."""
    n = len(seq)
    line = list(range(0, d * n, d)) if d else [0] * n
    if seq == line:
        return n
    lo, hi = 2, n  # seq[:lo] == line[:lo]; seq[:hi] != line[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if seq[:mid] == line[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _first_values(pairs: Pairs, n: int) -> list[int]:
    """The flat layout's first ``n`` values (its last mode unbounded), in index order (``n >= 1``)."""
    values = [0]
    for s, d in pairs[:-1]:
        if len(values) == 1:  # the first mode that is not 1 wide: an arithmetic run
            values = list(range(values[0], values[0] + s * d, d)) if d else values * s
        else:
            grown: list[int] = []
            for k in range(s):
                grown.extend(map((k * d).__add__, values))  # one block per digit value, summed at C speed
            values = grown
        if len(values) >= n:
            return values[:n]
    d = pairs[-1][1] if pairs else 0
    if len(values) == 1:
        return list(range(values[0], values[0] + n * d, d)) if d else values * n
    out: list[int] = []
    full, part = divmod(n, len(values))  # whole blocks of the last mode's digits, then the first `part` values
    for q in range(full):
        out.extend(map((q * d).__add__, values))
    if part:
        out.extend(map((full * d).__add__, values[:part]))
    return out


def _flat_values(flat: Pairs) -> list[int]:
    """The flat layout's values in index order (plain Python: at most WORK_LIMIT of them)."""
    values = [0]
    for s, d in flat:
        values = [v + k * d for k in range(s) for v in values]
    return values


def _first_appearances(values: list[int]) -> tuple[list[int], list[int], bool]:
    """``(offsets, first, injective)``: the distinct values in order of first appearance, the index where each
    first appears, and whether no value repeats."""
    first: dict[int, int] = {}
    for i, v in enumerate(values):
        if v not in first:
            first[v] = i
    return list(first), list(first.values()), len(first) == len(values)


# ---------------------------------------------------------------------------
# common vectors
# ---------------------------------------------------------------------------
def _common_prefix(a: Layout, b: Layout) -> tuple[Layout, int]:
    """``(right_inverse(b), N)``: the first N offsets of B's codomain are the same offsets of A's."""
    inv_b = right_inverse(b)
    try:
        common = coalesce_pairs(leaf_pairs(composition(a, inv_b)))
    except CompositionError:
        # No layout has the function A o inv(B); read the common prefix off the values.
        import numpy as np

        vals = _composed_values(a, inv_b)
        bad = np.flatnonzero(vals != np.arange(vals.size))
        e = int(bad[0]) if bad.size else int(vals.size)
        return inv_b, _largest_divisor_at_most(inv_b.size(), e)
    if common and common[0][1] == 1:
        return inv_b, common[0][0]
    return inv_b, 0


def _largest_divisor_at_most(n: int, bound: int) -> int:
    """The largest divisor of ``n`` that is ``<= bound`` (1 at least)."""
    best = 1
    k = 1
    while k * k <= n:
        if n % k == 0:
            for q in (k, n // k):
                if best < q <= bound:
                    best = q
        k += 1
    return best


def max_common_vector(a: Layout, b: Layout) -> int:
    """CuTe ``max_common_vector``: the largest ``N`` with ``A(R(i)) == i`` for ``i < N``, ``R = right_inverse(B)``.

    That is, the first ``N`` offsets of B's codomain hold the same logical
    elements in ``A``, so ``N`` elements can move as one vector.  Computed as
    CuTe does (the first mode of ``coalesce(A o R)`` if its stride is 1, else 1).
    """
    a = check_layout(a, "max_common_vector A")
    b = check_layout(b, "max_common_vector B")
    n = _common_prefix(a, b)[1]
    return max(n, 1)


def max_common_layout(a: Layout, b: Layout) -> Layout:
    """CuTe ``max_common_layout``: ``right_inverse(B) o N:1`` for ``N = max_common_vector(A, B)``.

    It maps ``i < N`` to the logical index of B's offset ``i``; ``1:0`` when
    there is no common stride-1 vector.  A layout must cut ``right_inverse(B)``
    at a mode boundary or inside one mode, so where the first ``N`` values of
    ``right_inverse(B)`` are not a layout (``(4,25,2):(1,8,4)`` has
    ``0, 1, 2, 3, 8`` first), ``N`` is lowered to the longest prefix that is
    (4 there): every value it keeps still satisfies ``A(R(i)) == i == B(R(i))``.
    """
    a = check_layout(a, "max_common_layout A")
    b = check_layout(b, "max_common_layout B")
    inv_b, n = _common_prefix(a, b)
    if n == 0:
        return Layout._trusted(1, 0)
    return composition(inv_b, Layout._trusted(layout_prefix(inv_b, n), 1))


def layout_prefix(layout: Layout, n: int) -> int:
    """The largest ``m <= n`` whose first ``m`` values of ``layout`` are a layout's (whole leading modes, then
    a multiple of their product inside the next mode)."""
    covered = 1
    for s, _ in coalesce_pairs(leaf_pairs(layout)):
        if n <= covered * s:
            return covered * (n // covered)
        covered *= s
    return covered * (n // covered)

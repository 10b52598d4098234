"""``weak_complement(A, cotarget=None)``: CuTe's complement without a size, PyCuTe's ``complement(A)``.

Definition (PyCuTe ``complement(A, extend=None)``: "the smallest layout with weakly
congruent codomain to A, ordered, with an image disjoint from A's").  With ``A``'s
non-zero-stride leaves sorted by stride, ``d_1 < d_2 < ... < d_n`` (extents ``s_k``),
CuTe's construction fills each gap and ends with a *rest* mode::

    R = (d_1/1, d_2/(s_1 d_1), ..., d_n/(s_(n-1) d_(n-1)), r) : (1, s_1 d_1, ..., s_n d_n)

coalesced, where the rest extent ``r`` is 1 (no cotarget) or ``ceil(M / (s_n d_n))``; the
rest mode is kept even at extent 1, because past its size a layout keeps counting in its
last mode: ``weak_complement(4:2) == (2,1):(1,8)``, whose values ``0, 1, 8, 9, 16, ...`` fill
everything ``A`` leaves out, for every size.  ``weak_complement(n:1) == 1:n``.

* When the sorted strides chain (``s_(k-1) d_(k-1)`` divides ``d_k``), every division is
  exact and ``(A, R)`` is a bijection from its (extended) domain onto ``0, 1, 2, ...``:
  the complement in the strongest sense, for any size.
* Otherwise CuTe floors the divisions (PyCuTe does too; ``(4,2):(1,5)`` gives ``1:10``).
  The result is then only *weak*: ordered, and ``(A, R)`` injective, which holds by
  construction (the interleaved modes ``R_1, A_1, R_2, ...`` have superincreasing strides;
  proof in :func:`weak_pairs`); where a gap's floored extent is 0 (``(2,2):(2,3)``: the
  spans overlap), :class:`CompositionError` says so rather than return CuTe's malformed layout.

Stride-0 leaves are ignored (CuTe filters them); negative strides raise, and a
non-injective ``A`` raises :class:`NotInjectiveError`.  For the sized complement that
must cover ``[0, M)`` see :func:`~layoutalg.core.complement.complement`.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.flat import (
    Pairs,
    check_domain,
    check_injective,
    check_layout,
    leaf_pairs,
)
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.symbolic import SymbolicLayout, has_sym
from layoutalg.core.validate import MAX_INT_BITS
from layoutalg.errors import CompositionError, LayoutError, ShapeError

_LIMIT = 1 << MAX_INT_BITS


def _cotarget(cotarget: Any) -> int | None:
    if type(cotarget) is int and 1 <= cotarget < _LIMIT:
        return cotarget
    if cotarget is None:
        return None
    if isinstance(cotarget, Layout):
        raise ShapeError("weak_complement cotarget must be an int or a shape, not a Layout")
    value = it.product(it.to_int_tuple(cotarget, "weak_complement cotarget"))
    if value < 1:
        raise ShapeError(f"weak_complement cotarget must be positive, got {cotarget}")
    return value


def weak_complement(layout: Layout, cotarget: Any = None) -> Layout:
    """CuTe's gap-filling complement with a kept rest mode (see the module docstring); a coordinate layout is
    complemented axis by axis (:func:`layoutalg.core.stride_codomain.weak_complement`)."""
    if type(layout) is StrideLayout:
        from layoutalg.core import stride_codomain

        return stride_codomain.weak_complement(layout, cotarget)  # type: ignore[no-any-return]
    if type(layout) is SymbolicLayout or (cotarget is not None and type(cotarget) is not int and has_sym(cotarget, "weak_complement cotarget")):
        from layoutalg.core import symbolic_ops

        if cotarget is None:
            return symbolic_ops.weak_complement(layout)  # type: ignore[no-any-return]
        return symbolic_ops.complement(layout, cotarget)  # type: ignore[no-any-return]
    if type(layout) is not Layout:
        layout = check_layout(layout, "weak_complement layout")
    elif cotarget is None and type(layout.shape) is int and type(layout.stride) is int and layout.stride >= 0:
        s, d = layout.shape, layout.stride  # one mode s:d: the gap d:1 (if any) and the rest mode 1:s*d
        if d == 0 or s == 1:
            return Layout._trusted(1, 1)
        return Layout._trusted(1, s) if d == 1 else Layout._trusted((d, 1), (1, s * d))
    m = None if cotarget is None else _cotarget(cotarget)
    shape: Any = layout.shape
    stride: Any = layout.stride
    leaves: Any = zip(shape, stride) if type(shape) is tuple and _flat(shape) else leaf_pairs(layout)
    modes = sorted([(d, s) for s, d in leaves if d != 0 and s != 1])
    if modes and modes[0][0] < 0:
        raise LayoutError(f"weak_complement needs non-negative strides; {layout} has stride {modes[0][0]}")
    return weak_from_modes(layout, modes, m)


def weak_from_modes(layout: Layout, modes: list[tuple[int, int]], m: int | None) -> Layout:
    """:func:`weak_complement` of ``layout`` from its sorted ``(stride, extent)`` leaves (none of stride 0 or
    extent 1, none negative) and its cotarget (None, or a positive int)."""
    return _from_pairs(weak_pairs(layout, modes, m))


def _from_pairs(pairs: Pairs) -> Layout:
    if len(pairs) == 1:
        return Layout._trusted(pairs[0][0], pairs[0][1])
    shapes, strides = zip(*pairs)
    return Layout._trusted(shapes, strides)


def weak_pairs(layout: Layout, modes: list[tuple[int, int]], m: int | None) -> Pairs:
    """:func:`weak_from_modes` as flat ``(extent, stride)`` pairs: already coalesced, the rest mode kept last
    even at extent 1 (what ``coalesce_extended`` of the result's leaves gives)."""
    gaps: Pairs = []
    cur = 1
    chained = True
    a_size = r_size = 1  # A's size, and R's without its rest mode
    for d, s in modes:
        gap = d // cur
        if gap == 0:
            check_injective(layout, [(s, d) for d, s in modes], "weak_complement")  # overlapping spans: say so
            raise CompositionError(  # if A is not injective
                f"weak_complement of {layout}: its mode {s}:{d} starts inside the span [0, {cur}) of the modes "
                "below it, so CuTe's gap-filling construction has no ordered answer"
            )
        if d != cur * gap:
            chained = False
        a_size *= s
        if gap > 1:
            gaps.append((gap, cur))
            r_size *= gap
        cur = s * d
    rest = 1 if m is None else -(-m // cur)
    # No two of R's modes merge: gap k ends at gap_k * cur_(k-1) <= d_k, and every later mode starts at
    # cur_j >= s_k * d_k > d_k; so R is built coalesced (chained or not).
    gaps.append((rest, cur))
    if not chained:
        # Proved without enumeration: the modes R_1, A_1, R_2, A_2, ..., rest (R_k = gap k at stride cur_(k-1),
        # A_k = s_k:d_k) are superincreasing, each stride above the largest offset of the modes before it.  By
        # induction, with `span` that largest offset: span < cur before mode k (0 < 1 at the start); the loop
        # above only goes on when d_k >= cur, so the gap's offsets reach (gap_k - 1) * cur + span < gap_k * cur
        # <= d_k, and A_k's then reach (s_k - 1) * d_k + that < s_k * d_k = the next cur.  So (A, R) has distinct
        # sums for every rest extent, and R's own modes, a subsequence, are ordered.  (An enumerating fallback
        # for non-superincreasing strides could never run, so there is none.)  The enumeration limits of the
        # general check still apply, in its order, so refusals are unchanged.
        check_domain(a_size, "weak_complement check")
        check_domain(r_size * (rest + 1), "weak_complement check")
    return gaps


def _flat(shape: tuple[Any, ...]) -> bool:
    for s in shape:
        if type(s) is not int:
            return False
    return True


__all__ = ["weak_complement"]

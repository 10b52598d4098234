"""CuTe's ``complement``, returned exactly when a complement exists."""

from __future__ import annotations

from typing import Any, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.complement_search import forced_offsets, layout_with_prefix
from layoutalg.core.flat import (
    ENUMERATION_LIMIT,
    Pairs,
    check_domain,
    check_injective,
    check_layout,
    coalesce_pairs,
    from_pairs,
    leaf_pairs,
)
from layoutalg.core.layout import Layout, offsets_of_modes
from layoutalg.core.memo import memoized
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.symbolic import SymbolicLayout, has_sym
from layoutalg.core.validate import MAX_INT_BITS, count_text
from layoutalg.errors import CompositionError, LayoutError, NotInjectiveError, ShapeError

_LIMIT = 1 << MAX_INT_BITS

#: The most offsets complement's forced-offset walk visits (2^18: under a tenth of a second at worst).
GREEDY_LIMIT = 1 << 18


def complement(layout: Layout, cotarget: Any = None) -> Layout:
    """CuTe ``complement(A, M)``: the layout ``R`` of the offsets ``A`` leaves out, up to ``M``.

    ``M`` defaults to ``cosize(A)``; a shape is read as its size (as CuTe DSL
    does).  Stride-0 modes are ignored (CuTe filters them), so ``A`` means
    ``filter(A)`` below.  CuTe's algorithm sorts A's modes by stride and fills
    each gap: ``R = (d1/1, d2/(s1 d1), ..., ceil(M/(sn dn))) : (1, s1 d1, ..., sn dn)``,
    coalesced.

    The definition: ``R`` is ordered (``R(i) < R(i+1)``, CuTe's postcondition),
    ``make_layout(A, R)`` is injective, and its image covers ``[0, M)``.  A
    complement is returned **exactly when one exists**:

    * when A's sorted strides form a divisor chain, every division above is
      exact and CuTe's answer is a complement by construction;
    * otherwise (CuTe floors the division and can return a non-covering or
      malformed layout, e.g. a 0 extent, on which CuTe DSL even crashes with
      SIGFPE) CuTe's candidate is checked on the whole domain and returned if
      it is one; if not, the one candidate that every complement must start
      with is built and checked (offsets below ``M`` are forced greedily, and
      so is R's shortest prefix holding them; the proof is in
      :mod:`layoutalg.core.complement_search`).  If that fails, none exists.

    ``complement((2,2):(2,3), 1) == 1:0``; ``complement((2,2):(1,3), 12)``
    raises :class:`CompositionError` (A covers 0, 1, 3, 4, so offset 2 is
    forced, and A shifted by 2 covers 3 again).  Raises :class:`NotInjectiveError` when
    ``filter(A)`` is not injective.  Negative strides are outside CuTe's
    domain and raise.  A coordinate layout (basis strides) is complemented axis by axis, each axis with its
    extent in ``M``, a shape (:func:`layoutalg.core.stride_codomain.complement`).
    """
    if type(layout) is not Layout:
        if type(layout) is SymbolicLayout or has_sym(cotarget, "complement cotarget"):
            return _symbolic_complement(layout, cotarget)
        if type(layout) is StrideLayout:  # a coordinate layout: axis by axis
            from layoutalg.core import stride_codomain

            return stride_codomain.complement(layout, cotarget)  # type: ignore[no-any-return]
        layout = check_layout(layout, "complement layout")
    elif type(cotarget) is not int and has_sym(cotarget, "complement cotarget"):
        return _symbolic_complement(layout, cotarget)
    m = _cotarget(layout, cotarget)
    return _complement(layout, m)


def _symbolic_complement(layout: Any, cotarget: Any) -> Any:
    """A symbolic layout or cotarget: :func:`layoutalg.core.symbolic_ops.complement` (``M`` defaults to the cosize)."""
    from layoutalg.core import symbolic_ops

    return symbolic_ops.complement(layout, symbolic_ops.cosize(layout) if cotarget is None else cotarget)


def _cotarget(layout: Layout, cotarget: Any) -> int:
    if type(cotarget) is int and 1 <= cotarget < _LIMIT:
        return cotarget
    if cotarget is None:
        return layout.cosize()
    if isinstance(cotarget, Layout):
        raise ShapeError("complement cotarget must be an int or a shape, not a Layout")
    value = it.product(it.to_int_tuple(cotarget, "complement cotarget"))
    if not 1 <= value < _LIMIT:
        raise ShapeError(f"complement cotarget must be positive and below 2**{MAX_INT_BITS}, got {count_text(value)}")
    return value


def _complement(layout: Layout, m: int) -> Layout:
    by_stride = sorted([(d, s) for s, d in leaf_pairs(layout) if d != 0 and s != 1])
    if by_stride and by_stride[0][0] < 0:
        d, s = by_stride[0]
        raise LayoutError(f"complement needs non-negative strides; {layout} has stride {d} (extent {s})")
    chained = _chained(by_stride, m)
    return _unchained(layout, m) if chained is None else chained


def sorted_modes(layout: Layout) -> list[tuple[int, int]]:
    """``layout``'s leaves as sorted ``(stride, extent)`` pairs, stride-0 and extent-1 leaves left out: what
    :func:`complement` works on."""
    shape: Any = layout.shape
    stride: Any = layout.stride
    if type(shape) is int:
        return [] if stride == 0 or shape == 1 else [(stride, shape)]
    for s in shape:
        if type(s) is not int:
            return sorted([(d, s) for s, d in leaf_pairs(layout) if d != 0 and s != 1])
    return sorted([(d, s) for s, d in zip(shape, stride) if d != 0 and s != 1])


def _chained(by_stride: list[tuple[int, int]], m: int) -> Layout | None:
    pairs = chained_pairs(by_stride, m)
    if pairs is None:
        return None
    if len(pairs) == 1:
        return Layout._trusted(pairs[0][0], pairs[0][1])
    shapes, strides = zip(*pairs)
    return Layout._trusted(shapes, strides)


def chained_pairs(by_stride: list[tuple[int, int]], m: int) -> Pairs | None:
    """CuTe's complement when A's sorted strides (its :func:`sorted_modes`) form a divisor chain, as flat
    ``(extent, stride)`` pairs, already coalesced; None when the strides do not chain (none negative here)."""
    # Fast path, A's strides a divisor chain: CuTe's answer, built coalesced (gap modes never merge:
    # gap k ends at d_k and the next starts at s_k*d_k > d_k; only extent-1 gaps drop out).
    pairs: Pairs = []
    cur = 1
    for d, s in by_stride:
        if d % cur:
            return None
        if d != cur:
            pairs.append((d // cur, cur))
        cur = s * d
    rest = -(-m // cur)
    if rest > 1 or not pairs:
        pairs.append((rest, cur if rest > 1 else 0))
    return pairs


@memoized
def _unchained(layout: Layout, m: int) -> Layout:
    """Not a chain: first the structural refutation, then CuTe's candidate (floored divisions) and the forced one
    (remembered: the checks enumerate the layouts)."""
    by_stride = sorted([(d, s) for s, d in leaf_pairs(layout) if d != 0 and s != 1])
    _refute_by_first_break(layout, by_stride, m)
    gaps: Pairs = []  # CuTe's gap-filling modes, one per mode of A
    cur = 1
    for d, s in by_stride:
        gaps.append((d // cur, cur))
        cur = s * d
    return _check_complement(layout, [(s, d) for d, s in by_stride], _gap_layout(gaps, cur, m), m)


def _refute_by_first_break(layout: Layout, by_stride: list[tuple[int, int]], m: int) -> None:
    """Decide "no complement" from A's strides alone, where the first mode that breaks the divisor chain shows it.

    The modes before the break (sorted by stride) form a chain; their offsets ``C`` and CuTe's gap modes ``T``
    tile the integers: every ``x`` is ``c + t`` in exactly one way (mixed-radix digits: the chain modes' digits
    make ``c``).  Below the breaking stride ``d`` only ``C`` covers anything, so every complement's offsets
    below ``min(d, M)`` are exactly ``T``'s (the forced walk of :mod:`~layoutalg.core.complement_search`).
    Split ``d = c + t``: if ``c > 0`` and ``t < M``, the forced offset ``t`` shifts ``A`` onto ``t + c == d``,
    which ``A`` reaches itself: no complement exists (and if ``t == 0``, ``d`` is an offset of ``C``: ``A`` is
    not injective).  Raises, or returns when this does not decide.
    """
    split = _first_break(by_stride)
    if split is None or split[2] == 0:
        return
    k, d, c, t = split
    if t == 0:
        chain = by_stride[:k]
        raise NotInjectiveError(
            f"complement needs an injective layout; {layout} reaches offset {d} twice: with its stride-{d} "
            f"mode at 1, and with its modes of strides {[dj for dj, _ in chain]} at "
            f"{[(d // dj) % sj for dj, sj in chain]}"
        )
    if t < m:
        if _size(by_stride) <= ENUMERATION_LIMIT:
            check_injective(layout, [(sj, dj) for dj, sj in by_stride], "complement")  # the precise error first
        raise CompositionError(
            f"{layout} has no complement for cotarget {m}: below its stride {d} (which breaks the divisor "
            f"chain of its smaller strides) every complement must hold offset {t}, and A shifted by {t} "
            f"reaches {d} = {t} + {c}, an offset A reaches itself"
        )


def _first_break(by_stride: list[tuple[int, int]]) -> tuple[int, int, int, int] | None:
    """``(k, d, c, t)`` for the first mode ``k`` (stride ``d``) whose stride breaks the divisor chain, with
    ``d = c + t`` split as :func:`_refute_by_first_break` says; None for a chain."""
    cur = 1
    for k, (d, s) in enumerate(by_stride):
        if d % cur:
            c = sum(((d // dj) % sj) * dj for dj, sj in by_stride[:k])
            return k, d, c, d - c
        cur = s * d
    return None


def refuted_injective(by_stride: list[tuple[int, int]], m: int) -> bool:
    """True when ``complement(A, m)`` raises :class:`CompositionError` by the first-break refutation while ``A``
    (given by its :func:`sorted_modes`) is injective (shown by its sorted strides being superincreasing: each
    above the largest offset of the modes below it), decided without enumerating or raising; False means
    "not shown"."""
    span = 0
    for d, s in by_stride:
        if d <= span:  # also refuses negative strides (span starts at 0)
            return False
        span += (s - 1) * d
    split = _first_break(by_stride)
    return split is not None and split[2] > 0 and 0 < split[3] < m


def _size(by_stride: list[tuple[int, int]]) -> int:
    n = 1
    for _, s in by_stride:
        n *= s
    return n


def _gap_layout(gaps: Pairs, cur: int, m: int) -> Layout:
    """CuTe's complement from the gap modes and the rest mode ``ceil(M/cur):cur``, coalesced."""
    modes = [(g, c) for g, c in gaps if g > 1] + [(it.ceil_div(m, cur), cur)]
    return from_pairs(coalesce_pairs(modes))


def _check_complement(layout: Layout, pairs: Pairs, cute: Layout, m: int) -> Layout:
    """CuTe's candidate when it is a complement, else the one candidate every complement starts with, else raise.

    The second candidate and why it decides existence: :mod:`layoutalg.core.complement_search`.
    """
    import numpy as np

    check_injective(layout, pairs, "complement")
    a_vals = offsets_of_modes([s for s, _ in pairs] or [1], [d for _, d in pairs] or [0])
    what = f"complement of {layout} for {m}"
    if m + int(a_vals.max()) > GREEDY_LIMIT:
        if _is_complement(a_vals, cute, m, what):
            return cute
        raise CompositionError(
            f"{what}: CuTe's candidate is not a complement, and deciding whether another is walks "
            f"{m + int(a_vals.max())} offsets one by one (limit {GREEDY_LIMIT}); "
            "no result is returned rather than an unchecked one"
        )
    # The forced walk first: where it clashes (the usual failure) no complement exists, found cheaply.
    forced, clash = forced_offsets([int(v) for v in np.sort(a_vals)], m)
    if clash is not None:
        raise CompositionError(
            f"{layout} has no complement for cotarget {m}: covering [0, {m}) from 0 upwards forces the offsets "
            f"{_head(forced + [clash[0]])}, and A shifted by {clash[0]} hits offset {clash[1]}, which is already covered"
        )
    if _is_complement(a_vals, cute, m, what):
        return cute
    candidate = from_pairs(layout_with_prefix(forced))
    if _is_complement(a_vals, candidate, m, what):
        return candidate
    raise CompositionError(
        f"{layout} has no complement for cotarget {m}: the only layout that can start with the forced "
        f"offsets {_head(forced)} is {candidate}, which is not one"
    )


def _head(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values[:8]) + (", ...]" if len(values) > 8 else "]")


def _is_complement(a_vals: Any, candidate: Layout, m: int, what: str) -> bool:
    """``candidate`` is ordered, ``(A, candidate)`` injective, and their offsets cover ``[0, m)``."""
    import numpy as np

    n = a_vals.size * candidate.size()
    if n < m:
        return False  # too few offsets to cover [0, M)
    check_domain(n, what)
    r_vals = candidate.to_numpy()
    if r_vals.size > 1 and not bool((np.diff(r_vals) > 0).all()):
        return False
    vals = (a_vals[None, :] + r_vals[:, None]).ravel()
    return np.unique(vals).size == vals.size and bool(np.isin(np.arange(m), vals).all())

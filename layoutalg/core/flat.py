"""Flat ``(extent, stride)`` pairs: the working form of the algebra, and its shared checks.

A layout's leaves, left to right, as a list of pairs; "coalesced" means no
size-1 modes and no neighbours with ``s0 * d0 == d1`` (the same 1-D
function).  Also the two whole-domain checks every operation shares:
the enumeration limit and injectivity with a named witness.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from layoutalg.core.layout import Layout, as_layout, offsets_of_modes
from layoutalg.core.validate import count_text
from layoutalg.errors import CompositionError, LayoutError, NotInjectiveError

Pairs = list[tuple[int, int]]

#: The largest domain the algebra enumerates to check a result it cannot prove (2^20 offsets, a few tenths of a
#: second): past it an unprovable case is refused up front, before any work, rather than answered unchecked.
ENUMERATION_LIMIT = 1 << 20


# ---------------------------------------------------------------------------
# flat helpers (lists of (extent, stride) pairs)
# ---------------------------------------------------------------------------
def leaf_pairs(layout: Layout) -> Pairs:
    """The leaves of ``layout`` as ``(extent, stride)`` pairs, left to right."""
    shape, stride = layout.shape, layout.stride
    if type(shape) is not tuple:
        return [(shape, stride)]  # type: ignore[list-item]
    out: Pairs = []
    _pairs_into(shape, stride, out)
    return out


def _pairs_into(shape: Any, stride: Any, out: Pairs) -> None:
    for s, d in zip(shape, stride):
        if type(s) is tuple:
            _pairs_into(s, d, out)
        else:
            out.append((s, d))


def coalesce_pairs(pairs: Sequence[tuple[int, int]]) -> Pairs:
    """Drop size-1 modes and merge neighbours with ``s0 * d0 == d1`` (same 1-D function)."""
    out: Pairs = []
    for s, d in pairs:
        if s != 1:  # _append_merging, inline (a hot loop)
            if out and out[-1][0] * out[-1][1] == d:
                out[-1] = (out[-1][0] * s, out[-1][1])
            else:
                out.append((s, d))
    return out


def _append_merging(out: Pairs, s: int, d: int) -> None:
    """Append ``s:d``, merged into the last mode when it continues it (``s0 * d0 == d``)."""
    if out and out[-1][0] * out[-1][1] == d:
        out[-1] = (out[-1][0] * s, out[-1][1])
    else:
        out.append((s, d))


def coalesce_extended(pairs: Sequence[tuple[int, int]]) -> Pairs:
    """Like :func:`coalesce_pairs`, but the same function on *every* index ``x >= 0``.

    Past ``size`` a layout's last leaf keeps counting, so the last leaf is never
    dropped (``(4,1):(1,0)`` maps 5 to 1, where ``4:1`` maps it to 5); merging
    it into its neighbour when ``s0*d0 == d1`` keeps the extension.
    """
    if not pairs:
        return []
    out = coalesce_pairs(pairs[:-1])
    _append_merging(out, *pairs[-1])
    return out


def from_pairs(pairs: Sequence[tuple[int, int]]) -> Layout:
    """``1:0`` for no modes, ``s:d`` for one, a flat tuple otherwise."""
    if not pairs:
        return Layout._trusted(1, 0)
    if len(pairs) == 1:
        return Layout._trusted(pairs[0][0], pairs[0][1])
    shapes, strides = zip(*pairs)
    return Layout._trusted(shapes, strides)


def check_layout(x: Any, what: str) -> Layout:
    """``x`` as a Layout (a shape or int is made one), errors prefixed with the argument's name."""
    try:
        return as_layout(x, what)
    except LayoutError as err:
        raise type(err)(f"{what}: {err}") from None


# ---------------------------------------------------------------------------
# whole-domain checks
# ---------------------------------------------------------------------------
def check_domain(n: int, what: str) -> None:
    """Refuse (CompositionError) to enumerate more than ENUMERATION_LIMIT offsets to check ``what``."""
    if n > ENUMERATION_LIMIT:
        raise CompositionError(
            f"{what}: cannot be proved without enumerating {count_text(n)} offsets (limit {ENUMERATION_LIMIT}); "
            "no result is returned rather than an unchecked one"
        )


def check_injective(layout: Layout, pairs: Pairs, what: str) -> None:
    """Raise NotInjectiveError, with two colliding coordinates, if the flat ``pairs`` layout is not injective."""
    import numpy as np

    n = math.prod(s for s, _ in pairs)
    check_domain(n, f"{what}: injectivity of {layout}")
    vals = offsets_of_modes([s for s, _ in pairs] or [1], [d for _, d in pairs] or [0])
    _, first, counts = np.unique(vals, return_index=True, return_counts=True)
    if (counts > 1).any():
        dup = int(np.flatnonzero(counts > 1)[0])
        i = int(first[dup])
        j = int(np.flatnonzero(vals == vals[i])[1])
        raise NotInjectiveError(
            f"{what} needs an injective layout; {layout} (stride-0 modes ignored) maps "
            f"flat indices {i} and {j} both to offset {int(vals[i])}"
        )

"""``greatest_common_domain(A, B)``: the common factorization of two shapes' index domains, in leaf order.

Definition (PyCuTe ``greatest_common_domain``, used by its optimized ``copy`` to find the
runs two tensors can move together; CuTe C++ has no counterpart).  A shape's leaves
``s_k`` split the 1-D index domain at the index strides ``d_k = s_0 ... s_(k-1)``; inside
a leaf, ``d_k * m`` for every divisor ``m`` of ``s_k`` is also a split point (the leaf
refines as ``(m, s_k/m)``).  The walk starts at index 1 and, at a split point ``q`` of
both shapes, takes ``g = gcd`` of what is left of the two leaves there: ``g > 1`` gives
the mode ``g : q`` and the walk goes on at ``q*g``; ``g == 1`` jumps to the next split
point the two share.  The result is those modes, not coalesced (``(16,64)`` and
``(4,16,16)`` give ``(4,4,4,16):(1,4,16,64)``), with ``(1,):(0,)`` for none.

Every mode ``g:q`` lies inside one leaf of each shape at a split point, so
``composition(shape, R)`` is a layout for both (PyCuTe's post-condition).  It is the
greatest *in leaf order*: factors are matched only where both walks stand at the same
split point, so ``(7,2,2,2,2,3,5)`` and ``(7,3,2,2,2,2,5)`` give ``(7,5):(1,336)``
although the 48 indices between them also split both ways.  Only the shapes matter.
"""

from __future__ import annotations

import bisect
import functools
import math
from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout


def _shape(x: Any, what: str) -> Any:
    layout = getattr(x, "layout", None)
    shape = getattr(layout if layout is not None else x, "shape", x)
    return it.to_int_tuple(shape, what)


@functools.lru_cache(maxsize=1024)
def _divisors(n: int) -> list[int]:
    small, large = [], []
    k = 1
    while k * k <= n:
        if n % k == 0:
            small.append(k)
            if k * k != n:
                large.append(n // k)
        k += 1
    return small + large[::-1]


class _Splits:
    """The split points of one shape's index domain and what is left of a leaf at each."""

    def __init__(self, shape: Any) -> None:
        self.left: dict[int, int] = {}
        running = 1
        for s in it.flatten(shape):
            if s == 1:
                continue
            for m in _divisors(s)[:-1]:  # the leaf's end is the next leaf's start
                self.left[running * m] = s // m
            running *= s
        self.size = running
        self.left.setdefault(running, 1)


def greatest_common_domain(a: Any, b: Any) -> Layout:
    """The modes ``g:q`` both shapes split at, in leaf order (see the module docstring); symmetric in A and B."""
    sa = _Splits(_shape(a, "greatest_common_domain A"))
    sb = _Splits(_shape(b, "greatest_common_domain B"))
    common = sorted(set(sa.left) & set(sb.left))
    shapes: list[int] = []
    strides: list[int] = []
    q = 1
    end = min(sa.size, sb.size)
    while q < end:
        g = math.gcd(sa.left[q], sb.left[q])
        if g > 1:
            shapes.append(g)
            strides.append(q)
            q *= g
            continue
        nxt = bisect.bisect_right(common, q)
        if nxt == len(common):
            break
        q = common[nxt]
    if not shapes:
        return Layout._trusted((1,), (0,))
    return Layout._trusted(tuple(shapes), tuple(strides))


__all__ = ["greatest_common_domain"]

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

The walk never lists divisors (a leaf of ``2**64`` has too many to try): the common split
points of leaf ``i`` of A (indices ``[DA_i, DA_(i+1))``) and leaf ``j`` of B are the ``v`` with
``lcm(DA_i, DB_j) | v | gcd(DA_(i+1), DB_(j+1))``, so the least one is that lcm when it divides
that gcd; and past a point ``q`` where ``g == 1`` the pair holds no other (a later ``v`` would
make ``lcm(q, v) / q`` a common factor of what is left of the two leaves).  Each step either
emits a mode (``q`` at least doubles) or moves to the next pair of leaves, so the work is
polynomial in the shapes' size in bits.
"""

from __future__ import annotations

import math
from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout
from layoutalg.errors import ShapeError


def _shape(x: Any, what: str) -> Any:
    layout = getattr(x, "layout", None)
    shape = getattr(layout if layout is not None else x, "shape", x)
    return it.to_int_tuple(shape, what)


def _bounds(shape: Any, what: str) -> list[int]:
    """The index strides ``1 = D_0 < D_1 < ... < D_n = size`` at which the non-1 leaves of ``shape`` start."""
    bounds = [1]
    for s in it.flatten(shape):
        if s < 1:
            raise ShapeError(f"{what}: leaf {s} is not positive; a shape's extents must be positive")
        if s != 1:
            bounds.append(bounds[-1] * s)
    return bounds


def greatest_common_domain(a: Any, b: Any) -> Layout:
    """The modes ``g:q`` both shapes split at, in leaf order (see the module docstring); symmetric in A and B."""
    da = _bounds(_shape(a, "greatest_common_domain A"), "greatest_common_domain A")
    db = _bounds(_shape(b, "greatest_common_domain B"), "greatest_common_domain B")
    shapes: list[int] = []
    strides: list[int] = []
    end = min(da[-1], db[-1])
    i = j = 0  # the leaves (of the non-1 ones) holding q: da[i] <= q < da[i + 1], likewise for B
    q = 1
    while q < end:
        while da[i + 1] <= q:
            i += 1
        while db[j + 1] <= q:
            j += 1
        g = math.gcd(da[i + 1] // q, db[j + 1] // q)  # what is left of each leaf at q (q divides both ends)
        if g > 1:
            shapes.append(g)
            strides.append(q)
            q *= g
            continue
        q = _next_common(da, db, i, j)  # none left in this pair of leaves: the first in a later pair
    if not shapes:
        return Layout._trusted((1,), (0,))
    return Layout._trusted(tuple(shapes), tuple(strides))


def _next_common(da: list[int], db: list[int], i: int, j: int) -> int:
    """The least split point both shapes share in a pair of leaves after ``(i, j)``; ``da[-1]`` (an end) if none."""
    while True:
        if da[i + 1] <= db[j + 1]:  # step past the leaf that ends first (both when they end together)
            if da[i + 1] == db[j + 1]:
                j += 1
            i += 1
        else:
            j += 1
        if i + 1 >= len(da) or j + 1 >= len(db):
            return max(da[-1], db[-1])
        lo = da[i] * db[j] // math.gcd(da[i], db[j])
        hi = math.gcd(da[i + 1], db[j + 1])
        if hi % lo == 0 and lo < min(da[i + 1], db[j + 1]):
            return lo


__all__ = ["greatest_common_domain"]

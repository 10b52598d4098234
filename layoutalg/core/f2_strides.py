"""Inverses of layouts with F2 strides, by linear algebra over GF(2).

With power-of-two extents, an F2-stride layout is a GF(2)-linear map of the index bits:
leaf ``2^k : d`` sends bit ``t`` of its coordinate to the column ``2^t * d`` (carry-less), and
the value is the XOR of the columns of the set bits.  Its inverses are linear too, and are
returned as F2-stride layouts (their values are indices, as F2 bits), coalesced:

* ``right_inverse(L)``: the largest ``k`` with every value ``< 2^k`` reached (the unit
  vectors ``1, 2, ..., 2^(k-1)`` in the column span); ``R`` sends value bit ``b`` to a
  preimage of ``2^b``, so ``L(R(v)) == v`` for every ``v < 2^k``.  A swizzle is its own:
  ``right_inverse((8,8):(F2(1),F2(9))) == (8,8):(F2(1),F2(9))``.
* ``left_inverse(L)``: for an injective ``L`` (independent columns), ``R`` with ``R(L(i)) == i``,
  defined on the value bits ``L`` reaches (the others are sent to 0); stride-0 leaves are
  skipped (their coordinate comes back as 0: ``L(R(L(i))) == L(i)``, the generalized inverse).

With a non-power-of-two extent the index carries between bits and the map is not linear:
``right_inverse`` then enumerates (the values ``0 .. k-1`` reached, each sent to its smallest
preimage, read back as an F2 layout and checked); ``left_inverse`` refuses it
(:class:`ShapeError`), and a non-injective one (:class:`NotInjectiveError`).
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.stride_scalars import F2, clmul
from layoutalg.errors import NotInjectiveError, ShapeError


def _columns(layout: Any) -> list[int]:
    """The image of each index bit, lowest first (the layout's GF(2) matrix by columns)."""
    cols: list[int] = []
    for s, d in layout.pairs():
        if s & (s - 1):
            raise ShapeError(f"{layout}: extent {s} is not a power of two, so the F2 layout is not linear in index bits")
        value = int(d) if isinstance(d, F2) else d
        if not isinstance(value, int) or (value != 0 and not isinstance(d, F2)):
            raise ShapeError(f"{layout}: stride {d} mixes F2 with another kind")
        cols += [clmul(1 << t, value) for t in range(s.bit_length() - 1)]
    return cols


def _reduce(cols: list[int]) -> dict[int, tuple[int, int]]:
    """Echelon form: pivot bit -> (column value with that leading bit, index bits combined into it)."""
    basis: dict[int, tuple[int, int]] = {}
    for j, col in enumerate(cols):
        v, idx = col, 1 << j
        while v:
            top = v.bit_length() - 1
            if top not in basis:
                basis[top] = (v, idx)
                break
            v ^= basis[top][0]
            idx ^= basis[top][1]
    return basis


def _preimage(basis: dict[int, tuple[int, int]], target: int) -> int | None:
    v, idx = target, 0
    while v:
        top = v.bit_length() - 1
        if top not in basis:
            return None
        v ^= basis[top][0]
        idx ^= basis[top][1]
    return idx


def int_values(pairs: list[tuple[int, Any]]) -> list[int]:
    """The values of the leaves ``(extent, stride)`` (an F2 or 0) as plain ints, in index order (the first leaf
    varies fastest): the XOR over the leaves of ``c (x) d``, ``c`` the leaf's coordinate (carry-less)."""
    values = [0]
    for s, d in pairs:
        step = int(d)
        values = [v ^ clmul(c, step) for c in range(s) for v in values]
    return values


def _as_layout(images: list[int]) -> Any:
    from layoutalg.core.stride_layout import StrideLayout
    from layoutalg.core.stride_layout_ops import coalesce

    if not images:
        from layoutalg.core.layout import Layout

        return Layout._trusted(1, 0)
    return coalesce(StrideLayout((2,) * len(images), tuple(F2(x) for x in images)))


def _synthesise(values: list[int]) -> Any:
    """The F2-stride layout whose values are ``values`` (greedy, as ``synthesise_1d``: the first mode's stride
    is ``values[1]``, its extent the first index ``i`` with ``values[i] != i * stride`` carry-less), checked."""
    from layoutalg.core.stride_layout import StrideLayout

    n = len(values)
    pairs: list[tuple[int, int]] = []
    step, m = 1, n
    while m > 1:
        sub = values[::step][:m]
        d = sub[1]
        e = next((i for i in range(1, m) if sub[i] != clmul(i, d)), m)
        if m % e:
            return None
        pairs.append((e, d))
        step, m = step * e, m // e
    if not pairs:
        return None
    candidate = StrideLayout(tuple(e for e, _ in pairs), tuple(F2(d) for _, d in pairs))
    return candidate if int_values(candidate.pairs()) == values else None


def _right_inverse_by_values(layout: Any) -> Any:
    """A non-power-of-two F2 layout: the values ``0 .. k-1`` it reaches (k largest), each sent to its smallest
    preimage, read as an F2 layout; when they are not one, the largest shorter prefix ``0 .. k'-1`` whose
    preimages are (a right inverse on fewer values is still one; ``1:0`` at least, as PyCuTe's chain walk gives
    when no mode has stride ``F2(1)``).  Past 4096 values only the power-of-two prefixes are tried."""
    from layoutalg.core.flat import check_domain

    check_domain(layout.size(), f"right_inverse of {layout}")
    first: dict[int, int] = {}
    for i, v in enumerate(int_values(layout.pairs())):
        first.setdefault(v, i)
    k = 0
    while k in first:
        k += 1
    if k <= 1:
        from layoutalg.core.layout import Layout

        return Layout._trusted(1, 0)
    from layoutalg.core.stride_layout_ops import coalesce

    sizes = range(k, 1, -1) if k <= 4096 else [k] + [1 << b for b in range(k.bit_length() - 1, 0, -1) if 1 << b < k]
    for n in sizes:
        found = _synthesise([first[v] for v in range(n)])
        if found is not None:
            return coalesce(found)
    from layoutalg.core.layout import Layout

    return Layout._trusted(1, 0)


def right_inverse(layout: Any) -> Any:
    """The largest ``R`` with ``L(R(v)) == v`` (see the module docstring)."""
    if any(s & (s - 1) for s, _ in layout.pairs()):
        return _right_inverse_by_values(layout)
    basis = _reduce(_columns(layout))
    images: list[int] = []
    while True:
        pre = _preimage(basis, 1 << len(images))
        if pre is None:
            return _as_layout(images)
        images.append(pre)


def left_inverse(layout: Any) -> Any:
    """``R`` with ``R(L(i)) == i`` for an injective F2 layout (see the module docstring)."""
    cols = _columns(layout)
    basis = _reduce(cols)
    if len(basis) < sum(1 for c in cols if c):  # zero columns (stride-0 leaves) come back as 0, as for ints
        raise NotInjectiveError(f"left_inverse of {layout}: its index bits are not independent over GF(2)")
    width = max(basis, default=-1) + 1
    images = []
    for b in range(width):  # R(2^b): the index whose image agrees with 2^b on the pivot bits
        images.append(_left_image(basis, 1 << b))
    return _as_layout(images)


def _left_image(basis: dict[int, tuple[int, int]], unit: int) -> int:
    """A linear left inverse's value at ``unit``: reduce it by the echelon basis, keep the index part."""
    v, idx = unit, 0
    while v:
        top = v.bit_length() - 1
        if top not in basis:
            v ^= 1 << top  # a bit no column reaches: sent to 0
            continue
        v ^= basis[top][0]
        idx ^= basis[top][1]
    return idx


__all__ = ["right_inverse", "left_inverse", "int_values"]

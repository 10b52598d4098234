"""CuTe's composition of a coalesced ``A`` with one leaf ``s:r`` of ``B``, and where the leaf's offsets sit in A's digits.

A coalesced ``A = (S_0, ..., S_(n-1)):(a_0, ..., a_(n-1))`` reads an offset
``x`` by its mixed-radix digits (radices ``S_0, S_1, ...``, the last digit
unbounded): ``A(x) = sum a_k digit_k(x)``.  When CuTe's divisibility
conditions hold for a leaf (its stride ``r`` is ``S_0 ... S_(m-1) * u`` with
``u | S_m``, and its extent then fills whole digits up to a divisor of the last
one it reaches), the leaf's offsets ``r*t`` (``t < s``) are exactly a box of
digit vectors: digit ``m`` runs over ``0, u, ..., (c_m - 1) u``, later digits
over ``0 .. c_k - 1``, and ``t -> digits`` is a bijection.  So each leaf's
result is exact on its own, and:

**Additivity across leaves (no carry).**  ``A(x + y) = A(x) + A(y)`` when the
digits of ``x`` and ``y`` add without a carry, because ``A`` is linear in each
digit.  For boxes, every combination of the leaves' offsets adds without a
carry iff, at every digit but the last, the leaves' largest digits sum to at
most ``S_k - 1``: then CuTe's summed answer is exact.

**A carry is a witness.**  If they sum to ``S_k`` or more, take each leaf
touching digit ``k`` at its largest digit there and 0 elsewhere: exactly one
carry happens, from digit ``k`` into ``k+1``, and changes ``A`` by
``a_(k+1) - S_k a_k``, never 0 in a coalesced layout.  So the summed answer is
wrong at that point; and when those leaves lie in two or more of B's top-level
modes without a carry inside any one mode, ``A o B`` is not additive across B's
top-level modes, so no layout with B's mode sizes has that function.  The
caller re-evaluates the witness before it trusts it.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.core.flat import Pairs, coalesce_pairs

#: One digit of A a leaf occupies, ``(position, count, step, weight)``:
#: ``digit_position(r*t) = step * ((t // weight) % count)``, so its largest value is ``(count - 1) * step``.
Place = tuple[int, int, int, int]


@dataclass(frozen=True)
class Leaf:
    """A leaf ``s:r`` of B, in top-level mode ``top`` with index stride ``index_stride`` there, and its digits."""

    stride: int
    top: int
    index_stride: int
    places: tuple[Place, ...]


def cute_leaf(flat_a: Pairs, s: int, r: int) -> tuple[Pairs, tuple[Place, ...]] | None:
    """CuTe's ``A o s:r`` for coalesced ``A`` (flat pairs, >= 2 modes), ``s > 1``, ``r > 0``, and the digits of A
    the leaf occupies (the last, unbounded digit left out: it never carries).

    None where CuTe's stride or shape divisibility condition fails (:func:`cute_condition_failing` says which).
    """
    found = _cute_walk(flat_a, s, r)
    return None if isinstance(found, str) else found


def cute_condition_failing(flat_a: Pairs, s: int, r: int) -> str | None:
    """Which of CuTe's conditions :func:`cute_leaf` finds failing for ``A o s:r`` (``s > 1``, ``r > 0``):
    ``"Stride divisibility"`` (``r`` neither divides nor is divided by A's extents in turn), ``"Shape
    divisibility"`` (the digits ``r`` leaves do not fit ``s``), or None.  The names are CuTe's, as PyCuTe's
    errors spell them."""
    found = _cute_walk(flat_a, s, r)
    return found if isinstance(found, str) else None


def _cute_walk(flat_a: Pairs, s: int, r: int) -> tuple[Pairs, tuple[Place, ...]] | str:
    """:func:`cute_leaf`'s answer, or the name of the CuTe condition that fails first."""
    rest_r = r
    strided: list[tuple[int, int, int, int]] = []  # (position, digits available, step, stride of A o that digit)
    for k, (a_s, a_d) in enumerate(flat_a[:-1]):
        if rest_r == 1:
            strided.append((k, a_s, 1, a_d))
        elif rest_r % a_s == 0:
            rest_r //= a_s
        elif a_s % rest_r == 0:
            strided.append((k, a_s // rest_r, rest_r, a_d * rest_r))
            rest_r = 1
        else:
            return "Stride divisibility"
    last_d = flat_a[-1][1] * rest_r
    out: Pairs = []
    places: list[Place] = []
    rest_s = s
    weight = 1
    for k, available, step, m_d in strided:
        if rest_s == 1:
            break
        if rest_s % available == 0:
            take = available
        elif available % rest_s == 0:
            take = rest_s
        else:
            return "Shape divisibility"
        out.append((take, m_d))
        places.append((k, take, step, weight))
        weight *= take
        rest_s //= take
    if rest_s > 1:
        out.append((rest_s, last_d))
    return coalesce_pairs(out), tuple(places)


def first_carry(flat_a: Pairs, leaves: list[Leaf]) -> int | None:
    """The first digit (not the last) at which the leaves' largest digits sum past ``S_k - 1``; None: no carry ever."""
    totals = [0] * len(flat_a)
    for leaf in leaves:
        for position, count, step, _ in leaf.places:
            totals[position] += (count - 1) * step
    for k, (extent, _) in enumerate(flat_a[:-1]):
        if totals[k] >= extent:
            return k
    return None


def carry_witness(leaves: list[Leaf], k: int) -> dict[int, int]:
    """``{leaf number: t}``: each leaf touching digit ``k`` at its largest digit there, 0 at its other digits."""
    picks = {}
    for j, leaf in enumerate(leaves):
        for position, count, _, weight in leaf.places:
            if position == k and count > 1:
                picks[j] = (count - 1) * weight
    return picks


__all__ = ["Place", "Leaf", "cute_leaf", "first_carry", "carry_witness"]

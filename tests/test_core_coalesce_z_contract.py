"""``coalesce_z``'s contract beyond plain layouts: a profile coalesces mode by mode, a profile longer than the
layout is refused naming it, and basis-stride layouts keep their function on every index.  Truths: the layouts'
own values, enumerated past their size (``coalesce_z`` keeps the function on every index ``i >= 0``)."""

from __future__ import annotations

from typing import Any

import pytest

import layoutalg as la
from layoutalg.core.stride_scalars import E


def test_a_none_in_the_profile_keeps_that_mode_as_it_is_and_coalesces_the_others() -> None:
    a = la.Layout(((2, 2), (3, 4)), ((1, 2), (4, 12)))
    r = la.coalesce_z(a, (None, 1))
    # mode 0 kept, though (2,2):(1,2) would merge to 4:1; mode 1, (3,4):(4,12), merged
    assert r.shape == ((2, 2), 12) and r.stride == ((1, 2), 4)
    assert [r(i) for i in range(a.size())] == [a(i) for i in range(a.size())]


def test_modes_past_a_short_profile_are_kept() -> None:
    a = la.Layout(((2, 2), (3, 4)), ((1, 2), (4, 12)))
    r = la.coalesce_z(a, (1,))
    assert r.shape == (4, (3, 4)) and r.stride == (1, (4, 12))


def test_a_profile_longer_than_the_layout_is_refused_naming_the_profile() -> None:
    with pytest.raises(la.ShapeError, match=r"coalesce_z profile \(1, 1, 1\) has more modes than the rank-2"):
        la.coalesce_z(la.Layout((2, 3), (1, 2)), (1, 1, 1))


def test_a_basis_stride_layout_keeps_its_function_on_every_index() -> None:
    a = la.stride_layout((2, 3, 1), (E(0), 2 * E(0), 5 * E(1)))
    r = la.coalesce_z(a)
    assert r is not None and r.size() == 6
    assert [r(i) for i in range(20)] == [a(i) for i in range(20)]  # past the size too


def test_a_shape_given_as_the_layout_means_its_compact_layout() -> None:
    assert la.coalesce_z((4, 2)) == la.Layout(8, 1)  # (4,2):(1,4) is 8:1 on every index


def test_a_symbolic_layout_is_coalesced_symbolically() -> None:
    import sympy

    x = sympy.Symbol("X", positive=True, integer=True)
    got = la.coalesce_z(la.symbolic_layout((2, 4), (x, 2 * x)))  # x*i on every i: one mode 8:X
    assert got.subs({x: 3}) == la.Layout(8, 3)


def test_a_profile_for_a_symbolic_layout_coalesces_it_mode_by_mode() -> None:
    """PyCuTe's ``coalesce_z(A, profile)`` for sympy strides as for ints: mode 0 ``(2,2):(X,2X)`` merges to
    ``4:X``, the ``None`` mode is kept as it is."""
    import sympy

    x = sympy.Symbol("X", positive=True, integer=True)
    a = la.symbolic_layout(((2, 2), (3, 1)), ((x, 2 * x), (5, 7)))
    got: Any = la.coalesce_z(a, (1, None))
    assert got.shape == (4, (3, 1)) and got.stride == (x, (5, 7))
    assert la.coalesce_z(a, (None, None)).shape == a.shape
    for value in (2, 3):
        concrete, want = got.subs({x: value}), a.subs({x: value})
        assert [concrete(i) for i in range(12)] == [want(i) for i in range(12)]


def test_a_profile_for_a_basis_or_f2_stride_layout_coalesces_it_mode_by_mode() -> None:
    """Basis strides: ``(2,3):(E0,2E0)`` merges to ``6:E0``, ``(2,2):(E1,2E1)`` to ``4:E1``; F2 strides:
    ``(2,2):(F2(1),F2(2))`` merges to ``4:F2(1)`` (``2*F2(1) == F2(2)`` and ``1*F2(1) + F2(2) == 3*F2(1)``)."""
    from layoutalg.core.stride_scalars import F2

    a = la.stride_layout(((2, 3), (2, 2)), ((E(0), 2 * E(0)), (E(1), 2 * E(1))))
    got = la.coalesce_z(a, (1, 1))
    assert got.shape == (6, 4) and got.stride == (E(0), E(1))
    kept = la.coalesce_z(a, (None, 1))
    assert kept.shape == ((2, 3), 4) and kept.stride == ((E(0), 2 * E(0)), E(1))
    assert [got(i) for i in range(30)] == [a(i) for i in range(30)]  # past the size too
    f = la.stride_layout(((2, 2), 3), ((F2(1), F2(2)), F2(4)))
    got = la.coalesce_z(f, (1,))
    assert got.shape == (4, 3) and got.stride == (F2(1), F2(4))
    assert [int(got(i)) for i in range(12)] == [int(f(i)) for i in range(12)]

"""``coalesce_z``'s contract beyond plain layouts: a profile coalesces mode by mode, a profile longer than the
layout is refused naming it, and basis-stride layouts keep their function on every index.  Truths: the layouts'
own values, enumerated past their size (``coalesce_z`` keeps the function on every index ``i >= 0``)."""

from __future__ import annotations

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


def test_a_profile_for_a_symbolic_layout_is_refused_rather_than_ignored() -> None:
    import sympy

    x = sympy.Symbol("X", positive=True, integer=True)
    with pytest.raises(la.ShapeError, match="coalesce_z layout"):
        la.coalesce_z(la.symbolic_layout((2, 4), (x, 2 * x)), (None, None))

"""Contract of the codomain side of basis-stride layouts (``layoutalg.core.stride_codomain``), by brute force:
inverses of layouts whose strides mix codomain axes (numbered column-major by the coshape) satisfy their
defining equations on every point; refusals name what is wrong; tuple tilers and ``None`` work mode by mode."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import layoutalg as la
from layoutalg import F2, ArithTuple, E, ScaledBasis
from layoutalg.core.stride_codomain import coshape


def coords(shape: Any) -> list[tuple[int, ...]]:
    """Every coordinate of a flat (or one-level) shape, colexicographic."""
    flat = shape if isinstance(shape, tuple) else (shape,)
    return [tuple(reversed(c)) for c in itertools.product(*(range(s) for s in reversed(flat)))]


MIXED = [
    la.stride_layout((2, 3), (ArithTuple(1, 1), E(1))),
    la.stride_layout((2, 2, 3), (E(0), ScaledBasis(2, (0,)), ArithTuple(1, 1))),
    la.stride_layout((3, 2), (ArithTuple(1, 2), ArithTuple(0, 1))),
]


@pytest.mark.parametrize("a", MIXED[:1], ids=str)
def test_left_inverse_of_a_mixed_axis_layout_recovers_every_index(a: Any) -> None:
    r = la.left_inverse(a)
    cs = coshape(a)
    for i in range(a.size()):
        value = a(i)
        c = tuple(value[k] for k in range(len(cs)))
        assert r(c) == i, (a, r, i, value)


@pytest.mark.parametrize("a", MIXED, ids=str)
def test_right_inverse_of_a_mixed_axis_layout_maps_back_onto_its_coordinates(a: Any) -> None:
    r = la.right_inverse(a)
    assert r.size() >= 1
    for c in coords(r.shape):
        got = a(r(c))
        assert tuple(got[k] for k in range(len(c))) == c, (a, r, c)


def test_right_inverse_follows_the_mixed_layouts_unit_steps() -> None:
    a = la.stride_layout((2, 2, 3), (E(0), ScaledBasis(2, (0,)), ArithTuple(1, 1)))
    r = la.right_inverse(a)
    assert r.size() >= 2 and a(r((1, 0))) == ArithTuple(1, 0)


def test_coshape_refuses_strides_mixing_plain_values_and_basis_vectors() -> None:
    with pytest.raises(la.ShapeError, match="mix plain values with basis vectors"):
        coshape(la.stride_layout((2, 4), (1, E(0))))


def test_coshape_refuses_a_position_reached_as_an_int_and_as_a_tuple() -> None:
    with pytest.raises(la.ShapeError, match="position 0 both as an int and as a tuple"):
        coshape(la.stride_layout((2, 4), (E(0), ScaledBasis(1, (0, 1)))))


def test_inverses_refuse_a_negative_basis_stride_that_leaves_the_coshape() -> None:
    with pytest.raises(la.ShapeError, match="negative basis stride"):
        la.right_inverse(la.stride_layout((2, 2), (ArithTuple(-1, 1), E(0))))
    with pytest.raises(la.ShapeError, match="negative basis stride"):
        la.left_inverse(la.stride_layout((2, 2), (ArithTuple(-1, 1), E(0))))


def test_inverses_refuse_f2_values_inside_a_coordinate() -> None:
    a = la.stride_layout((2, 2), (ArithTuple(F2(1), F2(1)), ArithTuple(F2(2), F2(0))))
    with pytest.raises(la.ShapeError, match="F2 codomain has no column-major numbering"):
        la.left_inverse(a)
    with pytest.raises(la.ShapeError, match="F2 codomain has no column-major numbering"):
        la.right_inverse(a)


def test_weak_complement_refuses_a_stride_mixing_axes_naming_it() -> None:
    with pytest.raises(la.ShapeError, match=r"stride \(1,1\) is not a single basis vector"):
        la.weak_complement(la.stride_layout((2, 2), (ArithTuple(1, 1), E(0))))


C = la.stride_layout((4, 8), (E(1), E(0)))


@pytest.mark.parametrize("op", [la.logical_divide, la.logical_product])
def test_a_none_tiler_keeps_the_layout(op: Any) -> None:
    assert op(C, None) == C


def test_a_tuple_tiler_divides_mode_by_mode_keeping_untiled_modes() -> None:
    d = la.logical_divide(C, (2, None))
    assert d[1] == C[1] and d[0] == la.logical_divide(C[0], 2)
    assert sorted(map(tuple, (d(i) for i in range(d.size())))) == sorted(map(tuple, (C(i) for i in range(32))))
    short = la.logical_divide(C, (2,))  # modes past the tiler are kept
    assert short == d


def test_a_tuple_tiler_multiplies_mode_by_mode_keeping_untiled_modes() -> None:
    p = la.logical_product(C, (2, None))
    assert p[1] == C[1] and p[0] == la.logical_product(C[0], 2)
    assert p.size() == 64
    # mode 0 is 4:E(1) then a copy past its coshape: rows 0..7 of axis 1, in order
    assert [p((i, 0)) for i in range(8)] == [ArithTuple(0, i) for i in range(8)]
    assert la.logical_product(C, (2,)) == p


@pytest.mark.parametrize("cotarget", [4, (4,)])
def test_a_cotarget_with_fewer_extents_than_codomain_axes_is_refused_naming_it(cotarget: Any) -> None:
    a = la.stride_layout((2, 3), (E(0), E(1)))
    with pytest.raises(la.ShapeError, match="has 1 extents, fewer than the 2 axes of its coshape"):
        la.weak_complement(a, cotarget)


def test_a_cotarget_per_axis_sizes_each_axis_rest_mode() -> None:
    a = la.stride_layout((2, 3), (E(0), E(1)))
    r = la.weak_complement(a, (4, 6))  # axis 0: 2:1 leaves 2 of 4 -> 2:2; axis 1: 3:1 leaves 2 of 6 -> 2:3
    values = {tuple(r(i)) for i in range(r.size())}
    assert values == {(x, y) for x in (0, 2) for y in (0, 3)}


@pytest.mark.parametrize("op", [la.logical_divide, la.logical_product])
def test_a_tuple_tiler_with_more_modes_than_the_layout_is_refused_as_for_plain_layouts(op: Any) -> None:
    with pytest.raises(la.ShapeError, match="tiler of rank 3 has more modes than the rank-2 layout"):
        op(C, (2, None, 3))
    with pytest.raises(la.ShapeError, match="tiler of rank 3 has more modes than the rank-2 layout"):
        op(la.Layout((4, 8)), (2, None, 3))


def _component(value: Any, path: tuple[int, ...]) -> int:
    for i in path:
        value = value[i] if isinstance(value, ArithTuple) else 0
    return int(value)


def _paths(cs: Any, path: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    if isinstance(cs, tuple):
        return [p for i, e in enumerate(cs) for p in _paths(e, path + (i,))]
    return [path]


def _at(cs: Any, path: tuple[int, ...]) -> int:
    for i in path:
        cs = cs[i]
    return int(cs)


COORDINATE = [
    la.stride_layout((4, 8), (E(1), E(0))),
    la.stride_layout((2, 3), (ArithTuple(1, 1), E(1))),
    la.stride_layout((3, 2), (ArithTuple(1, 2), ArithTuple(0, 1))),
    la.stride_layout((2, 3, 2), (E(0), 0, ScaledBasis(3, (1,)))),
    la.stride_layout((2, 3), (ScaledBasis(2, (0,)), E(2))),
]


@pytest.mark.parametrize("a", COORDINATE, ids=str)
def test_coshape_is_one_past_the_largest_value_on_each_codomain_axis(a: Any) -> None:
    cs = coshape(a)
    values = list(a.values())
    for path in _paths(cs):
        assert _at(cs, path) == 1 + max(_component(v, path) for v in values), (a, cs, path)


def test_coshape_of_f2_strides_is_one_past_the_largest_xor_value() -> None:
    a = la.stride_layout((2, 2, 2), (F2(1), F2(3), F2(6)))
    assert coshape(a) == 1 + max(int(v) for v in a.values())


def test_coshape_of_all_zero_basis_strides_is_one() -> None:
    assert coshape(la.stride_layout((2, 3), (ScaledBasis(0, (1,)), 0))) == 1


def test_coshape_of_plain_and_swizzled_layouts_is_their_cosize() -> None:
    plain = la.Layout((2, 3), (3, 1))
    assert coshape(plain) == 1 + max(plain(i) for i in range(plain.size()))
    swizzled = la.composition(la.Swizzle(1, 0, 1), la.Layout(4, 1))
    assert coshape(swizzled) == 1 + max(swizzled(i) for i in range(4))


class _CosizeOnly:
    def cosize(self) -> int:
        return 7


class _ShapeWithoutCosize:
    shape = 4
    cosize = 7


@pytest.mark.parametrize("thing", [_CosizeOnly(), _ShapeWithoutCosize(), 5], ids=["cosize-no-shape", "cosize-not-callable", "int"])
def test_coshape_refuses_what_is_not_a_layout(thing: Any) -> None:
    with pytest.raises(la.ShapeError, match="coshape takes a layout"):
        coshape(thing)

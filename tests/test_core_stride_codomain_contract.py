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


def test_coshape_of_f2_strides_is_the_smallest_power_of_two_holding_every_xor_value() -> None:
    """An F2 axis is a GF(2) space: ``4:F3`` has the values 0, 3, 6, 5, three bits, so 8 (PyCuTe's newest
    layout tests), not 7."""
    a = la.stride_layout((2, 2, 2), (F2(1), F2(3), F2(6)))
    assert coshape(a) == 8 == 1 + max(int(v) for v in a.values())
    b = la.stride_layout(4, F2(3))
    assert max(int(v) for v in b.values()) == 6 and coshape(b) == 8
    assert coshape(la.stride_layout(2, F2(1))) == 2 and coshape(la.stride_layout(3, F2(4))) == 16


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


def _on_axes(v: Any, n: int) -> tuple[int, ...]:
    """A coordinate value read on its first ``n`` codomain axes (0 where it has no entry)."""
    return tuple(int(v[k]) for k in range(n)) if isinstance(v, ArithTuple) else (int(v),) + (0,) * (n - 1)


@pytest.mark.parametrize("a", [
    la.stride_layout((2, 4), (ScaledBasis(2, (0,)), E(1))),
    la.stride_layout((2, 4, 3), (ScaledBasis(2, (0,)), E(1), 0)),  # a stride-0 mode changes nothing
], ids=str)
def test_right_inverse_of_a_coordinate_layout_covers_each_axis_it_reaches_in_unit_steps(a: Any) -> None:
    # Brute force: axis 1 is reached at 0..3 with axis 0 at 0; axis 0 only at 0 and 2 (never 1).  Taken axis
    # by axis (CuTe's right_inverse of each axis), R's domain is 1 x 4 coordinates, each mapped back exactly.
    reached = {_on_axes(a(i), 2) for i in range(a.size())}
    extents = tuple(next(n for n in itertools.count(1) if tuple(n if k == j else 0 for k in range(2)) not in reached)
                    for j in range(2))
    assert extents == (1, 4)
    r = la.right_inverse(a)
    assert r.shape == extents
    for c in coords(r.shape):
        assert _on_axes(a(r(c)), 2) == c, (a, r, c)


def test_inverses_of_an_f2_layout_with_a_stride_0_mode() -> None:
    # XOR values of (F1, 0, F2): indices 0..7 give 0,1,0,1,2,3,2,3, so L's image is 0..3
    a = la.stride_layout((2, 2, 2), (F2(1), 0, F2(2)))
    values = [a(i) for i in range(8)]
    assert values == [F2(v) for v in (0, 1, 0, 1, 2, 3, 2, 3)]
    r = la.right_inverse(a)
    assert r.size() == 4 and [a(r(i)) for i in range(4)] == [F2(i) for i in range(4)]
    left = la.left_inverse(a)
    assert all(a(left(v)) == v for v in values)


def _tiles_box(a: Any, r: Any, box: tuple[int, int]) -> bool:
    """``{A(i) + R(j)}`` is the whole box, each point once: A's distinct values times R's size is the box's size."""
    image = {_on_axes(a(i), 2) for i in range(a.size())}
    rest = [_on_axes(r(j), 2) for j in range(r.size())]
    sums = {(x + u, y + v) for x, y in image for u, v in rest}
    return sums == set(itertools.product(range(box[0]), range(box[1]))) and len(image) * len(rest) == box[0] * box[1]


@pytest.mark.parametrize("a", [
    la.stride_layout((2, 4), (E(0), E(1))),
    la.stride_layout((2, 3, 4), (E(0), 0, E(1))),  # a stride-0 mode: skipped, not refused
    la.stride_layout((2, 1, 4), (E(0), ArithTuple(1, 1), E(1))),  # an extent-1 mode: its stride is never used
], ids=str)
def test_weak_complement_with_a_cotarget_tiles_the_cotarget_box(a: Any) -> None:
    r = la.weak_complement(a, (4, 8))
    assert _tiles_box(a, r, (4, 8)), (a, r)


def test_weak_complement_refuses_an_f2_basis_stride_naming_it() -> None:
    with pytest.raises(la.ShapeError, match=r"stride F1@0 is not a single basis vector"):
        la.weak_complement(la.stride_layout((2, 4), (ScaledBasis(F2(1), (0,)), E(1))))


def test_identity_divided_by_a_tuple_tiler_with_a_stride_0_mode_keeps_its_tile_values() -> None:
    # PyCuTe's logical_divide(None, (T0, T1)): mode i walks T_i on axis i; T0 = (2,2):(1,0) visits 0,1,0,1
    d = la.logical_divide(None, (la.Layout((2, 2), (1, 0)), 4))
    assert [_on_axes(d((j, 0)), 2) for j in range(4)] == [(0, 0), (1, 0), (0, 0), (1, 0)]
    assert [_on_axes(d((0, k)), 2) for k in range(4)] == [(0, k) for k in range(4)]


# ---------------------------------------------------------------------------
# layouts PyCuTe's algebra builds from an int or a tuple argument (tiler_to_layout: one basis axis per leaf)
# ---------------------------------------------------------------------------
def _point(v: Any, rank: int) -> tuple[int, ...]:
    """A codomain value as a flat coordinate of ``rank`` axes (an int is axis 0)."""
    if isinstance(v, ArithTuple):
        return tuple(v[k] if k < len(v) else 0 for k in range(rank))
    return (v,) + (0,) * (rank - 1)


def _box(*extents: int) -> set[tuple[int, ...]]:
    return set(itertools.product(*(range(e) for e in extents)))


def test_dividing_a_coordinate_layout_by_a_tiler_of_fewer_axes_keeps_the_other_axes() -> None:
    """PyCuTe's ``A / B = A o (B, complement(B, shape(A)))``: the complement covers every axis of ``shape(A)``, those
    ``B`` does not reach included, so the divide walks all of A (size 12 here; axis 1 was dropped, size 4)."""
    a = la.stride_layout((4, 3), (E(0), E(1)))
    d = la.logical_divide(a, la.stride_layout(2, E(0)))
    assert d.size() == 12
    assert [_point(d[0](i), 2) for i in range(2)] == [(0, 0), (1, 0)]
    assert sorted(_point(d(i), 2) for i in range(d.size())) == sorted(_box(4, 3))
    z = la.zipped_divide(la.tiler_to_layout((4, 3)), (2,))  # PyCuTe: logical_divide(A, tiler_to_layout((2,)))
    assert sorted(_point(z(i), 2) for i in range(z.size())) == sorted(_box(4, 3))


def test_dividing_by_a_basis_tiler_reads_a_nested_mode_of_a_as_one_axis_of_its_size() -> None:
    """PyCuTe's ``(Layout((3,2),(1,3)), 4)`` is ``((3,2),4):((E(0),3*E(0)),E(1))``: the tiler's axis 0 walks mode 0
    of A, of shape ``(3,2)``, by its 1-D index, so the rest covers 6 along it, not 3 (the first leaf of
    ``shape(A)``)."""
    a = la.tiler_to_layout((la.Layout((3, 2), (1, 3)), 4))
    d = la.logical_divide(a, la.stride_layout(2, E(0)))
    assert d.size() == 24
    got = sorted(_point(d(i), 2) for i in range(d.size()))
    assert got == sorted((a(i)[0], a(i)[1]) for i in range(24)) == sorted(_box(6, 4))


def test_complement_of_a_coordinate_layout_up_to_a_shape_tiles_the_box_axis_by_axis() -> None:
    """PyCuTe's ``complement((4,2), (8,4))``: ``(4,2)`` is ``(4,2):(E(0),E(1))``; its copies at the complement's
    values tile the box ``(8,4)``, each point once, the complement ordered from 0 (it was refused)."""
    a = la.tiler_to_layout((4, 2))
    c = la.complement(a, (8, 4))
    vals = [_point(c(j), 2) for j in range(c.size())]
    assert vals[0] == (0, 0) and c.size() == 4
    sums = [(x + u, y + v) for u, v in vals for x, y in (_point(a(i), 2) for i in range(a.size()))]
    assert sorted(sums) == sorted(_box(8, 4))
    extra = la.complement(a, (8, 4, 3))  # a third axis A does not reach: covered whole
    assert extra.size() == 12 and {_point(extra(j), 3)[2] for j in range(12)} == {0, 1, 2}


@pytest.mark.parametrize("op", [la.blocked_product, la.raked_product])
def test_blocked_and_raked_products_of_a_coordinate_layout_lay_copies_past_its_coshape(op: Any) -> None:
    """PyCuTe's ``blocked_product((4,2), (2,2):(1,2))`` is ``logical_product`` with the modes interleaved: copies
    of the ``(4,2)`` box along axis 1 (its weak complement), tiling the box ``(4,8)`` (both were refused)."""
    a = la.tiler_to_layout((4, 2))
    r = op(a, la.Layout((2, 2), (1, 2)))
    assert r.size() == 32 and len(r.shape) == 2
    assert sorted(_point(r(i), 2) for i in range(32)) == sorted(_box(4, 8))
    block = 0 if op is la.blocked_product else 1
    assert [_point(r[0][block](i), 2) for i in range(4)] == [(i, 0) for i in range(4)]  # A's mode 0 kept whole
    assert [_point(r[1][block](i), 2) for i in range(2)] == [(0, 0), (0, 1)]


def test_inverses_of_a_coordinate_layout_whose_strides_are_all_zero_are_1_0() -> None:
    """PyCuTe's ``left_inverse((Layout(5, 0),))``: every value is 0, so ``1:0`` inverts it; it was read as an F2
    layout and refused (5 is not a power of two)."""
    a = la.tiler_to_layout((la.Layout(5, 0),))
    for inverse in (la.left_inverse, la.right_inverse):
        r = inverse(a)
        assert r.size() == 1 and r(0) == 0


@pytest.mark.parametrize("shape, strides", [((2, 4), (E(0), ScaledBasis(F2(1), (0,)))),
                                            ((4, 2), (ScaledBasis(F2(1), (0,)), E(0)))],
                         ids=["int leaf first", "F2 leaf first"])
def test_coshape_of_an_axis_mixing_int_and_f2_strides_is_refused_in_either_order(shape: Any, strides: Any) -> None:
    """An int and an F2 value on one codomain axis do not add (the layout has no values there), so its extent is
    refused whichever leaf comes first (the int-first order used to answer (4,), skipping the int leaf)."""
    with pytest.raises(la.ShapeError, match="F2 adds only F2"):
        coshape(la.stride_layout(shape, strides))


def test_f2_left_inverse_reads_at_most_the_search_bound_of_values() -> None:
    """An F2 layout with no GF(2)-linear inverse is read on its integer values when it has at most WORK_LIMIT of
    them (300000:F1 is searched, and passes the search's bound: undecided); one more is refused as not linear."""
    from layoutalg.core.left_inverse_search import WORK_LIMIT

    with pytest.raises(la.CompositionError, match="undecided"):
        la.left_inverse(la.stride_layout(WORK_LIMIT, F2(1)))
    with pytest.raises(la.ShapeError, match="not a power of two"):
        la.left_inverse(la.stride_layout(WORK_LIMIT + 1, F2(1)))

"""PyCuTe's tree helpers (core/htuple_ops.py), F2 division, Python slices of layouts, and the accessors, against
their definitions written out by brute force."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import F2, E
from layoutalg.core.stride_scalars import clmul

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


@st.composite
def shapes(draw: Any, depth: int = 0) -> Any:
    if depth >= 2 or draw(st.integers(0, 2)) == 0:
        return draw(st.integers(1, 4))
    return tuple(draw(shapes(depth + 1)) for _ in range(draw(st.integers(1, 3))))


def _size(shape: Any) -> int:
    if isinstance(shape, int):
        return shape
    total = 1
    for s in shape:
        total *= _size(s)
    return total


def _leaves(t: Any) -> list[Any]:
    return [x for e in t for x in _leaves(e)] if isinstance(t, tuple) else [t]


@SETTINGS
@given(shapes())
def test_coordinates_walk_colexicographically_and_in_bounds_holds_exactly_on_them(shape: Any) -> None:
    listed = list(la.coordinates(shape))
    assert listed == [la.idx2crd(i, shape) for i in range(_size(shape))]
    assert [la.crd2idx(c, shape) for c in listed] == list(range(_size(shape)))
    assert all(la.in_bounds(c, shape) for c in listed)
    assert [la.in_bounds(i, shape) for i in range(-1, _size(shape) + 2)] == \
        [0 <= i < _size(shape) for i in range(-1, _size(shape) + 2)]
    for c in listed:  # one leaf pushed past its extent is out of bounds
        flat = _leaves(c)
        extents = _leaves(shape)
        for k in range(len(flat)):
            bumped = la.unflatten([v + extents[k] if j == k else v for j, v in enumerate(flat)], shape)
            assert not la.in_bounds(bumped, shape)


@SETTINGS
@given(shapes(), st.data())
def test_zip_fold_and_replace_agree_with_the_flat_leaves(shape: Any, data: st.DataObject) -> None:
    a = la.unflatten([data.draw(st.integers(-5, 5)) for _ in _leaves(shape)], shape)
    b = la.unflatten([data.draw(st.integers(-5, 5)) for _ in _leaves(shape)], shape)
    assert list(la.zip_leaves(a, b)) == list(zip(_leaves(a), _leaves(b)))
    assert la.fold_leaf(lambda acc, x, y: acc + x * y, 0, a, b) == sum(x * y for x, y in zip(_leaves(a), _leaves(b)))
    if isinstance(a, tuple):
        path = [data.draw(st.integers(0, len(a) - 1))]
        replaced = la.replace(a, "X", path)
        assert replaced[path[0]] == "X" and all(replaced[k] == a[k] for k in range(len(a)) if k != path[0])
        with pytest.raises(la.CoordinateError, match="no mode"):
            la.replace(a, "X", [len(a)])
    assert la.replace(a, 7, ()) == 7


@SETTINGS
@given(st.integers(0, 1 << 20), st.integers(1, 1 << 10))
def test_f2_division_is_polynomial_division_over_gf2(a: int, b: int) -> None:
    quotient, remainder = divmod(F2(a), b)
    assert clmul(int(quotient), b) ^ int(remainder) == a
    assert int(remainder).bit_length() < b.bit_length()
    if b & (b - 1) == 0:  # a power of two: the bit split
        assert (int(quotient), int(remainder)) == (a // b, a % b)


def test_an_f2_index_on_a_shape_whose_prefix_product_carries_is_refused() -> None:
    assert la.idx2crd(F2(0b10110), (3, 3)) == (F2(1), F2(0b1101))
    with pytest.raises(la.CoordinateError, match="carries into the prefix product 3"):
        la.idx2crd(F2(0b10110), (3, 3, 3))


@SETTINGS
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(-3, 9)), min_size=1, max_size=4), st.data())
def test_a_python_slice_of_a_layout_is_the_layout_of_those_modes(pairs: list[tuple[int, int]],
                                                                data: st.DataObject) -> None:
    layout = la.Layout(tuple(s for s, _ in pairs), tuple(d for _, d in pairs))
    start, stop = data.draw(st.integers(-5, 5)), data.draw(st.integers(-5, 5))
    step = data.draw(st.sampled_from([None, 1, 2, -1]))
    want = pairs[start:stop:step]
    got = layout[start:stop:step]
    assert got.shape == tuple(s for s, _ in want) and got.stride == tuple(d for _, d in want)


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_a_slice_keeps_its_modes_a_tuple_and_the_function_of_the_fixed_coordinate(extents: list[int],
                                                                                  data: st.DataObject) -> None:
    """CuTe C++ and CuTe DSL keep the kept modes a tuple even when there is one: (4,4):(4,1) by (1, None) is
    (4):(1)."""
    layout = la.Layout(tuple(extents), tuple(data.draw(st.integers(0, 9)) for _ in extents))
    keep = data.draw(st.lists(st.booleans(), min_size=len(extents), max_size=len(extents)))
    fixed = tuple(None if k else data.draw(st.integers(0, e - 1)) for k, e in zip(keep, extents))
    sub, offset = la.slice_and_offset(layout, fixed)
    kept = [k for k, f in enumerate(fixed) if f is None]
    assert isinstance(sub.shape, tuple) and len(sub.shape) == len(kept)
    for c in la.coordinates(sub.shape):
        full = list(fixed)
        for k, v in zip(kept, c):
            full[k] = v
        assert layout(tuple(full)) == offset + sub(c)


def test_array_and_transform_accessor_read_write_and_check_bounds() -> None:
    a = la.Array(4, dtype=ctypes.c_int)
    a[3] = 3
    assert a[3] == 3 and a[0] == 0
    squared = la.TransformAccessor(a, lambda x: x * x)
    assert squared[3] == 9 and (squared + 1)[2] == 9
    with pytest.raises(la.CoordinateError, match="outside its buffer"):
        a[4]
    with pytest.raises(la.LayoutError, match="read-only"):
        squared[0] = 1
    with pytest.raises(la.LayoutError, match="ctypes scalar type"):
        la.Array(4, dtype=int)
    tensor = la.Tensor(la.Array(6, dtype=ctypes.c_double), la.Layout((2, 3), (3, 1)))
    tensor[1, 2] = 7.5
    assert tensor.engine[5] == 7.5


def test_v_and_matmul_place_a_value_on_a_basis_path() -> None:
    assert la.V(42) @ 1 == 42 * E(1) and E(0) @ 1 == E(1, 0) and la.V(1) @ 0 @ 1 == E(1, 0)
    with pytest.raises(la.ShapeError, match="basis index"):
        E(0) @ -1


def test_integer_is_by_registration_and_is_static_by_int_coercion() -> None:
    import numpy as np
    import sympy

    n = sympy.Symbol("N", integer=True)
    assert [isinstance(x, la.Integer) for x in (7, np.int32(3), n, True, 1.0, F2(1), "7")] == \
        [True, True, True, False, False, False, False]
    assert [la.is_static(x) for x in (7, F2(3), sympy.Integer(4), n, 1.0, True)] == \
        [True, True, True, False, False, False]

    class Tally:
        pass

    assert not la.is_int(Tally())
    la.register_integer_type(Tally)
    assert la.is_int(Tally())
    with pytest.raises(la.ShapeError, match="takes types"):
        la.register_integer_type(7)  # type: ignore[arg-type]


@SETTINGS
@given(st.integers(0, 1 << 30), st.integers(-40, 40))
def test_signed_shifts_go_the_other_way_for_a_negative_amount(a: int, s: int) -> None:
    assert la.shiftr(a, s) == (a >> s if s >= 0 else a << -s)
    assert la.shiftl(a, s) == la.shiftr(a, -s)
    assert int(la.shiftr(F2(a), s)) == la.shiftr(a, s)


def test_tree_helpers_refuse_what_they_cannot_read_and_keep_layout_leaves() -> None:
    from layoutalg.core.validate import MAX_DEPTH
    from layoutalg.viz.grid import value_label

    assert la.profile(la.Layout((2, (3, 4)))) == (2, (3, 4)) and la.profile((la.Layout(2), 5)) == (la.Layout(2), 5)
    assert la.profile(la.make_tensor(la.Layout((2, 3)))) == (2, 3) and la.profile(42) == 42
    deep: Any = 5
    for _ in range(MAX_DEPTH):
        deep = (deep,)
    path = [0] * MAX_DEPTH
    assert la.replace(deep, 7, path) == la.unflatten([7], deep)
    with pytest.raises(la.CoordinateError, match="deeper than"):
        la.replace(deep, 7, path + [0])
    for depth in (MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1):  # any leaf: the int tuples' nesting limit
        plain: Any = 1
        scalar: Any = F2(1)
        for _ in range(depth):
            plain, scalar = (plain,), (scalar,)
        accepted = []
        for tree in (plain, scalar):
            try:
                la.flatten(tree)
                accepted.append(True)
            except la.ShapeError:
                accepted.append(False)
        assert accepted[0] == accepted[1] == (depth <= MAX_DEPTH), depth
    assert la.flatten(((1, 2), 3), lambda leaves: [2 * x for x in leaves]) == [2, 4, 6]
    for bad in ("a", True, 1.5):
        with pytest.raises(la.ShapeError, match="shifts take an integer"):
            la.shiftr(bad, 1)
    assert value_label(F2(5)) == "F5" and value_label(F2(0)) == "0" and value_label((1, (F2(2), 0))) == "(1,(F2,0))"


def test_f2_floor_division_modulo_shifts_and_scalar_strides() -> None:
    import numpy as np

    assert F2(0b1011) // 3 == F2(0b110) and F2(0b1011) % 3 == F2(0b1)
    assert F2(0b101) << 2 == F2(0b10100) and F2(0b10110) >> 2 == F2(0b101)
    with pytest.raises(TypeError):
        divmod(F2(3), "a")  # type: ignore[operator]
    with pytest.raises(la.ShapeError, match="non-negative int"):
        F2(3) << -1
    assert la.stride(F2(3)) == F2(3) and la.stride(2 * E(1)) == 2 * E(1)
    assert la.Layout(8, 1)[-1] == la.Layout(8, 1)
    grid = la.Ptr(np.arange(6.0).reshape(2, 3))  # a 2-D buffer is read flat (the layout supplies the strides)
    assert grid[4] == 4.0


def test_walks_refuse_trees_past_the_nesting_limit_and_modes_out_of_range() -> None:
    from layoutalg.core.validate import MAX_DEPTH

    deep: Any = 1
    for _ in range(MAX_DEPTH + 2):
        deep = (deep,)
    with pytest.raises(la.ShapeError, match="nesting deeper than"):
        list(la.zip_leaves(deep))
    with pytest.raises(la.CoordinateError, match="out of range for a rank-2 layout"):
        la.Layout((2, 3), (1, 2))[2]


def test_walks_accept_trees_at_the_nesting_limit_and_ptr_refuses_objects_without_storage() -> None:
    from layoutalg.core.validate import MAX_DEPTH

    deep: Any = 1
    for _ in range(MAX_DEPTH):
        deep = (deep,)
    assert list(la.zip_leaves(deep)) == [(1,)]
    with pytest.raises(la.LayoutError, match="buffer protocol"):
        la.Ptr(object())


def test_the_kind_predicates() -> None:
    tensor = la.make_tensor(la.Layout((2, 3)))
    assert la.is_tensor(tensor) and not la.is_tensor(la.Layout(2)) and not la.is_tensor((2, 3))
    assert all(la.is_layout(x) for x in (la.Layout(2), la.parse("Sw<1,0,1> o 0 o 4:1"), la.parse("4:1@0")))
    assert not la.is_layout(tensor) and la.is_tuple([1]) and la.is_tuple((1,)) and not la.is_tuple(1)
    for bad in (True, 1.5, "1"):
        with pytest.raises(la.ShapeError):
            E(0) @ bad

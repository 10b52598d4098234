"""Contract of tensors (``layoutalg.core.tensor``): an engine read through a layout plus an offset.  Values are
judged against the reference evaluator (``T[c] == engine[offset + L(c)]``); slices take only ':'; a tensor is
immutable (its values are not), equal exactly when engine (the same object), layout and offset agree."""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np
import pytest

import layoutalg as la
from layoutalg.core.tensor import CountingEngine, Tensor, make_fragment_like, make_identity_tensor, make_tensor
from tests.oracles import reference as ref

L = la.Layout((2, 3), (3, 1))


def test_a_counting_engine_counts_from_its_origin_zero_by_default() -> None:
    assert [CountingEngine()[i] for i in range(4)] == [0, 1, 2, 3]
    assert [CountingEngine(5)[i] for i in range(3)] == [5, 6, 7]
    assert (CountingEngine(2) + 3)[0] == 5
    assert repr(CountingEngine(7)) == "CountingEngine(7)"


def test_a_counting_engine_refuses_writes() -> None:
    t = Tensor(CountingEngine(), L)
    with pytest.raises(la.CoordinateError, match="holds no values to write"):
        t[1] = 4


def test_a_tensor_reads_engine_at_offset_plus_layout_with_offset_zero_by_default() -> None:
    engine = list(range(100, 120))
    t = Tensor(engine, L)
    assert t.values() == [engine[ref.evaluate(L.shape, L.stride, i)] for i in range(6)]
    moved = Tensor(engine, L, 4)
    assert moved.values() == [engine[4 + ref.evaluate(L.shape, L.stride, i)] for i in range(6)]
    assert Tensor(CountingEngine(), L).values() == [ref.evaluate(L.shape, L.stride, i) for i in range(6)]


def test_shape_stride_size_and_rank_are_the_layouts() -> None:
    t = Tensor(CountingEngine(), la.Layout(((2, 2), 3), ((1, 6), 2)))
    assert t.shape == ((2, 2), 3) and t.stride == ((1, 6), 2) and t.size() == 12 and t.rank() == 2
    assert Tensor([0], la.Layout(4, 0)).rank() == 1


@pytest.mark.parametrize("bad", [slice(1, 2), slice(None, None, 2), slice(0, None)])
def test_a_slice_other_than_the_whole_mode_is_refused_naming_it(bad: slice) -> None:
    t = make_tensor(L)
    with pytest.raises(la.CoordinateError, match="a tensor slice is ':'"):
        t[bad, 1]


def test_a_whole_mode_slice_is_the_mode_on_the_same_engine() -> None:
    t = Tensor(CountingEngine(), L)
    col = t[:, 1]
    assert col.engine is t.engine and col.values() == [ref.evaluate(L.shape, L.stride, i + 2 * 1) for i in range(2)]


def test_a_tensor_is_immutable_but_its_values_are_not() -> None:
    t = make_tensor(L)
    with pytest.raises(AttributeError, match="Tensor is immutable"):
        t.offset = 3  # type: ignore[misc]
    t[1, 2] = 9.0
    assert t.engine[ref.evaluate(L.shape, L.stride, 1 + 2 * 2)] == 9.0


def test_with_layout_keeps_the_engine_and_moves_the_offset() -> None:
    t = Tensor(CountingEngine(), L, 2)
    same = t.with_layout(la.Layout(6, 1))
    assert same.engine is t.engine and same.offset == 2 and same.values() == [2 + i for i in range(6)]
    assert t.with_layout(la.Layout(6, 1), 3).values() == [5 + i for i in range(6)]


def test_tensors_are_equal_exactly_for_the_same_engine_layout_and_offset() -> None:
    engine = np.zeros(8)
    t = Tensor(engine, L)
    assert t == Tensor(engine, L) and not (t != Tensor(engine, L))
    assert t != Tensor(np.zeros(8), L)  # another engine with equal contents
    assert t != Tensor(engine, la.Layout((2, 3), (1, 2)))
    assert t != Tensor(engine, L, 1)
    assert t != L and t != engine.tolist()


def test_storage_is_allocated_for_int_offset_layouts_only() -> None:
    coord = la.stride_layout((2, 2), (la.E(0), la.E(1)))
    with pytest.raises(la.ShapeError, match="storage is allocated for int-offset layouts only"):
        make_tensor(coord)
    t = make_tensor(coord, engine=CountingEngine())
    assert t[1, 1] == la.ArithTuple(1, 1)


class _HostileRepr:
    def __repr__(self) -> str:
        raise RuntimeError("a foreign __repr__ failed")

    __str__ = __repr__


@pytest.mark.parametrize("dtype", ["floaty", 3.5, _HostileRepr()])
def test_a_dtype_numpy_cannot_read_is_refused_as_a_shape_error_naming_it(dtype: object) -> None:
    with pytest.raises(la.ShapeError, match="make_tensor: dtype .* is not a numpy dtype"):
        make_tensor(L, dtype)
    assert make_tensor(L, "int8").engine.dtype == np.int8


@pytest.mark.parametrize("bad", ["(2,3):(3,1)", (2, 3), None, np.zeros(4)])
def test_a_tensor_of_something_other_than_a_layout_is_refused_naming_it(bad: object) -> None:
    with pytest.raises(la.ShapeError, match="a tensor's layout must be a Layout or StrideLayout, got "):
        Tensor(np.zeros(6), bad)


@pytest.mark.parametrize("crd", [(1, None), (None, 2), (None, None), ((1, None), None), ((None, 0), 2), ((1, 1), 2)])
def test_a_slice_is_the_layouts_own_slice_with_its_kept_modes_a_tuple(crd: object) -> None:
    lay = la.Layout(((2, 2), 3), ((1, 6), 2))
    t = Tensor(np.arange(20.0), lay, 1)
    s = t.slice(crd)
    assert s.layout == la.slice_layout(lay, crd)  # a tuple of the kept modes, even of one (CuTe C++ and DSL)
    kept = [c for c in ref.flat(crd) if c is None]
    assert isinstance(s.shape, tuple) and len(s.shape) == len(kept)

    def fill(c: object, parts: Iterator[object]) -> object:
        return tuple(fill(x, parts) for x in c) if isinstance(c, tuple) else (next(parts) if c is None else c)

    for i in range(s.size()):  # index i of the slice is the full coordinate with its Nones filled in order
        sub: Any = la.idx2crd(i, s.shape)
        assert s[i] == t[fill(crd, iter(list(sub)))]


def test_repr_names_the_engine_type_the_offset_and_the_layout() -> None:
    assert repr(Tensor(np.zeros(6), L, 2)) == f"Tensor(ndarray + 2, {L})"
    assert repr(Tensor(CountingEngine(), la.Layout(4, 1))) == "Tensor(CountingEngine + 0, 4:1)"


@pytest.mark.parametrize("shape", [5, (5,), (2, 3), ((2, 2), 3)])
def test_an_identity_tensor_holds_each_coordinate(shape: object) -> None:
    t = make_identity_tensor(shape)
    n = ref.size(shape)
    assert t.size() == n
    for i in range(n):
        crd = la.idx2crd(i, shape)
        assert t[crd] == crd
        assert t[i] == crd


def _fragment_expected(shape: tuple, stride: tuple) -> la.Layout:
    """CuTe C++ make_fragment_like: mode 0 compact column-major with its stride-0 leaves kept at 0; the other
    modes' leaves after it, compact in the order of their strides (written out again here)."""
    leaves0, strides0 = ref.flat(shape[0]), ref.flat(stride[0])
    out0, run = [], 1
    for s, d in zip(leaves0, strides0):
        out0.append(0 if d == 0 else run)
        run *= 1 if d == 0 else s
    rest_leaves = [(d, k, s) for k, (s, d) in enumerate(zip(ref.flat(shape[1:]), ref.flat(stride[1:])))]
    new = {}
    for _d, k, s in sorted(rest_leaves):
        new[k] = run
        run *= s
    it_ = iter([new[k] for k in range(len(rest_leaves))])

    def rebuild(t: object) -> object:
        return tuple(rebuild(x) for x in t) if isinstance(t, tuple) else next(it_)

    def rebuild0(t: object, vals: list[int]) -> object:
        v = iter(vals)

        def go(x: object) -> object:
            return tuple(go(y) for y in x) if isinstance(x, tuple) else next(v)
        return go(t)

    return la.Layout(shape, (rebuild0(shape[0], out0),) + tuple(rebuild(m) for m in shape[1:]))


@pytest.mark.parametrize("shape,stride", [
    ((4, 3), (0, 1)),                  # a rank-2 layout: its stride-0 mode 0 is kept
    ((4, 3), (3, 1)),
    (((2, 4), 3), ((0, 1), 8)),        # a stride-0 leaf inside mode 0 takes no room
    (((4, 2), 3), ((1, 0), 8)),
    ((4, (2, 3)), (1, (24, 4))),       # a nested later mode, ordered by its strides
    ((2, 3, 5), (15, 5, 1)),
])
def test_make_fragment_like_builds_cutes_fragment_layout(shape: tuple, stride: tuple) -> None:
    lay = la.Layout(shape, stride)
    want = _fragment_expected(shape, stride)
    assert make_fragment_like(lay).layout == want
    assert make_fragment_like(Tensor(np.zeros(lay.cosize()), lay)).layout == want


@pytest.mark.parametrize("lay", [la.Layout((4,), (0,)), la.Layout((4,), (3,)), la.Layout(4, 0), la.Layout(6, 2)])
def test_make_fragment_like_of_a_rank_1_layout_is_compact(lay: la.Layout) -> None:
    assert make_fragment_like(lay).layout == la.Layout(lay.shape)


@pytest.mark.parametrize("bad", [(4, 2), "4:1", 7])
def test_make_fragment_like_of_something_other_than_a_layout_or_tensor_is_refused_naming_its_type(bad: object) -> None:
    with pytest.raises(la.ShapeError, match=rf"^make_fragment_like takes a Layout or a Tensor, got {type(bad).__name__}$"):
        make_fragment_like(bad)


def test_make_fragment_like_of_a_swizzled_layout_points_to_its_inner_layout() -> None:
    sw = la.composition(la.Swizzle(2, 0, 2), la.Layout((4, 4)))
    with pytest.raises(la.ShapeError, match=r"got \w+ \(a swizzled layout: use its .inner\)$"):
        make_fragment_like(sw)


def test_make_fragment_like_of_a_tensor_keeps_its_dtype_unless_one_is_given() -> None:
    t = Tensor(np.zeros(12, dtype=np.int16), la.Layout((3, 4)))
    assert make_fragment_like(t).engine.dtype == np.int16
    assert make_fragment_like(t, np.float32).engine.dtype == np.float32
    assert make_fragment_like(la.Layout((3, 4))).engine.dtype == np.float64
    assert make_fragment_like(la.Layout((3, 4)), np.int8).engine.dtype == np.int8


@pytest.mark.parametrize("shape,stride,want", [
    ((4, 2, 3), (1, "1@1", 0), (1, 4, 8)),  # basis and 0 tie: kept in position order
    ((4, 3, 2), (1, 1, "1@1"), (1, 8, 4)),  # the basis mode sorts before the stride-1 mode
])
def test_a_basis_stride_in_a_rest_mode_orders_like_a_broadcast_mode_in_the_fragment(shape: Any, stride: Any,
                                                                                      want: Any) -> None:
    from layoutalg.core.stride_layout import StrideLayout
    from layoutalg.core.stride_scalars import E
    from layoutalg.core.tensor import fragment_layout

    strides = tuple(E(1) if d == "1@1" else d for d in stride)
    assert fragment_layout(StrideLayout(shape, strides)) == la.Layout(shape, want)

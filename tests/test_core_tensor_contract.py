"""Contract of tensors (``layoutalg.core.tensor``): an engine read through a layout plus an offset.  Values are
judged against the reference evaluator (``T[c] == engine[offset + L(c)]``); slices take only ':'; a tensor is
immutable (its values are not), equal exactly when engine (the same object), layout and offset agree."""

from __future__ import annotations

import numpy as np
import pytest

import layoutalg as la
from layoutalg.core.tensor import CountingEngine, Tensor, make_tensor
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

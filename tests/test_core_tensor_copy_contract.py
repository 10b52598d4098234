"""Contract of ``Ptr`` (``layoutalg.core.tensor_copy``): a bounds-checked pointer into a buffer, starting at
element 0 unless told; multi-dimensional storage must be contiguous (the layout supplies the strides); its repr
names the owner's type, the element index and the element format."""

from __future__ import annotations

import array

import numpy as np
import pytest

import layoutalg as la
from layoutalg.core.tensor import Tensor
from layoutalg.core.tensor_copy import Ptr, copy, copy_ref


def test_a_pointer_starts_at_element_zero_by_default() -> None:
    data = array.array("i", [10, 11, 12, 13])
    p = Ptr(data)
    assert [p[i] for i in range(4)] == [10, 11, 12, 13]
    assert Ptr(data, 2)[0] == 12 and Ptr(data) == Ptr(data, 0)


def test_a_non_contiguous_multi_dimensional_buffer_is_refused() -> None:
    grid = np.arange(12, dtype=np.int32).reshape(3, 4)
    with pytest.raises(la.LayoutError, match="Ptr needs contiguous storage"):
        Ptr(grid[:, ::2])
    flat = Ptr(grid)  # contiguous 2-D storage reads in memory order
    assert [flat[i] for i in range(12)] == list(range(12))


def test_repr_names_owner_index_and_element_format() -> None:
    data = array.array("h", [1, 2, 3])
    assert repr(Ptr(data) + 2) == "Ptr(array + 2, h)"
    assert repr(Ptr(np.zeros(2, dtype=np.float64))) == "Ptr(ndarray + 0, d)"


def test_copy_ref_and_copy_return_the_destination_tensor() -> None:
    src = Tensor(np.arange(6.0), la.Layout((2, 3)))
    for fn in (copy_ref, copy):
        dst = Tensor(np.zeros(6), la.Layout((2, 3), (3, 1)))
        assert fn(src, dst) is dst
        assert [dst[i] for i in range(6)] == [src[i] for i in range(6)]


def test_a_write_after_write_names_both_dst_indices_their_position_and_both_source_positions() -> None:
    # src reads position 1 + 3i for index i; dst sends indices i and i + 2 to one position i % 2
    src = Tensor(np.arange(12.0), la.Layout(4, 3), 1)
    dst = Tensor(np.zeros(2), la.Layout((2, 2), (1, 0)))
    msg = r"^copy: write-after-write: indices 0 and 2 of dst both land on position 0 but read different source " \
          r"positions \(1 and 7\)$"
    with pytest.raises(la.ShapeError, match=msg):
        copy(src, dst)


@pytest.mark.parametrize("address", [0, 4096, 1 << 40, np.int64(64), np.uint64(1 << 40)])
def test_a_bare_integer_address_is_refused_as_having_no_type_or_bounds(address: object) -> None:
    with pytest.raises(la.ShapeError, match="^Ptr of a bare address: it has no element type and no bounds"):
        Ptr(address)


@pytest.mark.parametrize("owner", [True, False, 1.5, "abc", [1, 2]])
def test_an_object_without_storage_is_refused_naming_its_type(owner: object) -> None:
    with pytest.raises(la.LayoutError, match=rf"^Ptr needs an object with storage \(the buffer protocol\), got "
                       rf"{type(owner).__name__}$"):
        Ptr(owner)


def test_a_strided_one_dimensional_buffer_reads_its_own_elements() -> None:
    data = np.arange(10, dtype=np.int32)
    view = data[::3]  # elements 0, 3, 6, 9 of data
    p = Ptr(view)
    assert [p[i] for i in range(4)] == [0, 3, 6, 9]
    with pytest.raises(la.CoordinateError, match="outside its buffer of 4 elements"):
        p[4]


def test_a_zero_dimensional_buffer_is_one_element() -> None:
    p = Ptr(np.array(7, dtype=np.int32))
    assert p[0] == 7
    with pytest.raises(la.CoordinateError, match="outside its buffer of 1 elements"):
        p[1]

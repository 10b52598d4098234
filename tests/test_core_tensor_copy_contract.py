"""Contract of ``Ptr`` (``layoutalg.core.tensor_copy``): a bounds-checked pointer into a buffer, starting at
element 0 unless told; multi-dimensional storage must be contiguous (the layout supplies the strides); its repr
names the owner's type, the element index and the element format."""

from __future__ import annotations

import array

import numpy as np
import pytest

import layoutalg as la
from layoutalg.core.tensor_copy import Ptr


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

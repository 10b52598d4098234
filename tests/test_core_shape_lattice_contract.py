"""Contract of ``layoutalg.core.shape_lattice.product_each`` (CuTe): the size of each top-level mode with the rank
kept; an int shape is itself; a layout stands for its shape."""

from __future__ import annotations

import numpy as np
import pytest

import layoutalg as la
from layoutalg.core.shape_lattice import compatible, product_each


def test_product_each_of_an_int_shape_is_the_int() -> None:
    assert product_each(4) == 4
    assert product_each(la.Layout(6, 2)) == 6


def test_product_each_multiplies_each_top_level_mode_of_a_shape_or_layout() -> None:
    assert product_each(((2, 3), 4)) == (6, 4)
    assert product_each(la.Layout(((2, 3), 4), ((1, 2), 6))) == (6, 4)


def test_a_numpy_array_is_no_layout_its_own_shape_is_not_taken_for_one() -> None:
    # a layout (shape and stride) stands for its shape; an array has a .shape of its own, which is not a layout's
    with pytest.raises(la.ShapeError, match="compatible a must be an int or a tuple of ints, got a numpy array"):
        compatible(np.array([2, 3]), (2, 3))
    with pytest.raises(la.ShapeError, match="got a numpy array"):
        compatible(np.array([6]), 6)

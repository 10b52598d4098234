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


def test_symbolic_extents_join_meet_and_compare_as_pycute_does() -> None:
    """PyCuTe's shapes may hold sympy extents: sizes compare provably (``2*N == N*2``), never by a guess."""
    import sympy

    from layoutalg.core.shape_lattice import common_coarsening, common_refinement

    n, m = sympy.symbols("N M", positive=True, integer=True)
    assert product_each((n, (2, m))) == (n, 2 * m)
    assert compatible(2 * n, (n, 2)) is True
    assert compatible(4, (n, 2)) is False  # 4 == 2*N only for N == 2
    assert compatible((n,), n) is False
    assert common_refinement(n, (n,)) == (n,)
    assert common_refinement((n, 6), (n, (2, 3))) == (n, (2, 3))
    assert common_coarsening(((n, 2), 3), ((2, n), 3)) == (2 * n, 3)
    with pytest.raises(la.ShapeError, match="common_coarsening: sizes"):
        common_coarsening((n, 2), (m, 2))

"""Contract of ``layoutalg.core.shape_lattice.product_each`` (CuTe): the size of each top-level mode with the rank
kept; an int shape is itself; a layout stands for its shape."""

from __future__ import annotations

import layoutalg as la
from layoutalg.core.shape_lattice import product_each


def test_product_each_of_an_int_shape_is_the_int() -> None:
    assert product_each(4) == 4
    assert product_each(la.Layout(6, 2)) == 6


def test_product_each_multiplies_each_top_level_mode_of_a_shape_or_layout() -> None:
    assert product_each(((2, 3), 4)) == (6, 4)
    assert product_each(la.Layout(((2, 3), 4), ((1, 2), 6))) == (6, 4)

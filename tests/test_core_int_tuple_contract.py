"""Contract of the unchecked int-tuple primitives (`layoutalg.core.int_tuple`) the algebra is built on.

Truths are CuTe's definitions, recomputed here by brute force: colexicographic coordinates,
compact column-major / row-major strides, ``shape_div`` consuming the divisor from the left.
"""

from __future__ import annotations

import itertools

import pytest

from layoutalg.core import int_tuple as it
from layoutalg.errors import CoordinateError, ShapeError


def _colex_coords(sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every coordinate of a flat shape, the first mode fastest (CuTe's colexicographic order)."""
    return [tuple(reversed(c)) for c in itertools.product(*(range(s) for s in reversed(sizes)))]


def test_inner_product_refuses_a_tuple_against_an_int_either_way_round() -> None:
    with pytest.raises(ShapeError, match="inner_product of incongruent"):
        it.inner_product((1, 2), 3)
    with pytest.raises(ShapeError, match="inner_product of incongruent"):
        it.inner_product(3, (1, 2))
    with pytest.raises(ShapeError, match="inner_product of incongruent"):
        it.inner_product((1, 2), (1, 2, 3))
    assert it.inner_product((2, (3, 4)), (5, (6, 7))) == 2 * 5 + 3 * 6 + 4 * 7


def test_default_prefix_and_suffix_products_are_the_compact_column_and_row_major_strides() -> None:
    assert it.prefix_product(((2, 4), 8)) == ((1, 2), 8)
    assert it.prefix_product((3, 5, 7)) == (1, 3, 15)
    assert it.suffix_product((3, 5, 7)) == (35, 7, 1)
    assert it.suffix_product(((2, 3), 4)) == ((12, 4), 1)
    assert it.suffix_product(6) == 1


def test_suffix_product_with_a_tuple_init_starts_each_top_level_mode_at_its_own_value() -> None:
    assert it.suffix_product(((2, 3), 4), (1, 10)) == ((3, 1), 10)
    assert it.suffix_product((5, (2, 3)), (7, 100)) == (7, (300, 100))


@pytest.mark.parametrize("shape, init", [(4, (1, 2)), ((2, 3), (1, 2, 3)), ((2, 3, 4), (1, 2))])
def test_suffix_product_refuses_a_tuple_init_of_another_rank(shape: object, init: object) -> None:
    with pytest.raises(ShapeError, match="suffix_product: tuple init .* must have the rank of shape"):
        it.suffix_product(shape, init)  # type: ignore[arg-type]


def test_ceil_div_rounds_up_and_refuses_zero() -> None:
    assert [it.ceil_div(a, 4) for a in (0, 1, 4, 5, 8, -5)] == [0, 1, 1, 2, 2, -1]
    with pytest.raises(ShapeError, match="ceil_div by zero"):
        it.ceil_div(3, 0)


def test_shape_div_of_congruent_tuples_divides_mode_by_mode() -> None:
    assert it.shape_div((6, (8, 4)), (3, (2, 4))) == (2, (4, 1))
    assert it.shape_div((2, 12), (4, 3)) == (1, 4)  # a mode divided by a larger one is used up (CuTe)


def test_shape_div_refuses_tuples_of_different_ranks() -> None:
    with pytest.raises(ShapeError, match="shape_div of incongruent"):
        it.shape_div((6, 4), (3,))


def test_shape_div_of_an_int_by_a_tuple_divides_by_its_product() -> None:
    assert it.shape_div(24, (2, 3)) == 4
    assert it.shape_div(3, (2, 3)) == 1


def test_shape_div_refuses_division_by_zero_and_non_dividing_pairs() -> None:
    with pytest.raises(ShapeError, match="shape_div by zero"):
        it.shape_div(6, 0)
    with pytest.raises(ShapeError, match="neither 4 nor 6 divides"):
        it.shape_div(4, 6)


@pytest.mark.parametrize("shape", [(2, 3), ((2, 2), 3), (3, (2, 2), 2)])
def test_crd2idx_without_strides_is_the_colexicographic_index(shape: object) -> None:
    flat = it.flatten(shape)  # type: ignore[arg-type]
    for index, flat_crd in enumerate(_colex_coords(flat)):
        assert it.crd2idx(index, shape) == index  # type: ignore[arg-type]
        assert it.crd2idx(it.unflatten(flat_crd, shape), shape) == index  # type: ignore[arg-type]
    sizes = tuple(it.product(m) for m in shape)  # type: ignore[attr-defined]
    for index, top_crd in enumerate(_colex_coords(sizes)):
        assert it.crd2idx(top_crd, shape) == index  # type: ignore[arg-type]


def test_crd2idx_of_a_tuple_coordinate_uses_the_compact_strides() -> None:
    assert it.crd2idx((1, 2), (2, 3)) == 1 + 2 * 2
    assert it.crd2idx(((1, 1), 2), ((2, 2), 3)) == 1 + 2 + 2 * 4


def test_idx2crd_refuses_a_coordinate_tree_of_another_rank() -> None:
    with pytest.raises(CoordinateError, match=r"coordinate \(1, 2\) does not match the rank of shape \(2, 3, 4\)"):
        it.idx2crd((1, 2), (2, 3, 4))
    with pytest.raises(CoordinateError, match="does not match the rank"):
        it.idx2crd((1, 2), 6)


def test_crd2crd_reexpresses_a_coordinate_through_its_colexicographic_index() -> None:
    src, dst = (2, 3), (3, 2)
    for crd in _colex_coords(src):
        index = crd[0] + 2 * crd[1]
        assert it.crd2crd(crd, src, dst) == (index % 3, index // 3)
    assert it.crd2crd((1, (0, 1)), (2, (2, 2)), 8) == 1 + 2 * 2


def test_elem_scale_multiplies_each_int_of_a_by_the_size_of_the_matching_mode_of_b() -> None:
    assert it.elem_scale(3, (2, 4)) == 24
    assert it.elem_scale((3, 2), (4, (2, 5))) == (12, 20)
    assert it.elem_scale(((1, 2), 5), ((3, 7), 1)) == ((3, 14), 5)


def test_weakly_congruent_answers_false_for_a_tuple_against_an_int() -> None:
    assert it.weakly_congruent(6, (2, 3)) is True  # an int may stand for any subtree
    assert it.weakly_congruent((2, 3), 6) is False  # a tuple cannot stand for an int
    assert it.weakly_congruent(((2, 3), 4), (6, 4)) is False


def test_index_digits_lists_the_leaves_a_value_depends_on_skipping_stride_0_and_inner_extent_1() -> None:
    shape, stride = (2, 1, (3, 4), 1), (5, 7, (0, 2), 9)
    # leaves 2:5 (running 1), 1:7 (skipped: extent 1, not last), 3:0 (skipped: stride 0), 4:2 (running 6),
    # 1:9 (last: kept, its digit is i // 24, CuTe's extension past size)
    assert list(it.index_digits(shape, stride)) == [(1, 2, 5, False), (6, 4, 2, False), (24, 1, 9, True)]

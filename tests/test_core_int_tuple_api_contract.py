"""Contract of the checked int-tuple functions (`layoutalg.core.int_tuple_api`): CuTe's answers on valid
input (recomputed here from the definitions), and a ShapeError/CoordinateError naming the argument otherwise.
The nesting limit (64 levels, `validate.MAX_DEPTH`) holds on the fast paths as on the validating ones."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from layoutalg.core import int_tuple_api as api
from layoutalg.core.validate import MAX_DEPTH
from layoutalg.errors import CoordinateError, ShapeError
from tests.oracles import reference as ref


def _nest(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = (value,)
    return value


def test_rank_and_depth_count_top_level_modes_and_nesting() -> None:
    assert api.rank(5) == 1
    assert api.rank((2, (3, 4), 5)) == 3
    assert api.rank([2, 3]) == 2
    assert api.depth(5) == 0
    assert api.depth((2, 3)) == 1
    assert api.depth((2, (3, (4, 1)))) == 3


@pytest.mark.parametrize("fn, name", [(api.rank, "rank argument"), (api.depth, "depth argument")])
def test_rank_and_depth_refuse_non_integers_naming_the_argument(fn: Any, name: str) -> None:
    with pytest.raises(ShapeError, match=name):
        fn((2, 2.5))


def test_prefix_product_defaults_to_the_compact_column_major_strides() -> None:
    assert api.prefix_product(((2, 4), 8)) == ((1, 2), 8)
    assert api.prefix_product(7) == 1


def test_prefix_product_with_a_nested_tuple_init_starts_each_mode_at_its_own_value() -> None:
    shape, init = (((2, 3), 4), 5), ((10, 100), 1000)
    expected = ((ref.prefix_products((2, 3), 10)[0], 100), 1000)
    assert expected == (((10, 20), 100), 1000)
    assert api.prefix_product(shape, init) == expected
    assert api.prefix_product(((2, (3, 4)), (5, 6)), ((1, 7), 9)) == ((1, (7, 21)), (9, 45))


def test_prefix_product_with_a_tuple_init_refuses_a_non_integer_leaf_naming_it() -> None:
    with pytest.raises(ShapeError, match=r"prefix_product shape\[1\]"):
        api.prefix_product((2, 2.5), (1, 10))
    with pytest.raises(ShapeError, match=r"prefix_product shape\[0\]"):
        api.prefix_product((2.5,), (1,))  # no int mode beside it


def test_prefix_product_with_an_f2_init_stays_f2_and_multiplies_carry_less_leaf_by_leaf() -> None:
    """PyCuTe's ``init := init * v`` with an F2 init: ``F2(1)*3 = F2(0b11)``, ``F2(0b11)*3 = F2(0b101)`` (carry-less:
    0b11 xor 0b110), ``F2(0b101)*2 = F2(0b1010)``; an int init beside it in a tuple init stays an int."""
    from layoutalg.core.stride_scalars import F2

    got: Any = api.prefix_product((3, 3, 2), F2(1))
    assert got == (F2(1), F2(0b11), F2(0b101)) and all(type(x) is F2 for x in got)
    got = api.prefix_product(((2, 3), (4, 5)), (F2(1), 7))
    assert got == ((F2(1), F2(2)), (7, 28)) and [type(x) for x in got[0]] == [F2, F2]


def test_prefix_product_with_a_basis_init_scales_on_the_init_axis() -> None:
    from layoutalg.core.stride_scalars import E

    assert api.prefix_product((3, (2, 4)), E(1)) == (E(1), (3 * E(1), 6 * E(1)))
    assert api.prefix_product(((2, 3), 4), (E(0), 2 * E(1))) == ((E(0), 2 * E(0)), 2 * E(1))


def test_prefix_product_with_a_symbolic_extent_or_init_stays_symbolic() -> None:
    import sympy

    n, x = sympy.symbols("N X", positive=True, integer=True)
    assert api.prefix_product((2, n, 4)) == (1, 2, 2 * n)
    assert api.prefix_product((2, n, 4), x) == (x, 2 * x, 2 * n * x)
    assert api.prefix_product(5, x) == x


def test_prefix_product_accepts_the_deepest_nesting_and_refuses_one_level_more() -> None:
    assert api.prefix_product(_nest(3, MAX_DEPTH)) == _nest(1, MAX_DEPTH)
    assert api.prefix_product((2, _nest(3, MAX_DEPTH - 1))) == (1, _nest(2, MAX_DEPTH - 1))
    with pytest.raises(ShapeError, match="nested more than 64 levels"):
        api.prefix_product(_nest(3, MAX_DEPTH + 1))
    with pytest.raises(ShapeError, match="nested more than 64 levels"):
        api.prefix_product((2, _nest(3, MAX_DEPTH)))


def test_suffix_product_defaults_to_the_compact_row_major_strides() -> None:
    assert api.suffix_product((3, 5, 7)) == (35, 7, 1)
    assert api.suffix_product(((2, 3), 4), (1, 10)) == ((3, 1), 10)
    with pytest.raises(ShapeError, match="suffix_product shape"):
        api.suffix_product((2, "x"))


def test_ceil_div_rounds_up_for_a_positive_divisor() -> None:
    assert [api.ceil_div(a, b) for a, b in [(7, 2), (8, 2), (0, 3), (-7, 2), (5, 1)]] == [4, 4, 0, -3, 5]


@pytest.mark.parametrize("b", [0, -1, -4])
def test_ceil_div_refuses_a_divisor_that_is_not_positive_naming_b(b: int) -> None:
    with pytest.raises(ShapeError, match=f"ceil_div b must be positive, got {b}"):
        api.ceil_div(3, b)


def test_ceil_div_refuses_a_float_naming_the_argument() -> None:
    with pytest.raises(ShapeError, match="ceil_div a"):
        api.ceil_div(2.0, 3)


def test_shape_div_divides_mode_by_mode_consuming_the_divisor_from_the_left() -> None:
    assert api.shape_div((6, 4), (3, 2)) == (2, 2)
    assert api.shape_div((2, 3, 4), 6) == (1, 1, 4)
    assert api.shape_div(24, (2, 3)) == 4
    with pytest.raises(ShapeError, match="shape_div of incongruent"):
        api.shape_div((6, 4), (3, 2, 1))


@pytest.mark.parametrize("shape", [(2, 3), ((2, 2), 3), (3, (2, (2, 2)))])
def test_crd2idx_without_a_stride_is_the_colexicographic_index_of_any_coordinate_tree(shape: Any) -> None:
    sizes = [api.product(m) for m in shape]
    coords = [tuple(reversed(c)) for c in itertools.product(*(range(s) for s in reversed(sizes)))]
    for index, crd in enumerate(coords):
        assert api.crd2idx(index, shape) == index
        assert api.crd2idx(crd, shape) == index  # ints standing for whole sub-trees
        full = tuple(api.idx2crd(c, m) for c, m in zip(crd, shape))
        assert api.crd2idx(full, shape) == index  # the full hierarchical coordinate


def test_crd2idx_accepts_the_deepest_nesting_and_refuses_one_level_more() -> None:
    assert api.crd2idx(1, (2, _nest(3, MAX_DEPTH - 1))) == 1
    assert api.crd2idx((1, _nest(2, MAX_DEPTH - 1)), (2, _nest(3, MAX_DEPTH - 1))) == 1 + 2 * 2
    with pytest.raises(ShapeError, match="nested more than 64 levels"):
        api.crd2idx(1, (2, _nest(3, MAX_DEPTH)))
    with pytest.raises(ShapeError, match="nested more than 64 levels"):
        api.crd2idx((1, _nest(0, MAX_DEPTH)), (2, _nest(3, MAX_DEPTH)))


def test_fast_paths_refuse_an_integer_past_4096_bits_like_the_validating_path() -> None:
    big = 1 << 4096
    with pytest.raises(ShapeError, match=r"prefix_product shape\[1\] has 4097 bits"):
        api.prefix_product((2, big))
    with pytest.raises(ShapeError, match="prefix_product init has 4097 bits"):
        api.prefix_product((2, 3), big)
    with pytest.raises(CoordinateError, match=r"crd2idx coordinate\[1\] has 4097 bits"):
        api.crd2idx((0, big), (2, 3))
    assert api.prefix_product((2, big - 1)) == (1, 2)


_BIG = 1 << 4096  # one bit past the limit, either sign


@pytest.mark.parametrize("sign", [1, -1], ids=["positive", "negative"])
@pytest.mark.parametrize("shape, init", [
    ("B", 1), (3, "B"), ((2, "B"), 1), (((2, "B"),), 1), ((2, 3), ("B", 1)), (((2, "B"), 3), (1, 1)),
    (("B", 3), (1, 1)), (((4,),), (("B",),)), ((("B",),), ((1,),)), ((("B",), 3), (1, 1)),
    (("B",), 1), ((1 << 30, "B"), 1),  # a flat shape whose every leaf is past 2**30 (no small leaf beside it)
], ids=str)
def test_prefix_product_refuses_a_4097_bit_leaf_or_init_at_every_position(shape: Any, init: Any, sign: int) -> None:
    def fill(x: Any) -> Any:
        return sign * _BIG if x == "B" else tuple(fill(y) for y in x) if isinstance(x, tuple) else x

    with pytest.raises(ShapeError, match="has 4097 bits"):
        api.prefix_product(fill(shape), fill(init))


@pytest.mark.parametrize("shape, init", [
    (_nest(3, MAX_DEPTH + 1), _nest(1, MAX_DEPTH + 1)),  # a tuple init nested as deep as the shape
    ((2, _nest(3, MAX_DEPTH)), (1, (1,))),  # a tuple init's mode that is itself a tuple
    ((2, (2, _nest(3, MAX_DEPTH - 1))), (1, 1)),  # an int init's mode holding a nested leaf
], ids=["deep init", "tuple mode init", "nested leaf under an int init"])
def test_prefix_product_with_a_tuple_init_refuses_nesting_past_64_levels(shape: Any, init: Any) -> None:
    with pytest.raises(ShapeError, match="nested more than 64 levels"):
        api.prefix_product(shape, init)


@pytest.mark.parametrize("crd, shape", [((1, 2, 3), (4, 4)), ((1, 2), 4)], ids=["rank 3 for rank 2", "tuple for int"])
def test_crd2idx_refuses_a_coordinate_tree_that_does_not_follow_the_shape(crd: Any, shape: Any) -> None:
    with pytest.raises(CoordinateError, match="crd2idx coordinate .* does not match the rank of shape"):
        api.crd2idx(crd, shape, api.prefix_product(shape))

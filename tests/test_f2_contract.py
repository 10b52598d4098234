"""BitMatrix and to_f2/from_f2 at the edges of their stated domains: dimension bounds on both sides, malformed
rows and columns, inputs outside [0, 2**n_in), composition and inversion refusals, and shapes with a bad extent."""

from __future__ import annotations

import dataclasses

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, NotLinearError, ShapeError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.f2 import MAX_BITS, BitMatrix, from_f2, is_f2_linear, to_f2
from layoutalg.swizzle.swizzle import Swizzle


def test_bit_matrix_dimensions_from_0_to_max_bits_are_accepted() -> None:
    empty = BitMatrix(0, 0, ())
    assert empty.rank() == 0 and empty.is_invertible() and str(empty) == ""
    widest = BitMatrix.identity(MAX_BITS)
    assert (widest.n_in, widest.n_out) == (MAX_BITS, MAX_BITS)
    assert widest(1 << (MAX_BITS - 1)) == 1 << (MAX_BITS - 1)


def test_bit_matrix_is_an_immutable_hashable_value() -> None:
    first, same = BitMatrix(2, 2, (1, 3)), BitMatrix.from_columns([1, 3])
    assert len({first, same, BitMatrix.identity(2)}) == 2  # equal matrices are one set element
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.columns = (2, 1)  # type: ignore[misc]
    assert first.columns == (1, 3) and first(0b10) == 3


@pytest.mark.parametrize("n_in, n_out", [(0, -1), (0, MAX_BITS + 1), (-1, 0), (MAX_BITS + 1, 0), (-1, MAX_BITS + 1)])
def test_bit_matrix_dimensions_outside_0_to_max_bits_are_refused(n_in: int, n_out: int) -> None:
    columns = (0,) * max(n_in, 0)
    with pytest.raises(LayoutError, match=r"dimensions must be in \[0, 4096\]"):
        BitMatrix(n_in, n_out, columns)


def test_from_rows_reads_row_i_as_output_bit_i() -> None:
    assert BitMatrix.from_rows([]) == BitMatrix(0, 0, ())
    assert BitMatrix.from_rows([[1, 0, 1]]) == BitMatrix(3, 1, (1, 0, 1))
    two = BitMatrix.from_rows([[1, 0], [1, 1]])
    assert two == BitMatrix(2, 2, (0b11, 0b10))
    assert str(two) == "10\n11"


def test_from_rows_refuses_ragged_rows_and_entries_other_than_0_or_1() -> None:
    with pytest.raises(LayoutError, match="row 1 has 1 entries, expected 2"):
        BitMatrix.from_rows([[1, 0], [1]])
    with pytest.raises(LayoutError, match=r"entry \(0,0\) = 2 is not 0 or 1"):
        BitMatrix.from_rows([[2]])


def test_from_columns_refuses_a_non_sequence() -> None:
    with pytest.raises(LayoutError, match="sequence of ints"):
        BitMatrix.from_columns(5)  # type: ignore[arg-type]


@pytest.mark.parametrize("x", [4, 5, 2.5, "1", True])
def test_a_bit_matrix_refuses_inputs_outside_its_domain(x: object) -> None:
    matrix = BitMatrix.identity(2)
    with pytest.raises(LayoutError, match=r"is not an integer in \[0, 2\*\*2\)"):
        matrix(x)  # type: ignore[arg-type]


def test_compose_accepts_unused_high_output_bits_and_refuses_used_ones() -> None:
    outer = BitMatrix(2, 2, (0b10, 0b01))  # swaps two bits
    unused_high = BitMatrix(2, 3, (0b01, 0b10))  # declares 3 output bits, uses 2
    assert outer.compose(unused_high) == BitMatrix(2, 2, (0b10, 0b01))
    used_high = BitMatrix(1, 3, (0b100,))
    with pytest.raises(LayoutError, match="cannot compose: inner produces 3 bits, outer takes only 2"):
        outer.compose(used_high)


def test_a_non_square_matrix_has_no_inverse_even_with_full_column_rank() -> None:
    tall = BitMatrix(2, 3, (0b001, 0b010))  # rank 2 = n_in, but 3 outputs
    with pytest.raises(LayoutError, match="no two-sided inverse"):
        tall.inverse()


def test_a_mode_of_extent_one_may_have_a_negative_stride() -> None:
    # extent 1 contributes no index bit, so its stride is never used
    assert to_f2(Layout((1, 4), (-1, 1))) == BitMatrix(2, 2, (1, 2))
    with pytest.raises(NotLinearError, match="negative stride"):
        to_f2(Layout((2, 4), (-1, 2)))


def test_a_layout_outer_composition_is_decided_by_enumeration_up_to_2_to_24_elements() -> None:
    # (4,2):(2,1) as the outer function: a bit permutation, decided on its whole domain
    small = ComposedLayout(Layout((4, 2), (2, 1)), 0, Layout(8, 1))
    assert to_f2(small) == BitMatrix(3, 3, (0b010, 0b100, 0b001))
    # exactly 2**24 elements is inside the decided domain: this one is refused for its negative column (found
    # before any enumeration), not for its size
    at_bound = ComposedLayout(Layout(1 << 25, -1), 0, Layout(1 << 24, 1))
    with pytest.raises(NotLinearError, match="negative value"):
        to_f2(at_bound)
    past = ComposedLayout(Layout(1 << 26, 1), 0, Layout(1 << 25, 1))
    with pytest.raises(NotLinearError, match=r"only decided up to 2\*\*24 elements"):
        to_f2(past)


@pytest.mark.parametrize("shape, mode", [(0, "shape"), ((4, 0), r"\[1\]"), (-2, "shape")])
def test_from_f2_refuses_a_shape_with_a_non_positive_extent_naming_the_mode(shape: object, mode: str) -> None:
    with pytest.raises(ShapeError, match=f"at mode {mode} must be a positive integer"):
        from_f2(BitMatrix.identity(2), shape=shape)


def test_the_identity_swizzle_is_the_empty_matrix_unless_widened() -> None:
    assert to_f2(Swizzle(0, 0, 0)) == BitMatrix(0, 0, ())
    assert to_f2(Swizzle(0, 0, 0), n_bits=3) == BitMatrix.identity(3)


def test_to_f2_widens_a_swizzle_to_0_through_max_bits_and_refuses_other_widths() -> None:
    swizzle = Swizzle(1, 0, 1)  # x ^ ((x >> 1) & 1): columns 1 and 3 over 2 bits
    assert to_f2(swizzle, n_bits=0) == BitMatrix(2, 2, (1, 3))
    widest = to_f2(swizzle, n_bits=MAX_BITS)
    assert widest.n_in == MAX_BITS and widest.columns[:3] == (1, 3, 4)
    for width in (-1, MAX_BITS + 1):
        with pytest.raises(LayoutError, match=r"n_bits must be in \[0, 4096\]"):
            to_f2(swizzle, n_bits=width)


def test_an_offset_or_a_nonzero_origin_is_refused_naming_the_value_at_0() -> None:
    swizzled = ComposedLayout(Swizzle(1, 0, 1), 2, Layout(4, 1))  # maps 0 to Sw(2) = 3
    with pytest.raises(NotLinearError, match="has offset 2: it maps 0 to 3,"):
        to_f2(swizzled)
    # a layout outer that moves 0: (4,2):(2,1) at offset 1 maps 0 to 2
    shifted = ComposedLayout(Layout((4, 2), (2, 1)), 1, Layout(4, 1))
    with pytest.raises(NotLinearError, match="maps 0 to 2, so it is not linear"):
        to_f2(shifted)
    assert is_f2_linear(shifted) is False


def test_a_layout_outer_composition_that_is_not_linear_names_its_first_counterexample() -> None:
    # outer (3,_):(1,4) maps positions 0..3 to 0, 1, 2, 4: bits 1 and 2 give columns 1 and 2, but index 3 gives 4
    carry = ComposedLayout(Layout((3, 4), (1, 4)), 0, Layout(4, 1))
    with pytest.raises(NotLinearError, match="at index 3 it gives 4, the XOR of its bit columns gives 3"):
        to_f2(carry)


def test_a_layout_outer_composition_with_a_zero_column_is_linear_and_a_negative_one_is_not() -> None:
    # inner (2,4):(0,1) repeats every position: index bit 0 maps to 0
    repeated = ComposedLayout(Layout(8, 1), 0, Layout((2, 4), (0, 1)))
    assert to_f2(repeated) == BitMatrix(3, 2, (0, 1, 2))
    negative = ComposedLayout(Layout(8, -1), 0, Layout(4, 1))
    with pytest.raises(NotLinearError, match="negative value"):
        to_f2(negative)
    assert is_f2_linear(negative) is False


def test_from_f2_refuses_a_non_matrix_and_bit_counts_that_do_not_match() -> None:
    with pytest.raises(LayoutError, match="from_f2 takes a BitMatrix, got 'x'"):
        from_f2("x")  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match=r"modes of \[1\] bits do not cover the 2 index bits"):
        from_f2(BitMatrix.identity(2), mode_bits=[1])
    with pytest.raises(LayoutError, match=r"shape \(2, 2\) has 2 index bits, the matrix has 3"):
        from_f2(BitMatrix.identity(3), shape=(2, 2))


def test_from_f2_gives_an_index_bit_free_mode_extent_one_and_stride_zero() -> None:
    assert from_f2(BitMatrix.identity(0)) == Layout(1, 0)
    assert from_f2(BitMatrix.identity(2), mode_bits=[0, 2]) == Layout((1, 4), (0, 1))
    assert from_f2(BitMatrix(3, 3, (1, 2, 4)), mode_bits=[1, 0, 2]) == Layout((2, 1, 4), (1, 0, 2))
    # two bits per mode, each mode its own stride: (2,2):(1,4) on columns 1 and 4
    assert from_f2(BitMatrix(2, 3, (1, 4)), mode_bits=[1, 1]) == Layout((2, 2), (1, 4))


def test_from_f2_groups_a_bit_into_the_last_mode_when_its_column_continues_that_mode() -> None:
    # columns 1 | 8, 16, 32: bits 2 and 3 continue the mode that starts at 8 (8 * 2 == 16, 8 * 4 == 32)
    assert from_f2(BitMatrix.from_columns([1, 8, 16, 32])) == Layout((2, 8), (1, 8))
    # one mode of bits is a rank-1 layout, not a 1-tuple
    assert from_f2(BitMatrix.identity(2), mode_bits=[2]) == Layout(4, 1)
    assert from_f2(BitMatrix.identity(2)) == Layout(4, 1)
    # zero columns group with a zero-stride mode: 0, 0 | 1
    assert from_f2(BitMatrix.from_columns([0, 0, 1])) == Layout((4, 2), (0, 1))


def test_from_f2_gives_a_leaf_of_extent_one_in_a_given_shape_stride_zero() -> None:
    assert from_f2(BitMatrix.identity(2), shape=(1, 4)) == Layout((1, 4), (0, 1))


def test_the_swizzle_search_covers_64_output_bits_and_refuses_65() -> None:
    # Sw<1,0,63> o (2,2):(1,2**63): columns 1 and 2**63 | 1 share bit 0, so only a swizzle makes them a layout
    top = 1 << 63
    found = from_f2(BitMatrix.from_columns([1, top | 1]))
    # the swizzle touches only the matrix's 64 output bits
    assert found == ComposedLayout(Swizzle(1, 0, 63), 0, Layout((2, 2), (1, top)))
    assert [found(1), found(2)] == [1, top | 1]
    with pytest.raises(LayoutError, match="at most 64 output bits; the matrix has 65"):
        from_f2(BitMatrix.from_columns([1, (top << 1) | 1]))

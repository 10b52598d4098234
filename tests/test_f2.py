"""GF(2) bit matrices: exact on every linear case (checked on the whole domain), refusal on every non-linear case."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, NotLinearError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.f2 import BitMatrix, from_f2, is_f2_linear, to_f2
from layoutalg.swizzle.strategies import compact_pow2_layouts, pow2_layouts, small_layouts, swizzled_layouts, swizzles
from layoutalg.swizzle.swizzle import Swizzle


def function_values(x: Any) -> list[int]:
    return [x(i) for i in range(x.size())]


def brute_force_linear(values: list[int]) -> bool:
    """Linear over GF(2) iff the domain is 2**n and f(a ^ b) == f(a) ^ f(b) for all a, b (checked on all pairs of a basis and any x)."""
    n = len(values)
    if n & (n - 1) or any(v < 0 for v in values):
        return False
    if values[0] != 0:
        return False
    # f(x ^ 2**j) == f(x) ^ f(2**j) for every x and j implies full linearity (induction on popcount)
    bits = n.bit_length() - 1
    return all(values[x ^ (1 << j)] == values[x] ^ values[1 << j] for x in range(n) for j in range(bits))


def assert_exact(x: object, matrix: BitMatrix) -> None:
    values = function_values(x)
    assert matrix.n_in == len(values).bit_length() - 1
    assert [matrix(i) for i in range(len(values))] == values


def test_the_peer_library_case_sw333_rowmajor_8x64() -> None:
    composed = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
    matrix = to_f2(composed)
    assert_exact(composed, matrix)
    assert matrix.rank() == 9


@given(pow2_layouts())
@settings(max_examples=200, deadline=None)
def test_layouts_exact_or_refused(layout: Layout) -> None:
    values = function_values(layout)
    if brute_force_linear(values):
        assert_exact(layout, to_f2(layout))
        assert is_f2_linear(layout)
    else:
        with pytest.raises(NotLinearError):
            to_f2(layout)
        assert not is_f2_linear(layout)


@given(small_layouts())
@settings(max_examples=150, deadline=None)
def test_arbitrary_layouts_exact_or_refused(layout: Layout) -> None:
    values = function_values(layout)
    if brute_force_linear(values):
        assert_exact(layout, to_f2(layout))
    else:
        with pytest.raises(NotLinearError):
            to_f2(layout)


@given(swizzled_layouts(compact=False, offset=True))
@settings(max_examples=200, deadline=None)
def test_composed_exact_or_refused(composed: ComposedLayout) -> None:
    values = function_values(composed)
    if brute_force_linear(values):
        assert_exact(composed, to_f2(composed))
    else:
        with pytest.raises(NotLinearError):
            to_f2(composed)


@given(compact_pow2_layouts(max_modes=3), compact_pow2_layouts(max_modes=3))
@settings(max_examples=80, deadline=None)
def test_layout_outer_composed(outer: Layout, inner: Layout) -> None:
    composed = ComposedLayout(outer, 0, inner)
    values = function_values(composed)
    if brute_force_linear(values):
        assert_exact(composed, to_f2(composed))
    else:
        with pytest.raises(NotLinearError):
            to_f2(composed)


@given(swizzles(max_bits=4, max_base=4, max_shift=6))
@settings(max_examples=100, deadline=None)
def test_swizzle_matrix(sw: Swizzle) -> None:
    matrix = to_f2(sw)
    assert all(matrix(x) == sw(x) for x in range(1 << matrix.n_in))
    assert matrix.is_invertible()
    assert matrix.inverse() == matrix  # an involution


@pytest.mark.parametrize(
    "layout",
    [Layout(3, 1), Layout((2, 2), (1, 1)), Layout(4, -1), Layout((2, 6), (1, 2)), Layout(4, 3)],
)
def test_refusals(layout: Layout) -> None:
    with pytest.raises(NotLinearError):
        to_f2(layout)


def test_offset_is_affine_not_linear() -> None:
    with pytest.raises(NotLinearError, match="offset"):
        to_f2(ComposedLayout(Swizzle(3, 3, 3), 8, Layout((8, 64), (64, 1))))


def test_single_stride_3_is_linear() -> None:
    # 2:3 maps 0 -> 0, 1 -> 3: a linear map (one column, value 3), though the stride is not a power of two.
    assert to_f2(Layout(2, 3)).columns == (3,)


def test_to_f2_rejects_other_types() -> None:
    with pytest.raises(LayoutError):
        to_f2("8:1")


@st.composite
def bit_matrices(draw: st.DrawFn, max_in: int = 6, max_out: int = 6) -> BitMatrix:
    n_in = draw(st.integers(0, max_in))
    n_out = draw(st.integers(0, max_out))
    cols = [draw(st.integers(0, (1 << n_out) - 1)) for _ in range(n_in)]
    return BitMatrix(n_in, n_out, tuple(cols))


@given(bit_matrices())
@settings(max_examples=200, deadline=None)
def test_rank_kernel_image(matrix: BitMatrix) -> None:
    values = {matrix(x) for x in range(1 << matrix.n_in)}
    image = matrix.image()
    span = {0}
    for vec in image:
        span |= {v ^ vec for v in span}
    assert span == values  # the image basis spans exactly the values
    assert len(values) == 1 << matrix.rank()
    kernel = matrix.kernel()
    assert all(matrix(v) == 0 for v in kernel)
    assert matrix.rank() + len(kernel) == matrix.n_in
    zeros = {x for x in range(1 << matrix.n_in) if matrix(x) == 0}
    kspan = {0}
    for vec in kernel:
        kspan |= {v ^ vec for v in kspan}
    assert kspan == zeros


@given(bit_matrices(max_in=5, max_out=5), bit_matrices(max_in=5, max_out=5))
@settings(max_examples=150, deadline=None)
def test_compose(a: BitMatrix, b: BitMatrix) -> None:
    a = BitMatrix(b.n_out, a.n_out, tuple((list(a.columns) + [0] * b.n_out)[: b.n_out]))
    product = a @ b
    assert all(product(x) == a(b(x)) for x in range(1 << b.n_in))


@given(st.integers(1, 6), st.randoms(use_true_random=False))
@settings(max_examples=100, deadline=None)
def test_inverse(n: int, rng: object) -> None:
    cols = tuple(rng.randrange(1 << n) for _ in range(n))  # type: ignore[attr-defined]
    matrix = BitMatrix(n, n, cols)
    values = [matrix(x) for x in range(1 << n)]
    if len(set(values)) == 1 << n:
        inverse = matrix.inverse()
        assert all(inverse(matrix(x)) == x for x in range(1 << n))
    else:
        assert not matrix.is_invertible()
        with pytest.raises(LayoutError):
            matrix.inverse()


@given(swizzled_layouts(compact=False))
@settings(max_examples=150, deadline=None)
def test_from_f2_round_trip(composed: ComposedLayout) -> None:
    if not is_f2_linear(composed):
        return
    matrix = to_f2(composed)
    rebuilt = from_f2(matrix)
    assert function_values(rebuilt) == function_values(composed)
    shaped = from_f2(matrix, composed.inner.shape)
    assert function_values(shaped) == function_values(composed)
    assert shaped.shape == composed.shape


@given(pow2_layouts(zero_strides=True))
@settings(max_examples=100, deadline=None)
def test_from_f2_round_trip_layouts(layout: Layout) -> None:
    if not is_f2_linear(layout):
        return
    rebuilt = from_f2(to_f2(layout), layout.shape)
    assert isinstance(rebuilt, Layout)
    assert function_values(rebuilt) == function_values(layout)


def test_from_f2_refuses_non_swizzle_matrices() -> None:
    # bit 0 -> bits {0,1}, bit 1 -> bits {1,2}, bit 2 -> bit 2: invertible, but no swizzle makes the columns disjoint
    matrix = BitMatrix(3, 3, (0b011, 0b110, 0b100))
    with pytest.raises(LayoutError):
        from_f2(matrix)


def test_bitmatrix_validation() -> None:
    with pytest.raises(LayoutError):
        BitMatrix(1, 1, (2,))
    with pytest.raises(LayoutError):
        BitMatrix(2, 1, (1,))
    with pytest.raises(LayoutError):
        BitMatrix(1, 1, (1,))(2)
    assert BitMatrix.from_rows([[1, 0], [1, 1]]).columns == (0b11, 0b10)
    assert [list(r) for r in BitMatrix.identity(2).rows()] == [[1, 0], [0, 1]]


def test_exhaustive_small_swizzled_tiles() -> None:
    for b, m, s in itertools.product(range(4), range(4), (3, 4, -3, -4)):
        if abs(s) < b:
            continue
        composed = ComposedLayout(Swizzle(b, m, s), 0, Layout((8, 64), (64, 1)))
        assert_exact(composed, to_f2(composed))

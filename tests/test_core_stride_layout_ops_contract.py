"""Contract of the algebra on basis/F2-stride layouts (``layoutalg.core.stride_layout_ops``): results are judged
on every index against the definitions; requests with no layout answer are refused naming why."""

from __future__ import annotations

import re
from typing import Any

import pytest

import layoutalg as la
from layoutalg import F2, ArithTuple, E, ScaledBasis
from layoutalg.core.layout import Layout
from layoutalg.errors import ShapeError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle
from tests.oracles import reference as ref

SL = la.stride_layout
A = SL((2, 3), (E(0), E(1)))


def test_composing_into_f2_values_by_coordinate_reads_the_f2_layout_off_the_values() -> None:
    a, b = SL(4, F2(1)), SL((2, 2), (E(0), ScaledBasis(2, (0,))))
    r = la.composition(a, b)  # coordinates 0, 1, 2, 3 of A: the values F0, F1, F2, F3, linear in the index bits
    assert [r(i) for i in range(4)] == [a(b(i)[0]) for i in range(4)]
    assert isinstance(r.stride[0], F2)


def test_f2_values_not_linear_in_the_index_bits_have_no_f2_layout() -> None:
    # (4,2):(F1,F1) at offsets 0, 6, 12, 18 is F0, F3, F3, F6: F3 ^ F3 != F6, so no F2 strides give it
    with pytest.raises(la.CompositionError, match="not GF.2.-linear in the index bits"):
        la.composition(SL((4, 2), (F2(1), F2(1))), la.Layout(4, 6))
    # along an extent of 3 the values F0, F3, F3 are no F2 layout's: 3:F3 would give F6 at 2
    with pytest.raises(la.CompositionError, match="along B's extent 3 they are no F2 layout's"):
        la.composition(SL((4, 2), (F2(1), F2(1))), la.Layout(3, 6))


def test_cute_divisibility_failure_with_basis_strides_reads_the_layout_off_the_values() -> None:
    """CuTe's division of B's leaf 4:6 by A's extents fails, yet A o B is (2,2):(3@1,3@1) (values 0, 3, 3, 6 on
    axis 1), as the int-stride composition answers (2,2):(3,3); judged on every index."""
    a = SL((4, 2), (E(1), E(1)))
    r = la.composition(a, la.Layout(4, 6))
    assert [r(i) for i in range(4)] == [a(6 * i) for i in range(4)]
    assert la.composition(la.Layout((4, 2), (1, 1)), la.Layout(4, 6)) == la.Layout((2, 2), (3, 3))
    with pytest.raises(la.CompositionError, match=r"no layout of B's shape \(2,4\) has the function"):
        la.composition(SL((5, 6), (E(2), ScaledBasis(2, (2,)))), la.Layout((2, 4), (0, 2)))  # axis 2: 0, 2, 4, 3


def test_a_basis_value_outside_a_shapes_modes_is_not_a_coordinate() -> None:
    with pytest.raises(la.CompositionError, match="1@2 is not a coordinate of shape"):
        la.composition(SL((2, 2), (E(0), E(1))), SL(2, ArithTuple(0, 0, 1)))
    with pytest.raises(la.CompositionError, match="1@1 goes deeper than shape 4"):
        la.composition(la.Layout(4, 1), SL(2, ScaledBasis(1, (1,))))


def test_composition_by_coordinate_is_a_of_b_on_every_index() -> None:
    a = la.Layout((3, 3), (1, 3))
    b = SL((2, 2), (ArithTuple(1, 1), ScaledBasis(2, (0,))))
    r = la.composition(a, b)
    for i in range(4):
        c = b(i)
        assert r(i) == a((c[0], c[1])), i


def test_layout_add_refuses_layouts_of_different_sizes_naming_them() -> None:
    with pytest.raises(la.ShapeError, match=r"one size; \(2,3\):\(1@0,1@1\) has 6, 4:1@0 has 4"):
        la.layout_add(A, SL(4, E(0)))


def test_layout_add_refuses_domains_that_do_not_refine() -> None:
    with pytest.raises(la.CompositionError, match="index domains do not refine each other"):
        la.layout_add(A, SL((3, 2), (E(0), E(1))))


def test_layout_add_is_the_pointwise_sum() -> None:
    b = SL((2, 3), (E(1), 0))
    r = la.layout_add(A, b)
    assert [r(i) for i in range(6)] == [A(i) + b(i) for i in range(6)]


def test_nullspace_of_f2_values_whose_zeros_no_int_layout_lists_is_their_xor_subspace() -> None:
    """(2,2,2):(F1,F1,F1) is 0 at the even-parity indices 0, 3, 5, 6 (no int layout lists them: 3 + 5 != 6), a
    subspace with the basis 3, 5; six such modes give the 32 even-parity indices of 6 bits."""
    for a in (SL((2, 2, 2), (F2(1), F2(1), F2(1))), SL((2,) * 6, (F2(1),) * 6)):
        zeros = [i for i in range(a.size()) if bin(i).count("1") % 2 == 0]
        assert zeros == [i for i in range(a.size()) if a(i) == 0]
        n = la.nullspace(a)
        assert sorted(int(n(i)) for i in range(n.size())) == zeros


def test_nullspace_lists_the_indices_of_zero_values() -> None:
    n = la.nullspace(SL((2, 3), (E(0), 0)))
    zeros = [i for i in range(6) if SL((2, 3), (E(0), 0))(i) == 0]
    assert [n(i) for i in range(n.size())] == zeros


def test_make_layout_like_orders_int_strides_by_value_before_basis_strides() -> None:
    # leaves 2:4, 3:E(0), 2:1 -> compact in the order (stride 1), (stride 4), (E(0))
    assert la.make_layout_like(SL((2, 3, 2), (4, E(0), 1))) == la.Layout((2, 3, 2), (2, 4, 1))
    assert la.make_layout_like(SL((2, 3, 2), (E(1), E(0), 0))) == la.Layout((2, 3, 2), (3, 1, 0))


def test_composition_by_coordinate_whose_values_are_no_layout_is_refused() -> None:
    a = la.Layout(((2, 2), 3), ((1, 10), 2))  # along mode 0: 0, 1, 10 (an int coordinate unfolds in (2,2))
    assert [a(((k % 2, k // 2), 0)) for k in range(3)] == [0, 1, 10]
    with pytest.raises(la.CompositionError, match="the values are not those of any layout of B's shape"):
        la.composition(a, SL(3, E(0)))


COALESCE_CASES = [  # (layout, CuTe's coalesce, coalesce keeping the last leaf)
    (la.stride_layout((2, 3), (E(0), ScaledBasis(2, (0,)))), "6:1@0", "6:1@0"),
    (la.stride_layout((2, 1), (E(0), E(1))), "2:1@0", "(2,1):(1@0,1@1)"),
    (la.stride_layout((1, 1), (E(0), E(1))), "1:0", "1:1@1"),
    (la.stride_layout((2, 3, 2), (E(0), E(1), ScaledBasis(3, (1,)))), "(2,6):(1@0,1@1)", "(2,6):(1@0,1@1)"),
    (la.stride_layout((3, 2), (F2(1), F2(3))), "(3,2):(F1,F3)", "(3,2):(F1,F3)"),  # 3 is no power of two: a carry
    (la.stride_layout((2, 2, 2), (F2(1), F2(2), F2(4))), "8:F1", "8:F1"),
    (la.stride_layout((4, 2), (F2(1), F2(4))), "8:F1", "8:F1"),
]


@pytest.mark.parametrize("layout, flat, kept", COALESCE_CASES, ids=lambda x: str(x))
def test_coalesce_of_basis_and_f2_strides_merges_continuing_modes_keeping_every_value(
        layout: Any, flat: str, kept: str) -> None:
    from layoutalg.core.stride_layout_ops import coalesce, coalesce_z

    c, z = coalesce(layout), coalesce_z(layout)
    assert (str(c), str(z)) == (flat, kept)
    n = layout.size()
    assert c.size() == z.size() == n
    assert [c(i) for i in range(n)] == [z(i) for i in range(n)] == [layout(i) for i in range(n)]



A_2D = la.stride_layout((4, 6), (E(0), E(1)))
A_3D = la.stride_layout((2, 3, 4), (E(1), ScaledBasis(2, (0,)), E(2)))
A_F2 = la.stride_layout((4, 2, 2), (F2(1), F2(8), F2(4)))
SPLIT_CASES = [(A_2D, b) for b in (la.Layout(6, 4), la.Layout(3, 8), la.Layout((2, 3), (2, 4)),
                                   la.Layout((2, 2), (1, 4)), la.Layout(4, 2), la.Layout(2, 12),
                                   la.Layout((3, 2), (8, 1)))] + [
    (A_3D, la.Layout(2, 12)),
    (A_F2, la.Layout(6, 4)), (A_F2, la.Layout(3, 8)), (A_F2, la.Layout((2, 2), (1, 4))), (A_F2, la.Layout(4, 2)),
    (A_F2, la.Layout((3, 2), (8, 1))),
]


@pytest.mark.parametrize("a, b", SPLIT_CASES, ids=str)
def test_composition_with_a_strided_int_layout_meeting_cutes_divisibility_is_a_of_b(a: Any, b: Any) -> None:
    from layoutalg.core.stride_layout_ops import composition

    c = composition(a, b)
    assert c.size() == b.size()
    assert [c(i) for i in range(b.size())] == [a(b(i)) for i in range(b.size())], (a, b, c)


@pytest.mark.parametrize("a, b", [(A_2D, la.Layout((2, 6), (3, 2))), (A_3D, la.Layout(6, 4)),
                                  (A_3D, la.Layout(4, 2))], ids=str)
def test_composition_where_divisibility_fails_and_no_layout_has_the_values_is_refused(a: Any, b: Any) -> None:
    """CuTe's division fails here, and the values read off every index fit no layout of B's shape."""
    from layoutalg.core.stride_layout_ops import composition

    with pytest.raises(la.CompositionError, match="no layout of B's shape .* has the function"):
        composition(a, b)


def _coordinate(v: Any, rank: int) -> Any:
    """A basis value as the plain coordinate tuple of a rank-``rank`` shape (brute force, no layoutalg)."""
    if isinstance(v, int):
        return v if rank == 1 else (v,) + (0,) * (rank - 1)
    return v[0] if rank == 1 else tuple(v[k] for k in range(rank))


def test_composing_f2_values_where_cutes_split_carries_is_refused_not_answered_wrongly() -> None:
    # 12:F1 maps i -> F(i); B = 4:3 asks for F0, F3, F6, F9.  CuTe's split gives 4:F3, whose value at 3 is
    # clmul(3, 3) = F5, not F9: no F2 layout of shape 4 has these values, so the composition is refused.
    a, b = SL(12, F2(1)), la.Layout(4, 3)
    assert [a(b(i)) for i in range(4)] == [F2(0), F2(3), F2(6), F2(9)]
    assert int(F2(3) * 3) == 5
    with pytest.raises(la.CompositionError, match="no layout with F2 strides of B's shape 4 has the function"):
        la.composition(a, b)


@pytest.mark.parametrize("b, want", [(la.Layout(2, 1), "2:1@0"), (la.Layout(6, 4), "6:1@1"),
                                     (la.Layout(3, 8), "3:2@1"), (la.Layout(8, 1), "(4,2):(1@0,1@1)"),
                                     (la.Layout((2, 3), (2, 4)), "(2,3):(2@0,1@1)")], ids=str)
def test_composition_with_an_int_layout_is_cutes_layout_rank_for_rank(b: Any, want: str) -> None:
    # CuTe on (4,6):(1@0,1@1): a leaf s:r divides r out of the leading modes, then takes s along what is left;
    # a leaf that lands in one mode is a single mode (an int shape), not a rank-1 tuple
    r = la.composition(A_2D, b)
    assert str(r) == want
    assert [r(i) for i in range(b.size())] == [A_2D(b(i)) for i in range(b.size())]


def test_a_size_one_mode_of_b_composes_whatever_its_stride() -> None:
    # B's mode 1:4 only ever reads A(0): no division of 4 by A's shapes (2,3,...) is needed
    b = la.Layout((2, 1), (12, 4))
    r = la.composition(A_3D, b)
    assert r.shape == (2, 1)
    assert [r(i) for i in range(2)] == [A_3D(b(i)) for i in range(2)] == [0, ScaledBasis(2, (2,))]


def test_composition_into_a_rank_zero_layout_is_zero_everywhere() -> None:
    from layoutalg.core.stride_layout import StrideLayout

    a = StrideLayout((), ())  # the constant function 0 (CuTe's Layout<Shape<>, Stride<>>)
    r = la.composition(a, la.Layout(2, 1))
    assert r.size() == 2
    assert [r(i) for i in range(2)] == [a(0), a(1)] == [0, 0]


@pytest.mark.parametrize("a", [SL((8, 8), (E(0), E(1))), SL((8, 8), (ScaledBasis(-1, (0,)), E(1))),
                               SL((8, 8), (ScaledBasis(-1, (0,)), ScaledBasis(-3, (1,))))], ids=str)
def test_composition_by_coordinate_with_components_past_one_is_a_of_b(a: Any) -> None:
    # B addresses A at coordinates (3k, 5j); A's values have components up to 15 in size, of either sign
    b = SL((2, 2), (ScaledBasis(3, (0,)), ScaledBasis(5, (1,))))
    r = la.composition(a, b)
    assert [r(i) for i in range(4)] == [a(_coordinate(b(i), 2)) for i in range(4)]
    assert r.shape == (2, 2)


def test_composition_by_coordinate_that_is_not_additive_over_bs_modes_says_so() -> None:
    a = la.Layout(((2, 2), 3), ((1, 10), 2))  # along mode 0: 0, 1, 10, 11 (an int coordinate unfolds in (2,2))
    b = SL((2, 2), (E(0), E(0)))  # both modes walk mode 0 of A: A(0), A(1), A(1), A(2) = 0, 1, 1, 10
    assert [a(((k % 2, k // 2), 0)) for k in (0, 1, 1, 2)] == [0, 1, 1, 10]  # 10 != 1 + 1: not additive
    with pytest.raises(la.CompositionError, match=r"not a sum of per-mode functions over B's modes \[2, 2\]"):
        la.composition(a, b)


def test_tiler_to_layout_puts_mode_i_of_a_tuple_tiler_on_axis_i() -> None:
    t = la.tiler_to_layout((4, 5))
    assert t == SL((4, 5), (E(0), E(1)))
    assert [t(i) for i in range(20)] == [ArithTuple(i % 4, i // 4) for i in range(20)]


def test_tiler_to_layout_of_a_nested_tuple_tiler_gives_nested_coordinates() -> None:
    t = la.tiler_to_layout(((2, 3), 4))  # mode 0 is itself tiled by (2, 3): its coordinate is a pair
    assert t.shape == ((2, 3), 4)
    assert [t(i) for i in range(24)] == [ArithTuple(ArithTuple(i % 2, i // 2 % 3), i // 6) for i in range(24)]


def test_tiler_to_layout_keeps_an_int_layouts_strides_on_its_axis() -> None:
    t = la.tiler_to_layout((la.Layout(2, 3), la.Layout(2, 0)))  # a stride-0 tile mode stays 0
    assert [t(i) for i in range(4)] == [ArithTuple(3 * (i % 2), 0) for i in range(4)]


def test_tiler_to_layout_reads_an_int_or_a_layout_on_the_unit_e() -> None:
    """PyCuTe's ``tiler_to_layout(tiler, e)``: ``N -> N:e``; a layout's strides ``d -> e * d`` (an F2 unit
    multiplies carry-less: ``F2(3) * 3 == F2(0b11 ^ 0b110) == F2(5)``); a tuple's modes go on their own axes."""
    assert la.tiler_to_layout(3, E(1)) == SL(3, E(1))
    assert la.tiler_to_layout(3, 2) == la.Layout(3, 2)
    t = la.tiler_to_layout(la.Layout((2, 3), (1, 3)), F2(3))
    assert t.shape == (2, 3) and t.stride == (F2(3), F2(5))
    assert [t(i) for i in range(6)] == [F2(3) * (i % 2) + F2(5) * (i // 2) for i in range(6)]
    assert la.tiler_to_layout((4, 5), E(1)) == la.tiler_to_layout((4, 5))
    with pytest.raises(la.ShapeError, match="tiler_to_layout unit e must be a stride scalar"):
        la.tiler_to_layout(3, 2.5)


def test_coalesce_with_a_tuple_profile_coalesces_a_basis_f2_or_symbolic_layout_mode_by_mode() -> None:
    """PyCuTe's ``coalesce(A, profile)`` whatever the strides: ``(2,3):(E0,2E0)`` merges to ``6:E0``, a ``None``
    mode is kept, modes past the profile are kept; ``(2,2):(F2(1),F2(2))`` merges to ``4:F2(1)``."""
    import sympy

    a = SL(((2, 3), (2, 2), (1, 3)), ((E(0), 2 * E(0)), (E(1), 2 * E(1)), (E(0), E(1))))
    got = la.coalesce(a, (1, None))
    assert got.shape == (6, (2, 2), (1, 3)) and got.stride == (E(0), (E(1), 2 * E(1)), (E(0), E(1)))
    f = SL(((2, 2), 3), ((F2(1), F2(2)), F2(4)))
    got = la.coalesce(f, (1, 1))
    assert got.shape == (4, 3) and got.stride == (F2(1), F2(4))
    x = sympy.Symbol("X", positive=True, integer=True)
    s = la.symbolic_layout(((2, 2), 3), ((x, 2 * x), 5))
    got = la.coalesce(s, (1,))
    assert got.shape == (4, 3) and got.stride == (x, 5)
    with pytest.raises(la.ShapeError, match="coalesce profile"):
        la.coalesce(f, (1, 1, 1))


@pytest.mark.parametrize("tiler", ["x", 1.5, None, True], ids=repr)
def test_tiler_to_layout_refuses_what_is_no_tiler_naming_it(tiler: Any) -> None:
    with pytest.raises(la.ShapeError, match="a tiler is an int, a layout or a tuple of tilers, got"):
        la.tiler_to_layout(tiler)


@pytest.mark.parametrize("layout", [SL((3, 2), (F2(1), 3)), SL((3, 2), (1, F2(3)))], ids=str)
def test_coalesce_keeps_an_f2_mode_pair_apart_when_the_first_extent_is_no_power_of_two(layout: Any) -> None:
    # one stride F2: the index carries between the modes unless the first extent is a power of two,
    # so (3,2) never merges into 6 even where the other stride has the continuing bits
    from layoutalg.core.stride_layout_ops import coalesce

    assert str(coalesce(layout)) == str(layout)


@pytest.mark.parametrize("d", [2**62, 3 * 2**61], ids=["2**62", "3*2**61"])
def test_a_composition_by_coordinate_that_is_not_additive_names_the_exact_sum_past_int64(d: int) -> None:
    # B walks mode 0 of A twice: A(B((1,1))) is A's value at 2 (the stride 1), but the modes each give d
    a = la.Layout(((2, 2), 3), ((d, 1), 5))
    b = SL((2, 2), (E(0), E(0)))
    assert [a(((k % 2, k // 2), 0)) for k in (1, 2)] == [d, 1]
    with pytest.raises(la.CompositionError, match=rf"at coordinate \(1, 1\) A\(B\(c\)\) = 1, but the modes' values "
                                                  rf"sum to {d + d}\)"):
        la.composition(a, b)


@pytest.mark.parametrize("b,hint", [("x", ""), (2.5, ""), (0, ""), (True, ""),
                                    (ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1))), ".inner"),
                                    (Swizzle(3, 4, 3), "")])
def test_composing_a_basis_strided_layout_with_no_layout_is_a_shape_error_naming_b(b: Any, hint: str) -> None:
    with pytest.raises(ShapeError, match=r"^composition B of a basis- or F2-strided layout must be a Layout, a "
                                         r"StrideLayout or a positive int, got .*" + re.escape(hint)):
        la.composition(SL(16, E(0)), b)


def test_composing_a_basis_strided_layout_with_an_int_reads_it_as_a_compact_extent() -> None:
    a = SL((4, 4), (E(0), E(1)))
    got = la.composition(a, 8)
    assert [got(i) for i in range(8)] == [a(i) for i in range(8)]


@pytest.mark.parametrize("n", [1, 2])
def test_composing_a_basis_strided_layout_with_any_positive_int_takes_its_first_n_values(n: int) -> None:
    a = SL((4, 4), (E(0), E(1)))
    got = la.composition(a, n)
    assert got.size() == n and [got(i) for i in range(n)] == [a(i) for i in range(n)]


def test_tiler_to_layout_of_a_symbolic_extent_or_unit_is_symbolic() -> None:
    """PyCuTe: ``tiler_to_layout(N) == N:1``, ``tiler_to_layout(4, X) == 4:X``, a symbolic layout is itself."""
    import sympy

    n, x = sympy.symbols("N X", positive=True, integer=True)
    t: Any = la.tiler_to_layout(n)
    assert t.shape == n and t.stride == 1
    t = la.tiler_to_layout(4, x)
    assert t.shape == 4 and t.stride == x
    t = la.tiler_to_layout(la.Layout((2, 3), (1, 2)), x)
    assert t.shape == (2, 3) and t.stride == (x, 2 * x)
    s = la.symbolic_layout((n, 2), (x, 1))
    assert la.tiler_to_layout(s) == s


def test_f2_nullspace_that_no_int_layout_lists_is_the_f2_layout_of_its_subspace() -> None:
    """(4,4,8):(F7,F9,F2) maps the indices 0, 7, 114, 117 (and no others) to 0, by brute force; they are closed
    under XOR but no int layout lists them, so the nullspace is an F2 layout listing each once."""
    for a in (SL((4, 4, 8), (F2(7), F2(9), F2(2))), SL((8, 2, 6), (F2(4), F2(4), F2(14)))):
        zeros = [i for i in range(a.size()) if a(i) == 0]
        n = la.nullspace(a)
        listed = [int(n(i)) for i in range(n.size())]
        assert sorted(listed) == zeros and len(set(listed)) == len(listed), (a, n)
        assert all(isinstance(d, F2) for _, d in n.pairs())


def test_f2_nullspace_refused_when_the_zeros_are_no_subspace_and_no_int_layout_lists_them() -> None:
    a = SL((4, 6, 8), (F2(4), F2(6), F2(18)))
    zeros = [i for i in range(a.size()) if a(i) == 0]
    assert zeros == [0, 11, 47]  # three indices: a layout listing them is one mode of 3 (0, d, 2d): none
    with pytest.raises(la.CompositionError, match="are not the values of any layout"):
        la.nullspace(a)


# ---------------------------------------------------------------------------------------- fast paths vs values
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@st.composite
def _stride_leaf(draw: Any, kind: str) -> Any:
    if kind == "F2":
        return F2(draw(st.integers(0, 31)))
    scale = draw(st.integers(-2, 4))
    if kind == "int":
        return scale
    return scale * E(draw(st.integers(0, 2)))  # 0 * E(i) is a zero basis stride


@st.composite
def _stride_layouts(draw: Any, size: int | None = None, kind: str | None = None) -> Any:
    """Flat layouts with int, basis or F2 strides (one kind; basis zeros may be int 0), size <= 64."""
    kind = kind or draw(st.sampled_from(["int", "E", "E", "F2"]))
    if size is None:
        shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    else:  # a random factorization of size
        shape, rest = [], size
        while rest > 1:
            f = draw(st.sampled_from([d for d in range(2, rest + 1) if rest % d == 0]))
            shape.append(f)
            rest //= f
        shape = tuple(shape) or (1,)
    stride = tuple(draw(_stride_leaf(kind)) for _ in shape)
    return la.stride_layout(shape, stride)


def _brute_values(layout: Any) -> list[Any]:
    return [layout(i) for i in range(layout.size())]


@_FAST
@given(st.data())
def test_layout_add_without_enumeration_is_the_pointwise_sum(data: st.DataObject) -> None:
    """Z-linear strides, or F2 strides at a size that is a power of two, are summed without an enumeration
    check (exact by construction, stride_layout_ops._z_linear): the result must still be A(i) + B(i)."""
    kind = data.draw(st.sampled_from(["int", "E", "F2"]))
    a = data.draw(_stride_layouts(kind=kind))
    b = data.draw(_stride_layouts(size=a.size(), kind=kind))
    try:
        r = la.layout_add(a, b)
    except la.LayoutError:
        return  # kinds that do not add (F2 + basis), or domains that do not refine
    want = [x + y for x, y in zip(_brute_values(a), _brute_values(b))]
    assert r.size() == a.size() and _brute_values(r) == want


def test_layout_add_of_f2_strides_split_at_no_power_of_two_is_checked_and_refused() -> None:
    """6:F1 split at 3 to meet (3,2):(F1,F4) would carry between the parts (1 ^ (1 (x) 3) == 2, not 4): no layout
    of the refinement has the sum, so it is refused, not answered from the split."""
    a = la.stride_layout((3, 2), (F2(1), F2(4)))
    b = la.stride_layout(6, F2(1))
    try:
        r = la.layout_add(a, b)
    except la.LayoutError:
        return
    assert _brute_values(r) == [x + y for x, y in zip(_brute_values(a), _brute_values(b))]


@_FAST
@given(_stride_layouts())
def test_nullspace_of_non_negative_strides_is_the_zero_set(a: Any) -> None:
    """The nullspace lists exactly the indices of zero values, each once; the stride-0 construction
    (non-negative int or basis strides) lists them in increasing order, as the enumeration does, and so does
    every answer where an int layout reads them so.  With strides of both signs, or F2 strides, an order no
    layout reads increasingly may be the only one (``(4,4,4):(-1,-1,2)``: 0, 18, 21, 39, 24, ...;
    ``(4,4,3):(F1,F2,F2)``: 0, 6, 20, 18, 40, 46 is ``(2,3):(F6,F20)``)."""
    from layoutalg.core.stride_layout_ops import _non_negative, _nullspace_by_values

    try:
        n = la.nullspace(a)
    except la.LayoutError:
        return
    zeros = [i for i, v in enumerate(_brute_values(a)) if v == 0]
    listed = [int(x) for x in _brute_values(n)]
    assert sorted(listed) == zeros and len(set(listed)) == len(listed)
    pairs = a.pairs() if isinstance(a, la.StrideLayout) else list(zip(la.flatten(a.shape), la.flatten(a.stride)))
    if ref.representable_1d(zeros):
        assert listed == zeros
    if all(_non_negative(d) and not isinstance(d, F2) for _, d in pairs):
        assert listed == zeros
        if isinstance(a, la.StrideLayout):
            assert n == _nullspace_by_values(a)

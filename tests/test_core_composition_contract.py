"""Contract of `layoutalg.core.composition` at its edges: a ``None`` tiler (CuTe's ``_``) leaves A as it is,
per mode too, and the result R of A o B satisfies R(i) == A(B(i)) on B's domain (brute force)."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

import layoutalg as la
from layoutalg.core.int_tuple import flatten
from layoutalg.core.layout import Layout
from layoutalg.errors import CompositionError, ShapeError

composition = importlib.import_module("layoutalg.core.composition").composition


def test_composition_with_none_returns_a_itself() -> None:
    a = Layout((2, (3, 4)), (1, (8, 2)))
    assert composition(a, None) == a


def test_a_none_entry_of_a_tuple_tiler_keeps_that_mode() -> None:
    a = Layout((4, 6), (1, 4))
    got = composition(a, (None, Layout(3, 2)))
    assert got == Layout((4, 3), (1, 8))


@pytest.mark.parametrize("a, b", [(Layout((4, 6), (1, 4)), Layout((2, 3), (3, 4))),
                                  (Layout(((2, 2), 3), ((1, 6), 2)), Layout(6, 2)),
                                  (Layout((3, 4), (4, 1)), Layout(4, 3))])
def test_composition_agrees_with_a_of_b_on_every_index(a: Layout, b: Layout) -> None:
    r = composition(a, b)
    assert [r(i) for i in range(b.size())] == [a(b(i)) for i in range(b.size())]


@pytest.mark.parametrize("a", [Layout(8, 2), Layout((2, 4), (3, 6)), Layout(1, 0)])
def test_a_single_stride_a_composes_with_a_negative_stride_b_as_the_linear_map_it_is(a: Layout) -> None:
    # A coalesces to one mode x -> x * d, linear on every integer, so A o B is B's strides times d, negative
    # offsets included (brute force: d * B(i) for every i; d read off A(1))
    b = Layout((4, 2), (-1, 5))
    d = a(1) if a.size() > 1 else 0
    r = composition(a, b)
    assert [r(i) for i in range(b.size())] == [d * b(i) for i in range(b.size())]
def _a_extended(shape: tuple[int, ...], stride: tuple[int, ...], x: int) -> int:
    """A flat ``A`` at any ``x >= 0``: colexicographic digits, the last mode unbounded (CuTe's extension)."""
    value = 0
    for k, (s, d) in enumerate(zip(shape, stride)):
        if k == len(shape) - 1:
            return value + x * d
        value += (x % s) * d
        x //= s
    return value


def _sweep() -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    import itertools
    import random

    every = [(ss, ds) for r in (1, 2, 3) for ss in itertools.product((1, 2, 3, 4), repeat=r)
             for ds in itertools.product((0, 1, 2, 3, 4, 6, 8), repeat=r)]
    return random.Random(17).sample(every, 30)


_TILERS: list[tuple[Any, Any]] = ([(s, d) for s in (2, 3, 4, 6, 8) for d in (0, 1, 2, 3)]
                                  + [((s0, s1), (d0, d1)) for s0 in (2, 4) for s1 in (2, 3) for d0 in (1, 2)
                                     for d1 in (0, 2, 4, 12)])


def test_composition_is_a_of_b_everywhere_and_cutes_layout_wherever_cutes_is_right() -> None:
    import pycute

    cute_right = 0
    for shape, stride in _sweep():
        a = Layout(shape, stride)
        for b_shape, b_stride in _TILERS:
            b = Layout(b_shape, b_stride)
            want = [_a_extended(shape, stride, b(i)) for i in range(b.size())]
            try:  # pycute asserts CuTe's divisibility conditions
                p = pycute.composition(pycute.Layout(shape, stride), pycute.Layout(b_shape, b_stride))
            except AssertionError:
                p = None
            cute = Layout(p.shape, p.stride) if p is not None and 0 not in pycute.flatten(p.shape) else None
            cute_ok = (cute is not None and cute.size() == b.size() and [cute(i) for i in range(b.size())] == want
                       and (not isinstance(b_shape, tuple) or [m.size() for m in cute] == [m.size() for m in b]))
            try:
                r = composition(a, b)
            except CompositionError:
                assert not cute_ok, (a, b, cute)  # a layout of B's shape with A(B(c)) exists: CuTe's
                continue
            assert [r(i) for i in range(b.size())] == want, (a, b, r)
            if isinstance(b_shape, tuple):  # B's top-level mode sizes
                assert [m.size() for m in r] == [m.size() for m in b], (a, b, r)
            assert r.size() == b.size(), (a, b, r)
            if cute_ok:
                assert r == cute, (a, b, r, cute)
                cute_right += 1
    assert cute_right > 150


@pytest.mark.parametrize("a, b, want", [
    # B's offsets t*r stay inside one mode of A (extent 3*2^20, which 2^21 does not divide: CuTe's shape condition
    # fails), so A(B(t)) == t * r / (extents below) * (that mode's stride): no enumeration of 2^21 values needed
    (Layout((3 << 20, 2), (1, 1 << 30)), Layout(1 << 21, 1), Layout(1 << 21, 1)),
    (Layout((4, 3 << 20, 2), (1, 8, 1 << 30)), Layout(1 << 21, 4), Layout(1 << 21, 8)),
    (Layout((2, 3 << 20, 2), (1, 4, 1 << 30)), Layout(1 << 21, 2), Layout(1 << 21, 4)),
])
def test_a_leaf_inside_one_mode_of_a_is_composed_past_the_enumeration_limit(a: Layout, b: Layout, want: Layout) -> None:
    assert composition(a, b) == want


def test_a_stride_that_does_not_divide_into_as_extents_gives_the_layout_of_its_values() -> None:
    # A = (4,8,2):(1,8,100), B = 4:6: A(0), A(6), A(12), A(18) = 0, 2+8, 0+24, 2+32 = 0, 10, 24, 34 = (2,2):(10,24)
    assert composition(Layout((4, 8, 2), (1, 8, 100)), Layout(4, 6)) == Layout((2, 2), (10, 24))


def test_a_shape_given_as_a_means_its_compact_layout() -> None:
    assert composition((4, 8), Layout(4, 4)) == Layout(4, 4)  # (4,8):(1,4) is i -> i, so A(4t) == 4t


@pytest.mark.parametrize("b", ["x", 2.5, [1.5]])
def test_a_tiler_that_is_no_layout_int_or_none_is_refused_naming_what_was_given(b: object) -> None:
    with pytest.raises(ShapeError, match="composition B must be a Layout, an int, None or a tuple of tilers"):
        composition(Layout(4, 1), b)


def test_a_linear_a_scales_a_nested_bs_strides_negative_ones_too() -> None:
    # A = 8:2 is x -> 2x on every integer, so A o B is B with every stride doubled
    assert composition(Layout(8, 2), Layout(((2, 2), 2), ((1, -2), 4))) == Layout(((2, 2), 2), ((2, -4), 8))
    assert composition(Layout(8, 2), Layout(((2, 2), 2), ((1, 2), 4))) == Layout(((2, 2), 2), ((2, 4), 8))


@pytest.mark.parametrize("n", [4, 8, 16, 24])
def test_a_linear_a_composed_with_an_int_tiler_is_the_tiler_scaled(n: int) -> None:
    assert composition(Layout(8, 2), n) == Layout(n, 2)  # A(i) == 2i on every i >= 0, past A's size too
    assert composition(Layout((2, 4), (3, 6)), n) == Layout(n, 3)  # (2,4):(3,6) is i -> 3i


def _values(shape: tuple[int, ...], stride: tuple[int, ...], b: Layout) -> list[int]:
    return [_a_extended(shape, stride, b(i)) for i in range(b.size())]


@pytest.mark.parametrize("shape, stride, b", [((4, 4, 2), (1, 2, 3), Layout(12, 3)), ((3, 2), (3, 3), Layout(13, 1))])
def test_a_one_mode_composition_that_is_no_layout_is_refused_listing_its_first_twelve_values(
        shape: tuple[int, ...], stride: tuple[int, ...], b: Layout) -> None:
    vals = _values(shape, stride, b)
    text = ", ".join(str(v) for v in vals[:12]) + (", ..." if len(vals) > 12 else "")
    with pytest.raises(CompositionError,
                       match=f"not a layout: .*; its values {text} do not follow any shape:stride"
                             r"( \(CuTe's (Stride|Shape) divisibility condition fails at B's leaf \d+:\d+\))?$"):
        composition(Layout(shape, stride), b)


def test_a_composition_not_additive_over_bs_modes_is_refused_at_its_first_coordinate() -> None:
    # A = (3,2):(2,1) is x -> 2(x%3) + x//3; B = (2,3):(1,4).  Colexicographically first failure: c = (1, 2), where
    # A(B(c)) = A(9) = 3 but A(B(1,0)) + A(B(0,2)) = A(1) + A(8) = 2 + 6 = 8
    with pytest.raises(CompositionError, match=r"\[2, 3\], so no layout of that shape has it \(at coordinate \(1, 2\) "
                                               r"A\(B\(c\)\) = 3, but the modes' values sum to 8\)"):
        composition(Layout((3, 2), (2, 1)), Layout((2, 3), (1, 4)))


def test_a_nested_mode_not_additive_over_its_sub_modes_is_refused() -> None:
    # A = (3,2):(1,10); B's mode (2,3):(1,2) reads A(0..5) = 0,1,2,10,11,12: the layout (3,2):(1,10), but not a
    # sum over B's sub-modes (2,3) (A(1) + A(2) = 3, A(3) = 10), so no layout refining B's shape has it; PyCuTe's
    # postcondition compatible(B, A o B) rules out answering (3,2) for B's (2,3)
    b = Layout(((2, 3), 2), ((1, 2), 6))
    with pytest.raises(CompositionError, match=r"mode 0: the function is not a sum of per-mode functions over B's "
                                               r"modes \[2, 3\]"):
        composition(Layout((3, 2), (1, 10)), b)


def test_a_nested_mode_inside_a_singleton_is_refined_too() -> None:
    # A = (3,4):(1,1); B's mode ((8,3),) reads A(0..23) = i%3 + i//3, not a sum over the wrapped (8,3)
    # (A(1) + A(8) = 1 + 4, A(9) = 3): no layout refining ((8,3),) has it, so (3,8) is no answer
    with pytest.raises(CompositionError, match=r"mode 0: the function is not a sum of per-mode functions"):
        composition(Layout((3, 4), (1, 1)), Layout((((8, 3),), 1), (((1, 8),), 24)))


def test_a_singleton_mode_of_b_stays_a_singleton_in_a_synthesised_result() -> None:
    b = Layout(((6,), 2), ((1,), 6))  # the same function as above, mode 0 written as a 1-tuple
    r = composition(Layout((3, 2), (1, 10)), b)
    assert r == Layout((((3, 2),), 2), (((1, 10),), 20))


def test_a_singleton_mode_that_is_no_layout_is_refused_naming_its_position() -> None:
    # A = (2,2):(2,8) is x -> 2(x%2) + 8(x//2); mode 1 (3,):(3,) reads A(0), A(3), A(6) = 0, 10, 24
    with pytest.raises(CompositionError, match=r"mode 1 is not a layout \(its values 0, 10, 24 do not follow"):
        composition(Layout((2, 2), (2, 8)), Layout((2, (3,)), (4, (3,))))


_TWO_MODE_AS = [Layout((4, 2), (1, 8)), Layout((2, 3), (3, 1)), Layout((3, 4), (2, 12))]
_SMALL_TILERS = [Layout(s, r) for s in (1, 2, 3, 4) for r in (0, 1, 2, 3)] + [
    Layout((2, 1, 2), (1, 5, 4)), Layout((1, 3), (7, 1)), Layout((2, 2), (0, 1)), Layout((1, 1), (7, 5)),
    Layout((3, 2), (0, 0))]


@pytest.mark.parametrize("a", _TWO_MODE_AS, ids=str)
def test_a_two_mode_a_composed_with_a_small_tiler_is_a_of_b_and_a_stride_0_tiler_itself(a: Layout) -> None:
    for b in _SMALL_TILERS:
        try:
            got = composition(a, b)
        except CompositionError:
            continue
        assert got.size() == b.size(), (a, b)
        assert [got(i) for i in range(b.size())] == [a(b(i)) for i in range(b.size())], (a, b)
        if set(flatten(b.stride)) == {0}:  # CuTe's shortcut for a stride-0 B: B itself
            assert got == b, (a, b)


def test_a_linear_a_scales_a_size_1_tiler_as_pycute_does() -> None:
    import pycute

    ref = pycute.composition(pycute.Layout(8, 2), pycute.Layout(1, 3))
    assert composition(Layout(8, 2), Layout(1, 3)) == Layout(ref.shape, ref.stride) == Layout(1, 6)


def test_a_synthesised_result_keeps_bs_additive_nested_modes_and_singletons() -> None:
    # A = (3,2):(1,10) is x -> x%3 + 10(x//3): B's first mode 6:1 is read as (3,2):(1,10) (a refinement of 6);
    # mode (2,2):(6,12) reads A(6k) = 20k, additive over its sub-modes, so it stays (2,2):(20,40); the singleton
    # (2,):(24,) reads A(24) = 80 and stays a 1-tuple
    b = Layout((6, (2, 2), (2,)), (1, (6, 12), (24,)))
    r = composition(Layout((3, 2), (1, 10)), b)
    assert [r(i) for i in range(b.size())] == _values((3, 2), (1, 10), b)
    assert r == Layout(((3, 2), (2, 2), (2,)), ((1, 10), (20, 40), (80,)))


@pytest.mark.parametrize("a", [Layout((4, 2), (1, 8)), Layout((3, 5), (7, 1)), Layout((2, 2, 2), (5, 1, 20))])
def test_a_size_one_or_stride_zero_tiler_composes_to_a_zero_stride_layout_whatever_a(a: Layout) -> None:
    # every index lands on A(0) == 0; CuTe may keep a stride no index uses ((4,2):(1,8) o 1:2 is 1:8 there)
    for stride in (1, 2, 3, 29):
        assert composition(a, Layout(1, stride)) == Layout(1, 0)
    for extent in (1, 3, 8):
        assert composition(a, Layout(extent, 0)) == Layout(extent, 0)


def _factorizations(n: int) -> list[tuple[int, ...]]:
    """Every ordered factorization of ``n`` into factors > 1 (``()`` for 1)."""
    if n == 1:
        return [()]
    return [(f, *rest) for f in range(2, n + 1) if n % f == 0 for rest in _factorizations(n // f)]


def _layout_sequences(n: int, strides: tuple[int, ...]) -> set[tuple[int, ...]]:
    """The value sequences of every flat layout of size ``n`` whose strides come from ``strides``, by brute force.
    A nested layout has the values of its flattening, and a mode of extent > 1 has its stride as a value, so with
    ``strides`` covering the values this is every layout's sequence."""
    import itertools

    out = set()
    for shape in _factorizations(n):
        for stride in itertools.product(strides, repeat=len(shape)):
            values = [0]
            for s, d in zip(shape, stride):
                values = [v + k * d for k in range(s) for v in values]
            out.add(tuple(values))
    return out


def test_synthesise_1d_reads_back_exactly_the_value_sequences_of_layouts() -> None:
    # every sequence of length 0..4 over 0..5 (and length 6 over 0..3): a coalesced layout with those values
    # exactly when some layout has them (brute force), None otherwise -- an empty one, or one not starting at 0
    import itertools

    import numpy as np

    from layoutalg.core.algebra import coalesce
    from layoutalg.core.composition import synthesise_1d
    from layoutalg.core.flat import from_pairs

    layouts_found = 0
    for n, top in [(0, 5), (1, 5), (2, 5), (3, 5), (4, 5), (6, 3)]:
        layouts = _layout_sequences(n, tuple(range(top + 1))) if n else set()
        for seq in itertools.product(range(top + 1), repeat=n):
            pairs = synthesise_1d(np.array(seq, dtype=np.int64))
            if seq not in layouts:
                assert pairs is None, seq
                continue
            assert pairs is not None, seq
            got = from_pairs(pairs)
            assert got.size() == n and tuple(got(i) for i in range(n)) == seq, (seq, got)
            assert coalesce(got) == got, (seq, got)
            layouts_found += 1
    assert layouts_found > 40


def _is_layout_function(parts: list[list[int]]) -> bool:
    return all(tuple(p) in _layout_sequences(len(p), tuple(sorted(set(p)))) for p in parts)


def test_a_two_mode_tiler_composes_to_a_of_b_or_is_refused_only_where_no_layout_of_its_mode_sizes_exists() -> None:
    # A = (E,2):(1,100) is x -> x%E + 100(x//E) (its last mode unbounded); B = (s0,s1):(r0,r1).  A layout R with
    # B's mode sizes and R(i,j) == A(B(i,j)) exists iff the function is R0(i) + R1(j) with R0, R1 layouts' values
    # (brute force).  E.g. (16,2):(1,100) o (4,2):(4,8) reaches A(12 + 8) = 104, not A(12) + A(8) = 20: refused,
    # though each leaf meets CuTe's conditions (block [4,16) is no divisor of 8: a carry from digit 0)
    import itertools

    answered = refused = 0
    for e in (4, 6, 8, 12, 16):
        for s0, s1, r0, r1 in itertools.product((2, 3, 4), (2, 3), (1, 2, 3, 4), (2, 3, 4, 6, 8)):
            a, b = Layout((e, 2), (1, 100)), Layout((s0, s1), (r0, r1))
            f = [[_a_extended((e, 2), (1, 100), i * r0 + j * r1) for j in range(s1)] for i in range(s0)]
            additive = all(f[i][j] == f[i][0] + f[0][j] for i in range(s0) for j in range(s1))
            exists = additive and _is_layout_function([[f[i][0] for i in range(s0)], f[0]])
            try:
                r = composition(a, b)
            except CompositionError:
                assert not exists, (a, b)
                refused += 1
                continue
            assert [m.size() for m in r] == [s0, s1], (a, b, r)
            assert [[r(i, j) for j in range(s1)] for i in range(s0)] == f, (a, b, r)
            answered += 1
    assert answered > 150 and refused > 20


@pytest.mark.parametrize("a, tiler, want", [
    (la.Layout((4, 5)), (2,), la.Layout((2,), (1,))),
    (la.Layout((4, 5)), (la.Layout(2, 2),), la.Layout((2,), (2,))),
    (la.Layout((4, 5)), (), la.Layout((), ())),
    (la.Layout(((4, 2), 5), ((5, 40), 1)), (2,), la.Layout((2,), (5,))),
    (la.Layout((6, 4), (4, 1)), (3,), la.Layout((3,), (4,))),
    (la.Layout((6, 4), (4, 1)), (3, None), la.Layout((3, 4), (4, 1))),
])
def test_a_tuple_tiler_drops_the_modes_it_does_not_name(a: la.Layout, tiler: tuple, want: la.Layout) -> None:
    """CuTe C++ (``composition``: "Drop any modes of lhs that aren't hit by rhs") and PyCuTe's newest tests:
    ``A o (t0,)`` has rank 1, so ``compatible(tiler, A o tiler)``; ``None`` keeps a named mode whole."""
    got = la.composition(a, tiler)
    assert got == want
    assert la.rank(got) == len(tiler)


def test_make_layout_of_no_layouts_is_the_rank_zero_layout() -> None:
    empty = la.make_layout()
    assert empty == la.make_layout([]) == la.make_layout(iter([])) == la.Layout((), ())
    assert la.make_layout(m for m in [la.Layout(2, 1), la.Layout(3, 2)]) == la.Layout((2, 3), (1, 2))  # a generator
    assert la.rank(empty) == 0 and la.size(empty) == 1 and la.coalesce(empty) == la.Layout(1, 0)
    assert la.make_layout(la.Layout((3, 4), (4, 1)), empty) == la.Layout(((3, 4), ()), ((4, 1), ()))


@pytest.mark.parametrize("a, b, condition", [
    (la.Layout((4, 6, 8), (2, 3, 5)), la.Layout(6, 3), "Stride divisibility"),
    (la.Layout((4, 6, 8), (2, 3, 5)), la.Layout(6, 1), "Shape divisibility"),
    (la.Layout((4, 2, 8), (3, 12, 97)), la.Layout(4, 3), "Stride divisibility"),
    (la.Layout((4, 2, 8), (3, 15, 97)), la.Layout(3, 3), "Stride divisibility"),
    (la.Layout((5, 3), (7, 1)), la.Layout(7, 1), "Shape divisibility"),
])
def test_a_refused_composition_names_the_cute_condition_that_fails(a: la.Layout, b: la.Layout, condition: str) -> None:
    """The condition PyCuTe's newest tests pin for each of these (``match="Stride divisibility"``...); the
    refusal itself rests on the values (no layout has them)."""
    with pytest.raises(CompositionError, match=f"CuTe's {condition} condition fails at B's leaf {b.shape}:{b.stride}"):
        la.composition(a, b)


def test_a_failing_cute_condition_does_not_refuse_what_a_layout_has() -> None:
    """``(4,2,8):(3,12,97) o 3:3`` breaks CuTe's stride divisibility, yet ``3:9`` has the function (PyCuTe's
    newest tests expect it)."""
    assert la.composition(la.Layout((4, 2, 8), (3, 12, 97)), la.Layout(3, 3)) == la.Layout(3, 9)

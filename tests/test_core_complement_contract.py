"""``complement``'s contract at its edges: what it accepts as a layout and a cotarget, what it refuses and how,
and symbolic inputs routed to the symbolic algebra.  Truths come from the definition (an ordered ``R`` with
``(A, R)`` injective and covering ``[0, M)``), checked by enumeration."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import sympy

import layoutalg as la
from layoutalg.core.validate import MAX_INT_BITS

X = sympy.Symbol("X", positive=True, integer=True)
complement: Any = la.complement  # annotated for Layouts; shapes and symbolic layouts are accepted too


def _offsets(layout: la.Layout) -> list[int]:
    return [layout(i) for i in range(layout.size())]


def _is_complement(a: la.Layout, r: la.Layout, m: int) -> bool:
    r_vals = _offsets(r)
    both = [x + y for y in r_vals for x in _offsets(a)]
    return r_vals == sorted(set(r_vals)) and len(set(both)) == len(both) and set(range(m)) <= set(both)


def test_a_shape_given_as_the_layout_means_its_compact_layout() -> None:
    assert complement((4, 2), 32) == complement(la.Layout((4, 2)), 32)
    assert complement(4, 12) == complement(la.Layout(4, 1), 12)


def test_a_shape_cotarget_means_its_size() -> None:
    a = la.Layout((2, 4), (1, 8))
    assert complement(a, (4, 16)) == complement(a, 64)
    assert _is_complement(a, complement(a, (4, 16)), 64)


def test_the_smallest_cotarget_is_one_as_an_int_or_as_a_shape() -> None:
    a = la.Layout(4, 2)
    assert complement(a, 1) == complement(a, (1,))
    assert _is_complement(a, complement(a, (1,)), 1)


@pytest.mark.parametrize("cotarget", [0, -4, (0,), (2, 0)])
def test_a_cotarget_below_one_is_refused_naming_the_cotarget(cotarget: object) -> None:
    with pytest.raises(la.LayoutError, match="cotarget"):
        complement(la.Layout(4, 1), cotarget)


@pytest.mark.parametrize("cotarget", [1 << MAX_INT_BITS, (2, 1 << (MAX_INT_BITS - 1))])
def test_a_cotarget_at_the_integer_limit_is_refused_as_an_int_and_as_a_shapes_size(cotarget: object) -> None:
    with pytest.raises(la.ShapeError, match=f"cotarget .*(below 2\\*\\*{MAX_INT_BITS}|limited to {MAX_INT_BITS} bits)"):
        complement(la.Layout(4, 1), cotarget)


def test_a_cotarget_just_below_the_integer_limit_is_answered() -> None:
    m = (1 << MAX_INT_BITS) - 1
    r = complement(la.Layout(4, 1), m)
    assert r == la.Layout(-(-m // 4), 4)


def test_a_layout_as_the_cotarget_is_refused_naming_it() -> None:
    with pytest.raises(la.ShapeError, match="cotarget must be an int or a shape, not a Layout"):
        complement(la.Layout(4, 1), la.Layout(8, 1))


@pytest.mark.parametrize("stride", [-1, -3])
def test_a_negative_stride_is_refused_naming_the_stride_and_its_extent(stride: int) -> None:
    a = la.Layout((2, 4), (stride, 2))
    with pytest.raises(la.LayoutError, match=f"non-negative strides; .* has stride {stride} \\(extent 2\\)"):
        complement(a, 64)


def test_stride_zero_and_extent_one_modes_are_ignored() -> None:
    a = la.Layout((2, 3, 1, 4), (1, 0, 7, 2))
    assert complement(a, 32) == complement(la.Layout((2, 4), (1, 2)), 32)


def test_a_symbolic_layout_with_a_concrete_cotarget_is_complemented_symbolically() -> None:
    a = la.symbolic_layout((4,), (X,))
    r = complement(a, 16 * X)
    for value in (1, 2, 3):
        concrete_a, concrete_r = a.subs({X: value}), r.subs({X: value})
        assert _is_complement(concrete_a, concrete_r, 16 * value)
    r_default = complement(a)  # the cotarget defaults to A's cosize, symbolic too
    for value in (1, 2, 5):
        assert _is_complement(a.subs({X: value}), r_default.subs({X: value}), 3 * value + 1)


def test_a_concrete_layout_with_a_symbolic_cotarget_is_complemented_symbolically() -> None:
    a = la.Layout((2, 2), (1, 4))
    r = complement(a, 8 * X)
    for value in (1, 2, 3):
        assert _is_complement(a, r.subs({X: value}), 8 * value)


def test_a_symbolic_layout_with_an_int_cotarget_is_still_symbolic_work() -> None:
    a = la.symbolic_layout((2,), (X,))
    r = complement(a, 64)
    assert isinstance(r, la.SymbolicLayout)
    for value in (1, 2, 4):
        assert _is_complement(a.subs({X: value}), r.subs({X: value}), 64)


def test_without_a_cotarget_the_complement_reaches_the_layouts_cosize() -> None:
    a = la.Layout((2, 4), (1, 8))
    assert complement(a) == complement(a, a.cosize())
    assert _is_complement(a, complement(a), a.cosize())


def test_an_extent_one_mode_with_a_negative_stride_is_ignored_like_any_extent_one_mode() -> None:
    assert complement(la.Layout((1, 4), (-3, 1)), 8) == complement(la.Layout(4, 1), 8)


# --- oracles: CuTe's own algorithm (pycute) where A's strides chain, the definition everywhere ---------------------

def _pycute_complement(shape: tuple[int, ...], stride: tuple[int, ...], m: int) -> la.Layout:
    import pycute

    r = pycute.complement(pycute.Layout(shape, stride), m)
    return la.Layout(r.shape, r.stride)


def _chain_layouts() -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Flat layouts whose sorted strides form a divisor chain (each stride a multiple of the previous extent times
    stride), modes in either order, with extent-1 and stride-0 modes mixed in."""
    found: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for s0 in (1, 2, 3, 4):
        for d0 in (1, 2, 3):
            found.append(((s0,), (d0,)))
            for s1 in (1, 2, 3):
                for k in (1, 2, 3):
                    d1 = s0 * d0 * k
                    found.append(((s0, s1), (d0, d1)))
                    found.append(((s1, s0), (d1, d0)))
                    found.append(((s0, 2, s1), (d0, 0, d1)))
    return found


def test_divisor_chain_complements_are_cutes_coalesced_answer() -> None:
    for shape, stride in _chain_layouts():
        a = la.Layout(shape, stride)
        for m in (1, 2, 5, 16, 36, 100):
            assert complement(a, m) == _pycute_complement(shape, stride, m), (a, m)


def test_a_complement_that_needs_no_gap_or_rest_mode_is_the_trivial_layout_one_to_zero() -> None:
    # CuTe: every gap extent is 1 and ceil(M / cosize) is 1, so coalescing leaves 1:0
    assert complement(la.Layout(4, 1), 4) == la.Layout(1, 0)
    assert complement(la.Layout((2, 4), (1, 2)), 3) == la.Layout(1, 0)
    assert complement(la.Layout(1, 0), 1) == la.Layout(1, 0)


def test_large_divisor_chain_layouts_are_complemented_past_the_enumeration_limit() -> None:
    # A = (2, 2^21):(1, 4) covers x with x % 4 in {0, 1} below 2^23; the gap 2:2 and the rest 2:2^23 cover the rest
    a = la.Layout((2, 1 << 21), (1, 4))
    assert complement(a, 1 << 24) == la.Layout((2, 2), (2, 1 << 23))
    assert complement(a, 1 << 23) == la.Layout(2, 2)


def test_a_stride_reached_by_the_smaller_modes_is_refused_naming_both_coordinates() -> None:
    # (5,2):(2,4): offset 4 is the stride-4 mode at 1 and the stride-2 mode at 2
    with pytest.raises(la.NotInjectiveError, match=r"reaches offset 4 twice: with its stride-4 mode at 1, and with its modes of strides \[2\] at \[2\]"):
        complement(la.Layout((5, 2), (2, 4)), 40)


def test_a_large_layout_whose_stride_is_reached_by_smaller_modes_is_refused_as_not_injective() -> None:
    # (3, 2, 2^20):(1, 2, 8): offset 2 is the stride-2 mode at 1 and the stride-1 mode at 2; too big to enumerate
    with pytest.raises(la.NotInjectiveError, match="reaches offset 2 twice"):
        complement(la.Layout((3, 2, 1 << 20), (1, 2, 8)), 1 << 24)


def _ordered_layouts(limit: int) -> list[list[int]]:
    """The value lists of ordered flat layouts of rank 1 or 2 (extents >= 2) whose values stay below ``limit``."""
    found = [[0]]
    for s0 in range(2, limit + 1):
        for d0 in range(1, limit):
            if (s0 - 1) * d0 >= limit:
                break
            first = [i * d0 for i in range(s0)]
            found.append(first)
            for s1 in range(2, limit + 1):
                for d1 in range(first[-1] + 1, limit):
                    if first[-1] + (s1 - 1) * d1 >= limit:
                        break
                    found.append([x + j * d1 for j in range(s1) for x in first])
    return found


def test_outside_divisor_chains_a_complement_is_returned_exactly_when_a_search_finds_one() -> None:
    cases = [((2, 2), (1, 3)), ((2, 2), (2, 3)), ((3, 2), (2, 7)), ((2, 2), (3, 4)), ((2, 3), (1, 5)),
             ((2, 2), (1, 5)), ((3, 2), (1, 5)), ((2, 2), (2, 5)), ((2, 2), (3, 5)), ((2, 3), (3, 7))]
    for shape, stride in cases:
        a = la.Layout(shape, stride)
        a_vals = _offsets(a)
        for m in range(1, 15):
            try:
                r = complement(a, m)
            except la.CompositionError:
                r = None
            if r is not None:
                assert _is_complement(a, r, m), (a, m, r)
                continue
            limit = m + max(a_vals) + 2
            for vals in _ordered_layouts(limit):
                both = [x + y for y in vals for x in a_vals]
                assert not (len(set(both)) == len(both) and set(range(m)) <= set(both)), (a, m, vals)


def test_outside_divisor_chains_cutes_candidate_is_the_answer_whenever_it_is_a_complement() -> None:
    import pycute

    answered = 0
    for shape, stride in [((2, 2), (2, 3)), ((3, 2), (2, 7)), ((2, 3), (1, 5)), ((2, 2), (1, 5)), ((2, 2), (3, 5)),
                          ((2, 3), (3, 7)), ((3, 3), (1, 4)), ((2, 2, 2), (1, 4, 6)), ((4, 2), (1, 6))]:
        a = la.Layout(shape, stride)
        for m in range(1, 13):
            p = pycute.complement(pycute.Layout(shape, stride), m)
            if 0 in pycute.flatten(p.shape):  # CuTe's floored division can leave a 0 extent: not a layout
                continue
            cute = la.Layout(p.shape, p.stride)
            if _is_complement(a, cute, m):
                assert complement(a, m) == cute, (a, m)
                answered += 1
    assert answered >= 20


def test_the_forced_offsets_clash_is_reported_with_the_offsets_forced_so_far() -> None:
    # (3,2):(2,7) covers 0,2,4,7,9,11; shifts 1 and 6 are forced, and 6 + 2 == 8 == 1 + 7 is covered twice
    with pytest.raises(la.CompositionError, match=r"forces the offsets \[0, 1, 6\], and A shifted by 6 hits offset 8, "):
        complement(la.Layout((3, 2), (2, 7)), 8)
    # (2,2):(7,15) covers 0,7,15,22; shifts 0..6 are forced, then 14, and 14 + 7 == 21 == 6 + 15: eight offsets
    with pytest.raises(la.CompositionError, match=r"forces the offsets \[0, 1, 2, 3, 4, 5, 6, 14\], and A shifted by 14 hits offset 21, "):
        complement(la.Layout((2, 2), (7, 15)), 15)
    # (2,2):(2,17) covers 0,2,17,19: shifts 4j and 4j+1 below 16 are forced, then 16 hits 18 == 1 + 17: nine offsets
    with pytest.raises(la.CompositionError, match=r"forces the offsets \[0, 1, 4, 5, 8, 9, 12, 13, \.\.\.\], and A shifted by 16 hits offset 18, "):
        complement(la.Layout((2, 2), (2, 17)), 17)


def test_a_forced_prefix_whose_only_layout_fails_is_reported_with_that_layout() -> None:
    # (2,2):(2,7) covers 0,2,7,9; below 5 the shifts 0, 1, 4 are forced; (2,2):(1,4) is the only ordered layout
    # starting 0, 1, 4, and its offset 5 shifts A onto 7 again
    with pytest.raises(la.CompositionError, match=r"forced offsets \[0, 1, 4\] is \(2,2\):\(1,4\), which is not one"):
        complement(la.Layout((2, 2), (2, 7)), 5)


def test_a_failing_cute_candidate_past_the_walk_limit_is_refused_naming_the_limit() -> None:
    from layoutalg.core.algebra import GREEDY_LIMIT

    assert GREEDY_LIMIT == 1 << 18
    a = la.Layout((3, 2), (2, 7))  # no complement for any cotarget above 6 (the forced walk clashes at 6)
    with pytest.raises(la.CompositionError, match=f"walks {(1 << 18) + 11} offsets one by one \\(limit {1 << 18}\\)"):
        complement(a, 1 << 18)
    with pytest.raises(la.CompositionError, match=r"forces the offsets \[0, 1, 6\]"):  # 2^18 - 11 + 11 is at the limit
        complement(a, (1 << 18) - 11)


def test_a_non_injective_layout_at_the_enumeration_limit_is_refused_as_not_injective() -> None:
    # (2,2,2^17,2):(1,3,8,8): two stride-8 modes collide; 2^20 offsets are still enumerated for the precise error
    with pytest.raises(la.NotInjectiveError, match="flat indices"):
        complement(la.Layout((2, 2, 1 << 17, 2), (1, 3, 8, 8)), 1 << 24)


def test_logical_product_of_a_non_injective_layout_is_refused_even_when_its_strides_break_the_chain() -> None:
    # (2,2,2):(1,3,4) reaches 4 as 1 + 3 and as 4; CuTe's complement (inside logical_product) needs injectivity
    for tiler in (la.Layout(2, 1), la.Layout(4, 1)):
        with pytest.raises(la.NotInjectiveError, match="both to offset 4"):
            la.logical_product(la.Layout((2, 2, 2), (1, 3, 4)), tiler)


@pytest.mark.parametrize("stride", [2, 3, 4])
def test_logical_product_of_an_extent_one_layout_is_cutes(stride: int) -> None:
    import pycute

    for shape, tstride in [(4, 1), (6, 1), ((3, 2), (1, 5)), ((2, 3), (3, 1)), (5, 2)]:
        p = pycute.logical_product(pycute.Layout(1, stride), pycute.Layout(shape, tstride))
        got = la.logical_product(la.Layout(1, stride), la.Layout(shape, tstride))
        assert got == la.Layout(p.shape, p.stride), (stride, shape, tstride)


# --- refuted_injective: the product fast path's "complement refuses by the first chain break" ----------------------

def _superincreasing_layouts() -> list[la.Layout]:
    """Flat layouts whose sorted strides each exceed the largest offset of the modes below (so injective), in
    either mode order."""
    found = []
    for s0, s1, s2 in itertools.product((2, 3), (2, 3), (1, 2)):
        for d0 in (1, 2, 3):
            for d1 in range((s0 - 1) * d0 + 1, 13):
                span = (s0 - 1) * d0 + (s1 - 1) * d1
                for d2 in ([span + 1, span + 2] if s2 > 1 else [0]):
                    found.append(la.Layout((s0, s1, s2), (d0, d1, d2)))
                    found.append(la.Layout((s1, s0), (d1, d0)))
    return found


def test_refuted_injective_is_exactly_a_first_chain_break_refusal_for_a_superincreasing_layout() -> None:
    from layoutalg.core.complement import refuted_injective, sorted_modes

    seen = {True: 0, False: 0}
    for a in _superincreasing_layouts():
        for m in (2, 3, 5, 8, 13, 21, 34):
            try:
                complement(a, m)
                by_first_break = False
            except la.CompositionError as err:
                by_first_break = "which breaks the divisor chain" in str(err)
            assert refuted_injective(sorted_modes(a), m) == by_first_break, (a, m)
            seen[by_first_break] += 1
    assert min(seen.values()) >= 100


def test_refuted_injective_never_vouches_for_a_layout_reaching_an_offset_twice() -> None:
    from layoutalg.core.complement import refuted_injective, sorted_modes

    a = la.Layout((2, 2, 2), (1, 3, 4))  # offsets 0 + 4 and 1 + 3 are both 4; its chain breaks at 3 (c = 1, t = 2)
    assert a(3) == a(4) == 4
    assert not refuted_injective(sorted_modes(a), 16)
    with pytest.raises(la.NotInjectiveError):
        complement(a, 16)


def test_an_unchained_layout_gets_cutes_complement_where_it_is_one() -> None:
    # (2,2):(1,11) breaks its chain at 11 = 1 + 10, but 10 >= M: CuTe's 5:2 covers [0, 10) with A's 0 and 1
    # (4 + 5 offsets < 10 <= 4 * 5, the pair's product of sizes)
    a = la.Layout((2, 2), (1, 11))
    assert complement(a, 10) == la.Layout(5, 2) == _pycute_complement((2, 2), (1, 11), 10)
    assert _is_complement(a, la.Layout(5, 2), 10)


def test_past_the_greedy_walk_limit_cutes_complement_is_checked_and_returned() -> None:
    from layoutalg.core.complement import GREEDY_LIMIT

    big = GREEDY_LIMIT + 1  # (2,2):(1,big): m + max offset passes the forced walk's limit
    assert complement(la.Layout((2, 2), (1, big)), 10) == la.Layout(big // 2, 2) == _pycute_complement((2, 2), (1, big), 10)



@pytest.mark.parametrize("layout", [la.Layout(1, 5), la.Layout(1, 1), la.Layout(3, 0), la.Layout(4, 3),
                                    la.Layout((1, 4), (5, 2)), la.Layout(((1, 3), 2), ((7, 2), 0))], ids=str)
def test_complements_sorted_modes_leave_out_extent_1_and_stride_0_leaves_in_every_shape_form(
        layout: la.Layout) -> None:
    # a one-mode layout (int shape) answers as a nested one does: its (stride, extent) leaves, sorted, without
    # extent-1 or stride-0 ones; CuTe's complement built from them is the complement (1:5 adds no gap mode 5:1)
    from layoutalg.core.complement import chained_pairs, sorted_modes
    from layoutalg.core.flat import from_pairs

    leaves = zip(la.flatten(layout.shape), la.flatten(layout.stride))  # type: ignore[call-overload]
    assert sorted_modes(layout) == sorted((d, s) for s, d in leaves if s != 1 and d != 0)
    for m in range(1, 13):
        pairs = chained_pairs(sorted_modes(layout), m)
        assert pairs is not None and la.coalesce(from_pairs(pairs)) == la.complement(layout, m), (layout, m)

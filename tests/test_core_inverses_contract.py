"""Contract of `layoutalg.core.inverses` at its refusals: left_inverse needs non-negative strides (a
negative one is named with its extent), and on its domain L(A(i)) == i holds by brute force."""

from __future__ import annotations

import itertools

import pytest

import layoutalg as la
from layoutalg.core.inverses import left_inverse
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError


@pytest.mark.parametrize("layout, stride, extent", [(Layout(4, -1), -1, 4), (Layout((2, 4), (3, -2)), -2, 4)])
def test_left_inverse_refuses_a_negative_stride_naming_it_and_its_extent(layout: Layout, stride: int,
                                                                         extent: int) -> None:
    with pytest.raises(LayoutError, match=rf"left_inverse needs non-negative strides; .* has stride {stride} "
                                          rf"\(extent {extent}\)"):
        left_inverse(layout)


@pytest.mark.parametrize("layout", [Layout((2, 4), (4, 1)), Layout((2, 3), (3, 2)), Layout((3, (2, 2)), (4, (1, 12)))])
def test_left_inverse_sends_every_offset_back_to_its_index(layout: Layout) -> None:
    inverse = left_inverse(layout)
    assert [inverse(layout(i)) for i in range(layout.size())] == list(range(layout.size()))


def test_left_inverse_skips_stride_0_modes_as_its_docstring_example_says() -> None:
    a = Layout((2, 4, 8), (32, 0, 2))
    left = left_inverse(a)
    assert left == Layout((2, 16, 2), (0, 8, 1))
    assert all(a(left(a(i))) == a(i) for i in range(a.size()))  # the generalized left inverse


def test_left_inverse_of_a_shape_is_that_of_its_compact_layout() -> None:
    assert left_inverse((4, 2)) == left_inverse(Layout((4, 2))) == Layout(8, 1)  # type: ignore[arg-type]


def _chained_layouts() -> list[Layout]:
    """Injective flat layouts whose sorted strides chain (each a multiple of the span below it), modes in any order."""
    found = []
    for s0, s1, s2 in itertools.product((2, 3), (2, 4), (1, 2)):
        for d0 in (1, 2, 3):
            for k1 in (1, 2):
                d1 = s0 * d0 * k1
                for k2 in (1, 3):
                    d2 = s1 * d1 * k2
                    for perm in itertools.permutations(range(3)):
                        modes = [(s0, d0), (s1, d1), (s2, d2)]
                        found.append(Layout(tuple(modes[p][0] for p in perm), tuple(modes[p][1] for p in perm)))
    return found


def _documented_left_inverse(a: Layout) -> Layout:
    """The docstring's formula: coalesce(A)'s modes sorted by stride d1 < ... < dn, index strides jk:
    (d1, d2/d1, ..., dn/d(n-1), sn) : (0, j1, ..., j(n-1), jn), coalesced."""
    c = la.coalesce(a)
    shape, stride = (c.shape, c.stride) if isinstance(c.shape, tuple) else ((c.shape,), (c.stride,))
    index = [1]
    for e in shape[:-1]:
        index.append(index[-1] * e)
    modes = sorted((d, s, j) for s, d, j in zip(shape, stride, index))
    extents = [modes[0][0]] + [modes[k][0] // modes[k - 1][0] for k in range(1, len(modes))] + [modes[-1][1]]
    strides = [0] + [j for _, _, j in modes]
    return la.coalesce(Layout(tuple(extents), tuple(strides)))


def test_left_inverse_of_a_chained_layout_is_the_documented_formula_and_a_left_inverse() -> None:
    for a in _chained_layouts():
        left = left_inverse(a)
        assert la.coalesce(left) == _documented_left_inverse(a), a
        assert all(left(a(i)) == i for i in range(a.size())), a


def test_a_search_of_exactly_the_work_bound_is_run_and_one_offset_more_is_refused_at_once() -> None:
    from layoutalg.core.left_inverse_search import WORK_LIMIT
    from layoutalg.errors import CompositionError

    half = WORK_LIMIT // 2  # (2, half):(3, 2) is injective, its strides do not chain
    with pytest.raises(CompositionError, match="the search for a left inverse passed its bound"):
        left_inverse(Layout((2, half), (3, 2)))
    with pytest.raises(CompositionError, match=f"a search over its {WORK_LIMIT + 2} offsets would pass"):
        left_inverse(Layout((2, half + 1), (3, 2)))


@pytest.mark.parametrize("shape, stride", [((4, 2), (1, 8)), ((2, 2), (2, 4)), ((2, 4), (4, 1))], ids=str)
def test_right_inverse_of_a_flat_layout_is_pycutes(shape: tuple[int, ...], stride: tuple[int, ...]) -> None:
    import pycute

    ref = pycute.right_inverse(pycute.Layout(shape, stride))  # 4:1, then 1:0 (no stride-1 mode), then (4,2):(2,1)
    assert la.right_inverse(Layout(shape, stride)) == Layout(ref.shape, ref.stride)


@pytest.mark.parametrize("a, n", [
    (Layout((6, 2), (1, 100)), 8), (Layout((4, 3), (1, 100)), 9), (Layout((5, 3), (1, 100)), 12),
    (Layout((2, 5), (1, 100)), 9), (Layout((4, 2, 2), (1, 7, 5)), 12),
], ids=str)
def test_max_common_vector_where_a_o_rb_is_no_layout_is_the_largest_dividing_agreeing_prefix(a: Layout, n: int) -> None:
    from layoutalg.errors import CompositionError

    b = Layout(n, 1)  # right_inverse(B) is n:1, so A(R(i)) == i reads A(i) == i
    with pytest.raises(CompositionError):
        la.composition(a, la.right_inverse(b))  # the prefix is read off the values
    want = max(v for v in range(1, n + 1) if n % v == 0 and all(a(i) == i for i in range(v)))
    assert la.max_common_vector(a, b) == want
    assert la.max_common_layout(a, b) == la.composition(Layout(n, 1), Layout(want, 1))


def test_max_common_layout_without_a_common_stride_1_vector_is_1_to_0() -> None:
    assert la.max_common_layout(Layout(4, 2), Layout(4, 1)) == Layout(1, 0)


@pytest.mark.parametrize("extent", [1000, 100_000, 1 << 18])
def test_a_contiguous_image_behind_a_wide_stride_0_mode_gets_its_generalized_left_inverse(extent: int) -> None:
    # (2,2,N):(1,1,0) sends 4N indices onto 0, 1, 2 (more than the search's 300,000 from N = 100,000; 2**20, the
    # enumeration limit, at N = 2**18): L must send each offset to its smallest preimage (brute force over the first
    # block: index c0 + 2 c1, the stride-0 digit 0)
    a = Layout((2, 2, extent), (1, 1, 0))
    smallest: dict[int, int] = {}
    for i in range(4):
        smallest.setdefault(a(i), i)
    left = left_inverse(a)
    assert [left(x) for x in range(3)] == [smallest[x] for x in range(3)] == [0, 1, 3]
    assert all(a(left(a(i))) == a(i) for i in range(8))


@pytest.mark.parametrize("shape, stride", [((192, 2, 1000), (1, 1, 0)), ((100, 4), (2, 1)),
                                           ((97, 100, 2), (100, 1, 97)), ((2, 2, 97), (97, 1, 2))])
def test_a_contiguous_image_past_the_searchs_exact_range_still_gets_its_generalized_left_inverse(
        shape: tuple[int, ...], stride: tuple[int, ...]) -> None:
    # offsets exactly 0..V with V >= 192, where the search may stop at its bound undecided: the reading answers,
    # and its answer sends each offset to its smallest preimage (brute force over every index)
    a = Layout(shape, stride)
    smallest: dict[int, int] = {}
    for i in range(a.size()):
        smallest.setdefault(a(i), i)
    assert sorted(smallest) == list(range(max(smallest) + 1)) and max(smallest) >= 192
    left = left_inverse(a)
    assert all(left(x) == i for x, i in smallest.items())


def test_a_contiguous_image_of_more_indices_than_the_enumeration_limit_is_refused_without_listing_them() -> None:
    # 2**21 indices onto 0, 1, 2: reading the smallest preimages would list every index (a 2**40-wide mode: hours),
    # so it is refused as undecided at once, as the search refuses past its bound
    from layoutalg.errors import CompositionError

    for extent in (1 << 19, 1 << 40):
        with pytest.raises(CompositionError, match=r"undecided; its strides do not chain, and a search over its "
                                                   rf"{4 * extent} offsets would pass the search's bound"):
            left_inverse(Layout((2, 2, extent), (1, 1, 0)))


@pytest.mark.parametrize(("a", "b"), [
    (la.Layout((2, 2, 2), (1, 8, 12)), la.Layout((6, 2), (1, 4))),  # A o right_inverse(B) is no layout
    (la.Layout((3, 2), (1, 1)), la.Layout((2, 2, 2), (1, 4, 2))),
], ids=str)
def test_max_common_vector_keeps_a_prefix_whose_length_divides_the_inverse_where_no_layout_composes(
        a: la.Layout, b: la.Layout) -> None:
    # Brute force: B's offset i is reached at index j (the first such); the common vector is the longest run of
    # offsets i = 0, 1, ... that A sends there too (here 2 of 6, and 4 of 8: each divides size(right_inverse(B))).
    where: dict[int, int] = {}
    for j in range(b.size()):
        where.setdefault(b(j), j)
    n = 0
    while n in where and a(where[n]) == n:
        n += 1
    assert la.right_inverse(b).size() % n == 0
    assert la.max_common_vector(a, b) == n


def test_a_searched_left_inverse_that_does_not_exist_is_refused_by_kind() -> None:
    """(4,2,6):(7,8,12) is injective (brute force) and the search finds no left inverse: a CompositionError.
    (3,8,2):(5,6,4) is not injective and no layout sends each offset to any of its preimages (every choice
    searched; tests/test_exact_search.py checks such refusals against z3): a NotInjectiveError."""
    injective = Layout((4, 2, 6), (7, 8, 12))
    offsets = [injective(i) for i in range(injective.size())]
    assert len(set(offsets)) == len(offsets)
    with pytest.raises(la.CompositionError, match=r"no layout L has L\(A\(i\)\) == i") as refused:
        left_inverse(injective)
    assert type(refused.value) is la.CompositionError
    overlapping = Layout((3, 8, 2), (5, 6, 4))
    assert len({overlapping(i) for i in range(overlapping.size())}) < overlapping.size()
    with pytest.raises(la.NotInjectiveError, match=r"no layout L has A\(L\(x\)\) == x .*every choice of preimage"):
        left_inverse(overlapping)


def test_a_non_injective_left_inverse_takes_other_preimages_where_the_smallest_fit_no_layout() -> None:
    """(2,3):(1,1) has offsets 0..3 with preimages {0}, {1,2}, {3,4}, {5}.  No layout sends them to the smallest
    preimages 0, 1, 3, 5 (the fixed-target search says so), yet a layout may pick others: A(L(x)) == x."""
    from layoutalg.core.left_inverse_search import find_left_inverse

    a = Layout((2, 3), (1, 1))
    assert find_left_inverse([0, 1, 2, 3], [0, 1, 3, 5]) is None
    left = left_inverse(a)
    assert [a(left(x)) for x in range(4)] == [0, 1, 2, 3]
    assert all(0 <= left(x) < a.size() for x in range(4))

"""The complete existence searches: exact integer solving, left_inverse, complement.

Oracles: z3's linear integer arithmetic (decides ``M x = b`` exactly), the
plain-Python definitions in ``oracles.reference``, and brute force.
"""

from __future__ import annotations

import itertools
import math
from functools import cache

import pytest
import sympy
import z3
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from oracles import reference as ref

from layoutalg import parse
from layoutalg import strategies as ls
from layoutalg.core import algebra as alg
from layoutalg.core import left_inverse_search as search
from layoutalg.core.complement_search import forced_offsets, layout_with_prefix
from layoutalg.core.int_linear import RowSpace, solve_integer
from layoutalg.core.layout import Layout
from layoutalg.core.left_inverse_search import find_left_inverse
from layoutalg.errors import CompositionError, NotInjectiveError

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def z3_integer_solvable(rows: list[list[int]], rhs: list[int], ncols: int) -> bool:
    x = [z3.Int(f"x{k}") for k in range(ncols)]
    solver = z3.Solver()
    for row, b in zip(rows, rhs):
        solver.add(z3.Sum([c * v for c, v in zip(row, x)] + [z3.IntVal(0)]) == b)
    return solver.check() == z3.sat


@st.composite
def integer_systems(draw: st.DrawFn) -> tuple[list[list[int]], list[int], int]:
    ncols = draw(st.integers(1, 4))
    nrows = draw(st.integers(1, 5))
    entry = st.integers(-6, 6)
    rows = [[draw(entry) for _ in range(ncols)] for _ in range(nrows)]
    if draw(st.booleans()):  # a consistent right-hand side, often not integer-solvable after scaling
        x = [draw(st.integers(-4, 4)) for _ in range(ncols)]
        rhs = [sum(r * v for r, v in zip(row, x)) for row in rows]
        k = draw(st.integers(1, 3))
        rows, rhs = [[k * c for c in row] for row in rows], [b * k + draw(st.integers(0, 1)) for b in rhs]
    else:
        rhs = [draw(st.integers(-12, 12)) for _ in rows]
    return rows, rhs, ncols


@settings(max_examples=400, deadline=None, database=None)
@given(integer_systems())
def test_solve_integer_agrees_with_z3(system: tuple[list[list[int]], list[int], int]) -> None:
    rows, rhs, ncols = system
    x = solve_integer(rows, rhs, ncols)
    if x is None:
        assert not z3_integer_solvable(rows, rhs, ncols)
    else:
        assert [sum(r * v for r, v in zip(row, x)) for row in rows] == rhs


@settings(max_examples=300, deadline=None, database=None)
@given(integer_systems())
def test_row_space_keeps_an_equivalent_integer_system(system: tuple[list[list[int]], list[int], int]) -> None:
    rows, rhs, ncols = system
    space = RowSpace(ncols)
    consistent = all([space.add(row, b) for row, b in zip(rows, rhs)])
    rational = sympy.Matrix(rows).rank() == sympy.Matrix([r + [b] for r, b in zip(rows, rhs)]).rank()
    assert consistent == rational
    if consistent:
        x = space.integer_solution()
        if x is None:
            assert not z3_integer_solvable(rows, rhs, ncols)
        else:
            assert [sum(r * v for r, v in zip(row, x)) for row in rows] == rhs


@settings(max_examples=300, deadline=None, database=None)
@given(integer_systems(), st.lists(st.integers(-6, 6), min_size=4, max_size=4))
def test_implied_rhs_is_the_one_consistent_right_hand_side(system: tuple[list[list[int]], list[int], int],
                                                            entries: list[int]) -> None:
    """``implied_rhs(row)`` is None exactly when ``row`` raises the rank; else ``row . x = t`` is consistent with
    the equations for ``t`` equal to it and for no other ``t`` (sympy's ranks decide both)."""
    rows, rhs, ncols = system
    space = RowSpace(ncols)
    if not all([space.add(row, b) for row, b in zip(rows, rhs)]):
        return
    row = entries[:ncols]
    implied = space.implied_rhs(row)
    rank = sympy.Matrix(rows).rank()
    if sympy.Matrix(rows + [row]).rank() > rank:
        assert implied is None
        return
    assert implied is not None
    numerator, denominator = implied
    assert denominator > 0
    t = sympy.Rational(numerator, denominator)
    augmented = [r + [b] for r, b in zip(rows, rhs)]
    assert sympy.Matrix(augmented + [row + [t]]).rank() == rank
    assert sympy.Matrix(augmented + [row + [t + 1]]).rank() > rank


def test_row_space_reports_the_contradiction() -> None:
    space = RowSpace(2)
    assert space.add([1, 1], 3)
    assert space.add([1, -1], 1)
    assert not space.add([2, 0], 5)  # x = 2 from the first two rows
    assert space.add([3, 0], 6)


# ---------------------------------------------------------------------------
# left_inverse
# ---------------------------------------------------------------------------
def test_left_inverse_found_where_strides_do_not_chain() -> None:
    for text, offsets in [("(2,2):(2,3)", [0, 2, 3, 5]), ("(2,3):(3,2)", [0, 3, 2, 5, 4, 7])]:
        left = alg.left_inverse(parse(text))
        assert [ref.evaluate(left.shape, left.stride, x) for x in offsets] == list(range(len(offsets)))


@st.composite
def unchained_layouts(draw: st.DrawFn) -> Layout:
    """Small flat layouts with distinct positive strides, mostly not a divisor chain."""
    rank = draw(st.integers(2, 3))
    shape = tuple(draw(st.integers(2, 3)) for _ in range(rank))
    stride = tuple(draw(st.lists(st.integers(1, 9), min_size=rank, max_size=rank, unique=True)))
    return Layout(shape, stride)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.one_of(unchained_layouts(), ls.layouts(max_rank=3, max_size=12, max_stride=9, zero=False)))
def test_left_inverse_exactly_when_one_exists(a: Layout) -> None:
    offsets = ref.values(a.shape, a.stride)
    injective = len(set(offsets)) == len(offsets)
    try:
        left = alg.left_inverse(a)
    except NotInjectiveError as err:
        assert not injective and "undecided" not in str(err)
        assert not ref.generalized_left_inverse_exists(offsets), f"left_inverse({a}) raised, but one exists"
        event("no generalized left inverse (z3 oracle agrees)")
        return
    except CompositionError as err:
        assert injective and "undecided" not in str(err)
        assert not ref.left_inverse_exists(offsets), f"left_inverse({a}) raised, but a left inverse exists"
        event("no left inverse (z3 oracle agrees)")
        return
    if not injective:  # the generalized left inverse: A(L(A(i))) == A(i)
        back = [ref.evaluate(a.shape, a.stride, ref.evaluate(left.shape, left.stride, x)) for x in offsets]
        assert back == offsets
        event("generalized left inverse returned")
        return
    assert [ref.evaluate(left.shape, left.stride, x) for x in offsets] == list(range(len(offsets)))
    event("left inverse returned")


@SETTINGS
@given(ls.layouts(max_rank=4, max_size=256, max_stride=64, zero=False))
def test_left_inverse_search_is_sound_on_larger_layouts(a: Layout) -> None:
    offsets = ref.values(a.shape, a.stride)
    if len(set(offsets)) < len(offsets):
        return
    found = find_left_inverse(offsets)
    if found is not None:
        shape, stride = tuple(s for s, _ in found), tuple(d for _, d in found)
        assert [ref.evaluate(shape, stride, x) for x in offsets] == list(range(len(offsets)))


def _whole_search_tree(top: int) -> tuple[int, int]:
    """(prefixes, work units) of the unpruned search for largest offset ``top``: every prime sequence with
    product <= top, each visiting its parent's at most ``top // P + 1`` groups, each visit adding at most one
    equation of at most ``len(parent's radices) + 1`` row operations (``search.ROW_COST`` units each)."""

    def orderings(m: int) -> int:
        exponents = list(sympy.factorint(m).values())
        return math.factorial(sum(exponents)) // math.prod(math.factorial(e) for e in exponents)

    primes = list(sympy.primerange(2, top + 1))
    prefixes = units = 0
    for parent in range(1, top // 2 + 1):
        children = sum(1 for p in primes if parent * p <= top)
        ways = orderings(parent) if parent > 1 else 1
        depth = sum(sympy.factorint(parent).values()) if parent > 1 else 0
        prefixes += ways * children
        units += ways * children * (top // parent + 1) * (1 + search.ROW_COST * (depth + 1))
    return prefixes, units


def test_search_bounds_cover_every_offset_below_192() -> None:
    prefixes, units = _whole_search_tree(191)
    assert prefixes < search.NODE_LIMIT and units < search.WORK_LIMIT
    assert (prefixes, units) == (647, 294510)  # the figures behind the module docstring's "V < 192"
    assert _whole_search_tree(255)[1] > search.WORK_LIMIT  # and the bound is not loose by a power of two


def test_search_gives_up_in_bounded_time_on_huge_layouts() -> None:
    """Half a million offsets, strides that do not chain: an answer or 'undecided', never a hang."""
    try:
        left = alg.left_inverse(Layout((2, 1 << 19), (3, 7)))
    except CompositionError as err:
        assert "undecided" in str(err)
    else:
        offsets = [3 * a + 7 * b for b in range(1 << 19) for a in range(2)]
        assert [ref.evaluate(left.shape, left.stride, x) for x in offsets[:4096]] == list(range(4096))


def test_left_inverse_says_undecided_instead_of_guessing(monkeypatch: pytest.MonkeyPatch) -> None:
    a = Layout((8, 8), (770, 1650))  # its search needs far more than 40 tries
    monkeypatch.setattr(search, "NODE_LIMIT", 40)
    with pytest.raises(CompositionError, match="undecided.* 40 radix prefixes"):
        alg.left_inverse(a)


# ---------------------------------------------------------------------------
# complement
# ---------------------------------------------------------------------------
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(
    st.one_of(unchained_layouts(), ls.layouts(max_rank=3, max_size=12, max_stride=6, zero=False)), st.integers(1, 12)
)
def test_complement_exists_exactly_where_brute_force_finds_one(a: Layout, m: int) -> None:
    """Brute force over ordered flat R (rank <= 2, size <= 2m, strides < m): wherever it finds a
    complement, complement() returns one, and every complement's offsets below m are the greedy
    forced ones (the lemma in complement_search)."""
    a_offsets = ref.values(a.shape, a.stride)
    if len(set(a_offsets)) < len(a_offsets):
        event("not injective")
        return
    forced, clash = forced_offsets(sorted(a_offsets), m)
    exists = False
    for r in _small_ordered_layout_values(2 * m, max(1, m - 1)):
        joined = [x + y for y in r for x in a_offsets]
        if len(set(joined)) == len(joined) and set(range(m)) <= set(joined):
            exists = True
            assert clash is None
            assert [v for v in r if v < m] == forced
    event("brute force finds a complement" if exists else "brute force finds none")
    if exists:
        c = alg.complement(a, m)  # must not raise
        joined = [x + y for y in ref.values(c.shape, c.stride) for x in a_offsets]
        assert len(set(joined)) == len(joined) and set(range(m)) <= set(joined)


@cache
def _small_ordered_layout_values(max_size: int, max_stride: int) -> list[list[int]]:
    out = [[0]]
    for n in range(2, max_size + 1):
        for shape in ref.ordered_factorizations(n):
            if len(shape) <= 2:
                for d in itertools.product(range(1, max_stride + 1), repeat=len(shape)):
                    r = ref.values(shape, d)
                    if all(x < y for x, y in zip(r, r[1:])):
                        out.append(r)
    return out


@SETTINGS
@given(ls.layouts(max_rank=4, max_size=256, max_stride=16, zero=False), st.data())
def test_layout_with_prefix_recovers_the_truncated_layout(r: Layout, data: st.DataObject) -> None:
    """For an ordered layout R and any prefix length g, the candidate built from R's first g values
    starts with them and is no longer than R's truncation after the mode holding index g-1."""
    values = ref.values(r.shape, r.stride)
    if any(x >= y for x, y in zip(values, values[1:])):
        return
    g = data.draw(st.integers(1, len(values)))
    pairs = layout_with_prefix(values[:g])
    shape, stride = tuple(s for s, _ in pairs) or (1,), tuple(d for _, d in pairs) or (0,)
    rebuilt = ref.values(shape, stride)
    assert rebuilt[:g] == values[:g]
    assert len(rebuilt) <= len(values)


def test_an_undecided_left_inverse_of_a_non_injective_layout_is_a_not_injective_error():
    # (16,3):(50,50) repeats offsets (16 * 3 indices, 18 * 50 > max offset); the generalized search passes its
    # bound, and the refusal of a non-injective layout must say so by its type, decided or not
    from layoutalg import Layout, left_inverse

    with pytest.raises(NotInjectiveError, match="undecided"):
        left_inverse(Layout((16, 3), (50, 50)))


@pytest.mark.parametrize("text", ["(4,4,4):(3,3,3)", "(4,4,3):(3,3,3)", "(4,4,3,2):(3,3,3,0)"])
def test_generalized_left_inverse_found_past_sequences_slow_to_rule_out(text: str) -> None:
    """Each offset 3k has several preimages; the answer's radix sequence comes after ones whose searches are
    long (these were "undecided" while the sequences were searched one at a time to the end); z3 finds one too."""
    a = parse(text)
    values = ref.values(a.shape, a.stride)
    assert ref.generalized_left_inverse_exists(values)
    left = alg.left_inverse(a)
    assert all(values[ref.evaluate(left.shape, left.stride, x)] == x for x in set(values))


@st.composite
def layouts_with_fixed_leaves(draw: st.DrawFn) -> tuple[Layout, tuple[int, ...]]:
    """Small flat layouts with at least one stride-0 leaf beside colliding positive strides (the axis layouts a
    coordinate layout's inverse is built from), and a set of the stride-0 leaves to keep at 0."""
    rank = draw(st.integers(2, 4))
    shape = tuple(draw(st.integers(2, 4 if rank < 4 else 3)) for _ in range(rank))  # small enough to decide
    stride = [draw(st.sampled_from([0, 1, 2, 3, 4, 6])) for _ in range(rank)]
    stride[draw(st.integers(0, rank - 1))] = 0
    zeros = [k for k in range(rank) if stride[k] == 0]
    fixed = tuple(k for k in zeros if draw(st.booleans()) or k == zeros[0])
    return Layout(shape, tuple(stride)), fixed


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(layouts_with_fixed_leaves())
def test_left_inverse_fixing_leaves_exactly_when_one_exists(case: tuple[Layout, tuple[int, ...]]) -> None:
    """Every answer sends each offset to a preimage that leaves the fixed leaves' coordinates 0; a refusal only
    where the z3 oracle finds no layout with such answers."""
    from layoutalg.core.inverses import left_inverse_fixing

    a, fixed_leaves = case
    values = ref.values(a.shape, a.stride)
    if max(values) > 40:
        return
    digits = []
    running = 1
    for k, s in enumerate(a.shape):
        if k in fixed_leaves:
            digits.append((s, running))
        running *= s

    def allowed(i: int) -> bool:
        return all((i // index_stride) % s == 0 for s, index_stride in digits)

    try:
        left = left_inverse_fixing(a, fixed_leaves)
    except (NotInjectiveError, CompositionError) as err:
        assert "undecided" not in str(err)
        assert not ref.generalized_left_inverse_exists(values, allowed), f"{a} refused, yet one exists"
        event("refused (z3 oracle agrees)")
        return
    for x in set(values):
        i = ref.evaluate(left.shape, left.stride, x)
        assert 0 <= i < len(values) and values[i] == x and allowed(i), (a, left, x, i)
    event("answered")


def test_left_inverse_fixing_a_leaf_avoids_a_preimage_the_plain_search_takes() -> None:
    """``(4,3,4):(0,3,6)``: no layout sends each offset to its smallest preimage, and the plain left_inverse's
    search answers ``(2,2,4,2):(3,1,8,31)``, whose preimages move the stride-0 leaf (``L(6) == 9``: its
    coordinate is 1); with that leaf fixed the search finds one that does not."""
    from layoutalg.core.inverses import left_inverse_fixing

    a = Layout((4, 3, 4), (0, 3, 6))
    left = left_inverse_fixing(a, (0,))
    values = ref.values(a.shape, a.stride)
    for x in set(values):
        i = ref.evaluate(left.shape, left.stride, x)
        assert values[i] == x and i % 4 == 0


def test_left_inverse_fixing_refuses_a_leaf_with_a_stride() -> None:
    from layoutalg.core.inverses import left_inverse_fixing
    from layoutalg.errors import LayoutError

    with pytest.raises(LayoutError, match="leaf 1"):
        left_inverse_fixing(Layout((4, 3), (0, 3)), (1,))

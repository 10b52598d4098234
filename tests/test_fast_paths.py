"""The algebra's fast paths against the general path or brute force: a fast path may only skip work, never
change an answer or an error (issue 16's speed work; ``benchmarks/bench_pycute_ops.py`` times them)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import strategies as ls
from layoutalg.core import memo
from layoutalg.core.complement import chained_pairs, refuted_injective, sorted_modes
from layoutalg.core.composition import _compose, compose_flat
from layoutalg.core.flat import coalesce_extended, coalesce_pairs, from_pairs, leaf_pairs
from layoutalg.core.inverses import _contiguous_left_inverse, _first_appearances, _flat_values, _read_contiguous
from layoutalg.core.left_inverse_search import SearchExhaustedError, _first_leaf, _search_all, find_left_inverse

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


def _outcome(fn: Any, *args: Any) -> Any:
    memo.clear_all()
    try:
        return fn(*args)
    except la.LayoutError as err:
        return type(err)


def _values(pairs: list[tuple[int, int]]) -> list[int]:
    out = [0]
    for s, d in pairs:
        out = [v + k * d for k in range(s) for v in out]
    return out


def _reference_weak_complement(a: la.Layout, cotarget: int | None) -> Any:
    """CuTe's floored gap-filling construction, coalesced by the general routine, and checked by enumeration
    (ordered; ``(A, R)`` injective over two periods of the rest mode): the definition, with no shortcut."""
    modes = sorted((d, s) for s, d in leaf_pairs(a) if d != 0 and s != 1)
    if modes and modes[0][0] < 0:
        return la.LayoutError
    a_vals = _values([(s, d) for d, s in modes])
    gaps, cur = [], 1
    for d, s in modes:
        if d // cur == 0:
            return la.NotInjectiveError if len(set(a_vals)) != len(a_vals) else la.CompositionError
        gaps.append((d // cur, cur))
        cur = s * d
    rest = 1 if cotarget is None else -(-cotarget // cur)
    result = coalesce_extended([g for g in gaps if g[0] > 1] + [(rest, cur)])
    r_vals = _values(result[:-1] + [(result[-1][0] + 1, result[-1][1])])
    if len(set(a_vals)) != len(a_vals):
        return la.NotInjectiveError
    if any(x >= y for x, y in zip(r_vals, r_vals[1:])):
        return la.CompositionError
    if len({x + y for x in a_vals for y in r_vals}) != len(a_vals) * len(r_vals):
        return la.CompositionError
    return from_pairs(result)


@SETTINGS
@given(ls.layouts(max_size=256, max_rank=4, max_stride=96), st.one_of(st.none(), st.integers(1, 4096)))
def test_weak_complement_fast_construction_and_proof_equal_the_enumerated_definition(a: la.Layout,
                                                                                    cotarget: int | None) -> None:
    assert _outcome(la.weak_complement, a, cotarget) == _reference_weak_complement(a, cotarget)


@st.composite
def flat_layouts(draw: Any, max_rank: int = 3) -> la.Layout:
    """Flat B operands: an int shape or a flat tuple, strides that may be 0 or negative."""
    rank = draw(st.integers(0, max_rank))
    shapes = [draw(st.integers(1, 12)) for _ in range(rank)]
    strides = [draw(st.integers(-3, 40)) for _ in range(rank)]
    if rank == 0:
        return la.Layout(draw(st.integers(1, 12)), draw(st.integers(-3, 40)))
    return la.Layout(tuple(shapes), tuple(strides))


@SETTINGS
@given(ls.layouts(max_size=128, max_rank=3, max_stride=48), flat_layouts())
def test_flat_composition_fast_path_equals_the_general_composition(a: la.Layout, b: la.Layout) -> None:
    fast = compose_flat(a, b)
    if fast is not None:
        assert fast == _outcome(_compose.__wrapped__, a, b)  # type: ignore[attr-defined]
    assert _outcome(la.composition, a, b) == _outcome(_compose.__wrapped__, a, b)  # type: ignore[attr-defined]


def _reference_product(a: la.Layout, b: la.Layout) -> la.Layout:
    """CuTe's ``(A, complement(A, size(A) * cosize(B)) o B)`` with the weak-complement fallback, composed by the
    general (unshortened) composition; where no complement exists and B's image is ``{0}``, ``(A, B's shape:0)``
    (every complement is 0 at 0)."""
    m = a.size() * b.cosize()
    try:
        comp = la.complement(a, m)
    except (la.CompositionError, la.NotInjectiveError):
        if all(b(i) == 0 for i in range(b.size())):
            return la.Layout((a.shape, b.shape), (a.stride, la.repeat_like(0, b.shape)))
        comp = la.weak_complement(a, m)
    rest = _compose.__wrapped__(comp, b)  # type: ignore[attr-defined]
    return la.Layout((a.shape, rest.shape), (a.stride, rest.stride))


@SETTINGS
@given(ls.layouts(max_size=128, max_rank=3, max_stride=48), flat_layouts())
def test_logical_product_fast_path_equals_the_general_product(a: la.Layout, b: la.Layout) -> None:
    assert _outcome(la.logical_product, a, b) == _outcome(_reference_product, a, b)


@SETTINGS
@given(ls.layouts(max_size=128, max_rank=3, max_stride=48), st.integers(1, 4096))
def test_refuted_injective_is_a_complement_refusal_of_an_injective_layout(a: la.Layout, m: int) -> None:
    modes = sorted_modes(a)
    if refuted_injective(modes, m):
        assert _outcome(la.complement, a, m) is la.CompositionError
        values = _values([(s, d) for d, s in modes])  # filter(A): complement ignores stride-0 modes
        assert len(set(values)) == len(values)


def _strides_chain(modes: list[tuple[int, int]]) -> bool:
    """Each sorted stride divides by the span of the modes below it (CuTe's exact-division case), by brute force."""
    reach = 1
    for d, s in modes:
        if d < 0 or d % reach:
            return False
        reach = d * s
    return True


@SETTINGS
@given(ls.layouts(max_size=128, max_rank=3, max_stride=48), st.integers(1, 4096))
def test_chained_pairs_answer_exactly_when_the_strides_chain_and_then_equal_complement(a: la.Layout, m: int) -> None:
    modes = sorted_modes(a)
    pairs = chained_pairs(modes, m) if not modes or modes[0][0] >= 0 else None
    if not _strides_chain(modes):
        assert pairs is None
        return
    assert pairs is not None
    shapes, strides = zip(*pairs)
    assert la.coalesce(la.Layout(shapes, strides)) == la.complement(a, m)  # complement comes coalesced


@st.composite
def leaves_inside_one_digit(draw: Any) -> tuple[la.Layout, la.Layout]:
    """A and a leaf ``s:r`` of B whose offsets stay inside one digit ``k`` of coalesced A (``r`` = the extents below
    it times a divisor ``u`` of its extent), ``s`` not necessarily dividing the digit: CuTe's shape condition
    often fails there, and the fast path answers instead of the synthesis."""
    a = draw(ls.layouts(max_size=256, max_rank=4, max_stride=48))
    flat = coalesce_extended(leaf_pairs(a))
    k = draw(st.integers(0, max(0, len(flat) - 2)))
    below = 1
    for s, _ in flat[:k]:
        below *= s
    extent = flat[k][0]
    u = draw(st.sampled_from([d for d in range(1, extent + 1) if extent % d == 0]))
    s = draw(st.integers(2, max(2, extent // u + 1)))
    return a, la.Layout(s, below * u)


@SETTINGS
@given(leaves_inside_one_digit())
def test_a_leaf_inside_one_digit_composes_as_the_general_composition(case: tuple[la.Layout, la.Layout]) -> None:
    a, b = case
    fast = compose_flat(a, b)
    if fast is not None:
        assert fast == _outcome(_compose.__wrapped__, a, b)  # type: ignore[attr-defined]
    assert _outcome(la.logical_product, a, b) == _outcome(_reference_product, a, b)


SEARCH_DECIDES_BELOW = 192
"""The search decides every largest offset below this (core/left_inverse_search.py; test_exact_search.py)."""


@SETTINGS
@given(ls.layouts(max_size=96, max_rank=4, max_stride=4))
def test_a_contiguous_image_is_read_into_the_searched_left_inverse(a: la.Layout) -> None:
    flat = coalesce_pairs(leaf_pairs(a))
    offsets, first, injective = _first_appearances(_flat_values(flat))
    top = len(offsets) - 1
    if not 0 < top < SEARCH_DECIDES_BELOW or max(offsets) != top:
        return
    found = find_left_inverse(offsets, None if injective else first)
    target = [i for _, i in sorted(zip(offsets, first))]
    assert _read_contiguous(target) == (None if found is None else from_pairs(coalesce_pairs(found)))
    assert _contiguous_left_inverse(flat) == _read_contiguous(target)


@SETTINGS
@given(ls.layouts(max_size=256, max_rank=4, max_stride=24))
def test_the_first_leaf_substitution_is_the_searched_answer(a: la.Layout) -> None:
    """Where the all-2s leaf decides alone (:func:`_first_leaf`), the complete search returns the same pairs (with
    the indices as targets, and with the smallest preimages of a non-injective layout's offsets)."""
    offsets, first, injective = _first_appearances(_flat_values(coalesce_pairs(leaf_pairs(a))))
    top = max(offsets)
    if top == 0:
        return
    index_of = {x: (i if injective else first[i]) for i, x in enumerate(offsets)}
    fast = _first_leaf(index_of, top)
    if fast is None:
        return
    try:
        assert _search_all(index_of, top) == fast
    except SearchExhaustedError:  # pragma: no cover - the path to the first leaf is within the bounds
        raise AssertionError(f"{a}: the search passed its bound where the first leaf answers") from None


def _outcome_and_message(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except la.LayoutError as err:
        return type(err), str(err)


@SETTINGS
@given(ls.layouts(max_size=256, max_rank=4, max_depth=3, max_stride=24), st.integers(0, 5))
def test_logical_product_by_an_all_none_tuple_is_the_by_mode_product(a: la.Layout, n: int) -> None:
    from layoutalg.core.divide_product import logical_product
    from layoutalg.core.shape_ops import by_mode

    tiler = (None,) * n
    general = _outcome_and_message(by_mode, logical_product, a, tiler, "logical_product")
    assert _outcome_and_message(la.logical_product, a, tiler) == general
    assert _outcome_and_message(logical_product, a, tiler) == general


_LEAVES = st.one_of(st.integers(-3, 9), st.sampled_from([True, 1 << 5000, -(1 << 5000), 2.0, "2", None,
                                                               (1 << 30) - 1, 1 << 30, -(1 << 30)]))  # fast-path bounds
_TREES = st.recursive(_LEAVES, lambda inner: st.lists(inner, max_size=4).map(tuple), max_leaves=10)


def _validated_prefix_product(shape: Any, init: Any) -> Any:
    """The validating path alone: every argument made an int tuple (named errors), then the plain product."""
    from layoutalg.core import int_tuple as it
    from layoutalg.core.int_tuple_api import _init
    from layoutalg.core.validate import as_int_tuple

    return it.prefix_product(as_int_tuple(shape, "prefix_product shape"), _init(init, "prefix_product init"))


@SETTINGS
@given(_TREES, st.one_of(st.integers(-5, 9), _TREES))
def test_prefix_product_inline_paths_equal_the_validating_path(shape: Any, init: Any) -> None:
    fast = _outcome(la.prefix_product, shape, init)
    slow = _outcome(_validated_prefix_product, shape, init)
    assert fast == slow and type(fast) is type(slow)


def _validated_crd2idx(crd: Any, shape: Any) -> Any:
    """crd2idx's validating path alone (compact strides): arguments checked and named, then the plain offset."""
    from layoutalg.core import int_tuple as it
    from layoutalg.core import int_tuple_api as api
    from layoutalg.core.validate import as_int_tuple
    from layoutalg.errors import CoordinateError

    shape_t = api._shape(shape, "crd2idx shape")
    crd_t = as_int_tuple(api._basis_value_as_coordinate(crd, shape_t), "crd2idx coordinate", CoordinateError)
    api._check_coordinate_tree(crd_t, shape_t, "crd2idx coordinate")
    return it.crd2idx(crd_t, shape_t, it.prefix_product(shape_t))


@SETTINGS
@given(_TREES.filter(lambda t: type(t) is tuple), _TREES)
def test_crd2idx_compact_inline_path_equals_the_validating_path(crd: Any, shape: Any) -> None:
    """A tuple coordinate (the inline int leaves); any tree, so bad leaves and mismatches go to the validating path
    as before."""
    fast = _outcome(la.crd2idx, crd, shape)
    slow = _outcome(_validated_crd2idx, crd, shape)
    assert fast == slow and type(fast) is type(slow)


@st.composite
def _shapes_and_coordinates(draw: Any) -> tuple[Any, Any]:
    """A shape tree and a coordinate of it: each sub-tree given as one int (its index) or mode by mode."""
    shape = draw(st.recursive(st.integers(1, 5), lambda inner: st.lists(inner, min_size=1, max_size=3).map(tuple),
                              max_leaves=8))

    def coordinate(s: Any) -> Any:
        size = la.size(s)
        if type(s) is int or draw(st.booleans()):
            return draw(st.integers(0, 2 * size))  # past the size too: the last mode is unbounded
        return tuple(coordinate(m) for m in s)

    return coordinate(shape), shape


@SETTINGS
@given(_shapes_and_coordinates())
def test_crd2idx_compact_inline_path_on_congruent_coordinates(case: tuple[Any, Any]) -> None:
    crd, shape = case
    assert _outcome(la.crd2idx, crd, shape) == _outcome(_validated_crd2idx, crd, shape)


@SETTINGS
@given(_TREES)
def test_prefix_product_default_init_paths_equal_the_validating_path(shape: Any) -> None:
    fast = _outcome(la.prefix_product, shape)  # the default init: its own inline paths
    slow = _outcome(_validated_prefix_product, shape, 1)
    assert fast == slow and type(fast) is type(slow)


@SETTINGS
@given(ls.layouts(max_size=512, max_rank=4, max_depth=3, max_stride=64))
def test_whole_layout_coalesce_fast_loop_equals_coalescing_its_leaves(a: la.Layout) -> None:
    assert la.coalesce(a) == from_pairs(coalesce_pairs(leaf_pairs(a)))

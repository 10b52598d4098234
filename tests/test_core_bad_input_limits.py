"""Limits on bad input to the core algebra: nesting past ``MAX_DEPTH``, counts and sizes far past any real layout,
extents too large to factor, and wrongly typed arguments are each a LayoutError naming the argument, raised at
once: never RecursionError, MemoryError, OverflowError, TypeError or IndexError from inside, and never a hang."""

from __future__ import annotations

import functools
import math
import random
import time
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import BitMatrix, CoordinateError, Layout, LayoutError, ShapeError
from layoutalg.core.validate import MAX_DEPTH, MAX_RANK, any_leaf, check_depth

FAST = 5.0  # seconds: every refusal here takes milliseconds; the bound only catches a hang


def nest(x: Any, levels: int) -> Any:
    """``x`` wrapped in ``levels`` 1-tuples."""
    return functools.reduce(lambda a, _: (a,), range(levels), x)


D400 = nest(2, 400)
D200 = nest(2, 200)
L84 = Layout((8, 4), (4, 1))


def _f2() -> BitMatrix:
    return la.to_f2(Layout((4, 4), (1, 4)))


# (name, call, the LayoutError subclass expected): the fuzzer's reproducers, one per defect
REPRODUCERS: list[tuple[str, Callable[[], Any], type[LayoutError]]] = [
    # 1. recursion before the depth check
    ("make_layout", lambda: la.make_layout(D400), ShapeError),
    ("complement cotarget", lambda: la.complement(Layout(4, 1), D400), ShapeError),
    ("product_each", lambda: la.product_each(D400), ShapeError),
    ("compatible", lambda: la.compatible(D400, 2), ShapeError),
    ("symbolic_layout", lambda: la.symbolic_layout(D400), ShapeError),
    ("layout call", lambda: L84(D400), CoordinateError),
    ("tensor call", lambda: la.make_tensor(Layout(4))(D400), CoordinateError),
    ("prefix_product", lambda: la.prefix_product(D400), ShapeError),
    ("as_layout", lambda: la.as_layout(D400), ShapeError),
    ("get", lambda: la.get(D400, 0), ShapeError),
    ("ArithTuple", lambda: la.ArithTuple(D400), ShapeError),
    # 2. tilers and profiles nest the result: limited as shapes are
    ("composition tiler 200", lambda: la.composition(Layout(4, 1), D200), ShapeError),
    ("composition tiler 400", lambda: la.composition(Layout(4, 1), D400), ShapeError),
    ("coalesce profile 400", lambda: la.coalesce(Layout(4, 1), D400), ShapeError),
    ("logical_divide tiler 400", lambda: la.logical_divide(Layout(4, 1), D400), ShapeError),
    ("logical_product tiler 400", lambda: la.logical_product(Layout(4, 1), D400), ShapeError),
    # 4. counts far past any rank
    ("append n 2**64", lambda: la.append(L84, 2, 2**64), ShapeError),
    ("prepend n 2**61-1", lambda: la.prepend(L84, 2, 2**61 - 1), ShapeError),
    ("lift mode 2**64", lambda: la.lift(L84, 2**64), ShapeError),
    ("lift path past MAX_DEPTH", lambda: la.lift(1, (0,) * (MAX_DEPTH + 1)), ShapeError),
    # 5. make_ordered_layout's order
    ("order holding None", lambda: la.make_ordered_layout((8, 4), (None, 0)), ShapeError),
    ("order of floats (numpy)", lambda: la.make_ordered_layout((8, 4), np.array([1.0, 0.0])), ShapeError),
    ("order a word", lambda: la.make_ordered_layout((8, 4), "up"), ShapeError),
    ("order not congruent", lambda: la.make_ordered_layout((8, 4), (0, 1, 2)), ShapeError),
    # 6. tensors
    ("make_tensor 2**40", lambda: la.make_tensor(2**40), LayoutError),
    ("make_tensor 2**64", lambda: la.make_tensor(2**64), LayoutError),
    ("tensor coordinate out of range", lambda: la.make_tensor(Layout((4, 4)))((5, 5)), CoordinateError),
    ("tensor index 16 of 16", lambda: la.make_tensor(Layout((4, 4)))(16), CoordinateError),
    ("tensor index 2**64", lambda: la.make_tensor(Layout((4, 4)))(2**64), CoordinateError),
    ("tensor write out of range", lambda: la.make_tensor(Layout(4)).__setitem__(4, 1.0), CoordinateError),
    ("tensor slice out of range", lambda: la.make_tensor(Layout((4, 4)))[4, None], CoordinateError),
    ("tensor engine too small", lambda: la.make_tensor(Layout(4), engine=[0, 1])(3), CoordinateError),
    ("with_layout offset None", lambda: la.make_tensor(Layout((4, 4))).with_layout(Layout(4), None), ShapeError),
    # 7. BitMatrix
    ("identity None", lambda: BitMatrix.identity(None), LayoutError),  # type: ignore[arg-type]
    ("identity 2**64", lambda: BitMatrix.identity(2**64), LayoutError),
    ("identity past MAX_BITS", lambda: BitMatrix.identity(5000), LayoutError),
    ("from_rows None", lambda: BitMatrix.from_rows(None), LayoutError),  # type: ignore[arg-type]
    ("from_rows of ints", lambda: BitMatrix.from_rows([8, 4]), LayoutError),  # type: ignore[list-item]
    ("from_rows float entry", lambda: BitMatrix.from_rows([[1.0, 0]]), LayoutError),  # type: ignore[list-item]
    ("compose None", lambda: _f2().compose(None), LayoutError),  # type: ignore[arg-type]
    ("apply_numpy nan", lambda: _f2().apply_numpy(float("nan")), LayoutError),
    ("apply_numpy inf", lambda: _f2().apply_numpy(float("inf")), LayoutError),
    ("apply_numpy out of range", lambda: _f2().apply_numpy(np.array([0, 16])), LayoutError),
    ("from_f2 mode_bits True", lambda: la.from_f2(_f2(), (4, 4), True), LayoutError),  # type: ignore[arg-type]
    ("from_f2 mode_bits negative", lambda: la.from_f2(_f2(), None, [5, -1]), LayoutError),
]


@pytest.mark.parametrize(("name", "call", "error"), REPRODUCERS, ids=[name for name, _, _ in REPRODUCERS])
def test_each_reproducer_is_a_layout_error_raised_at_once(name: str, call: Callable[[], Any],
                                                          error: type[LayoutError]) -> None:
    start = time.monotonic()
    with pytest.raises(error):
        call()
    assert time.monotonic() - start < FAST


# 3. greatest_common_domain no longer factors its extents
@pytest.mark.parametrize(("a", "b"), [
    (2**64, 4), (4, 2**64), ((2**64, 3), (2**32, 2**32 * 3)), (2**4000 - 1, 5**30), ((10**1000 + 1, 2), (7, 2**3000)),
    (tuple([2**61 - 1] * 50), tuple([2**61 - 1] * 50)),
])
def test_greatest_common_domain_of_huge_extents_returns_quickly(a: Any, b: Any) -> None:
    start = time.monotonic()
    r = la.greatest_common_domain(a, b)
    assert time.monotonic() - start < FAST
    assert r == la.greatest_common_domain(b, a)


def test_greatest_common_domain_of_huge_extents_is_right() -> None:
    assert la.greatest_common_domain(2**64, 4) == Layout((4,), (1,))
    assert la.greatest_common_domain(2**4000 - 1, 5**30) == Layout((625,), (1,))  # 5**4 exactly divides 2**4000 - 1
    big = 2**61 - 1  # a prime
    assert la.greatest_common_domain((big, big), (big, big)) == Layout((big, big), (1, big))


def test_greatest_common_domain_refuses_non_positive_extents() -> None:
    for a in [(4, 0), (-2, -2, 4), 0]:
        with pytest.raises(ShapeError, match="positive"):
            la.greatest_common_domain(a, 4)


def _brute_gcd_domain(a: Any, b: Any) -> Layout:
    """The module docstring's definition with every divisor found by trial: split points ``D_k * m`` for each
    divisor ``m`` of leaf ``s_k``, the walk taking ``gcd`` of what is left at shared points, else jumping."""
    def splits(shape: Any) -> tuple[dict[int, int], int]:
        left: dict[int, int] = {}
        running = 1
        for s in la.flatten(shape) if isinstance(shape, tuple) else [shape]:
            if s == 1:
                continue
            for m in range(1, s):
                if s % m == 0:
                    left[running * m] = s // m
            running *= s
        left.setdefault(running, 1)
        return left, running

    la_, size_a = splits(a)
    lb, size_b = splits(b)
    common = sorted(set(la_) & set(lb))
    shapes, strides, q = [], [], 1
    while q < min(size_a, size_b):
        g = math.gcd(la_[q], lb[q])
        if g > 1:
            shapes.append(g)
            strides.append(q)
            q *= g
            continue
        later = [v for v in common if v > q]
        if not later:
            break
        q = later[0]
    return Layout(tuple(shapes), tuple(strides)) if shapes else Layout((1,), (0,))


_LEAVES = st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 16, 18, 24, 30, 32, 36, 48, 60, 64, 77])
_SHAPES = st.recursive(_LEAVES, lambda inner: st.lists(inner, min_size=1, max_size=4).map(tuple), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(_SHAPES, _SHAPES)
def test_greatest_common_domain_on_small_shapes_is_the_brute_force_definition(a: Any, b: Any) -> None:
    assert la.greatest_common_domain(a, b) == _brute_gcd_domain(a, b)


def test_greatest_common_domain_documented_examples_are_unchanged() -> None:
    assert la.greatest_common_domain((16, 64), (4, 16, 16)) == Layout((4, 4, 4, 16), (1, 4, 16, 64))
    assert la.greatest_common_domain((7, 2, 2, 2, 2, 3, 5), (7, 3, 2, 2, 2, 2, 5)) == Layout((7, 5), (1, 336))
    assert la.greatest_common_domain((), 4) == Layout((1,), (0,))


# the depth sweep: random valid shapes nested MAX_DEPTH+1 .. 5000 deep, fed to every recursive entry point
def deep_shape(seed: int, depth: int) -> Any:
    """A valid shape nested exactly ``depth`` levels: each level wraps the one below with random int siblings."""
    rng = random.Random(seed)
    x: Any = rng.choice([2, 3, 4, 8])
    for _ in range(depth):
        before = [rng.choice([1, 2, 4]) for _ in range(rng.choice([0, 0, 1, 2]))]
        after = [rng.choice([1, 2, 4]) for _ in range(rng.choice([0, 0, 1]))]
        x = (*before, x, *after)
    return x


def _depth(x: Any) -> int:
    d = 0
    while True:
        inner = [e for e in x if isinstance(e, tuple)] if isinstance(x, tuple) else []
        if not inner:
            return d + isinstance(x, tuple)
        d += 1
        x = inner[0]


SHAPE_TAKERS: list[tuple[str, Callable[[Any], Any]]] = [
    ("Layout", lambda d: Layout(d)),
    ("Layout stride", lambda d: Layout(2, d)),
    ("make_layout", lambda d: la.make_layout(d)),
    ("make_layout shape and stride", lambda d: la.make_layout(d, d)),
    ("complement", lambda d: la.complement(Layout(4, 1), d)),
    ("product_each", lambda d: la.product_each(d)),
    ("compatible", lambda d: la.compatible(d, 2)),
    ("compatible b", lambda d: la.compatible(2, d)),
    ("common_refinement", lambda d: la.common_refinement(d, 2)),
    ("common_coarsening", lambda d: la.common_coarsening(2, d)),
    ("symbolic_layout", lambda d: la.symbolic_layout(d)),
    ("prefix_product", lambda d: la.prefix_product(d)),
    ("suffix_product", lambda d: la.suffix_product(d)),
    ("as_layout", lambda d: la.as_layout(d)),
    ("get", lambda d: la.get(d, 0)),
    ("ArithTuple", lambda d: la.ArithTuple(d)),
    ("composition", lambda d: la.composition(Layout(4, 1), d)),
    ("composition 2-D", lambda d: la.composition(Layout((4, 4, 4)), d)),
    ("coalesce", lambda d: la.coalesce(Layout(4, 1), d)),
    ("logical_divide", lambda d: la.logical_divide(Layout(4, 1), d)),
    ("logical_product", lambda d: la.logical_product(Layout(4, 1), d)),
    ("zipped_divide", lambda d: la.zipped_divide(Layout(4, 1), d)),
    ("coalesce_z", lambda d: la.coalesce_z(d)),
    ("make_ordered_layout", lambda d: la.make_ordered_layout(d)),
    ("make_ordered_layout order", lambda d: la.make_ordered_layout(2, d)),
    ("shiftl", lambda d: la.shiftl(d, 1)),
    ("replace", lambda d: la.replace(d, 0, 0)),
    ("repeat_like", lambda d: la.repeat_like(0, d)),
    ("slice_ tree", lambda d: la.slice_(None, d)),
    ("tiler_to_layout", lambda d: la.tiler_to_layout(d)),
    ("make_tensor", lambda d: la.make_tensor(d)),
    ("flatten", lambda d: la.flatten(d)),
    ("crd2idx shape", lambda d: la.crd2idx(0, d)),
]
COORDINATE_TAKERS: list[tuple[str, Callable[[Any], Any]]] = [
    ("layout call", lambda d: L84(d)),
    ("tensor call", lambda d: la.make_tensor(L84)(d)),
    ("tensor write", lambda d: la.make_tensor(L84).__setitem__(d, 1.0)),
    ("tensor slice", lambda d: la.make_tensor(L84).slice(d)),
    ("slice_ coordinate", lambda d: la.slice_(d, 2)),
]
_DEPTHS = st.one_of(st.integers(MAX_DEPTH + 1, MAX_DEPTH + 8), st.integers(MAX_DEPTH + 1, 5000), st.just(5000))


def _refused(call: Callable[[Any], Any], shape: Any, error: type[LayoutError]) -> None:
    start = time.monotonic()
    with pytest.raises(error, match="levels deep|shifts take an integer"):  # shiftl refuses any tuple
        call(shape)
    assert time.monotonic() - start < FAST


@pytest.mark.parametrize(("name", "call"), SHAPE_TAKERS, ids=[name for name, _ in SHAPE_TAKERS])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), depth=_DEPTHS)
def test_a_shape_nested_past_max_depth_is_a_shape_error(name: str, call: Callable[[Any], Any], seed: int,
                                                       depth: int) -> None:
    shape = deep_shape(seed, depth)
    assert _depth(shape) == depth
    _refused(call, shape, ShapeError)


@pytest.mark.parametrize(("name", "call"), COORDINATE_TAKERS, ids=[name for name, _ in COORDINATE_TAKERS])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), depth=_DEPTHS)
def test_a_coordinate_nested_past_max_depth_is_a_coordinate_error(name: str, call: Callable[[Any], Any], seed: int,
                                                                  depth: int) -> None:
    _refused(call, deep_shape(seed, depth), CoordinateError)


@pytest.mark.parametrize(("name", "call"), SHAPE_TAKERS[:12], ids=[name for name, _ in SHAPE_TAKERS[:12]])
def test_the_message_names_the_limit(name: str, call: Callable[[Any], Any]) -> None:
    with pytest.raises(ShapeError, match=f"more than {MAX_DEPTH} levels deep"):
        call(D400)


def test_nesting_at_max_depth_is_still_accepted() -> None:
    shape = nest(2, MAX_DEPTH)
    check_depth(shape, "shape")
    assert Layout(shape).size() == 2
    assert la.make_layout(shape).depth() == MAX_DEPTH
    assert la.composition(Layout(4, 1), nest(2, MAX_DEPTH - 1)).size() == 2
    assert la.product_each(shape) == (2,)
    assert la.repeat_like(0, shape) == nest(0, MAX_DEPTH)


def test_the_depth_probe_does_not_recurse_and_stops_at_a_cycle() -> None:
    with pytest.raises(ShapeError, match="levels deep"):
        check_depth(nest(2, 100_000), "x")
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    with pytest.raises(ShapeError, match="cyclic"):
        check_depth(cyclic, "cyclic")
    assert any_leaf(((1, (2, None)), 3), lambda x: x is None)
    assert not any_leaf(((1, (2, [4])), 3), lambda x: x is None)
    with pytest.raises(CoordinateError, match="crd is nested"):
        any_leaf(nest(2, MAX_DEPTH + 1), lambda x: x is None, "crd", CoordinateError)


# normal behaviour of what was touched is unchanged
def test_valid_inputs_behave_as_before() -> None:
    # make_ordered_layout: tuple, numpy and word orders
    assert la.make_ordered_layout((2, 3, 4), (2, 0, 1)) == Layout((2, 3, 4), (12, 1, 3))
    assert la.make_ordered_layout((8, 4), np.array([1, 0])) == Layout((8, 4), (4, 1))
    assert la.make_ordered_layout((8, 4), [np.int64(1), 0]) == Layout((8, 4), (4, 1))
    assert la.make_ordered_layout((8, 4), "right") == Layout((8, 4), (4, 1))
    assert la.make_ordered_layout((4, (8, 2)), (1, 0)) == Layout((4, (8, 2)), (16, (1, 8)))
    # append / prepend / lift
    assert la.append(L84, 2, 4) == Layout((8, 4, 2, 2), (4, 1, 1, 1))
    assert la.prepend(L84, 2, 3) == Layout((2, 8, 4), (1, 4, 1))
    assert la.append(L84, 2, 2) == L84
    assert la.lift(42, (0, 2, 3)) == ((0, 0, (0, 0, 0, 42)),)
    assert la.get(la.lift(7, (1, 0)), (1, 0)) == 7
    assert la.append(L84, 2, MAX_RANK).rank() == MAX_RANK
    # tilers and profiles within the limit
    assert la.composition(Layout((8, 4)), (Layout(2, 2), 2)) == Layout((2, 2), (2, 8))
    assert la.logical_divide(Layout(16, 1), Layout(4, 2)) == Layout((4, (2, 2)), (2, (1, 8)))
    assert la.coalesce(Layout(((2, 2), (3, 1), 5), ((1, 2), (4, 0), 12)), (1, 1)) == Layout((4, 3, 5), (1, 4, 12))
    assert la.prefix_product(((2, 4), 8)) == ((1, 2), 8)
    assert la.get(((1, 2), 3), (0, 1)) == 2
    assert la.ArithTuple((1, (2, 3))).data[1].data == (2, 3)
    # tensors: in-range access, slices, writes, identity tensors, offsets
    t = la.make_tensor(Layout((4, 4)))
    t[3, 3] = 5.0
    assert t(15) == 5.0 and t((3, 3)) == 5.0
    assert t[1, None].size() == 4
    assert t.with_layout(Layout(4), np.int64(2)).offset == 2
    ident = la.make_identity_tensor((3, 4))
    assert ident[2, 3] == la.ArithTuple(2, 3)
    assert ident[None, 2][1] == la.ArithTuple(1, 2)
    assert la.make_tensor(Layout(4), engine=[10, 11, 12, 13])(3) == 13
    # BitMatrix
    m = _f2()
    assert BitMatrix.identity(3).columns == (1, 2, 4)
    assert BitMatrix.from_rows([[1, 0], [True, 1]]).columns == (3, 2)
    assert list(m.apply_numpy(np.arange(16))) == [m(i) for i in range(16)]
    assert m.apply_numpy([]).shape == (0,)
    assert m.compose(BitMatrix.identity(4)) == m
    assert la.from_f2(m, None, [2, 2]) == Layout((4, 4), (1, 4))
    assert la.from_f2(m, (4, 4)) == Layout((4, 4), (1, 4))


# a tuple built by pairing one object with itself: few objects, astronomically many leaves
def self_paired(levels: int, leaf: Any = 1) -> Any:
    x = leaf
    for _ in range(levels):
        x = (x, x)
    return x


P60 = self_paired(60)

SELF_PAIRED_CALLS: list[tuple[str, Callable[[Any], Any]]] = SHAPE_TAKERS + [
    ("raked_product tiler", lambda d: la.raked_product(Layout(8), d)),
    ("blocked_product tiler", lambda d: la.blocked_product(Layout(8), d)),
    ("stride_layout stride", lambda d: la.stride_layout(Layout(8), d)),
    ("size", lambda d: la.size(d)),
    ("rank", lambda d: la.rank(d)),
    ("depth", lambda d: la.depth(d)),
    ("idx2crd", lambda d: la.idx2crd(3, d)),
    ("crd2idx coordinate", lambda d: la.crd2idx(d, (8,))),
    ("weakly_congruent", lambda d: la.weakly_congruent(d, d)),
    ("greatest_common_domain", lambda d: la.greatest_common_domain(d, d)),
    ("make_identity_tensor", lambda d: la.make_identity_tensor(d)),
    ("register_integer_type", lambda d: la.register_integer_type(d)),
]


@pytest.mark.parametrize(("name", "call"), SELF_PAIRED_CALLS, ids=[name for name, _ in SELF_PAIRED_CALLS])
def test_a_tuple_pairing_one_object_with_itself_is_refused_at_once(name: str, call: Callable[[Any], Any]) -> None:
    """60 objects, 2**60 leaves: refused by the node count (MAX_NODES) or the argument's own checks, with a message
    that prints the tuple's start only (a full repr would never end)."""
    start = time.monotonic()
    with pytest.raises(LayoutError) as refusal:
        call(P60)
    assert time.monotonic() - start < FAST
    assert len(str(refusal.value)) < 2000


def test_the_node_count_is_checked_on_both_sides_of_the_limit() -> None:
    from layoutalg.core.validate import MAX_NODES, is_plain_tuple

    # self_paired(k) holds 2**(k+1) - 1 tuples, counting each time it appears
    fits = self_paired(MAX_NODES.bit_length() - 2)  # 2**17 - 1 tuples at MAX_NODES = 2**18
    over = self_paired(MAX_NODES.bit_length() - 1)  # 2**18 - 1: still within
    past = self_paired(MAX_NODES.bit_length())  # 2**19 - 1: past
    check_depth(fits, "x")
    check_depth(over, "x")
    assert is_plain_tuple(over) and not is_plain_tuple(past)
    with pytest.raises(ShapeError, match="more than 262144 tuples"):
        check_depth(past, "x")
    # shared tuples are walked like any other below the limit: 8 leaves of 2, products 2**k in order
    assert la.size(fits) == 1 and la.size(self_paired(3, 2)) == 256
    assert la.prefix_product(self_paired(3, 2)) == (((1, 2), (4, 8)), ((16, 32), (64, 128)))
    assert la.crd2idx(self_paired(3, 1), self_paired(3, 2)) == 255


def test_describe_prints_the_start_of_a_tuple_whose_repr_would_not_end() -> None:
    from layoutalg.core.validate import describe

    text = describe(P60)
    assert text.startswith("((((") and "over 65536 characters, tuple" in text and len(text) < 120
    for value in [(1, 2), (1,), ((1,), [2, (3,)]), [], (), ("a", (1, 2), None), (")", ", ", "]"), [(")",)]]:
        assert describe(value) == repr(value)
    assert describe(tuple(range(100))).endswith("(390 characters, tuple)")

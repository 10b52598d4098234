"""ComposedLayout and the generic algebra: every operation against brute-force function composition, and CuTe DSL."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.core.layout import Layout
from layoutalg.errors import CompositionError, CoordinateError, LayoutError, ParseError
from layoutalg.swizzle import generic
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.generic import (
    coalesce,
    composition,
    downcast,
    left_inverse,
    local_partition,
    local_tile,
    logical_divide,
    recast,
    right_inverse,
    slice_and_offset,
    tiled_divide,
    upcast,
    zipped_divide,
)
from layoutalg.swizzle.notation import parse
from layoutalg.swizzle.strategies import compact_pow2_layouts, pow2_layouts, small_layouts, swizzled_layouts, swizzles
from layoutalg.swizzle.swizzle import Swizzle

SW128_FP16 = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))


def values(x: Any) -> list[int]:
    return [x(i) for i in range(x.size())]


def bitwise_swizzle(x: int, sw: Swizzle) -> int:
    out = x
    for j in range(sw.bits):
        src, dst = (sw.base + sw.shift + j, sw.base + j) if sw.shift > 0 else (sw.base + j, sw.base - sw.shift + j)
        if (x >> src) & 1:
            out ^= 1 << dst
    return out


# ---------------------------------------------------------------------------
# the value itself


@given(swizzled_layouts(offset=True, compact=False))
@settings(max_examples=150, deadline=None)
def test_evaluation_is_outer_of_offset_plus_inner(c: ComposedLayout) -> None:
    assert isinstance(c.outer, Swizzle)
    for i in range(c.size()):
        assert c(i) == bitwise_swizzle(c.offset + c.inner(i), c.outer)
    assert c.to_numpy().tolist() == values(c)
    assert c.cosize() == max(values(c)) + 1
    assert parse(str(c)) == c


def test_printing_like_cute() -> None:
    assert str(SW128_FP16) == "Sw<3,3,3> o _0 o (8,64):(64,1)"
    assert parse("Sw<3,4,3> o _0 o (8,64):(64,1)") == ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    assert parse("S<3,4,3> o 0 o (8,64):(64,1)") == ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    assert parse("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)") == SW128_FP16
    assert parse("(4,2):(2,1) o _3 o 8:1") == ComposedLayout(Layout((4, 2), (2, 1)), 3, Layout(8, 1))
    assert parse("Sw<2,1,-3>") == Swizzle(2, 1, -3)
    assert parse("(8,64):(64,1)") == Layout((8, 64), (64, 1))
    for bad in ["Sw<3,4,2> o 8:1", "Sw<3,4,3> o", "Sw<3,4 o 8:1", "Sw<3,4,3> o _0 o 8:1 o 2"]:
        with pytest.raises(ParseError):
            parse(bad)


def test_cosize_counts_what_the_swizzle_reaches() -> None:
    # CuTe would say cosize(2:2) = 3, but Sw<1,0,1> moves offset 2 to 3.
    assert ComposedLayout(Swizzle(1, 0, 1), 0, Layout(2, 2)).cosize() == 4
    assert SW128_FP16.cosize() == 512


def test_structure_and_errors() -> None:
    assert SW128_FP16.shape == (8, 64) and SW128_FP16.size() == 512 and SW128_FP16.rank() == 2
    assert SW128_FP16[1] == ComposedLayout(Swizzle(3, 3, 3), 0, Layout(64, 1))
    assert hash(SW128_FP16) == hash(parse(str(SW128_FP16)))
    assert SW128_FP16 != ComposedLayout(Swizzle(3, 3, 3), 8, Layout((8, 64), (64, 1)))
    with pytest.raises(LayoutError):
        ComposedLayout("Sw", 0, Layout(4))
    with pytest.raises(LayoutError):
        ComposedLayout(Swizzle(1, 0, 1), 0.5, Layout(4))
    with pytest.raises(LayoutError):
        ComposedLayout(Swizzle(1, 0, 1), 0, (4, 1))
    with pytest.raises(CoordinateError):
        SW128_FP16((1, 2, 3))
    with pytest.raises(CoordinateError):
        SW128_FP16(-1)
    with pytest.raises(AttributeError):
        SW128_FP16.offset = 3  # type: ignore[misc]


# ---------------------------------------------------------------------------
# slicing


def test_slice_where_the_swizzle_cancels() -> None:
    # a column: Sw(64 r + 3) = 64 r + 3 + 8 r, an affine function of r -> a plain layout with offset 3
    sliced, offset = slice_and_offset(SW128_FP16, (None, 3))
    assert isinstance(sliced, Layout) and sliced == Layout((8,), (72,)) and offset == 3
    # CuTe's slice of a composed layout keeps the offset: C(_, 3)(r) == C(r, 3) (issue 13: it evaluated to 0, 72, ...)
    column = SW128_FP16(None, 3)
    assert values(column) == [SW128_FP16(r, 3) for r in range(8)] == [3 + 72 * r for r in range(8)]
    assert column == ComposedLayout(Swizzle(3, 3, 3), 3, Layout((8,), (64,)))
    assert SW128_FP16(None, 0) == Layout((8,), (72,))  # linear: the swizzle cancels and nothing is lost
    # a row keeps the swizzle (the chunk index is XORed with the row)
    row, row_offset = slice_and_offset(SW128_FP16, (2, None))
    assert isinstance(row, ComposedLayout) and row_offset == 0
    assert values(row) == [SW128_FP16(2, c) for c in range(64)]


@st.composite
def slicing_cases(draw: Any) -> tuple[ComposedLayout, Any]:
    inner = draw(compact_pow2_layouts(max_modes=3))
    sw = draw(swizzles())
    c = ComposedLayout(sw, draw(st.integers(0, 16)), inner)
    shape = inner.shape if isinstance(inner.shape, tuple) else (inner.shape,)
    crd = tuple(None if draw(st.booleans()) else draw(st.integers(0, s - 1)) for s in shape)
    return c, crd if isinstance(inner.shape, tuple) else crd[0]


@given(slicing_cases())
@settings(max_examples=200, deadline=None)
def test_slice_is_exact(case: tuple[ComposedLayout, Any]) -> None:
    c, crd = case
    sliced, offset = slice_and_offset(c, crd)
    crd_t = crd if isinstance(crd, tuple) else (crd,)
    free = [k for k, v in enumerate(crd_t) if v is None]
    shape = c.shape if isinstance(c.shape, tuple) else (c.shape,)
    ranges = [range(shape[k]) for k in free]
    for n, point in enumerate(itertools.product(*reversed(ranges))):
        point = tuple(reversed(point))  # colexicographic: the first free mode is fastest
        full = list(crd_t)
        for k, v in zip(free, point):
            full[k] = v
        arg = tuple(full) if isinstance(crd, tuple) else full[0]
        assert c(arg) == offset + sliced(n)
    if isinstance(sliced, ComposedLayout):
        assert offset == 0


# ---------------------------------------------------------------------------
# composition


@given(swizzled_layouts(offset=True), small_layouts())
@settings(max_examples=200, deadline=None)
def test_composed_then_layout(c: ComposedLayout, b: Layout) -> None:
    if b.cosize() > c.size():
        return
    try:
        result = composition(c, b)
    except CompositionError:
        return  # no layout represents inner o b (core's business); nothing claimed
    assert isinstance(result, ComposedLayout) and result.outer == c.outer
    assert values(result) == [c(b(i)) for i in range(b.size())]


@given(pow2_layouts(max_modes=3, zero_strides=False), swizzled_layouts(offset=False))
@settings(max_examples=200, deadline=None)
def test_layout_then_composed(a: Layout, c: ComposedLayout) -> None:
    if c.cosize() > a.size():
        return
    try:
        result = composition(a, c)
    except CompositionError:
        return
    assert values(result) == [a(c(i)) for i in range(c.size())]
    if isinstance(result, ComposedLayout):
        assert isinstance(result.outer, Swizzle)  # the swizzle stays outermost


def test_layout_then_composed_known_cases() -> None:
    # scaling by 2 (bytes of fp16): the swizzle moves up one bit
    scaled = composition(Layout(512, 2), SW128_FP16)
    assert scaled == ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (128, 2)))
    # a bit permutation that breaks the swizzle's contiguity is refactored through GF(2), still exact
    a = Layout((8, 64), (64, 1))
    result = composition(a, SW128_FP16)
    assert values(result) == [a(SW128_FP16(i)) for i in range(512)]
    assert composition(Swizzle(3, 3, 3), SW128_FP16) == Layout((8, 64), (64, 1))  # an involution
    assert composition(Swizzle(3, 3, 3), Layout(8, 1)) == ComposedLayout(Swizzle(3, 3, 3), 0, Layout(8, 1))


def test_composed_then_swizzle() -> None:
    flat = ComposedLayout(Swizzle(3, 3, 3), 0, Layout(512, 1))
    assert composition(flat, Swizzle(3, 3, 3)) == Layout(512, 1)  # Sw o Sw is the identity
    with pytest.raises(CompositionError):
        composition(SW128_FP16, Swizzle(3, 3, 3))  # Sw<3,3,3> o Sw<3,0,3>: not one swizzle


def test_composition_refuses_what_it_cannot_represent() -> None:
    with pytest.raises(CompositionError):
        composition(Swizzle(3, 3, 3), Swizzle(2, 4, 3))
    with pytest.raises(LayoutError):
        composition("8:1", SW128_FP16)


# ---------------------------------------------------------------------------
# divides and partitioning


@st.composite
def tilers(draw: Any, shape: tuple[int, ...]) -> tuple[Layout, ...]:
    out = []
    for s in shape:
        divisors = [d for d in range(1, s + 1) if s % d == 0]
        out.append(Layout(draw(st.sampled_from(divisors))))
    return tuple(out)


@st.composite
def divide_cases(draw: Any) -> tuple[ComposedLayout, tuple[Layout, ...]]:
    inner = draw(compact_pow2_layouts(max_modes=2))
    if not isinstance(inner.shape, tuple):
        inner = Layout((inner.shape,), (inner.stride,))
    c = ComposedLayout(draw(swizzles()), draw(st.integers(0, 8)), inner)
    return c, draw(tilers(inner.shape))


@given(divide_cases())
@settings(max_examples=150, deadline=None)
def test_divides_are_composition_with_the_divided_identity(case: tuple[ComposedLayout, tuple[Layout, ...]]) -> None:
    from layoutalg.core import divide_product as core_dp

    c, tiler = case
    identity = Layout(c.shape)
    for ours_fn, core_fn in [(logical_divide, core_dp.logical_divide), (zipped_divide, core_dp.zipped_divide),
                             (tiled_divide, core_dp.tiled_divide)]:
        ours = ours_fn(c, tiler)
        index = core_fn(identity, tiler)
        assert ours.shape == index.shape
        assert values(ours) == [c(index(i)) for i in range(index.size())]


@given(divide_cases(), st.data())
@settings(max_examples=150, deadline=None)
def test_local_tile(case: tuple[ComposedLayout, tuple[Layout, ...]], data: Any) -> None:
    c, tiler = case
    tile_shape = tuple(t.size() for t in tiler)
    counts = tuple(s // t for s, t in zip(c.shape, tile_shape))
    coord = tuple(data.draw(st.integers(0, n - 1)) for n in counts)
    tile, offset = local_tile(c, tiler, coord)
    for point in itertools.product(*[range(t) for t in tile_shape]):
        element = tuple(k * t + p for k, t, p in zip(coord, tile_shape, point))
        assert c(element) == offset + tile(point if len(point) > 1 else point[0])


@given(st.sampled_from([((8, 4), (4, 1)), ((4, 8), (1, 4)), ((2, 16), (16, 1)), ((8, 8), (1, 8))]), st.integers(0, 31))
@settings(max_examples=60, deadline=None)
def test_local_partition_of_sw128_tile(thr: tuple[tuple[int, int], tuple[int, int]], index: int) -> None:
    thr_layout = Layout(*thr)
    index %= thr_layout.size()
    part, offset = local_partition(SW128_FP16, thr_layout, index)
    # the thread's coordinate, found by brute force over the thread layout
    (tm, tn), = [(m, n) for n in range(thr[0][1]) for m in range(thr[0][0]) if thr_layout(m, n) == index]
    rows, cols = 8 // thr[0][0], 64 // thr[0][1]
    assert part.size() == rows * cols
    for q in range(cols):
        for p in range(rows):
            assert SW128_FP16(tm + thr[0][0] * p, tn + thr[0][1] * q) == offset + part(p, q)


def test_local_partition_errors() -> None:
    with pytest.raises(LayoutError):
        local_partition(SW128_FP16, Layout((2, 2), (1, 1)), 1)  # thread 1 owned twice
    with pytest.raises(LayoutError):
        local_partition(SW128_FP16, Layout((4, 8), (1, 4)), 32)


def test_local_tile_of_sw128_tile() -> None:
    tile, offset = local_tile(SW128_FP16, (Layout(4), Layout(16)), (1, 2))
    for m in range(4):
        for n in range(16):
            assert offset + tile(m, n) == SW128_FP16(4 + m, 32 + n)


@given(swizzled_layouts(offset=True), st.booleans())
@settings(max_examples=100, deadline=None)
def test_coalesce_keeps_the_function(c: ComposedLayout, _: bool) -> None:
    assert values(coalesce(c)) == values(c)


# ---------------------------------------------------------------------------
# inverses


@given(swizzled_layouts())
@settings(max_examples=150, deadline=None)
def test_right_inverse(c: ComposedLayout) -> None:
    r = right_inverse(c)
    assert all(c(r(i)) == i for i in range(r.size()))


@given(swizzled_layouts())
@settings(max_examples=150, deadline=None)
def test_left_inverse(c: ComposedLayout) -> None:
    try:
        inv = left_inverse(c)
    except CompositionError:
        return
    assert all(inv(c(i)) == i for i in range(c.size()))


def test_inverses_of_sw128_are_complete() -> None:
    c = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    r = right_inverse(c)
    assert r.size() == 512 and all(c(r(i)) == i for i in range(512))
    inv = left_inverse(SW128_FP16)
    assert all(inv(SW128_FP16(i)) == i for i in range(512))
    with pytest.raises(CompositionError):
        right_inverse(ComposedLayout(Swizzle(3, 3, 3), 8, Layout(512)))
    # the swizzle writes bits 4,5 past the inner layout's range [0, 8): inverted on bit matrices instead
    pushed = ComposedLayout(Swizzle(2, 0, -4), 0, Layout(8, 1))
    assert [pushed(i) for i in range(8)] == [0, 17, 34, 51, 4, 21, 38, 55]
    inv = left_inverse(pushed)
    assert all(inv(pushed(i)) == i for i in range(8))
    # not injective: the generalized left inverse, A(L(A(i))) == A(i), as for a plain layout
    shared = ComposedLayout(Swizzle(1, 0, 1), 0, Layout((2, 2), (1, 1)))
    general = left_inverse(shared)
    assert [shared(general(shared(i))) for i in range(4)] == [shared(i) for i in range(4)] == [0, 1, 1, 3]


# ---------------------------------------------------------------------------
# recast between element widths


def test_chunks_of_16_bytes_viewed_from_2_byte_elements_and_back() -> None:
    in_bytes = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 128), (128, 1)))
    in_fp16 = recast(in_bytes, 8, 16)
    assert in_fp16 == SW128_FP16
    for r in range(8):
        for c in range(64):
            assert 2 * in_fp16(r, c) == in_bytes(r, 2 * c)
    assert recast(in_fp16, 16, 8) == in_bytes
    in_chunks = recast(in_bytes, 8, 128)  # uint128: the swizzle is Sw<3,0,3> on 16-byte chunks
    assert in_chunks == ComposedLayout(Swizzle(3, 0, 3), 0, Layout((8, 8), (8, 1)))
    with pytest.raises(CompositionError):
        upcast(in_chunks, 2)  # the swizzle would split a 32-byte element


@given(swizzled_layouts(offset=False), st.sampled_from([2, 4]))
@settings(max_examples=150, deadline=None)
def test_downcast_then_upcast(c: ComposedLayout, n: int) -> None:
    from layoutalg.core.recast import downcast as core_downcast

    down = downcast(c, n)
    inner = core_downcast(c.inner, n)
    assert isinstance(c.outer, Swizzle)
    # each old element v becomes n new ones n*v + k: the new function is n * old(position // n) + position % n
    assert values(down) == [n * c.outer(c.offset + inner(i) // n) + inner(i) % n for i in range(inner.size())]
    assert upcast(down, n) == c


@given(swizzled_layouts(offset=False), st.sampled_from([2, 4]))
@settings(max_examples=150, deadline=None)
def test_upcast(c: ComposedLayout, n: int) -> None:
    from layoutalg.core.recast import upcast as core_upcast

    try:
        up = upcast(c, n)
    except (CompositionError, LayoutError):
        assert isinstance(c.outer, Swizzle)
        if c.outer.bits and c.outer.base < n.bit_length() - 1:
            return  # refused: the swizzle permutes bits inside an n-element group
        try:
            core_upcast(c.inner, n)
        except LayoutError:
            return  # the inner layout itself cannot be upcast
        raise
    inner = core_upcast(c.inner, n)
    assert values(up) == [c.outer(c.offset + n * inner(i)) // n for i in range(inner.size())]


# ---------------------------------------------------------------------------
# CuTe DSL as a differential oracle


def _dsl_cases() -> list[tuple[tuple[int, int, int], tuple[tuple[int, int], tuple[int, int]]]]:
    rng = random.Random(7)
    cases = [((3, 3, 3), ((8, 64), (64, 1))), ((3, 4, 3), ((8, 64), (64, 1))), ((2, 2, 3), ((16, 16), (16, 1)))]
    while len(cases) < 10:
        b = rng.randrange(0, 4)
        s = rng.choice([b, b + 1, -b - 1]) if b else rng.choice([1, 2, -2])
        m = rng.randrange(0, 3)
        shape = (1 << rng.randrange(1, 4), 1 << rng.randrange(1, 5))
        stride = (shape[1], 1) if rng.random() < 0.5 else (1, shape[0])
        cases.append(((b, m, s), (shape, stride)))
    return cases


@pytest.mark.oracle
def test_cute_dsl_oracle() -> None:
    """Evaluation, composition with a layout, divides, slicing and recast agree with CuTe DSL element by element."""
    pytest.importorskip("cutlass.cute")
    from oracles.cute_dsl import Batch, Composed, Lay, Swz

    def dump(op: Any, n: int) -> Any:
        # (the layout part, every value): plain ints only leave the trace
        def fn(cute: Any, *xs: Any) -> Any:
            r = op(cute, *xs)
            return r.outer, tuple(r(i) for i in range(n))
        return fn

    ops: dict[str, Any] = {
        "eval": lambda cute, c, t, sh: c,
        "comp": lambda cute, c, t, sh: cute.composition(c, cute.make_layout((sh[1], sh[0]), stride=(sh[0], 1))),
        "logical_divide": lambda cute, c, t, sh: cute.logical_divide(c, t),
        "zipped_divide": lambda cute, c, t, sh: cute.zipped_divide(c, t),
        "tiled_divide": lambda cute, c, t, sh: cute.tiled_divide(c, t),
        "slice_row": lambda cute, c, t, sh: cute.slice_(c, (1, None)),
        "slice_col": lambda cute, c, t, sh: cute.slice_(c, (None, 1)),
        "downcast": lambda cute, c, t, sh: cute.recast_layout(8, 16, c),
        "coalesce": lambda cute, c, t, sh: cute.coalesce(c),
    }
    products = ["logical_product", "blocked_product", "raked_product", "zipped_product", "tiled_product"]
    for name in products:
        ops[name] = lambda cute, c, t, sh, name=name: getattr(cute, name)(c, cute.make_layout((2, 2)))
    sizes = {"slice_row": lambda sh: sh[1], "slice_col": lambda sh: sh[0], "downcast": lambda sh: 2 * sh[0] * sh[1]}
    sizes.update({name: (lambda sh: 4 * sh[0] * sh[1]) for name in products})
    batch = Batch()
    handles = []
    cases = _dsl_cases()
    for (b, m, s), (shape, stride) in cases:
        c = Composed(Swz(b, m, s), 0, Lay(shape, stride))
        tiler = (Lay(shape[0] // 2), Lay(shape[1] // 2))
        handles.append({
            key: batch.custom(dump(op, sizes.get(key, lambda sh: sh[0] * sh[1])(shape)), c, tiler, shape)
            for key, op in ops.items()
        })
    results = batch.run()
    for ((b, m, s), (shape, stride)), handle in zip(cases, handles):
        mine = ComposedLayout(Swizzle(b, m, s), 0, Layout(shape, stride))
        halves = (Layout(shape[0] // 2), Layout(shape[1] // 2))
        ours = {
            "eval": mine,
            "comp": composition(mine, Layout((shape[1], shape[0]), (shape[0], 1))),
            "logical_divide": logical_divide(mine, halves),
            "zipped_divide": zipped_divide(mine, halves),
            "tiled_divide": tiled_divide(mine, halves),
            "downcast": recast(mine, 16, 8),
            "coalesce": coalesce(mine),
        }
        ours.update({name: getattr(generic, name)(mine, Layout((2, 2))) for name in products})
        for key, value in ours.items():
            result = results[handle[key]]
            assert result.ok, (key, result.error)
            dsl_layout, dsl_values = result.value
            assert values(value) == list(dsl_values), (key, str(mine), str(dsl_layout))
            assert value.shape == dsl_layout.shape, (key, str(mine), str(dsl_layout))
        # slices: CuTe drops the offset of the fixed coordinate, as our slice_and_offset separates it
        for key, crd in (("slice_row", (1, None)), ("slice_col", (None, 1))):
            sliced, offset = slice_and_offset(mine, crd)
            result = results[handle[key]]
            assert result.ok, (key, result.error)
            _, dsl_values = result.value
            full = [mine(tuple(i if v is None else v for v in crd)) for i in range(sliced.size())]
            assert [offset + sliced(i) for i in range(sliced.size())] == full
            delta = full[0] - dsl_values[0]  # the offset CuTe DSL leaves out
            assert [v + delta for v in dsl_values] == full, (key, str(mine))

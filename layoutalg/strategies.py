"""Hypothesis strategies for CuTe layouts and for each algebra operation's domain.

For users' property tests, e.g.::

    from hypothesis import given
    from layoutalg import strategies as ls

    @given(ls.layouts())
    def test_my_kernel_layout(layout): ...

Every strategy yields :class:`~layoutalg.Layout` values (or tuples of them with
ints).  Sizes stay small by default (``max_size``) so that whole-domain checks
are cheap.  The ``*_cases`` strategies yield inputs inside an operation's
domain as CuTe defines it (its divisibility conditions hold), mixed with
``wild`` inputs where ``wild=True`` (anything of the right type, to exercise
the error paths).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from layoutalg.core.layout import Layout

_SMALL_FACTORS = (1, 2, 2, 2, 2, 3, 4, 4, 8, 5, 6, 16)


def _nest(draw: Any, leaves: list[Any], max_depth: int) -> Any:
    """Group a flat list of leaves into a random tree of depth <= max_depth (always a tuple at the top)."""
    if max_depth <= 1 or len(leaves) <= 1:
        return tuple(leaves)
    out: list[Any] = []
    i = 0
    while i < len(leaves):
        take = draw(st.integers(1, len(leaves) - i))
        group = leaves[i : i + take]
        if take > 1 and draw(st.booleans()):
            out.append(_nest(draw, group, max_depth - 1))
        else:
            out.extend(group)
        i += take
    return tuple(out)


def _unflatten_like(tree: Any, values: list[Any]) -> Any:
    it = iter(values)

    def build(t: Any) -> Any:
        if isinstance(t, tuple):
            return tuple(build(e) for e in t)
        return next(it)

    return build(tree)


def _index_tree(n: int, draw: Any, max_depth: int, as_int: bool) -> Any:
    """A tree over leaf indices 0..n-1; an int when n == 1 and ``as_int``."""
    if n == 1 and as_int:
        return 0
    return _nest(draw, list(range(n)), max_depth)


def _layout_from_flat(draw: Any, shapes: list[int], strides: list[int], max_depth: int) -> Layout:
    tree = _index_tree(len(shapes), draw, max_depth, as_int=draw(st.booleans()))
    shape = _unflatten_like(tree, shapes) if isinstance(tree, tuple) else shapes[0]
    stride = _unflatten_like(tree, strides) if isinstance(tree, tuple) else strides[0]
    return Layout(shape, stride)


@st.composite
def flat_shapes(draw: Any, max_rank: int = 4, max_size: int = 1024, factors: tuple[int, ...] = _SMALL_FACTORS) -> list[int]:
    """A list of extents whose product stays <= max_size."""
    rank = draw(st.integers(1, max_rank))
    out: list[int] = []
    size = 1
    for _ in range(rank):
        s = draw(st.sampled_from([f for f in factors if size * f <= max_size] or [1]))
        out.append(s)
        size *= s
    return out


@st.composite
def layouts(
    draw: Any,
    max_rank: int = 4,
    max_depth: int = 2,
    max_size: int = 1024,
    max_stride: int = 64,
    negative: bool = False,
    zero: bool = True,
) -> Layout:
    """Any layout: random extents (product <= max_size), random strides, random nesting."""
    shapes = draw(flat_shapes(max_rank, max_size))
    lo = -max_stride if negative else (0 if zero else 1)
    strides = [draw(st.integers(lo, max_stride)) for _ in shapes]
    if not zero:
        strides = [d if d != 0 else 1 for d in strides]
    return _layout_from_flat(draw, shapes, strides, max_depth)


@st.composite
def compact_layouts(draw: Any, max_rank: int = 4, max_depth: int = 2, max_size: int = 1024, gaps: bool = True) -> Layout:
    """Injective layouts whose sorted strides form a divisor chain (CuTe's complement domain).

    A compact layout with its modes' stride order permuted, and (with ``gaps``)
    a random factor in {1,2,3} between consecutive strides.
    """
    shapes = draw(flat_shapes(max_rank, max_size))
    order = draw(st.permutations(range(len(shapes))))
    strides = [0] * len(shapes)
    running = draw(st.sampled_from([1, 1, 1, 2, 3])) if gaps else 1
    for k in order:
        strides[k] = running
        running *= shapes[k] * (draw(st.sampled_from([1, 1, 2, 3])) if gaps else 1)
    return _layout_from_flat(draw, shapes, strides, max_depth)


def _prime_factors(n: int) -> list[int]:
    out = []
    p = 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


@st.composite
def tilers_for(draw: Any, a: Layout, max_leaves: int = 3, max_depth: int = 2, overlap: bool = True) -> Layout:
    """A layout ``B`` on which CuTe's composition with ``A`` passes its divisibility checks.

    Each leaf ``s:r`` has ``r`` a product of a prefix of A's extents split into
    primes and ``s`` the product of the next few primes (past A's size, any
    factor): exactly the strides and extents CuTe's algorithm accepts.
    With ``overlap`` the leaves may share index ranges (then A o B need not be a layout).
    """
    primes = [p for s in _flat(a.shape) for p in _prime_factors(s)]
    leaves = draw(st.integers(1, max_leaves))
    shapes, strides = [], []
    start = 0
    for _ in range(leaves):
        if overlap and draw(st.integers(0, 3)) == 0:
            start = draw(st.integers(0, len(primes)))
        if start > len(primes):
            start = len(primes)
        r = math.prod(primes[:start])
        take = draw(st.integers(0, 3))
        block = primes[start : start + take]
        extra = draw(st.sampled_from([1, 1, 1, 2, 3])) if start + take >= len(primes) else 1
        s = math.prod(block) * extra
        if draw(st.integers(0, 7)) == 0:
            r = 0  # a broadcast leaf
        shapes.append(max(s, 1))
        strides.append(r)
        start += take
    return _layout_from_flat(draw, shapes, strides, max_depth)


def _flat(t: Any) -> list[int]:
    if isinstance(t, tuple):
        return [x for e in t for x in _flat(e)]
    return [t]


@st.composite
def composition_cases(draw: Any, wild: bool = True) -> tuple[Layout, Layout]:
    """``(A, B)`` for composition: mostly CuTe-admissible tilers, some arbitrary small B."""
    a = draw(layouts(max_size=512, max_stride=48, zero=True))
    if wild and draw(st.integers(0, 4)) == 0:
        b = draw(layouts(max_rank=3, max_size=64, max_stride=12))
    else:
        b = draw(tilers_for(a))
    return a, b


@st.composite
def complement_cases(draw: Any, wild: bool = True) -> tuple[Layout, int]:
    """``(A, M)`` for complement: complementable layouts with a cotarget, some arbitrary layouts."""
    if wild and draw(st.integers(0, 4)) == 0:
        a = draw(layouts(max_size=256, max_stride=32))
    else:
        a = draw(compact_layouts(max_size=256))
    m = max(1, a.cosize() * draw(st.sampled_from([1, 1, 2, 3, 4])) + draw(st.sampled_from([0, 0, 0, -1, 1])))
    return a, m


@st.composite
def injective_layouts(draw: Any, max_size: int = 512) -> Layout:
    """Compact layouts with gaps, permuted (injective, left-invertible)."""
    return draw(compact_layouts(max_size=max_size))


@st.composite
def divide_cases(draw: Any, wild: bool = True) -> tuple[Layout, Any]:
    """``(A, tiler)`` for the divides: a layout tiler, an int, or a by-mode tuple of them."""
    a = draw(layouts(max_size=512, max_stride=32))
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return a, draw(_divisor_tiler(a.size(), wild))
    modes = list(a) if isinstance(a.shape, tuple) else [a]
    n = draw(st.integers(1, len(modes)))
    return a, tuple(draw(_divisor_tiler(modes[i].size(), wild)) for i in range(n))


@st.composite
def _divisor_tiler(draw: Any, n: int, wild: bool) -> Any:
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    if draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(divisors))
    if wild and draw(st.integers(0, 5)) == 0:
        return draw(layouts(max_rank=2, max_size=16, max_stride=8, zero=False))
    tile = draw(compact_layouts(max_rank=3, max_size=max(1, n), gaps=True))
    return tile


@st.composite
def product_cases(draw: Any) -> tuple[Layout, Any]:
    """``(A, B)`` for the products: a compact block and a small tiler."""
    a = draw(compact_layouts(max_rank=3, max_size=64))
    b = draw(layouts(max_rank=3, max_size=32, max_stride=8, zero=True))
    return a, b


__all__ = [
    "flat_shapes",
    "layouts",
    "compact_layouts",
    "injective_layouts",
    "tilers_for",
    "composition_cases",
    "complement_cases",
    "divide_cases",
    "product_cases",
]

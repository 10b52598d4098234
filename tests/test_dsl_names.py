"""CuTe DSL's spellings and keywords: make_layout(shape, stride=...), the free query functions with mode=[...],
make_composed_layout(inner=, offset=, outer=), make_swizzle; judged against CuTe DSL itself and by definition."""

from __future__ import annotations

from typing import Any

import pytest

import layoutalg as la
from layoutalg import Layout, LayoutError

# ----------------------------------------------------------------------------- make_layout


def test_make_layout_shape_and_stride_in_both_spellings() -> None:
    assert la.make_layout((4, 8), stride=(8, 1)) == Layout((4, 8), (8, 1))  # CuTe DSL
    assert la.make_layout((4, 8), (8, 1)) == Layout((4, 8), (8, 1))  # C++
    assert la.make_layout((4, 8)) == Layout((4, 8), (1, 4))  # compact column-major by default
    assert la.make_layout(8) == Layout(8, 1)


def test_make_layout_of_layouts_in_both_spellings() -> None:
    a, b = Layout(2, 3), Layout((4, 2), (1, 8))
    expected = Layout((2, (4, 2)), (3, (1, 8)))
    assert la.make_layout(a, b) == expected  # C++ variadic
    assert la.make_layout([a, b]) == expected  # CuTe DSL iterable
    assert la.make_layout(a) == Layout((2,), (3,))


@pytest.mark.parametrize("args, kwargs", [
    (((4, 8), (8, 1)), {"stride": (8, 1)}),
    (((4, 8), Layout(2)), {}),
    ((Layout(2), Layout(4)), {"stride": (1, 2)}),
    (((4, 8), (8, 1), (1, 1)), {}),
    ((), {"stride": (1,)}),  # a stride with no shape (make_layout() alone is the rank-0 layout ():())
])
def test_make_layout_refuses_mixed_or_doubled_arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(LayoutError):
        la.make_layout(*args, **kwargs)


# ----------------------------------------------------------------------------- composed layouts


def swizzle333(x: int) -> int:
    return x ^ ((x >> 3) & 0b111000)


def test_make_composed_layout_positional_and_cute_dsl_keywords() -> None:
    inner = Layout((8, 64), (64, 1))
    expected = [swizzle333(inner(i)) for i in range(512)]
    positional = la.make_composed_layout(la.make_swizzle(3, 3, 3), 0, inner)
    # CuTe DSL: inner is the function applied last (the swizzle), outer the layout applied first.
    keywords = la.make_composed_layout(inner=la.make_swizzle(3, 3, 3), offset=0, outer=inner)
    assert [positional(i) for i in range(512)] == expected
    assert [keywords(i) for i in range(512)] == expected
    shifted = la.make_composed_layout(inner=Layout(64, 2), offset=3, outer=Layout(8, 4))
    assert [shifted(i) for i in range(8)] == [2 * (3 + 4 * i) for i in range(8)]
    with pytest.raises(LayoutError, match="twice"):
        la.make_composed_layout(la.make_swizzle(3, 3, 3), 0, inner, outer=inner)
    with pytest.raises(LayoutError):
        la.make_composed_layout(inner=la.make_swizzle(3, 3, 3))


# ----------------------------------------------------------------------------- free functions, by definition

NESTED = Layout(((4, 8), (16, 1), 8), ((1, 4), (32, 0), 512))  # CuTe DSL's get() docstring example


def test_get_follows_the_mode_path() -> None:
    assert la.get(NESTED, mode=[0, 1]) == Layout(8, 4)
    assert la.get(NESTED, mode=[1]) == Layout((16, 1), (32, 0))
    assert la.get(NESTED, mode=1) == la.get(NESTED, mode=[1])
    assert la.get(((2, 3), 4), mode=[0, 1]) == 3
    with pytest.raises(LayoutError, match="out of range"):
        la.get(NESTED, mode=[3])
    with pytest.raises(LayoutError):
        la.get(NESTED, mode=["a"])  # type: ignore[list-item]


def test_queries_at_a_mode_path() -> None:
    assert la.size(NESTED) == 4 * 8 * 16 * 8
    assert la.size(NESTED, mode=[0]) == 32 and la.size(NESTED, mode=[0, 1]) == 8
    assert la.rank(NESTED) == 3 and la.rank(NESTED, mode=[1]) == 2 and la.rank(NESTED, mode=[0, 1]) == 1
    assert la.depth(NESTED) == 2 and la.depth(NESTED, mode=[2]) == 0
    assert la.shape(NESTED, mode=[1]) == (16, 1) and la.stride(NESTED, mode=[1]) == (32, 0)
    # cosize: one past the largest offset, counted here by enumeration.
    sub = la.get(NESTED, mode=[0])
    assert la.cosize(NESTED, mode=[0]) == 1 + max(sub(i) for i in range(sub.size()))
    negative = Layout((4, 3), (-2, 5))
    assert la.cosize(negative) == 1 + max(negative(i) for i in range(12))


def test_queries_on_int_tuples_and_composed_layouts() -> None:
    assert la.size((2, (3, 4))) == 24 and la.size((2, (3, 4)), mode=[1]) == 12
    assert la.rank(7) == 1 and la.depth(7) == 0 and la.depth((1, (2, 3))) == 2
    composed = la.parse("Sw<3,3,3> o 0 o (8,64):(64,1)")
    assert la.size(composed) == 512 and la.size(composed, mode=[1]) == 64 and la.shape(composed) == (8, 64)
    assert la.cosize(composed) == 1 + max(composed(i) for i in range(512))
    with pytest.raises(LayoutError, match="no stride"):
        la.stride(composed)
    with pytest.raises(LayoutError):
        la.size("8:1")


# ----------------------------------------------------------------------------- against CuTe DSL


def dsl_query(cute: Any, layout: Any, name: str, mode: tuple[int, ...]) -> Any:
    """``cute.<name>(layout, mode=[...])`` inside the trace (module level, so the oracle worker can run it)."""
    fn = getattr(cute, name)
    if name in ("shape", "depth"):
        return fn(cute.get(layout, mode=list(mode))) if mode else fn(layout)
    return fn(layout, mode=list(mode))


@pytest.mark.oracle
def test_free_functions_agree_with_cute_dsl() -> None:
    pytest.importorskip("cutlass.cute")
    from oracles.cute_dsl import Batch, Lay

    cases = [(Layout((4, 8), (8, 1)), ()), (NESTED, ()), (NESTED, (0,)), (NESTED, (0, 1)), (NESTED, (1,)),
             (NESTED, (2,)), (Layout(((2, 2), (3, 5)), ((1, 9), (2, 20))), (1, 0)), (Layout(7, 3), ())]
    batch = Batch()
    queued = []
    for layout, mode in cases:
        for name in ("size", "cosize", "rank", "depth", "shape"):
            handle = batch.custom(dsl_query, Lay(layout.shape, layout.stride), name, mode)
            queued.append((handle, layout, name, mode))
    results = batch.run()
    for handle, layout, name, mode in queued:
        theirs = results[handle]
        assert theirs.ok, (name, layout, mode, theirs.error)
        ours = getattr(la, name)(layout, mode=list(mode))
        assert ours == theirs.value, (name, str(layout), mode)

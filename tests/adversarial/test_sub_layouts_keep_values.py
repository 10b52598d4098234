"""Every sub-layout accessor of plain, offset and composed layouts, against evaluation of the original.

Random nested layouts (negative and zero strides included), composed with a
swizzle, a layout or the identity swizzle and a non-zero offset, are sliced,
indexed (``C[i]``, ``C.get``), flattened, grouped and selected; each result is
evaluated at every point of its domain and compared with the original layout
evaluated at the matching coordinate by the plain-Python evaluator below
(``oracles.reference`` plus a bit-by-bit swizzle), never by layoutalg itself.

The rules checked: a composed layout's slice is the same function
(``C(_, 3)(r) == C(r, 3)``, CuTe's rule: issue 13 found ``Sw<3,3,3> o _0 o
(8,64):(64,1)`` sliced at ``(_, 3)`` evaluating to 0, 72, ... instead of
3, 75, ...); a plain layout's slice drops the offset of the fixed modes (CuTe's
``slice``), and ``slice_and_offset`` returns it, so ``o + S(c)`` is the original.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from oracles import reference as ref

import layoutalg as la
from layoutalg import ComposedLayout, Layout, Swizzle

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)


# ---------------------------------------------------------------------------
# the yardstick: evaluation written out again


def ref_swizzle(x: int, sw: Swizzle) -> int:
    """CuTe's swizzle, bit by bit: B bits moved by S positions and XORed in."""
    out = x
    for j in range(sw.bits):
        src, dst = (sw.base + sw.shift + j, sw.base + j) if sw.shift > 0 else (sw.base + j, sw.base - sw.shift + j)
        if (x >> src) & 1:
            out ^= 1 << dst
    return out


def ref_inner(shape: Any, stride: Any, crd: Any) -> int:
    """A layout at a hierarchical coordinate: an int stands for a 1-D index into its whole subtree."""
    if isinstance(crd, tuple):
        return sum(ref_inner(s, d, c) for s, d, c in zip(shape, stride, crd))
    return ref.evaluate(shape, stride, crd)


def ref_eval(x: Layout | ComposedLayout, crd: Any) -> int:
    if isinstance(x, Layout):
        return ref_inner(x.shape, x.stride, crd)
    position = x.offset + ref_inner(x.inner.shape, x.inner.stride, crd)
    if isinstance(x.outer, Swizzle):
        return ref_swizzle(position, x.outer)
    return ref.evaluate(x.outer.shape, x.outer.stride, position)


def domain(shape: Any) -> list[Any]:
    """Every hierarchical coordinate of ``shape``, colexicographic (index order)."""
    if not isinstance(shape, tuple):
        return list(range(shape))
    per_mode = [domain(m) for m in shape]
    return [tuple(reversed(p)) for p in itertools.product(*reversed(per_mode))]


def values_of(x: Any) -> list[int]:
    """The layout under test at every 1-D index, through its own evaluation."""
    return [x(i) for i in range(x.size())]


# ---------------------------------------------------------------------------
# generated layouts and slices


def shapes(depth: int = 2) -> st.SearchStrategy[Any]:
    leaf = st.integers(1, 4)
    if depth == 0:
        return leaf
    return st.one_of(leaf, st.lists(shapes(depth - 1), min_size=1, max_size=3).map(tuple))


MAX_SIZE = 96  # every domain is enumerated point by point


@st.composite
def plain_layouts(draw: st.DrawFn, negative: bool = True) -> Layout:
    shape = draw(st.lists(shapes(), min_size=1, max_size=3).map(tuple).filter(lambda s: ref.size(s) <= MAX_SIZE))
    low = -9 if negative else 0
    stride = _map_leaves(shape, lambda _: draw(st.integers(low, 40)))
    return Layout(shape, stride)


def _map_leaves(t: Any, fn: Any) -> Any:
    return tuple(_map_leaves(e, fn) for e in t) if isinstance(t, tuple) else fn(t)


@st.composite
def any_layouts(draw: st.DrawFn) -> Layout | ComposedLayout:
    """A plain layout, or one composed with a swizzle, a layout or the identity swizzle, at a non-zero offset."""
    kind = draw(st.sampled_from(["plain", "swizzle", "layout", "offset"]))
    if kind == "plain":
        return draw(plain_layouts())
    inner = draw(plain_layouts(negative=kind != "layout"))
    offset = draw(st.integers(0 if kind == "layout" else -20, 40))
    if kind == "layout":
        outer: Any = Layout(draw(st.integers(1, 64)), draw(st.integers(-5, 7)))
    elif kind == "offset":
        outer = Swizzle(0, 0, 0)
        offset = offset or 1
    else:
        bits = draw(st.integers(1, 3))
        outer = Swizzle(bits, draw(st.integers(0, 4)), draw(st.sampled_from([-1, 1])) * draw(st.integers(bits, 5)))
    return ComposedLayout(outer, offset, inner)


def slice_coords(shape: Any) -> st.SearchStrategy[Any]:
    """A coordinate with ``None`` (CuTe's ``_``) in some modes: an int, None or a tuple per mode."""
    whole = st.one_of(st.none(), st.integers(0, ref.size(shape) - 1))
    if not isinstance(shape, tuple):
        return whole
    parts = st.tuples(*[slice_coords(m) for m in shape])
    return st.one_of(whole, parts)


def fill(crd: Any, free: list[Any]) -> Any:
    """``crd`` with its None entries replaced, in order, by the coordinates in ``free`` (consumed)."""
    if crd is None:
        return free.pop(0)
    if isinstance(crd, tuple):
        return tuple(fill(c, free) for c in crd)
    return crd


def kept_shapes(crd: Any, shape: Any) -> list[Any]:
    """The sub-shapes a slice keeps, in order (one per None)."""
    if crd is None:
        return [shape]
    if isinstance(crd, tuple):
        return [k for c, s in zip(crd, shape) for k in kept_shapes(c, s)]
    return []


def zero_free(crd: Any) -> Any:
    return fill(crd, [0] * 64)


# ---------------------------------------------------------------------------
# slicing


@seed(1301)
@SETTINGS
@given(st.data())
def test_a_slice_evaluates_like_the_original(data: st.DataObject) -> None:
    x = data.draw(any_layouts())
    crd = data.draw(slice_coords(x.shape))
    if crd is None or not la.core.layout._has_none(crd):
        return
    kept = kept_shapes(crd, x.shape)
    sliced_shape = kept[0] if len(kept) == 1 else tuple(kept)
    points = domain(sliced_shape)
    truth = [ref_eval(x, fill(crd, list(p) if len(kept) > 1 else [p])) for p in points]

    sub, offset = la.slice_and_offset(x, crd)
    assert [offset + v for v in values_of(sub)] == truth, f"slice_and_offset({x}, {crd}) = ({sub}, {offset})"
    if isinstance(x, ComposedLayout):
        # the function itself: no offset may be lost
        assert values_of(x(crd)) == truth, f"{x}({crd}) = {x(crd)}"
        assert values_of(la.slice_layout(x, crd)) == truth
    else:
        # CuTe's slice of a plain layout drops exactly the offset of the fixed modes
        assert offset == ref_eval(x, zero_free(crd))
        assert [offset + v for v in values_of(x(crd))] == truth
        assert x(crd) == la.slice_layout(x, crd) == sub


def test_the_issue_13_column_keeps_its_offset() -> None:
    sw128 = la.parse("Sw<3,3,3> o _0 o (8,64):(64,1)")
    assert values_of(sw128(None, 3)) == [ref_eval(sw128, (r, 3)) for r in range(8)] == [3 + 72 * r for r in range(8)]
    assert values_of(la.slice_layout(sw128, (None, 3)))[:2] == [3, 75]


# ---------------------------------------------------------------------------
# modes, nested modes, flatten, group, select


@seed(1302)
@SETTINGS
@given(st.data())
def test_modes_and_nested_modes_evaluate_like_the_original(data: st.DataObject) -> None:
    x = data.draw(any_layouts())
    shape = x.shape
    rank = len(shape) if isinstance(shape, tuple) else 1
    i = data.draw(st.integers(-rank, rank - 1))
    mode = x[i]
    for c in domain(mode.shape):
        full = c if not isinstance(shape, tuple) else tuple(c if k == i % rank else 0 for k in range(rank))
        assert mode(c) == ref_eval(x, full), f"{x}[{i}] at {c}"
    path = [i]
    sub_shape = shape[i] if isinstance(shape, tuple) else shape
    while isinstance(sub_shape, tuple) and data.draw(st.booleans()):
        j = data.draw(st.integers(0, len(sub_shape) - 1))
        path.append(j)
        sub_shape = sub_shape[j]
    nested = x.get(*path)
    for c in domain(nested.shape):
        assert nested(c) == ref_eval(x, _place(shape, path, c)), f"{x}.get{tuple(path)} at {c}"


def _place(shape: Any, path: list[int], c: Any) -> Any:
    """The coordinate of ``shape`` that is ``c`` at the nested mode ``path`` and 0 everywhere else."""
    if not path:
        return c
    if not isinstance(shape, tuple):
        return c  # an int-shaped layout's only mode is itself
    k = path[0] % len(shape)
    return tuple(_place(s, path[1:], c) if n == k else 0 for n, s in enumerate(shape))


@seed(1303)
@SETTINGS
@given(any_layouts())
def test_flatten_keeps_every_value(x: Layout | ComposedLayout) -> None:
    truth = [ref_eval(x, i) for i in range(x.size())]
    assert values_of(la.flatten(x)) == truth
    assert values_of(x.flat()) == truth
    flat = la.flatten(x)
    inner = flat.inner if isinstance(flat, ComposedLayout) else flat
    assert not isinstance(inner.shape, tuple) or all(not isinstance(s, tuple) for s in inner.shape)


@seed(1304)
@SETTINGS
@given(st.data())
def test_group_and_select_keep_the_modes_values(data: st.DataObject) -> None:
    x = data.draw(any_layouts())
    if not isinstance(x.shape, tuple):
        return
    rank = len(x.shape)
    begin = data.draw(st.integers(0, rank - 1))
    end = data.draw(st.integers(begin + 1, rank))
    grouped = la.group(x, begin, end)
    for crd in domain(x.shape):
        regrouped = crd[:begin] + (crd[begin:end],) + crd[end:]
        assert grouped(regrouped) == ref_eval(x, crd), f"group({x}, {begin}, {end}) at {regrouped}"
    picks = data.draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    selected = la.select(x, *picks)
    for crd in domain(selected.shape):
        full = tuple(crd[picks.index(k)] if k in picks else 0 for k in range(rank))
        assert selected(crd) == ref_eval(x, full), f"select({x}, {picks}) at {crd}"

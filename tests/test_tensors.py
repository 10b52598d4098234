"""Tensors (an engine and a layout): slicing, tiles, partitions and fragments against direct indexing."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import strategies as ls
from tests.oracles import reference as ref

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


def filled(layout: la.Layout) -> la.Tensor:
    """A tensor whose storage holds its own positions (so a read tells where it landed)."""
    t = la.make_tensor(layout)
    t.engine[:] = np.arange(t.engine.size)
    return t


def coords(shape: Any) -> list[Any]:
    if isinstance(shape, tuple):
        return [tuple(c) for c in itertools.product(*[coords(s) for s in shape])]
    return list(range(shape))


@SETTINGS
@given(ls.layouts(max_size=128, max_depth=1, max_rank=3), st.data())
def test_a_slice_reads_what_the_full_coordinate_reads(a, data):
    t = filled(a)
    if not isinstance(a.shape, tuple):
        return
    fixed = tuple(data.draw(st.one_of(st.none(), st.integers(0, s - 1))) for s in a.shape)
    sub = t[fixed]
    free = [k for k, c in enumerate(fixed) if c is None]
    if not free:
        assert sub == t.engine[la.crd2idx(fixed, a.shape, a.stride)]
        return
    for c in itertools.product(*[range(a.shape[k]) for k in free]):
        full = list(fixed)
        for k, v in zip(free, c):
            full[k] = v
        inner = c if len(c) > 1 else c[0]
        assert sub[inner] == t[tuple(full)] == a(tuple(full))


def test_writes_through_a_slice_land_in_the_shared_storage():
    t = la.make_tensor(la.Layout((4, 4), (4, 1)))
    row = t[1, :]
    row[2] = 42.0
    assert t[1, 2] == 42.0 and t.engine[6] == 42.0
    with pytest.raises(la.CoordinateError):
        t[1, None] = 0.0


@SETTINGS
@given(st.sampled_from([(8, 8), (16, 4), (6, 12)]), st.sampled_from([(2, 2), (4, 2), (2, 4)]), st.data())
def test_local_tile_of_a_tensor_is_the_tile_of_its_elements(shape, tile, data):
    if shape[0] % tile[0] or shape[1] % tile[1]:
        return
    t = filled(la.Layout(shape, (1, shape[0])))
    k = (data.draw(st.integers(0, shape[0] // tile[0] - 1)), data.draw(st.integers(0, shape[1] // tile[1] - 1)))
    sub = la.local_tile(t, tile, k)
    for i, j in itertools.product(range(tile[0]), range(tile[1])):
        assert sub[i, j] == t[k[0] * tile[0] + i, k[1] * tile[1] + j]


def test_identity_tensors_return_their_coordinates_and_tile_by_coordinate():
    ident = la.make_identity_tensor((3, (2, 4)))
    assert all(ident[c] == c for c in coords((3, (2, 4))))
    tile = la.local_tile(la.make_identity_tensor((8, 8)), (4, 4), (1, 0))
    assert tile[3, 2] == (7, 2)
    assert la.make_identity_tensor((3, 4))[1, None][2] == (1, 2)


@SETTINGS
@given(ls.layouts(max_size=256, max_rank=3))
def test_fragment_like_keeps_the_shape_is_compact_and_mode_zero_column_major(a):
    frag = la.make_fragment_like(filled(a))
    layout = frag.layout
    assert layout.shape == a.shape
    offsets = set(ref.values(layout.shape, layout.stride))
    assert offsets == set(range(len(offsets)))  # compact (stride-0 leaves add no offsets)
    if isinstance(a.shape, tuple) and len(a.shape) > 1:
        m0 = layout[0]
        kept = [(s, d) for s, d in zip(ref.flat(m0.shape), ref.flat(m0.stride)) if d != 0]
        running = 1
        for s, d in kept:
            assert d == running
            running *= s
        assert [d == 0 for d in ref.flat(m0.stride)] == [d == 0 for d in ref.flat(a[0].stride)]

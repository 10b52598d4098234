"""PyCuTe's copy algorithms (``copy_ref``, ``copy``), ``Ptr`` and ``local_partition`` on tensors, against brute force."""

from __future__ import annotations

import array
import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import strategies as ls

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


class LoggingEngine:
    """Storage that records every write position."""

    def __init__(self, n: int) -> None:
        self.data = [None] * n
        self.log: list[int] = []

    def __getitem__(self, i: int) -> Any:
        return self.data[i]

    def __setitem__(self, i: int, v: Any) -> None:
        self.log.append(int(i))
        self.data[i] = v


@st.composite
def same_size_pairs(draw: Any) -> tuple[la.Layout, la.Layout]:
    a = draw(ls.layouts(max_size=48, max_rank=3))
    b = draw(ls.layouts(max_size=48, max_rank=3))
    n = a.size()
    b = la.Layout((n, 1), (draw(st.integers(0, 3)), 0)) if b.size() != n else b
    return a, b


@SETTINGS
@given(same_size_pairs())
def test_copy_leaves_the_memory_copy_ref_leaves_or_refuses_exactly_a_write_after_write(pair):
    src_l, dst_l = pair
    n = src_l.size()
    src = la.make_tensor(src_l)
    src.engine[:] = np.arange(src.engine.size) + 100
    ref_dst = la.Tensor(LoggingEngine(dst_l.cosize()), dst_l)
    opt_dst = la.Tensor(LoggingEngine(dst_l.cosize()), dst_l)
    la.copy_ref(src, ref_dst)
    assert ref_dst.engine.log == [dst_l(i) for i in range(n)]  # index order
    sources: dict[int, set[int]] = {}
    for i in range(n):
        sources.setdefault(dst_l(i), set()).add(src_l(i))
    racing = any(len(s) > 1 for s in sources.values())
    if racing:
        with pytest.raises(la.LayoutError, match="write-after-write"):
            la.copy(src, opt_dst)
        return
    la.copy(src, opt_dst)
    assert opt_dst.engine.data == ref_dst.engine.data
    assert opt_dst.engine.log == sorted(sources)  # once per position, ascending
    assert [opt_dst[i] for i in range(n)] == [src[i] for i in range(n)]


def test_copy_refuses_mismatched_sizes_and_non_tensors():
    for fn in (la.copy, la.copy_ref):
        with pytest.raises(la.ShapeError):
            fn(la.make_tensor(la.Layout(4, 1)), la.make_tensor(la.Layout(8, 1)))
        with pytest.raises(la.LayoutError):
            fn(la.Layout(4, 1), la.make_tensor(la.Layout(4, 1)))


def test_a_broadcast_source_fills_a_constant_destination_with_one_write():
    src = la.make_tensor(la.Layout(7, 0))
    src[0] = 42.0
    dst = la.Tensor(LoggingEngine(1), la.Layout(7, 0))
    la.copy(src, dst)
    assert dst.engine.log == [0] and dst[3] == 42.0


def test_ptr_reads_and_writes_its_buffer_with_bounds():
    data = array.array("d", [1.0, 2.0, 3.0, 4.0])
    p = la.Ptr(data)
    t = la.Tensor(p, la.Layout((2, 2), (2, 1)))
    t[1, 0] = 9.0
    assert data[2] == 9.0 and p.dtype == "d" and p.owner is data
    q = p + 3
    assert q[0] == 4.0 and q == p + 3 and q != p + 2
    with pytest.raises(la.CoordinateError):
        q[1]
    grid = np.arange(12, dtype=np.int32).reshape(3, 4)
    g = la.Tensor(la.Ptr(grid), la.Layout((3, 4), (4, 1)))
    assert [g[i, j] for i in range(3) for j in range(4)] == list(range(12))
    with pytest.raises(la.LayoutError):
        la.Ptr(data.buffer_info()[0])  # a bare address has no type or bounds
    with pytest.raises(la.LayoutError):
        la.Ptr("abcd")  # type: ignore[arg-type]


@SETTINGS
@given(st.sampled_from([(8, 8), (12, 4), (6, 6)]), st.sampled_from([((2, 2), (1, 2)), ((2, 2), (2, 1)), ((4, 1), (1, 0))]),
       st.data())
def test_local_partition_gives_each_thread_the_elements_at_its_coordinate_in_every_tile(shape, thr, data):
    thr_layout = la.Layout(*thr)
    if shape[0] % thr_layout.shape[0] or shape[1] % thr_layout.shape[1]:
        return
    t = la.make_tensor(la.Layout(shape, (shape[1], 1)))
    t.engine[:] = np.arange(t.engine.size)
    index = data.draw(st.integers(0, thr_layout.size() - 1))
    c = next(c for c in itertools.product(range(thr_layout.shape[0]), range(thr_layout.shape[1]))
             if thr_layout(c) == index)
    part = la.local_partition(t, thr_layout, index)
    reps = (shape[0] // thr_layout.shape[0], shape[1] // thr_layout.shape[1])
    for p in itertools.product(range(reps[0]), range(reps[1])):
        assert part[p] == t[c[0] + thr_layout.shape[0] * p[0], c[1] + thr_layout.shape[1] * p[1]]

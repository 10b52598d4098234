"""``PagedArray`` (layoutalg/kernel/dataflow/paged.py) against a dense numpy array: the same values after any
sequence of fancy-index writes (repeated indices keep the last value, as numpy's assignment does) and reads,
scalars and rows alike, with pages allocated only where something was written; and the mma check's C state
and global-memory tables built on it use memory for what the kernel touched, not for the matrix's extent."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from dataflow_synth import MmaCase, mma_kernel

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.dataflow.paged import PAGE_BITS, PagedArray
from layoutalg.kernel.ptx import parse_module


@pytest.mark.parametrize("width,spread", [(None, 1 << 14), (None, 1 << 40), (3, 1 << 16), (8, 1 << 33)])
def test_reads_and_writes_match_a_dense_array(width: int | None, spread: int) -> None:
    rng = np.random.default_rng(7)
    paged = PagedArray(-1, width=width)
    dense: dict[int, np.ndarray] = {}
    row = () if width is None else (width,)
    for _ in range(60):
        idx = rng.integers(0, spread, size=int(rng.integers(1, 40)))
        idx = np.concatenate([idx, idx[: int(rng.integers(0, 5))]])  # repeats: the last write wins
        vals = rng.integers(0, 1000, size=(idx.size, *row))
        paged[idx] = vals
        for i, v in zip(idx.tolist(), vals):
            dense[i] = v
        probe = np.concatenate([idx, rng.integers(0, spread, size=20 + idx.size % 2)]).reshape(-1, 2)
        got = paged[probe]
        assert got.shape == (*probe.shape, *row)
        want = np.array([dense.get(i, np.full(row, -1)) for i in probe.reshape(-1).tolist()]).reshape(got.shape)
        assert (got == want).all()
    assert len(paged.pages) == len({i >> PAGE_BITS for i in dense})
    assert int(paged[int(next(iter(dense)))].reshape(-1)[0]) == int(np.asarray(dense[next(iter(dense))]).reshape(-1)[0])


def test_a_negative_index_is_refused() -> None:
    with pytest.raises(IndexError, match="negative index -3"):
        PagedArray(0)[np.array([1, -3])]


def test_a_c_far_from_its_base_costs_memory_for_its_stores_only() -> None:
    # C's layout has a row stride of 2**15 elements: the dense per-unit (5 int64 words) and per-byte (8 words)
    # records of C were sized by its largest offset, 15 * 2**15 + 7 elements, about 190 MB before any store.
    # The synthetic kernel stores C row-major with stride 8, so the check refutes it, reading a few pages.
    t = trace(parse_module(mma_kernel(MmaCase())), block=32)
    tracemalloc.start()
    try:
        r = check_mma(t, a="pA@(16,32):(32,1)", b="pB@(32,8):(8,1)", c="pC@(16,8):(32768,1)")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.verdict == "refuted" and (r.counterexample or {})["kind"] == "store"
    assert peak < 40 * 2**20, peak

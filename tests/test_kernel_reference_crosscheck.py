"""The vectorised tracer against the straightforward per-thread interpreter (tests/kernel_reference.py).

For each kernel, both interpret the same PTX; every warp's sequence of shared-memory accesses
(instruction, active lanes, lane addresses, global sources) must be identical, and so must the
set of instructions found data-dependent.  The counters must equal the scalar bank model
(``layoutalg.banks.wavefronts``, inactive lanes given as None) summed over the reference's records.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kernel_reference import Reference, expand, expand_reference

import layoutalg.banks as banks
from layoutalg.kernel import trace

DATA = Path(__file__).parent / "data" / "kernel_trace"
FEATURES = (DATA / "features.ptx").read_text()
TRANSPOSE = (DATA / "transpose.ptx").read_text()
TRITON_MATMUL = (DATA / "triton_matmul_sm80.ptx").read_text()  # tests/data/kernel_trace/triton_kernels.py.txt
TRITON_SOFTMAX = (DATA / "triton_softmax_sm80.ptx").read_text()
MATMUL_ARGS = {3: 128, 4: 128, 5: 128, 6: 128, 7: 1, 8: 128, 9: 1, 10: 128, 11: 1}

CASES = [
    ("transpose_naive", TRANSPOSE, (2, 2, 1), (32, 8, 1), {2: 64}),
    ("transpose_padded", TRANSPOSE, (2, 1, 1), (32, 8, 1), {2: 64}),
    ("reduce_interleaved", FEATURES, (2, 1, 1), (256, 1, 1), {}),
    ("reduce_sequential", FEATURES, (2, 1, 1), (128, 1, 1), {}),
    ("divergent", FEATURES, (1, 1, 1), (96, 1, 1), {1: 5}),
    ("divergent", FEATURES, (1, 1, 1), (50, 1, 1), {1: 2}),
    ("loop_stride", FEATURES, (1, 1, 1), (64, 1, 1), {1: 300, 2: 48}),
    ("wide_math", FEATURES, (2, 1, 1), (128, 1, 1), {2: 128, 3: 15360}),
    ("wide_math", FEATURES, (1, 1, 1), (128, 1, 1), {2: 128, 3: 0}),
    ("gather", FEATURES, (1, 1, 1), (64, 1, 1), {}),
    ("vectors", FEATURES, (1, 1, 1), (64, 1, 1), {1: 1}),
    ("matrix_ops", FEATURES, (1, 1, 1), (128, 1, 1), {1: 72, 2: 0}),
    ("matrix_ops", FEATURES, (1, 1, 1), (128, 1, 1), {1: 64, 2: 1}),
    ("async_fill", FEATURES, (1, 1, 1), (64, 1, 1), {2: 64, 3: 5}),
    ("matmul_kernel", TRITON_MATMUL, (1, 2, 1), (128, 1, 1), MATMUL_ARGS),
    ("softmax_kernel", TRITON_SOFTMAX, (2, 1, 1), (128, 1, 1), {2: 1000, 3: 1000, 4: 1000}),
]
SMEM = {"matmul_kernel": 8192, "softmax_kernel": 16}


_RUNS: dict[tuple[Any, ...], tuple[Any, Reference]] = {}


def both(kernel: str, ptx: str, grid: Any, block: Any, args: dict[int, int]) -> tuple[Any, Reference]:
    """The library's trace and the reference run of one launch (each computed once per session)."""
    key = (kernel, hash(ptx), grid, block, tuple(sorted(args.items())))
    if key not in _RUNS:
        smem = SMEM.get(kernel, 0)
        _RUNS[key] = (trace(ptx, kernel=kernel, grid=grid, block=block, args=args, dynamic_smem=smem),
                      Reference(ptx, kernel, grid, block, args, smem).run())
    return _RUNS[key]


@pytest.mark.parametrize("kernel,ptx,grid,block,args", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_vectorised_trace_records_exactly_what_the_per_thread_interpreter_does(
        kernel: str, ptx: str, grid: Any, block: Any, args: dict[int, int]) -> None:
    t, ref = both(kernel, ptx, grid, block, args)
    mine, theirs = expand(t), expand_reference(ref)
    assert mine.keys() == theirs.keys()
    for warp in mine:
        assert mine[warp] == theirs[warp], f"warp {warp} differs"
    assert {d.index for d in t.data_dependent} == ref.data_dependent


@pytest.mark.parametrize("kernel,ptx,grid,block,args",
                         [c for c in CASES if c[0] not in ("async_fill", "gather")],
                         ids=[c[0] for c in CASES if c[0] not in ("async_fill", "gather")])
def test_counters_equal_the_scalar_bank_model_over_the_reference_records(
        kernel: str, ptx: str, grid: Any, block: Any, args: dict[int, int]) -> None:
    t, ref = both(kernel, ptx, grid, block, args)
    by_index = {s.index: s for s in t.instructions}
    totals: dict[int, int] = {}
    for r in ref.records:  # inactive lanes are None: the scalar model's own partial-warp rule
        text = by_index[r.index].model_text
        addrs = [a if on else None for a, on in zip(r.smem, r.active)]
        totals[r.index] = totals.get(r.index, 0) + banks.wavefronts(text, addrs)
    assert totals == {i: s.wavefronts for i, s in by_index.items()}

"""Launch geometry of the tracer (``layoutalg.kernel.interp.geometry``): CUDA's grid and block limits (CUDA
Programming Guide, "Technical Specifications per Compute Capability") are inclusive, and the warp count of
the traced CTAs."""

from __future__ import annotations

import re

import numpy as np
import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.geometry import MAX_WHOLE_GRID_THREADS, Geometry, all_ctas, check_ctas, dim3


def test_launch_dimensions_at_cudas_limits_are_accepted_and_one_past_is_refused() -> None:
    assert dim3(1024, "block") == (1024, 1, 1)
    assert dim3((1, 1, 64), "block") == (1, 1, 64)
    assert dim3(((1 << 31) - 1, 65535, 65535), "grid") == ((1 << 31) - 1, 65535, 65535)
    with pytest.raises(KernelError, match="block.x = 1025: CUDA allows at most 1024"):
        dim3(1025, "block")
    with pytest.raises(KernelError, match="grid.y = 65536: CUDA allows at most 65535"):
        dim3((1, 65536), "grid")


def test_the_warp_count_covers_every_traced_cta_with_partial_warps_rounded_up() -> None:
    assert Geometry((4, 1, 1), (64, 1, 1), [(0, 0, 0), (1, 0, 0)]).n_warps == 4
    assert Geometry((4, 1, 1), (33, 1, 1), [(0, 0, 0), (2, 0, 0), (3, 0, 0)]).n_warps == 6


def test_a_block_of_more_than_1024_threads_is_refused_naming_its_thread_count() -> None:
    # CUDA: at most 1024 threads per block, whatever the shape; each axis here is within its own limit
    assert dim3((32, 16, 2), "block") == (32, 16, 2)  # 1024 threads
    with pytest.raises(KernelError, match=r"a CTA of 2048 threads; CUDA allows at most 1024"):
        dim3((32, 32, 2), "block")
    with pytest.raises(KernelError, match=r"a CTA of 1040 threads; CUDA allows at most 1024"):
        dim3((5, 4, 52), "block")


def test_a_launch_built_by_hand_with_more_than_1024_threads_per_cta_is_refused() -> None:
    # a dataflow Launch is a public dataclass: its block does not pass through dim3, so the interpreter's
    # own geometry refuses a CTA CUDA could not launch (2 * 16 * 33 = 1056 threads)
    from layoutalg.kernel.dataflow import Launch, flow
    from layoutalg.kernel.ptx.parser import parse_module

    module = parse_module(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n")
    with pytest.raises(KernelError, match=r"a CTA of 1056 threads; CUDA allows at most 1024"):
        flow(Launch(module, "k", (1, 1, 1), (2, 16, 33), {}, 0, "sm_90", None, 1000))
    with pytest.raises(KernelError, match=r"a CTA of 1056 threads; CUDA allows at most 1024"):
        Geometry((1, 1, 1), (2, 16, 33), [(0, 0, 0)])
    assert flow(Launch(module, "k", (1, 1, 1), (2, 16, 32), {}, 0, "sm_90", None, 1000)).traced_ctas == [(0, 0, 0)]


def test_a_launch_dimension_that_is_not_one_to_three_positive_integers_is_refused_naming_the_argument() -> None:
    for value in [(), (1, 2, 3, 4), [], "8", 8.0, None, (8, 2.0), (8, True)]:
        with pytest.raises(KernelError, match=r"^block must be 1 to 3 positive integers, got "):
            dim3(value, "block")  # type: ignore[arg-type]
    for value in [0, (8, 0), (1, 1, -2), np.int64(-1)]:
        with pytest.raises(KernelError, match=r"^grid must be positive, got "):
            dim3(value, "grid")


def test_a_cta_of_1025_threads_is_refused_by_the_geometry_itself() -> None:
    # 5 * 5 * 41 = 1025: every axis within CUDA's per-axis limit, one thread past the per-block limit
    with pytest.raises(KernelError, match=r"a CTA of 1025 threads; CUDA allows at most 1024"):
        Geometry((1, 1, 1), (5, 5, 41), [(0, 0, 0)])
    assert Geometry((1, 1, 1), (4, 4, 64), [(0, 0, 0)]).n_warps == 32  # 1024 threads


def test_each_traced_thread_sees_cudas_tid_ctaid_laneid_and_warpid_and_padding_slots_never_run() -> None:
    # CUDA Programming Guide, "Thread Hierarchy": thread (x, y, z) of a (Dx, Dy, Dz) block has id
    # x + y*Dx + z*Dx*Dy (x fastest); a warp is 32 consecutive ids, its lane the id modulo 32.
    block = (5, 3, 3)  # 45 threads: one full warp, one of 13 threads (19 padding slots)
    ctas = [(2, 1, 0), (0, 0, 0)]
    g = Geometry((3, 2, 1), block, ctas)
    by_id = [(x, y, z) for z in range(3) for y in range(3) for x in range(5)]
    assert g.n == 2 * 64 and g.n_warps == 4
    valid = np.asarray(g.valid).reshape(2, 64)
    assert valid[:, :45].all() and not valid[:, 45:].any()
    for c, cta in enumerate(ctas):
        for i, xyz in enumerate(by_id):
            t = c * 64 + i  # thread t = traced CTA * slots + linear id
            assert tuple(int(g.tid[k][t]) for k in range(3)) == xyz
            assert tuple(int(g.ctaid[k][t]) for k in range(3)) == cta
            assert (int(g.laneid[t]), int(g.warpid[t])) == (i % 32, i // 32)
    # reshape(-1, 32) gives one row per warp; the global warp id numbers those rows across the traced CTAs
    assert (np.asarray(g.global_warp).reshape(-1, 32) == np.arange(4)[:, None]).all()


def test_a_whole_grid_trace_is_refused_past_its_thread_bound_counting_every_grid_and_block_axis() -> None:
    assert MAX_WHOLE_GRID_THREADS == 1 << 20
    # 64 * 64 * 4 CTAs of 8 * 4 * 2 threads: exactly 2^20 threads, listed x fastest
    assert all_ctas((64, 64, 4), (8, 4, 2)) == [(x, y, z) for z in range(4) for y in range(64) for x in range(64)]
    # one more z-plane of CTAs: 64 * 64 * 5 = 20480 CTAs, 20480 * 64 = 1310720 threads
    with pytest.raises(KernelError, match=re.escape(
            "grid (64, 64, 5) of blocks (8, 4, 2) has 20480 CTAs, 1310720 threads; a whole-grid trace covers at "
            "most 1048576 threads")):
        all_ctas((64, 64, 5), (8, 4, 2))


def test_chosen_ctas_are_one_to_three_integer_coordinates_within_the_grid_each_listed_once() -> None:
    grid = (4, 3, 2)
    assert check_ctas([2, (1, 2), (3, 2, 1), [0, np.int64(1)]], grid) == [(2, 0, 0), (1, 2, 0), (3, 2, 1), (0, 1, 0)]
    for bad in [(), (0, 0, 0, 0), (0, 1.0), (True, 0), (0, False, 0)]:
        with pytest.raises(KernelError, match=r"^a CTA index must be 1 to 3 integers \(x, y, z\), got "):
            check_ctas([bad], grid)  # type: ignore[list-item]
    with pytest.raises(KernelError, match=r"^ctas is empty; give at least one CTA"):
        check_ctas([], grid)
    with pytest.raises(KernelError, match=r"^ctas lists a CTA twice$"):
        check_ctas([(1, 2), (1, 2, 0)], grid)


def test_a_cta_index_that_is_neither_an_integer_nor_a_sequence_is_refused_as_a_kernel_error() -> None:
    # a float or None among the chosen CTAs was a TypeError ('float' object is not iterable), not a refusal
    for bad in [1.5, None, np.float64(1.0), np.array(1)]:
        with pytest.raises(KernelError, match=r"^a CTA index must be 1 to 3 integers \(x, y, z\), got "):
            check_ctas([bad], (4, 1, 1))  # type: ignore[list-item]
    # rows of an integer array are CTA indices
    assert check_ctas(list(np.array([[1, 0], [3, 0]])), (4, 1, 1)) == [(1, 0, 0), (3, 0, 0)]


@pytest.mark.parametrize("whole", [5, np.int64(2), "12", None, 1.5])
def test_ctas_that_is_not_a_list_of_cta_indices_is_refused_as_a_kernel_error(whole: object) -> None:
    with pytest.raises(KernelError, match="ctas must be a list of CTA indices"):
        check_ctas(whole, (4, 1, 1))  # type: ignore[arg-type]
    assert check_ctas(range(2), (4, 1, 1)) == [(0, 0, 0), (1, 0, 0)]  # any iterable of indices is a list
    assert check_ctas((c for c in [3]), (4, 1, 1)) == [(3, 0, 0)]

"""Launch geometry of the tracer (``layoutalg.kernel.interp.geometry``): CUDA's grid and block limits (CUDA
Programming Guide, "Technical Specifications per Compute Capability") are inclusive, and the warp count of
the traced CTAs."""

from __future__ import annotations

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.geometry import Geometry, dim3


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

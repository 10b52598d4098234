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

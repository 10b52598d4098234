"""Shared test configuration: the ``gpu`` marker and a scratch cache for CuTe DSL.

Tests marked ``@pytest.mark.gpu`` run only where CuPy imports and sees a CUDA
device; elsewhere they are skipped with the reason.  Everything else runs.
"""

from __future__ import annotations

import os
import tempfile
from functools import lru_cache

import pytest

_SCRATCH = tempfile.mkdtemp(prefix="layoutalg-tests-")
os.environ.setdefault("CUTE_DSL_CACHE_DIR", os.path.join(_SCRATCH, "cute_dsl_cache"))


@lru_cache(maxsize=1)
def gpu_unavailable_reason() -> str | None:
    """None when a CUDA GPU is usable through CuPy, else why not."""
    try:
        import cupy  # type: ignore[import-not-found]
    except Exception as exc:  # ImportError, or a CUDA library that fails to load
        return f"CuPy is not importable ({type(exc).__name__}: {exc}); install layoutalg[gpu]"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return f"no CUDA device ({type(exc).__name__}: {exc})"
    return None if count > 0 else "no CUDA device"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = None
    for item in items:
        if "gpu" in item.keywords:
            reason = reason or gpu_unavailable_reason()
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"gpu test: {reason}"))

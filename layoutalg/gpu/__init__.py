"""CuPy backend: run the real PTX instructions and compare with layoutalg's models.

Importing ``layoutalg.gpu`` costs nothing: CuPy is imported only when a
function that needs the GPU is called, and a missing CuPy raises an
``ImportError`` that says ``pip install layoutalg[gpu]``.

Modules: ``suite`` (the instruction variants, data), ``codegen`` (CUDA C++ with
inline PTX), ``runner`` (NVRTC compile and launch), ``record`` (raw hardware
recordings), ``replay`` (model predictions against recordings, CPU only),
``fragment_check`` / ``bank_check`` (user-facing checks), ``check`` (the
``layoutalg gpu-check`` suite).
"""

from __future__ import annotations

from typing import Any

INSTALL_HINT = "pip install layoutalg[gpu]"


def require_cupy() -> Any:
    """Return the ``cupy`` module, or raise ImportError naming the install command."""
    try:
        import cupy  # type: ignore[import-not-found]
    except Exception as exc:  # ImportError, or CUDA libraries that fail to load
        raise ImportError(
            f"layoutalg.gpu needs CuPy and a CUDA GPU ({type(exc).__name__}: {exc}); "
            f"install it with `{INSTALL_HINT}` (choose the cupy-cudaXXx wheel matching your CUDA)"
        ) from exc
    return cupy


def gpu_available() -> str | None:
    """None when CuPy imports and sees a CUDA device, else the reason why not."""
    try:
        cp = require_cupy()
        if cp.cuda.runtime.getDeviceCount() < 1:
            return "no CUDA device"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


__all__ = ["INSTALL_HINT", "require_cupy", "gpu_available"]

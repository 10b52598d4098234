"""Compile generated CUDA with CuPy (NVRTC ``RawModule``), launch, read back.

Kernels are one warp per block; ``launch`` takes numpy arrays, copies them to
the device, runs ``grid`` blocks and returns the output arrays as numpy.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

from layoutalg.gpu import require_cupy
from layoutalg.gpu.codegen import PRELUDE


def arch_option() -> str:
    """``--gpu-architecture=sm_XY`` (``sm_90a`` on Hopper) for the current device."""
    cp = require_cupy()
    dev = cp.cuda.Device()
    major, minor = dev.compute_capability[0], dev.compute_capability[1:]
    suffix = "a" if (major, minor) == ("9", "0") else ""
    return f"--gpu-architecture=sm_{major}{minor}{suffix}"


@lru_cache(maxsize=32)
def _module(source: str, options: tuple[str, ...]) -> Any:
    cp = require_cupy()
    return cp.RawModule(code=source, options=options)


def compile_kernels(kernels: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Compile ``(name, source)`` pairs into one module; return ``name -> RawKernel``."""
    source = PRELUDE + "\n".join(src for _, src in kernels)
    module = _module(source, ("--std=c++17", arch_option()))
    return {name: module.get_function(name) for name, _ in kernels}


def launch(kernel: Any, grid: int, args: Sequence[Any], outputs: Sequence[int], smem: int = 0,
           threads: int = 32) -> list[Any]:
    """Run ``kernel`` on ``grid`` blocks of ``threads`` threads (one warp unless said).

    ``args`` are numpy arrays (copied to the device) or Python ints (passed as
    ``int32``); ``outputs`` are the positions in ``args`` whose arrays are read
    back after the launch.
    """
    cp = require_cupy()
    import numpy as np

    dev_args: list[Any] = []
    for a in args:
        if isinstance(a, np.ndarray):
            dev_args.append(cp.asarray(np.ascontiguousarray(a)))
        else:
            dev_args.append(np.int32(a))
    if smem > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = smem
    kernel((grid,), (threads,), tuple(dev_args), shared_mem=smem)
    cp.cuda.Device().synchronize()
    return [cp.asnumpy(dev_args[i]) for i in outputs]


def device_info() -> dict[str, Any]:
    """Name, compute capability, driver and runtime versions of the current device."""
    cp = require_cupy()
    import subprocess

    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    info: dict[str, Any] = {
        "name": name,
        "compute_capability": f"{props['major']}.{props['minor']}",
        "cuda_driver_version": cp.cuda.runtime.driverGetVersion(),
        "cuda_runtime_version": cp.cuda.runtime.runtimeGetVersion(),
        "cupy_version": cp.__version__,
        "multiprocessors": props["multiProcessorCount"],
    }
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        info["driver"] = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        info["driver"] = None
    return info

"""Trace a kernel's PTX and predict every shared-memory wavefront Nsight Compute counts.

* :func:`trace` -- one launch of a kernel (PTX text, a .ptx or .cu file) -> :class:`Trace`;
* :func:`from_triton` -- the PTX of a compiled Triton kernel;
* the layer's parts: :mod:`.ptx` (parser), :mod:`.interp` (SIMT interpreter), :mod:`.costing`
  (bank model), :mod:`.counters` (Nsight counter mapping), :mod:`.report`.
"""

from layoutalg.errors import KernelError
from layoutalg.kernel.result import InstructionStats, Trace
from layoutalg.kernel.source import from_triton
from layoutalg.kernel.trace import trace

__all__ = ["trace", "from_triton", "Trace", "InstructionStats", "KernelError"]

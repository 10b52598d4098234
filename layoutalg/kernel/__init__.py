"""Trace a kernel's PTX and predict every shared-memory wavefront Nsight Compute counts.

* :func:`trace` -- one launch of a kernel (PTX text, a .ptx or .cu file) -> :class:`Trace`;
* :func:`from_triton` -- the PTX of a compiled Triton kernel;
* :func:`check_mma` -- prove that every mma of the traced launch receives its PTX fragments (or the same
  elements with one order of k, the same in A and B) and C its results (:mod:`.dataflow`), with the
  shared-memory layouts each instruction applies; :func:`check_mma_fragments` -- the same with the fragments
  held to their PTX positions;
* the layer's parts: :mod:`.ptx` (parser), :mod:`.interp` (SIMT interpreter), :mod:`.costing`
  (bank model), :mod:`.counters` (Nsight counter mapping), :mod:`.report`.
"""

from layoutalg.errors import KernelError
from layoutalg.kernel.dataflow import MmaCheckResult, check_mma, check_mma_fragments
from layoutalg.kernel.result import InstructionStats, Trace
from layoutalg.kernel.source import from_triton
from layoutalg.kernel.trace import trace

__all__ = ["trace", "from_triton", "check_mma", "check_mma_fragments", "MmaCheckResult", "Trace", "InstructionStats", "KernelError"]

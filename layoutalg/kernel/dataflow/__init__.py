"""Data flow through a traced kernel: tags on every 16-bit unit, races, and the mma check.

* :func:`flow` interprets a launch with tags (:mod:`.tags` says what a tag holds);
* :func:`check_mma` proves or refutes that every mma receives its PTX fragments (or the same elements with
  one order of k, the same in A and B) and C its results; :func:`check_mma_fragments` holds the fragments to
  their PTX positions;
* :func:`recover` (via ``MmaCheckResult.layouts()``) says which layout each shared-memory
  instruction applies, in CuTe's notation.
"""

from layoutalg.kernel.dataflow.check import MmaCheckResult, check_mma, check_mma_fragments
from layoutalg.kernel.dataflow.flow import FlowResult, Launch, flow, launch_of

__all__ = ["check_mma", "check_mma_fragments", "MmaCheckResult", "flow", "FlowResult", "Launch", "launch_of"]

"""Data flow through a traced kernel: tags on every 16-bit unit, races, and the mma check.

* :func:`flow` interprets a launch with tags (:mod:`.tags` says what a tag holds);
* :func:`check_mma` proves or refutes that every mma receives its PTX fragments and C its results;
* :func:`recover` (via ``MmaCheckResult.layouts()``) says which layout each shared-memory
  instruction applies, in CuTe's notation.
"""

from layoutalg.kernel.dataflow.check import MmaCheckResult, check_mma
from layoutalg.kernel.dataflow.flow import FlowResult, Launch, flow, launch_of

__all__ = ["check_mma", "MmaCheckResult", "flow", "FlowResult", "Launch", "launch_of"]

"""Rules of the barriers (:mod:`.ordering` has the model).

``bar.sync``/``barrier.sync``/``bar.red``: the executing warps arrive; when the machine runs
converged and unguarded (``mask`` None) every live thread arrives at once and the barrier completes
here, otherwise the machine's release (``FlowMachine._arrive``) completes it.  ``bar.arrive`` only
arrives.  ``bar.warp.sync`` orders nothing the model does not already order.
"""

from __future__ import annotations

from typing import Any

from layoutalg.kernel.dataflow.rules import Rule, rule
from layoutalg.kernel.interp.decode import Context, Op
from layoutalg.kernel.ptx.nodes import Instruction


@rule("bar", "barrier")
def bar_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    if op.kind != "bar":
        return None  # bar.warp.sync
    parts = set(ins.parts)
    if "cluster" in parts:
        def cluster(m: Any, mask: Any) -> None:
            m.flow.sync_unmodelled.setdefault(op.index, ins.opcode)
        return cluster
    arrive_only = op.barrier_mode == "arrive"

    def run(m: Any, mask: Any) -> None:
        f = m.flow
        f.barrier_arrive(m, op, f.lanes(m, mask), complete=mask is None and not arrive_only)
        for d in op.dests:
            f.regs.put(d, None, mask)
    return run

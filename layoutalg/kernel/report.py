"""The text report of a :class:`~layoutalg.kernel.result.Trace`."""

from __future__ import annotations

from typing import Any

from layoutalg.kernel.counters import ISSUE_COUNTERS


def render(trace: Any, top: int | None = None) -> str:
    from layoutalg.kernel.source import demangle

    name = demangle([trace.kernel])[trace.kernel]
    if len(name) > 120:
        name = name[:117] + "..."
    lines = [f"kernel {name}  grid {trace.grid}  block {trace.block}"
             + ("" if trace.ctas is None else f"  (traced CTAs: {len(trace.ctas)})")]
    lines.append(f"shared memory: {trace.shared_bytes} bytes; {trace.steps} steps traced")
    lines.append("")
    header = f"{'line':>6}  {'source':<28} {'instruction':<44} {'warps':>8} {'wavefronts':>11} {'ideal':>9} {'excess':>9}"
    lines.append(header)
    rows = list(trace.instructions)
    if top is not None:
        rows = sorted(rows, key=lambda s: -s.excess)[:top]
    for s in rows:
        src = str(s.site).rsplit("/", 1)[-1] if s.site else "-"
        what = s.opcode if not s.part else f"{s.opcode.split('.')[0]}.{s.opcode.split('.')[1]} [{s.part}]"
        lines.append(f"{s.line:>6}  {src[:28]:<28} {what[:44]:<44} {s.executions:>8} {s.wavefronts:>11} "
                     f"{s.ideal:>9} {s.excess:>9}")
        ex = s.as_dict()["example"]
        if ex and "bank" in ex:
            words = "; ".join(f"byte {w['byte']} <- lanes {w['lanes']}" for w in ex["words"][:4])
            lines.append(f"{'':8}worst warp {s.worst_warp}: phase {ex['phase']}, bank {ex['bank']} "
                         f"{ex['ways']}-way: {words}")
        if s.suggestion:
            lines.append(f"{'':8}suggestion: {s.suggestion}")
        for reason, count in s.unmodelled.items():
            lines.append(f"{'':8}UNMODELLED ({count} warp executions): {reason}")
        if s.data_dependent:
            lines.append(f"{'':8}DATA-DEPENDENT cost ({s.data_dependent} warp executions, counted, not costed)")
    lines.append("")
    incomplete = trace.incomplete_counters
    lines.append("counters (whole launch" + (")" if trace.ctas is None else ", traced CTAs only)")
                 + ("; * = incomplete, see below" if incomplete else ""))
    for name, value in trace.counters.items():
        if name in ISSUE_COUNTERS or value or name in incomplete:
            lines.append(f"  {name:<78} {value:>12}{' *' if name in incomplete else ''}")
    if incomplete:
        lines.append("")
        lines.append("incomplete counters (the others are exact):")
        for name, why in incomplete.items():
            lines.append(f"  {name}: {'; '.join(why[:3])}{f' (+{len(why) - 3} more)' if len(why) > 3 else ''}")
    if trace.unmodelled:
        lines.append("")
        lines.append("unmodelled (not in the wavefront counters):")
        for u in trace.unmodelled:
            lines.append(f"  line {u['line']} {u['opcode']}: {u['reason']} ({u['warp_executions']} warp executions)")
    if trace.data_dependent:
        lines.append("")
        lines.append("data-dependent (not traced):")
        for d in trace.data_dependent:
            lines.append(f"  line {d.line} {d.opcode}: {d.reason} ({d.count} warp executions, {d.lanes} lanes)")
    if trace.not_lsu:
        lines.append("")
        lines.append("not through the LSU shared-memory pipe (not counted):")
        for d in trace.not_lsu:
            lines.append(f"  line {d.line} {d.opcode}: {d.reason} ({d.count} warp executions)")
    if trace.removed:
        lines.append("")
        lines.append("removed by ptxas (nothing reads the result: no SASS instruction, not counted):")
        for d in trace.removed:
            lines.append(f"  line {d.line} {d.opcode} ({d.count} warp executions)")
    for note in trace.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)

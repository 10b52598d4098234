"""``layoutalg kernel FILE ... --check-mma 'A=PARAM@LAYOUT' --check-mma 'B=...' --check-mma 'C=...'``.

After the trace, checks the launch's mma data flow (:func:`layoutalg.kernel.dataflow.check_mma`) and
prints the verdict, the counterexample and the shared-memory layouts each instruction applies;
``--json`` adds ``mma_check: {verdict, counterexample, reason, claim, layouts}``.  Exit status: 0 proved,
1 refuted, 3 unknown, 2 bad input.
"""

from __future__ import annotations

from typing import Any

from layoutalg.cli.common import EXIT_FAILED, EXIT_OK, UsageError
from layoutalg.core.validate import describe

EXIT_UNKNOWN = 3
EXAMPLE = "--check-mma 'A=0@(128,64):(64,1)' --check-mma 'B=1@(64,128):(128,1)' --check-mma 'C=2@(128,128):(128,1)'"


def parse_check_mma(items: list[str]) -> dict[str, str]:
    """``['A=...', 'B=...', 'C=...']`` -> {'A': 'PARAM@LAYOUT', ...}; UsageError unless each of A, B, C once."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--check-mma {describe(item)} is not MATRIX=PARAM@LAYOUT", f"e.g. {EXAMPLE}")
        role, spec = item.split("=", 1)
        role = role.strip().upper()
        if role not in ("A", "B", "C"):
            raise UsageError(f"--check-mma {describe(item)}: the matrix must be A, B or C", f"e.g. {EXAMPLE}")
        if role in out:
            raise UsageError(f"--check-mma gives {role} twice", f"e.g. {EXAMPLE}")
        if "@" not in spec:
            raise UsageError(f"--check-mma {describe(item)}: expected {role}=PARAM@LAYOUT (PARAM: the parameter's PTX name "
                             "or 0-based index)", f"e.g. {EXAMPLE}")
        out[role] = spec.strip()
    missing = [r for r in "ABC" if r not in out]
    if missing:
        raise UsageError(f"--check-mma needs A, B and C; missing {', '.join(missing)}", f"e.g. {EXAMPLE}")
    from layoutalg.errors import LayoutError
    from layoutalg.kernel.dataflow.specs import parse_spec

    for role, spec in out.items():
        try:
            parse_spec(role, spec)
        except LayoutError as exc:
            raise UsageError(f"--check-mma {role}={spec}: {exc}", f"LAYOUT is CuTe notation, e.g. {EXAMPLE}") from exc
    return out


def run_check(result: Any, items: list[str], exact_fragments: bool = False) -> tuple[Any, list[Any]]:
    """(MmaCheckResult, recovered layouts) of a Trace; UsageError on bad matrices or layouts.
    ``exact_fragments``: :func:`~layoutalg.kernel.dataflow.check_mma_fragments` instead of ``check_mma``."""
    from layoutalg.errors import LayoutError
    from layoutalg.kernel.dataflow import check_mma, check_mma_fragments

    specs = parse_check_mma(items)
    try:
        check = (check_mma_fragments if exact_fragments else check_mma)(result, a=specs["A"], b=specs["B"],
                                                                        c=specs["C"])
    except LayoutError as exc:
        raise UsageError(f"--check-mma: {exc}", f"give each matrix as MATRIX=PARAM@LAYOUT, e.g. {EXAMPLE}") from exc
    try:
        layouts = check.layouts()
    except LayoutError:
        layouts = []
    return check, layouts


def exit_code(verdict: str) -> int:
    return {"proved": EXIT_OK, "refuted": EXIT_FAILED}.get(verdict, EXIT_UNKNOWN)


def as_dict(check: Any, layouts: list[Any]) -> dict[str, Any]:
    d = check.as_dict()
    d["layouts"] = [x.as_dict() for x in layouts]
    return d


def text(check: Any, layouts: list[Any]) -> str:
    lines = [check.report()]
    if layouts:
        lines.append("shared-memory layouts (recovered from the traced accesses of CTA 0):")
        lines.extend("  " + x.describe() for x in layouts)
    return "\n".join(lines)

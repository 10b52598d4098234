"""``ProofResult``: what every claim returns.

``status`` is ``"proved"`` (z3 unsat of the negation, a GF(2) rank/span
argument, or enumeration of the whole domain), ``"refuted"`` (with a
``counterexample`` that was re-checked by plain evaluation) or ``"unknown"``
(a solver timeout or no engine able to decide).  ``counterexample`` maps names
in the kernel's terms (the domain variables such as ``lane``, ``reg``,
``k_tile``; a second point's variables primed, ``lane'``; then the values of
the compared functions, such as ``ldmatrix.row`` or ``smem_offset``) to ints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError

STATUSES = ("proved", "refuted", "unknown")


@dataclass(frozen=True)
class ProofResult:
    status: str
    counterexample: dict[str, int] | None
    seconds: float
    method: str
    claim: str
    explanation: str = ""
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not isinstance(self.status, str) or self.status not in STATUSES:
            raise ProofError(f"status must be one of {STATUSES}, got {describe(self.status)}")

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    @property
    def refuted(self) -> bool:
        return self.status == "refuted"

    def __bool__(self) -> bool:
        """True only when proved (so ``assert equivalent(...)`` reads naturally)."""
        return self.status == "proved"

    def counterexample_text(self) -> str:
        if not self.counterexample:
            return ""
        return ", ".join(f"{k}={v}" for k, v in self.counterexample.items())

    def render(self) -> str:
        """A readable paragraph: the claim, the verdict and, when refuted, where it fails."""
        head = f"{self.status}: {self.claim}  [{self.method}, {self.seconds:.3f}s]"
        lines = [head]
        if self.explanation:
            lines.append("  " + self.explanation)
        elif self.counterexample:
            lines.append("  counterexample: " + self.counterexample_text())
        lines.extend("  note: " + n for n in self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "counterexample": self.counterexample,
            "seconds": self.seconds,
            "method": self.method,
            "claim": self.claim,
            "explanation": self.explanation,
        }


def combine(results: Iterable[ProofResult], claim: str | None = None) -> ProofResult:
    """All of several results: proved iff all are; otherwise the first refuted one (else the first unknown)."""
    if isinstance(results, ProofResult) or not hasattr(results, "__iter__"):
        raise ProofError(f"combine takes an iterable of ProofResults, got {describe(results)}")
    rs = list(results)
    if not rs:
        raise ProofError("combine() needs at least one result")
    for r in rs:
        if not isinstance(r, ProofResult):
            raise ProofError(f"combine takes ProofResults, got {describe(r)}")
    if claim is not None and not isinstance(claim, str):
        raise ProofError(f"combine: claim must be a str, got {describe(claim)}")
    seconds = sum(r.seconds for r in rs)
    methods = "+".join(dict.fromkeys(r.method for r in rs))
    text = claim or " and ".join(r.claim for r in rs)
    for wanted in ("refuted", "unknown"):
        for r in rs:
            if r.status == wanted:
                return ProofResult(wanted, r.counterexample, seconds, r.method, text, r.explanation or f"(undecided part: {r.claim})", r.notes)
    notes = tuple(n for r in rs for n in r.notes)
    return ProofResult("proved", None, seconds, methods, text, "", notes)


__all__ = ["ProofResult", "combine", "STATUSES"]

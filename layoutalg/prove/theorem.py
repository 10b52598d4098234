"""``@theorem(expect=...)``: mark a function in a theorem file as a statement to prove.

A theorem is a function without arguments that returns a :class:`ProofResult`
(or a list/tuple of them, combined: proved iff all are).  ``expect`` is
``"proved"`` (the default) or ``"refuted"`` -- a refuted theorem documents a
scheme that does *not* work, and its counterexample is part of the output::

    @theorem(expect="refuted")
    def ldmatrix_without_trans_is_not_the_b_fragment():
        "Kernel pattern: loading B (K x N row-major) with ldmatrix.x2 (no .trans)."
        return equivalent(ldmatrix_b_no_trans, mma_b_fragment, domain={"lane": 32, "reg": 2, "half": 2})

:func:`run_theorem` runs one under the given settings, catching its errors
(an exception is the outcome ``"error"``, which never matches an expectation).
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove import config
from layoutalg.prove.result import ProofResult, combine

EXPECTATIONS = ("proved", "refuted")
MARK = "__layoutalg_theorem__"


@dataclass(frozen=True)
class Theorem:
    fn: Callable[[], Any]
    expect: str
    name: str
    doc: str
    timeout: float | None = None


def theorem(fn: Callable[[], Any] | None = None, *, expect: str = "proved", name: str | None = None, timeout: float | None = None) -> Any:
    """Decorator: ``@theorem``, ``@theorem(expect="refuted")``, ``@theorem(name=..., timeout=...)``."""
    if expect not in EXPECTATIONS:
        raise ProofError(f"theorem expect must be one of {EXPECTATIONS}, got {describe(expect)}")

    def mark(f: Callable[[], Any]) -> Callable[[], Any]:
        if not callable(f):
            raise ProofError(f"@theorem decorates a function, got {describe(f)}")
        doc = (f.__doc__ or "").strip()
        setattr(f, MARK, Theorem(f, expect, name or f.__name__, doc, timeout))
        return f

    return mark(fn) if fn is not None else mark


def theorem_of(obj: Any) -> Theorem | None:
    t = getattr(obj, MARK, None)
    return t if isinstance(t, Theorem) else None


@dataclass(frozen=True)
class Outcome:
    """One theorem's run: its result (None on error) and whether it met its expectation."""

    theorem: Theorem
    status: str  # proved | refuted | unknown | error
    seconds: float
    result: ProofResult | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == self.theorem.expect


def _as_result(value: Any, name: str) -> ProofResult:
    if isinstance(value, ProofResult):
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, ProofResult) for v in value):
        return combine(value)
    raise ProofError(f"theorem {name} must return a ProofResult (or a list of them), got {describe(value)}")


def run_theorem(t: Theorem, timeout: float | None = None, cross_check: bool | None = None) -> Outcome:
    tmo = t.timeout if t.timeout is not None else timeout
    start = time.perf_counter()
    try:
        with config.settings(timeout=tmo, cross_check=cross_check):
            result = _as_result(t.fn(), t.name)
    except Exception as exc:  # a theorem file's bug is reported, not raised
        tb = traceback.format_exc(limit=-3)
        return Outcome(t, "error", time.perf_counter() - start, None, f"{type(exc).__name__}: {exc}\n{tb}")
    return Outcome(t, result.status, time.perf_counter() - start, result)


__all__ = ["theorem", "Theorem", "theorem_of", "run_theorem", "Outcome", "EXPECTATIONS"]

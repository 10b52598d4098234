"""Time limits: one deadline bounds a whole claim, every engine in it and every engine it falls back to.

A claim's ``timeout=`` (or ``settings(timeout=...)``) opens a :func:`limit`: an absolute deadline
``now + timeout`` held in a context variable.  Limits nest by taking the earlier deadline, so a claim made
of several problems (``bijective_onto``, a bank proof), a cross-check, a fallback from z3 to enumeration
and the search for a readable counterexample all share the first caller's budget.  Engines read it:
z3 gets the time left as its ``timeout`` parameter, enumeration checks it between blocks of points
(:meth:`Deadline.check` raises :class:`DeadlineExceededError`, which the dispatcher reports as "unknown").

``timeout`` is a positive number of seconds; ``float('inf')`` means no limit.  Zero, a negative number,
NaN, a bool or a non-number is a :class:`~layoutalg.errors.ProofError`.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import time
from dataclasses import dataclass
from typing import Any, Iterator

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError

Z3_MAX_MS = (1 << 32) - 1  # z3's timeout parameter is an unsigned 32-bit count of milliseconds


class DeadlineExceededError(Exception):
    """The deadline passed while an engine was working (the message says how far it got)."""


def validate_timeout(value: Any, what: str = "timeout") -> float:
    """``value`` as seconds (``inf`` allowed), or :class:`ProofError` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ProofError(f"{what} must be a positive number of seconds (or float('inf') for no limit), got {describe(value)}")
    try:
        seconds = float(value)
    except OverflowError:  # an int past a float's range: as good as no limit, or a negative one
        seconds = math.inf if value > 0 else -math.inf  # type: ignore[operator]  # numbers.Real lacks __gt__
    if math.isnan(seconds) or seconds <= 0:
        raise ProofError(f"{what} must be a positive number of seconds (or float('inf') for no limit), got {describe(value)}")
    return seconds


@dataclass(frozen=True)
class Deadline:
    """An absolute deadline on :func:`time.monotonic` (``math.inf``: none)."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> "Deadline":
        return cls(time.monotonic() + seconds)

    @property
    def unlimited(self) -> bool:
        return math.isinf(self.at)

    def left(self) -> float:
        """Seconds left (``inf`` when unlimited, never negative)."""
        return math.inf if self.unlimited else max(0.0, self.at - time.monotonic())

    def expired(self) -> bool:
        return not self.unlimited and time.monotonic() >= self.at

    def check(self, progress: str = "") -> None:
        """Raise :class:`DeadlineExceededError` (with ``progress`` in the message) once the deadline has passed."""
        if self.expired():
            raise DeadlineExceededError("stopped at the time limit" + (f" ({progress})" if progress else ""))

    def share(self, fraction: float) -> "Deadline":
        """A deadline ``fraction`` of the way from now to this one (unlimited stays unlimited)."""
        if self.unlimited:
            return self
        return Deadline(time.monotonic() + fraction * self.left())

    def z3_ms(self) -> int | None:
        """The time left as z3's ``timeout`` in milliseconds (at least 1), or None for no limit."""
        left = self.left()
        if math.isinf(left) or left * 1000 >= Z3_MAX_MS:
            return None
        return max(1, int(left * 1000))


UNLIMITED = Deadline(math.inf)
_current: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("layoutalg_prove_deadline", default=None)


def current() -> Deadline:
    """The innermost active deadline (unlimited when no :func:`limit` is open)."""
    return _current.get() or UNLIMITED


@contextlib.contextmanager
def limit(timeout: Any, what: str = "timeout") -> Iterator[Deadline]:
    """Run a block under ``timeout`` seconds, or less if an enclosing limit ends sooner."""
    seconds = validate_timeout(timeout, what)
    mine = UNLIMITED if math.isinf(seconds) else Deadline.after(seconds)
    outer = _current.get()
    chosen = mine if outer is None or mine.at < outer.at else outer
    token = _current.set(chosen)
    try:
        yield chosen
    finally:
        _current.reset(token)


__all__ = ["Deadline", "DeadlineExceededError", "UNLIMITED", "current", "limit", "validate_timeout"]

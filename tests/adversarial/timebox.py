"""A CPU-time box for adversarial tests: a call that runs past its budget is stopped and reported, not waited on.

``within(seconds, fn)`` runs ``fn()`` under ``ITIMER_PROF`` (this process's CPU time, so a loaded machine does not
trip it) and returns ``(result, cpu_seconds)``; past the budget the profiling signal raises :class:`OverBudgetError`
inside ``fn`` -- Python code and the ``re`` engine both check for signals, so a runaway backtrack or loop stops.
POSIX only, main thread only (where pytest runs tests).
"""

from __future__ import annotations

import signal
import time
from typing import Any, Callable


class OverBudgetError(Exception):
    """``fn`` used more CPU time than its budget."""


def _raise(signum: int, frame: Any) -> None:
    raise OverBudgetError


def within(seconds: float, fn: Callable[[], Any]) -> tuple[Any, float]:
    """``(fn(), cpu seconds)``; raises :class:`OverBudgetError` when ``fn`` uses more than ``seconds`` of CPU time."""
    previous = signal.signal(signal.SIGPROF, _raise)
    start = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        result = fn()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    return result, time.process_time() - start

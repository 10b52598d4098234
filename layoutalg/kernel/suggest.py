"""Fix suggestions for the worst instructions of a trace (filled in where cheaply derivable)."""

from __future__ import annotations

from typing import Any


def annotate_suggestions(trace: Any) -> None:
    """Attach a suggestion to instructions with excess wavefronts where one is cheaply derivable."""
    return None

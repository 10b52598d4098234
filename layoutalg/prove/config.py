"""Prover settings that a runner or a test can change for a block of code.

``timeout`` (seconds for each claim, every engine and fallback in it; ``float('inf')``
for no limit; see :mod:`layoutalg.prove.budget`), ``cross_check`` (run a second
engine on every claim and raise if they disagree; also switched on by the
environment variable ``LAYOUTALG_CROSS_CHECK=1``), ``auto_enum_limit`` (the
largest domain the automatic choice enumerates rather than handing to z3),
``z3_encoding`` (``"auto"``, ``"int"``, ``"bv"``: which exact z3 encoding to use;
the tests use it to check both encodings against brute force).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from dataclasses import dataclass, replace
from typing import Any, Iterator


@dataclass(frozen=True)
class Settings:
    timeout: float = 10.0
    cross_check: bool = os.environ.get("LAYOUTALG_CROSS_CHECK", "") not in ("", "0")
    auto_enum_limit: int = 1 << 16
    enum_limit: int = 1 << 22
    z3_encoding: str = "auto"  # "auto" (integers when exact, else bit-vectors), "int" or "bv"


_DEFAULT = Settings()
_current: contextvars.ContextVar[Settings | None] = contextvars.ContextVar("layoutalg_prove_settings", default=None)


def current() -> Settings:
    return _current.get() or _DEFAULT


@contextlib.contextmanager
def settings(**changes: Any) -> Iterator[Settings]:
    """``with settings(timeout=2, cross_check=True): ...``"""
    new = replace(current(), **{k: v for k, v in changes.items() if v is not None})
    token = _current.set(new)
    try:
        yield new
    finally:
        _current.reset(token)


__all__ = ["Settings", "current", "settings"]

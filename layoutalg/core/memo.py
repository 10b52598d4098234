"""Memos for the algebra's pure functions of layouts and ints (results are immutable, so they can be shared).

``memoized(fn)`` remembers ``fn(*args)`` when every argument is a :class:`Layout` (exactly that
type), a plain ``int``, ``None`` or a tuple of those; anything else (a list, a bool, a numpy
integer, a tuple holding one) skips the memo and goes to ``fn``, which validates it as usual, so bad input still raises the
LayoutError it always did and ``True`` never hits the entry of ``1``.  Exceptions are not
remembered.  Each memo is bounded (cleared when it reaches :data:`LIMIT` entries);
:func:`clear_all` empties every memo (benchmarks time cold calls with it).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from layoutalg.core.layout import Layout

LIMIT = 4096
_MEMOS: list[dict[Any, Any]] = []
F = TypeVar("F", bound=Callable[..., Any])


def _plain(t: tuple[Any, ...], depth: int) -> bool:
    """A (nested) tuple of Layouts, plain ints and Nones: hashable, and equal only to the same values."""
    if depth > 8:
        return False
    for e in t:
        k = type(e)
        if k is not Layout and k is not int and e is not None and not (k is tuple and _plain(e, depth + 1)):
            return False
    return True


def memoized(fn: F) -> F:
    """``fn`` with a bounded memo on plain arguments (see the module docstring)."""
    cache: dict[Any, Any] = {}
    _MEMOS.append(cache)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if kwargs:  # keyword calls are not memoised
            return fn(*args, **kwargs)
        for a in args:
            t = type(a)
            if t is not Layout and t is not int and a is not None and not (t is tuple and _plain(a, 0)):
                return fn(*args)
        hit = cache.get(args)
        if hit is not None:
            return hit
        result = fn(*args)
        if len(cache) >= LIMIT:
            cache.clear()
        cache[args] = result
        return result

    wrapper.cache_clear = cache.clear  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def clear_all() -> None:
    """Empty every memo."""
    for cache in _MEMOS:
        cache.clear()


__all__ = ["LIMIT", "clear_all", "memoized"]

"""Checks on arguments at the public entry points: integers (numpy integers included), int tuples, and
descriptions of bad input that are safe to put in a message.

Every entry point turns its arguments into plain Python values here, so the
algebra behind it sees only ``int`` leaves in ``tuple`` trees and never raises
``TypeError``/``ValueError`` from inside.  Limits, each refused with a
:class:`~layoutalg.errors.LayoutError` naming the argument:

* an integer's magnitude is below ``2**MAX_INT_BITS`` (4096 bits, about 1233
  digits): products and sums of a few such values stay printable (Python
  refuses to print integers of more than 4300 digits) and cheap;
* an int tuple is nested at most :data:`MAX_DEPTH` levels (no recursion can
  overflow the stack) and holds at most :data:`MAX_NODES` tuples, counting a tuple
  each time it appears (a tuple built by pairing one object with itself, ``x = (x, x)``
  sixty times, is sixty objects but 2**60 leaves: no walk over it would end);
  :func:`check_depth` probes both without recursing, so the recursive helpers call
  it before they descend into an argument;
* ``bool`` and floats are not integers; a numpy array is not an int tuple
  (``tuple(a.tolist())`` is).
"""

from __future__ import annotations

import operator
from typing import Any, Iterator

from layoutalg.errors import LayoutError, ShapeError

#: The largest magnitude an integer argument may have, in bits.
MAX_INT_BITS = 4096
#: Deepest nesting of an int tuple (the parser has the same cap).
MAX_DEPTH = 64
#: The most modes a tuple built from a count argument may have (``append``/``prepend``'s rank ``n``, ``lift``'s
#: path entries): far past any real layout's rank, so a count like ``2**64`` is refused before it is allocated.
MAX_RANK = 1 << 16
#: The most tuples (inner nodes, each counted every time it appears) an int tuple argument may hold: far past any
#: real layout, small enough that a walk over it ends at once.
MAX_NODES = 1 << 18
_LIMIT = 1 << MAX_INT_BITS
_NEG_LIMIT = -_LIMIT  # computed once: negating a 4096-bit int costs more than the check


def check_depth(x: Any, what: str, error: type[LayoutError] = ShapeError) -> None:
    """Refuse ``x`` (``error`` naming ``what``) when its tuples and lists nest more than :data:`MAX_DEPTH` levels
    or number more than :data:`MAX_NODES` (each counted every time it appears).

    Non-recursive (a stack of iterators, one per open level): the work is the number of nodes met before the
    first one past a limit, the memory ``MAX_DEPTH`` iterators, so a tuple nested thousands deep (or a list
    holding itself, or a tuple made by pairing one object with itself) is refused at once.  Anything that is not a
    tuple or list is left to the caller's checks.
    """
    if type(x) is tuple:  # the common cases first: a flat tuple, or plain ints (depth bounded by that walk)
        for e in x:
            if isinstance(e, (tuple, list)):
                break
        else:
            return
        if _is_plain(x, 0):
            return
    for _ in walk_leaves(x, what, error):
        pass


def walk_leaves(x: Any, what: str = "argument", error: type[LayoutError] = ShapeError,
                kinds: Any = (tuple, list)) -> Iterator[Any]:
    """The leaves of ``x`` left to right (``kinds``, tuples and lists by default, are the inner nodes; ``x`` itself
    when it is none), walked without recursion: a stack of iterators, one per open level, so a nesting deeper
    than :data:`MAX_DEPTH`, or more than :data:`MAX_NODES` inner nodes, is refused (``error`` naming ``what``) when
    the walk reaches it."""
    if not isinstance(x, kinds):
        yield x
        return
    stack = [iter(x)]
    nodes = 1
    while stack:
        for e in stack[-1]:
            if isinstance(e, kinds):
                if len(stack) >= MAX_DEPTH:
                    raise error(f"{what} is nested more than {MAX_DEPTH} levels deep (MAX_DEPTH)")
                nodes += 1
                if nodes > MAX_NODES:
                    raise error(f"{what} holds more than {MAX_NODES} tuples, counting a tuple each time it appears "
                                "(MAX_NODES); was it built by nesting one object in itself?")
                stack.append(iter(e))
                break
            yield e
        else:
            stack.pop()


def any_leaf(x: Any, pred: Any, what: str = "argument", error: type[LayoutError] = ShapeError,
             kinds: Any = (tuple, list)) -> bool:
    """Whether ``pred`` holds for some leaf of ``x`` (:func:`walk_leaves`), stopped at the first such leaf; a
    nesting deeper than :data:`MAX_DEPTH` met before it is refused as :func:`check_depth` refuses it."""
    return any(pred(e) for e in walk_leaves(x, what, error, kinds))


def describe(x: Any, limit: int = 80) -> str:
    """``repr(x)`` cut to ``limit`` characters, or a description when ``repr`` itself fails.

    Safe on anything a caller may pass: integers too long to print, objects
    whose ``__repr__`` raises, nesting deep enough to exhaust the stack, and tuples
    or lists whose ``repr`` would not end (one object paired with itself sixty
    times prints 2**60 leaves): those are printed by :func:`_bounded_repr`, which
    stops after :data:`_REPR_CAP` characters.
    """
    if type(x) is int and not _NEG_LIMIT < x < _LIMIT:
        return f"<an int of {x.bit_length()} bits>"
    try:
        text = _bounded_repr(x) if isinstance(x, (tuple, list)) else repr(x)
    except _ReprTooLongError as stop:
        return f"{stop.head[: limit - 20]}... (over {_REPR_CAP} characters, {type(x).__name__})"
    except Exception:  # noqa: BLE001 - any failure of a foreign __repr__ is described instead
        return f"<a {type(x).__name__}>"
    if len(text) > limit:
        return f"{text[: limit - 20]}... ({len(text)} characters, {type(x).__name__})"
    return text


_REPR_CAP = 1 << 16
"""The most characters :func:`describe` prints of a tuple or list before it gives up on the rest."""


class _Text:
    """A bracket or separator on :func:`_bounded_repr`'s stack (never confused with a string leaf)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _ReprTooLongError(Exception):
    def __init__(self, head: str) -> None:
        super().__init__(head)
        self.head = head


def _bounded_repr(x: Any) -> str:
    """``repr`` of nested tuples and lists (other leaves by their own ``repr``), written piece by piece and stopped
    with :class:`_ReprTooLongError` once past :data:`_REPR_CAP` characters, so its work is bounded by the cap
    whatever the number of leaves; the nesting it can reach is bounded by the cap too (one bracket per level)."""
    parts: list[str] = []
    size = 0

    def emit(piece: str) -> None:
        nonlocal size
        parts.append(piece)
        size += len(piece)
        if size > _REPR_CAP:
            raise _ReprTooLongError("".join(parts)[:_REPR_CAP])

    stack: list[Any] = [x]  # items to print, and _Text pieces (brackets, separators) between them
    while stack:
        item = stack.pop()
        if type(item) is _Text:
            emit(item.text)
        elif isinstance(item, (tuple, list)):
            is_tuple = isinstance(item, tuple)
            emit("(" if is_tuple else "[")
            stack.append(_Text("]" if not is_tuple else ",)" if len(item) == 1 else ")"))
            for k in range(len(item) - 1, -1, -1):
                stack.append(item[k])
                if k:
                    stack.append(_Text(", "))
        else:
            emit(repr(item))
    return "".join(parts)


def count_text(n: int) -> str:
    """A count for a message: the number itself up to 64 bits, else ``2**k+`` (sizes can be thousands of digits)."""
    return str(n) if n.bit_length() <= 64 else f"2**{n.bit_length() - 1}+"


def is_bool(x: Any) -> bool:
    """Python's bool, and numpy's (``numpy.bool_``), which also have ``__index__``."""
    return isinstance(x, bool) or type(x).__name__ in ("bool_", "bool")


def one_of(x: Any, choices: tuple[Any, ...], what: str, error: type[LayoutError] = LayoutError) -> Any:
    """``x`` when it is one of ``choices`` (compared only against a str, int, bool or None, so a numpy array or
    another object with its own ``==`` cannot answer with an array), else ``error`` naming ``what``."""
    if isinstance(x, (str, int, type(None))) and any(x == c and type(x) is type(c) for c in choices):
        return x
    raise error(f"{what} must be one of {', '.join(repr(c) for c in choices)}, got {describe(x)}")


def plain_int(x: Any, what: str = "an integer argument") -> Any:
    """``x`` as a Python int when it is an integer of any kind (numpy's included, bool excluded); else ``x``
    itself, for the caller's own check and message.  An integer past the limit is refused here (LayoutError
    naming ``what``), so no caller prints one."""
    if type(x) is not int:
        if is_bool(x) or isinstance(x, float) or getattr(x, "ndim", 0) != 0:
            return x
        try:
            x = operator.index(x)
        except Exception:  # noqa: BLE001 - not an integer: the caller says so
            return x
    if not _NEG_LIMIT < x < _LIMIT:
        raise LayoutError(f"{what} has {x.bit_length()} bits; integers are limited to {MAX_INT_BITS} bits")
    return x


def as_int(x: Any, what: str, error: type[LayoutError] = LayoutError) -> int:
    """``x`` as a Python int: an ``int`` or anything with ``__index__`` (numpy integers), not a bool.

    ``what`` names the argument in the message; ``error`` is the LayoutError subclass raised.
    """
    if type(x) is int:
        value = x
    else:
        if is_bool(x) or isinstance(x, float):
            raise error(f"{what} must be an int, got {describe(x)} ({type(x).__name__})")
        try:
            value = operator.index(x)
        except Exception:  # noqa: BLE001 - a foreign __index__ may raise anything
            kind = "a numpy array" if hasattr(x, "shape") and hasattr(x, "dtype") else type(x).__name__
            raise error(f"{what} must be an int, got {describe(x)} ({kind})") from None
        if type(value) is not int:  # an __index__ returning an int subclass (bool included)
            value = int(value)
    if not _NEG_LIMIT < value < _LIMIT:
        raise error(f"{what} has {value.bit_length()} bits; integers are limited to {MAX_INT_BITS} bits")
    return value


def is_plain_tuple(x: Any) -> bool:
    """Whether ``x`` is a tuple of plain ints (nested at most MAX_DEPTH levels and MAX_NODES tuples, within the
    bit limit): nothing to convert, report or refuse (the fast path of every check)."""
    return type(x) is tuple and _plain_budget(x, 0, MAX_NODES) >= 0


def _is_plain(x: tuple[Any, ...], depth: int) -> bool:
    """A nested tuple of plain ints within the limits (nothing to convert or report)."""
    return _plain_budget(x, depth, MAX_NODES) >= 0


def _plain_budget(x: tuple[Any, ...], depth: int, budget: int) -> int:
    """``budget`` less the tuples of ``x`` (each counted every time it appears) if ``x`` is a tuple of plain ints
    within the limits and the budget lasts; negative otherwise.  A budget spent on entry is noticed after the first
    nested tuple (each call returns at most what it was given), so the work past it is one path down."""
    if depth >= MAX_DEPTH:
        return -1
    budget -= 1
    for e in x:
        if type(e) is int:
            if not _NEG_LIMIT < e < _LIMIT:
                return -1
        elif type(e) is tuple:
            budget = _plain_budget(e, depth + 1, budget)
            if budget < 0:
                return -1
        else:
            return -1
    return budget


def as_int_tuple(x: Any, what: str, error: type[LayoutError] = ShapeError, depth: int = 0) -> Any:
    """``x`` as an int tuple (ints in nested tuples; lists become tuples); ``what`` names the argument.

    Leaves go through :func:`as_int`; the path of a bad leaf is named (``shape[1][0]``).
    """
    if type(x) is int:
        if not _NEG_LIMIT < x < _LIMIT:
            raise error(f"{what} has {x.bit_length()} bits; integers are limited to {MAX_INT_BITS} bits")
        return x
    if type(x) is tuple and _is_plain(x, depth):  # the common case, checked without building messages
        return x
    if isinstance(x, (tuple, list)):
        if depth >= MAX_DEPTH:
            raise error(f"{what} is nested more than {MAX_DEPTH} levels deep")
        if depth == 0:
            check_depth(x, what, error)  # the node count, before the recursion below walks every node
        return tuple(as_int_tuple(e, f"{what}[{i}]", error, depth + 1) for i, e in enumerate(x))
    if hasattr(x, "shape") and hasattr(x, "dtype") and getattr(x, "ndim", 0) != 0:
        raise error(
            f"{what} must be an int or a tuple of ints, got a numpy array {describe(x)}; "
            "pass tuple(array.tolist()) instead"
        )
    if is_bool(x) or isinstance(x, float) or not hasattr(x, "__index__"):
        raise error(f"{what} must be an int or a tuple of ints, got {describe(x)} ({type(x).__name__})")
    return as_int(x, what, error)


def as_htuple(x: Any, what: str, error: type[LayoutError] = ShapeError, depth: int = 0) -> Any:
    """``x`` as a hierarchical tuple whose leaves may be ints (checked as :func:`as_int_tuple` does), symbolic
    extents (sympy expressions) or stride scalars (``ArithTuple``, ``F2``: kept as they are, never read as
    ints); the tree functions (``flatten``, ``rank``, ``depth``) take any of them, as PyCuTe's do."""
    if type(x) is int or (type(x) is tuple and _is_plain(x, depth)):
        return as_int_tuple(x, what, error, depth)
    if isinstance(x, (tuple, list)):
        if depth >= MAX_DEPTH:
            raise error(f"{what} is nested more than {MAX_DEPTH} levels deep")
        if depth == 0:
            check_depth(x, what, error)  # the node count, before the recursion below walks every node
        return tuple(as_htuple(e, f"{what}[{i}]", error, depth + 1) for i, e in enumerate(x))
    if type(x).__name__ in ("ArithTuple", "F2") or (hasattr(x, "shape") and hasattr(x, "size")
                                                      and not hasattr(x, "ndim")):
        return x  # a stride scalar, or a layout (a tiler's leaf), kept whole
    if hasattr(x, "free_symbols") and getattr(x, "is_integer", False) is not False:  # sympy, not a known non-int
        return x
    return as_int_tuple(x, what, error, depth)


_DIRECTIONS = {"row": "row", "rows": "row", "col": "col", "cols": "col", "column": "col", "columns": "col"}


def direction(x: Any) -> str | None:
    """``"row"`` or ``"col"`` for any spelling of the two (``row``/``rows``, ``col``/``column``/``columns``, any
    case), the one vocabulary of ``by=`` / ``--by`` and ``along=`` / ``--along``; None for anything else."""
    return _DIRECTIONS.get(x.strip().lower()) if isinstance(x, str) else None


__all__ = ["direction", "MAX_INT_BITS", "MAX_DEPTH", "MAX_RANK", "MAX_NODES", "check_depth", "walk_leaves", "is_plain_tuple", "any_leaf", "describe", "count_text", "is_bool", "plain_int", "as_int", "as_int_tuple", "as_htuple"]

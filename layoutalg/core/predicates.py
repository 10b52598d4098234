"""PyCuTe's type predicates and CuTe's signed shifts.

* ``Integer``: the integer-shaped scalar types, by registration (PyCuTe's ``typedefs.py``): ``int`` and its
  subclasses except ``bool``; ``numpy.integer`` and ``sympy.Expr`` (symbolic extents) are recognised without
  importing either; anything else by :func:`register_integer_type`.  ``float`` and ``F2`` (whose ``+`` is XOR)
  are not integers.
* ``is_int(x)``: ``x`` is an ``Integer``; ``is_static(x)``: its value is known now, an int or F2 equal to its
  own ``int()`` (a symbol is dynamic: its ``int()`` raises; a float is not an integer);
* ``is_tuple``, ``is_layout``, ``is_tensor``: what PyCuTe's tree functions test;
* ``shiftr(a, s)`` / ``shiftl(a, s)``: CuTe's shifts, a negative ``s`` shifting the other way.
"""

from __future__ import annotations

import abc
from typing import Any

from layoutalg.errors import ShapeError

#: Classes recognised as integers by the name of a class in their MRO, so that neither library is imported.
_REGISTERED_BY_NAME = {("numpy", "integer"), ("sympy.core.expr", "Expr")}


class Integer(abc.ABC):  # noqa: B024  (membership by registration: no abstract methods to require)
    """The integer-shaped scalar types (see the module docstring): ``isinstance(7, Integer)``, not ``True``,
    ``1.0`` or ``F2(1)``."""

    @classmethod
    def __subclasshook__(cls, candidate: type) -> Any:
        if cls is not Integer:
            return NotImplemented
        if issubclass(candidate, bool):
            return False
        if issubclass(candidate, int):
            return True
        for base in candidate.__mro__:
            if (base.__module__, base.__name__) in _REGISTERED_BY_NAME:
                return True
        return NotImplemented  # then what register() recorded


def register_integer_type(*types: type) -> None:
    """Declare types integer-shaped (idempotent), as PyCuTe's ``register_integer_type``."""
    from layoutalg.core.validate import describe

    for kind in types:
        if not isinstance(kind, type):
            raise ShapeError(f"register_integer_type takes types, got {describe(kind)}")
        Integer.register(kind)


def is_int(x: Any) -> bool:
    """``x`` is an instance of an integer-shaped type."""
    return isinstance(x, Integer)


def is_static(x: Any) -> bool:
    """``x`` is an integer (or an F2) whose value is known now: equal to its own ``int()``."""
    if isinstance(x, (bool, float)) or not (is_int(x) or type(x).__name__ == "F2"):
        return False
    try:
        return bool(int(x) == x)
    except (TypeError, ValueError):
        return False


def is_tuple(x: Any) -> bool:
    """A tuple (or list) node of a hierarchical tuple."""
    return isinstance(x, (tuple, list))


def is_layout(x: Any) -> bool:
    """A layout of any kind: plain, swizzled, coordinate/F2 or symbolic."""
    return type(x).__name__ in ("Layout", "ComposedLayout", "StrideLayout", "SymbolicLayout")


def is_tensor(x: Any) -> bool:
    """A tensor (an engine and a layout)."""
    return type(x).__name__ == "Tensor"


def shiftr(a: Any, s: Any) -> Any:
    """``a`` shifted right by ``s`` (left by ``-s`` when ``s`` is negative): ``shiftr(0b1000, -2) == 0b100000``."""
    return _shift(a, s, right=True)


def shiftl(a: Any, s: Any) -> Any:
    """``a`` shifted left by ``s`` (right by ``-s`` when ``s`` is negative): ``shiftl(0b1000, -2) == 0b10``."""
    return _shift(a, s, right=False)


def _shift(a: Any, s: Any, right: bool) -> Any:
    from layoutalg.core.validate import as_int, describe

    amount = as_int(s, "shift amount", ShapeError)
    if abs(amount) > 4096:
        raise ShapeError(f"shift amount {amount} is past 4096 bits")
    if isinstance(a, bool) or not (is_int(a) or type(a).__name__ == "F2"):
        raise ShapeError(f"shifts take an integer (or an F2), got {describe(a)}")
    if (amount >= 0) == right:
        return a >> abs(amount)
    return a << abs(amount)


__all__ = ["Integer", "register_integer_type", "is_int", "is_static", "is_tuple", "is_layout", "is_tensor",
           "shiftr", "shiftl"]

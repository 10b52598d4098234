"""Equality and hashing by value for frozen dataclasses whose fields hold numpy arrays.

A dataclass's generated ``__eq__`` compares its fields as a tuple, and ``array == array`` is an array: for two
records that do not share their arrays, ``==`` raised numpy's "truth value of an array is ambiguous", and the
generated ``__hash__`` could not hash an array at all.  :class:`ArrayRecord` compares field by field instead:
an array equals another of the same shape with equal elements (dtype aside: ``int32`` 3 equals ``int64`` 3, as
for Python ints); a field declared with ``compare=False`` is skipped by both ``__eq__`` and ``__hash__``.
Declare the dataclass with ``eq=False`` so these methods are the ones used.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def _is_array(value: Any) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "shape") and hasattr(value, "tobytes")


def _same(a: Any, b: Any) -> bool:
    if _is_array(a) or _is_array(b):
        if not (_is_array(a) and _is_array(b)) or a.shape != b.shape:
            return False
        return bool((a == b).all())
    return bool(a == b)


def _hash_key(value: Any) -> Any:
    """Equal values give equal keys: integer arrays by their int64 bytes, other arrays by shape alone."""
    if _is_array(value):
        if value.dtype.kind in "iub":
            import numpy as np

            return value.shape, np.ascontiguousarray(value, dtype=np.int64).tobytes()
        return value.shape
    return value


class ArrayRecord:
    """Mixin: ``==`` and ``hash`` over the compared dataclass fields, arrays by shape and elements."""

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name))
                   for f in dataclasses.fields(self) if f.compare)  # type: ignore[arg-type]

    def __hash__(self) -> int:
        return hash(tuple(_hash_key(getattr(self, f.name))
                          for f in dataclasses.fields(self) if f.compare))  # type: ignore[arg-type]


__all__ = ["ArrayRecord"]

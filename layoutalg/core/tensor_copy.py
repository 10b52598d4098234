"""Copying one tensor into another (PyCuTe's ``copy`` / ``alg.ref.copy``) and typed pointers into buffers (``Ptr``).

* ``copy_ref(src, dst)``: ``dst[i] = src[i]`` for every 1-D index ``i``, in index order (PyCuTe's
  reference copy: where ``dst`` sends two indices to one position, the last write stays).
* ``copy(src, dst)``: the same final memory, written once per destination position, in ascending
  position order (PyCuTe's optimized copy walks ``dst`` in memory order and drops the redundant
  writes of a broadcast destination).  Two *different* source positions landing on one
  destination position make the result depend on the write order: that is refused
  (write-after-write, as PyCuTe does) instead of silently racing.  Positions, not values, are
  compared: ``7:0 -> 7:0`` (one source position) is a constant fill, allowed.

Both need ``size(src) == size(dst)`` (ShapeError otherwise).  The walk is over the domain,
``O(size)`` Python steps: a reference for kernel authors, not a bulk-data path.

``Ptr(buffer)``: a typed pointer into an object with the buffer protocol (``array.array``,
numpy arrays, ``bytearray``, ctypes arrays): ``p[i]`` reads element ``i`` past it, ``p + k``
steps ``k`` elements, every access bounds-checked (CoordinateError).  A bare integer address
(a numpy integer too) is refused: it carries neither a type nor bounds, so reading through it could not be checked.
``Array(size, dtype)`` is a ``Ptr`` owning fresh ctypes storage; ``TransformAccessor(a, f)`` reads ``f(a[i])``.
"""

from __future__ import annotations

import numbers
from typing import Any

from layoutalg.core.tensor import Tensor
from layoutalg.core.validate import describe, is_bool
from layoutalg.errors import CoordinateError, LayoutError, ShapeError


def _pair(src: Any, dst: Any, what: str) -> int:
    if not isinstance(src, Tensor) or not isinstance(dst, Tensor):
        raise LayoutError(f"{what}(src, dst) copies a Tensor into a Tensor, got {type(src).__name__} and "
                          f"{type(dst).__name__}")
    n, m = src.size(), dst.size()
    if n != m:
        raise ShapeError(f"{what}: src has {n} elements, dst has {m}")
    return int(n)


def copy_ref(src: Tensor, dst: Tensor) -> Tensor:
    """``dst[i] = src[i]`` for every index ``i`` in order (see the module docstring); returns ``dst``."""
    for i in range(_pair(src, dst, "copy_ref")):
        dst[i] = src[i]
    return dst


def copy(src: Tensor, dst: Tensor) -> Tensor:
    """``dst[i] = src[i]`` once per destination position, ascending; write-after-write refused; returns ``dst``."""
    n = _pair(src, dst, "copy")
    source_of: dict[Any, tuple[Any, int]] = {}
    for i in range(n):
        at = dst._position(i)
        here = src._position(i)
        seen = source_of.get(at)
        if seen is None:
            source_of[at] = (here, i)
        elif seen[0] != here:
            raise ShapeError(f"copy: write-after-write: indices {seen[1]} and {i} of dst both land on position {at} "
                             f"but read different source positions ({seen[0]} and {here})")
    for at in sorted(source_of):
        dst.engine[at] = src.engine[source_of[at][0]]
    return dst


class Ptr:
    """A typed, bounds-checked pointer into a buffer (see the module docstring)."""

    __slots__ = ("owner", "view", "index")

    def __init__(self, owner: Any, index: int = 0) -> None:
        if isinstance(owner, numbers.Integral) and not is_bool(owner):  # numpy integers too (they have a buffer)
            raise ShapeError("Ptr of a bare address: it has no element type and no bounds; give the buffer itself")
        try:
            view = memoryview(owner)
        except TypeError:
            raise LayoutError(f"Ptr needs an object with storage (the buffer protocol), got {type(owner).__name__}") \
                from None
        if view.ndim != 1 or view.format[:1] in "<>!=@" and len(view.format) == 2:
            if not view.c_contiguous:
                raise LayoutError("Ptr needs contiguous storage (the layout supplies the strides)")
            native = view.format[-1]  # ctypes arrays declare '<i': memoryview indexes native codes only
            view = view.cast("B").cast(native)  # type: ignore[call-overload]
        self.owner, self.view, self.index = owner, view, index

    @property
    def dtype(self) -> str:
        """The element format (struct module code, as the buffer declares it)."""
        return str(self.view.format)

    def _at(self, i: Any) -> int:
        k = self.index + int(i)
        if not 0 <= k < len(self.view):
            raise CoordinateError(f"Ptr access at element {k} is outside its buffer of {len(self.view)} elements")
        return k

    def __getitem__(self, i: Any) -> Any:
        return self.view[self._at(i)]

    def __setitem__(self, i: Any, value: Any) -> None:
        self.view[self._at(i)] = value

    def __add__(self, k: int) -> Ptr:
        out = Ptr.__new__(Ptr)
        out.owner, out.view, out.index = self.owner, self.view, self.index + int(k)
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ptr) and other.owner is self.owner and other.index == self.index

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Ptr({type(self.owner).__name__} + {self.index}, {self.dtype})"


class Array(Ptr):
    """PyCuTe's ``Array(size, dtype=ctypes.c_double)``: a pointer that owns ``size`` fresh (zeroed) elements of
    the ctypes type ``dtype``, bounds-checked as every :class:`Ptr`."""

    __slots__ = ()

    def __init__(self, size: Any, dtype: Any = None) -> None:
        import ctypes

        from layoutalg.core.validate import as_int

        count = as_int(size, "Array size", ShapeError)
        if not 0 <= count <= 1 << 26:
            raise ShapeError(f"Array size must lie in [0, 2**26] elements, got {count}")
        kind = ctypes.c_double if dtype is None else dtype
        if not (isinstance(kind, type) and issubclass(kind, ctypes._SimpleCData)):  # type: ignore[attr-defined]
            raise LayoutError(f"Array dtype must be a ctypes scalar type (ctypes.c_int, ...), got {describe(kind)}")
        super().__init__((kind * count)())


class TransformAccessor:
    """PyCuTe's ``TransformAccessor(a, f)``: reads ``f(a[i])``; offsets move the inner accessor; read-only (no
    inverse of ``f`` to write back through)."""

    __slots__ = ("accessor", "transform")

    def __init__(self, accessor: Any, transform: Any) -> None:
        if not callable(transform) or not hasattr(accessor, "__getitem__"):
            raise LayoutError("TransformAccessor(accessor, transform) needs an indexable accessor and a callable")
        self.accessor, self.transform = accessor, transform

    def __getitem__(self, i: Any) -> Any:
        return self.transform(self.accessor[i])

    def __setitem__(self, i: Any, value: Any) -> None:
        raise LayoutError("a TransformAccessor is read-only: its transform has no inverse to write back through")

    def __add__(self, k: int) -> TransformAccessor:
        return TransformAccessor(self.accessor + k, self.transform)

    def __repr__(self) -> str:
        return f"TransformAccessor({self.accessor!r}, {self.transform!r})"


__all__ = ["Ptr", "Array", "TransformAccessor", "copy", "copy_ref"]

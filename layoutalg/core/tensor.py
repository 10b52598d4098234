"""CuTe's ``Tensor``: an engine (where the values are) and a layout (coordinate -> position in the engine).

``T[c] == T.engine[T.offset + T.layout(c)]``.  The engine is anything indexed by int
positions (a numpy array, a list, a bytearray) or a :class:`CountingEngine`, which holds no
storage and returns the position itself (CuTe's counting iterator): with a basis-stride
layout that is CuTe's identity tensor, ``make_identity_tensor((3, 4))[i, j] == (i, j)``.

* A coordinate holding ``None`` (CuTe's ``_``; Python's ``:`` too) slices: the result is a
  tensor on the same engine over the ``None`` modes, its offset moved
  (``T[1, None]`` is row 1, sharing storage).  Writing needs a full coordinate.
* ``make_tensor(layout_or_shape, dtype)`` allocates ``cosize(layout)`` elements (numpy
  zeros); a shape gets the compact column-major layout.
* ``make_fragment_like(x)`` (CuTe ``make_fragment_like``): fresh storage under the layout
  CuTe C++ builds: mode 0 compact column-major (its stride-0 leaves kept at 0), the other
  modes ordered by their strides after it; a rank-1 layout becomes compact.
* The layout algebra (``coalesce``, the divides, ``local_tile``, ``local_partition``, ...)
  accepts tensors at the top level: it acts on the layout and keeps the engine (and moves
  the offset where a tile or partition starts elsewhere).
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout, _slice_modes
from layoutalg.core.validate import as_int, check_depth, count_text, describe, is_bool, plain_int
from layoutalg.errors import CoordinateError, LayoutError, ShapeError

#: The most elements :func:`make_tensor` allocates (2**32: 32 GiB of float64); a larger cosize is refused up front
#: rather than left to numpy (which fails with MemoryError, or allocates lazily and fails on first write).
MAX_TENSOR_ELEMENTS = 1 << 32


class CountingEngine:
    """No storage: ``engine[i] == origin + i`` (CuTe's counting iterator; PyCuTe's ``ImplicitAccessor``)."""

    __slots__ = ("origin",)
    origin: Any

    def __init__(self, origin: Any = 0) -> None:
        object.__setattr__(self, "origin", origin)

    def __getitem__(self, i: Any) -> Any:
        return self.origin + i

    def __setitem__(self, i: Any, value: Any) -> None:
        raise CoordinateError("a counting engine holds no values to write")

    def __add__(self, k: Any) -> CountingEngine:
        return CountingEngine(self.origin + k)

    def __repr__(self) -> str:
        return f"CountingEngine({self.origin!r})"


def _is_layout(x: Any) -> bool:
    from layoutalg.core.stride_layout import StrideLayout

    return isinstance(x, (Layout, StrideLayout))


def _norm(crd: Any) -> Any:
    """Python's ``:`` is CuTe's ``_`` (None)."""
    if isinstance(crd, slice):
        if crd != slice(None):
            raise CoordinateError(f"a tensor slice is ':' (the whole mode), got {describe(crd)}")
        return None
    if isinstance(crd, (tuple, list)):
        return tuple(_norm(c) for c in crd)
    return crd


def _checked(crd: Any) -> Any:
    """:func:`_norm` of a coordinate whose nesting is first checked (CoordinateError past ``MAX_DEPTH``)."""
    check_depth(crd, "coordinate", CoordinateError)
    return _norm(crd)


def _check_in_bounds(crd: Any, shape: Any, path: str) -> None:
    """Every integer leaf of ``crd`` lies inside its mode of ``shape`` (an int leaf may stand for a whole
    sub-tree: it indexes that sub-tree's size); CoordinateError naming the leaf otherwise.  ``None`` leaves (slices)
    and a rank mismatch are left to the layout, which names them; ``crd`` is already depth-checked."""
    if crd is None:
        return
    if isinstance(crd, tuple):
        if isinstance(shape, tuple) and len(crd) == len(shape):
            for i, (c, s) in enumerate(zip(crd, shape)):
                _check_in_bounds(c, s, f"{path}[{i}]")
        return
    if type(crd) is not int and (is_bool(crd) or isinstance(crd, float) or not hasattr(crd, "__index__")
                                 or getattr(crd, "ndim", 0) != 0):
        return  # not an integer (a basis value, a wrong type): the layout reads or refuses it
    value = as_int(crd, path, CoordinateError)
    extent = it.product(shape)
    if type(extent) is int and not 0 <= value < extent:
        raise CoordinateError(f"{path} {count_text(value) if value >= 0 else value} is out of range: the mode there "
                              f"has {count_text(extent)} elements")


def _check_offset(offset: Any) -> Any:
    """A tensor offset: an int (numpy's included) or a stride scalar (an ArithTuple or F2, a coordinate tensor's)."""
    from layoutalg.core.stride_scalars import F2, ArithTuple

    if isinstance(offset, (ArithTuple, F2)):
        return offset
    value = plain_int(offset, "tensor offset")
    if type(value) is not int:
        raise ShapeError(f"a tensor offset must be an int (or an ArithTuple / F2), got {describe(offset)}")
    return value


def _has_none(crd: Any) -> bool:
    return crd is None or (isinstance(crd, tuple) and any(_has_none(c) for c in crd))


class Tensor:
    """An engine and a layout (see the module docstring)."""

    __slots__ = ("engine", "layout", "offset")
    engine: Any
    layout: Any
    offset: Any

    def __init__(self, engine: Any, layout: Any, offset: Any = 0) -> None:
        if not _is_layout(layout):
            raise ShapeError(f"a tensor's layout must be a Layout or StrideLayout, got {describe(layout)}")
        object.__setattr__(self, "engine", engine)
        object.__setattr__(self, "layout", layout)
        object.__setattr__(self, "offset", _check_offset(offset))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Tensor is immutable (its values are not: write T[c] = v)")

    def _position(self, crd: Any) -> Any:
        _check_in_bounds(crd, self.layout.shape, "coordinate")
        return self.offset + self.layout(crd)

    def _engine_error(self, crd: Any, exc: Exception) -> CoordinateError:
        return CoordinateError(f"coordinate {describe(crd)} is outside the tensor's storage "
                               f"({type(self.engine).__name__}: {describe(exc)})")

    def __getitem__(self, crd: Any) -> Any:
        crd = _checked(crd)
        if _has_none(crd):
            return self.slice(crd)
        position = self._position(crd)
        try:
            return self.engine[position]
        except IndexError as exc:  # the layout maps past the storage (an engine smaller than its cosize)
            raise self._engine_error(crd, exc) from None

    __call__ = __getitem__

    def __setitem__(self, crd: Any, value: Any) -> None:
        crd = _checked(crd)
        if _has_none(crd):
            raise CoordinateError(f"writing a tensor needs a full coordinate, got {describe(crd)}")
        position = self._position(crd)
        try:
            self.engine[position] = value
        except IndexError as exc:
            raise self._engine_error(crd, exc) from None

    def slice(self, crd: Any) -> Tensor:
        """The tensor over the ``None`` modes of ``crd``, on the same engine."""
        from layoutalg.core.stride_layout import stride_layout

        crd = _checked(crd)
        _check_in_bounds(crd, self.layout.shape, "slice coordinate")
        kept, off = _slice_modes(crd, self.layout.shape, self.layout.stride)
        sub = stride_layout(tuple(s for s, _ in kept), tuple(d for _, d in kept))  # a tuple even of one (CuTe)
        return Tensor(self.engine, sub, self.offset + off)

    def values(self) -> list[Any]:
        """``T[i]`` for every 1-D index ``i < size``."""
        return [self[i] for i in range(self.size())]

    @property
    def shape(self) -> Any:
        return self.layout.shape

    @property
    def stride(self) -> Any:
        return self.layout.stride

    def size(self) -> int:
        return it.product(self.layout.shape)

    def rank(self) -> int:
        return it.rank(self.layout.shape)

    def with_layout(self, layout: Any, offset: Any = 0) -> Tensor:
        """The same engine under another layout, the offset moved by ``offset``."""
        return Tensor(self.engine, layout, self.offset + _check_offset(offset))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Tensor) and other.engine is self.engine and bool(other.layout == self.layout)
                and bool(other.offset == self.offset))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Tensor({type(self.engine).__name__} + {self.offset}, {self.layout})"


def make_tensor(layout_or_shape: Any, dtype: Any = None, engine: Any = None) -> Tensor:
    """A tensor over fresh numpy storage (``cosize`` elements, zeros of ``dtype``, float64 by default), or over
    ``engine`` when given; a shape stands for its compact column-major layout."""
    import numpy as np

    layout = layout_or_shape if _is_layout(layout_or_shape) else Layout(layout_or_shape)
    if engine is None:
        if not isinstance(layout, Layout):
            raise ShapeError(f"make_tensor of {layout}: storage is allocated for int-offset layouts only")
        try:
            element = np.dtype(np.float64 if dtype is None else dtype)
        except Exception as exc:  # noqa: BLE001 - numpy runs a foreign object's own __repr__ etc., which may raise anything
            raise ShapeError(f"make_tensor: dtype {describe(dtype)} is not a numpy dtype ({describe(exc)})") \
                from None
        cosize = layout.cosize()
        if cosize > MAX_TENSOR_ELEMENTS:
            raise LayoutError(f"make_tensor: layout {describe(layout)} needs {count_text(cosize)} elements of storage, "
                              f"more than MAX_TENSOR_ELEMENTS ({MAX_TENSOR_ELEMENTS}); pass engine= to use your own")
        try:
            engine = np.zeros(cosize, dtype=element)
        except (MemoryError, ValueError) as exc:
            raise LayoutError(f"make_tensor: cannot allocate {cosize} elements of {element} ({describe(exc)})") \
                from None
    return Tensor(engine, layout)


def make_identity_tensor(shape: Any) -> Tensor:
    """CuTe ``make_identity_tensor``: ``T[c] == c`` (a coordinate) for every coordinate of ``shape``."""
    from layoutalg.core.stride_layout import stride_layout
    from layoutalg.core.stride_scalars import make_basis_like

    shape_t = it.to_int_tuple(shape, "make_identity_tensor shape")
    return Tensor(CountingEngine(0), stride_layout(shape_t, make_basis_like(shape_t) if isinstance(shape_t, tuple)
                                                   else 1))


def fragment_layout(layout: Any) -> Layout:
    """CuTe C++ ``make_fragment_like(layout)``'s layout (see the module docstring)."""
    from layoutalg.core.make_layouts import make_ordered_layout

    if not isinstance(layout.shape, tuple) or len(layout.shape) < 2:
        return Layout(layout.shape)
    m0_shape, m0_stride = layout.shape[0], layout.stride[0]
    leaves = it.flatten(m0_shape)
    zero = [d == 0 for d in it.flatten(m0_stride)]
    strides, running = [], 1
    for s, z in zip(leaves, zero):
        strides.append(0 if z else running)
        running *= 1 if z else s
    rest = make_ordered_layout(tuple(layout.shape[1:]), tuple(_order(d) for d in layout.stride[1:]))
    rest_strides = it.zip_transform(lambda d: d * running, rest.stride) if rest.stride else rest.stride
    return Layout((m0_shape,) + tuple(rest.shape),  # type: ignore[arg-type]
                  (it.unflatten(strides, m0_shape),) + tuple(rest_strides))  # type: ignore[arg-type]


def _order(d: Any) -> Any:
    if isinstance(d, tuple):
        return tuple(_order(x) for x in d)
    return d if isinstance(d, int) else 0  # a basis stride (1@1) has no int order (CuTe has none): sorts as 0


def make_fragment_like(x: Any, dtype: Any = None) -> Tensor:
    """Fresh storage with CuTe's fragment layout for ``x`` (a tensor keeps its engine's dtype)."""
    layout = x.layout if isinstance(x, Tensor) else x
    if not _is_layout(layout):
        raise ShapeError(f"make_fragment_like takes a Layout or a Tensor, got {type(layout).__name__}"
                         + (" (a swizzled layout: use its .inner)" if hasattr(layout, "inner") else ""))
    if dtype is None and isinstance(x, Tensor):
        dtype = getattr(x.engine, "dtype", None)
    return make_tensor(fragment_layout(layout), dtype)


__all__ = ["Tensor", "CountingEngine", "make_tensor", "make_identity_tensor", "make_fragment_like", "fragment_layout"]

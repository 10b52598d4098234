"""``StrideLayout``: a layout whose strides are basis vectors (``E<i>``, ``ArithTuple``) or GF(2) elements (``F2``).

The same function as :class:`~layoutalg.core.layout.Layout`, ``L(c) = sum_k c_k * d_k``, with
the sum and the scaling of the stride kind (:mod:`layoutalg.core.stride_scalars`):

* basis strides give coordinates: ``(4,3):(E(1),E(0))`` sends ``(i, j)`` to ``ArithTuple(j, i)``
  (CuTe's coordinate layouts, ``make_identity_layout``, ``tiler_to_layout`` of a shape);
* F2 strides XOR: ``(4,8):(F2(1),F2(8))`` sends ``(c0, c1)`` to ``F2(c0 ^ 8*c1)`` (a swizzle as a
  linear layout, the Triton view), each ``c_k * d_k`` a carry-less product.

Past its size the last mode keeps counting, as for every layout.  :func:`stride_layout`
builds a plain :class:`Layout` when every stride is an int, so code that needs int
strides keeps getting them.
"""

from __future__ import annotations

from typing import Any, Iterator

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout
from layoutalg.core.stride_scalars import F2, ArithTuple, is_stride_scalar, value_as_coordinate
from layoutalg.core.validate import check_depth, describe, plain_int
from layoutalg.errors import CoordinateError, ShapeError


def _congruent_stride(shape: Any, stride: Any, path: str) -> Any:
    if isinstance(shape, tuple):
        if isinstance(stride, ArithTuple) or not isinstance(stride, (tuple, list)) or len(stride) != len(shape):
            raise ShapeError(f"stride {describe(stride)} is not congruent to shape {shape} at mode {path or 'stride'}")
        return tuple(_congruent_stride(s, d, f"{path}[{i}]") for i, (s, d) in enumerate(zip(shape, stride)))
    if isinstance(stride, (tuple, list)):
        stride = ArithTuple(tuple(stride))  # its entries: ArithTuple's own checks (numpy integers included)
    if not isinstance(stride, (F2, ArithTuple)):
        stride = plain_int(stride, f"stride leaf at mode {path or 'stride'}")  # numpy integers are integers
    if not is_stride_scalar(stride):
        raise ShapeError(f"stride leaf {describe(stride)} at mode {path or 'stride'} is not an int, ArithTuple or F2")
    return stride


def _leaves(t: Any) -> list[Any]:
    if isinstance(t, tuple):
        return [x for e in t for x in _leaves(e)]
    return [t]


def has_scalar_strides(stride: Any) -> bool:
    """True when some stride leaf is an ArithTuple or an F2 (the nesting probed first: :func:`check_depth`)."""
    check_depth(stride, "stride")
    return any(isinstance(d, (ArithTuple, F2)) for d in _leaves(stride))


class StrideLayout:
    """A CuTe layout ``shape:stride`` with basis or F2 strides (see the module docstring)."""

    __slots__ = ("shape", "stride")

    shape: Any
    stride: Any

    def __init__(self, shape: Any, stride: Any) -> None:
        shape_t = it.to_int_tuple(shape, "shape")
        if any(s <= 0 for s in it.flatten(shape_t)):
            raise ShapeError(f"extents of {shape_t} must be positive")
        object.__setattr__(self, "shape", shape_t)
        object.__setattr__(self, "stride", _congruent_stride(shape_t, stride, ""))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("StrideLayout is immutable")

    # -- evaluation ------------------------------------------------------
    def __call__(self, *args: Any) -> Any:
        """``L(i)`` for a 1-D index (the last mode unbounded) or ``L(c)`` / ``L(c0, c1, ...)`` for a coordinate."""
        crd = plain_int(args[0], "index") if len(args) == 1 else tuple(args)
        if isinstance(crd, (ArithTuple, F2)):  # a basis value as a coordinate; an F2 index (an F2 inverse's value)
            crd = value_as_coordinate(crd, self.shape, CoordinateError)
        if isinstance(crd, bool) or not isinstance(crd, (int, tuple, list)):
            raise CoordinateError(f"a layout takes an index or a coordinate, got {describe(crd)}")
        if isinstance(crd, int):
            if crd < 0:
                raise CoordinateError(f"index {crd} is negative")
            crd = it.idx2crd(crd, self.shape)
        return _inner(it.to_int_tuple(crd, "coordinate"), self.shape, self.stride)

    def values(self) -> list[Any]:
        """Every ``L(i)`` for ``i < size``, in index order."""
        pairs = self.pairs()
        out: list[Any] = [0]
        for s, d in pairs:
            out = [v + k * d for k in range(s) for v in out]
        return out

    # -- structure -------------------------------------------------------
    def pairs(self) -> list[tuple[int, Any]]:
        """The leaves as ``(extent, stride)`` pairs, left to right."""
        return list(zip(it.flatten(self.shape), _leaves(self.stride)))

    def size(self) -> int:
        return it.product(self.shape)

    def rank(self) -> int:
        return it.rank(self.shape)

    def depth(self) -> int:
        return it.depth(self.shape)

    def __len__(self) -> int:
        return self.rank()

    def __getitem__(self, i: Any) -> Any:
        """Mode ``i``; a Python slice gives those top-level modes, kept as a tuple (as :class:`Layout` does)."""
        if type(i) is slice:
            shape = self.shape if isinstance(self.shape, tuple) else (self.shape,)
            stride = self.stride if isinstance(self.shape, tuple) else (self.stride,)
            return stride_layout(shape[i], stride[i])
        if not isinstance(self.shape, tuple):
            if i in (0, -1):
                return self
            raise CoordinateError(f"mode {i} out of range for a rank-1 layout {self}")
        n = len(self.shape)
        if not isinstance(i, int) or not -n <= i < n:
            raise CoordinateError(f"mode {describe(i)} out of range for a rank-{n} layout {self}")
        return stride_layout(self.shape[i], self.stride[i])

    def __iter__(self) -> Iterator[Any]:
        for i in range(self.rank()):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (StrideLayout, Layout)) or self.shape != other.shape:
            return False
        return all(_same(x, y) for x, y in zip(_leaves(self.stride), _leaves(other.stride)))

    __hash__ = None  # type: ignore[assignment]  # ArithTuple strides are unhashable

    def __str__(self) -> str:
        return f"{_fmt(self.shape)}:{_fmt(self.stride)}"

    def __repr__(self) -> str:
        return f"StrideLayout({self.shape!r}, {self.stride!r})"


def _same(x: Any, y: Any) -> bool:
    if type(x) is int and type(y) is int:
        return x == y
    if isinstance(x, F2) or isinstance(y, F2):
        return isinstance(x, F2) and isinstance(y, F2) and x.value == y.value
    return bool(x == y)


def _fmt(t: Any) -> str:
    if isinstance(t, tuple):
        return "(" + ",".join(_fmt(e) for e in t) + ")"
    return str(t)


def _inner(crd: Any, shape: Any, stride: Any) -> Any:
    """``sum c_k * d_k`` with an int coordinate of a tuple mode unfolded inside the mode (CuTe's crd2idx)."""
    if isinstance(crd, tuple):
        if not isinstance(shape, tuple) or len(crd) != len(shape):
            raise CoordinateError(f"coordinate {crd} does not match shape {shape}")
        total: Any = 0
        for c, s, d in zip(crd, shape, stride):
            total = total + _inner(c, s, d)
        return total
    if isinstance(shape, tuple):
        return _inner(it.idx2crd(crd, shape), shape, stride)
    return crd * stride  # 0 * E(0) is a zero coordinate, 0 * F2(1) an F2 zero: the kind is kept


def stride_layout(shape: Any, stride: Any) -> Any:
    """A :class:`Layout` when every stride is an int, else a :class:`StrideLayout`."""
    if not has_scalar_strides(stride if not isinstance(stride, list) else tuple(stride)):
        try:
            return Layout(shape, stride)
        except ShapeError:
            pass
    return StrideLayout(shape, stride)


__all__ = ["StrideLayout", "stride_layout", "has_scalar_strides"]

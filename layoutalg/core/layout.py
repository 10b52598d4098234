"""``Layout``: a function from coordinates to offsets, ``shape:stride`` as in CuTe.

A layout ``S:D`` maps a coordinate ``c`` of shape ``S`` to ``sum(c_i * d_i)``.
It also accepts a 1-D index ``i``, unfolded colexicographically into a
coordinate (``idx2crd``); past ``size()`` the last mode keeps counting, as in
CuTe, so ``L(i)`` is defined for every ``i >= 0``.

Invariants of every ``Layout`` value:
  * ``shape`` is a positive int or a (possibly nested, possibly empty) tuple of them;
  * ``stride`` is congruent to ``shape`` and holds ints (negative and zero allowed);
  * the value is immutable and hashable; equality is structural (same shape and
    stride), as in CuTe.  Functional equality is :func:`layoutalg.prove.equivalent`.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.stride_scalars import F2, ArithTuple, value_as_coordinate
from layoutalg.core.validate import MAX_INT_BITS, any_leaf, as_int, check_depth, count_text, describe
from layoutalg.errors import CoordinateError, LayoutError, ShapeError

_LIMIT = 1 << MAX_INT_BITS
_NEG_LIMIT = -_LIMIT  # computed once: negating a 4096-bit int costs more than the check
_SMALL = 1 << (MAX_INT_BITS // 8)  # eight extents below this cannot reach the size limit


def _check_shape(shape: IntTuple, path: str) -> None:
    """Every extent positive, and the size below ``2**MAX_INT_BITS`` (leaves are already bounded ints)."""
    _check_extents(shape, path)
    if it.product(shape) >= _LIMIT:
        _too_large(shape)


def _check_extents(shape: IntTuple, path: str) -> None:
    if it.is_tuple(shape):
        for i, mode in enumerate(shape):  # type: ignore[arg-type]
            _check_extents(mode, f"{path}[{i}]")
    elif shape <= 0:  # type: ignore[operator]
        raise ShapeError(f"extent {shape} at mode {path or 'shape'} must be a positive integer")


def _too_large(shape: IntTuple) -> None:
    bits = it.product(shape).bit_length()
    raise ShapeError(f"shape has {bits}-bit size; a layout's size is limited to {MAX_INT_BITS} bits")


def _plain_ints(x: Any) -> bool:
    """A plain int, or a flat tuple of plain ints (the common case, checked without recursion)."""
    t = type(x)
    return t is int or (t is tuple and all(type(e) is int for e in x))


def _fast_check(shape: Any, stride: Any) -> tuple[IntTuple, IntTuple]:
    """Validate a plain-int or flat shape (and stride); the general path handles everything else."""
    if type(shape) is int:
        if not 0 < shape < _LIMIT:
            _bad_extent(shape, "shape")
        if stride is None:
            return shape, 1
        if type(stride) is not int:
            raise ShapeError(f"stride {_to_str(stride)} is not congruent to shape {shape}")
        if not _NEG_LIMIT < stride < _LIMIT:
            as_int(stride, "stride", ShapeError)
        return shape, stride
    for s in shape:
        if not 0 < s < _SMALL:  # beyond the common case (positive, below 2**512): the full check
            _check_flat_extents(shape)
            break
    else:
        if len(shape) > 8:  # more than 8 extents below 2**512 may pass the size limit
            _check_flat_extents(shape)
    if stride is None:
        return shape, it.prefix_product(shape)
    if type(stride) is not tuple or len(stride) != len(shape):
        raise ShapeError(f"stride {_to_str(stride)} is not congruent to shape {_to_str(shape)}")
    for d in stride:
        if not _NEG_LIMIT < d < _LIMIT:
            for i, e in enumerate(stride):
                as_int(e, f"stride[{i}]", ShapeError)  # raises, naming the leaf
    return shape, stride


def _check_flat_extents(shape: tuple[int, ...]) -> None:
    for i, s in enumerate(shape):
        if not 0 < s < _LIMIT:
            _bad_extent(s, f"[{i}]")
    if math.prod(shape) >= _LIMIT:
        _too_large(shape)


def _bad_extent(extent: int, path: str) -> None:
    as_int(extent, f"extent at mode {path}", ShapeError)  # raises for a too large one
    raise ShapeError(f"extent {extent} at mode {path} must be a positive integer")


def _to_str(t: IntTuple) -> str:
    if it.is_tuple(t):
        return "(" + ",".join(_to_str(e) for e in t) + ")"  # type: ignore[union-attr]
    return str(t) if type(t) is int and _NEG_LIMIT < t < _LIMIT else describe(t)


class Layout:
    """A CuTe layout ``shape:stride``.

    ``Layout(shape)`` takes compact column-major strides (CuTe's ``make_layout``,
    ``LayoutLeft``); :meth:`Layout.right` gives row-major (``LayoutRight``).
    """

    __slots__ = ("shape", "stride")

    shape: IntTuple
    stride: IntTuple

    def __init__(self, shape: Any, stride: Any = None) -> None:
        if _plain_ints(shape) and (stride is None or _plain_ints(stride)):
            shape_t, stride_t = _fast_check(shape, stride)
        else:
            shape_t = it.to_int_tuple(shape, "shape")
            _check_shape(shape_t, "")
            if stride is None:
                stride_t = it.prefix_product(shape_t)
            else:
                stride_t = it.to_int_tuple(stride, "stride")
                if not it.congruent(shape_t, stride_t):
                    raise ShapeError(f"stride {_to_str(stride_t)} is not congruent to shape {_to_str(shape_t)}")
        _set_shape(self, shape_t)
        _set_stride(self, stride_t)

    @classmethod
    def right(cls, shape: Any) -> "Layout":
        """Compact row-major layout (CuTe ``make_layout(shape, LayoutRight{})``)."""
        shape_t = it.to_int_tuple(shape, "shape")
        _check_shape(shape_t, "")
        return cls(shape_t, it.suffix_product(shape_t))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Layout is immutable")

    # -- evaluation ------------------------------------------------------
    def __call__(self, *args: Any) -> Any:
        """Evaluate at a 1-D index or a (hierarchical) coordinate.

        ``L(i)``, ``L((i, j))`` and ``L(i, j)`` evaluate; a coordinate holding
        ``None`` (CuTe's ``_``) returns the sliced sub-layout, as CuTe does.  A
        basis value (``ArithTuple``: ``3*E(0) + E(1)`` is the coordinate
        ``(3, 1)``) or an ``F2`` (its bits: an index) is read as a coordinate, so
        ``R(A(i))`` evaluates for the left inverse ``R`` of a coordinate layout.
        """
        if len(args) == 1 and type(args[0]) is int and args[0] >= 0:  # fast path: a 1-D index
            return _index_offset(args[0], self.shape, self.stride, True)
        if not args:
            raise CoordinateError("a layout takes a coordinate or an index")
        crd = args[0] if len(args) == 1 else tuple(args)
        if isinstance(crd, (ArithTuple, F2)):  # a coordinate layout's value: R(A(i)) for A's left inverse R
            crd = value_as_coordinate(crd, self.shape, CoordinateError)
        if _has_none(crd):
            return slice_layout(self, crd)
        crd = _check_coord(crd, self.shape, "coordinate")
        return it.crd2idx(crd, self.shape, self.stride)

    @classmethod
    def _trusted(cls, shape: IntTuple, stride: IntTuple) -> "Layout":
        """Build without validation: for the algebra's own results, whose invariants hold by construction."""
        obj = object.__new__(cls)
        _set_shape(obj, shape)
        _set_stride(obj, stride)
        return obj

    def to_numpy(self) -> Any:
        """Every offset ``L(0), ..., L(size-1)`` as one numpy array, in index order.

        Built as an outer sum, one mode at a time (the first mode varies fastest),
        so the cost is about two passes over the result.  The dtype is int64, or
        Python-int objects when an offset could exceed the int64 range.
        """
        return offsets_of_modes(it.flatten(self.shape), it.flatten(self.stride))

    def evaluate_indices(self, indices: Any) -> Any:
        """``L(i)`` for every ``i`` of a numpy array of non-negative 1-D indices (the last mode is unbounded)."""
        return evaluate_modes(it.flatten(self.shape), it.flatten(self.stride), index_array(indices))

    def values(self) -> list[int]:
        """Every offset as a Python list, in index order (at most ``2**22`` of them: use ``to_numpy`` past that)."""
        size = self.size()
        if size > MAX_WHOLE_DOMAIN_OBJECT:
            raise LayoutError(f"values() of {self}: {count_text(size)} elements is over the {MAX_WHOLE_DOMAIN_OBJECT} "
                              "a Python list holds here; use to_numpy() or evaluate a slice")
        return [int(v) for v in self.to_numpy()] if size > 64 else [self(i) for i in range(size)]

    # -- structure -------------------------------------------------------
    def size(self) -> int:
        return it.product(self.shape)

    def cosize(self) -> int:
        """One past the largest offset: ``1 + sum((s-1) * max(d, 0))``.

        CuTe computes ``L(size-1) + 1``, which is wrong for negative strides;
        this is the mathematically correct codomain size (minimum offset 0 or below).
        """
        return 1 + sum((s - 1) * max(d, 0) for s, d in zip(it.flatten(self.shape), it.flatten(self.stride)))

    def rank(self) -> int:
        return it.rank(self.shape)

    def depth(self) -> int:
        return it.depth(self.shape)

    def __len__(self) -> int:
        return self.rank()

    def __getitem__(self, i: Any) -> "Layout":
        """Mode ``i`` as a layout (CuTe ``layout<i>``); a Python slice gives the layout of those top-level modes,
        kept as a tuple as PyCuTe does (``A[1:2] == Layout((3,), (2,))``, ``A[2:2] == Layout((), ())``; an
        int-shaped layout is one mode)."""
        if type(i) is slice:
            shape = self.shape if type(self.shape) is tuple else (self.shape,)
            stride = self.stride if type(self.stride) is tuple else (self.stride,)
            return Layout._trusted(shape[i], stride[i])  # type: ignore[index]
        if type(i) is not int or not _NEG_LIMIT < i < _LIMIT:
            i = as_int(i, "mode index", CoordinateError)
        if it.is_tuple(self.shape):
            n = len(self.shape)  # type: ignore[arg-type]
            if not -n <= i < n:
                raise CoordinateError(f"mode {i} out of range for a rank-{n} layout {self}")
            return Layout._trusted(self.shape[i], self.stride[i])  # type: ignore[index]
        if i in (0, -1):
            return self
        raise CoordinateError(f"mode {i} out of range for a rank-1 layout {self}")

    def get(self, *path: int) -> "Layout":
        """Nested mode access: ``L.get(0, 1) == L[0][1]``."""
        result = self
        for i in path:
            result = result[i]
        return result

    def __iter__(self) -> Iterator["Layout"]:
        if type(self.shape) is tuple:
            for s, d in zip(self.shape, self.stride):  # type: ignore[call-overload, arg-type]
                yield Layout._trusted(s, d)
        else:
            yield self

    def modes(self) -> list["Layout"]:
        return list(self)

    def flat(self) -> "Layout":
        """The same function with every nested mode flattened to the top level."""
        return Layout(it.flatten(self.shape), it.flatten(self.stride))

    # -- identity --------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self.shape == other.shape and self.stride == other.stride

    def __hash__(self) -> int:
        # Not cached: a cache in a slot costs a caught AttributeError (about 2 us) on every fresh layout's first
        # hash, and the memos hash mostly fresh layouts; hashing two int tuples is about 0.1 us.
        return hash((self.shape, self.stride))

    def __str__(self) -> str:
        return f"{_to_str(self.shape)}:{_to_str(self.stride)}"

    def __repr__(self) -> str:
        return f"Layout({self.shape!r}, {self.stride!r})"


_INT64_SAFE = 1 << 62


#: The most elements whole-domain evaluation returns (512 MiB of int64); past it, refused before any allocation.
MAX_WHOLE_DOMAIN = 1 << 26
#: The same limit where offsets need Python ints (a numpy object array, about 40 bytes an element).
MAX_WHOLE_DOMAIN_OBJECT = 1 << 22


def offsets_of_modes(shapes: Sequence[int], strides: Sequence[int]) -> Any:
    """All offsets of the flat layout ``shapes:strides`` in colexicographic order (numpy).

    Refuses (LayoutError) a domain above ``MAX_WHOLE_DOMAIN`` elements (``MAX_WHOLE_DOMAIN_OBJECT`` when the
    offsets pass the int64 range), checked before anything is allocated.
    """
    import numpy as np

    total = 1
    for s in shapes:
        total *= s
    bound = sum((s - 1) * abs(d) for s, d in zip(shapes, strides))
    limit = MAX_WHOLE_DOMAIN if bound < _INT64_SAFE else MAX_WHOLE_DOMAIN_OBJECT
    if total > limit:
        raise LayoutError(
            f"layout {_to_str(tuple(shapes))}:{_to_str(tuple(strides))} has {count_text(total)} elements; whole-domain "
            f"evaluation is limited to {limit} (2**{limit.bit_length() - 1}"
            f"{', offsets past int64' if limit == MAX_WHOLE_DOMAIN_OBJECT else ''}): evaluate a slice or a tile of it instead"
        )
    dtype: Any = np.int64 if bound < _INT64_SAFE else object
    out = np.zeros(1, dtype=dtype)
    for s, d in zip(shapes, strides):
        if s == 1:
            continue
        if d == 0:
            out = np.tile(out, s)
            continue
        steps = np.arange(s, dtype=np.int64).astype(dtype) * d
        out = (out[None, :] + steps[:, None]).ravel()
    return out


def index_array(indices: Any) -> Any:
    """``indices`` as a numpy integer array of non-negative 1-D indices, or CoordinateError naming the problem."""
    import numpy as np

    try:
        idx = np.asarray(indices)
    except Exception:  # noqa: BLE001 - numpy refuses ragged or odd input in several ways
        raise CoordinateError(f"indices must be an array of non-negative ints, got {describe(indices)}") from None
    if idx.dtype.kind not in "iu" and not (idx.dtype.kind == "O" and all(type(v) is int for v in idx.ravel())):
        if idx.size or idx.dtype.kind not in "fb":
            raise CoordinateError(f"indices must be an array of non-negative ints, got dtype {idx.dtype}: {describe(indices)}")
        idx = idx.astype(np.int64)  # an empty list comes back as float64
    if idx.size and int(idx.min()) < 0:
        raise CoordinateError(f"indices must be non-negative, got {int(idx.min())}")
    return idx


def evaluate_modes(shapes: Sequence[int], strides: Sequence[int], indices: Any) -> Any:
    """The flat layout ``shapes:strides`` at each non-negative 1-D index (last mode unbounded), vectorised."""
    import numpy as np

    idx = np.asarray(indices)
    top = int(idx.max()) if idx.size else 0
    bound = 0
    running = 1
    for k, (s, d) in enumerate(zip(shapes, strides)):
        digit_max = top // running if k == len(shapes) - 1 else min(s - 1, top // running)
        bound += digit_max * abs(d)
        running *= s
    dtype: Any = np.int64 if bound < _INT64_SAFE and top < _INT64_SAFE else object
    rem = idx.astype(dtype)
    out = np.zeros(idx.shape, dtype=dtype)
    last = len(shapes) - 1
    for k, (s, d) in enumerate(zip(shapes, strides)):
        if k == last:
            out += rem * d
        elif s > 1:
            if d != 0:
                out += (rem % s) * d
            rem = rem // s
    return out


_set_shape = Layout.__dict__["shape"].__set__
_set_stride = Layout.__dict__["stride"].__set__


def _index_offset(index: int, shape: IntTuple, stride: IntTuple, last: bool) -> int:
    """``L(index)`` in one pass: unfold ``index`` colexicographically (the last mode unbounded) and sum.

    Equal to ``crd2idx(idx2crd(index, shape), shape, stride)``; ``last`` says
    whether this mode is the outermost last one, which keeps counting past its extent.
    """
    if type(shape) is int:
        return (index if last else index % shape) * stride  # type: ignore[operator,return-value]
    offset = 0
    final = len(shape) - 1  # type: ignore[arg-type]
    for k, (mode, step) in enumerate(zip(shape, stride)):  # type: ignore[arg-type]
        if k == final:
            return offset + _index_offset(index, mode, step, last)
        extent = it.product(mode)
        offset += _index_offset(index % extent, mode, step, False)
        index //= extent
    return offset


def _has_none(crd: Any) -> bool:
    """Some leaf of the coordinate is None (a slice); a coordinate nested past ``MAX_DEPTH`` is refused."""
    return any_leaf(crd, _is_none, "coordinate", CoordinateError)


def _is_none(x: Any) -> bool:
    return x is None


def _check_coord(crd: Any, shape: IntTuple, path: str) -> IntTuple:
    """Normalise and validate a coordinate against ``shape`` (ints may stand for whole subtrees).

    ``path`` names the coordinate (``coordinate[1][0]``) in errors; numpy integers are ints.
    """
    if isinstance(crd, (tuple, list)):
        if not it.is_tuple(shape) or len(crd) != len(shape):  # type: ignore[arg-type]
            raise CoordinateError(
                f"{path} {describe(crd)} has rank {len(crd)} but the layout's mode there has shape {_to_str(shape)}"
            )
        return tuple(_check_coord(c, s, f"{path}[{i}]") for i, (c, s) in enumerate(zip(crd, shape)))  # type: ignore[arg-type]
    if hasattr(crd, "shape") and hasattr(crd, "dtype") and getattr(crd, "ndim", 0) != 0:
        raise CoordinateError(f"{path} must be an int or a tuple of ints, got a numpy array {describe(crd)}")
    value = as_int(crd, path, CoordinateError)
    if value < 0:
        raise CoordinateError(f"{path} {value} is negative")
    return value


def _slice_modes(crd: Any, shape: IntTuple, stride: IntTuple) -> tuple[list[tuple[IntTuple, IntTuple]], int]:
    """Kept (shape, stride) modes where ``crd`` is None, and the offset of the fixed part."""
    if crd is None:
        return [(shape, stride)], 0
    if isinstance(crd, (tuple, list)):
        if not it.is_tuple(shape) or len(crd) != len(shape):  # type: ignore[arg-type]
            raise CoordinateError(f"slice {describe(crd)} does not match the rank of shape {_to_str(shape)}")
        kept: list[tuple[IntTuple, IntTuple]] = []
        offset = 0
        for c, s, d in zip(crd, shape, stride):  # type: ignore[arg-type]
            sub_kept, sub_offset = _slice_modes(c, s, d)
            kept.extend(sub_kept)
            offset += sub_offset
        return kept, offset
    value = _check_coord(crd, shape, "slice coordinate")
    return [], it.crd2idx(value, shape, stride)


def slice_and_offset(layout: Layout, crd: Any) -> tuple[Layout, int]:
    """CuTe ``slice_and_offset``: the sub-layout over the ``None`` modes and the offset of the fixed ones.

    The kept modes are collected, flattened one level, in order: slicing
    ``((2,4),8):((1,16),2)`` by ``((None, 1), None)`` gives ``(2,8):(1,2)`` and 16.
    They stay a tuple even when one mode is kept, as in CuTe C++ (``slice`` joins the kept modes with
    ``tuple_cat``) and CuTe DSL: ``(4,4):(4,1)`` sliced by ``(1, None)`` is ``(4):(1)``, and by
    ``(None, 0)`` of ``((2,2),4)`` is ``((2,2)):((1,2))``.
    """
    kept, offset = _slice_modes(crd, layout.shape, layout.stride)
    return Layout(tuple(s for s, _ in kept), tuple(d for _, d in kept)), offset


def slice_layout(layout: Layout, crd: Any) -> Layout:
    """The sub-layout over the ``None`` modes of ``crd`` (CuTe ``slice``), without the offset."""
    return slice_and_offset(layout, crd)[0]


def _is_stride_layout(x: Any) -> bool:
    """A layout-like object with a shape and a stride (a Layout or a basis/F2-strided StrideLayout)."""
    return isinstance(x, Layout) or (hasattr(x, "shape") and hasattr(x, "stride") and not callable(x.stride))


def _layout_of_kind(shape: Any, stride: Any) -> Any:
    """``shape:stride`` as the layout class its leaves need: sympy leaves give a
    :class:`~layoutalg.core.symbolic.SymbolicLayout`, basis (``E<i>``) or F2 strides a
    :class:`~layoutalg.core.stride_layout.StrideLayout`, plain ints a :class:`Layout`."""
    from layoutalg.core.stride_scalars import F2, ArithTuple  # the upper core modules import this one
    from layoutalg.core.symbolic import has_sym, symbolic_layout

    check_depth(shape, "shape")
    check_depth(stride, "stride")
    if has_sym(shape) or (stride is not None and has_sym(stride)):
        return symbolic_layout(shape, stride)
    if stride is not None and any_leaf(stride, lambda d: isinstance(d, (ArithTuple, F2)), "stride"):
        from layoutalg.core.stride_layout import stride_layout

        return stride_layout(shape, stride)
    return Layout(shape, stride)


def make_layout(*args: Any, stride: Any = None) -> Layout:
    """CuTe's ``make_layout`` in its C++ and CuTe DSL spellings.

    * ``make_layout(shape, stride=None)`` (CuTe DSL), ``make_layout(shape, stride)`` (C++): the layout
      ``shape:stride``; no stride is compact column-major (``LayoutLeft``);
    * ``make_layout(L0, L1, ...)`` (C++) or ``make_layout([L0, L1, ...])`` (CuTe DSL): the layout whose
      modes are the given layouts; layouts with basis (``E<i>``) or GF(2) strides among them give a
      :class:`~layoutalg.core.stride_layout.StrideLayout`; no layouts (``make_layout()``,
      ``make_layout([])``) give the rank-0 layout ``():()`` of size 1; a generator of layouts is read as
      their list (PyCuTe's callers pass one).
    * a stride with basis (``E<i>``, as in CuTe's ``make_identity_layout``) or F2 leaves gives a
      :class:`~layoutalg.core.stride_layout.StrideLayout`, sympy leaves a
      :class:`~layoutalg.core.symbolic.SymbolicLayout` (``make_layout((4,5), (E(0),E(1)))``).
    """
    if len(args) == 1 and isinstance(args[0], Iterator):  # a generator of layouts, as PyCuTe's callers pass
        args = (list(args[0]),)
    if (not args and stride is None) or (len(args) == 1 and isinstance(args[0], (list, tuple)) and not args[0]
                                         and stride is None):
        return Layout._trusted((), ())  # no modes (C++ make_layout(), PyCuTe make_layout([])): rank 0, size 1
    if args and all(isinstance(a, Layout) for a in args):
        layouts: Sequence[Any] = args
    elif args and stride is None and all(_is_stride_layout(a) for a in args) \
            and not all(isinstance(a, Layout) for a in args):
        from layoutalg.core.stride_layout import stride_layout  # basis or F2 strides

        return stride_layout(tuple(x.shape for x in args), tuple(x.stride for x in args))  # type: ignore[no-any-return]
    elif len(args) == 1 and isinstance(args[0], (list, tuple)) and args[0] \
            and all(isinstance(a, Layout) for a in args[0]):
        layouts = args[0]
    else:
        if not 1 <= len(args) <= 2:
            raise ShapeError(f"make_layout takes (shape, stride=None) or layouts, got {len(args)} arguments")
        if len(args) == 2:
            if stride is not None:
                raise ShapeError("make_layout: stride given twice (positionally and as stride=)")
            stride = args[1]
        for i, a in enumerate(args):
            if isinstance(a, Layout):
                raise ShapeError(f"make_layout argument {i} is a Layout among shapes: pass only layouts, or a shape "
                                 "and a stride")
        return _layout_of_kind(args[0], stride)
    if stride is not None:
        raise ShapeError("make_layout of layouts takes no stride=")
    return Layout(tuple(lay.shape for lay in layouts), tuple(lay.stride for lay in layouts))


def as_layout(x: Any, what: str = "layout") -> Layout:
    """Accept a ``Layout``, an int shape, or a shape tuple (compact column-major)."""
    if isinstance(x, Layout):
        return x
    if it.is_int(x) or isinstance(x, (tuple, list)) or (hasattr(x, "__index__") and getattr(x, "ndim", 0) == 0):
        return Layout(x)
    raise ShapeError(f"{what} must be a Layout or a shape, got {describe(x)}")


def wrap_modes(layout: Layout) -> Sequence[Layout]:
    """The top-level modes of ``layout``; a rank-1 int layout is its own single mode."""
    return list(layout) if it.is_tuple(layout.shape) else [layout]


__all__ = [
    "Layout",
    "slice_and_offset",
    "slice_layout",
    "make_layout",
    "as_layout",
    "wrap_modes",
    "offsets_of_modes",
    "evaluate_modes",
]

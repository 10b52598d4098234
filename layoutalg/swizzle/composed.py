"""``ComposedLayout(outer, offset, inner)``: the function ``c -> outer(offset + inner(c))``.

CuTe's ``ComposedLayout<A, O, B>`` (cute/layout_composed.hpp) with ``A`` a
:class:`~layoutalg.swizzle.swizzle.Swizzle` or a plain
:class:`~layoutalg.core.layout.Layout`, ``O`` an int and ``B`` a ``Layout``.
Its domain (shape, size, rank, modes) is the inner layout's; it prints as CuTe
prints it, ``Sw<3,4,3> o _0 o (8,64):(64,1)``.

Differences from CuTe, each for exactness:
  * ``cosize()`` is one past the largest offset the function actually
    reaches.  CuTe returns ``cosize(inner)``, which is too small when the
    swizzle moves an offset above the inner layout's range (e.g.
    ``Sw<1,0,1> o _0 o 1:2`` reaches offset 3, not 2).
  * slicing (``C(None, 3)``) keeps the function: it returns a plain ``Layout``
    when the sliced function is linear (affine with value 0 at the origin: the
    swizzle cancels on that slice), checked on every element of the slice;
    otherwise CuTe's ``outer o (offset + slice offset) o slice``.  So
    ``C(None, 3)(i) == C(i, 3)`` always (CuTe's own rule for composed layouts;
    only a plain layout's slice drops its offset).
"""

from __future__ import annotations

from typing import Any, Iterator, Union

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout, _has_none, slice_and_offset
from layoutalg.core.validate import as_int, describe
from layoutalg.errors import CompositionError, CoordinateError, LayoutError, ShapeError
from layoutalg.swizzle.swizzle import Swizzle

Outer = Union[Swizzle, Layout]

# Largest slice the exact affine check enumerates; larger slices stay composed.
_MAX_REDUCE = 1 << 22
# Largest domain whose cosize is computed (by evaluating every element).
_MAX_COSIZE = 1 << 22


def eval_layout_at(layout: Layout, index: Any) -> Any:
    """Evaluate ``layout`` at every 1-D index of a numpy int array (the last mode keeps counting, as in CuTe)."""
    import numpy as np

    index = np.asarray(index, dtype=np.int64)
    if index.size and int(index.min()) < 0:
        raise CoordinateError(f"layout {layout} evaluated at a negative index {int(index.min())}")
    shape = it.flatten(layout.shape)
    stride = it.flatten(layout.stride)
    offsets = np.zeros_like(index)
    top = int(index.max()) if index.size else 0
    bound = 0
    running = 1
    for k, (extent, step) in enumerate(zip(shape, stride)):
        if running > top:  # every index's remaining digits are 0
            break
        last = k == len(shape) - 1
        bound += abs(step) * (top // running if last else min(extent - 1, top // running))
        if bound >= 1 << 62:
            raise CompositionError(f"layout {layout} reaches offsets past 2**62 at indices up to {top}; they are "
                                   "not evaluated element by element")
        digit = index // running if last else (index // running) % extent
        if step != 0:
            offsets += digit * step
        running *= extent
    return offsets


class ComposedLayout:
    """``outer o offset o inner``: evaluates ``outer(offset + inner(c))``."""

    __slots__ = ("outer", "offset", "inner", "_hash")

    outer: Outer
    offset: int
    inner: Layout
    _hash: int

    def __init__(self, outer: Any, offset: Any, inner: Any) -> None:
        if not isinstance(outer, (Swizzle, Layout)):
            raise LayoutError(f"ComposedLayout outer must be a Swizzle or a Layout, got {describe(outer)}")
        offset = as_int(offset, "ComposedLayout offset")
        if not isinstance(inner, Layout):
            raise LayoutError(f"ComposedLayout inner must be a Layout, got {describe(inner)}")
        object.__setattr__(self, "outer", outer)
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "inner", inner)
        object.__setattr__(self, "_hash", hash(("ComposedLayout", outer, offset, inner)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ComposedLayout is immutable")

    # -- evaluation --------------------------------------------------------
    def __call__(self, *args: Any) -> Any:
        """Evaluate at an index or coordinate; a coordinate holding ``None`` slices (see :func:`slice_composed`)."""
        if not args:
            raise CoordinateError("a layout takes a coordinate or an index")
        crd = args[0] if len(args) == 1 else tuple(args)
        if _has_none(crd):
            return slice_function(self, crd)
        return self.outer(self.offset + self.inner(crd))  # the inner layout validates the coordinate

    def to_numpy(self) -> Any:
        """Every value ``C(0), ..., C(size-1)`` as one int64 numpy array (vectorised).

        LayoutError when an offset could leave the int64 range (use ``C(i)`` on Python ints there).
        """
        reach = abs(self.offset) + sum(
            (s - 1) * abs(d) for s, d in zip(it.flatten(self.inner.shape), it.flatten(self.inner.stride))
        )
        if isinstance(self.outer, Swizzle):
            reach = max(reach, self.outer.swizzle_code)
        if reach >= 1 << 62:
            raise LayoutError(f"{self}: offsets reach {reach}, past the int64 range of vectorised evaluation")
        positions = self.offset + self.inner.to_numpy()
        if isinstance(self.outer, Swizzle):
            return self.outer(positions)
        return eval_layout_at(self.outer, positions)

    def values(self) -> list[int]:
        """Every value as a Python list (at most ``2**22``, as :meth:`Layout.values`)."""
        if self.size() > _MAX_COSIZE:
            raise LayoutError(f"values() of {self}: {self.size()} elements is over the {_MAX_COSIZE} listed here")
        return [int(v) for v in self.to_numpy()]

    # -- structure (the inner layout's domain) -----------------------------
    @property
    def shape(self) -> Any:
        return self.inner.shape

    def size(self) -> int:
        return self.inner.size()

    def cosize(self) -> int:
        """One past the largest value the function reaches (see the module note on CuTe's cosize).

        Computed over the whole domain; above 2**22 elements a LayoutError
        (rather than an answer that might be wrong or an exhausted memory).
        """
        if self.size() > _MAX_COSIZE:
            raise LayoutError(f"cosize of {self}: {self.size()} elements is over the {_MAX_COSIZE} evaluated exactly")
        return int(self.to_numpy().max()) + 1

    def rank(self) -> int:
        return self.inner.rank()

    def depth(self) -> int:
        return self.inner.depth()

    def __len__(self) -> int:
        return self.rank()

    def __getitem__(self, i: int) -> "ComposedLayout":
        """Mode ``i``: ``outer o offset o inner[i]`` (CuTe ``layout<i>``)."""
        return ComposedLayout(self.outer, self.offset, self.inner[i])

    def get(self, *path: int) -> "ComposedLayout":
        return ComposedLayout(self.outer, self.offset, self.inner.get(*path))

    def __iter__(self) -> Iterator["ComposedLayout"]:
        for i in range(self.rank()):
            yield self[i]

    def modes(self) -> list["ComposedLayout"]:
        return list(self)

    def flat(self) -> "ComposedLayout":
        return ComposedLayout(self.outer, self.offset, self.inner.flat())

    def with_inner(self, inner: Layout) -> "ComposedLayout":
        """The same outer function and offset over another inner layout."""
        return ComposedLayout(self.outer, self.offset, inner)

    # -- identity ----------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ComposedLayout)
            and self.outer == other.outer
            and self.offset == other.offset
            and self.inner == other.inner
        )

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return f"{self.outer} o _{self.offset} o {self.inner}"

    def __repr__(self) -> str:
        return f"ComposedLayout({self.outer!r}, {self.offset!r}, {self.inner!r})"


AnyLayout = Union[Layout, ComposedLayout]


def make_composed_layout(*args: Any, inner: Any = None, offset: Any = None, outer: Any = None) -> ComposedLayout:
    """CuTe ``make_composed_layout(f, offset, g)``: the function ``c -> f(offset + g(c))``.

    Positionally as in C++ and CuTe DSL: ``make_composed_layout(make_swizzle(3, 3, 3), 0, layout)``.
    The keywords are CuTe DSL's, whose names are the reverse of this package's attributes: CuTe DSL's
    ``inner`` is the function applied *last* (the swizzle, our ``.outer``) and its ``outer`` the layout
    applied first (our ``.inner``), so ``make_composed_layout(inner=sw, offset=0, outer=L)`` is
    ``ComposedLayout(sw, 0, L)``, as in CuTe DSL.
    """
    if len(args) > 3:
        raise LayoutError(f"make_composed_layout takes 3 arguments (function, offset, layout), got {len(args)}")
    given = list(args) + [None] * (3 - len(args))
    for k, (name, value) in enumerate((("inner", inner), ("offset", offset), ("outer", outer))):
        if value is not None:
            if given[k] is not None:
                raise LayoutError(f"make_composed_layout: {name} given twice (positionally and as {name}=)")
            given[k] = value
    if given[0] is None or given[2] is None:
        raise LayoutError("make_composed_layout needs the function applied last (a Swizzle or Layout; CuTe DSL's "
                          "inner=) and the layout applied first (CuTe DSL's outer=)")
    return ComposedLayout(given[0], 0 if given[1] is None else given[1], given[2])


def fit_affine(values: Any, shape: Any) -> tuple[Layout, int] | None:
    """The plain layout ``L`` and offset ``o`` with ``values[i] == o + L(i)`` for every ``i``, or None.

    ``values`` holds a function's value at every index of ``shape``
    (colexicographic).  Strides are read off at the unit coordinate of each
    leaf mode, then the affine candidate is checked on every element.
    """
    import numpy as np

    flat_shape = it.flatten(shape)
    base = int(values[0])
    strides = []
    running = 1
    for extent in flat_shape:
        strides.append(int(values[running]) - base if extent > 1 else 0)
        running *= extent
    candidate = Layout(shape, it.unflatten(strides, shape))
    if not np.array_equal(values, base + candidate.to_numpy()):
        return None
    return candidate, base


def reduce_if_affine(composed: ComposedLayout) -> tuple[AnyLayout, int]:
    """``(L, o)`` with ``composed(c) == o + L(c)`` everywhere: a plain ``L`` where the function is affine.

    Returns ``(composed, 0)`` unchanged when it is not affine (or too large to check).
    """
    if composed.size() > _MAX_REDUCE:
        return composed, 0
    fitted = fit_affine(composed.to_numpy(), composed.shape)
    if fitted is None:
        return composed, 0
    return fitted


def slice_composed(composed: ComposedLayout, crd: Any) -> tuple[AnyLayout, int]:
    """CuTe ``slice_and_offset`` for a composed layout: ``(S, o)`` with ``C(crd filled by c) == o + S(c)``.

    An all-``None`` coordinate returns the layout unchanged.  Otherwise the
    inner layout is sliced, its offset folded into the composed offset, and the
    result reduced to a plain layout when the sliced function is affine
    (the swizzle cancels on it), with the base offset returned separately, as
    for a plain layout.
    """
    if _all_none(crd):
        if crd is not None:
            _check_none_rank(crd, composed.inner.shape)
        return composed, 0
    sub, sub_offset = slice_and_offset(composed.inner, crd)
    sliced = ComposedLayout(composed.outer, composed.offset + sub_offset, sub)
    return reduce_if_affine(sliced)


def slice_function(composed: ComposedLayout, crd: Any) -> AnyLayout:
    """CuTe ``slice`` for a composed layout: ``S`` with ``S(c) == C(crd filled by c)`` (no offset is lost).

    A plain layout when the slice is linear (the affine fit of
    :func:`slice_composed` with base 0), otherwise ``outer o (offset + o) o
    slice(inner)``, the form CuTe returns.
    """
    sliced, base = slice_composed(composed, crd)
    if base == 0 or isinstance(sliced, ComposedLayout):
        return sliced
    sub, sub_offset = slice_and_offset(composed.inner, crd)
    return ComposedLayout(composed.outer, composed.offset + sub_offset, sub)


def _all_none(crd: Any) -> bool:
    if crd is None:
        return True
    if isinstance(crd, (tuple, list)):
        return all(_all_none(c) for c in crd)
    return False


def _check_none_rank(crd: Any, shape: Any) -> None:
    if isinstance(crd, (tuple, list)):
        if not it.is_tuple(shape) or len(crd) != len(shape):
            raise ShapeError(f"slice {describe(crd)} does not match the rank of shape {shape}")
        for c, s in zip(crd, shape):
            _check_none_rank(c, s)


__all__ = [
    "ComposedLayout",
    "AnyLayout",
    "make_composed_layout",
    "eval_layout_at",
    "fit_affine",
    "reduce_if_affine",
    "slice_composed",
    "slice_function",
]

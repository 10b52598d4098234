"""One thread's share of a tensor (:class:`Partition`) and the helpers the tiled atoms share.

A :class:`Partition` is what CuTe's ``partition_S/D/A/B/C`` return, as data: the
shape ``(V, Rest...)`` and, for each value, its coordinate in the tensor and the
offset the tensor's layout (plain or swizzled) gives it.  ``_synth`` turns a
pointwise ``(thread, value) -> index`` map into a :class:`Layout`, checked at
every point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe, plain_int
from layoutalg.errors import LayoutError, ShapeError


def _as_layout(x: Any, what: str) -> Layout:
    if isinstance(x, Layout):
        return x
    x = plain_int(x, what)
    if it.is_int(x) or isinstance(x, (tuple, list)):
        return Layout(x)
    raise ShapeError(f"{what} must be a Layout or a shape, got {describe(x)}")


def _synth(fn: Callable[[int, int], int], nthr: int, nval: int, what: str) -> Layout:
    """The Layout ``(thr, val) -> fn(thr, val)`` on ``nthr x nval``, checked at every point (so ``fn(0, 0) == 0``)."""
    import numpy as np

    from layoutalg.core.algebra import synthesise_1d

    table = np.array([[fn(t, v) for v in range(nval)] for t in range(nthr)], dtype=np.int64)
    modes = []
    for vals, n in ((table[:, 0], nthr), (table[0, :], nval)):
        pairs = synthesise_1d(vals) if n > 1 else [(1, 0)]
        if pairs is None:
            raise LayoutError(f"{what} is not a layout: values {[int(x) for x in vals[:16]]}... follow no shape:stride")
        if len(pairs) == 1:
            modes.append(pairs[0])
        else:
            modes.append((tuple(s for s, _ in pairs), tuple(d for _, d in pairs)))  # type: ignore[arg-type]
    layout = Layout((modes[0][0], modes[1][0]), (modes[0][1], modes[1][1]))
    if not np.array_equal(layout.to_numpy().reshape(nval, nthr).T, table):
        raise LayoutError(f"{what}: the (thread, value) map is not additive across threads and values")
    return layout


def _permutation_layout(perm: Any, extent: int, what: str) -> Layout:
    """``(perm, complement(perm, extent))``: 1-D index into CuTe's ``logical_divide(mode, perm)`` -> index."""
    from layoutalg.core.algebra import complement

    p = _as_layout(perm, what)
    if extent % p.size():
        raise LayoutError(f"{what} has size {p.size()}, which does not divide the tensor extent {extent}")
    rest = complement(p, extent)
    return Layout((p.shape, rest.shape), (p.stride, rest.stride))


@dataclass(frozen=True)
class Partition:
    """One thread's share of a tensor: ``shape = (V, Rest...)``; per value its coordinate and offset.

    Values are numbered colexicographically over ``shape`` (as CuTe's flat index
    into the partitioned tensor); ``coords[i]`` holds one 1-D index per mode of
    the tensor, ``offsets[i] = tensor(coords[i])``.
    """

    thread: int
    shape: tuple[int, ...]
    coords: tuple[tuple[int, ...], ...]
    offsets: tuple[int, ...]

    def size(self) -> int:
        return len(self.offsets)

    def _index(self, idx: Sequence[int]) -> int:
        if len(idx) == 1:
            i = int(idx[0])
            if not 0 <= i < self.size():
                raise LayoutError(f"index {i} out of range for a partition of size {self.size()}")
            return i
        if len(idx) != len(self.shape):
            raise LayoutError(f"a coordinate for shape {self.shape} has {len(self.shape)} entries, got {tuple(idx)}")
        flat = 0
        for c, s, stride in zip(idx, self.shape, it.flatten(it.prefix_product(self.shape))):  # type: ignore[arg-type]
            if not 0 <= c < s:
                raise LayoutError(f"coordinate {tuple(idx)} out of range for shape {self.shape}")
            flat += c * stride
        return flat

    def __call__(self, *idx: int) -> int:
        return self.offsets[self._index(idx)]

    def coord(self, *idx: int) -> tuple[int, ...]:
        return self.coords[self._index(idx)]

    def affine(self) -> tuple[Layout, int] | None:
        """``(L, base)`` with ``offset == base + L(v, rest...)`` for every value, as CuTe's partitioned
        tensor (pointer advanced by ``base``, layout ``L``); None when no plain layout fits (swizzled)."""
        import numpy as np

        from layoutalg.swizzle.composed import fit_affine

        return fit_affine(np.array(self.offsets, dtype=np.int64), self.shape)

    def __str__(self) -> str:
        return f"Partition(thread {self.thread}, shape {self.shape}, offsets {list(self.offsets)})"


def _tensor_values(tensor: Any, what: str) -> tuple[Any, tuple[int, ...]]:
    """(all offsets in colex index order, top-level mode sizes) of a Layout/ComposedLayout/shape."""
    import numpy as np

    tensor = plain_int(tensor, what)
    if it.is_int(tensor) or isinstance(tensor, (tuple, list)):
        tensor = Layout(tensor)
    if not hasattr(tensor, "to_numpy") or not hasattr(tensor, "shape"):
        raise ShapeError(f"{what} must be a Layout, a ComposedLayout or a shape, got {describe(tensor)}")
    shape = tensor.shape
    modes = tuple(it.product(s) for s in shape) if it.is_tuple(shape) else (it.product(shape),)
    return np.asarray(tensor.to_numpy(), dtype=np.int64), modes


def _make_partition(thread: int, shape: tuple[int, ...], coords: Sequence[tuple[int, ...]], flat_values: Any,
                    modes: tuple[int, ...]) -> Partition:
    strides = it.flatten(it.prefix_product(modes))
    offsets = tuple(int(flat_values[sum(c * s for c, s in zip(crd, strides))]) for crd in coords)
    return Partition(thread, shape, tuple(coords), offsets)



def _int_coords(crd: Any) -> tuple[int, ...]:
    return tuple(int(c) for c in crd) if isinstance(crd, tuple) else (int(crd),)



__all__ = ["Partition"]

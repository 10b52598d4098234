"""Triton's distributed layouts and CuTe TV layouts: one linear map, two spellings.

A CuTe TV layout ``(thread, value) -> m + M*n`` over an ``M x N`` tile is a Triton distributed linear layout
when it is linear over GF(2): thread ``t`` is lane ``t % 32`` of warp ``t // 32`` (the warps follow from the
thread count), value ``v`` is register ``v``, and the basis of each input bit is the ``[m, n]`` it reaches.
Triton also needs whole warps, power-of-two extents and a map onto the whole tile (it aborts on others), so
:func:`distributed_form` refuses anything else with a LayoutError saying which; :func:`tv_from_bases` reads
the bases back as the TV layout ``((lane, warp), register)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.validate import describe, plain_int
from layoutalg.errors import LayoutError
from layoutalg.interop import triton_text as tt
from layoutalg.interop.function import f2_bit_layout, integer_values
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.f2 import BitMatrix, from_f2

LANES = 32


@dataclass(frozen=True)
class DistributedForm:
    """A distributed linear layout, library-neutral: bases per input dim (each a ``[dim0, dim1]`` list)."""

    reg: tuple[tuple[int, ...], ...]
    lane: tuple[tuple[int, ...], ...]
    warp: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...]
    shape: tuple[int, ...]

    @property
    def num_warps(self) -> int:
        return 1 << len(self.warp)

    def text(self) -> str:
        return tt.linear_text(self.reg, self.lane, self.warp, self.block)


def _pow2(n: Any, what: str) -> int:
    n = plain_int(n, what)  # numpy's integers too
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0 or n & (n - 1):
        raise LayoutError(f"{what} must be a positive power of two, got {describe(n)}")
    return n.bit_length() - 1


def extents_of(shape: Any, what: str) -> tuple[Any, ...] | None:
    """``shape`` as a tuple of extents (Python or numpy integers): an integer, a tuple or list, a 1-D numpy array;
    None for anything else (the caller says what it takes)."""
    value = plain_int(shape, what)
    if type(value) is int:  # a bool stays a bool
        return (value,)
    if getattr(shape, "ndim", None) == 1 and hasattr(shape, "tolist"):  # a numpy array of extents
        shape = shape.tolist()
    if isinstance(shape, (tuple, list)):
        return tuple(plain_int(e, f"{what} extent {k}") for k, e in enumerate(shape))
    return None


def _tile(tile: Any) -> tuple[int, ...]:
    extents = extents_of(tile, "tile")
    if extents is None:
        raise LayoutError(f"tile must be (M, N), (M,) or (M, N, K, ...), got {type(tile).__name__}")
    if not extents:
        raise LayoutError(f"tile must be (M, N), (M,) or (M, N, K, ...), got {describe(tile)}")
    for k, e in enumerate(extents):
        _pow2(e, f"tile extent {k}")
    return extents


def _coordinate(index: int, shape: Sequence[int]) -> tuple[int, ...]:
    out = []
    for e in shape:
        out.append(index % e)
        index //= e
    return tuple(out)


def _flat(basis: Sequence[int], shape: Sequence[int]) -> int:
    """The colexicographic index of the coordinate ``basis`` in ``shape`` (LayoutError outside the shape)."""
    if len(basis) != len(shape) or any(not 0 <= int(c) < int(e) for c, e in zip(basis, shape)):
        raise LayoutError(f"the basis {list(basis)} is not a coordinate of the shape {list(shape)} (each entry "
                          "within [0, extent))")
    index, scale = 0, 1
    for c, e in zip(basis, shape):
        index += int(c) * scale
        scale *= e
    return index


def _linear_columns(values: Any, what: str) -> list[int]:
    """The GF(2) columns of ``values`` (indexed by a power-of-two domain), or a LayoutError with a witness."""
    import numpy as np

    size = len(values)
    bits = size.bit_length() - 1
    columns = [int(values[1 << k]) for k in range(bits)]
    index = np.arange(size, dtype=np.int64)
    expect = np.zeros(size, dtype=np.int64)
    for k, c in enumerate(columns):
        expect ^= ((index >> k) & 1) * c
    wrong = np.nonzero(expect != np.asarray(values, dtype=np.int64))[0]
    if len(wrong):
        i = int(wrong[0])
        raise LayoutError(f"{what} is not linear over GF(2) (index {i} gives {int(values[i])}, the XOR of its bits' "
                          f"images is {int(expect[i])}); Triton's linear layouts cannot represent it")
    return columns


# --------------------------------------------------------------------------- distributed: TV layouts


def distributed_form(tv: Any, tile: Any) -> DistributedForm:
    """The Triton distributed linear layout of a CuTe TV layout over ``tile`` (see the module docstring)."""
    import numpy as np

    if not isinstance(tv, (Layout, ComposedLayout, StrideLayout)) or not isinstance(tv.shape, tuple) or \
            len(tv.shape) != 2:
        raise LayoutError(f"a TV layout has two top-level modes (thread, value); got {describe(tv)}")
    shape = _tile(tile)
    threads, values_per = it.product(tv.shape[0]), it.product(tv.shape[1])
    thread_bits = _pow2(threads, f"the thread count of {tv}")
    _pow2(values_per, f"the value count of {tv}")
    if threads < LANES:
        raise LayoutError(f"{tv} has {threads} threads; a Triton distributed layout spans whole warps of {LANES}")
    # a layout with F2 strides too, as tv_from_bases returns for XOR maps of no swizzle form
    values = np.asarray(integer_values(tv, 1 << 24, "a Triton TV layout"), dtype=np.int64)
    size = int(np.prod(shape))
    outside = np.nonzero((values < 0) | (values >= size))[0]
    if len(outside):
        i = int(outside[0])
        raise LayoutError(f"{tv} maps thread {i % threads}, value {i // threads} to {int(values[i])}, outside the "
                          f"{'x'.join(map(str, shape))} tile")
    columns = _linear_columns(values, str(tv))
    reached = np.zeros(size, dtype=bool)
    reached[values] = True
    if not reached.all():
        raise LayoutError(f"{tv} reaches {int(reached.sum())} of the {size} elements of the tile; Triton needs "
                          "a layout onto the whole tensor (choose the tile it covers)")
    bases = [_coordinate(c, shape) for c in columns]
    return DistributedForm(tuple(bases[thread_bits:]), tuple(bases[:5]), tuple(bases[5:thread_bits]), (), shape)


def tv_from_bases(reg: Any, lane: Any, warp: Any, block: Any, shape: Sequence[int]) -> Any:
    """The CuTe TV layout ``((lane, warp), register) -> m + M*n`` of a Triton distributed linear layout."""
    if block and any(any(v for v in b) for b in block):
        raise LayoutError("a layout spread over several CTAs (non-zero block bases) has no CuTe TV form; "
                          "read one CTA's layout")
    if len(lane) != 5:
        raise LayoutError(f"a distributed layout has {len(lane)} lane bases; Triton's warps have {LANES} lanes")
    for k, e in enumerate(shape):
        _pow2(int(e), f"shape[{k}]")
    thread_cols = [_flat(b, shape) for b in (*lane, *warp)]
    reg_cols = [_flat(b, shape) for b in reg]
    n_out = sum(int(e).bit_length() - 1 for e in shape)
    matrix = BitMatrix(len(thread_cols) + len(reg_cols), n_out, tuple(thread_cols + reg_cols))
    try:
        if not reg_cols:
            thread = from_f2(BitMatrix(len(thread_cols), n_out, tuple(thread_cols)))
            if isinstance(thread, Layout):
                return Layout((thread.shape, 1), (thread.stride, 0))
        return from_f2(matrix, mode_bits=[len(thread_cols), len(reg_cols)])
    except LayoutError:  # XOR maps of no swizzle form (two bases on one bit, ...): one F2 stride per input bit
        if n_out > 64:  # refused for its size (from_f2's own limit), not for its form
            raise
        return f2_bit_layout((1 << len(thread_cols), 1 << len(reg_cols)), thread_cols + reg_cols)


__all__ = ["LANES", "DistributedForm", "distributed_form", "tv_from_bases"]

"""Triton's shared-memory encodings as functions, and the narrowest one that equals a given smem layout.

A Triton shared layout maps an element ``offset`` to a logical coordinate ``(dim0, dim1, ...)`` of an
``[M, N, ...]`` tensor; for the linear encodings it is given by one basis per offset bit (the coordinate of
offset ``2**k``; the coordinate of any offset is the XOR of its bits' bases).  The formulas below are
Triton's (``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`` and the Gluon docstrings), and the tests
check every one against the address computations Triton itself emits (``tests/oracles/triton_llir.py``):

* ``SwizzledSharedLayout(vec, per_phase, max_phase, order)``: the contiguous dim ``c = order[0]`` takes the
  low ``log2 shape[c]`` offset bits unchanged; row bit ``r`` (row ``2**r`` of dim ``order[1]``) also moves
  the column by ``vec * ((2**r // per_phase) % max_phase) % shape[c]``; further dims (rank 3 and up) follow
  unswizzled in ``order``.
* ``NVMMASharedLayout(swizzle_byte_width W, element_bitwidth b, transposed)``: a tile of 8 rows by
  ``8 * W / b`` columns swizzled with ``vec = 128 / b``, ``per_phase = 128 / W``, ``max_phase = W / 16``,
  repeated first along the rows, then along the columns; the contiguous dim is dim1, or dim0 when
  ``transposed``.  This is CuTe's GMMA K-major atom (MN-major when transposed) tiled by ``tile_to_shape``
  (for MN-major, only when tiled along one dim: Triton repeats K first, CuTe M first).  ``W = 0`` is plain
  row-major, ``transposed`` or not (Triton 3.6's code; CuTe's INTER atoms agree only while one atom spans
  the row), at any shape (Triton compiles ``[32, 2]`` f16 so); a swizzled shape must hold at least 8 rows of
  ``W`` bytes.  All of it within a TMA box of at most 256 elements per dim, which then repeats (unswizzled:
  the last dim first; swizzled: dim 0 first), so rows of more than 256 elements are not contiguous; at rank 3
  the leading dims are collapsed into rows (:func:`nvmma_bases`).
* ``PaddedSharedLayout(interval_padding_pairs, offset_bases)``: the linear map of the *unpadded* offset
  ``u`` (``offset_bases``), stored at ``u + sum((u // interval) * padding)``.
* ``SharedLinearLayout(offset_bases)``: any linear bijection.

:func:`shared_form` picks, for a layoutalg smem layout (``(m, n) -> element offset``), the first of NVMMA,
swizzled, padded, linear that equals it on every element, or raises :class:`LayoutError` saying why none does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError
from layoutalg.interop.function import integer_values

Basis = list[int]

#: Largest smem layout (elements) examined element by element.
MAX_ELEMENTS = 1 << 22
#: Largest rank of a smem layout exported (each dim order of a swizzled layout is tried: MAX_RANK! of them).
MAX_RANK = 5


def _log2(n: int, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0 or n & (n - 1):
        raise LayoutError(f"{what} must be a positive power of two, got {describe(n)}")
    return n.bit_length() - 1


def _unit(rank: int, dim: int, value: int) -> Basis:
    out = [0] * rank
    out[dim] = value
    return out


def swizzled_bases(shape: Sequence[int], vec: int, per_phase: int, max_phase: int, order: Sequence[int]) -> list[Basis]:
    """Offset bases of ``SwizzledSharedLayout`` on ``shape`` (see the module docstring): rank 1 is the identity; from
    rank 2 the dims ``order[0]`` (columns) and ``order[1]`` (rows) are swizzled and every further dim of ``order``
    follows unswizzled, in that order."""
    for name, value in (("vec", vec), ("per_phase", per_phase), ("max_phase", max_phase)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise LayoutError(f"a swizzled shared layout's {name} is a positive integer, got {describe(value)}")
    rank = len(shape)
    if rank == 1:
        return [[1 << k] for k in range(_log2(shape[0], "shape[0]"))]
    if rank < 1 or sorted(order) != list(range(rank)):
        raise LayoutError(f"a swizzled shared layout's order is a permutation of the {rank} dims of shape "
                          f"{list(shape)}, got {describe(order)}")
    col, row = order[0], order[1]
    n_cols = shape[col]
    bases = [_unit(rank, col, 1 << k) for k in range(_log2(n_cols, "column extent"))]
    for k in range(_log2(shape[row], "row extent")):
        basis = _unit(rank, row, 1 << k)
        basis[col] = (vec * (((1 << k) // per_phase) % max_phase)) % n_cols
        bases.append(basis)
    for dim in order[2:]:
        bases += [_unit(rank, dim, 1 << k) for k in range(_log2(shape[dim], f"extent of dim {dim}"))]
    return bases


#: Triton's NVMMA layouts are built over a TMA box, at most this many elements along each dim, then repeated.
TMA_BOX_MAX = 256


def _unit_bits(rank: int, dim: int, low: int, high: int) -> list[Basis]:
    """The unit bases of ``dim`` for the coordinates ``low, 2*low, ...`` below ``high`` (powers of two)."""
    out = []
    step = low
    while step < high:
        out.append(_unit(rank, dim, step))
        step *= 2
    return out


def _row_major(flat: int, extents: Sequence[int]) -> list[int]:
    """The coordinate of ``flat`` in ``extents``, the last dim fastest."""
    coord = [0] * len(extents)
    for d in reversed(range(len(extents))):
        coord[d] = flat % extents[d]
        flat //= extents[d]
    return coord


def nvmma_bases(shape: Sequence[int], swizzle_bytes: int, element_bits: int, transposed: bool) -> list[Basis] | None:
    """Offset bases of ``NVMMASharedLayout`` on ``shape`` (rank 2 or more; rank 1 unswizzled); None where Triton
    has no such layout (it stops with "Illegal shared layout" there).

    As Triton 3.6 builds it: the layout is first made over the TMA box (each extent clamped to 256; when swizzled,
    the contiguous dim, the last or the first when ``transposed``, is one swizzle row of ``8 * W / b`` elements),
    then repeated to ``shape``.  Unswizzled, the box is row-major (the last dim fastest) and it repeats along the
    last dim first.  Swizzled, the box's dims other than the contiguous one are collapsed row-major into rows (the
    contiguous one into columns; swapped when ``transposed``); the 8-row swizzle tile repeats along the rows, the
    rows are reshaped row-major onto the box (``transposed``: onto the box with the first dim moved last, then
    moved back), and the box repeats along dim 0 first."""
    rank = len(shape)
    if element_bits not in (8, 16, 32, 64) or swizzle_bytes not in (0, 32, 64, 128) or rank < 1:
        return None
    for d, extent in enumerate(shape):
        _log2(extent, f"extent of dim {d}")
    box = [min(int(e), TMA_BOX_MAX) for e in shape]
    if swizzle_bytes == 0:
        bases = [b for d in reversed(range(rank)) for b in _unit_bits(rank, d, 1, box[d])]
        return bases + [b for d in reversed(range(rank)) for b in _unit_bits(rank, d, box[d], shape[d])]
    if rank < 2:
        return None
    tile_cols = 8 * swizzle_bytes // element_bits
    contig = 0 if transposed else rank - 1
    if shape[contig] < tile_cols:
        return None
    box[contig] = tile_cols
    leading = it.product(tuple(box[:-1]))
    rows, cols = (box[-1], leading) if transposed else (leading, box[-1])
    if rows < 8:
        return None
    vec, per_phase, max_phase = 128 // element_bits, 128 // swizzle_bytes, swizzle_bytes // 16
    tile = [(0, 1 << k) for k in range(_log2(tile_cols, "tile columns"))]
    tile += [(1 << k, vec * (((1 << k) // per_phase) % max_phase)) for k in range(3)]
    tile += [(row, 0) for row in (1 << k for k in range(3, _log2(rows, "rows")))]
    tile += [(0, col) for col in (1 << k for k in range(_log2(tile_cols, "tile columns"), _log2(cols, "columns")))]
    reshaped = box[1:] + box[:1] if transposed else box
    bases = []
    for row, col in tile:
        coord = _row_major(row * cols + col, reshaped)
        bases.append(coord[-1:] + coord[:-1] if transposed else coord)
    return bases + [b for d in range(rank) for b in _unit_bits(rank, d, box[d], shape[d])]


def check_padding(pairs: Any, what: str) -> list[list[int]]:
    """``interval_padding_pairs`` as Triton takes them (each a pair of positive powers of two), else LayoutError."""
    out = []
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise LayoutError(f"{what}: an interval-padding pair is [interval, padding], got {describe(pair)}")
        _log2(pair[0], f"{what}: interval {pair[0]!r} of {list(pair)}")
        _log2(pair[1], f"{what}: padding {pair[1]!r} of {list(pair)}")
        out.append([int(pair[0]), int(pair[1])])
    return out


def padded_offset(unpadded: int, pairs: Sequence[Sequence[int]]) -> int:
    """Where ``PaddedSharedLayout`` stores unpadded offset ``u``: ``u + sum((u // interval) * padding)``."""
    return unpadded + sum((unpadded // interval) * padding for interval, padding in pairs)


def apply_bases(bases: Sequence[Sequence[int]], offset: int, rank: int) -> list[int]:
    """The coordinate of ``offset``: the XOR of the bases of its set bits."""
    coord = [0] * rank
    k = 0
    while offset:
        if offset & 1:
            if k >= len(bases):
                raise LayoutError(f"offset bit {k} has no basis ({len(bases)} bases)")
            coord = [c ^ b for c, b in zip(coord, bases[k])]
        offset >>= 1
        k += 1
    return coord


@dataclass(frozen=True)
class SharedForm:
    """A Triton shared encoding, library-neutral: ``kind`` in nvmma/swizzled/padded/linear and its parameters."""

    kind: str
    shape: tuple[int, ...]
    params: dict[str, Any] = field(default_factory=dict)
    bases: tuple[tuple[int, ...], ...] = ()

    def offset_bases(self) -> list[Basis]:
        return [list(b) for b in self.bases]


# --------------------------------------------------------------------------- from a layoutalg layout


def _coordinate(index: int, shape: Sequence[int]) -> list[int]:
    coord = []
    for extent in shape:
        coord.append(index % extent)
        index //= extent
    return coord


def _index(coord: Sequence[int], shape: Sequence[int]) -> int:
    index, scale = 0, 1
    for c, extent in zip(coord, shape):
        index += c * scale
        scale *= extent
    return index


def tile_shape(layout: Any) -> tuple[int, ...]:
    """The tensor shape a smem layout covers: the sizes of its top-level modes (rank 1 to :data:`MAX_RANK`)."""
    shape = layout.shape
    modes = shape if isinstance(shape, tuple) else (shape,)
    extents = tuple(it.product(m) for m in modes)
    if not 1 <= len(extents) <= MAX_RANK:
        raise LayoutError(f"a Triton shared layout here is rank 1 to {MAX_RANK}; {layout} has {len(extents)} "
                          "top-level modes")
    for k, extent in enumerate(extents):
        _log2(extent, f"extent of mode {k} of {layout}")
    return extents


def _values(layout: Any, size: int) -> list[int]:
    return integer_values(layout, MAX_ELEMENTS, "Triton export")


def _linear_bases(index_of_offset: list[int], shape: Sequence[int]) -> list[Basis] | None:
    """Bases of ``offset -> coordinate`` if that map (given as a list) is linear over GF(2), else None."""
    import numpy as np

    size = len(index_of_offset)
    bits = size.bit_length() - 1
    columns = [index_of_offset[1 << k] for k in range(bits)]
    offsets = np.arange(size, dtype=np.int64)
    expect = np.zeros(size, dtype=np.int64)
    for k, column in enumerate(columns):
        expect ^= ((offsets >> k) & 1) * column
    if not np.array_equal(expect, np.asarray(index_of_offset, dtype=np.int64)):
        return None
    return [_coordinate(column, shape) for column in columns]


def _padding_pairs(image: list[int]) -> list[list[int]] | None:
    """The (interval, padding) pairs whose padded offsets are exactly the sorted ``image``, else None."""
    size = len(image)
    if image[0] != 0:
        return None
    pairs: list[list[int]] = []
    interval = 1
    while interval < size:
        gap = image[interval] - image[interval - 1] - 1
        earlier = sum(p for i, p in pairs if interval % i == 0)
        padding = gap - earlier
        if padding < 0:
            return None
        if padding:
            if padding & (padding - 1):
                return None  # Triton takes power-of-two paddings only
            pairs.append([interval, padding])
        interval *= 2
    if not pairs or any(padded_offset(u, pairs) != image[u] for u in range(size)):
        return None
    return pairs


def shared_form(layout: Any, element_bits: int) -> SharedForm:
    """The narrowest Triton shared encoding equal to ``layout`` (``(m, n) -> element offset``) on every element."""
    shape = tile_shape(layout)
    size = it.product(shape)
    values = _values(layout, size)
    if len(set(values)) != size:
        raise LayoutError(f"{layout} maps two elements to one offset; a shared-memory layout must be injective")
    if min(values) < 0:
        raise LayoutError(f"{layout} reaches negative offsets; Triton's shared offsets start at 0")
    if max(values) == size - 1:
        index_of_offset = [0] * size
        for index, offset in enumerate(values):
            index_of_offset[offset] = index
        bases = _linear_bases(index_of_offset, shape)
        if bases is None:
            raise LayoutError(f"{layout} is a bijection onto [0, {size}) but not linear over GF(2); Triton's shared "
                              "layouts are linear maps (plus padding)")
        return _narrowest(shape, bases, element_bits)
    image = sorted(values)
    pairs = _padding_pairs(image)
    if pairs is None:
        raise LayoutError(f"{layout} leaves holes in shared memory that are not Triton padding (power-of-two paddings "
                          "after power-of-two intervals); no Triton shared layout represents it")
    position = {offset: u for u, offset in enumerate(image)}
    index_of_unpadded = [0] * size
    for index, offset in enumerate(values):
        index_of_unpadded[position[offset]] = index
    bases = _linear_bases(index_of_unpadded, shape)
    if bases is None:
        raise LayoutError(f"{layout} is padded, but its unpadded order is not linear over GF(2); no Triton shared "
                          "layout represents it")
    check_padded_bases(bases, f"{layout} is padded, but its unpadded order")
    return SharedForm("padded", shape, {"interval_padding_pairs": pairs}, tuple(tuple(b) for b in bases))


def check_padded_bases(bases: Sequence[Sequence[int]], what: str) -> None:
    """LayoutError unless each offset basis moves in at most one dim, as Triton requires of a PaddedSharedLayout
    (it stops with "Each offset basis must move in at most one dimension" otherwise)."""
    for k, basis in enumerate(bases):
        if sum(1 for v in basis if v) > 1:
            raise LayoutError(f"{what} moves offset bit {k} in several dims ({list(basis)}); Triton's padded layouts "
                              "move each offset basis in at most one dim")


def _narrowest(shape: tuple[int, ...], bases: list[Basis], element_bits: int) -> SharedForm:
    frozen = tuple(tuple(b) for b in bases)
    if len(shape) >= 2:
        for swizzle_bytes in (128, 64, 32, 0):
            for transposed in (False, True):
                if nvmma_bases(shape, swizzle_bytes, element_bits, transposed) == bases:
                    return SharedForm("nvmma", shape, {"swizzle_byte_width": swizzle_bytes,
                                                       "element_bitwidth": element_bits, "transposed": transposed},
                                      frozen)
    swizzled = _swizzle_params(shape, bases)
    if swizzled is not None:
        return SharedForm("swizzled", shape, swizzled, frozen)
    return SharedForm("linear", shape, {}, frozen)


def _swizzle_params(shape: tuple[int, ...], bases: list[Basis]) -> dict[str, Any] | None:
    """``vec``/``per_phase``/``max_phase``/``order`` reproducing ``bases`` exactly, else None.

    Row bit ``k`` moves the column by ``vec * 2**(k - log2 per_phase)`` for ``max_phase`` consecutive row bits
    starting at ``log2 per_phase``, and not at all elsewhere: the first moved row bit gives ``vec`` and
    ``per_phase``, the run of doublings ``max_phase``; the candidate is then checked on every basis.
    """
    if len(shape) == 1:
        return {"vec": 1, "per_phase": 1, "max_phase": 1, "order": [0]} \
            if swizzled_bases(shape, 1, 1, 1, [0]) == bases else None
    import itertools

    for order in map(list, itertools.permutations(reversed(range(len(shape))))):  # [.., 1, 0] first
        col, row = order[0], order[1]
        col_bits = _log2(shape[col], "columns")
        shifts = [b[col] for b in bases[col_bits:col_bits + _log2(shape[row], "rows")]]
        moved = [k for k, x in enumerate(shifts) if x]
        vec, per_phase, max_phase = 1, 1, 1
        if moved:
            first = moved[0]
            vec, per_phase = shifts[first], 1 << first
            while first + max_phase.bit_length() - 1 < len(shifts) and \
                    shifts[first + max_phase.bit_length() - 1] == vec * max_phase:
                max_phase *= 2
        if swizzled_bases(shape, vec, per_phase, max_phase, order) == bases:
            return {"vec": vec, "per_phase": per_phase, "max_phase": max_phase, "order": order}
    return None


# --------------------------------------------------------------------------- to a function


def check_bases(bases: Sequence[Sequence[int]], shape: Sequence[int], what: str) -> None:
    """LayoutError unless ``bases`` can be a bijection of offsets onto the ``shape`` tensor: one basis per offset
    bit of ``prod(shape)`` (a power of two), each ``len(shape)`` integers within ``[0, shape[d])``."""
    size = it.product(tuple(shape))
    bits = _log2(size, f"{what}: the number of elements {list(shape)}")
    if len(bases) != bits:
        raise LayoutError(f"{what}: {len(bases)} offset bases for the {size} elements of {list(shape)}; a shared "
                          f"layout holds each element once, so it has {bits} (one per offset bit)")
    for k, basis in enumerate(bases):
        if len(basis) != len(shape):
            raise LayoutError(f"{what}: offset basis {k} {list(basis)} has {len(basis)} coordinates for the "
                              f"rank-{len(shape)} shape {list(shape)}")
        for d, (value, extent) in enumerate(zip(basis, shape)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < extent:
                raise LayoutError(f"{what}: offset basis {k} {list(basis)} has coordinate {describe(value)} in dim {d}, "
                                  f"outside [0, {extent})")


def index_bits_to_offsets(bases: Sequence[Sequence[int]], shape: Sequence[int], what: str) -> list[int]:
    """The offset of each bit of the colexicographic index (``shape``'s coordinates): the inverse over GF(2) of
    the bijection the offset ``bases`` define (checked by :func:`check_bases`); LayoutError where it is none."""
    n = len(bases)
    # rows: offset bit k maps to index column c_k; solve by Gauss-Jordan on pairs (index bits, offset bits)
    rows = [(_index(basis, shape), 1 << k) for k, basis in enumerate(bases)]
    out = [0] * n
    for bit in range(n):
        pivot = next((r for r in range(bit, n) if rows[r][0] >> bit & 1), None)
        if pivot is None:
            raise LayoutError(f"{what}: its offset bases are not a bijection onto {list(shape)} (index bit {bit} "
                              "is reached by no combination of them)")
        rows[bit], rows[pivot] = rows[pivot], rows[bit]
        for r in range(n):
            if r != bit and rows[r][0] >> bit & 1:
                rows[r] = (rows[r][0] ^ rows[bit][0], rows[r][1] ^ rows[bit][1])
    for bit in range(n):
        out[bit] = rows[bit][1]
    return out


def offset_function(form: SharedForm) -> list[int]:
    """``values[index] = element offset`` of the encoding, ``index`` the colexicographic tile index."""
    what = f"Triton {form.kind} shared layout"
    check_bases(form.bases, form.shape, what)
    size = it.product(form.shape)
    rank = len(form.shape)
    values = [-1] * size
    seen = [-1] * size
    pairs = check_padding(form.params.get("interval_padding_pairs", ()), what)
    if form.kind == "padded":
        check_padded_bases(form.bases, what)
    for unpadded in range(size):
        coord = apply_bases(form.bases, unpadded, rank)
        index = _index(coord, form.shape)
        if values[index] != -1:
            raise LayoutError(f"{what} maps offsets {seen[index]} and {unpadded} to {coord}: not a bijection "
                              f"on {list(form.shape)}")
        values[index] = padded_offset(unpadded, pairs)
        seen[index] = unpadded
    return values


__all__ = ["SharedForm", "shared_form", "swizzled_bases", "nvmma_bases", "padded_offset", "apply_bases",
           "index_bits_to_offsets", "check_padded_bases",
           "offset_function", "tile_shape", "check_bases", "check_padding"]

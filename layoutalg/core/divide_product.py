"""CuTe's divides and products, built on :func:`composition` and :func:`complement`.

Definitions (CuTe's, with a Layout tiler ``B``):

* ``logical_divide(A, B) = A o (B, complement(B, size(A)))``: mode 0 is the
  tile, mode 1 walks over the tiles;
* ``logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B)``: mode 0
  is the block, mode 1 repeats it as ``B`` says.

A tuple tiler applies by mode (``None`` keeps a mode, A's extra modes are
kept); an int ``N`` means the tiler ``N:1``.  ``zipped_*`` gathers the tile
modes into mode 0 and the rest into mode 1; ``tiled_*`` then unpacks mode 1;
``flat_*`` unpacks both.  ``blocked_product`` / ``raked_product`` zip block and
repetition mode by mode (block-major and repetition-major).

Soundness is inherited: composition and complement return a layout only when
it meets their definitions and raise :class:`~layoutalg.errors.LayoutError`
otherwise, so every result here is the mathematically defined one.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import int_tuple as it
from layoutalg.core.algebra import complement, composition
from layoutalg.core.complement import chained_pairs, refuted_injective, sorted_modes
from layoutalg.core.composition import compose_pairs
from layoutalg.core.layout import Layout, as_layout
from layoutalg.core.memo import memoized
from layoutalg.core.shape_ops import append, by_mode, from_modes, top_modes
from layoutalg.core.tuple_ops import repeat_like
from layoutalg.core.validate import MAX_INT_BITS, check_depth, describe, is_bool
from layoutalg.core.weak_complement import weak_complement, weak_pairs
from layoutalg.errors import CompositionError, NotInjectiveError, ShapeError

_LIMIT = 1 << MAX_INT_BITS


def _tiler_layout(tiler: Any, what: str) -> Layout:
    if isinstance(tiler, Layout):
        return tiler
    if it.is_int(tiler) or (hasattr(tiler, "__index__") and not is_bool(tiler) and getattr(tiler, "ndim", 0) == 0):
        return as_layout(tiler, what)
    raise ShapeError(f"{what} must be a Layout, an int, None or a tuple of tilers, got {describe(tiler)}")


# ---------------------------------------------------------------------------
# divides
# ---------------------------------------------------------------------------
def logical_divide(a: Layout, tiler: Any) -> Layout:
    """CuTe ``logical_divide``: ``A o (B, complement(B, size(A)))`` for a layout tiler ``B``.

    ``logical_divide(16:1, 4:2) == (4,(2,2)):(2,(1,8))``.  The complement is
    taken against ``size(A)`` (pycute and CuTe DSL agree; CuTe C++ uses
    ``shape(A)``, which only nests the rest mode differently).  Where no complement of ``B`` covers
    ``[0, size(A))`` (``(3,4):(12,2)`` for 18: its strides do not chain), CuTe's floored complement is used
    when it is a weak one, as :func:`logical_product` does and PyCuTe does:
    ``logical_divide(18:1, (3,4):(12,2))`` has the rest ``2:1``.
    """
    if type(a) is not Layout:
        a = as_layout(a, "logical_divide layout")
    if tiler is None:
        return a
    if type(tiler) is tuple or type(tiler) is list:
        return by_mode(logical_divide, a, tiler, "logical_divide")
    b = tiler if type(tiler) is Layout else _tiler_layout(tiler, "logical_divide tiler")
    try:
        rest = complement(b, a.size())
    except CompositionError:  # no complement of B covers [0, size(A)): CuTe's floored (weak) one, as for products
        rest = weak_complement(b, a.size())
    return composition(a, Layout._trusted((b.shape, rest.shape), (b.stride, rest.stride)))


def _unzip(divided: Layout, tiler: Any) -> Layout:
    """CuTe ``tile_unzip``: ``((tile_0, tile_1, ...), (rest_0, rest_1, ..., extra modes))`` for a tuple tiler.

    By CuTe's ``zip2_by``: a tuple tiler entry splits its mode again by mode (so ``((2,),)`` and ``((), ())``
    nest), a layout or int entry's mode is its ``(tile, rest)``, a None entry's tile is the whole mode.
    """
    if not isinstance(tiler, (tuple, list)):
        return divided
    (ts, td), (rs, rd) = _zip2(divided.shape, divided.stride, tiler)
    return Layout._trusted((ts, rs), (td, rd))


def _zip2(shape: Any, stride: Any, tiler: Any) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """``((tile shape, tile stride), (rest shape, rest stride))`` of one divided (or multiplied) mode."""
    if tiler is None:
        return (shape, stride), (1, 0)
    if not isinstance(tiler, (tuple, list)):
        return (shape[0], stride[0]), (shape[1], stride[1])  # a layout tiler's mode is (tile, rest)
    if type(shape) is not tuple:
        shape, stride = (shape,), (stride,)
    ts: list[Any] = []
    td: list[Any] = []
    rs: list[Any] = []
    rd: list[Any] = []
    for i, (s, d) in enumerate(zip(shape, stride)):
        if i < len(tiler):
            (a, ad), (b, bd) = _zip2(s, d, tiler[i])
            ts.append(a)
            td.append(ad)
            rs.append(b)
            rd.append(bd)
        else:
            rs.append(s)
            rd.append(d)
    return (tuple(ts), tuple(td)), (tuple(rs), tuple(rd))


def _unpacked(z: Layout, unpack_first: bool) -> Layout:
    """``(z0, z1_0, z1_1, ...)`` (tiled) or ``(z0_0, ..., z1_0, ...)`` (flat) from the rank-2 ``(tile, rest)``."""
    if type(z.shape) is not tuple or len(z.shape) != 2:  # type: ignore[arg-type]
        raise ShapeError(f"tiled/flat divide and product need a tiler (got a result {z} that is not (tile, rest))")
    shapes: list[Any] = []
    strides: list[Any] = []
    for k, (s, d) in enumerate(zip(z.shape, z.stride)):  # type: ignore[call-overload, arg-type]
        if type(s) is tuple and (k == 1 or unpack_first):
            shapes.extend(s)
            strides.extend(d)  # type: ignore[arg-type]
        else:
            shapes.append(s)
            strides.append(d)
    return Layout._trusted(tuple(shapes), tuple(strides))


def zipped_divide(a: Layout, tiler: Any) -> Layout:
    """CuTe ``zipped_divide``: ``logical_divide`` with the tiles in mode 0 and the rest in mode 1.

    For a tuple tiler, a ``None`` entry divides that mode by itself (tile = the
    whole mode, rest ``1:0``).
    """
    return _unzip(logical_divide(a, tiler), tiler)


def tiled_divide(a: Layout, tiler: Any) -> Layout:
    """CuTe ``tiled_divide``: ``zipped_divide`` with mode 1 unpacked: ``(tile, rest_0, rest_1, ...)``."""
    return _unpacked(zipped_divide(a, tiler), unpack_first=False)


def flat_divide(a: Layout, tiler: Any) -> Layout:
    """CuTe ``flat_divide``: ``zipped_divide`` with both modes unpacked: ``(tile_0, ..., rest_0, ...)``."""
    return _unpacked(zipped_divide(a, tiler), unpack_first=True)


# ---------------------------------------------------------------------------
# products
# ---------------------------------------------------------------------------
def logical_product(a: Layout, tiler: Any) -> Layout:
    """CuTe ``logical_product``: ``(A, complement(A, size(A)*cosize(B)) o B)`` for a layout tiler ``B``.

    ``logical_product((2,2):(1,2), 3:1) == ((2,2),3):((1,2),4)``.  An int tiler
    ``N`` is ``N:1`` (pycute mistakenly divides there).

    Where no complement of ``A`` covers ``[0, size(A)*cosize(B))`` (``(3,5):(1,20)``
    leaves gaps no layout fills), CuTe's own floored complement is used when it is
    a weak one (:func:`~layoutalg.core.weak_complement.weak_complement`: ordered,
    ``(A, C)`` injective), as CuTe and PyCuTe do: ``logical_product((3,5):(1,20), 4:1)
    == ((3,5),4):((1,20),3)``; the copies of ``A`` are then disjoint but do not tile
    the space.
    """
    if type(a) is Layout:
        if tiler is None:
            return a
        if type(tiler) is Layout:
            product = _flat_product(a, tiler)
            if product is not None:
                return product
        elif type(tiler) is tuple:  # by mode, as the general path does; each mode's product may be fast
            if type(a.shape) is tuple and len(tiler) <= len(a.shape):
                for mode_tiler in tiler:
                    if mode_tiler is not None:
                        break
                else:  # every entry None: by_mode keeps every top-level mode, rebuilding A itself
                    return a
            return by_mode(logical_product, a, tiler, "logical_product")
    return _logical_product(a, tiler)


def _flat_product(a: Layout, b: Layout) -> Layout | None:
    """``logical_product(A, B)`` without the memo, where A's strides chain (the complement is CuTe's, built
    directly) and CuTe's leaf algorithm composes it with a flat ``B``: the same steps the general path takes there
    (:func:`~layoutalg.core.complement.chained_pairs`, :func:`~layoutalg.core.composition.compose_flat`);
    None otherwise, and the general path decides."""
    shape: Any = b.shape
    stride: Any = b.stride
    if type(shape) is int:
        cosize = 1 + (shape - 1) * stride if stride > 0 else 1
    else:
        cosize = 1
        for s, d in zip(shape, stride):
            if type(s) is not int:
                return None
            if d > 0:
                cosize += (s - 1) * d
    cotarget = a.size() * cosize
    if cotarget >= _LIMIT:
        return None
    by_stride = sorted_modes(a)
    if by_stride and by_stride[0][0] < 0:
        return None
    comp = chained_pairs(by_stride, cotarget)  # the complement's coalesced pairs, as composition reads them
    if comp is None:
        if not refuted_injective(by_stride, cotarget) or _image_is_zero(b):
            return None
        comp = weak_pairs(a, by_stride, cotarget)  # the general path's fallback, without raising first
    rest = compose_pairs(comp, b)
    if rest is None:
        return None
    return Layout._trusted((a.shape, rest.shape), (a.stride, rest.stride))


def _image_is_zero(b: Layout) -> bool:
    """Whether ``B`` takes the value 0 only (each leaf of extent 1 or stride 0)."""
    return all(extent == 1 or stride == 0 for extent, stride in zip(it.flatten(b.shape), it.flatten(b.stride)))


@memoized
def _logical_product(a: Layout, tiler: Any) -> Layout:
    """:func:`logical_product`'s general path (remembered)."""
    if type(a) is not Layout:
        a = as_layout(a, "logical_product layout")
    if tiler is None:
        return a
    if type(tiler) is tuple or type(tiler) is list:
        return by_mode(logical_product, a, tiler, "logical_product")
    b = tiler if type(tiler) is Layout else _tiler_layout(tiler, "logical_product tiler")
    cotarget = a.size() * b.cosize()
    try:
        comp = complement(a, cotarget)
    except (CompositionError, NotInjectiveError):
        if _image_is_zero(b):  # every complement C has C(0) == 0, so C o B is B's shape at stride 0
            return Layout._trusted((a.shape, b.shape), (a.stride, repeat_like(0, b.shape)))
        comp = weak_complement(a, cotarget)
    rest = composition(comp, b)
    return Layout._trusted((a.shape, rest.shape), (a.stride, rest.stride))


def zipped_product(a: Layout, tiler: Any) -> Layout:
    """CuTe ``zipped_product``: ``logical_product`` with blocks in mode 0 and repetitions in mode 1."""
    return _unzip(logical_product(a, tiler), tiler)


def tiled_product(a: Layout, tiler: Any) -> Layout:
    """CuTe ``tiled_product``: ``zipped_product`` with mode 1 unpacked."""
    return _unpacked(zipped_product(a, tiler), unpack_first=False)


def flat_product(a: Layout, tiler: Any) -> Layout:
    """CuTe ``flat_product``: ``zipped_product`` with both modes unpacked."""
    return _unpacked(zipped_product(a, tiler), unpack_first=True)


def _block_and_repeat(a: Layout, tiler: Any, name: str) -> tuple[list[Layout], list[Layout]]:
    a = as_layout(a, f"{name} block")
    check_depth(tiler, f"{name} tiler")
    if type(tiler) is tuple:  # by mode: mode i of A with the tiler's mode i, (A_i, R_i) = logical_product(A_i, B_i)
        modes = top_modes(a)
        if len(tiler) > len(modes):
            raise ShapeError(f"{name}: the tiler {tiler} has {len(tiler)} modes, more than the rank-{len(modes)} "
                             f"block {a}")
        blocks: list[Layout] = []
        reps: list[Layout] = []
        for mode, mode_tiler in zip(modes, list(tiler) + [None] * (len(modes) - len(tiler))):
            if mode_tiler is None:
                blocks.append(mode)
                reps.append(Layout._trusted(1, 0))
                continue
            product = logical_product(mode, mode_tiler)
            blocks.append(product[0])
            reps.append(product[1])
        return blocks, reps
    b = _tiler_layout(tiler, f"{name} tiler")
    rank = max(len(top_modes(a)), len(top_modes(b)))
    a_pad = append(a, None, rank) if rank > 1 else a
    b_pad = append(b, None, rank) if rank > 1 else b
    product = logical_product(a_pad, b_pad)
    if rank == 1:  # one block mode and one repetition mode, whatever their inner structure
        return [product[0]], [product[1]]
    return top_modes(product[0]), top_modes(product[1])


def blocked_product(a: Layout, tiler: Any) -> Layout:
    """CuTe ``blocked_product``: mode ``i`` is ``(A_i, R_i)``, the block's mode then its repetitions.

    Both are padded with ``1:0`` modes to the same rank first, and ``R`` is
    ``logical_product``'s second mode, so
    ``blocked_product((2,2):(1,2), (3,4):(1,3)) == ((2,3),(2,4)):((1,4),(2,12))``.

    A tuple tiler works by mode (mode ``i`` of the block with the tiler's mode ``i``; missing or ``None`` modes
    repeat once), so the result is the by-mode ``logical_product``, each mode's block before its repetitions.
    PyCuTe zips the by-mode product's modes as it does a layout product's, which for a tuple tiler gives
    ``((A_0, A_1), (R_0, R_1))``: the blocks of all modes before every repetition, no blocked arrangement (CuTe
    C++ takes a layout tiler only); the per-mode reading is the one that keeps each mode blocked.
    """
    blocks, reps = _block_and_repeat(a, tiler, "blocked_product")
    return from_modes([from_modes([x, y]) for x, y in zip(blocks, reps)])


def raked_product(a: Layout, tiler: Any) -> Layout:
    """CuTe ``raked_product``: mode ``i`` is ``(R_i, A_i)``, the repetitions then the block's mode (interleaved)."""
    blocks, reps = _block_and_repeat(a, tiler, "raked_product")
    return from_modes([from_modes([y, x]) for x, y in zip(blocks, reps)])


__all__ = [
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "blocked_product",
    "raked_product",
]

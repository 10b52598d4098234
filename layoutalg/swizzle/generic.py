"""The layout algebra on ``Layout`` or ``ComposedLayout`` (CuTe's overloads in layout_composed.hpp / swizzle_layout.hpp).

Plain layouts go straight to ``layoutalg.core``.  For ``C = outer o off o inner``:

  * operations on the *domain* (``composition(C, B)``, the divides and
    products, ``coalesce``, slicing) act on ``inner`` and keep ``outer`` and
    ``off``, as CuTe does: ``C o B = outer o off o (inner o B)``;
  * ``composition(L, C)`` keeps the swizzle outermost, as CuTe does, by
    finding ``Sw'`` with ``L o Sw == Sw' o L`` (CuTe takes ``Sw'`` from
    ``L(yyy_mask)`` and ``L(zzz_mask)``, which needs those images to be
    contiguous runs of bits); here the candidate is checked on every element,
    a GF(2) factorisation ``Sw'' o M`` is tried when CuTe's form does not
    exist, and a :class:`CompositionError` is raised when neither is exact;
  * ``right_inverse(Sw o 0 o B) = right_inverse(B) o Sw`` and
    ``left_inverse(Sw o 0 o B) = left_inverse(B) o Sw`` (a swizzle is an
    involution), again brought to swizzle-outermost form and checked;
  * ``upcast``/``downcast`` move the swizzle's base ``M`` by ``log2(N)``:
    a swizzle on ``2**M``-element chunks of the old type is a swizzle on
    ``2**(M-log2 N)``-element chunks of a type ``N`` times wider.

Every result whose construction is not a structural identity is compared with
the brute-force composition of the functions on its whole domain.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core import algebra as core_algebra
from layoutalg.core import divide_product as core_dp
from layoutalg.core.inverses import layout_prefix, left_inverse_of_values
from layoutalg.core.layout import Layout
from layoutalg.core.layout import slice_and_offset as _layout_slice_and_offset
from layoutalg.core.stride_layout import StrideLayout, stride_layout
from layoutalg.core.symbolic import SymbolicLayout, has_sym
from layoutalg.core.tensor import Tensor
from layoutalg.core.validate import describe, plain_int
from layoutalg.errors import CompositionError, LayoutError, ShapeError
from layoutalg.swizzle.composed import (
    AnyLayout,
    ComposedLayout,
    eval_layout_at,
    fit_affine,
    slice_composed,
    slice_function,
)
from layoutalg.swizzle.swizzle import Swizzle

# Largest domain on which results are checked element by element.
_MAX_CHECK = 1 << 22


def _require_checkable(x: Any, what: str) -> None:
    """Refuse (CompositionError) a result whose exactness would need more than ``_MAX_CHECK`` evaluations."""
    if x.size() > _MAX_CHECK:
        raise CompositionError(f"{what}: {x.size()} elements is over the {_MAX_CHECK} this operation checks exactly")


def _strided(*xs: Any) -> bool:
    """Some argument is a layout with basis or F2 strides (handled by layoutalg.core.stride_layout_ops)."""
    return any(type(x) is StrideLayout for x in xs)


def _symbolic(*xs: Any) -> bool:
    """Some argument is a layout with sympy shapes or strides (handled by layoutalg.core.symbolic_ops)."""
    return any(type(x) is SymbolicLayout for x in xs)


def _tensor(x: Any) -> bool:
    """A :class:`~layoutalg.core.tensor.Tensor`: the algebra acts on its layout and keeps its engine."""
    return type(x) is Tensor


def _check_input(x: Any, name: str) -> None:
    if not isinstance(x, (Layout, ComposedLayout)):
        raise LayoutError(f"{name} must be a Layout or a ComposedLayout, got {describe(x)}")


def _same_function(result: AnyLayout, expected: Any, what: str) -> AnyLayout:
    import numpy as np

    got = result.to_numpy()
    if got.shape != expected.shape or not np.array_equal(got, expected):
        raise CompositionError(f"{what} has no exact swizzle-outermost representation")
    return result


# ---------------------------------------------------------------------------
# swizzles past layouts


def _bit_image(layout: Layout, mask: int) -> int:
    """``XOR`` of ``layout(2**j)`` over the set bits ``j`` of ``mask`` (the image of a bit mask)."""
    out = 0
    j = 0
    while mask:
        if mask & 1:
            out ^= layout(1 << j) if (1 << j) < layout.size() else 0
        mask >>= 1
        j += 1
    return out


def _commuted_candidate(layout: Layout, swizzle: Swizzle) -> Swizzle:
    """CuTe's ``Sw'`` for ``layout o swizzle == Sw' o layout``, unchecked: the swizzle reading ``layout(yyy_mask)``
    into ``layout(zzz_mask)`` (CompositionError where those images are not a swizzle's masks)."""
    yyy = _bit_image(layout, swizzle.yyy_mask)
    zzz = _bit_image(layout, swizzle.zzz_mask)
    try:
        return Swizzle.from_masks(yyy, zzz) if (yyy or zzz) else Swizzle(0, 0, 0)
    except LayoutError as exc:
        raise CompositionError(f"{layout} o {swizzle}: the swizzle's bits do not map to a swizzle ({exc})") from exc


def commute_swizzle(layout: Layout, swizzle: Swizzle) -> Swizzle:
    """``Sw'`` with ``layout(swizzle(x)) == Sw'(layout(x))`` for every ``x`` in ``[0, size(layout))``.

    The candidate is CuTe's: the swizzle reading ``layout(yyy_mask)`` into
    ``layout(zzz_mask)``; it is checked on every index (CompositionError if it
    fails, or if ``swizzle`` leaves the layout's domain).
    """
    import numpy as np

    if swizzle.is_identity():
        return swizzle
    size = layout.size()
    candidate = _commuted_candidate(layout, swizzle)
    if size > _MAX_CHECK:
        raise CompositionError(f"{layout} o {swizzle}: domain of {size} elements too large to check exactly")
    index = np.arange(size, dtype=np.int64)
    moved = swizzle(index)
    if int(moved.max(initial=0)) >= size:
        raise CompositionError(f"{swizzle} maps indices of {layout} outside its domain [0, {size})")
    if not np.array_equal(eval_layout_at(layout, moved), candidate(layout.to_numpy())):
        raise CompositionError(f"{layout} o {swizzle} is not a swizzle composed with {layout}")
    return candidate


# ---------------------------------------------------------------------------
# composition


def composition(a: Any, b: Any) -> Any:
    """``a o b`` for Layouts, ComposedLayouts and Swizzles; ``b`` may also be a tiler (by-mode tuple).

    * a layout with basis or F2 strides on either side: :mod:`layoutalg.core.stride_layout_ops`;
    * ``Swizzle o Layout`` -> ``Sw o _0 o Layout``;
    * ``(outer o off o inner) o B`` -> ``outer o off o (inner o B)``;
    * ``L o (Sw o off o B)`` -> ``Sw' o off' o M`` with ``L o Sw == Sw' o L`` and
      ``L(off + B(c)) == off' + M(c)``, checked elementwise;
    * ``None o B``: PyCuTe's identity of unknown extents, the coordinates B walks
      (:func:`layoutalg.core.stride_layout_ops.identity_composition`: ``None o (3,2) == (3,2):(1@0,1@1)``).
    """
    if a is None:
        from layoutalg.core.stride_layout_ops import identity_composition

        return identity_composition(b)
    if _tensor(a):
        return a.with_layout(composition(a.layout, b))
    if _symbolic(a, b):
        from layoutalg.core import symbolic_ops

        return symbolic_ops.composition(a, b)
    if isinstance(a, Swizzle) and _strided(b):
        return _swizzle_then_strided(a, b)
    if _strided(a, b):
        from layoutalg.core import stride_layout_ops

        return stride_layout_ops.composition(a, b)
    if isinstance(a, Swizzle):
        if isinstance(b, Layout):
            return ComposedLayout(a, 0, b)
        if isinstance(b, ComposedLayout):
            return _swizzle_then(a, 0, b)
        if isinstance(b, Swizzle):
            return _swizzle_product(a, b)
        raise LayoutError(f"composition(Swizzle, b): b must be a Layout, Swizzle or ComposedLayout, got {describe(b)}")
    if isinstance(a, ComposedLayout):
        if isinstance(b, ComposedLayout):
            return _swizzle_then(a.outer, a.offset, composition(a.inner, b)) if isinstance(
                a.outer, Swizzle
            ) else _layout_outer_then(a, b)
        if isinstance(b, Swizzle):
            if not isinstance(a.outer, Swizzle):
                raise CompositionError(f"composition({a}, {b}): a layout-outer composed layout after a swizzle")
            return _swizzle_then(a.outer, a.offset, layout_after_swizzle(a.inner, b))
        return ComposedLayout(a.outer, a.offset, composition(a.inner, b))
    if isinstance(a, Layout):
        if isinstance(b, Swizzle):
            return layout_after_swizzle(a, b)
        if isinstance(b, ComposedLayout):
            return _layout_then_composed(a, b)
        return core_algebra.composition(a, b)
    raise LayoutError(f"composition: a must be a Layout, ComposedLayout or Swizzle, got {describe(a)}")


def _swizzle_then_strided(swizzle: Swizzle, b: StrideLayout) -> Any:
    """``Sw o B`` for a layout ``B`` with F2 (or int) values: the swizzle applied to each offset, read back as a
    layout of B's shape (int strides where they fit, else F2: a swizzle is GF(2)-linear, so it keeps an F2
    layout of power-of-two extents one).  A coordinate-valued ``B`` has no offsets to swizzle: refused."""
    from layoutalg.core.stride_layout_ops import offset_values, read_values

    offsets = offset_values(b, f"{swizzle} o {b}: a swizzle acts on offsets")
    return read_values(b.shape, [swizzle(v) for v in offsets], f"{swizzle} o {b}")


def _swizzle_product(a: Swizzle, b: Swizzle) -> Swizzle:
    if a.is_identity():
        return b
    if b.is_identity():
        return a
    if a == b:
        return Swizzle(0, 0, 0)
    raise CompositionError(f"{a} o {b} is not a single swizzle")


def _after_offset(m: Layout, offset: int, b: Layout) -> tuple[Layout, int]:
    """``(inner, o)`` with ``m(offset + b(c)) == o + inner(c)`` for every ``c`` (CompositionError if no layout does it)."""
    if offset == 0:
        return core_algebra.composition(m, b), 0
    _require_checkable(b, f"{m} at {offset} + {b}")
    fitted = fit_affine(eval_layout_at(m, offset + b.to_numpy()), b.shape)
    if fitted is None:
        raise CompositionError(f"{m} evaluated at {offset} + {b} is not a layout")
    return fitted


def _layout_then_composed(a: Layout, b: ComposedLayout) -> AnyLayout:
    """``a o (outer o off o inner)``, checked against the brute-force composition on every element.

    The composed form is tried first (``Sw' o off' o M``, :func:`_composed_form`); where it has none, the
    function ``a(b(c))`` read on b's whole domain is a plain layout of b's shape, or one at an offset, when
    it is affine there (``8:1 o (Sw<2,1,-5> o 2:1)`` is ``2:1``: the swizzle moves nothing b reaches)."""
    _require_checkable(b, f"composition({a}, {b})")
    positions = b.to_numpy()
    if positions.size and int(positions.min()) < 0:
        raise CompositionError(f"composition({a}, {b}): {b} takes negative values, outside the domain of {a}")
    expected = eval_layout_at(a, positions)
    try:
        result = _composed_form(a, b, expected)
        if isinstance(result, ComposedLayout) and result.offset == 0 and _identity_swizzle(result.outer):
            return result.inner
        return result
    except CompositionError:
        fitted = fit_affine(expected, b.shape)
        if fitted is None:
            raise
    layout, offset = fitted
    return layout if offset == 0 else ComposedLayout(Swizzle(0, 0, 0), offset, layout)


def _identity_swizzle(outer: Any) -> bool:
    return isinstance(outer, Swizzle) and outer.is_identity()


def _composed_form(a: Layout, b: ComposedLayout, expected: Any) -> AnyLayout:
    """``a o b`` as a composed layout of b's kind (CompositionError where none equals ``expected``)."""
    what = f"composition({a}, {b})"
    if isinstance(b.outer, Layout):
        result: AnyLayout = ComposedLayout(core_algebra.composition(a, b.outer), b.offset, b.inner)
        return _same_function(result, expected, what)
    try:
        g = layout_after_swizzle(a, b.outer)
    except CompositionError:  # a o Sw == Sw' o a need only hold where b reaches: CuTe's Sw', checked on b's domain
        g = ComposedLayout(_commuted_candidate(a, b.outer), 0, a)
    if isinstance(g, Layout):
        inner, offset = _after_offset(g, b.offset, b.inner)
        if offset == 0:
            return _same_function(inner, expected, what)
        return _same_function(ComposedLayout(Swizzle(0, 0, 0), offset, inner), expected, what)
    assert isinstance(g.outer, Swizzle) and g.offset == 0
    inner, offset = _after_offset(g.inner, b.offset, b.inner)
    return _same_function(ComposedLayout(g.outer, offset, inner), expected, what)


def layout_after_swizzle(layout: Layout, swizzle: Swizzle) -> AnyLayout:
    """``x -> layout(swizzle(x))`` on ``[0, size(layout))`` with the swizzle outermost.

    First CuTe's form ``Sw' o _0 o layout`` (:func:`commute_swizzle`); when the
    swizzle's bits do not map to contiguous bits, the GF(2) matrix of the
    function is factored as ``Sw'' o M`` by :func:`~layoutalg.swizzle.f2.from_f2`
    (one mode of ``M`` per mode of ``layout``).  Checked on every element.
    """
    import numpy as np

    try:
        return ComposedLayout(commute_swizzle(layout, swizzle), 0, layout)
    except CompositionError as first:
        from layoutalg.swizzle.f2 import BitMatrix, from_f2, to_f2

        size = layout.size()
        if size > _MAX_CHECK:
            raise first
        index = np.arange(size, dtype=np.int64)
        moved = swizzle(index)
        if int(moved.max(initial=0)) >= size:
            raise first
        try:
            to_f2(layout)
            n_in = size.bit_length() - 1
            cols = [int(layout(swizzle(1 << j))) for j in range(n_in)]
            modes = layout.modes() if isinstance(layout.shape, tuple) else [layout]
            mode_bits = [m.size().bit_length() - 1 for m in modes]
            result = from_f2(BitMatrix.from_columns(cols), mode_bits=mode_bits)
        except LayoutError:
            raise first from None
        return _same_function(result, eval_layout_at(layout, moved), f"{layout} o {swizzle}")


def _swizzle_then(swizzle: Any, offset: int, b: AnyLayout) -> AnyLayout:
    """``swizzle o (offset + b)`` with a Swizzle ``swizzle``."""
    if isinstance(b, Layout):
        return ComposedLayout(swizzle, offset, b)
    _require_checkable(b, f"{swizzle} o {b}")
    expected = swizzle(offset + b.to_numpy())
    if isinstance(b.outer, Swizzle) and offset == 0:
        combined = _swizzle_product(swizzle, b.outer)
        if combined.is_identity() and b.offset == 0:
            return _same_function(b.inner, expected, f"{swizzle} o {b}")
        return _same_function(ComposedLayout(combined, b.offset, b.inner), expected, f"{swizzle} o {b}")
    if isinstance(b.outer, Swizzle) and b.outer.is_identity():
        return _same_function(ComposedLayout(swizzle, offset + b.offset, b.inner), expected, f"{swizzle} o {b}")
    raise CompositionError(f"{swizzle} o _{offset} o ({b}) is not a single swizzle composed with a layout")


def _layout_outer_then(a: ComposedLayout, b: ComposedLayout) -> AnyLayout:
    inner = composition(a.inner, b)
    if isinstance(inner, Layout):
        return ComposedLayout(a.outer, a.offset, inner)
    raise CompositionError(f"composition({a}, {b}): two composed functions do not reduce to one")


# ---------------------------------------------------------------------------
# operations on the domain: keep outer and offset


def _on_inner(name: str, fn: Any, a: Any, *args: Any) -> Any:
    _check_input(a, name)
    if isinstance(a, ComposedLayout):
        return ComposedLayout(a.outer, a.offset, fn(a.inner, *args))
    return fn(a, *args)


def coalesce(a: Any, profile: Any = None) -> Any:
    """CuTe ``coalesce``; on a composed layout it coalesces the inner layout (on a tensor, its layout)."""
    if type(a) is Layout:  # the hot paths: straight to the core
        return core_algebra._coalesced(a) if profile is None else core_algebra.coalesce(a, profile)
    if _tensor(a):
        return a.with_layout(coalesce(a.layout, profile))
    if (_symbolic(a) or _strided(a)) and type(profile) is tuple:  # by mode, whatever the strides
        modes = list(a) if isinstance(a.shape, tuple) else [a]
        if len(profile) > len(modes):
            raise ShapeError(f"coalesce profile {profile} has more modes than the rank-{len(modes)} layout {a}")
        parts = [m if p is None else coalesce(m, p) for m, p in zip(modes, profile)] + modes[len(profile):]
        shape, stride = tuple(p.shape for p in parts), tuple(p.stride for p in parts)
        return SymbolicLayout(shape, stride) if _symbolic(a) else stride_layout(shape, stride)
    if _symbolic(a):
        from layoutalg.core import symbolic_ops

        return symbolic_ops.coalesce(a)
    if _strided(a):
        from layoutalg.core import stride_layout_ops

        return stride_layout_ops.coalesce(a)
    if profile is None:
        return _on_inner("coalesce", core_algebra.coalesce, a)
    return _on_inner("coalesce", core_algebra.coalesce, a, profile)


def logical_divide(a: Any, tiler: Any) -> Any:
    """CuTe ``logical_divide``; ``a = None`` is PyCuTe's identity divided by the tiler
    (:func:`layoutalg.core.stride_codomain.divide_identity`), and by no tiler itself (``None``)."""
    if a is None:
        from layoutalg.core import stride_codomain

        return None if tiler is None else stride_codomain.divide_identity(tiler)
    if _tensor(a):
        return a.with_layout(logical_divide(a.layout, tiler))
    if _symbolic(a, tiler) or (_symbolic(*tiler) if isinstance(tiler, tuple) else has_sym(tiler)):
        from layoutalg.core import symbolic_ops

        return symbolic_ops.logical_divide(a, tiler)
    if _strided(a, tiler):
        from layoutalg.core import stride_codomain

        return stride_codomain.logical_divide(a, tiler)
    return _on_inner("logical_divide", core_dp.logical_divide, a, tiler)


def zipped_divide(a: Any, tiler: Any) -> Any:
    if a is None:
        from layoutalg.core import stride_codomain

        return None if tiler is None else stride_codomain.divide_identity(tiler, zipped=True)
    if _tensor(a):
        return a.with_layout(zipped_divide(a.layout, tiler))
    if _symbolic(a, tiler) or (_symbolic(*tiler) if isinstance(tiler, tuple) else has_sym(tiler)):
        from layoutalg.core import symbolic_ops

        return symbolic_ops.zipped_divide(a, tiler)
    if _strided(tiler):
        return logical_divide(a, tiler)  # a basis tiler is one layout: (tile, rest) already
    if _strided(a):  # PyCuTe: zipped_divide(A, B) is logical_divide(A, tiler_to_layout(B))
        from layoutalg.core.stride_layout_ops import tiler_to_layout

        return logical_divide(a, tiler_to_layout(tiler) if isinstance(tiler, (tuple, list)) else tiler)
    return _on_inner("zipped_divide", core_dp.zipped_divide, a, tiler)


def tiled_divide(a: Any, tiler: Any) -> Any:
    if _tensor(a):
        return a.with_layout(tiled_divide(a.layout, tiler))
    return _on_inner("tiled_divide", core_dp.tiled_divide, a, tiler)


def flat_divide(a: Any, tiler: Any) -> Any:
    if _tensor(a):
        return a.with_layout(flat_divide(a.layout, tiler))
    return _on_inner("flat_divide", core_dp.flat_divide, a, tiler)


def tile_to_shape(block: Any, shape: Any, order: Any = None) -> Any:
    """CuTe ``tile_to_shape``: a composed (swizzled) block keeps its swizzle and offset and tiles its inner
    layout, as CuTe C++'s overload for ``ComposedLayout`` does; a plain block tiles by
    :func:`layoutalg.core.make_layouts.tile_to_shape`."""
    from layoutalg.core.make_layouts import tile_to_shape as core_tile_to_shape

    if isinstance(block, ComposedLayout):
        return ComposedLayout(block.outer, block.offset, core_tile_to_shape(block.inner, shape, order))
    return core_tile_to_shape(block, shape, order)


def logical_product(a: Any, tiler: Any) -> Any:
    if tiler is None and a.__class__ is Layout:  # CuTe's product by nothing: A itself (the cheapest tests first)
        return a
    if type(a) is Layout:
        return core_dp.logical_product(a, tiler)
    if _strided(a):
        from layoutalg.core import stride_codomain

        return stride_codomain.logical_product(a, tiler)
    return _on_inner("logical_product", core_dp.logical_product, a, tiler)


def zipped_product(a: Any, tiler: Any) -> Any:
    return _on_inner("zipped_product", core_dp.zipped_product, a, tiler)


def tiled_product(a: Any, tiler: Any) -> Any:
    return _on_inner("tiled_product", core_dp.tiled_product, a, tiler)


def flat_product(a: Any, tiler: Any) -> Any:
    return _on_inner("flat_product", core_dp.flat_product, a, tiler)


def blocked_product(a: Any, tiler: Any) -> Any:
    if _strided(a):
        from layoutalg.core import stride_codomain

        return stride_codomain.blocked_product(a, tiler)
    return _on_inner("blocked_product", core_dp.blocked_product, a, tiler)


def raked_product(a: Any, tiler: Any) -> Any:
    if _strided(a):
        from layoutalg.core import stride_codomain

        return stride_codomain.raked_product(a, tiler)
    return _on_inner("raked_product", core_dp.raked_product, a, tiler)


# ---------------------------------------------------------------------------
# slicing and partitioning


def slice_and_offset(a: Any, crd: Any) -> tuple[AnyLayout, int]:
    """``(S, o)`` with ``a(crd with c in the None modes) == o + S(c)``; a swizzle that cancels is dropped."""
    if _strided(a):
        from layoutalg.core.layout import _slice_modes
        from layoutalg.core.stride_layout import stride_layout

        kept, off = _slice_modes(crd, a.shape, a.stride)
        return stride_layout(tuple(k for k, _ in kept), tuple(d for _, d in kept)), off  # a tuple even of one
    _check_input(a, "slice_and_offset")
    if isinstance(a, ComposedLayout):
        return slice_composed(a, crd)
    return _layout_slice_and_offset(a, crd)


def slice_layout(a: Any, crd: Any) -> AnyLayout:
    """CuTe ``slice``: the sub-layout over the None modes of ``crd``, ``a(crd)`` itself.

    For a plain layout the offset of the fixed modes is dropped, as in CuTe;
    a composed layout keeps it (folded into its offset, as CuTe does), so its
    slice is the same function as ``a`` on the sliced coordinates.
    """
    _check_input(a, "slice_layout")
    if isinstance(a, ComposedLayout):
        return slice_function(a, crd)
    return _layout_slice_and_offset(a, crd)[0]


def local_tile(a: Any, tiler: Any, coord: Any) -> tuple[AnyLayout, int]:
    """CuTe ``local_tile`` on a layout: tile number ``coord`` of ``zipped_divide(a, tiler)``.

    Returns ``(T, o)`` with ``a`` at element ``c`` of that tile ``== o + T(c)``
    (a tensor would move its pointer by ``o``).  ``coord`` is an int (flat
    index over the tiles) or a tuple with one entry per tiled mode (``None``
    keeps that mode, as ``_`` in CuTe).  On a tensor it returns the tile as a
    tensor on the same engine (its offset moved by ``o``).
    """
    if _tensor(a):
        sub, off = local_tile(a.layout, tiler, coord)
        return a.with_layout(sub, off)  # type: ignore[no-any-return]
    if not _strided(a):
        _check_input(a, "local_tile")
    divided = zipped_divide(a, tiler)
    inner = divided.inner if isinstance(divided, ComposedLayout) else divided
    tile_modes = inner[0].rank() if isinstance(inner.shape, tuple) else 1
    tile_part: Any = tuple([None] * tile_modes) if isinstance(inner[0].shape, tuple) else None
    rest = inner[1]
    if isinstance(coord, (tuple, list)):
        rest_rank = rest.rank() if isinstance(rest.shape, tuple) else 1
        if len(coord) > rest_rank:
            raise LayoutError(f"local_tile coord {describe(coord)} has more modes than the {rest_rank} tile modes of {rest}")
        rest_part: Any = tuple(coord) + (None,) * (rest_rank - len(coord))
        if not isinstance(rest.shape, tuple):
            rest_part = rest_part[0]
    else:
        rest_part = coord
    return slice_and_offset(divided, (tile_part, rest_part))


def local_partition(a: Any, thr_layout: Layout, index: int) -> tuple[AnyLayout, int]:
    """CuTe ``local_partition(tensor, thr_layout, index)``: the elements thread ``index`` owns.

    The tile is ``thr_layout``'s shape; the thread sits at the coordinate ``c``
    with ``thr_layout(c) == index`` (CuTe's ``get_flat_coord``, the inverse of
    the thread layout) in every tile.  Returns ``(P, o)`` with
    ``a(c_k + tile_k * p_k) == o + P(p)`` (CuTe's ``outer_partition`` of
    ``zipped_divide``).  ``thr_layout`` must be injective.
    """
    import numpy as np

    if _tensor(a):
        sub, off = local_partition(a.layout, thr_layout, index)
        return a.with_layout(sub, off)  # type: ignore[no-any-return]
    _check_input(a, "local_partition")
    if not isinstance(thr_layout, Layout):
        raise LayoutError(f"local_partition thread layout must be a Layout, got {describe(thr_layout)}")
    index = plain_int(index, "local_partition index")
    if isinstance(index, bool) or not isinstance(index, int):
        raise LayoutError(f"local_partition index must be an int, got {describe(index)}")
    if thr_layout.size() > _MAX_CHECK:
        raise LayoutError(f"local_partition: thread layout {thr_layout} is too large to invert")
    hits = np.nonzero(thr_layout.to_numpy() == index)[0]
    if hits.size != 1:
        problem = "is not a value of" if hits.size == 0 else "is reached more than once by"
        raise LayoutError(f"local_partition: thread index {index} {problem} {thr_layout}")
    modes = thr_layout.modes() if isinstance(thr_layout.shape, tuple) else [thr_layout]
    flat_index = int(hits[0])
    coord = []
    for mode in modes:
        coord.append(flat_index % mode.size())
        flat_index //= mode.size()
    tiler = tuple(Layout(mode.size()) for mode in modes)
    divided = zipped_divide(a, tiler)
    inner = divided.inner if isinstance(divided, ComposedLayout) else divided
    tile_part: Any = tuple(coord) if isinstance(inner[0].shape, tuple) else coord[0]
    rest = inner[1]
    rest_part: Any = tuple([None] * rest.rank()) if isinstance(rest.shape, tuple) else None
    return slice_and_offset(divided, (tile_part, rest_part))


# ---------------------------------------------------------------------------
# inverses


def right_inverse(a: Any) -> AnyLayout:
    """CuTe ``right_inverse``: ``R`` with ``a(R(i)) == i`` for every ``i < size(R)``.

    For ``Sw o 0 o B``: ``right_inverse(B) o Sw`` in swizzle-outermost form,
    when the swizzle maps ``[0, size(right_inverse(B)))`` onto itself (for a
    layout ``O o 0 o B``: ``right_inverse(B) o right_inverse(O)``); otherwise
    the longest prefix of ``right_inverse(B)`` that is a layout and on which the
    outer function is the identity (a valid, smaller right inverse: ``1:0`` at
    least).  Every answer is checked on its whole domain.
    """
    if type(a) is Layout:
        return core_algebra.right_inverse(a)  # type: ignore[no-any-return]
    if _symbolic(a):
        from layoutalg.core import symbolic_ops

        return symbolic_ops.right_inverse(a)  # type: ignore[no-any-return]
    if _strided(a):
        from layoutalg.core import stride_codomain

        return stride_codomain.right_inverse(a)

    _check_input(a, "right_inverse")
    if isinstance(a, Layout):
        return core_algebra.right_inverse(a)  # type: ignore[no-any-return]
    _require_checkable(a, f"right_inverse({a})")
    if a.offset != 0:
        raise CompositionError(f"right_inverse({a}): a composed layout with a non-zero offset ({a.offset})")
    base = core_algebra.right_inverse(a.inner)
    values = a.to_numpy()
    try:
        candidate: AnyLayout = (composition(base, core_algebra.right_inverse(a.outer)) if isinstance(a.outer, Layout)
                                else layout_after_swizzle(base, a.outer))
    except CompositionError:
        candidate = base
    if not _is_right_inverse(candidate, values):
        candidate = _exact_prefix(base, values)
    if not _is_right_inverse(candidate, values):
        raise CompositionError(f"right_inverse({a}) has no exact representation")
    if isinstance(candidate, ComposedLayout) and _identity_swizzle(candidate.outer):
        return candidate.inner
    return candidate


def _is_right_inverse(candidate: AnyLayout, values: Any) -> bool:
    """``values[candidate(i)] == i`` for every ``i < size(candidate)`` (``values[j]`` the function at ``j``)."""
    import numpy as np

    check = candidate.to_numpy()
    if check.size and (int(check.min()) < 0 or int(check.max()) >= values.size):
        return False
    return bool(np.array_equal(values[check], np.arange(check.size)))


def _exact_prefix(base: Layout, values: Any) -> Layout:
    """The longest prefix of ``base`` that is a layout and a right inverse of the function ``values``: ``base``
    cut where ``values[base(i)] != i`` first holds, then to whole leading modes (``values[base(i)]`` is the outer
    function at ``i``, the identity at least up to where a swizzle's lowest read bit starts; ``1:0`` at least, since
    the function is 0 at 0)."""
    import numpy as np

    reached = values[base.to_numpy()]
    wrong = np.nonzero(reached != np.arange(reached.size))[0]
    exact = int(wrong[0]) if wrong.size else reached.size
    return core_algebra.composition(base, Layout(layout_prefix(base, exact), 1))  # exact >= 1: 0 maps to 0


def left_inverse(a: Any) -> AnyLayout:
    """CuTe ``left_inverse``: ``L`` with ``L(a(i)) == i`` for every ``i < size(a)``; ``a`` must be injective.

    For ``Sw o 0 o B``: ``left_inverse(B) o Sw`` in swizzle-outermost form.
    When that has no such form (or the swizzle moves offsets past the domain
    of ``left_inverse(B)``), and ``a`` is linear over GF(2), the inverse is
    taken on bit matrices: ``a``'s matrix is completed to an invertible one by
    unit columns, inverted, and the extra rows dropped (so the inverse is 0 off
    ``a``'s image), then factored as a layout or ``Sw o _0 o Layout``.
    Every result is checked on all of ``a``'s values.
    """
    if type(a) is Layout:
        return core_algebra.left_inverse(a)  # type: ignore[no-any-return]
    if _strided(a):
        from layoutalg.core import stride_codomain

        return stride_codomain.left_inverse(a)
    import numpy as np

    _check_input(a, "left_inverse")
    if isinstance(a, Layout):
        return core_algebra.left_inverse(a)  # type: ignore[no-any-return]
    _require_checkable(a, f"left_inverse({a})")
    values = a.to_numpy()

    def exact(candidate: AnyLayout) -> bool:
        return int(values.max(initial=0)) < candidate.size() and bool(
            np.array_equal(eval_at(candidate, values), np.arange(values.size))
        )

    injective = np.unique(values).size == values.size
    if injective and a.offset == 0 and isinstance(a.outer, Swizzle):
        try:
            candidate = layout_after_swizzle(core_algebra.left_inverse(a.inner), a.outer)
            if exact(candidate):
                return candidate
        except CompositionError:
            pass
        fallback = _f2_left_inverse(a)
        if fallback is not None and exact(fallback):
            return fallback
    if values.size and (int(values[0]) != 0 or int(values.min()) < 0):
        raise CompositionError(f"left_inverse({a}): read on its values only where it is 0 at 0 and never negative; "
                               f"it is {int(values[0])} at 0 and takes {int(values.min())}")
    return left_inverse_of_values([int(v) for v in values], str(a))


def _f2_left_inverse(a: ComposedLayout) -> AnyLayout | None:
    """The GF(2) left inverse of a linear injective ``a`` (0 off its image), as a layout; None if not possible."""
    from layoutalg.swizzle.f2 import BitMatrix, from_f2, to_f2

    try:
        matrix = to_f2(a)
    except LayoutError:
        return None
    n_in, n_out = matrix.n_in, matrix.n_out
    if matrix.rank() != n_in:
        return None
    columns = list(matrix.columns)
    rank = n_in
    for k in range(n_out):
        trial = BitMatrix.from_columns(columns + [1 << k], n_out)
        if trial.rank() > rank:
            columns.append(1 << k)
            rank += 1
    inverse = BitMatrix(n_out, n_out, tuple(columns)).inverse()
    keep = (1 << n_in) - 1
    try:
        return from_f2(BitMatrix(n_out, n_in, tuple(c & keep for c in inverse.columns)))
    except LayoutError:
        return None


def eval_at(a: AnyLayout, index: Any) -> Any:
    """Evaluate a Layout or ComposedLayout at every 1-D index of a numpy array."""
    if isinstance(a, Layout):
        return eval_layout_at(a, index)
    positions = a.offset + eval_layout_at(a.inner, index)
    return a.outer(positions) if isinstance(a.outer, Swizzle) else eval_layout_at(a.outer, positions)


# ---------------------------------------------------------------------------
# recast between element widths


def _log2(n: int, what: str) -> int:
    n = plain_int(n, what)
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0 or n & (n - 1):
        raise LayoutError(f"{what} must be a positive power of two, got {describe(n)}")
    return n.bit_length() - 1


def upcast(a: Any, n: int) -> AnyLayout:
    """View ``n`` consecutive elements as one ``n``-times-wider element (CuTe ``upcast<N>``).

    ``Sw<B,M,S> o off o L`` becomes ``Sw<B,M-log2 n,S> o off/n o upcast(L, n)``:
    the swizzle never touches the low ``M`` bits, so
    ``Sw(x) // n == Sw'(x // n)``.  A swizzle with ``M < log2 n`` (it scrambles
    bits inside the new element) or an offset not divisible by ``n`` raises.
    """
    _check_input(a, "upcast")
    k = _log2(n, "upcast factor")
    from layoutalg.core.recast import upcast as core_upcast

    if isinstance(a, Layout):
        return core_upcast(a, n)
    if not isinstance(a.outer, Swizzle):
        raise CompositionError(f"upcast({a}, {n}): only a swizzle outer function can be recast")
    sw = a.outer
    if sw.bits and sw.base < k:
        raise CompositionError(f"upcast({a}, {n}): {sw} permutes bits below the {n}-element granularity")
    if a.offset % n:
        raise CompositionError(f"upcast({a}, {n}): offset {a.offset} is not a multiple of {n}")
    new_sw = Swizzle(sw.bits, sw.base - k, sw.shift) if sw.bits else sw
    return ComposedLayout(new_sw, a.offset // n, core_upcast(a.inner, n))


def downcast(a: Any, n: int) -> AnyLayout:
    """Split each element into ``n`` narrower ones (CuTe ``downcast<N>``): ``Sw<B,M,S>`` becomes ``Sw<B,M+log2 n,S>``."""
    _check_input(a, "downcast")
    k = _log2(n, "downcast factor")
    from layoutalg.core.recast import downcast as core_downcast

    if isinstance(a, Layout):
        return core_downcast(a, n)
    if not isinstance(a.outer, Swizzle):
        raise CompositionError(f"downcast({a}, {n}): only a swizzle outer function can be recast")
    sw = a.outer
    new_sw = Swizzle(sw.bits, sw.base + k, sw.shift) if sw.bits else sw
    return ComposedLayout(new_sw, a.offset * n, core_downcast(a.inner, n))


def recast(a: Any, old_bits: Any, new_bits: Any = None) -> AnyLayout:
    """CuTe ``recast_layout<Old, New>``: re-express ``a`` (in ``old_bits`` elements) in ``new_bits`` elements.

    A plain Layout takes any widths (``recast(L, 8, 48)`` is ``upcast(L, 6)``), with
    :func:`layoutalg.core.recast.recast_layout`'s exact divisions; a swizzled layout needs
    power-of-two widths (the swizzle's base moves by a number of bits).  ``recast(a, ratio)``
    with one number is PyCuTe's form, ``ratio = new_bits / old_bits`` (an int or a
    ``Fraction``), by CuTe C++'s rounding-up rule (:func:`layoutalg.core.recast_ratio.recast_by`).
    """
    if new_bits is None:
        from fractions import Fraction

        from layoutalg.core.recast_ratio import recast_by

        if isinstance(a, Layout):
            return recast_by(a, old_bits)
        ratio = Fraction(old_bits) if isinstance(old_bits, (int, Fraction)) and not isinstance(old_bits, bool) else None
        if ratio is None or ratio <= 0:
            raise LayoutError(f"recast ratio must be a positive int or Fraction, got {describe(old_bits)}")
        old_bits, new_bits = ratio.denominator, ratio.numerator
    if isinstance(a, Layout):
        from layoutalg.core.recast import recast_layout

        return recast_layout(new_bits, old_bits, a)
    _log2(old_bits, "old_bits")
    _log2(new_bits, "new_bits")
    if new_bits == old_bits:
        _check_input(a, "recast")
        return a  # type: ignore[no-any-return]
    if new_bits > old_bits:
        return upcast(a, new_bits // old_bits)
    return downcast(a, old_bits // new_bits)


__all__ = [
    "composition",
    "commute_swizzle",
    "layout_after_swizzle",
    "coalesce",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "blocked_product",
    "raked_product",
    "flat_product",
    "slice_and_offset",
    "slice_layout",
    "local_tile",
    "local_partition",
    "right_inverse",
    "left_inverse",
    "eval_at",
    "upcast",
    "downcast",
    "recast",
    "tile_to_shape",
]

"""Triton and Gluon layouts: valid Gluon objects out, every Triton layout in.

* ``to_triton(tv_layout, tile=(M, N))``: a CuTe TV layout (thread, value) -> index ``m + M*n`` of an
  ``M x N`` tile (``(M,)``, or ``(M, N, K)``: ``m + M*n + M*N*k``, any rank) as a Gluon ``DistributedLinearLayout``: thread ``t`` is lane ``t % 32`` of warp ``t // 32``
  (so the warps follow from the thread count), value ``v`` is register ``v``, and each basis is the
  ``[m, n]`` the bit reaches.  Triton needs whole warps, power-of-two extents, a map linear over GF(2)
  and onto the tile; anything else is refused with a LayoutError saying which.
* ``to_triton(smem_layout, dtype='f16')``: a shared-memory layout ``(m, n) -> element offset`` (rank 1 to 5) as the
  narrowest Gluon encoding equal to it on every element (``NVMMASharedLayout``, ``SwizzledSharedLayout``,
  ``PaddedSharedLayout``, else ``SharedLinearLayout``; see :mod:`layoutalg.interop.triton_shared`).
* ``to_triton(layout)`` without ``tile``/``dtype`` (or with ``in_dims``/``out_shape``) keeps the generic
  :class:`~layoutalg.swizzle.triton.TritonLinearLayout` of :mod:`layoutalg.swizzle.triton`.
* ``from_triton(obj, shape=(M, N))`` reads back every Gluon layout (``DistributedLinearLayout``,
  ``BlockedLayout``, ``NVMMADistributedLayout`` mma v2/v3, ``SliceLayout``, ``DotOperandLayout`` and the
  four shared encodings), ``#ttg.*`` attribute text, ``LinearLayout::toString`` text and
  ``TritonLinearLayout``: distributed layouts as TV layouts ``((lane, warp), register)``, shared ones as
  smem layouts.  Triton's own distributed layouts are read through Triton's ``to_linear_layout`` (so they
  mean exactly what Triton means); shared ones through Triton's formulas, which the tests check against the
  address code Triton emits.
* :func:`to_triton_text` writes the ``#ttg.*`` attribute of the same export (no Triton needed).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

from layoutalg.core.dtypes import dtype_bits
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError
from layoutalg.interop import triton_shared as ts
from layoutalg.interop import triton_text as tt
from layoutalg.interop.function import layout_from_values
from layoutalg.interop.isolated import run_isolated
from layoutalg.interop.triton_distributed import DistributedForm, _pow2, distributed_form, extents_of, tv_from_bases
from layoutalg.swizzle import triton as linear
from layoutalg.swizzle.composed import ComposedLayout

# --------------------------------------------------------------------------- shared layouts


def _shape_from_bases(bases: Sequence[Sequence[int]], rank: int) -> tuple[int, ...]:
    """The smallest power-of-two shape holding every basis (LayoutError for a basis of another rank or a negative
    coordinate)."""
    spans = [0] * rank
    for k, b in enumerate(bases):
        if len(b) != rank or any(int(v) < 0 for v in b):
            raise LayoutError(f"basis {k} {list(b)}: expected {rank} non-negative coordinates (the rank of basis 0)")
        for d in range(rank):
            spans[d] |= int(b[d])
    return tuple(1 << s.bit_length() for s in spans)


def shared_form_of(kind: str, fields: dict[str, Any], shape: Sequence[int] | None) -> ts.SharedForm:
    """A :class:`SharedForm` from a shared encoding's name and parameters (Gluon's or the ``#ttg`` text's)."""
    if fields.get("block_bases") or fields.get("block") or fields.get("cga_layout"):
        raise LayoutError(f"a {kind} layout spread over several CTAs has no single-CTA smem form")
    if kind in ("shared_linear", "linear_shared", "SharedLinearLayout"):
        bases = [list(b) for b in fields.get("offset_bases", fields.get("offset", []))]
        full = tuple(shape) if shape is not None else _shape_from_bases(bases, len(bases[0]) if bases else 1)
        return ts.SharedForm("linear", full, {"alignment": fields.get("alignment", 16)}, tuple(map(tuple, bases)))
    if kind in ("padded_shared", "PaddedSharedLayout"):
        bases = [list(b) for b in fields.get("offset_bases", fields.get("offset", []))]
        own = fields.get("shape")
        if own and shape is not None and tuple(own) != tuple(shape):
            raise LayoutError(f"this {kind} layout is over shape {list(own)}, not {list(shape)}")
        full = tuple(own or shape or _shape_from_bases(bases, len(bases[0]) if bases else 1))
        if not bases and "order" in fields:
            bases = ts.swizzled_bases(full, 1, 1, 1, fields["order"])
        return ts.SharedForm("padded", full, {"interval_padding_pairs": [list(p) for p in
                                                                          fields["interval_padding_pairs"]]},
                             tuple(map(tuple, bases)))
    if shape is None:
        raise LayoutError(f"a {kind} layout does not carry its shape: pass shape=(M, N)")
    full = tuple(int(e) for e in shape)
    if isinstance(fields.get("rank"), int) and fields["rank"] != len(full):
        raise LayoutError(f"this {kind} has rank {fields['rank']}; shape {list(full)} has {len(full)} dims")
    if kind in ("nvmma_shared", "NVMMASharedLayout"):
        if fields.get("fp4_padded"):
            raise LayoutError("fp4-padded NVMMA layouts are not read (their offsets skip half of each byte pair)")
        bits = int(fields["element_bitwidth"])
        nv = ts.nvmma_bases(full, int(fields["swizzle_byte_width"]), bits, bool(fields.get("transposed", False)))
        if nv is None:
            raise LayoutError(f"Triton has no NVMMA shared layout of {fields} over shape {list(full)} (smaller than "
                              "one 8-row swizzle tile, swizzled at rank 1, or an element width other than 8/16/32/64)")
        return ts.SharedForm("nvmma", full, dict(fields), tuple(map(tuple, nv)))
    if kind in ("swizzled_shared", "SwizzledSharedLayout"):
        sw = ts.swizzled_bases(full, int(fields["vec"]), int(fields["per_phase"]), int(fields["max_phase"]),
                               list(fields["order"]))
        return ts.SharedForm("swizzled", full, dict(fields), tuple(map(tuple, sw)))
    raise LayoutError(f"unknown Triton shared layout kind {describe(kind)}")


def smem_from_form(form: ts.SharedForm) -> Any:
    """The layoutalg smem layout ``(m, n) -> element offset`` of a Triton shared encoding.

    Up to :data:`~layoutalg.interop.triton_shared.MAX_ELEMENTS` elements it is read element by element; a larger
    unpadded one through its bit matrix (the inverse of its offset bases over GF(2)), never listed."""
    what = f"Triton {form.kind} shared layout"
    size = 1
    for extent in form.shape:
        size *= int(extent)
    if size <= ts.MAX_ELEMENTS:
        return layout_from_values(ts.offset_function(form), form.shape, what)
    if form.params.get("interval_padding_pairs"):
        raise LayoutError(f"{what} over {list(form.shape)}: a padded layout of {size} elements is read element by "
                          f"element, at most {ts.MAX_ELEMENTS}")
    ts.check_bases(form.bases, form.shape, what)
    columns = ts.index_bits_to_offsets(form.bases, form.shape, what)
    from layoutalg.swizzle.f2 import BitMatrix, from_f2

    matrix = BitMatrix.from_columns(columns)
    bits = [int(e).bit_length() - 1 for e in form.shape]
    for attempt in ({"shape": tuple(form.shape)}, {"mode_bits": bits}):
        try:
            return from_f2(matrix, **attempt)  # type: ignore[arg-type]
        except LayoutError:
            continue
    from layoutalg.interop.function import f2_bit_layout

    return f2_bit_layout(tuple(form.shape), columns)


def shared_text(form: ts.SharedForm) -> str:
    p = form.params
    if form.kind == "nvmma":
        return tt.nvmma_shared_text(p["swizzle_byte_width"], p["transposed"], p["element_bitwidth"], len(form.shape))
    if form.kind == "swizzled":
        return tt.swizzled_shared_text(p["vec"], p["per_phase"], p["max_phase"], p["order"])
    if form.kind == "padded":
        import itertools

        for order in map(list, itertools.permutations(reversed(range(len(form.shape))))):
            if ts.swizzled_bases(form.shape, 1, 1, 1, order) == form.offset_bases():
                return tt.padded_identity_text(p["interval_padding_pairs"], order, form.shape)
        return tt.padded_shared_text(p["interval_padding_pairs"], form.bases)
    return tt.shared_linear_text(form.bases, p.get("alignment", 16))


# --------------------------------------------------------------------------- Gluon objects


def gluon() -> Any:
    """``triton.experimental.gluon.language``, or a LayoutError saying how to install it."""
    try:
        from triton.experimental.gluon import language as gl
    except ImportError as exc:
        raise LayoutError("Gluon layouts need Triton >= 3.5 with Gluon: pip install triton") from exc
    return gl


def is_gluon(obj: Any) -> bool:
    return (type(obj).__module__ or "").startswith("triton.experimental.gluon")


@lru_cache(maxsize=1)
def _builder() -> tuple[Any, Any]:
    from triton._C.libtriton import gluon_ir, ir

    context = ir.context()
    ir.load_dialects(context)
    return context, gluon_ir.GluonOpBuilder(context)


def triton_linear_view(obj: Any, shape: Sequence[int]) -> Any:
    """Triton's own ``to_linear_layout`` of a Gluon *distributed* layout over ``shape`` (a DistributedLinearLayout).

    Only distributed layouts go here: Triton 3.6 aborts the process on shared ones.
    """
    gluon()
    from triton.experimental.gluon.language._layouts import AutoLayout, CoalescedLayout, DistributedLayout

    if not isinstance(obj, DistributedLayout) or isinstance(obj, (AutoLayout, CoalescedLayout)):
        raise LayoutError(f"Triton's linear view is read here for distributed layouts only, got {type(obj).__name__}")
    rank = getattr(obj, "rank", None)
    if rank is not None and rank != len(shape):
        raise LayoutError(f"{type(obj).__name__} has rank {rank}, shape {list(shape)} has {len(shape)} dims")
    for k, e in enumerate(shape):
        _pow2(int(e), f"shape[{k}]")
    extents = [int(e) for e in shape]
    bases = run_isolated(_linear_bases, (obj, extents), f"Triton's linear view of {obj} over shape {extents}")
    from triton.experimental.gluon.language import DistributedLinearLayout

    return DistributedLinearLayout(*bases)


def _linear_bases(obj: Any, shape: list[int]) -> tuple[list[Any], ...]:
    """Triton's ``to_linear_layout`` of ``obj`` as plain lists (register, lane, warp, block bases, shape).

    Run apart from this process (:func:`~layoutalg.interop.isolated.run_isolated`): Triton's C++ aborts on
    parameters it does not support (an mma version other than 2 or 3, a non-power-of-two ``k_width``)."""
    _, builder = _builder()
    view = builder.to_linear_layout(obj._to_ir(builder), shape)
    return (view.reg_bases, view.lane_bases, view.warp_bases, view.block_bases, view.shape)


_SHARED_KINDS = ("NVMMASharedLayout", "SwizzledSharedLayout", "PaddedSharedLayout", "SharedLinearLayout")


def _gluon_fields(obj: Any) -> dict[str, Any]:
    import dataclasses

    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def from_gluon(obj: Any, shape: Sequence[int] | None = None) -> Any:
    """A Gluon layout object as a layoutalg layout (TV layout or smem layout, see the module docstring)."""
    kind = type(obj).__name__
    if kind in _SHARED_KINDS:
        return smem_from_form(shared_form_of(kind, _gluon_fields(obj), shape))
    if kind != "DistributedLinearLayout":
        if shape is None:
            raise LayoutError(f"a {kind} does not carry its shape: pass shape=(M, N)")
        obj = triton_linear_view(obj, shape)
    if shape is not None and list(obj.shape) != [int(e) for e in shape]:
        raise LayoutError(f"this DistributedLinearLayout is over shape {list(obj.shape)}, not {list(shape)}")
    return tv_from_bases(obj.reg_bases, obj.lane_bases, obj.warp_bases, obj.block_bases, obj.shape)


# --------------------------------------------------------------------------- public entry points


def _legacy(kwargs: dict[str, Any]) -> bool:
    return any(k in kwargs for k in ("in_dims", "out_shape", "out_names", "in_order", "out_order"))


def to_triton(x: Any, tile: Any = None, dtype: Any = None, **kwargs: Any) -> Any:
    """A layoutalg layout as a Gluon layout object (see the module docstring)."""
    if tile is not None and dtype is not None:
        raise LayoutError("to_triton takes tile= (a TV layout) or dtype= (a shared-memory layout), not both")
    if tile is None and dtype is None:
        return linear.to_triton(x, **kwargs)
    if _legacy(kwargs) or kwargs:
        raise LayoutError(f"to_triton: unexpected arguments {sorted(kwargs)} with tile=/dtype=")
    gl = gluon()
    if tile is not None:
        form = distributed_form(x, tile)
        return gl.DistributedLinearLayout(reg_bases=[list(b) for b in form.reg], lane_bases=[list(b) for b in form.lane],
                                          warp_bases=[list(b) for b in form.warp], block_bases=[],
                                          shape=list(form.shape))
    shared = ts.shared_form(_smem(x), dtype_bits(dtype))
    p = shared.params
    if shared.kind == "nvmma":
        return gl.NVMMASharedLayout(swizzle_byte_width=p["swizzle_byte_width"], element_bitwidth=p["element_bitwidth"],
                                    rank=len(shared.shape), transposed=p["transposed"])
    if shared.kind == "swizzled":
        return gl.SwizzledSharedLayout(vec=p["vec"], per_phase=p["per_phase"], max_phase=p["max_phase"],
                                       order=list(p["order"]))
    if shared.kind == "padded":
        return gl.PaddedSharedLayout(p["interval_padding_pairs"], shared.offset_bases(), [], list(shared.shape))
    return gl.SharedLinearLayout(offset_bases=shared.offset_bases(), block_bases=[], alignment=16)


def _smem(x: Any) -> Any:
    if not isinstance(x, (Layout, ComposedLayout, StrideLayout)):
        raise LayoutError(f"to_triton(..., dtype=) takes a shared-memory Layout, ComposedLayout or a layout with F2 "
                          f"strides, got {describe(x)}")
    return x


def to_triton_text(x: Any, tile: Any = None, dtype: Any = None) -> str:
    """The ``#ttg.*`` attribute Triton prints for ``to_triton(x, tile=...)`` or ``to_triton(x, dtype=...)``."""
    if (tile is None) == (dtype is None):
        raise LayoutError("to_triton_text takes tile= (a TV layout) or dtype= (a shared-memory layout)")
    if tile is not None:
        return distributed_form(x, tile).text()
    return shared_text(ts.shared_form(_smem(x), dtype_bits(dtype)))


def from_triton(obj: Any, shape: Any = None, **kwargs: Any) -> Any:
    """Any Triton layout (Gluon object, ``#ttg`` text, toString text, TritonLinearLayout) as a layoutalg layout."""
    if _legacy(kwargs):
        return linear.from_triton(obj, **kwargs)
    if kwargs:
        raise LayoutError(f"from_triton: unexpected arguments {sorted(kwargs)}")
    full = None if shape is None else _tensor_shape(shape)
    if isinstance(obj, str):
        return _from_text(obj, full)
    if isinstance(obj, linear.TritonLinearLayout):
        return _from_linear(obj)
    if (type(obj).__module__ or "").startswith("triton._C") and hasattr(obj, "out_dims"):  # triton.tools.LinearLayout
        return _from_linear(linear.TritonLinearLayout(
            tuple((name, tuple(tuple(int(v) for v in vec) for vec in vecs)) for name, vecs in obj.bases),
            tuple((name, int(size)) for name, size in obj.out_dims)))
    if is_gluon(obj):
        return from_gluon(obj, full)
    raise LayoutError(f"from_triton takes a Gluon layout, #ttg text or a TritonLinearLayout, got {type(obj).__name__}")


def _tensor_shape(shape: Any) -> tuple[int, ...]:
    """A tensor shape to read a Triton layout over: an extent or a list of them (any rank), each a power of two."""
    extents = extents_of(shape, "shape")
    if not extents:
        raise LayoutError(f"shape must be a list of extents (M, N, ...), got {describe(shape)}")
    for k, e in enumerate(extents):
        _pow2(e, f"shape extent {k}")
    return tuple(extents)


_DISTRIBUTED_DIMS = {"register", "lane", "warp", "block"}


def _from_linear(tll: linear.TritonLinearLayout) -> Any:
    """Distributed dims (register/lane/warp/block) as a TV layout; any other naming as the generic import."""
    names = [n for n, _ in tll.bases]
    if "lane" not in names or not set(names) <= _DISTRIBUTED_DIMS:
        return linear.from_triton(tll)
    bases = dict(tll.bases)
    names = [name for name, _ in tll.out_dims]
    standard = [f"dim{k}" for k in range(len(names))]
    # the TV layout's index is m + M*n + ... with dim0 fastest: out dims listed in another order (each basis then
    # lists its entries in that order) are put back in dim order
    order = [names.index(name) for name in standard] if sorted(names) == sorted(standard) else list(range(len(names)))
    shape = [tll.out_dims[k][1] for k in order]
    bases = {name: tuple(tuple(vec[k] for k in order) for vec in vectors) for name, vectors in bases.items()}
    lane = list(bases.get("lane", ()))
    lane += [(0,) * len(shape)] * (5 - len(lane)) if len(lane) < 5 else []
    return tv_from_bases(bases.get("register", ()), lane, bases.get("warp", ()), bases.get("block", ()), shape)


def _from_text(text: str, shape: tuple[int, ...] | None) -> Any:
    attribute = tt.ttg_attribute(text)
    if attribute is None:
        return _from_linear(linear.parse_triton(text.strip()))
    stripped = attribute
    kind, fields = tt.parse_ttg(stripped)
    if kind == "linear":
        regs = fields.get("register", [])
        rank = len(next(iter(b for key in ("register", "lane", "warp") for b in fields.get(key, [])), [0]))
        full = shape or _shape_from_bases([*regs, *fields.get("lane", []), *fields.get("warp", [])], rank)
        return tv_from_bases(regs, fields.get("lane", []), fields.get("warp", []), fields.get("block", []), full)
    if kind in ("shared_linear", "padded_shared", "nvmma_shared", "swizzled_shared"):
        return smem_from_form(shared_form_of(kind, fields, shape))
    if kind in ("blocked", "nvidia_mma"):
        if shape is None:
            raise LayoutError(f"a #ttg.{kind} layout does not carry its shape: pass shape=(M, N)")
        gl = gluon()
        if kind == "blocked":
            obj = gl.BlockedLayout(size_per_thread=fields["size_per_thread"], threads_per_warp=fields["threads_per_warp"],
                                   warps_per_cta=fields["warps_per_cta"], order=fields["order"])
        else:
            obj = gl.NVMMADistributedLayout(version=[fields["version_major"], fields.get("version_minor", 0)],
                                            warps_per_cta=fields["warps_per_cta"], instr_shape=fields["instr_shape"])
        return from_gluon(obj, shape)
    raise LayoutError(f"#ttg.{kind} is not a layout read here; known: linear, blocked, nvidia_mma, shared_linear, "
                      "nvmma_shared, swizzled_shared, padded_shared")


__all__ = ["to_triton", "to_triton_text", "from_triton", "from_gluon", "distributed_form", "tv_from_bases",
           "triton_linear_view", "DistributedForm", "is_gluon"]

"""Triton and Gluon layouts: valid Gluon objects out, every Triton layout in.

* ``to_triton(tv_layout, tile=(M, N))``: a CuTe TV layout (thread, value) -> index ``m + M*n`` of an
  ``M x N`` tile as a Gluon ``DistributedLinearLayout``: thread ``t`` is lane ``t % 32`` of warp ``t // 32``
  (so the warps follow from the thread count), value ``v`` is register ``v``, and each basis is the
  ``[m, n]`` the bit reaches.  Triton needs whole warps, power-of-two extents, a map linear over GF(2)
  and onto the tile; anything else is refused with a LayoutError saying which.
* ``to_triton(smem_layout, dtype='f16')``: a shared-memory layout ``(m, n) -> element offset`` as the
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

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.dtypes import dtype_bits
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError
from layoutalg.interop import triton_shared as ts
from layoutalg.interop import triton_text as tt
from layoutalg.swizzle import triton as linear
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
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0 or n & (n - 1):
        raise LayoutError(f"{what} must be a positive power of two, got {n!r}")
    return n.bit_length() - 1


def _tile(tile: Any) -> tuple[int, ...]:
    extents = (tile,) if isinstance(tile, int) and not isinstance(tile, bool) else tuple(tile)
    if not 1 <= len(extents) <= 2:
        raise LayoutError(f"tile must be (M, N) or (M,), got {tile!r}")
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

    if not isinstance(tv, (Layout, ComposedLayout)) or not isinstance(tv.shape, tuple) or len(tv.shape) != 2:
        raise LayoutError(f"a TV layout has two top-level modes (thread, value); got {tv!r}")
    shape = _tile(tile)
    threads, values_per = it.product(tv.shape[0]), it.product(tv.shape[1])
    thread_bits = _pow2(threads, f"the thread count of {tv}")
    _pow2(values_per, f"the value count of {tv}")
    if threads < LANES:
        raise LayoutError(f"{tv} has {threads} threads; a Triton distributed layout spans whole warps of {LANES}")
    values = np.asarray(tv.to_numpy(), dtype=np.int64)
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
    if not reg_cols:
        thread = from_f2(BitMatrix(len(thread_cols), n_out, tuple(thread_cols)))
        thread_layout = thread if isinstance(thread, Layout) else None
        if thread_layout is not None:
            return Layout((thread_layout.shape, 1), (thread_layout.stride, 0))
    return from_f2(matrix, mode_bits=[len(thread_cols), len(reg_cols)])


# --------------------------------------------------------------------------- shared layouts


def _layout_from_values(values: list[int], shape: tuple[int, ...], what: str) -> Any:
    """The layoutalg layout over ``shape`` whose offsets are ``values`` (index ``m + M*n``)."""
    import numpy as np

    from layoutalg.swizzle.composed import fit_affine

    array = np.asarray(values, dtype=np.int64)
    try:
        columns = _linear_columns(array, what)
    except LayoutError:
        columns = None
    if columns is not None:
        n_out = max(1, int(array.max()).bit_length())
        result = from_f2(BitMatrix(len(columns), n_out, tuple(columns)),
                         mode_bits=[_pow2(e, "extent") for e in shape])
    else:
        # Padded: affine in the index bits (one stride per bit), then merged back into as few modes as fit.
        from layoutalg.core.algebra import coalesce

        bit_shape = tuple(tuple([2] * _pow2(e, "extent")) or 1 for e in shape)
        fitted = fit_affine(array, bit_shape if len(shape) > 1 else bit_shape[0])
        if fitted is None or fitted[1] != 0:
            raise LayoutError(f"{what} is neither linear nor a padded CuTe layout; no layoutalg layout equals it")
        result = coalesce(fitted[0], tuple([1] * len(shape))) if len(shape) > 1 else coalesce(fitted[0])
    if not np.array_equal(np.asarray(result.to_numpy(), dtype=np.int64), array):  # pragma: no cover - from_f2 is exact
        raise LayoutError(f"internal: {what} read back as {result}, which differs")
    return result


def _shape_from_bases(bases: Sequence[Sequence[int]], rank: int) -> tuple[int, ...]:
    spans = [0] * rank
    for b in bases:
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
        full = tuple(fields.get("shape") or shape or _shape_from_bases(bases, len(bases[0]) if bases else 1))
        if not bases and "order" in fields:
            bases = ts.swizzled_bases(full, 1, 1, 1, fields["order"])
        return ts.SharedForm("padded", full, {"interval_padding_pairs": [list(p) for p in
                                                                          fields["interval_padding_pairs"]]},
                             tuple(map(tuple, bases)))
    if shape is None:
        raise LayoutError(f"a {kind} layout does not carry its shape: pass shape=(M, N)")
    full = tuple(int(e) for e in shape)
    if kind in ("nvmma_shared", "NVMMASharedLayout"):
        if fields.get("fp4_padded"):
            raise LayoutError("fp4-padded NVMMA layouts are not read (their offsets skip half of each byte pair)")
        bits = int(fields["element_bitwidth"])
        nv = ts.nvmma_bases(full, int(fields["swizzle_byte_width"]), bits, bool(fields.get("transposed", False)))
        if nv is None:
            raise LayoutError(f"Triton has no NVMMA shared layout of {fields} over shape {list(full)} (smaller than "
                              "one 8-row swizzle tile, or an element width other than 8/16/32/64)")
        return ts.SharedForm("nvmma", full, dict(fields), tuple(map(tuple, nv)))
    if kind in ("swizzled_shared", "SwizzledSharedLayout"):
        sw = ts.swizzled_bases(full, int(fields["vec"]), int(fields["per_phase"]), int(fields["max_phase"]),
                               list(fields["order"]))
        return ts.SharedForm("swizzled", full, dict(fields), tuple(map(tuple, sw)))
    raise LayoutError(f"unknown Triton shared layout kind {kind!r}")


def smem_from_form(form: ts.SharedForm) -> Any:
    """The layoutalg smem layout ``(m, n) -> element offset`` of a Triton shared encoding."""
    return _layout_from_values(ts.offset_function(form), form.shape, f"Triton {form.kind} shared layout")


def shared_text(form: ts.SharedForm) -> str:
    p = form.params
    if form.kind == "nvmma":
        return tt.nvmma_shared_text(p["swizzle_byte_width"], p["transposed"], p["element_bitwidth"])
    if form.kind == "swizzled":
        return tt.swizzled_shared_text(p["vec"], p["per_phase"], p["max_phase"], p["order"])
    if form.kind == "padded":
        for order in ([1, 0], [0, 1]) if len(form.shape) == 2 else ([0],):
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
    _, builder = _builder()
    return builder.to_linear_layout(obj._to_ir(builder), [int(e) for e in shape])


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
                                    rank=2, transposed=p["transposed"])
    if shared.kind == "swizzled":
        return gl.SwizzledSharedLayout(vec=p["vec"], per_phase=p["per_phase"], max_phase=p["max_phase"],
                                       order=list(p["order"]))
    if shared.kind == "padded":
        return gl.PaddedSharedLayout(p["interval_padding_pairs"], shared.offset_bases(), [], list(shared.shape))
    return gl.SharedLinearLayout(offset_bases=shared.offset_bases(), block_bases=[], alignment=16)


def _smem(x: Any) -> Any:
    if not isinstance(x, (Layout, ComposedLayout)):
        raise LayoutError(f"to_triton(..., dtype=) takes a shared-memory Layout or ComposedLayout, got {x!r}")
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
    full = None if shape is None else _tile(shape)
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


_DISTRIBUTED_DIMS = {"register", "lane", "warp", "block"}


def _from_linear(tll: linear.TritonLinearLayout) -> Any:
    """Distributed dims (register/lane/warp/block) as a TV layout; any other naming as the generic import."""
    names = [n for n, _ in tll.bases]
    if "lane" not in names or not set(names) <= _DISTRIBUTED_DIMS:
        return linear.from_triton(tll)
    bases = dict(tll.bases)
    shape = [size for _, size in tll.out_dims]
    lane = list(bases.get("lane", ()))
    lane += [(0,) * len(shape)] * (5 - len(lane)) if len(lane) < 5 else []
    return tv_from_bases(bases.get("register", ()), lane, bases.get("warp", ()), bases.get("block", ()), shape)


def _from_text(text: str, shape: tuple[int, ...] | None) -> Any:
    stripped = text.strip()
    if not stripped.startswith("#ttg."):
        return _from_linear(linear.parse_triton(stripped))
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

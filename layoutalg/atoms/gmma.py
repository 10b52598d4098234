"""Hopper ``wgmma.mma_async`` m64nNk16 (f16/bf16) and the shared-memory matrix descriptor.

TV layouts (cute/atom/mma_traits_sm90_gmma.hpp), 128 threads (a warpgroup), ``ThrID = 128:1``:

* A from shared memory (``_SS``): ``ABLayout<64,16> = (128,(64,16)):(0,(1,64))`` -- every
  thread "sees" the whole tile (the instruction reads it through a descriptor);
* A from registers (``_RS``): ``((4,8,4),(2,2,2)):((128,1,16),(64,8,512))``;
* B (always shared memory): ``ABLayout<N,16> = (128,(N,16)):(0,(1,N))``;
* C/D: ``((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))``.

PTX-level semantics (PTX ISA "wgmma .m64nNk16 register fragments"), for ``%tid``
in the warpgroup ``[0,128)``, ``warp = tid // 32``, ``lane = tid % 32``,
``groupID = lane >> 2``, ``threadID_in_group = lane % 4``::

    D, element d_i, i in [0, N/2):  row = 16*warp + groupID + 8*((i >> 1) & 1)
                                    col = 8*(i >> 2) + 2*threadID_in_group + (i & 1)
    A (registers), a_i, i in [0,8): row = 16*warp + groupID + 8*((i >> 1) & 1)
                                    col = 8*(i >> 2) + 2*threadID_in_group + (i & 1)

``atom.fragment_coord(operand, tid, i) -> (row, col)``; ``atom.ptx_layout(operand)``
is that formula as a Layout (``(tid, i) -> row + 64*col``), checked at every point.

Shared-memory matrix descriptor (:class:`GmmaDescriptor`, CUTLASS ``GmmaDescriptor``):
64-bit word with ``start_address >> 4`` in bits [0,14), ``leading_byte_offset >> 4``
in [16,30), ``stride_byte_offset >> 4`` in [32,46), ``base_offset`` in [49,52),
``layout_type`` in [62,64) (0 interleave / no swizzle, 1 = 128B, 2 = 64B, 3 = 32B swizzle).

Its address function (:meth:`GmmaDescriptor.address`) follows CuTe's canonical GMMA
layouts (``make_gmma_desc``), in 16-byte units ``u`` with ``W`` = swizzle width in
units (1, 2, 4, 8 for interleave, 32B, 64B, 128B)::

    K-major,  element (mn, k), kb = k*bits/8 bytes:   mn = r + 8*g, ku = kb // 16
        interleave: u = r + g*SBO + ku*LBO          swizzled: u = r*W + g*SBO + ku
    MN-major, element (mn, k), mb = mn*bits/8 bytes:  mu = mb // 16 = w + W*g, k = r + 8*h
        interleave: u = g*SBO + r + h*LBO           swizzled: u = w + g*LBO + r*W + h*SBO
    byte = start_address + 16*u + (byte within the 16-byte unit)
    address = Swizzle<log2(W), 4, 3>(byte)   (XOR of byte-address bits [7,7+log2 W) into [4,4+log2 W))

(LBO/SBO here in 16-byte units; the descriptor stores bytes >> 4.)  The swizzle acts on
the absolute shared-memory address, which is why swizzled tiles must be aligned to
the swizzle's repeat (1024 B for 128B) unless ``base_offset`` says otherwise.

:func:`make_gmma_desc` (CuTe ``make_gmma_desc<Major>``) reads the descriptor off a
canonical smem layout (e.g. ``tile_to_shape(Layout_K_SW128_Atom, ...)``) and checks
its address function against the layout at every (mn, k).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from layoutalg.atoms.fragment import fit_layout
from layoutalg.core.dtypes import cute_name, ptx_name
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError, LayoutError

Coord = tuple[int, int]

LAYOUT_TYPES = {"INTERLEAVE": 0, "B128": 1, "B64": 2, "B32": 3}
_WIDTH_UNITS = {"INTERLEAVE": 1, "B32": 2, "B64": 4, "B128": 8}


@dataclass(frozen=True)
class GmmaAtom:
    """``wgmma.mma_async.sync.aligned.m64nNk16.{d}.{a}.{b}``, A from smem (``SS``) or registers (``RS``)."""

    name: str
    ptx: str
    shape_mnk: tuple[int, int, int]
    thr_id: Layout
    a_layout: Layout
    b_layout: Layout
    c_layout: Layout
    a_type: str
    b_type: str
    c_type: str
    d_type: str
    a_source: str  # "smem" or "reg"

    arch: int = 90

    def layout(self, operand: str) -> Layout:
        op = _op(operand)
        return {"A": self.a_layout, "B": self.b_layout, "C": self.c_layout}[op]

    @property
    def num_threads(self) -> int:
        return 128

    def num_elements(self, operand: str) -> int:
        op = _op(operand)
        if op == "C":
            return self.shape_mnk[1] // 2
        if op == "A" and self.a_source == "reg":
            return 8
        raise InstructionError(f"{self.name}: operand {op} is read from shared memory through a descriptor, "
                               "not held in registers (see GmmaDescriptor.address)")

    def fragment_coord(self, operand: str, tid: int, i: int) -> Coord:
        """(row, col) of register element ``i`` of warpgroup thread ``tid`` (PTX ISA wgmma fragments)."""
        op = _op(operand)
        n = self.num_elements(op)
        if not 0 <= tid < 128:
            raise InstructionError(f"tid must be in [0, 128), got {tid}")
        if not 0 <= i < n:
            raise InstructionError(f"{self.name}: element index for {op} must be in [0, {n}), got {i}")
        warp, lane = tid // 32, tid % 32
        return 16 * warp + (lane >> 2) + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)

    def ptx_layout(self, operand: str) -> Layout:
        """``(tid, i) -> row + 64*col`` for the register operands (C, and A of ``_RS``)."""
        return self._ptx_layouts[_op(operand)]

    @cached_property
    def _ptx_layouts(self) -> dict[str, Layout]:
        out = {}
        for op in ("A", "C"):
            try:
                n = self.num_elements(op)
            except InstructionError:
                continue
            out[op] = fit_layout(lambda t, i, op=op: _rc(self.fragment_coord(op, t, i)), (128, n), f"{self.name} {op}")
        return out

    def __str__(self) -> str:
        return f"{self.name} ({self.ptx}): A {self.a_layout}, B {self.b_layout}, C {self.c_layout}"


def _rc(rc: Coord) -> int:
    return rc[0] + 64 * rc[1]


def _op(operand: str) -> str:
    op = str(operand).upper()
    op = "C" if op == "D" else op
    if op not in ("A", "B", "C"):
        raise InstructionError(f"operand must be 'A', 'B', 'C' or 'D', got {operand!r}")
    return op


def _ab_layout(mn: int, k: int) -> Layout:
    return Layout((128, (mn, k)), (0, (1, mn)))


def _c_layout(n: int) -> Layout:
    return Layout(((4, 8, 4), (2, 2, n // 8)), ((128, 1, 16), (64, 8, 512)))


GMMA_NS = tuple(range(8, 257, 8))


def make_gmma(n: int, a: str = "f16", b: str | None = None, c: str = "f32", a_source: str = "smem") -> GmmaAtom:
    """``SM90_64x{n}x16_{C}{A}{B}_{SS|RS}``: n a multiple of 8 in [8, 256]; a/b f16 or bf16; c f16 or f32."""
    a, b, c = ptx_name(a), ptx_name(b or a), ptx_name(c)
    if n not in GMMA_NS:
        raise InstructionError(f"wgmma m64nNk16: N must be a multiple of 8 in [8, 256], got {n}")
    if a not in ("f16", "bf16") or b != a:
        raise InstructionError(f"wgmma m64nNk16 here takes A and B both f16 or both bf16, got a={a!r}, b={b!r}")
    if c not in ("f16", "f32") or (a == "bf16" and c != "f32"):
        raise InstructionError(f"wgmma m64nNk16 .{a} accumulates in {'f32' if a == 'bf16' else 'f16 or f32'}, got c={c!r}")
    if a_source not in ("smem", "reg"):
        raise InstructionError(f"a_source must be 'smem' or 'reg', got {a_source!r}")
    mode = "SS" if a_source == "smem" else "RS"
    name = f"SM90_64x{n}x16_{cute_name(c)}{cute_name(a)}{cute_name(b)}_{mode}"
    ptx = f"wgmma.mma_async.sync.aligned.m64n{n}k16.{c}.{a}.{b}"
    a_layout = _ab_layout(64, 16) if a_source == "smem" else _c_layout(16)
    return GmmaAtom(name, ptx, (64, n, 16), Layout(128), a_layout, _ab_layout(n, 16), _c_layout(n), a, b, c, c, a_source)


@dataclass(frozen=True)
class GmmaDescriptor:
    """The wgmma shared-memory matrix descriptor; offsets in **bytes** (multiples of 16)."""

    start_address: int
    leading_byte_offset: int
    stride_byte_offset: int
    layout_type: str = "INTERLEAVE"
    base_offset: int = 0

    def __post_init__(self) -> None:
        if self.layout_type not in LAYOUT_TYPES:
            raise LayoutError(f"layout_type must be one of {sorted(LAYOUT_TYPES)}, got {self.layout_type!r}")
        for field_name in ("start_address", "leading_byte_offset", "stride_byte_offset"):
            value = getattr(self, field_name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value % 16 or value >> 4 >= 1 << 14:
                raise LayoutError(f"{field_name} must be a multiple of 16 in [0, 2**18), got {value!r}")
        if not isinstance(self.base_offset, int) or not 0 <= self.base_offset < 8:
            raise LayoutError(f"base_offset must be in [0, 8), got {self.base_offset!r}")

    @property
    def swizzle_width_units(self) -> int:
        return _WIDTH_UNITS[self.layout_type]

    def encode(self) -> int:
        """The 64-bit descriptor word."""
        return ((self.start_address >> 4)
                | (self.leading_byte_offset >> 4) << 16
                | (self.stride_byte_offset >> 4) << 32
                | self.base_offset << 49
                | LAYOUT_TYPES[self.layout_type] << 62)

    @classmethod
    def decode(cls, word: int) -> "GmmaDescriptor":
        if isinstance(word, bool) or not isinstance(word, int) or not 0 <= word < 1 << 64:
            raise LayoutError(f"a descriptor is a 64-bit unsigned int, got {word!r}")
        names = {v: k for k, v in LAYOUT_TYPES.items()}
        return cls(((word >> 0) & 0x3FFF) << 4, ((word >> 16) & 0x3FFF) << 4, ((word >> 32) & 0x3FFF) << 4,
                   names[(word >> 62) & 3], (word >> 49) & 7)

    def address(self, major: str, mn: int, k: int, bits: int) -> int:
        """Shared-memory byte address of element (mn, k) of the operand this descriptor describes.

        ``major`` is ``"K"`` (K contiguous) or ``"MN"``; ``bits`` the element width.
        """
        if bits not in (4, 8, 16, 32, 64):
            raise LayoutError(f"bits must be 4, 8, 16, 32 or 64, got {bits!r}")
        if mn < 0 or k < 0:
            raise LayoutError(f"coordinates must be non-negative, got ({mn}, {k})")
        w = self.swizzle_width_units
        lbo, sbo = self.leading_byte_offset // 16, self.stride_byte_offset // 16
        if major == "K":
            kbits = k * bits
            ku, within = kbits // 128, (kbits % 128) // 8
            r, g = mn % 8, mn // 8
            if self.layout_type == "INTERLEAVE":
                unit = r + g * sbo + ku * lbo
            else:
                if ku >= w:
                    raise LayoutError(f"K-major {self.layout_type}: k={k} ({kbits // 8} bytes) is past the swizzle "
                                      f"row of {16 * w} bytes; advance start_address for the next K block")
                unit = r * w + g * sbo + ku
        elif major == "MN":
            mbits = mn * bits
            mu, within = mbits // 128, (mbits % 128) // 8
            r, h = k % 8, k // 8
            if self.layout_type == "INTERLEAVE":
                unit = mu * sbo + r + h * lbo
            else:
                wi, g = mu % w, mu // w
                unit = wi + g * lbo + r * w + h * sbo
        else:
            raise LayoutError(f"major must be 'K' or 'MN', got {major!r}")
        byte = self.start_address + 16 * unit + within
        return swizzle_address(byte, self.layout_type)


def _offset_fn(layout: Any) -> tuple[Any, int, int]:
    if not hasattr(layout, "shape") or not callable(layout):
        raise LayoutError(f"make_gmma_desc needs a Layout or ComposedLayout, got {layout!r}")
    shape = layout.shape
    if not isinstance(shape, tuple) or len(shape) != 2:
        raise LayoutError(f"make_gmma_desc needs a rank-2 (MN, K) layout, got shape {shape}")
    mn = 1
    for e in _leaves(shape[0]):
        mn *= e
    k = 1
    for e in _leaves(shape[1]):
        k *= e
    return layout, mn, k


def _leaves(t: Any) -> list[int]:
    return [x for e in t for x in _leaves(e)] if isinstance(t, tuple) else [int(t)]


def make_gmma_desc(layout: Any, major: str, bits: int, start_address: int = 0) -> GmmaDescriptor:
    """CuTe ``make_gmma_desc<Major>``: the descriptor of a canonical GMMA shared-memory layout.

    ``layout`` maps (mn, k) to an element offset (a ``Layout``, or a swizzled ``ComposedLayout``
    whose swizzle acts on element offsets, e.g. ``Swizzle<3,3,3>`` for 16-bit data, which is
    ``Swizzle<3,4,3>`` on bytes); ``start_address`` (bytes) must be aligned to the swizzle's
    repeat.  LBO/SBO are read off the layout at the points the canonical forms (module docstring)
    name, for each swizzle mode in turn; the first descriptor whose :meth:`GmmaDescriptor.address`
    equals ``start_address + bits/8 * layout(mn, k)`` at **every** (mn, k) is returned.
    """
    lay, mn_ext, k_ext = _offset_fn(layout)
    if bits not in (8, 16, 32):
        raise LayoutError(f"bits must be 8, 16 or 32 for a wgmma operand, got {bits!r}")
    if major not in ("K", "MN"):
        raise LayoutError(f"major must be 'K' or 'MN', got {major!r}")
    nbytes = bits // 8
    per_unit = 16 // nbytes

    def at(mn: int, k: int) -> int:
        return nbytes * int(lay((mn, k))) if mn < mn_ext and k < k_ext else 16

    reasons = []
    for layout_type in ("B128", "B64", "B32", "INTERLEAVE"):
        w = _WIDTH_UNITS[layout_type]
        if major == "K":
            if layout_type == "INTERLEAVE":
                lbo, sbo = at(0, per_unit), at(8, 0)
            else:
                lbo, sbo = 16, at(8, 0)
        else:
            if layout_type == "INTERLEAVE":
                lbo, sbo = at(0, 8), at(per_unit, 0)
            else:
                lbo, sbo = at(w * per_unit, 0), at(0, 8)
        try:
            desc = GmmaDescriptor(start_address, max(lbo, 0), max(sbo, 0), layout_type)
            bad = next(((m, k) for m in range(mn_ext) for k in range(k_ext)
                        if desc.address(major, m, k, bits) != start_address + nbytes * int(lay((m, k)))), None)
        except LayoutError as err:
            reasons.append(f"{layout_type}: {err}")
            continue
        if bad is None:
            return desc
        reasons.append(f"{layout_type}: differs at (mn, k) = {bad}")
    raise LayoutError(f"{layout} is not a canonical {major}-major GMMA layout for {bits}-bit data "
                      f"({'; '.join(reasons)}); build it with tile_to_shape(Layout_{major}_SW128_Atom, ...)")


def swizzle_address(byte: int, layout_type: str) -> int:
    """``Swizzle<B,4,3>`` on a byte address, ``B = log2`` of the swizzle width in 16-byte units."""
    b = {"INTERLEAVE": 0, "B32": 1, "B64": 2, "B128": 3}[layout_type]
    mask = ((1 << b) - 1) << 7
    return byte ^ ((byte & mask) >> 3)


__all__ = ["GmmaAtom", "GmmaDescriptor", "make_gmma", "make_gmma_desc", "GMMA_NS", "LAYOUT_TYPES", "swizzle_address"]

"""Hopper ``wgmma`` shared-memory matrix descriptor (CUTLASS ``GmmaDescriptor``) and CuTe's ``make_gmma_desc``.

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
from typing import Any

from layoutalg.core.validate import as_int, describe, plain_int
from layoutalg.errors import LayoutError

LAYOUT_TYPES = {"INTERLEAVE": 0, "B128": 1, "B64": 2, "B32": 3}
_WIDTH_UNITS = {"INTERLEAVE": 1, "B32": 2, "B64": 4, "B128": 8}


@dataclass(frozen=True)
class GmmaDescriptor:
    """The wgmma shared-memory matrix descriptor; offsets in **bytes** (multiples of 16)."""

    start_address: int
    leading_byte_offset: int
    stride_byte_offset: int
    layout_type: str = "INTERLEAVE"
    base_offset: int = 0

    def __post_init__(self) -> None:
        for field_name in ("start_address", "leading_byte_offset", "stride_byte_offset", "base_offset"):
            object.__setattr__(self, field_name, as_int(getattr(self, field_name), field_name))
        if not isinstance(self.layout_type, str) or self.layout_type not in LAYOUT_TYPES:
            raise LayoutError(f"layout_type must be one of {sorted(LAYOUT_TYPES)}, got {describe(self.layout_type)}")
        for field_name in ("start_address", "leading_byte_offset", "stride_byte_offset"):
            value = getattr(self, field_name)
            if value < 0 or value % 16 or value >> 4 >= 1 << 14:  # an int: as_int above
                raise LayoutError(f"{field_name} must be a multiple of 16 in [0, 2**18), got {describe(value)}")
        if not 0 <= self.base_offset < 8:
            raise LayoutError(f"base_offset must be in [0, 8), got {describe(self.base_offset)}")

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
        word = plain_int(word, "descriptor word")
        if isinstance(word, bool) or not isinstance(word, int) or not 0 <= word < 1 << 64:
            raise LayoutError(f"a descriptor is a 64-bit unsigned int, got {describe(word)}")
        names = {v: k for k, v in LAYOUT_TYPES.items()}
        return cls(((word >> 0) & 0x3FFF) << 4, ((word >> 16) & 0x3FFF) << 4, ((word >> 32) & 0x3FFF) << 4,
                   names[(word >> 62) & 3], (word >> 49) & 7)

    def address(self, major: str, mn: int, k: int, bits: int) -> int:
        """Shared-memory byte address of element (mn, k) of the operand this descriptor describes.

        ``major`` is ``"K"`` (K contiguous) or ``"MN"``; ``bits`` the element width.
        """
        if bits not in (4, 8, 16, 32, 64):
            raise LayoutError(f"bits must be 4, 8, 16, 32 or 64, got {describe(bits)}")
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
            raise LayoutError(f"major must be 'K' or 'MN', got {describe(major)}")
        byte = self.start_address + 16 * unit + within
        return swizzle_address(byte, self.layout_type)


def _offset_fn(layout: Any) -> tuple[Any, int, int]:
    if not hasattr(layout, "shape") or not callable(layout):
        raise LayoutError(f"make_gmma_desc needs a Layout or ComposedLayout, got {describe(layout)}")
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
    try:
        width = as_int(bits, "bits")  # numpy integers too
    except LayoutError:
        width = 0
    if width not in (8, 16, 32):
        raise LayoutError(f"bits must be 8, 16 or 32 for a wgmma operand, got {describe(bits)}")
    bits = width
    if not (isinstance(major, str) and major in ("K", "MN")):
        raise LayoutError(f"major must be 'K' or 'MN', got {describe(major)}")
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


__all__ = ["GmmaDescriptor", "make_gmma_desc", "LAYOUT_TYPES", "swizzle_address"]

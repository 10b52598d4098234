"""Shared-memory layout atoms (sm80 swizzled and Hopper GMMA canonical) and ``tile_to_shape``.

**sm80-style atoms** (CUTLASS's sm80 GEMM configurations): ``composition(Swizzle<B,3,3>,
Layout<(8,64):(64,1)>)`` for ``B = 0..3``, in 16-bit elements: eight 128-byte
rows, the ``B`` row bits XORed into the 16-byte chunk index.  For another
element width the atom is recast from 16-bit (so 32-bit gives
``Sw<B,2,3> o _0 o (8,32):(32,1)``, CUTLASS's tf32 atom).

**GMMA atoms** (cute/atom/mma_traits_sm90_gmma.hpp, namespace ``GMMA``): CUTLASS
defines them in units of bits, with the swizzle attached to the shared-memory
*pointer* (``smem_ptr_flag``), i.e. acting on byte addresses::

    Layout_MN_INTER_Atom_Bits = Swizzle<0,4,3> o smem_ptr o (128,8):(1,128)
    Layout_MN_SW32_Atom_Bits  = Swizzle<1,4,3> o smem_ptr o (256,8):(1,256)
    Layout_MN_SW64_Atom_Bits  = Swizzle<2,4,3> o smem_ptr o (512,8):(1,512)
    Layout_MN_SW128_Atom_Bits = Swizzle<3,4,3> o smem_ptr o (1024,8):(1,1024)
    Layout_K_INTER_Atom_Bits  = Swizzle<0,4,3> o smem_ptr o (8,128):(128,1)
    Layout_K_SW32_Atom_Bits   = Swizzle<1,4,3> o smem_ptr o (8,256):(256,1)
    Layout_K_SW64_Atom_Bits   = Swizzle<2,4,3> o smem_ptr o (8,512):(512,1)
    Layout_K_SW128_Atom_Bits  = Swizzle<3,4,3> o smem_ptr o (8,1024):(1024,1)

and ``Layout_X_Atom<T> = upcast<sizeof_bits<T>>(Layout_X_Atom_Bits)``, which
upcasts the layout and keeps the byte-address swizzle.  This module returns the
same address function in element offsets (what a kernel indexes with): the
byte swizzle ``Sw<B,4,3>`` on a ``bits``-wide element is
``Sw<B, 7 - log2(bits), 3>`` on element offsets (the swizzle never touches the
low 4 byte-address bits, so it commutes with the scaling); for 16-bit
``Layout_K_SW128_Atom`` is ``Sw<3,3,3> o _0 o (8,64):(64,1)``.
"""

from __future__ import annotations

from typing import Any, Union

from layoutalg.core.layout import Layout
from layoutalg.core.make_layouts import make_ordered_layout  # noqa: F401  (re-exported: it lived here)
from layoutalg.core.make_layouts import tile_to_shape as core_tile_to_shape
from layoutalg.core.recast import upcast as core_upcast
from layoutalg.core.validate import describe, plain_int
from layoutalg.errors import LayoutError
from layoutalg.swizzle.composed import AnyLayout, ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

#: GMMA swizzle kind -> (B of Swizzle<B,4,3>, contiguous bits per row: 128 * 2**B).
GMMA_KINDS = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}

GMMA_ATOM_NAMES = tuple(f"Layout_{major}_{kind}_Atom" for major in ("K", "MN") for kind in GMMA_KINDS)
SM80_ATOM_NAMES = tuple(f"Sm80_SW{b}_Atom" for b in range(4))


def _check_bits(bits: Any) -> int:
    bits = plain_int(bits, "bits")
    if isinstance(bits, bool) or not isinstance(bits, int) or bits <= 0 or bits & (bits - 1) or bits > 128:
        raise LayoutError(f"element width bits must be a power of two in [1, 128], got {describe(bits)}")
    return bits


def _parse_gmma_name(name: str) -> tuple[str, str]:
    parts = name.split("_")
    if len(parts) != 4 or parts[0] != "Layout" or parts[3] != "Atom" or parts[1] not in ("K", "MN"):
        raise LayoutError(f"unknown GMMA smem atom {describe(name)}; expected one of {', '.join(GMMA_ATOM_NAMES)}")
    if parts[2] not in GMMA_KINDS:
        raise LayoutError(f"unknown GMMA swizzle kind {describe(parts[2])} in {describe(name)}; expected INTER, SW32, SW64 or SW128")
    return parts[1], parts[2]


def gmma_atom_bits(name: str) -> tuple[Swizzle, Layout]:
    """CUTLASS's ``<name>_Bits`` definition: (swizzle on byte addresses, layout in bits)."""
    major, kind = _parse_gmma_name(name)
    b = GMMA_KINDS[kind]
    width = 128 << b
    layout = Layout((8, width), (width, 1)) if major == "K" else Layout((width, 8), (1, width))
    return Swizzle(b, 4, 3), layout


def gmma_atom(name: str, bits: int) -> ComposedLayout:
    """The GMMA canonical smem atom ``name`` for ``bits``-wide elements, as an element-offset function."""
    bits = _check_bits(bits)
    byte_swizzle, bit_layout = gmma_atom_bits(name)
    element_layout = core_upcast(bit_layout, bits)
    base = byte_swizzle.base + 3 - (bits.bit_length() - 1)  # >= 0: bits <= 128 = the 16-byte swizzle unit
    return ComposedLayout(Swizzle(byte_swizzle.bits, base, byte_swizzle.shift), 0, element_layout)


def sm80_atom(b: int, bits: int = 16) -> AnyLayout:
    """``composition(Swizzle<b,3,3>, (8,64):(64,1))`` in 16-bit elements, recast to ``bits``-wide elements."""
    b = plain_int(b, "swizzle bits")
    if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= 3:
        raise LayoutError(f"sm80 atom swizzle bits must be 0..3, got {describe(b)}")
    bits = _check_bits(bits)
    atom = ComposedLayout(Swizzle(b, 3, 3), 0, Layout((8, 64), (64, 1)))
    if bits == 16:
        return atom
    from layoutalg.swizzle.generic import recast

    return recast(atom, 16, bits)


def get_smem_atom(name: str, bits: int) -> AnyLayout:
    """A smem layout atom by name: ``Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom`` or ``Sm80_SW{0..3}_Atom``.

    The C++ namespace prefixes ``cute::``, ``SM90::`` and ``GMMA::`` are accepted.
    """
    if not isinstance(name, str):
        raise LayoutError(f"smem atom name must be a str, got {describe(name)}")
    for prefix in ("cute::", "SM90::", "GMMA::"):  # C++ spellings: cute::SM90::GMMA::Layout_K_SW128_Atom
        if name.startswith(prefix):
            name = name[len(prefix) :]
    if name in SM80_ATOM_NAMES:
        return sm80_atom(int(name[len("Sm80_SW")]), bits)
    return gmma_atom(name, bits)


# ---------------------------------------------------------------------------
# tile_to_shape


def tile_to_shape(atom: Union[Layout, ComposedLayout], shape: Any, order: Any = None) -> AnyLayout:
    """CuTe ``tile_to_shape``: repeat ``atom`` to cover ``shape``, the repeats ordered by ``order``.

    ``coalesce(blocked_product(atom padded to rank(shape), make_ordered_layout(shape / atom, order)),
    shape / atom)``; each mode of the atom must divide the target mode.  A
    composed atom keeps its swizzle and offset.
    """
    if isinstance(atom, ComposedLayout):
        return ComposedLayout(atom.outer, atom.offset, core_tile_to_shape(atom.inner, shape, order))
    if not isinstance(atom, Layout):
        raise LayoutError(f"tile_to_shape takes a Layout or ComposedLayout atom, got {describe(atom)}")
    return core_tile_to_shape(atom, shape, order)


__all__ = [
    "GMMA_ATOM_NAMES",
    "SM80_ATOM_NAMES",
    "gmma_atom_bits",
    "gmma_atom",
    "sm80_atom",
    "get_smem_atom",
    "make_ordered_layout",
    "tile_to_shape",
]

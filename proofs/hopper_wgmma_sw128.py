"""Hopper: CuTe's ``Layout_K_SW128_Atom<bf16>`` is the address function of the wgmma descriptor in 128B mode.

Kernel pattern (every CUTLASS sm90 K-major bf16 GEMM): the smem tile is
``tile_to_shape(GMMA::Layout_K_SW128_Atom<bf16>{}, Shape<_64,_64>{})`` and the
warpgroup reads it through a shared-memory matrix descriptor with
``layout_type = SWIZZLE_128B``, leading byte offset unused (one 128-byte swizzle
row spans the whole K extent of 64 bf16), stride byte offset ``SBO = 1024`` (the
next group of 8 rows).

* CuTe: ``Layout_K_SW128_Atom<bf16> = Sw<3,4,3> o smem_ptr[16b] o (8,64):(64,1)``; a
  swizzle composed through ``smem_ptr_flag_bits<16>`` acts on the *byte* address
  (CuTe's ``swizzle_ptr``), so the element ``(mn, k)`` lives at byte
  ``Sw<3,4,3>(base + 2 * L(mn, k))``, which for a 1024-byte aligned base is
  ``base + 2 * Sw<3,3,3>(L(mn, k))``.
* PTX ISA ("Matrix Descriptor Format", "Shared Memory Matrix Layout", 128-Byte
  swizzling, K-major): the matrix is a grid of 8-row x 128-byte core groups; row
  ``r = mn % 8`` of group ``g = mn / 8`` starts at ``start + g*SBO + 128*r``, and the
  16-byte unit ``u`` of that row is stored at unit ``u XOR r`` -- i.e. the hardware
  applies ``Sw<3,4,3>`` (byte bits [7,10) into [4,7)) to the *absolute* address.

The two agree for every element and every 1024-byte aligned tile base
(a symbolic address); with a base that is only 16-byte aligned they disagree.
"""

from __future__ import annotations

from layoutalg.atoms.smem import get_smem_atom, tile_to_shape
from layoutalg.core.layout import Layout
from layoutalg.prove import equivalent, param, sym, theorem
from layoutalg.swizzle.swizzle import Swizzle

ATOM = get_smem_atom("Layout_K_SW128_Atom", 16)  # layoutalg's reading in bf16 element offsets
TILE = tile_to_shape(ATOM, (64, 64))
ATOM_BITS_ROWS = Layout((8, 64), (64, 1))  # (8,1024):(1024,1) bits upcast to 16-bit elements
SW_BYTES = Swizzle(3, 4, 3)  # the 128B swizzle on byte addresses (CuTe's Layout_K_SW128_Atom_Bits)
SBO = 1024


def descriptor_address(start: object, mn: object, k: object) -> object:
    """Byte address of bf16 element (mn, k) through a K-major SWIZZLE_128B wgmma descriptor."""
    r, g = mn % 8, mn // 8
    kbytes = 2 * k
    linear = start + g * SBO + 128 * r + kbytes  # row r of group g, byte kbytes of that 128-byte row
    return sym(SW_BYTES)(linear)


def cute_address(base: object, mn: object, k: object) -> object:
    """CuTe: the tile at ``base`` holds element ``(mn, k)`` at byte ``base + 2 * tile(mn, k)``."""
    return base + 2 * sym(TILE)(mn, k)


@theorem
def k_sw128_atom_bytes_equal_element_swizzle():
    """CuTe's Layout_K_SW128_Atom_Bits (Sw<3,4,3> on the byte address of (8,1024):(1024,1) bits) read
    as bf16 elements is layoutalg's element-offset atom (Sw<3,3,3> o (8,64):(64,1)), on all 8 x 64 elements."""
    rows = sym(ATOM_BITS_ROWS)
    return equivalent(
        lambda mn, k: sym(SW_BYTES)(2 * rows(mn, k)),
        lambda mn, k: 2 * sym(ATOM)(mn, k),
        {"mn": 8, "k": 64},
        names=("cute_bits_atom_byte", "element_atom_byte"),
    )


@theorem
def k_sw128_bf16_tile_equals_wgmma_descriptor_addresses():
    """tile_to_shape(Layout_K_SW128_Atom<bf16>, 64x64) at every 1024-byte aligned base gives exactly the
    byte addresses the wgmma SWIZZLE_128B descriptor (SBO = 1024) reads, for all 64 x 64 elements."""
    base = 1024 * param("base_kb", 1 << 8)  # any 1024-byte aligned tile in the 256 KiB address space
    return equivalent(
        lambda mn, k: cute_address(base, mn, k),
        lambda mn, k: descriptor_address(base, mn, k),
        {"mn": 64, "k": 64},
        names=("cute_layout_byte", "wgmma_descriptor_byte"),
    )


@theorem(expect="refuted")
def k_sw128_tile_misreads_when_base_is_only_16_byte_aligned():
    """A tile placed at a 16-byte (not 1024-byte) aligned base: CuTe's layout (swizzling the offset
    within the tile) and the descriptor (swizzling the absolute address) disagree -- refuted."""
    base = 16 * param("base_16b", 1 << 12)
    return equivalent(
        lambda mn, k: cute_address(base, mn, k),
        lambda mn, k: descriptor_address(base, mn, k),
        {"mn": 64, "k": 64},
        names=("cute_layout_byte", "wgmma_descriptor_byte"),
    )

"""Shared-memory layout atoms (layoutalg.atoms.smem) against CUTLASS's definitions.

GMMA (cute/atom/mma_traits_sm90_gmma.hpp): Layout_K_{kind}_Atom_Bits = Swizzle<B,4,3> o (8, W):(W, 1) and
Layout_MN_{kind}_Atom_Bits = Swizzle<B,4,3> o (W, 8):(1, W), W = 128 << B bits (INTER, SW32, SW64, SW128 = B 0..3),
the swizzle on byte addresses; Layout_X_Atom<T> upcasts to T-wide elements.  sm80: Swizzle<B,3,3> o (8,64):(64,1)
in 16-bit elements (and Swizzle<B,2,3> o (8,32):(32,1) for 32-bit, CUTLASS's tf32 atom).
"""

from __future__ import annotations

import pytest

from layoutalg.atoms.smem import GMMA_ATOM_NAMES, SM80_ATOM_NAMES, get_smem_atom, sm80_atom, tile_to_shape
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError

KINDS = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}


def byte_swizzle(byte: int, b: int) -> int:
    return byte ^ (((byte >> 7) & ((1 << b) - 1)) << 4)


@pytest.mark.parametrize("bits", [8, 16, 32, 64, 128])
@pytest.mark.parametrize("name", GMMA_ATOM_NAMES)
def test_a_gmma_atom_is_cutlass_bit_layout_with_the_byte_swizzle_in_elements(name: str, bits: int) -> None:
    _, major, kind, _ = name.split("_")
    b = KINDS[kind]
    width = 128 << b
    per_row = width // bits
    atom = get_smem_atom(name, bits)
    assert atom.shape == ((8, per_row) if major == "K" else (per_row, 8))
    for r in range(8):
        for e in range(per_row):
            bit = r * width + e * bits
            want = byte_swizzle(bit // 8, b) * 8 // bits
            assert (atom((r, e)) if major == "K" else atom((e, r))) == want, (r, e)


@pytest.mark.parametrize("prefix", ["", "cute::", "SM90::", "GMMA::", "cute::SM90::GMMA::"])
def test_cpp_namespace_prefixes_are_accepted(prefix: str) -> None:
    assert get_smem_atom(prefix + "Layout_K_SW128_Atom", 16) == get_smem_atom("Layout_K_SW128_Atom", 16)


@pytest.mark.parametrize("b", range(4))
def test_sm80_atoms_are_the_16_bit_swizzle_and_its_32_bit_recast(b: int) -> None:
    mask = (1 << b) - 1
    atom16 = get_smem_atom(SM80_ATOM_NAMES[b], 16)
    assert SM80_ATOM_NAMES[b] == f"Sm80_SW{b}_Atom" and atom16 == sm80_atom(b)
    for r in range(8):
        for c in range(64):
            e = 64 * r + c
            assert atom16((r, c)) == e ^ (((e >> 6) & mask) << 3)
    atom32 = sm80_atom(b, 32)
    for r in range(8):
        for c in range(32):
            e = 32 * r + c
            assert atom32((r, c)) == e ^ (((e >> 5) & mask) << 2)


@pytest.mark.parametrize("bits", [0, 3, 256, -16, True, 2.0])
def test_an_element_width_that_is_no_power_of_two_up_to_128_is_refused(bits: object) -> None:
    with pytest.raises(LayoutError, match=r"element width bits must be a power of two in \[1, 128\]"):
        get_smem_atom("Layout_MN_SW64_Atom", bits)  # type: ignore[arg-type]


@pytest.mark.parametrize("b", [4, -1, True, "1"])
def test_an_sm80_swizzle_outside_0_to_3_is_refused(b: object) -> None:
    with pytest.raises(LayoutError, match="sm80 atom swizzle bits must be 0..3"):
        sm80_atom(b)  # type: ignore[arg-type]


@pytest.mark.parametrize("name, match", [
    (5, "smem atom name must be a str, got 5"),
    ("Layout_K_SW16_Atom", "unknown GMMA swizzle kind 'SW16'"),
    ("Layout_N_SW32_Atom", "unknown GMMA smem atom 'Layout_N_SW32_Atom'"),
    ("Sm80_SW4_Atom", "unknown GMMA smem atom"),
])
def test_an_unknown_atom_name_is_refused(name: object, match: str) -> None:
    with pytest.raises(LayoutError, match=match):
        get_smem_atom(name, 16)  # type: ignore[arg-type]


def test_tile_to_shape_repeats_a_swizzled_atom_and_refuses_a_non_layout() -> None:
    atom = get_smem_atom("Layout_K_SW128_Atom", 16)
    tile = tile_to_shape(atom, (16, 128))
    for r in range(16):
        for c in range(128):  # atoms column-major: 2 down M (512 apart), then 2 along K (1024 apart)
            assert tile((r, c)) == atom((r % 8, c % 64)) + 512 * (r // 8) + 1024 * (c // 64)
    plain = tile_to_shape(Layout((2, 2), (1, 2)), (4, 4))
    assert all(plain((r, c)) == r % 2 + 2 * (c % 2) + 4 * (r // 2) + 8 * (c // 2) for r in range(4) for c in range(4))
    with pytest.raises(LayoutError, match="tile_to_shape takes a Layout or ComposedLayout atom, got 'x'"):
        tile_to_shape("x", (8, 8))  # type: ignore[arg-type]


def test_one_bit_elements_give_cutlass_bits_atom() -> None:
    """Width 1 is a power of two in [1, 128]: CUTLASS's Layout_K_SW128_Atom_Bits is
    ComposedLayout<Swizzle<3,7,3>, smem_ptr_flag, Layout<Shape<_8,_1024>, Stride<_1024,_1>>> (cute/atom/mma_traits_sm90_gmma.hpp)."""
    assert str(get_smem_atom("Layout_K_SW128_Atom", 1)) == "Sw<3,7,3> o _0 o (8,1024):(1024,1)"


@pytest.mark.parametrize("name", ["Layout_X_SW128_Atom", "Layout_K_SW128_Atoms", "Layouts_K_SW128_Atom"])
def test_a_gmma_atom_name_with_an_unknown_major_or_frame_is_refused_listing_the_names(name: str) -> None:
    with pytest.raises(LayoutError, match=f"^unknown GMMA smem atom '{name}'; expected one of Layout_K_INTER_Atom"):
        get_smem_atom(name, 16)

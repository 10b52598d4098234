"""Smem layout atoms checked element by element against CUTLASS's byte-level definitions and CuTe DSL."""

from __future__ import annotations

import re
from typing import Any

import pytest

from layoutalg.atoms.smem import (
    GMMA_ATOM_NAMES,
    SM80_ATOM_NAMES,
    get_smem_atom,
    gmma_atom_bits,
    make_ordered_layout,
    tile_to_shape,
)
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, ShapeError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

KINDS = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}


def byte_swizzle(addr: int, b: int) -> int:
    """CUTLASS's Swizzle<B,4,3> on a byte address, written bit by bit: bit 4+j ^= bit 7+j for j < B."""
    for j in range(b):
        if (addr >> (7 + j)) & 1:
            addr ^= 1 << (4 + j)
    return addr


def gmma_byte_address(major: str, b: int, bits: int, row: int, col: int) -> int:
    """Byte address of element (row, col) of CUTLASS's GMMA atom, from the _Bits definition.

    K-major:  (8, W):(W, 1) bits, W = 128 * 2**B: row r at r*W/8 bytes, element k at k*bits/8 bytes.
    MN-major: (W, 8):(1, W) bits: element m at m*bits/8 bytes, column k at k*W/8 bytes.
    """
    row_bytes = (128 << b) // 8
    elem_bytes = bits // 8
    if major == "K":
        linear = row * row_bytes + col * elem_bytes
    else:
        linear = row * elem_bytes + col * row_bytes
    return byte_swizzle(linear, b)


@pytest.mark.parametrize("name", GMMA_ATOM_NAMES)
@pytest.mark.parametrize("bits", [8, 16, 32])
def test_gmma_atoms_match_cutlass_byte_addresses(name: str, bits: int) -> None:
    major, kind = name.split("_")[1], name.split("_")[2]
    b = KINDS[kind]
    atom = get_smem_atom(name, bits)
    elems_per_row = (128 << b) // bits
    expected_shape = (8, elems_per_row) if major == "K" else (elems_per_row, 8)
    assert atom.shape == expected_shape
    rows, cols = expected_shape
    seen = set()
    for col in range(cols):
        for row in range(rows):
            offset = atom(row, col)
            assert offset * (bits // 8) == gmma_byte_address(major, b, bits, row, col), (row, col)
            seen.add(offset)
    assert seen == set(range(rows * cols))  # a bijection onto the atom's elements


def test_gmma_bits_definitions() -> None:
    sw, layout = gmma_atom_bits("Layout_K_SW128_Atom")
    assert (sw.bits, sw.base, sw.shift) == (3, 4, 3)
    assert layout == Layout((8, 1024), (1024, 1))
    sw, layout = gmma_atom_bits("Layout_MN_INTER_Atom")
    assert (sw.bits, sw.base, sw.shift) == (0, 4, 3)
    assert layout == Layout((128, 8), (1, 128))


def test_k_sw128_fp16_is_the_familiar_atom() -> None:
    assert str(get_smem_atom("Layout_K_SW128_Atom", 16)) == "Sw<3,3,3> o _0 o (8,64):(64,1)"
    assert get_smem_atom("cute::SM90::GMMA::Layout_K_SW128_Atom", 16) == get_smem_atom("Layout_K_SW128_Atom", 16)


@pytest.mark.parametrize("b", range(4))
def test_sm80_atoms(b: int) -> None:
    atom = get_smem_atom(SM80_ATOM_NAMES[b], 16)
    for r in range(8):
        for c in range(64):
            chunk, within = c // 8, c % 8
            assert atom(r, c) == 64 * r + 8 * (chunk ^ (r & ((1 << b) - 1))) + within


def test_sm80_tf32_atom_is_the_same_bytes() -> None:
    # 32-bit elements: the same 128-byte rows and 16-byte chunks as the 16-bit atom.
    atom16 = get_smem_atom("Sm80_SW3_Atom", 16)
    atom32 = get_smem_atom("Sm80_SW3_Atom", 32)
    assert atom32.shape == (8, 32)
    for r in range(8):
        for c in range(32):
            assert 4 * atom32(r, c) == 2 * atom16(r, 2 * c)


def test_errors() -> None:
    with pytest.raises(LayoutError):
        get_smem_atom("Layout_K_SW256_Atom", 16)
    with pytest.raises(LayoutError):
        get_smem_atom("Layout_Q_SW32_Atom", 16)
    with pytest.raises(LayoutError):
        get_smem_atom("Layout_K_SW32_Atom", 12)
    with pytest.raises(LayoutError):
        get_smem_atom("Layout_K_SW32_Atom", 256)
    with pytest.raises(ShapeError):
        tile_to_shape(get_smem_atom("Layout_K_SW128_Atom", 16), (12, 64))
    with pytest.raises(ShapeError):  # ties are allowed (broken left to right, as in CuTe); a rank mismatch is not
        make_ordered_layout((4, 8), (0, 1, 2))
    assert make_ordered_layout((4, 8), (0, 0)) == make_ordered_layout((4, 8), (0, 1))


@pytest.mark.parametrize("name", ["Layout_K_SW128_Atom", "Layout_MN_SW64_Atom", "Sm80_SW2_Atom"])
@pytest.mark.parametrize("order", ["left", "right"])
def test_tile_to_shape_brute_force(name: str, order: str) -> None:
    atom = get_smem_atom(name, 16)
    atom_shape: Any = atom.shape
    am, an = atom_shape
    target = (4 * am, 2 * an) if am < 64 else (2 * am, 4 * an)
    tile = tile_to_shape(atom, target, order)
    assert isinstance(tile, ComposedLayout)
    reps_m, reps_n = target[0] // am, target[1] // an
    size = am * an
    for n in range(target[1]):
        for m in range(target[0]):
            bm, bn = m // am, n // an
            block = bm + reps_m * bn if order == "left" else bn + reps_n * bm
            assert tile(m, n) == atom(m % am, n % an) + size * block


@pytest.mark.oracle
def test_cute_dsl_gmma_atoms_and_tile_to_shape() -> None:
    """CuTe DSL's warpgroup.make_smem_layout_atom (byte-address swizzle) and tile_to_shape, element by element."""
    pytest.importorskip("cutlass.cute")
    from oracles.cute_dsl import cute_module

    cute = cute_module()
    import cutlass
    from cutlass.cute.nvgpu import warpgroup

    dtypes = {8: cutlass.Int8, 16: cutlass.Float16, 32: cutlass.Float32}
    out: dict[tuple[str, int], tuple[str, list[int]]] = {}
    tiles: dict[tuple[str, int], list[int]] = {}

    @cute.jit
    def trace() -> None:
        for name in GMMA_ATOM_NAMES:
            kind = getattr(warpgroup.SmemLayoutAtomKind, name[len("Layout_") : -len("_Atom")])
            for bits, dtype in dtypes.items():
                atom = warpgroup.make_smem_layout_atom(kind, dtype)
                n = cute.size(atom)
                out[(name, bits)] = (str(atom), [int(atom.outer(i)) for i in range(n)])

    @cute.jit
    def trace_tiles() -> None:
        for name in ("Layout_K_SW128_Atom", "Layout_MN_SW128_Atom"):
            kind = getattr(warpgroup.SmemLayoutAtomKind, name[len("Layout_") : -len("_Atom")])
            atom = warpgroup.make_smem_layout_atom(kind, cutlass.Float16)
            tile = cute.tile_to_shape(atom, (128, 128), (0, 1))
            tiles[(name, 16)] = [int(tile.outer(i)) for i in range(128 * 128)]

    trace()
    trace_tiles()
    assert len(out) == 24 and len(tiles) == 2
    for (name, bits), (text, inner_values) in out.items():
        m = re.match(r"S<(\d+),(\d+),(-?\d+)>", text)
        assert m, text
        b, base, shift = (int(g) for g in m.groups())
        assert (base, shift) == (4, 3)
        ours = get_smem_atom(name, bits)
        assert isinstance(ours, ComposedLayout) and isinstance(ours.outer, Swizzle)
        assert ours.outer.bits == b
        # DSL's layout in elements, swizzle on byte addresses: ours * bytes == Sw_bytes(bytes * layout)
        nbytes = bits // 8
        assert [ours(i) * nbytes for i in range(ours.size())] == [byte_swizzle(v * nbytes, b) for v in inner_values]
    for (name, bits), inner_values in tiles.items():
        tile = tile_to_shape(get_smem_atom(name, bits), (128, 128), "left")
        b = KINDS[name.split("_")[2]]
        assert [tile(i) * 2 for i in range(tile.size())] == [byte_swizzle(v * 2, b) for v in inner_values]

"""``access_from_tiled_copy``: the instruction and lane coordinates of every warp-wide call a CuTe TiledCopy makes
over a shared-memory tile, and the tiled copies it refuses.

Expected coordinates are written out from CuTe's ``make_tiled_copy(atom, thr_layout, val_layout)`` definition:
with ``thr_layout = Layout.right((R, C))`` and ``val_layout = (1, v)``, thread ``t`` owns row ``t // C``, columns
``(t % C) * v ..``; thread ``t`` is lane ``t % 32`` of warp ``t // 32``.
"""

from __future__ import annotations

import pytest

from layoutalg.atoms import catalog as atoms
from layoutalg.atoms.tiled import make_tiled_copy
from layoutalg.banks.instruction import parse_instruction
from layoutalg.banks.tiled import access_from_tiled_copy
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError


def _row_major_owners(threads: int, cols_of_threads: int, v: int) -> list[list[tuple[int, int]]]:
    """Per warp, each lane's (row, col): thread t -> (t // C, (t % C) * v)."""
    return [[((32 * w + lane) // cols_of_threads, ((32 * w + lane) % cols_of_threads) * v) for lane in range(32)]
            for w in range(threads // 32)]


@pytest.mark.parametrize("kind, vector_bits, bits, canonical", [
    ("ld.shared", 8, 8, "ld.shared.u8"),
    ("st.shared", 16, 16, "st.shared.u16"),
    ("ld.shared", 32, 16, "ld.shared.b32"),
    ("st.shared", 64, 16, "st.shared.b64"),
    ("ld.shared", 64, 32, "ld.shared.b64"),
    ("ld.shared", 128, 16, "ld.shared.v4.b32"),
    ("st.shared", 128, 8, "st.shared.v4.b32"),
])
def test_a_per_thread_ld_st_copy_is_one_vector_per_lane_of_the_atoms_width(
        kind: str, vector_bits: int, bits: int, canonical: str) -> None:
    atom = atoms.ld_shared(vector_bits) if kind == "ld.shared" else atoms.st_shared(vector_bits)
    v = vector_bits // bits
    tc = make_tiled_copy(atom, Layout.right((32, 4)), Layout((1, v)), bits=bits)
    acc = access_from_tiled_copy(tc, Layout((32, 4 * v), (4 * v, 1)))
    ins = parse_instruction(acc.instruction)
    assert ins.canonical == canonical and ins.access_bytes == vector_bits // 8
    assert acc.axes == ("warp", "call") and acc.coords.shape == (4, 1, 32, 2)
    assert [[tuple(c) for c in warp[0].tolist()] for warp in acc.coords] == _row_major_owners(128, 4, v)


def test_a_thread_making_several_calls_takes_the_coordinate_of_each_calls_first_value() -> None:
    # 32 threads, 4 b32 values each along the row, with 32-bit loads: 4 calls per thread, one element each
    tc = make_tiled_copy(atoms.ld_shared(32), Layout.right((32, 1)), Layout((1, 4)), bits=32)
    acc = access_from_tiled_copy(tc, Layout((32, 4), (4, 1)))
    assert acc.coords.shape == (1, 4, 32, 2)
    for call in range(4):
        assert [tuple(c) for c in acc.coords[0, call].tolist()] == [(lane, call) for lane in range(32)]


def test_a_block_of_1024_threads_is_32_warps() -> None:
    tc = make_tiled_copy(atoms.ld_shared(32), Layout.right((256, 4)), Layout((1, 1)), bits=32)
    acc = access_from_tiled_copy(tc, Layout((256, 4), (4, 1)))
    assert acc.coords.shape == (32, 1, 32, 2)
    assert [tuple(c) for c in acc.coords[31, 0].tolist()] == _row_major_owners(1024, 4, 1)[31]


def test_an_ldmatrix_x1_copy_calls_once_per_row_address_not_per_register() -> None:
    # ldmatrix .x1 over an 8x8 f16 tile: lanes 0-7 each give one 16-byte row (8 values on the shared side);
    # each thread receives 2 values (one 32-bit register), so counting the register side would make 4 calls
    tc = make_tiled_copy(atoms.ldmatrix(1), Layout.right((8, 4)), Layout((1, 2)), bits=16)
    acc = access_from_tiled_copy(tc, Layout((8, 8), (8, 1)))
    assert parse_instruction(acc.instruction).matrices == 1
    assert acc.coords.shape == (1, 1, 32, 2)
    assert [tuple(c) for c in acc.coords[0, 0].tolist()][:8] == [(row, 0) for row in range(8)]
    # the register side, asked for explicitly: one call of 2 values per thread, row t // 4, column 2 * (t % 4)
    regs = access_from_tiled_copy(tc, Layout((8, 8), (8, 1)), side="D")
    assert [tuple(c) for c in regs.coords[0, 0].tolist()] == [(t // 4, 2 * (t % 4)) for t in range(32)]


def test_a_cp_async_copy_keeps_its_cache_operator_and_size() -> None:
    for nbytes, cache in ((4, "ca"), (8, "ca"), (16, "ca"), (16, "cg")):
        v = nbytes // 2
        tc = make_tiled_copy(atoms.cp_async(nbytes, cache), Layout.right((32, 4)), Layout((1, v)), bits=16)
        ins = parse_instruction(access_from_tiled_copy(tc, Layout((32, 4 * v), (4 * v, 1))).instruction)
        assert (ins.kind, ins.cache, ins.access_bytes) == ("cp.async", cache, nbytes)


def test_tiled_copies_without_a_shared_memory_sweep_model_are_refused() -> None:
    tile = Layout((32, 8), (8, 1))
    with pytest.raises(LayoutError, match="tiled copy of kind None: only ldmatrix, stmatrix"):
        access_from_tiled_copy(object(), tile)
    movm = make_tiled_copy(atoms.movmatrix(), Layout.right((32, 1)), Layout((1, 2)), bits=16)
    with pytest.raises(LayoutError, match="tiled copy of kind 'movmatrix'"):
        access_from_tiled_copy(movm, tile)
    ldsm = make_tiled_copy(atoms.ldmatrix(1), Layout.right((8, 4)), Layout((1, 2)), bits=16)
    with pytest.raises(LayoutError, match="side must be 'S' or 'D', got 'X'"):
        access_from_tiled_copy(ldsm, tile, side="X")
    half_warp = make_tiled_copy(atoms.ld_shared(32), Layout.right((16, 1)), Layout((1, 1)), bits=32)
    with pytest.raises(LayoutError, match="a tiled copy of 16 threads is not a whole number of warps"):
        access_from_tiled_copy(half_warp, Layout((16, 1), (1, 1)))
    # a byte copy cannot carry 24-bit values (CuTe: the op's bits must be a whole number of values)
    with pytest.raises(LayoutError, match="does not split into 24-bit values per thread; use values of at most 8"):
        make_tiled_copy(atoms.ld_shared(8), Layout.right((32, 1)), Layout((1, 1)), bits=24)

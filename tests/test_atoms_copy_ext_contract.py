"""CuTe's SM50 2x2-transpose shuffles (layoutalg.atoms.copy_ext.shuffle_result) against a direct model: lanes
l and l ^ m (m = 1 or 4) each hold two 32-bit registers; together the four values form a 2x2 matrix (row = the
lane with the mask bit clear / set, column = register) that the atom transposes."""

from __future__ import annotations

import pytest

from layoutalg.atoms.copy_ext import COPY_EXT_ATOMS, shuffle_result
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError

SHUFFLES = {"SM50_Shuffle_U32_2x2Trans_XOR1": 1, "SM50_Shuffle_U32_2x2Trans_XOR4": 4}


@pytest.mark.parametrize("name", sorted(SHUFFLES))
def test_a_shuffle_transposes_each_lane_pairs_two_by_two_register_matrix(name: str) -> None:
    mask = SHUFFLES[name]
    for lane in range(32):
        row = 1 if lane & mask else 0
        for reg in range(2):
            # after the transpose, (row, reg) holds what (reg, row) held before: lane of row `reg`, register `row`
            src_lane = lane if reg == row else lane ^ mask
            assert shuffle_result(name, lane, reg) == (src_lane, row), (lane, reg)


@pytest.mark.parametrize("lane, reg", [(32, 0), (-1, 0), (0, 2), (0, -1), (40, 1)])
def test_a_lane_or_register_outside_the_warp_is_refused(lane: int, reg: int) -> None:
    with pytest.raises(InstructionError, match=rf"lane in \[0, 32\) and reg in \{{0, 1\}}, got \({lane}, {reg}\)"):
        shuffle_result("SM50_Shuffle_U32_2x2Trans_XOR1", lane, reg)


def test_an_atom_that_is_no_sm50_shuffle_is_refused_by_name() -> None:
    with pytest.raises(InstructionError, match="SM75_U32x1_LDSM_N is not an SM50 shuffle atom"):
        shuffle_result("SM75_U32x1_LDSM_N", 0, 0)


def test_the_extension_table_names_each_atom_once_with_its_arch() -> None:
    names = [a.name for a in COPY_EXT_ATOMS]
    assert len(names) == len(set(names))
    for atom in COPY_EXT_ATOMS:
        assert atom.arch == (100 if atom.name.startswith("SM100") else 80 if atom.name.startswith("SM80") else 50)
        if atom.kind == "cp.async":
            nbytes = atom.vector_bits // 8
            assert atom.ptx.endswith(f", {nbytes}, src_size") and atom.name.endswith(f"_ZFILL<uint{8 * nbytes}_t>")


@pytest.mark.parametrize("name", sorted(SHUFFLES))
def test_a_shuffle_atoms_layouts_move_each_register_where_the_shuffle_sends_it(name: str) -> None:
    atom = next(a for a in COPY_EXT_ATOMS if a.name == name)
    # cute/atom/copy_traits_sm50.hpp: 32 threads; SrcLayout = RefLayout (_32,_64):(_64,_1), two 32-bit registers a lane
    assert atom.thr_id == Layout(32) and atom.src_layout == atom.ref_layout == Layout((32, 64), (64, 1))
    assert atom.kind == "shfl" and atom.ptx == f"shfl.sync.bfly.b32 x2 (2x2 transpose, lane ^ {SHUFFLES[name]})"
    dst = atom.dst_layout
    assert dst[0].size() == 32 and dst[1].size() == 64
    for lane in range(32):
        for reg in range(2):
            src_lane, src_reg = shuffle_result(name, lane, reg)
            for bit in range(32):  # the destination slot names the reference bit its source slot holds
                assert dst(lane, 32 * reg + bit) == atom.src_layout(src_lane, 32 * src_reg + bit), (lane, reg, bit)


def test_the_per_thread_extension_atoms_are_cutes_one_thread_vectors() -> None:
    expected = {  # name -> (ptx, kind, bits moved; 0 for the auto-vectorizing placeholders), CUTLASS 4.2
        **{f"SM80_CP_ASYNC_CACHEALWAYS_ZFILL<uint{b}_t>": (f"cp.async.ca.shared.global [dst], [src], {b // 8}, src_size",
                                                         "cp.async", b) for b in (32, 64, 128)},
        "SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<uint128_t>": ("cp.async.cg.shared.global [dst], [src], 16, src_size", "cp.async", 128),
        **{f"AutoVectorizingCopyWithAssumedAlignment<{b}>": (f"auto-vectorized copy, alignment {b} bits (placeholder)",
                                                             "auto", 0) for b in (8, 16, 32, 64, 128)},
        "SM100_LOAD_256bit_CACHE_NOALLOCATION": ("ld.global.L1::no_allocate.v8.f32", "ld.global", 256),
        "SM100_STORE_256bit_CACHE_NOALLOCATION": ("st.global.L1::no_allocate.v8.f32", "st.global", 256),
    }
    per_thread = {a.name: a for a in COPY_EXT_ATOMS if a.kind != "shfl"}
    assert sorted(per_thread) == sorted(expected)
    for name, (ptx, kind, bits) in expected.items():
        atom = per_thread[name]
        assert (atom.ptx, atom.kind, atom.vector_bits) == (ptx, kind, bits)
        assert atom.thr_id == Layout(1, 0)  # Layout<_1>
        vector = Layout((1, bits), (0, 1)) if bits else Layout((1, 1), (0, 0))  # the placeholders: (_1,_1):(_0,_0)
        assert atom.src_layout == atom.dst_layout == atom.ref_layout == vector

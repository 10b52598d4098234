"""Tiled MMA / tiled copy: TV layouts and partitions vs CuTe DSL, independent formulas, and the static checks."""

from __future__ import annotations

import os
import tempfile

import pytest

from layoutalg import atoms
from layoutalg.atoms.tiled import (
    make_tiled_copy,
    make_tiled_copy_A,
    make_tiled_copy_B,
    make_tiled_copy_C,
    make_tiled_mma,
)
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError

F16_ATOM = "SM80_16x8x16_F32F16F16F32_TN"

RETILE_FRAGMENTS = {  # register fragments as partition_fragment_A/B/C give them for 128x128x32 tiles
    "A_LDSM_N": [(8, 4, 2), (8, 2, 2)],
    "B_LDSM_T": [(4, 8, 2), ((2, 2), 8, 2)],
    "C_STSM_N": [(4, 4, 8)],
    "C_STSM_T": [(4, 4, 8)],
}

MMA_CONFIGS = [  # (atom layout, permutations)
    ((1, 1, 1), (None, None, None)),
    ((2, 2, 1), (None, None, None)),
    ((4, 1, 1), (None, None, None)),
    ((2, 2, 1), (32, 32, 16)),
    ((1, 2, 1), (16, 32, 32)),
]


def _ints(t):
    return tuple(_ints(x) for x in t) if isinstance(t, tuple) else int(t)


def _dsl_values(layout) -> list[int]:
    return Layout(_ints(layout.shape), _ints(layout.stride)).values()


@pytest.fixture(scope="module")
def dsl() -> dict:
    cute = pytest.importorskip("cutlass.cute")
    os.environ.setdefault("CUTE_DSL_CACHE_DIR", tempfile.mkdtemp(prefix="cute_dsl_cache_"))
    import cutlass
    from cutlass.cute.nvgpu import cpasync, warp

    out: dict = {}

    def collect():
        op = warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16))
        for i, (lay, perm) in enumerate(MMA_CONFIGS):
            kwargs = {} if perm[0] is None else {"permutation_mnk": perm}
            mma = cute.make_tiled_mma(op, lay, **kwargs)
            out[("mma", i)] = {k: _dsl_values(getattr(mma, f"tv_layout_{k}_tiled")) for k in "ABC"}
        # warps laid out row-major over (M, N): atom_layout (2,2,1):(2,1,0)
        mma_rm = cute.make_tiled_mma(op, cute.make_layout((2, 2, 1), stride=(2, 1, 0)))
        out["mma_rowmajor"] = {k: _dsl_values(getattr(mma_rm, f"tv_layout_{k}_tiled")) for k in "ABC"}
        ident = cute.make_identity_tensor((64, 32))
        out["mma_rowmajor_C"] = []
        for t in range(128):
            p = mma_rm.get_slice(t).partition_C(ident)
            out["mma_rowmajor_C"].append([tuple(int(c) for c in p[j]) for j in range(cute.size(p))])
        mma = cute.make_tiled_mma(op, (2, 2, 1), permutation_mnk=(32, 32, 16))
        for name, maker, copy_op in (
            ("A_LDSM_N", cute.make_tiled_copy_A, warp.LdMatrix8x8x16bOp(False, 4)),
            ("B_LDSM_T", cute.make_tiled_copy_B, warp.LdMatrix8x8x16bOp(True, 4)),
            ("C_STSM_N", cute.make_tiled_copy_C, warp.StMatrix8x8x16bOp(False, 4)),
            ("C_STSM_T", cute.make_tiled_copy_C, warp.StMatrix8x8x16bOp(True, 2)),
        ):
            tc = maker(cute.make_copy_atom(copy_op, cutlass.Float16), mma)
            out[("tiled_copy", name)] = {"S": _dsl_values(tc.layout_src_tv_tiled), "D": _dsl_values(tc.layout_dst_tv_tiled)}
            for frag in RETILE_FRAGMENTS[name]:
                r = tc.retile(cute.make_rmem_tensor(cute.make_layout(frag), cutlass.Float16)).layout
                out[("retile", name, frag)] = (_dsl_values(r), [cute.size(r, mode=[i]) for i in range(cute.rank(r))])
        # cp.async copies: 32x4 threads (row-major), 1x8 values each (a 32x32 tile); 8x16 column-major, 8x1 values
        cp = cute.make_copy_atom(cpasync.CopyG2SOp(), cutlass.Float16, num_bits_per_copy=128)
        for name, thr, val in (("rowmajor", cute.make_layout((32, 4), stride=(4, 1)), cute.make_layout((1, 8))),
                               ("colmajor", cute.make_layout((8, 16)), cute.make_layout((8, 1)))):
            tc = cute.make_tiled_copy_tv(cp, thr, val)
            ident = cute.make_identity_tensor((64, 64))
            parts = []
            for t in range(128):
                p = tc.get_slice(t).partition_S(ident)
                parts.append([tuple(int(c) for c in p[j]) for j in range(cute.size(p))])
            out[("copy", name)] = parts

    @cute.jit
    def trace():
        collect()

    trace()
    return out


@pytest.mark.oracle
@pytest.mark.parametrize("i", range(len(MMA_CONFIGS)))
def test_tiled_mma_tv_layouts_equal_cute_dsl(dsl, i):
    lay, perm = MMA_CONFIGS[i]
    mma = make_tiled_mma(atoms.get(F16_ATOM), lay, perm)
    assert mma.get_layoutA_TV().values() == dsl[("mma", i)]["A"]
    assert mma.get_layoutB_TV().values() == dsl[("mma", i)]["B"]
    assert mma.get_layoutC_TV().values() == dsl[("mma", i)]["C"]


@pytest.mark.oracle
def test_row_major_warp_layout_equals_cute_dsl(dsl):
    mma = make_tiled_mma(atoms.get(F16_ATOM), Layout((2, 2, 1), (2, 1, 0)))
    for k, tv in (("A", mma.get_layoutA_TV()), ("B", mma.get_layoutB_TV()), ("C", mma.get_layoutC_TV())):
        assert tv.values() == dsl["mma_rowmajor"][k]
    for t in range(128):
        part = mma.get_slice(t).partition_C((64, 32))
        assert [list(c) for c in part.coords] == [list(c) for c in dsl["mma_rowmajor_C"][t]]


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["A_LDSM_N", "B_LDSM_T", "C_STSM_N", "C_STSM_T"])
def test_tiled_copy_src_dst_tv_layouts_equal_cute_dsl(dsl, name):
    mma = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1), (32, 32, 16))
    maker, atom = {"A_LDSM_N": (make_tiled_copy_A, atoms.ldmatrix(4)),
                   "B_LDSM_T": (make_tiled_copy_B, atoms.ldmatrix(4, trans=True)),
                   "C_STSM_N": (make_tiled_copy_C, atoms.stmatrix(4)),
                   "C_STSM_T": (make_tiled_copy_C, atoms.stmatrix(2, trans=True))}[name]
    tc = maker(atom.bind(16), mma)
    assert tc.get_layoutS_TV().values() == dsl[("tiled_copy", name)]["S"]
    assert tc.get_layoutD_TV().values() == dsl[("tiled_copy", name)]["D"]


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["rowmajor", "colmajor"])
def test_make_tiled_copy_partition_equals_cute_dsl(dsl, name):
    thr, val = {"rowmajor": (Layout.right((32, 4)), Layout((1, 8))), "colmajor": (Layout((8, 16)), Layout((8, 1)))}[name]
    tc = make_tiled_copy(atoms.cp_async(16), thr, val, bits=16)
    # a memory layout contiguous along each thread's 8 values (so the 16-byte accesses vectorise)
    gmem = Layout.right((64, 64)) if name == "rowmajor" else Layout((64, 64))
    for t in range(128):
        assert [list(c) for c in tc.get_slice(t).partition_S(gmem).coords] == [list(c) for c in dsl[("copy", name)][t]]


def test_make_tiled_copy_vectorised_rows_independently():
    # thread t = 4*r + c (row-major 32x4 threads) takes row r, columns 8c..8c+7 of each 32x32 tile
    tc = make_tiled_copy(atoms.cp_async(16), Layout.right((32, 4)), Layout((1, 8)), bits=16)
    assert tc.tiler == (32, 32)
    gmem = Layout((64, 64), (64, 1))  # row-major 64x64
    for t in (0, 1, 5, 127):
        part = tc.get_slice(t).partition_D(gmem)
        assert part.shape == (8, 2, 2)
        r, c = t // 4, t % 4
        for rm in range(2):
            for rn in range(2):
                for v in range(8):
                    assert part(v, rm, rn) == 64 * (r + 32 * rm) + 8 * c + v + 32 * rn
        assert part.affine() == (Layout((8, 2, 2), (1, 2048, 32)), 64 * r + 8 * c)


def test_partition_C_is_the_ptx_accumulator_layout():
    mma = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1))
    c = Layout((64, 64), (64, 1))
    for t in (0, 37, 127):
        lane, warp = t % 32, t // 32
        wm, wn = warp % 2, warp // 2
        part = mma.get_slice(t).partition_C(c)
        assert part.shape == (4, 2, 4)
        for v in range(4):
            for fm in range(2):
                for fn in range(4):
                    m = (lane >> 2) + 8 * (v >= 2) + 16 * wm + 32 * fm
                    n = 2 * (lane % 4) + (v & 1) + 8 * wn + 16 * fn
                    assert part.coord(v, fm, fn) == (m, n)
                    assert part(v, fm, fn) == 64 * m + n


def test_extra_modes_are_kept_as_trailing_rest_modes():
    # a 2-stage smem pipeline (M, K, PIPE): CuTe's partition_A gives (MMA, MMA_M, MMA_K, PIPE)
    mma = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1))
    staged = Layout((64, 32, 2), (32, 1, 64 * 32))
    single = Layout((64, 32), (32, 1))
    for t in (0, 99):
        p3 = mma.get_slice(t).partition_A(staged)
        p2 = mma.get_slice(t).partition_A(single)
        assert p3.shape == (*p2.shape, 2)
        n = p2.size()
        assert list(p3.offsets[:n]) == list(p2.offsets)
        assert list(p3.offsets[n:]) == [o + 64 * 32 for o in p2.offsets]
        assert p3.coord(0, 0, 0, 1) == (*p2.coord(0, 0, 0), 1)


def test_too_few_vals_names_the_fix():
    mma = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1))
    with pytest.raises(LayoutError, match="too few vals.*permutations"):
        make_tiled_copy_B(atoms.ldmatrix(4, trans=True), mma)
    # with the N tile doubled by a permutation, the same atom fits (CuTe's sgemm_sm80 setup)
    mma32 = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1), (32, 32, 16))
    assert make_tiled_copy_B(atoms.ldmatrix(4, trans=True), mma32).num_threads == 128


def test_mismatched_element_width_is_explained():
    mma = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1))  # float accumulators, C tile 32x16
    with pytest.raises(LayoutError, match=r"16-bit values.*32-bit"):
        make_tiled_copy_C(atoms.stmatrix(4, bits=16), mma)
    tc = make_tiled_copy_C(atoms.stmatrix(2, bits=16), mma)  # half data stored from converted accumulators
    with pytest.raises(LayoutError, match="built for 16-bit values"):
        tc.get_slice(0).partition_D(Layout((32, 16), (16, 1)), bits=32)
    with pytest.raises(LayoutError, match="in bits; give the element width"):
        make_tiled_copy(atoms.cp_async(16), Layout((32, 4)), Layout((1, 8)))


def test_non_vectorising_memory_layout_is_refused():
    tc = make_tiled_copy(atoms.cp_async(16), Layout.right((32, 4)), Layout((1, 8)), bits=16)
    with pytest.raises(LayoutError, match="doesn't vectorize.*not contiguous"):
        tc.get_slice(3).partition_D(Layout((32, 32), (1, 32)))  # column-major: a row is strided
    tc4 = make_tiled_copy(atoms.cp_async(4), Layout.right((32, 4)), Layout((1, 2)), bits=16)
    with pytest.raises(LayoutError, match="not aligned"):
        tc4.get_slice(4).partition_D(Layout((32, 8), (9, 1)))  # row pitch 9: thread 4 reads row 1 at odd offsets


def test_tensor_shape_errors():
    mma = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1))
    with pytest.raises(LayoutError, match="not a multiple"):
        mma.get_slice(0).partition_A(Layout((48, 16)))
    with pytest.raises(LayoutError, match="out of range"):
        mma.get_slice(128)
    with pytest.raises(LayoutError, match="rank >= 2"):
        mma.get_slice(0).partition_A(Layout(32))
    with pytest.raises(LayoutError):
        make_tiled_mma(atoms.ldmatrix(4))
    with pytest.raises(LayoutError):
        make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1, 1))


@pytest.mark.oracle
@pytest.mark.parametrize("name,frag", [(n, f) for n, fs in RETILE_FRAGMENTS.items() for f in fs])
def test_retile_equals_cute_dsl(dsl, name, frag):
    mma = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1), (32, 32, 16))
    maker, atom = {"A_LDSM_N": (make_tiled_copy_A, atoms.ldmatrix(4)),
                   "B_LDSM_T": (make_tiled_copy_B, atoms.ldmatrix(4, trans=True)),
                   "C_STSM_N": (make_tiled_copy_C, atoms.stmatrix(4)),
                   "C_STSM_T": (make_tiled_copy_C, atoms.stmatrix(2, trans=True))}[name]
    re = maker(atom.bind(16), mma).get_slice(0).retile_D(Layout(frag))
    values, mode_sizes = dsl[("retile", name, frag)]
    assert re.values() == values
    assert [re[i].size() for i in range(re.rank())] == mode_sizes


def test_retile_of_the_b_fragment_pairs_two_mma_n_blocks():
    # B with N permuted to 32: an MMA fragment holds 4 values per 8-wide N block; one LDSM.x4.trans
    # fills two N blocks, so copy value v takes fragment value v % 4 of N block v // 4 (offsets 0..7)
    mma = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1), (32, 32, 16))
    tc = make_tiled_copy_B(atoms.ldmatrix(4, trans=True), mma)
    re = tc.get_slice(0).retile_D(Layout((4, 8, 2)))
    assert [re[0].size(), re[1].size(), re[2].size()] == [8, 4, 2]
    assert [re(v, 0, 0) for v in range(8)] == list(range(8))
    assert re(0, 1, 0) == 8 and re(0, 0, 1) == 32
    with pytest.raises(LayoutError, match="retile"):
        tc.get_slice(0).retile_D(Layout((3, 8, 2)))


def test_sm70_quad_pairs_tile_a_warp():
    mma = make_tiled_mma(atoms.get("SM70_8x8x4_F32F16F16F32_TN"), (2, 2, 1))
    assert mma.size() == 32 and mma.tile_shape_mnk == (16, 16, 4)
    c = mma.get_layoutC_TV()
    seen = {c(t, v) for t in range(32) for v in range(8)}
    assert seen == set(range(16 * 16))  # the four quad pairs cover the 16x16 tile once


def test_bad_arguments_raise_layout_errors():
    mma = make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1))
    with pytest.raises(LayoutError):
        atoms.mma(123, "f16")
    with pytest.raises(LayoutError, match="thread index"):
        mma.get_slice("a")
    with pytest.raises(LayoutError, match="thread index"):
        make_tiled_copy(atoms.cp_async(16), (32, 4), (1, 8), bits=16).get_slice(128)
    with pytest.raises(LayoutError, match="outside"):
        make_tiled_mma(atoms.get(F16_ATOM), (2, 2, 1), (Layout(32, 2), None, None)).get_layoutA_TV()
    with pytest.raises(LayoutError, match="one-to-one"):
        make_tiled_copy(atoms.cp_async(16), Layout((32, 4), (0, 1)), (1, 8), bits=16)
    with pytest.raises(LayoutError, match="not valid for Src of 24-bit"):
        make_tiled_copy(atoms.cp_async(16), (32, 4), (1, 8), bits=24)


def test_sm70_partition_follows_the_quad_pairs():
    # PTX: lanes 4q..4q+3 and 16+4q.. compute MMA q; CuTe's thread layout ((4,2),2,2):((1,16),4,8) puts
    # MMA q = m + 2n at block (m, n) of the 16x16 tile.  Within a block the f32 accumulator follows the
    # PTX formula row = (l & 1) + (i & 2) + 4*hi, col = (l & 2) + (i & 5), l = lane % 4, hi = lane >= 16.
    mma = make_tiled_mma(atoms.get("SM70_8x8x4_F32F16F16F32_TN"), (2, 2, 1))
    assert mma.thr_layout_vmnk.stride[0] == (1, 16)
    for lane in range(32):
        q = (lane % 16) // 4
        bm, bn = q % 2, q // 2
        part = mma.get_slice(lane).partition_C((16, 16))
        assert part.shape == (8, 1, 1)
        for i in range(8):
            low, hi = lane % 4, int(lane >= 16)
            row = (low & 1) + (i & 2) + 4 * hi
            col = (low & 2) + (i & 5)
            assert part.coord(i, 0, 0) == (8 * bm + row, 8 * bn + col)


def test_a_copy_atom_refuses_values_that_do_not_split_its_bits_per_thread():
    # CuTe's Copy_Atom<Op, T> needs sizeof_bits(Op's registers) to be a whole number of T values
    from layoutalg.atoms.catalog import ld_shared

    for op_bits, value_bits in ((8, 16), (8, 24), (64, 128), (32, 24)):
        with pytest.raises(LayoutError, match=f"does not split into {value_bits}-bit values"):
            ld_shared(op_bits).bind(value_bits)
    assert ld_shared(32).bind(16).val_layout_src.size() == 2
    assert ld_shared(128).bind(64).val_layout_src.size() == 2

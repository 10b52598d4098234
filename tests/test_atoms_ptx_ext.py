"""The atoms added for issue 16 against the PTX ISA fragment tables, for every (thread, value).

Formulas re-typed here from the PTX ISA ("Matrix Fragments for mma.m8n8k16 / m16n8k16 (integer) /
m8n8k32 / m16n8k32 / m8n8k128 / m16n8k128 / m16n8k256 / m16n8k4-k16 (.f64)", "wgmma Register
Fragments", "ldmatrix", "stmatrix"), independently of layoutalg/atoms/mma_ext.py, gmma.py and
ldmatrix_b8.py; the CuTe C++ side is tests/test_atoms_cute_cpp.py.
"""

from __future__ import annotations

import pytest

from layoutalg import atoms
from layoutalg.atoms import catalog
from layoutalg.atoms.copy_ext import shuffle_result
from layoutalg.atoms.ldmatrix_b8 import B8_COPY_ATOMS, B8_FORMS, B8MatrixForm, cute_byte_source, form_of
from layoutalg.atoms.mma_ext import MMA_EXT_ATOMS
from layoutalg.errors import InstructionError


def gid(lane):
    return lane >> 2


def tig(lane):
    return lane % 4


def c_m8n8(lane, i):
    return gid(lane), tig(lane) * 2 + i


def c_m16n8(lane, i):
    return gid(lane) + (8 if i >= 2 else 0), tig(lane) * 2 + (i & 0x1)


def ptx(shape, a_type):
    """(row, col) in the PTX matrices (A MxK, B KxN, C MxN) per the PTX ISA tables."""
    if a_type in ("s8", "u8") and shape == "m8n8k16":
        return lambda op, lane, i: {"A": (gid(lane), tig(lane) * 4 + i), "B": (tig(lane) * 4 + i, gid(lane))}.get(
            op, c_m8n8(lane, i))
    if a_type in ("s8", "u8") and shape == "m16n8k16":
        return lambda op, lane, i: {"A": (gid(lane) + (8 if i >= 4 else 0), tig(lane) * 4 + (i & 0x3)),
                                    "B": (tig(lane) * 4 + i, gid(lane))}.get(op, c_m16n8(lane, i))
    if a_type in ("s8", "u8") and shape == "m16n8k32":
        return lambda op, lane, i: {
            "A": (gid(lane) + (8 if (i < 8 and i >= 4) or i >= 12 else 0), tig(lane) * 4 + (i & 0x3) + (16 if i >= 8 else 0)),
            "B": (tig(lane) * 4 + (i & 0x3) + (16 if i >= 4 else 0), gid(lane))}.get(op, c_m16n8(lane, i))
    if a_type in ("s4", "u4") and shape == "m8n8k32":
        return lambda op, lane, i: {"A": (gid(lane), tig(lane) * 8 + i), "B": (tig(lane) * 8 + i, gid(lane))}.get(
            op, c_m8n8(lane, i))
    if a_type in ("s4", "u4") and shape == "m16n8k32":
        return lambda op, lane, i: {"A": (gid(lane) + (8 if i >= 8 else 0), tig(lane) * 8 + (i & 0x7)),
                                    "B": (tig(lane) * 8 + i, gid(lane))}.get(op, c_m16n8(lane, i))
    if a_type in ("s4", "u4") and shape == "m16n8k64":
        return lambda op, lane, i: {
            "A": (gid(lane) + (8 if (8 <= i < 16) or i >= 24 else 0), tig(lane) * 8 + (i & 0x7) + (32 if i >= 16 else 0)),
            "B": (tig(lane) * 8 + (i & 0x7) + (32 if i >= 8 else 0), gid(lane))}.get(op, c_m16n8(lane, i))
    if shape == "m8n8k128":
        return lambda op, lane, i: {"A": (gid(lane), tig(lane) * 32 + i), "B": (tig(lane) * 32 + i, gid(lane))}.get(
            op, c_m8n8(lane, i))
    if shape == "m16n8k128":
        return lambda op, lane, i: {"A": (gid(lane) + (8 if i >= 32 else 0), tig(lane) * 32 + (i & 0x1F)),
                                    "B": (tig(lane) * 32 + i, gid(lane))}.get(op, c_m16n8(lane, i))
    if shape == "m16n8k256":
        return lambda op, lane, i: {
            "A": (gid(lane) + (8 if (32 <= i < 64) or i >= 96 else 0), tig(lane) * 32 + (i & 0x1F) + (128 if i >= 64 else 0)),
            "B": (tig(lane) * 32 + (i & 0x1F) + (128 if i >= 32 else 0), gid(lane))}.get(op, c_m16n8(lane, i))
    if a_type in ("f64", "c64") and shape == "m8n8k4":
        return lambda op, lane, i: {"A": (gid(lane), tig(lane)), "B": (tig(lane), gid(lane))}.get(op, c_m8n8(lane, i))
    if a_type in ("f64", "c64") and shape in ("m16n8k4", "m16n8k8", "m16n8k16"):
        # A: row = g for even i, g + 8 for odd; col = 2i + t for even i, 2i - 2 + t for odd (PTX m16n8k16 .f64)
        return lambda op, lane, i: {
            "A": (gid(lane) + (8 if i % 2 else 0), (i * 2 if i % 2 == 0 else i * 2 - 2) + tig(lane)),
            "B": (tig(lane) + 4 * i, gid(lane))}.get(op, c_m16n8(lane, i))
    if a_type == "f16" and shape == "m16n8k8":
        return lambda op, lane, i: {"A": (gid(lane) + (8 if i >= 2 else 0), tig(lane) * 2 + (i & 0x1)),
                                    "B": (tig(lane) * 2 + i, gid(lane))}.get(op, c_m16n8(lane, i))
    if shape == "dot":  # dp4a / dp2a / fma: one thread, a 1 x K row times a K x 1 column
        return lambda op, lane, i: {"A": (0, i), "B": (i, 0)}.get(op, (0, 0))
    raise AssertionError((shape, a_type))


def _shape(atom):
    m, n, k = atom.shape_mnk
    return "dot" if m == n == 1 else f"m{m}n{n}k{k}"


@pytest.mark.parametrize("atom", MMA_EXT_ATOMS, ids=lambda a: a.name)
def test_new_mma_atoms_match_the_ptx_tables_at_every_thread_and_value(atom):
    formula = ptx(_shape(atom), atom.a_type)
    m, n, _ = atom.shape_mnk
    for op in "ABC":
        tv = atom.layout(op)
        seen = set()
        for t in range(tv[0].size()):
            lane = atom.thr_id(t)
            for v in range(tv[1].size()):
                idx = tv(t, v)
                got = (idx // n, idx % n) if op == "B" else (idx % m, idx // m)
                assert got == formula(op, lane, v), (atom.name, op, t, v)
                assert atom.fragment_coord(op, lane, v) == got
                seen.add(got)
        rows, cols = atom.ptx_matrix_shape(op)
        assert len(seen) == rows * cols  # every element exactly once


def test_satfinite_and_popc_atoms_are_found_by_ptx_and_by_options():
    assert atoms.mma("m16n8k32", a="s8", b="u8", c="s32", satfinite=True) is atoms.get("SM80_16x8x32_S32S8U8S32_TN_SATURATE")
    assert atoms.mma("m8n8k16", a="s8", c="s32") is atoms.get("SM80_8x8x16_S32S8S8S32_TN")  # newest of SM75/SM80
    assert atoms.mma("m8n8k16", a="s8", c="s32", arch=75) is atoms.get("SM75_8x8x16_S32S8S8S32_TN")
    assert atoms.mma("m16n8k8", a="f16", c="f16", arch=75) is atoms.get("SM75_16x8x8_F16F16F16F16_TN")
    assert atoms.get("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc").name == \
        "SM80_16x8x256_S32U1U1S32_TN_ANDPOPC"
    assert atoms.mma("m16n8k16", a="f64", c="f64") is atoms.get("SM90_16x8x16_F64F64F64F64_TN")


# ------------------------------------------------------------------------------------------ wgmma
def wgmma_a(k, tid, i):
    w, g, t = tid // 32, gid(tid % 32), tig(tid % 32)
    if k == 8:  # tf32: per warp the m16n8k8 .tf32 A fragment
        return 16 * w + g + (8 if i in (1, 3) else 0), t + (4 if i >= 2 else 0)
    if k == 16:
        return 16 * w + g + (8 if i in (2, 3, 6, 7) else 0), t * 2 + (i & 1) + (8 if i >= 4 else 0)
    # 8-bit: per warp the m16n8k32 8-bit A fragment
    return 16 * w + g + (8 if (4 <= i < 8) or i >= 12 else 0), t * 4 + (i & 3) + (16 if i >= 8 else 0)


def wgmma_d(tid, i):
    w, g, t = tid // 32, gid(tid % 32), tig(tid % 32)
    return 16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + t * 2 + (i & 1)


WGMMA_CASES = [(n, a, b, c, sat) for n in (8, 24) for a, b, c, sat in (
    ("tf32", "tf32", "f32", False), ("e4m3", "e5m2", "f16", False), ("e5m2", "e5m2", "f32", False),
    ("s8", "u8", "s32", False), ("u8", "u8", "s32", True), ("bf16", "bf16", "f32", False))] + [
    (256, "tf32", "tf32", "f32", False), (256, "e4m3", "e4m3", "f32", False), (256, "u8", "s8", "s32", True)]


@pytest.mark.parametrize("n,a,b,c,sat", WGMMA_CASES)
def test_wgmma_register_fragments_of_every_dtype_match_ptx(n, a, b, c, sat):
    rs = atoms.wgmma(n, a, c, "reg", b=b, saturate=sat)
    k = rs.shape_mnk[2]
    assert k == {"tf32": 8, "bf16": 16}.get(a, 32)
    assert rs.num_elements("A") == k // 2
    for op, fn, count in (("A", lambda t, i: wgmma_a(k, t, i), k // 2), ("C", wgmma_d, n // 2)):
        tv = rs.layout(op)
        seen = set()
        for tid in range(128):
            for i in range(count):
                idx = tv(tid, i)
                assert (idx % 64, idx // 64) == fn(tid, i) == rs.fragment_coord(op, tid, i), (rs.name, op, tid, i)
                assert rs.ptx_layout(op)(tid, i) == idx
                seen.add(idx)
        assert len(seen) == 64 * (k if op == "A" else n)
    ss = atoms.wgmma(n, a, c, "smem", b=b, saturate=sat)
    # A and B of SS are descriptor operands: every thread "sees" the whole (MN, K) tile, index mn + MN*k
    for op, mn in (("A", 64), ("B", n)):
        lay = ss.layout(op)
        for tid in (0, 37, 127):
            assert [lay(tid, (x, y)) for y in range(k) for x in range(mn)] == list(range(mn * k))
    with pytest.raises(InstructionError):
        ss.num_elements("A")


def test_wgmma_names_ptx_and_refusals():
    assert atoms.wgmma(24, "s8", "s32", b="u8", saturate=True).name == "SM90_64x24x32_S32S8U8_SS_TN_SATURATE"
    assert atoms.wgmma(24, "s8", "s32", b="u8", saturate=True).ptx == \
        "wgmma.mma_async.sync.aligned.m64n24k32.s32.s8.u8.satfinite"
    assert atoms.get("SM90_64x40x8_F32TF32TF32_RS_TN").ptx == "wgmma.mma_async.sync.aligned.m64n40k8.f32.tf32.tf32"
    assert atoms.get("SM90_64x256x32_F16E5M2E4M3_SS_TN").a_type == "e5m2"
    for bad in (dict(n=40, a="s8", c="s32"), dict(n=64, a="tf32", c="f16"), dict(n=64, a="f16", c="f32", saturate=True),
                dict(n=64, a="e4m3", c="s32"), dict(n=12, a="f16", c="f32")):
        with pytest.raises(InstructionError):
            atoms.wgmma(**bad)
    with pytest.raises(InstructionError):
        atoms.get("SM90_64x40x32_S32S8S8_SS_TN")  # N = 40 does not exist for s8


# ----------------------------------------------------------------------- 8-bit ldmatrix / stmatrix
def ptx_b8(form, lane, reg, byte):
    """(matrix, row, col) in shared memory, from the PTX ISA ldmatrix / stmatrix descriptions."""
    g, t = lane // 4, lane % 4
    if form.shape == "m16n16":  # "4 consecutive columns across 2 rows" (g, g+8), loaded transposed
        matrix, second_row = reg // 2, reg % 2
        frag_row, frag_col = g + 8 * second_row, 4 * t + byte
        return matrix, frag_col, frag_row
    if form.shape == "m8n16":  # "4 consecutive columns" of row g
        return reg, g, 4 * t + byte
    # stmatrix m16n8 .trans: byte e_j holds fragment (g + 8*(j//2), 2t + j%2), stored transposed
    return reg, 2 * t + byte % 2, g + 8 * (byte // 2)


@pytest.mark.parametrize("form", B8_FORMS, ids=lambda f: f.ptx)
def test_b8_forms_equal_the_ptx_tables(form):
    rows = form.rows_per_matrix
    seen = set()
    for lane in range(32):
        for reg in range(form.num_regs):
            for byte in range(4):
                got = form.fragment_coord(lane, reg, byte)
                assert got == ptx_b8(form, lane, reg, byte)
                seen.add(got)
    assert len(seen) == form.num * rows * 16  # every element of every matrix exactly once
    assert [form.row_address_lane(m, r) for m in range(form.num) for r in range(rows)] == list(range(form.num * rows))
    lay = form.fragment_layout()
    assert [lay(lane, (b, r)) for lane in range(32) for r in range(form.num_regs) for b in range(4)] == \
        [16 * rows * m + 16 * rr + c for lane in range(32) for r in range(form.num_regs) for b in range(4)
         for m, rr, c in [form.fragment_coord(lane, r, b)]]


def test_b8_form_count_and_ptx_strings():
    assert len(B8_FORMS) == 15
    assert catalog.get("ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8x16.b4x16_p64") == \
        B8MatrixForm("ldmatrix", "m16n16", 2, "b4x16_p64")
    assert atoms.catalog.ldmatrix_b8("m8n16", 4, "b6x16_p32").ptx == \
        "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32"
    assert atoms.catalog.stmatrix_b8(2).ptx == "stmatrix.sync.aligned.m16n8.x2.trans.shared.b8"
    for bad in (("ldmatrix", "m16n16", 4, "b8"), ("ldmatrix", "m8n16", 1, "b8"), ("stmatrix", "m16n8", 3, "b8")):
        with pytest.raises(InstructionError):
            B8MatrixForm(*bad)


@pytest.mark.parametrize("atom", B8_COPY_ATOMS, ids=lambda a: a.name)
def test_cute_sm100_b8_atoms_are_the_ptx_forms_with_cutes_byte_permutation(atom):
    """CuTe's Src/Dst (in bits) pair each register byte with the (lane row, byte) of shared memory that
    the PTX form (composed with CuTe's post-load byte permutation) puts there."""
    form = form_of(atom)
    typed = atom.bind(8)
    reg_side, addr_side = ((typed.val_layout_dst, typed.val_layout_src) if form.kind == "ldmatrix"
                           else (typed.val_layout_src, typed.val_layout_dst))
    where = {}
    for t in range(32):
        for e in range(addr_side[1].size()):
            where.setdefault(addr_side(t, e), (t, e))  # lowest lane supplying that reference byte
    for lane in range(32):
        for v in range(reg_side[1].size()):
            addr_lane, byte_in_row = where[reg_side(lane, v)]
            reg, byte = cute_byte_source(atom.name, v // 4, v % 4)
            matrix, row, col = form.fragment_coord(lane, reg, byte)
            assert addr_lane == form.row_address_lane(matrix, row), (atom.name, lane, v)
            assert byte_in_row == col, (atom.name, lane, v)


# ------------------------------------------------------------------------------- other copy atoms
@pytest.mark.parametrize("name", ["SM50_Shuffle_U32_2x2Trans_XOR1", "SM50_Shuffle_U32_2x2Trans_XOR4"])
def test_sm50_shuffles_match_a_simulation_of_their_shfl_program(name):
    """Simulate the in-place shfl.sync.bfly sequence of cute/arch/copy_sm50.hpp on 64 distinct words and
    compare with CuTe's Src/Dst (bits): dst (t, r) holds the source word the trait pairs it with."""
    src = [[2 * lane + r for r in (0, 1)] for lane in range(32)]
    dst = [row[:] for row in src]
    if name.endswith("XOR1"):
        y0 = [src[lane ^ 1][0] for lane in range(32)]
        y1 = [src[lane ^ 1][1] for lane in range(32)]
        for lane in range(32):
            if lane % 2 == 0:
                dst[lane][1] = y0[lane]
            else:
                dst[lane][0] = y1[lane]
    else:
        x0 = [src[lane][0] if lane & 4 else src[lane][1] for lane in range(32)]
        for lane in range(32):
            y0 = x0[lane ^ 4]
            if lane & 4:
                dst[lane][0] = y0
            else:
                dst[lane][1] = y0
    atom = atoms.get(name).bind(32)
    for lane in range(32):
        for r in (0, 1):
            word = atom.val_layout_dst(lane, r)  # reference word; the source trait is (32,2):(2,1) in words
            assert dst[lane][r] == word
            src_lane, src_reg = shuffle_result(name, lane, r)
            assert src[src_lane][src_reg] == word


def test_zfill_and_placeholder_copies():
    z = atoms.get("SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<uint128_t>").bind(16)
    assert z.val_layout_src.values() == list(range(8)) == z.val_layout_dst.values()
    assert atoms.get("DefaultCopy").name == "AutoVectorizingCopyWithAssumedAlignment<8>"
    assert atoms.get("AutoVectorizingCopy").src_layout.values() == [0]
    assert atoms.get("SM100_LOAD_256bit_CACHE_NOALLOCATION").bind(32).num_val_src == 8


def test_operand_tv_of_a_b8_form_is_its_fragment_and_its_rows():
    from layoutalg.atoms.tv import operand_tv

    form = B8MatrixForm("ldmatrix", "m16n16", 2, "b4x16_p64")
    frag, tile, thr = operand_tv(form, "dst")
    assert tile == (16, 32) and thr.size() == 32 and frag == form.fragment_layout()
    rows, _, _ = operand_tv(form, "src")
    assert [rows(lane, 5) for lane in range(32)] == [16 * lane + 5 for lane in range(32)]
    st_rows, st_tile, _ = operand_tv(B8MatrixForm("stmatrix", "m16n8", 1), "dst")
    assert st_tile == (16, 8) and [st_rows(lane, 0) for lane in (0, 7, 8, 31)] == [0, 112, 0, 112]
    with pytest.raises(InstructionError):
        operand_tv(form, "A")


def test_a_tiled_mma_of_a_new_wgmma_atom_has_the_atoms_tv_layouts():
    from layoutalg.atoms import make_tiled_mma

    atom = atoms.wgmma(24, "s8", "s32", "reg", b="u8")
    tiled = make_tiled_mma(atom)
    c, a = tiled.get_layoutC_TV(), tiled.get_layoutA_TV()
    assert all(c(t, v) == atom.c_layout(t, v) for t in range(128) for v in range(12))
    assert all(a(t, v) == atom.a_layout(t, v) for t in range(128) for v in range(16))


def test_get_reads_the_cpp_spellings_of_an_atom():
    assert atoms.get("cute::SM90_64x64x16_F32F16F16_SS<cute::GMMA::Major::K, cute::GMMA::Major::MN>") is \
        atoms.get("SM90_64x64x16_F32F16F16_SS")
    assert atoms.get("SM90::GMMA::MMA_64x24x32_S32S8U8_RS_TN_SATURATE").name == "SM90_64x24x32_S32S8U8_RS_TN_SATURATE"
    assert atoms.get("SM90_64x8x8_F32TF32TF32_SS_TN<>").name == "SM90_64x8x8_F32TF32TF32_SS_TN"
    assert atoms.get("UniversalCopy<cute::uint128_t, cute::uint128_t>") is atoms.get("UniversalCopy<uint128_t>")
    assert atoms.get("SM90::MMA_16x8x4_F64F64F64F64_TN") is atoms.get("SM90_16x8x4_F64F64F64F64_TN")
    assert atoms.get("cp.async.cg.shared.global [dst], [src], 16").name == "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"
    with pytest.raises(InstructionError):
        atoms.get("UniversalCopy<uint32_t, uint64_t>")

"""Every atom's CuTe TV layouts against the PTX ISA fragment formulas, for every (thread, value).

The formulas below are re-typed from the PTX ISA ("Matrix Fragments for mma.m16n8k16" etc.,
"ldmatrix", "stmatrix", "movmatrix", "wgmma register fragments"), independently of
layoutalg's own copies in mma.py / copy.py / gmma.py.
"""

from __future__ import annotations

import pytest

from layoutalg import atoms
from layoutalg.atoms.mma import MMA_ATOMS
from layoutalg.errors import InstructionError, LayoutError


def gid(lane: int) -> int:
    return lane >> 2


def tig(lane: int) -> int:
    return lane % 4


# (row, col) in the PTX matrices: A is M x K, B is K x N, C is M x N.
def ptx_m16n8k16_f16(op, lane, i):
    if op == "A":
        row = gid(lane) if (i < 2 or 4 <= i < 6) else gid(lane) + 8
        col = tig(lane) * 2 + (i & 0x1) + (8 if i >= 4 else 0)
        return row, col
    if op == "B":
        return tig(lane) * 2 + (i & 0x1) + (8 if i >= 2 else 0), gid(lane)
    return gid(lane) + (8 if i >= 2 else 0), tig(lane) * 2 + (i & 0x1)


def ptx_m16n8k8_f16(op, lane, i):
    if op == "A":
        return gid(lane) + (8 if i >= 2 else 0), tig(lane) * 2 + (i & 0x1)
    if op == "B":
        return tig(lane) * 2 + i, gid(lane)
    return gid(lane) + (8 if i >= 2 else 0), tig(lane) * 2 + (i & 0x1)


def ptx_m16n8k4_tf32(op, lane, i):
    if op == "A":
        return gid(lane) + (8 if i == 1 else 0), tig(lane)
    if op == "B":
        return tig(lane), gid(lane)
    return gid(lane) + (8 if i >= 2 else 0), tig(lane) * 2 + (i & 0x1)


def ptx_m16n8k8_tf32(op, lane, i):
    if op == "A":
        return gid(lane) + (8 if i in (1, 3) else 0), tig(lane) + (4 if i in (2, 3) else 0)
    if op == "B":
        return tig(lane) + (4 if i == 1 else 0), gid(lane)
    return gid(lane) + (8 if i >= 2 else 0), tig(lane) * 2 + (i & 0x1)


def ptx_m16n8k32_8bit(op, lane, i):
    if op == "A":
        row = gid(lane) if (i < 4 or 8 <= i < 12) else gid(lane) + 8
        return row, tig(lane) * 4 + (i & 0x3) + (16 if i >= 8 else 0)
    if op == "B":
        return tig(lane) * 4 + (i & 0x3) + (16 if i >= 4 else 0), gid(lane)
    return gid(lane) + (8 if i >= 2 else 0), tig(lane) * 2 + (i & 0x1)


def ptx_m16n8k64_4bit(op, lane, i):
    if op == "A":
        row = gid(lane) if (i < 8 or 16 <= i < 24) else gid(lane) + 8
        return row, tig(lane) * 8 + (i & 0x7) + (32 if i >= 16 else 0)
    if op == "B":
        return tig(lane) * 8 + (i & 0x7) + (32 if i >= 8 else 0), gid(lane)
    return gid(lane) + (8 if i >= 2 else 0), tig(lane) * 2 + (i & 0x1)


def ptx_m8n8k4_f64(op, lane, i):
    if op == "A":
        return gid(lane), tig(lane)
    if op == "B":
        return tig(lane), gid(lane)
    return gid(lane), tig(lane) * 2 + i


def ptx_m8n8k4_sm70(alayout, blayout, ctype):
    def f(op, lane, i):
        high = lane >= 16
        if op == "A":
            if alayout == "row":
                return (lane % 4 + (4 if high else 0)), i
            return (i % 4 + (4 if high else 0)), lane % 4
        if op == "B":
            if blayout == "row":
                return lane % 4, i + (4 if high else 0)
            return i, lane % 4 + (4 if high else 0)
        if ctype == "f16":
            return lane % 4 + (4 if high else 0), i
        x = (tig(lane) & 0b1) + (i & 0b10)
        return x + (4 if high else 0), (tig(lane) & 0b10) + (i & 0b101)

    return f


def formula_for(atom):
    shape = atom.ptx.split(".")[3]
    if shape == "m8n8k4":
        if atom.a_type == "f64":
            return ptx_m8n8k4_f64
        parts = atom.ptx.split(".")
        return ptx_m8n8k4_sm70(parts[4], parts[5], atom.c_type)
    if shape == "m16n8k16":
        return ptx_m16n8k16_f16
    if shape == "m16n8k8":
        return ptx_m16n8k8_tf32 if atom.a_type == "tf32" else ptx_m16n8k8_f16
    if shape == "m16n8k4":
        return ptx_m16n8k4_tf32
    if shape == "m16n8k32":
        return ptx_m16n8k32_8bit
    if shape == "m16n8k64":
        return ptx_m16n8k64_4bit
    raise AssertionError(atom.ptx)


def cute_index_to_ptx(atom, op, idx):
    """CuTe's TV index -> (row, col) of the PTX matrix."""
    m, n, k = atom.shape_mnk
    if op == "A":
        return idx % m, idx // m
    if op == "B":  # CuTe's B is N x K: idx = n + N*k; PTX B is K x N
        return idx // n, idx % n
    return idx % m, idx // m


def quadpair_lane(v: int) -> int:
    # sm70: logical thread v of the quad pair 0 -> lanes 0-3 and 16-19
    return v % 4 + 16 * (v // 4)


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_mma_tv_layouts_match_ptx_for_every_thread_and_value(atom):
    formula = formula_for(atom)
    for op in "ABC":
        tv = atom.layout(op)
        nthr, nval = tv[0].size(), tv[1].size()
        assert nthr == atom.thr_id.size()
        seen = set()
        for t in range(nthr):
            lane = quadpair_lane(t) if atom.arch == 70 else t
            assert atom.thr_id(t) == lane
            for v in range(nval):
                got = cute_index_to_ptx(atom, op, tv(t, v))
                assert got == formula(op, lane, v), (atom.name, op, t, v)
                assert atom.fragment_coord(op, lane, v) == got
                seen.add(got)
        rows, cols = atom.ptx_matrix_shape(op)
        assert len(seen) == rows * cols  # every element exactly once


def test_mma_atom_count_and_names():
    names = {a.name for a in MMA_ATOMS}
    for expected in [
        "SM70_8x8x4_F16F16F16F16_TN", "SM70_8x8x4_F32F16F16F32_NT", "SM75_16x8x8_F32F16F16F32_TN",
        "SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x8_F32BF16BF16F32_TN",
        "SM80_16x8x8_F32TF32TF32F32_TN", "SM80_16x8x4_F32TF32TF32F32_TN", "SM80_16x8x32_S32S8U8S32_TN",
        "SM80_16x8x64_S32S4S4S32_TN", "SM80_8x8x4_F64F64F64F64_TN", "SM89_16x8x32_F32E4M3E5M2F32_TN",
        "SM89_16x8x32_F16E5M2E5M2F16_TN",
    ]:
        assert expected in names


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_ptx_layout_equals_formula_and_registers(atom):
    for op in "ABC":
        lay = atom.ptx_layout(op)
        e = atom.elements_per_register(op)
        m, n, k = atom.shape_mnk
        rows, cols = atom.ptx_matrix_shape(op)
        for lane in range(32):
            for i in range(atom.num_elements(op)):
                r, c = atom.fragment_coord(op, lane, i)
                idx = (c + n * r) if op == "B" else (r + m * c)
                q = (lane % 16) // 4 if atom.arch == 70 else 0
                assert lay(lane, i) == idx + rows * cols * q
                assert atom.fragment_coord_reg(op, lane, i // e, i % e) == (r, c)


def test_lookup_by_ptx_and_cute_name_gives_the_same_object():
    assert atoms.mma("m16n8k16", a="f16", b="f16", c="f32") is atoms.get("SM80_16x8x16_F32F16F16F32_TN")
    assert atoms.mma("m16n8k8", a="f16", c="f32", arch=75) is atoms.get("SM75_16x8x8_F32F16F16F32_TN")
    assert atoms.mma("m8n8k4", a="f64", c="f64") is atoms.get("SM80_8x8x4_F64F64F64F64_TN")
    assert atoms.mma("m8n8k4", a="f16", c="f32", layout="col.row") is atoms.get("SM70_8x8x4_F32F16F16F32_NT")
    assert atoms.mma("m16n8k32", a="e4m3", b="e5m2", c="f32") is atoms.get("SM89_16x8x32_F32E4M3E5M2F32_TN")
    assert atoms.ldmatrix(num=4, trans=True) is atoms.get("SM75_U16x8_LDSM_T")
    assert atoms.ldmatrix(num=2) is atoms.get("SM75_U32x2_LDSM_N")
    assert atoms.stmatrix(num=1, trans=True) is atoms.get("SM90_U16x2_STSM_T")
    assert atoms.movmatrix() is atoms.get("SM75_U32x1_MOVM_T")
    assert atoms.cp_async(16, "cg") is atoms.get("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>")
    assert atoms.ld_shared(128) is atoms.get("UniversalCopy<uint128_t>")
    assert atoms.get("ldmatrix.sync.aligned.m8n8.x4.shared.b16") is atoms.get("SM75_U32x4_LDSM_N")
    assert atoms.wgmma(64, "f16", "f32") is atoms.get("SM90_64x64x16_F32F16F16_SS")


def test_lookup_errors_are_layout_errors():
    with pytest.raises(InstructionError, match="did you mean"):
        atoms.get("SM80_16x8x16_F32F16F16F32_NT")
    with pytest.raises(InstructionError, match="m16n8k16"):
        atoms.mma("m16n8k16", a="f16", c="s32")
    with pytest.raises(InstructionError):
        atoms.ldmatrix(num=3)
    with pytest.raises(InstructionError):
        atoms.cp_async(8, "cg")
    with pytest.raises(InstructionError):
        atoms.wgmma(12)
    with pytest.raises(InstructionError):
        atoms.get("SM80_16x8x16_F32F16F16F32_TN").fragment_coord("A", 32, 0)
    with pytest.raises(InstructionError):
        atoms.get("SM80_16x8x16_F32F16F16F32_TN").fragment_coord("E", 0, 0)
    with pytest.raises(LayoutError):
        atoms.get("SM80_16x8x16_F32F16F16F32_TN", bits=16)
    with pytest.raises(LayoutError):
        atoms.ldmatrix(4).bind(256)  # a 256-bit value does not fit a thread's 32-bit registers


# ---------------------------------------------------------------------------- ldmatrix / stmatrix
def ptx_ldmatrix(num, trans, lane, reg, half):
    """PTX ISA: lane l receives row l/4, elements 2*(l%4), 2*(l%4)+1 of matrix `reg`; .trans transposes."""
    row, col = lane // 4, 2 * (lane % 4) + half
    if trans:
        row, col = col, row
    return reg, row, col


def bit_of(matrix, row, col, b):
    return 1024 * matrix + 128 * row + 16 * col + b


MATRIX_ATOMS = [a for a in atoms.catalog.COPY_ATOMS if a.kind in ("ldmatrix", "stmatrix")]


@pytest.mark.parametrize("atom", MATRIX_ATOMS, ids=lambda a: a.name)
def test_ldmatrix_stmatrix_bit_layouts_match_ptx(atom):
    num, trans = atom.num_matrices, atom.trans
    reg_side = atom.dst_layout if atom.kind == "ldmatrix" else atom.src_layout
    mem_side = atom.src_layout if atom.kind == "ldmatrix" else atom.dst_layout
    assert atom.ref_layout == reg_side
    assert reg_side[1].size() == 32 * num and mem_side[1].size() == 128
    for lane in range(32):
        for v in range(32 * num):
            reg, within = v // 32, v % 32
            half, b = within // 16, within % 16
            assert reg_side(lane, v) == bit_of(*ptx_ldmatrix(num, trans, lane, reg, half), b)
            assert atom.fragment_coord(lane, reg, half) == ptx_ldmatrix(num, trans, lane, reg, half)
        # memory side: lane 8*i + r supplies the address of row r of matrix i (lanes past 8*num mirror CuTe's
        # stride-0 convention: they repeat the first 8*num lanes' rows)
        row_global = lane % (8 * num)
        for v in range(128):
            assert mem_side(lane, v) == 128 * row_global + v
    for i in range(num):
        for r in range(8):
            assert atom.row_address_lane(i, r) == 8 * i + r
            assert atom.address_layout(r, i) == 8 * i + r


def test_fragment_layout_is_the_ptx_formula():
    for atom in MATRIX_ATOMS:
        lay = atom.fragment_layout
        for lane in range(32):
            for reg in range(atom.num_matrices):
                for half in range(2):
                    m, r, c = ptx_ldmatrix(atom.num_matrices, atom.trans, lane, reg, half)
                    assert lay(lane, (half, reg)) == 64 * m + 8 * r + c


def test_movmatrix():
    atom = atoms.movmatrix()
    assert atom.src_layout == atom.dst_layout  # CuTe: register identity on both sides
    for lane in range(32):
        for h in range(2):
            src, dst = atoms.movmatrix_coords(lane, h)
            assert src == (lane // 4, 2 * (lane % 4) + h)
            # the destination holds the transpose: element (2*(l%4)+h, l/4) of the source
            assert dst == (src[1], src[0])


def test_per_thread_copies_are_one_thread_vectors():
    for bits in (8, 16, 32, 64, 128):
        for atom in (atoms.ld_shared(bits), atoms.st_shared(bits)):
            assert atom.thr_id.size() == 1
            assert [atom.src_layout(0, v) for v in range(bits)] == list(range(bits))
            assert atom.dst_layout == atom.src_layout == atom.ref_layout
        assert atoms.ld_shared(bits).ptx.startswith("ld.shared") and atoms.st_shared(bits).ptx.startswith("st.shared")
    for nbytes in (4, 8, 16):
        atom = atoms.cp_async(nbytes)
        assert atom.src_layout.size() == 8 * nbytes and f", {nbytes}" in atom.ptx
        typed = atom.bind(16)
        assert typed.num_val_src == 8 * nbytes // 16


# ---------------------------------------------------------------------------- wgmma
def ptx_wgmma_d(tid, i):
    warp, lane = tid // 32, tid % 32
    row = 16 * warp + gid(lane) + (8 if (i % 4) >= 2 else 0)
    col = (i // 4) * 8 + tig(lane) * 2 + (i % 2)
    return row, col


@pytest.mark.parametrize("n", [8, 16, 64, 128, 256])
def test_wgmma_register_fragments_match_ptx(n):
    for a_source in ("smem", "reg"):
        atom = atoms.wgmma(n, "f16", "f32", a_source)
        assert atom.shape_mnk == (64, n, 16)
        c = atom.c_layout
        assert c[0].size() == 128 and c[1].size() == n // 2
        for t in range(128):
            for i in range(n // 2):
                idx = c(t, i)
                assert (idx % 64, idx // 64) == ptx_wgmma_d(t, i)
                assert atom.fragment_coord("C", t, i) == ptx_wgmma_d(t, i)
        if a_source == "reg":
            for t in range(128):
                for i in range(8):
                    idx = atom.a_layout(t, i)
                    assert (idx % 64, idx // 64) == ptx_wgmma_d(t, i)
        else:
            # every thread "sees" the whole 64x16 A tile and Nx16 B tile (descriptor operands)
            for t in (0, 77, 127):
                assert [atom.a_layout(t, v) for v in range(64 * 16)] == list(range(64 * 16))
            with pytest.raises(InstructionError):
                atom.fragment_coord("A", 0, 0)
        assert [atom.b_layout(5, v) for v in range(n * 16)] == list(range(n * 16))

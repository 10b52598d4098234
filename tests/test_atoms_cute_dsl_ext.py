"""The issue-16 atoms against CuTe DSL (nvidia-cutlass-dsl, CPU trace only), a second CuTe oracle.

* warpgroup ``MmaF8Op`` / ``MmaI8Op`` / ``MmaF16BF16Op`` (sm_90a): TV layouts of A (SS and RS), B, C
  for several N, against :func:`layoutalg.atoms.wgmma`;
* the 8-bit ``ldmatrix`` / ``stmatrix`` ops (sm_100a): ``LdMatrix16x16x8bOp`` and ``LdMatrix8x16x8bOp``
  are the raw PTX instructions, so their (register byte -> lane row, byte) pairing must equal
  :class:`~layoutalg.atoms.ldmatrix_b8.B8MatrixForm` (the PTX ISA reading); ``LdMatrix16x8x8bOp``
  is CuTe's byte-permuted wrapper and must equal CuTe C++'s ``SM100_U8x{8,16}_LDSM_T``;
  ``StMatrix16x8x8bOp`` must equal ``SM100_U8x{4,8,16}_STSM_T`` and the PTX form.
"""

from __future__ import annotations

import os
import tempfile

import pytest

from layoutalg import atoms
from layoutalg.atoms.ldmatrix_b8 import B8MatrixForm
from layoutalg.core.layout import Layout

cute = pytest.importorskip("cutlass.cute")
pytestmark = pytest.mark.oracle

WGMMA = [  # (label, dsl op name, a, b, c, n)
    ("f8_e4m3_e5m2_f32", "MmaF8Op", "e4m3", "e5m2", "f32", 8),
    ("f8_e5m2_e5m2_f16", "MmaF8Op", "e5m2", "e5m2", "f16", 24),
    ("f8_e4m3_e4m3_f32", "MmaF8Op", "e4m3", "e4m3", "f32", 256),
    ("i8_s8_u8", "MmaI8Op", "s8", "u8", "s32", 24),
    ("i8_u8_u8", "MmaI8Op", "u8", "u8", "s32", 256),
    ("bf16_f32_n40", "MmaF16BF16Op", "bf16", "bf16", "f32", 40),
]
B8 = [  # (label, dsl op, transpose, num, unpack bits, our form or CuTe C++ atom)
    ("ld16x16_x1_b8", "LdMatrix16x16x8bOp", True, 1, None, B8MatrixForm("ldmatrix", "m16n16", 1, "b8")),
    ("ld16x16_x2_b8", "LdMatrix16x16x8bOp", True, 2, None, B8MatrixForm("ldmatrix", "m16n16", 2, "b8")),
    ("ld16x16_x2_b6", "LdMatrix16x16x8bOp", True, 2, 6, B8MatrixForm("ldmatrix", "m16n16", 2, "b6x16_p32")),
    ("ld16x16_x1_b4", "LdMatrix16x16x8bOp", True, 1, 4, B8MatrixForm("ldmatrix", "m16n16", 1, "b4x16_p64")),
    ("ld8x16_x1_b4", "LdMatrix8x16x8bOp", False, 1, 4, B8MatrixForm("ldmatrix", "m8n16", 1, "b4x16_p64")),
    ("ld8x16_x2_b6", "LdMatrix8x16x8bOp", False, 2, 6, B8MatrixForm("ldmatrix", "m8n16", 2, "b6x16_p32")),
    ("ld8x16_x4_b4", "LdMatrix8x16x8bOp", False, 4, 4, B8MatrixForm("ldmatrix", "m8n16", 4, "b4x16_p64")),
    ("st16x8_x1", "StMatrix16x8x8bOp", True, 1, None, B8MatrixForm("stmatrix", "m16n8", 1)),
    ("st16x8_x2", "StMatrix16x8x8bOp", True, 2, None, B8MatrixForm("stmatrix", "m16n8", 2)),
    ("st16x8_x4", "StMatrix16x8x8bOp", True, 4, None, B8MatrixForm("stmatrix", "m16n8", 4)),
]
PERMUTED = [("ld16x8_x2", "SM100_U8x8_LDSM_T", 2), ("ld16x8_x4", "SM100_U8x16_LDSM_T", 4)]
CUTE_STSM = {"st16x8_x1": "SM100_U8x4_STSM_T", "st16x8_x2": "SM100_U8x8_STSM_T", "st16x8_x4": "SM100_U8x16_STSM_T"}


def _ints(t):
    return tuple(_ints(x) for x in t) if isinstance(t, tuple) else int(t)


def _plain(layout) -> Layout:
    return Layout(_ints(layout.shape), _ints(layout.stride))


def _collect(cutlass, warp, warpgroup, out: dict) -> None:
    major = cute.nvgpu.OperandMajorMode.K
    dtypes = {"e4m3": cutlass.Float8E4M3FN, "e5m2": cutlass.Float8E5M2, "s8": cutlass.Int8, "u8": cutlass.Uint8,
              "bf16": cutlass.BFloat16, "f16": cutlass.Float16, "f32": cutlass.Float32, "s32": cutlass.Int32}
    for label, opname, a, b, c, n in WGMMA:
        k = 16 if opname == "MmaF16BF16Op" else 32
        for src, tag in ((warpgroup.OperandSource.SMEM, "SS"), (warpgroup.OperandSource.RMEM, "RS")):
            cls = getattr(warpgroup, opname)
            if opname == "MmaF16BF16Op":
                op = cls(dtypes[a], dtypes[c], (64, n, k), src, major, major)
            else:
                op = cls(dtypes[a], dtypes[b], dtypes[c], (64, n, k), src, major, major)
            atom = cute.make_mma_atom(op)
            out[(label, tag)] = {x: _plain(getattr(atom, f"tv_layout_{x}")) for x in "ABC"}


def _collect_b8(cutlass, warp, out: dict) -> None:
    for label, opname, trans, num, unpack, _ in B8:
        atom = cute.make_copy_atom(getattr(warp, opname)(trans, num, unpack), cutlass.Uint8)
        out[label] = (_plain(atom.layout_src_tv), _plain(atom.layout_dst_tv))
    for label, _, num in PERMUTED:
        atom = cute.make_copy_atom(warp.LdMatrix16x8x8bOp(True, num), cutlass.Uint8)
        out[label] = (_plain(atom.layout_src_tv), _plain(atom.layout_dst_tv))


def _trace(arch: str, b8: bool) -> dict:
    os.environ.setdefault("CUTE_DSL_CACHE_DIR", tempfile.mkdtemp(prefix="cute_dsl_cache_"))
    import cutlass
    from cutlass.cute.nvgpu import warp, warpgroup
    from cutlass.cute.nvgpu.warpgroup.mma import BaseDSL

    envar = BaseDSL._get_dsl().envar
    envar.arch = arch
    try:
        out: dict = {}

        # two jit functions: the DSL caches a traced function by its source, closure values included
        @cute.jit
        def trace_b8():
            _collect_b8(cutlass, warp, out)

        @cute.jit
        def trace_wgmma():
            _collect(cutlass, warp, warpgroup, out)

        (trace_b8 if b8 else trace_wgmma)()
        return out
    finally:
        del envar.arch


@pytest.fixture(scope="module")
def wgmma_oracle() -> dict:
    return _trace("sm_90a", b8=False)


@pytest.fixture(scope="module")
def b8_oracle() -> dict:
    return _trace("sm_100a", b8=True)


@pytest.mark.parametrize("label,opname,a,b,c,n", WGMMA)
@pytest.mark.parametrize("tag", ["SS", "RS"])
def test_wgmma_fp8_int8_tv_layouts_equal_cute_dsl(wgmma_oracle, label, opname, a, b, c, n, tag):
    ours = atoms.wgmma(n, a, c, "smem" if tag == "SS" else "reg", b=b)
    for op in "ABC":
        dsl = wgmma_oracle[(label, tag)][op]
        assert ours.layout(op).values() == dsl.values(), (ours.name, op)
        assert ours.layout(op)[0].size() == dsl[0].size()


def _pairs(reg_side: Layout, addr_side: Layout) -> dict[tuple[int, int], tuple[int, int]]:
    """(lane, register byte) -> (lane supplying the row, byte in that row), through the reference bytes."""
    where: dict[int, tuple[int, int]] = {}
    for t in range(addr_side[0].size()):
        for e in range(addr_side[1].size()):
            where.setdefault(addr_side(t, e), (t, e))
    return {(t, v): where[reg_side(t, v)] for t in range(32) for v in range(reg_side[1].size())}


@pytest.mark.parametrize("label,opname,trans,num,unpack,form", B8, ids=[b[0] for b in B8])
def test_dsl_8bit_ldmatrix_stmatrix_equal_the_ptx_forms(b8_oracle, label, opname, trans, num, unpack, form):
    src, dst = b8_oracle[label]
    reg_side, addr_side = (dst, src) if form.kind == "ldmatrix" else (src, dst)
    pairs = _pairs(reg_side, addr_side)
    assert len(pairs) == 32 * 4 * form.num_regs
    for (lane, v), (addr_lane, byte_in_row) in pairs.items():
        matrix, row, col = form.fragment_coord(lane, v // 4, v % 4)
        assert (addr_lane, byte_in_row) == (form.row_address_lane(matrix, row), col), (label, lane, v)
    if label in CUTE_STSM:
        typed = atoms.get(CUTE_STSM[label]).bind(8)
        assert typed.val_layout_src.values() == src.values() and typed.val_layout_dst.values() == dst.values()


@pytest.mark.parametrize("label,name,num", PERMUTED)
def test_dsl_16x8_ldmatrix_equals_cute_cpp_permuted_atom(b8_oracle, label, name, num):
    src, dst = b8_oracle[label]
    typed = atoms.get(name).bind(8)
    assert typed.val_layout_src.values() == src.values()
    assert typed.val_layout_dst.values() == dst.values()
    assert typed.val_layout_dst[1].size() == dst[1].size() == 4 * num

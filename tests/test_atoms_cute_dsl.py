"""Differential test of the atoms against CuTe DSL's (nvidia-cutlass-dsl, CPU trace only).

CuTe DSL has the sm80 f16/bf16, tf32 and sm89 fp8 warp MMAs, ldmatrix/stmatrix (16-bit),
and the sm90 warpgroup MMAs; for each, its TV layouts are read inside ``@cute.jit`` and
compared with ours as functions, at every (thread, value).  The GMMA shared-memory layout
atoms of CuTe DSL are the oracle for the descriptor's address function.
"""

from __future__ import annotations

import os
import tempfile

import pytest

from layoutalg import atoms
from layoutalg.atoms.gmma import GmmaDescriptor

cute = pytest.importorskip("cutlass.cute")
pytestmark = pytest.mark.oracle


def _values(layout, size_of=None) -> list[int]:
    """The layout's offsets in index order, via its static shape and stride (vectorised, no per-point trace)."""
    from layoutalg.core.layout import Layout

    return [int(v) for v in Layout(_ints(layout.shape), _ints(layout.stride)).to_numpy()]


def _ints(t):
    return tuple(_ints(x) for x in t) if isinstance(t, tuple) else int(t)


def _run_oracle() -> dict:
    os.environ.setdefault("CUTE_DSL_CACHE_DIR", tempfile.mkdtemp(prefix="cute_dsl_cache_"))
    import cutlass
    from cutlass.cute.nvgpu import warp, warpgroup
    from cutlass.cute.nvgpu.warpgroup.mma import BaseDSL

    envar = BaseDSL._get_dsl().envar
    envar.arch = "sm_90a"  # the warpgroup MMA checks for it; the deleter below restores the default
    try:
        out: dict = {}

        @cute.jit
        def trace():
            _collect(cutlass, warp, warpgroup, out)

        trace()
        return out
    finally:
        del envar.arch


def _collect(cutlass, warp, warpgroup, out: dict) -> None:
    size = cute.size
    f16, bf16, f32 = cutlass.Float16, cutlass.Float16.__class__, cutlass.Float32
    mma_ops = {
        "SM80_16x8x8_F32F16F16F32_TN": warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 8)),
        "SM80_16x8x16_F32F16F16F32_TN": warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16)),
        "SM80_16x8x16_F16F16F16F16_TN": warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float16, (16, 8, 16)),
        "SM80_16x8x8_F16F16F16F16_TN": warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float16, (16, 8, 8)),
        "SM80_16x8x16_F32BF16BF16F32_TN": warp.MmaF16BF16Op(cutlass.BFloat16, cutlass.Float32, (16, 8, 16)),
        "SM80_16x8x8_F32BF16BF16F32_TN": warp.MmaF16BF16Op(cutlass.BFloat16, cutlass.Float32, (16, 8, 8)),
        "SM80_16x8x8_F32TF32TF32F32_TN": warp.MmaTF32Op((16, 8, 8)),
        "SM89_16x8x32_F32E4M3E4M3F32_TN": warp.MmaFP8Op(cutlass.Float8E4M3FN, cutlass.Float32, (16, 8, 32)),
        "SM89_16x8x32_F16E5M2E5M2F16_TN": warp.MmaFP8Op(cutlass.Float8E5M2, cutlass.Float16, (16, 8, 32)),
    }
    del f16, bf16, f32
    for name, op in mma_ops.items():
        atom = cute.make_mma_atom(op)
        out[name] = {k: _values(getattr(atom, f"tv_layout_{k}"), size) for k in "ABC"}
    for trans in (False, True):
        for num in (1, 2, 4):
            for kind, cls in (("ldmatrix", warp.LdMatrix8x8x16bOp), ("stmatrix", warp.StMatrix8x8x16bOp)):
                catom = cute.make_copy_atom(cls(trans, num), cutlass.Float16)
                out[(kind, num, trans)] = {"src": _values(catom.layout_src_tv, size),
                                           "dst": _values(catom.layout_dst_tv, size),
                                           "src_shape": [size(catom.layout_src_tv, mode=[i]) for i in (0, 1)],
                                           "dst_shape": [size(catom.layout_dst_tv, mode=[i]) for i in (0, 1)]}
    major = cute.nvgpu.OperandMajorMode.K
    for n in (8, 64, 256):
        for src, tag in ((warpgroup.OperandSource.SMEM, "SS"), (warpgroup.OperandSource.RMEM, "RS")):
            op = warpgroup.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (64, n, 16), src, major, major)
            atom = cute.make_mma_atom(op)
            out[f"SM90_64x{n}x16_F32F16F16_{tag}"] = {k: _values(getattr(atom, f"tv_layout_{k}"), size) for k in "ABC"}
    kinds = warpgroup.SmemLayoutAtomKind
    for kind in (kinds.K_INTER, kinds.K_SW32, kinds.K_SW64, kinds.K_SW128,
                 kinds.MN_INTER, kinds.MN_SW32, kinds.MN_SW64, kinds.MN_SW128):
        a = warpgroup.make_smem_layout_atom(kind, cutlass.Float16)
        # CuTe DSL names the swizzle of a composed layout ``inner`` and the plain layout ``outer``
        plain = a.outer
        shape = (int(size(plain, mode=[0])), int(size(plain, mode=[1])))
        out[("smem", kind.name)] = {"shape": shape, "str": str(a),
                                    "inner": [[int(plain((m, k))) for k in range(shape[1])] for m in range(shape[0])]}


@pytest.fixture(scope="module")
def oracle() -> dict:
    return _run_oracle()


MMA_NAMES = ["SM80_16x8x8_F32F16F16F32_TN", "SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x16_F16F16F16F16_TN",
             "SM80_16x8x8_F16F16F16F16_TN", "SM80_16x8x16_F32BF16BF16F32_TN", "SM80_16x8x8_F32BF16BF16F32_TN",
             "SM80_16x8x8_F32TF32TF32F32_TN", "SM89_16x8x32_F32E4M3E4M3F32_TN", "SM89_16x8x32_F16E5M2E5M2F16_TN"]


@pytest.mark.parametrize("name", MMA_NAMES)
def test_warp_mma_tv_layouts_equal_cute_dsl(oracle, name):
    atom = atoms.get(name)
    for op in "ABC":
        assert atom.layout(op).values() == oracle[name][op], (name, op)


@pytest.mark.parametrize("n", [8, 64, 256])
@pytest.mark.parametrize("tag", ["SS", "RS"])
def test_wgmma_tv_layouts_equal_cute_dsl(oracle, n, tag):
    name = f"SM90_64x{n}x16_F32F16F16_{tag}"
    atom = atoms.get(name)
    for op in "ABC":
        assert atom.layout(op).values() == oracle[name][op], (name, op)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("kind", ["ldmatrix", "stmatrix"])
def test_matrix_copy_value_layouts_equal_cute_dsl(oracle, kind, num, trans):
    typed = (atoms.ldmatrix if kind == "ldmatrix" else atoms.stmatrix)(num=num, trans=trans, bits=16)
    expected = oracle[(kind, num, trans)]
    assert typed.val_layout_src.values() == expected["src"]
    assert typed.val_layout_dst.values() == expected["dst"]
    assert [typed.val_layout_src[i].size() for i in (0, 1)] == expected["src_shape"]
    assert [typed.val_layout_dst[i].size() for i in (0, 1)] == expected["dst_shape"]


def _swizzle_bytes(byte: int, b: int) -> int:
    """Swizzle<b,4,3> on a byte address, written out: XOR bits [7,7+b) into [4,4+b)."""
    return byte ^ (((byte >> 7) & ((1 << b) - 1)) << 4)


@pytest.mark.parametrize("kind,layout_type,b", [
    ("K_INTER", "INTERLEAVE", 0), ("K_SW32", "B32", 1), ("K_SW64", "B64", 2), ("K_SW128", "B128", 3),
    ("MN_INTER", "INTERLEAVE", 0), ("MN_SW32", "B32", 1), ("MN_SW64", "B64", 2), ("MN_SW128", "B128", 3),
])
def test_descriptor_address_matches_cute_gmma_smem_atoms(oracle, kind, layout_type, b):
    """A 2x2 grid of CuTe's smem atoms (column-major tiling, f16) vs GmmaDescriptor.address.

    The atom's swizzle acts on byte addresses (smem_ptr_flag): CuTe DSL prints S<b,4,3>.
    """
    entry = oracle[("smem", kind)]
    assert f"S<{b},4,3>" in entry["str"]
    am, ak = entry["shape"]
    atom_elems = am * ak
    if kind.startswith("K"):
        # tile (2*am) x (2*ak): atom (i, j) at (i + 2j) * atom_elems;  K-major descriptor
        # interleave: SBO = stride between 8-row groups, LBO = stride between 16-byte K chunks;
        # swizzled: SBO = stride between 8-row groups (LBO unused); K advances inside the row.
        desc = GmmaDescriptor(0, 2 * 2 * atom_elems if layout_type == "INTERLEAVE" else 16, 2 * atom_elems, layout_type)
        ks = range(2 * ak) if layout_type == "INTERLEAVE" else range(ak)  # swizzled: one swizzle row of K
        for m in range(2 * am):
            for k in ks:
                elem = entry["inner"][m % am][k % ak] + atom_elems * ((m // am) + 2 * (k // ak))
                assert desc.address("K", m, k, 16) == _swizzle_bytes(2 * elem, b), (kind, m, k)
    else:
        # MN-major: atom (i, j) at (i + 2j) * atom_elems.  Swizzled: LBO = stride between swizzle-wide MN
        # blocks, SBO = stride between 8-row K groups; interleave: SBO along MN units, LBO along K groups.
        if layout_type == "INTERLEAVE":
            desc = GmmaDescriptor(0, 2 * 2 * atom_elems, 2 * atom_elems, layout_type)
        else:
            desc = GmmaDescriptor(0, 2 * atom_elems, 2 * 2 * atom_elems, layout_type)
        for mn in range(2 * am):
            for k in range(2 * ak):
                elem = entry["inner"][mn % am][k % ak] + atom_elems * ((mn // am) + 2 * (k // ak))
                assert desc.address("MN", mn, k, 16) == _swizzle_bytes(2 * elem, b), (kind, mn, k)

"""Gluon exports are valid Triton layouts: every exported layout compiles in a Gluon kernel for sm_90 on this CPU,
Triton prints exactly our ``#ttg`` text for it, and Triton's own view of it equals layoutalg's:

* distributed layouts: Triton's ``to_linear_layout`` (through Gluon's builder);
* shared layouts: the address code Triton emits (``oracles/triton_llir.py``), because Triton 3.6's
  ``to_linear_layout`` aborts on shared layouts.

Triton's own mma v2/v3 layouts are judged against CuTe's atoms (two independent definitions), Blocked layouts
against Triton's documented definition written here.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import Layout, LayoutError
from layoutalg.interop.triton import distributed_form, from_triton, to_triton, to_triton_text, triton_linear_view
from layoutalg.interop.triton_shared import tile_shape

gl = pytest.importorskip("triton.experimental.gluon.language")

from oracles.gluon_kernels import compile_distributed, compile_shared, ttgir_attributes  # noqa: E402
from oracles.triton_llir import Interpreter  # noqa: E402


def same_function(a: Any, b: Any) -> bool:
    import numpy as np

    return bool(a.size() == b.size() and np.array_equal(np.asarray(a.to_numpy(), dtype=np.int64),
                                                        np.asarray(b.to_numpy(), dtype=np.int64)))


# ----------------------------------------------------------------------------- every atom's TV layout


def _bits16(atom):  # type: ignore[no-untyped-def]
    """16-bit values where they split each thread's bits (CuTe's Copy_Atom<Op, half_t>), else the atom's bits."""
    from layoutalg.errors import LayoutError

    try:
        return atom.bind(16).bits
    except LayoutError:
        return None


def atom_tv_layouts() -> list[tuple[str, Any, tuple[int, int]]]:
    from layoutalg.atoms import catalog
    from layoutalg.atoms.tv import operand_tv

    out = []
    for name in sorted(catalog.names()):
        atom = catalog.get(name)
        operands = ["A", "B", "C"] if hasattr(atom, "c_layout") else ["src", "dst"]
        for operand in operands:
            tv, tile, _ = operand_tv(atom, operand, None if operands[0] == "A" else _bits16(atom))
            out.append((f"{name}.{operand}", tv, tile))
    return out


ATOM_TVS = atom_tv_layouts()
MUST_EXPORT = ["SM80_16x8x16_F32F16F16F32_TN.A", "SM80_16x8x16_F32F16F16F32_TN.B", "SM80_16x8x16_F32F16F16F32_TN.C",
               "SM75_U32x4_LDSM_N.dst", "SM75_U16x8_LDSM_T.dst", "SM90_U32x4_STSM_N.src",
               "SM90_64x128x16_F32F16F16_SS.C", "SM90_64x64x16_F16F16F16_RS.A"]


def distinct_atom_tvs() -> dict[tuple[str, tuple[int, int]], tuple[list[str], Any, tuple[int, int]]]:
    """Every atom operand's TV layout, once per distinct (layout, tile), with the names sharing it (the 1056
    wgmma atoms share a few dozen accumulator and operand layouts)."""
    out: dict[tuple[str, tuple[int, int]], tuple[list[str], Any, tuple[int, int]]] = {}
    for name, tv, tile in ATOM_TVS:
        out.setdefault((str(tv), tile), ([], tv, tile))[0].append(name)
    return out


DISTINCT_TVS = distinct_atom_tvs()


def test_every_atom_tv_layout_round_trips_or_is_refused_with_a_reason() -> None:
    exported = set()
    for names, tv, tile in DISTINCT_TVS.values():
        try:
            obj = to_triton(tv, tile=tile)
        except LayoutError as exc:
            assert any(w in str(exc) for w in ("whole warps", "linear", "outside", "reaches", "power of two")), (names, exc)
            continue
        assert isinstance(obj, gl.DistributedLinearLayout)
        assert same_function(from_triton(obj), tv), names
        assert same_function(la.parse(to_triton_text(tv, tile=tile)), tv), names
        exported.update(names)
    missing = [n for n in MUST_EXPORT if n not in exported]
    assert not missing, missing
    assert len(exported) >= 100, len(exported)


def distinct_exports() -> dict[int, list[tuple[Any, Any, tuple[int, int]]]]:
    """Exported atom layouts grouped by warps, one per distinct (bases, shape)."""
    groups: dict[int, dict[str, tuple[Any, Any, tuple[int, int]]]] = {}
    for _, tv, tile in DISTINCT_TVS.values():
        try:
            form = distributed_form(tv, tile)
        except LayoutError:
            continue
        groups.setdefault(form.num_warps, {}).setdefault(form.text() + str(form.shape), (tv, to_triton(tv, tile=tile),
                                                                                         tile))
    return {w: list(v.values()) for w, v in groups.items()}


def test_exported_distributed_layouts_compile_for_sm90_and_triton_reads_them_as_we_do() -> None:
    groups = distinct_exports()
    assert set(groups) >= {1, 4}
    for warps, items in groups.items():
        compiled = compile_distributed([(obj, tile) for _, obj, tile in items], warps)
        assert "cubin" in compiled.asm and ".target sm_90" in compiled.asm["ptx"]
        printed = ttgir_attributes(compiled.asm["ttgir"])
        for tv, obj, tile in items:
            assert to_triton_text(tv, tile=tile) in printed  # Triton prints exactly our text for it
            theirs = triton_linear_view(obj, tile)  # Triton's own linear view of the exported object
            assert same_function(from_triton(theirs), tv)


# ----------------------------------------------------------------------------- Triton's own distributed layouts


@pytest.mark.parametrize("n", [8, 64, 256])
def test_triton_mma_v3_is_cutes_wgmma_accumulator(n: int) -> None:
    from layoutalg.atoms import catalog
    from layoutalg.atoms.tv import operand_tv

    cute_tv, tile, _ = operand_tv(catalog.get(f"SM90_64x{n}x16_F32F16F16_SS"), "C")
    mma = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, n, 16])
    assert same_function(from_triton(mma, shape=tile), cute_tv)
    text = f"#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, {n}, 16]}}>"
    assert same_function(from_triton(text, shape=tile), cute_tv)


def test_triton_mma_v2_is_cutes_m16n8_accumulator() -> None:
    from layoutalg.atoms import catalog
    from layoutalg.atoms.tv import operand_tv

    cute_tv, tile, _ = operand_tv(catalog.get("SM80_16x8x16_F32F16F16F32_TN"), "C")
    mma = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8])
    assert same_function(from_triton(mma, shape=tile), cute_tv)


def blocked_definition(spt: list[int], tpw: list[int], wpc: list[int], order: list[int]) -> tuple[Layout, Any]:
    """Triton's BlockedLayout over exactly its tile, from its definition: per dim, register ``r_d``, lane ``l_d``
    and warp ``w_d`` (each index split over the dims fastest-first in ``order``) give row/col
    ``r_d + spt_d * (l_d + tpw_d * w_d)``; returns the TV function as (thread + T*value) -> m + M*n values."""
    shape = [s * t * w for s, t, w in zip(spt, tpw, wpc)]

    def split(index: int, extents: list[int]) -> list[int]:
        out = [0, 0]
        for d in order:
            out[d] = index % extents[d]
            index //= extents[d]
        return out

    threads, values = 32 * wpc[0] * wpc[1], spt[0] * spt[1]
    table = []
    for v in range(values):
        for t in range(threads):
            lane, warp, reg = split(t % 32, tpw), split(t // 32, wpc), split(v, spt)
            m, n = (reg[d] + spt[d] * (lane[d] + tpw[d] * warp[d]) for d in range(2))
            table.append(m + shape[0] * n)
    return table, shape  # type: ignore[return-value]


@pytest.mark.parametrize("spt, tpw, wpc, order", [
    ([1, 8], [4, 8], [4, 1], [1, 0]), ([2, 2], [8, 4], [1, 2], [0, 1]), ([4, 1], [2, 16], [2, 2], [1, 0])])
def test_blocked_layouts_read_as_their_definition(spt: list[int], tpw: list[int], wpc: list[int],
                                                  order: list[int]) -> None:
    table, shape = blocked_definition(spt, tpw, wpc, order)
    ours = from_triton(gl.BlockedLayout(spt, tpw, wpc, order), shape=tuple(shape))
    assert [int(v) for v in ours.to_numpy()] == table


# ----------------------------------------------------------------------------- shared layouts


def gmma_cases() -> list[tuple[str, Any, int, str]]:
    """Every GMMA atom and element width, tiled as CuTe's tile_to_shape does (M first, then K).

    Triton's NVMMA layout repeats its 8-row tile along the strided dim first, then the contiguous one: for
    K-major atoms that is M then K (CuTe's order); for MN-major atoms it is K then M, so an MN atom tiled along
    M *and* K is not NVMMA (CuTe puts M first).  Triton's unswizzled NVMMA keeps whole rows of dim1 contiguous
    (transposed or not), so a K-major INTER atom tiled along K is not NVMMA either (exported as
    SharedLinearLayout), and MN-major INTER atoms are column-major tiles (SwizzledSharedLayout, order [0, 1]).
    """
    from layoutalg.atoms.smem import tile_to_shape

    cases = []
    for major in ("K", "MN"):
        for kind in ("INTER", "SW32", "SW64", "SW128"):
            for dtype, bits in (("f16", 16), ("e4m3", 8), ("tf32", 32)):
                atom = la.parse(f"Layout_{major}_{kind}_Atom<{dtype}>")
                m, k = la.shape(atom)
                extents = (m, 2 * k) if major == "MN" else ((2 * m, k) if kind == "INTER" else (2 * m, 2 * k))
                expect = "swizzled" if (major, kind) == ("MN", "INTER") else "nvmma"
                cases.append((f"{major}_{kind}<{dtype}>", tile_to_shape(atom, extents), bits, expect))
    for name, extents in (("MN_SW128", (128, 16)), ("K_INTER", (16, 16))):
        atom = la.parse(f"Layout_{name[:-len(name.split('_')[-1]) - 1]}_{name.split('_')[-1]}_Atom<f16>")
        cases.append((f"{name}<f16> tiled along M and K", tile_to_shape(atom, extents), 16, "linear"))
    return cases


SHARED_CASES = gmma_cases()
SHARED_CASES += [
    ("Sw<2,2,3> row-major f32", la.parse("Sw<2,2,3> o 0 o (32,32):(32,1)"), 32, "swizzled"),
    ("Sw<1,3,4> col-major f16", la.parse("Sw<1,3,4> o 0 o (64,16):(1,64)"), 16, "swizzled"),
    ("row-major f16: unswizzled NVMMA", la.parse("(16,64):(64,1)"), 16, "nvmma"),
    # unswizzled NVMMA is row-major at any shape, fewer than 8 rows or narrower than 16 bytes too
    ("row-major, 4 rows f16", la.parse("(4,64):(64,1)"), 16, "nvmma"),
    ("row-major, 4-byte rows f16", la.parse("(32,2):(2,1)"), 16, "nvmma"),
    ("row-major, 2 rows f32", la.parse("(2,64):(64,1)"), 32, "nvmma"),
    ("padded rows f16", la.parse("(64,64):(72,1)"), 16, "padded"),
    ("padded columns f32", la.parse("(32,16):(1,40)"), 32, "padded"),
    ("padded two levels f16", la.parse("((8,8),64):((72,640),1)"), 16, "padded"),
    ("row-permuted padded f16", la.parse("((2,32),64):((2304,72),1)"), 16, "padded"),
    ("128B rows tiled f16", la.parse("((8,8),(64,2)):((64,512),(1,4096))"), 16, "linear"),
    ("permuted rows f16", la.parse("((2,2,2,2),64):((128,64,512,256),1)"), 16, "linear"),
    ("Sw<1,0,7> row-major f16: per_phase 2", la.parse("Sw<1,0,7> o 0 o (16,64):(64,1)"), 16, "swizzled"),
    # Triton builds NVMMA over a TMA box of at most 256 elements per dim: unswizzled rows of 512 are two boxes side
    # by side, so a row-major tile that wide is no NVMMA layout (and the two-box one is)
    ("row-major, 512 columns f16: not NVMMA", la.parse("(4,512):(512,1)"), 16, "swizzled"),
    ("two 256-column boxes f16: unswizzled NVMMA", la.parse("(4,(256,2)):(256,(1,1024))"), 16, "nvmma"),
]


def triton_memory(interp: Interpreter, lines: list[int], bits: int) -> dict[int, int]:
    memory = interp.memory(lines[0], bits)
    if bits == 8:
        high = interp.memory(lines[1], bits)
        memory = {o: v | (high[o] << 8) for o, v in memory.items()}
    return memory


def test_exported_shared_layouts_compile_for_sm90_and_match_tritons_addresses() -> None:
    items, expected = [], []
    for name, layout, bits, kind in SHARED_CASES:
        obj = to_triton(layout, dtype=bits)
        assert type(obj).__name__.lower().startswith({"nvmma": "nvmmashared", "swizzled": "swizzledshared",
                                                      "padded": "paddedshared", "linear": "sharedlinear"}[kind]), name
        items.append((obj, tile_shape(layout), bits))
        expected.append((name, layout, bits))
    compile_and_compare_shared(items, expected)


def compile_and_compare_shared(items: list[Any], expected: list[tuple[str, Any, int]], addresses: bool = True) -> None:
    """Compile the exports in kernels of ten; Triton must print our text and (``addresses``) address every element
    as we do, read off its LLVM IR by :class:`oracles.triton_llir.Interpreter`."""
    for start in range(0, len(items), 10):
        chunk = items[start:start + 10]
        compiled = compile_shared(chunk)
        assert "cubin" in compiled.asm
        printed = ttgir_attributes(compiled.asm["ttgir"])
        for name, layout, bits in expected[start:start + 10]:
            assert to_triton_text(layout, dtype=bits) in printed, name
        if not addresses:
            continue
        interp = Interpreter(compiled.asm["llir"], 32 * compiled.num_warps)
        interp.run()
        for k, (name, layout, bits) in enumerate(expected[start:start + 10]):
            n = tile_shape(layout)[1]
            memory = triton_memory(interp, compiled.lines[f"b{k}"], bits)
            assert len(memory) == layout.size(), name
            assert all(layout(*divmod(v, n)) == offset for offset, v in memory.items()), name
            assert same_function(from_triton(chunk[k][0], shape=tile_shape(layout)), layout), name


def test_nvmma_layouts_past_one_tma_box_are_read_as_triton_addresses_them() -> None:
    """Triton makes an NVMMA layout over a TMA box (at most 256 elements per dim) and then repeats it: unswizzled,
    along the last dim first; swizzled, along dim 0 first, also when ``transposed`` (dim 0 contiguous), so a
    transposed layout with more than 256 elements along dim 1 takes dim 0's extra bits first."""
    made = [(gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=16), (4, 512), 16),
            (gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32), (2, 1024), 32),
            (gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=16, transposed=True), (2, 512), 16),
            (gl.NVMMASharedLayout(swizzle_byte_width=32, element_bitwidth=16, transposed=True), (32, 512), 16),
            (gl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=32), (512, 32), 32)]
    compiled = compile_shared(made)
    interp = Interpreter(compiled.asm["llir"], 32 * compiled.num_warps)
    interp.run()
    for k, (obj, shape, bits) in enumerate(made):
        ours = from_triton(obj, shape=shape)
        memory = triton_memory(interp, compiled.lines[f"b{k}"], bits)
        assert len(memory) == ours.size()
        assert all(ours(*divmod(v, shape[1])) == offset for offset, v in memory.items()), (obj, shape)


def test_rank_3_shared_layouts_are_read_as_triton_addresses_them() -> None:
    """NVMMA (its leading dims collapsed into rows; ``transposed``, dim 0 contiguous) and swizzled layouts (the dims
    after ``order[1]`` unswizzled, in ``order``) of rank 3, each element checked at Triton's own address."""
    from oracles.gluon_kernels import compile_shared_3d

    def nvmma(width: int, bits: int, transposed: bool = False) -> Any:
        return gl.NVMMASharedLayout(swizzle_byte_width=width, element_bitwidth=bits, rank=3, transposed=transposed)

    made = [(nvmma(128, 16), (2, 8, 64), 16), (nvmma(128, 16), (4, 4, 64), 16), (nvmma(64, 32), (2, 16, 32), 32),
            (nvmma(128, 16, True), (64, 2, 8), 16), (nvmma(32, 16, True), (32, 4, 32), 16),
            (nvmma(0, 16), (2, 2, 512), 16), (nvmma(0, 16, True), (4, 2, 16), 16),
            (gl.SwizzledSharedLayout(vec=4, per_phase=2, max_phase=4, order=[2, 1, 0]), (2, 16, 32), 16),
            (gl.SwizzledSharedLayout(vec=2, per_phase=1, max_phase=8, order=[0, 2, 1]), (32, 4, 16), 32),
            (gl.SwizzledSharedLayout(vec=8, per_phase=1, max_phase=4, order=[1, 0, 2]), (8, 64, 2), 16)]
    compiled = compile_shared_3d(made)
    interp = Interpreter(compiled.asm["llir"], 32 * compiled.num_warps)
    interp.run()
    for k, (obj, (a, b, c), bits) in enumerate(made):
        ours = from_triton(obj, shape=(a, b, c))
        memory = interp.memory(compiled.lines[f"b{k}"][0], bits)
        assert len(memory) == ours.size() == a * b * c
        assert all(ours(v // (b * c), v // c % b, v % c) == offset for offset, v in memory.items()), (obj, (a, b, c))
    with pytest.raises(LayoutError, match="rank 2"):
        from_triton(gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16), shape=(2, 8, 64))


RANK_3_EXPORTS = [
    ("row-major f16: unswizzled NVMMA", "(2,16,32):(512,32,1)", 16, "nvmma"),
    ("Sw<2,2,4> row-major f16: swizzled, order [2, 1, 0]", "Sw<2,2,4> o 0 o (2,16,32):(512,32,1)", 16, "swizzled"),
    ("Sw<3,1,4> f32: swizzled, order [0, 2, 1]", "Sw<3,1,4> o 0 o (32,4,16):(1,512,32)", 32, "swizzled"),
    ("Sw<2,3,3> f16: swizzled, order [1, 0, 2]", "Sw<2,3,3> o 0 o (8,64,2):(64,1,512)", 16, "swizzled"),
    ("transposed 128B NVMMA f16", "Sw<3,3,3> o 0 o (64,2,(2,4)):(1,256,(512,64))", 16, "nvmma"),
    ("padded f16, order [2, 0, 1]", "(4,8,32):(36,144,1)", 16, "padded"),
    ("XOR of dims 1 and 2 f32", "Sw<1,0,3> o 0 o (4,4,2):(2,8,1)", 32, "linear"),
]


def test_rank_3_smem_layouts_export_compile_and_match_tritons_addresses() -> None:
    """Rank-3 smem layouts were refused ("rank 1 or 2"); they export as the narrowest Triton encoding (NVMMA of
    rank 3, swizzled in any dim order, padded, linear), which compiles, prints as our text (NVMMA with
    ``rank = 3``) and puts every element where the layout does."""
    from oracles.gluon_kernels import compile_shared_3d

    kinds = {"nvmma": "NVMMASharedLayout", "swizzled": "SwizzledSharedLayout", "padded": "PaddedSharedLayout",
             "linear": "SharedLinearLayout"}
    made = []
    for name, text, bits, kind in RANK_3_EXPORTS:
        layout = la.parse(text)
        obj = to_triton(layout, dtype=bits)
        assert type(obj).__name__ == kinds[kind], (name, obj)
        made.append((obj, tile_shape(layout), bits))
    compiled = compile_shared_3d(made)
    printed = ttgir_attributes(compiled.asm["ttgir"])
    interp = Interpreter(compiled.asm["llir"], 32 * compiled.num_warps)
    interp.run()
    for k, (name, text, bits, _) in enumerate(RANK_3_EXPORTS):
        layout = la.parse(text)
        a, b, c = tile_shape(layout)
        assert to_triton_text(layout, dtype=bits) in printed, name
        memory = interp.memory(compiled.lines[f"b{k}"][0], bits)
        assert len(memory) == layout.size()
        assert all(layout(v // (b * c), v // c % b, v % c) == offset for offset, v in memory.items()), name
        assert same_function(from_triton(made[k][0], shape=(a, b, c)), layout), name
        assert same_function(from_triton(to_triton_text(layout, dtype=bits), shape=(a, b, c)), layout), name


def test_shared_layouts_triton_makes_itself_are_read_as_triton_addresses_them() -> None:
    made = [(gl.NVMMASharedLayout.get_default_for([64, 64], gl.float16), (64, 64), 16),
            (gl.NVMMASharedLayout.get_default_for([32, 64], gl.float8e4nv, transposed=True), (32, 64), 8),
            (gl.NVMMASharedLayout(swizzle_byte_width=32, element_bitwidth=32, rank=2), (16, 32), 32),
            (gl.SwizzledSharedLayout(vec=8, per_phase=2, max_phase=4, order=[1, 0]), (64, 64), 16),
            (gl.SwizzledSharedLayout(vec=2, per_phase=1, max_phase=8, order=[0, 1]), (32, 16), 32),
            (gl.PaddedSharedLayout.with_identity_for([[32, 4]], [32, 32], [0, 1]), (32, 32), 16)]
    compiled = compile_shared(made)
    interp = Interpreter(compiled.asm["llir"], 32 * compiled.num_warps)
    interp.run()
    for k, (obj, shape, bits) in enumerate(made):
        ours = from_triton(obj, shape=shape)
        memory = triton_memory(interp, compiled.lines[f"b{k}"], bits)
        assert len(memory) == ours.size()
        assert all(ours(*divmod(v, shape[1])) == offset for offset, v in memory.items()), obj


def test_generated_linear_padded_and_odd_swizzled_layouts_are_read_as_triton_addresses_them() -> None:
    """Triton's SharedLinearLayout with mixed (XOR) bases, PaddedSharedLayout with permuted bases and one or two
    interval-padding pairs, and SwizzledSharedLayout with parameters no GMMA atom has (vec 3, max_phase 5, ...):
    seeded random ones, each element at Triton's own address (their lowering uses vector ops and bitreverse)."""
    import random

    rng = random.Random(2026)

    def units(shape: tuple[int, int]) -> list[list[int]]:
        out = [[1 << k, 0] for k in range(shape[0].bit_length() - 1)] + \
              [[0, 1 << k] for k in range(shape[1].bit_length() - 1)]
        rng.shuffle(out)
        return out

    made = []
    for k in range(12):
        shape = (1 << rng.randint(1, 6), 1 << rng.randint(1, 6))
        bits = rng.choice([16, 32])
        if k % 3 == 0:
            bases = units(shape)
            mixed = [bases[0]] + [[a ^ b for a, b in zip(v, bases[j - 1])] if rng.random() < 0.3 else v
                                  for j, v in enumerate(bases[1:], 1)]
            obj: Any = gl.SharedLinearLayout(offset_bases=mixed)
        elif k % 3 == 1:
            pairs = [[1 << rng.randint(1, 8), 1 << rng.randint(0, 3)]]
            if rng.random() < 0.5:
                pairs.append([pairs[0][0] << rng.randint(1, 3), 1 << rng.randint(0, 2)])
            obj = gl.PaddedSharedLayout(pairs, units(shape), [], list(shape))
        else:
            obj = gl.SwizzledSharedLayout(vec=rng.randint(1, 9), per_phase=rng.randint(1, 5), max_phase=rng.randint(1, 9),
                                          order=rng.choice([[1, 0], [0, 1]]))
        made.append((obj, shape, bits))
    compiled = compile_shared(made)
    interp = Interpreter(compiled.asm["llir"], 32 * compiled.num_warps)
    interp.run()
    for k, (obj, shape, bits) in enumerate(made):
        ours = from_triton(obj, shape=shape)
        memory = interp.memory(compiled.lines[f"b{k}"][0], bits)
        assert len(memory) == ours.size()
        assert all(ours(*divmod(v, shape[1])) == offset for offset, v in memory.items()), (obj, shape)


def test_the_address_oracle_sees_a_wrong_layout() -> None:
    right = la.parse("Sw<3,3,3> o 0 o (64,64):(64,1)")
    wrong = la.parse("Sw<3,4,3> o 0 o (64,64):(64,1)")
    compiled = compile_shared([(to_triton(right, dtype="f16"), (64, 64), 16)])
    interp = Interpreter(compiled.asm["llir"], 32 * compiled.num_warps)
    interp.run()
    memory = triton_memory(interp, compiled.lines["b0"], 16)
    assert sum(wrong(*divmod(v, 64)) != offset for offset, v in memory.items()) > 1000


# ----------------------------------------------------------------------------- round trips and refusals (no compile)


@st.composite
def smem_layouts(draw: Any) -> Any:
    """Rank-2 power-of-two bijections (modes' strides a permutation of the compact ones), maybe swizzled or padded."""
    bits = draw(st.integers(2, 10))
    row_bits = draw(st.integers(1, bits - 1))
    order = draw(st.permutations(list(range(bits))))
    strides = [1 << order[k] for k in range(bits)]
    layout = Layout((tuple([2] * row_bits), tuple([2] * (bits - row_bits))),
                    (tuple(strides[:row_bits]), tuple(strides[row_bits:])))
    kind = draw(st.sampled_from(["plain", "swizzled", "padded"]))
    if kind == "swizzled":
        b = draw(st.integers(1, 3))
        m = draw(st.integers(0, bits - 2 * b)) if bits >= 2 * b else 0
        s = draw(st.integers(b, max(b, bits - m - b)))
        assume(m + s + b <= bits)
        return la.make_composed_layout(la.make_swizzle(b, m, s), 0, layout)
    if kind == "padded":
        inner = Layout((1 << row_bits, 1 << (bits - row_bits)), (1 << (bits - row_bits), 1))
        pad = 1 << draw(st.integers(0, 3))
        return Layout(inner.shape, ((1 << (bits - row_bits)) + pad, 1))
    return layout


@settings(max_examples=120, deadline=None, derandomize=True)
@given(smem_layouts(), st.sampled_from(["f16", "e4m3", "f32", "f64"]))
def test_smem_layouts_round_trip_through_gluon_and_text(layout: Any, dtype: str) -> None:
    shape = tile_shape(layout)
    obj = to_triton(layout, dtype=dtype)
    assert same_function(from_triton(obj, shape=shape), layout)
    assert same_function(from_triton(to_triton_text(layout, dtype=dtype), shape=shape), layout)


@st.composite
def tv_layouts(draw: Any) -> tuple[Any, tuple[int, int]]:
    """A TV layout that is a linear bijection onto an M x N tile: 32 * 2**w threads, 2**v values."""
    warps, values = draw(st.integers(0, 2)), draw(st.integers(0, 3))
    bits = 5 + warps + values
    order = draw(st.permutations(list(range(bits))))
    strides = [1 << order[k] for k in range(bits)]
    thread_bits = 5 + warps
    tv = Layout((tuple([2] * thread_bits), tuple([2] * values) if values else 1),
                (tuple(strides[:thread_bits]), tuple(strides[thread_bits:]) if values else 0))
    m_bits = draw(st.integers(0, bits))
    return tv, (1 << m_bits, 1 << (bits - m_bits))


@settings(max_examples=120, deadline=None, derandomize=True)
@given(tv_layouts())
def test_tv_layouts_round_trip_through_gluon_and_text(case: tuple[Any, tuple[int, int]]) -> None:
    tv, tile = case
    obj = to_triton(tv, tile=tile)
    assert len(obj.warp_bases) == tv[0].size().bit_length() - 6  # warps follow from the thread count
    assert same_function(from_triton(obj), tv)
    assert same_function(from_triton(to_triton_text(tv, tile=tile)), tv)


@pytest.mark.parametrize("tv, tile, words", [
    (Layout((32, 4), (3, 96)), (16, 24), "power of two"),
    (Layout((32, 4), (1, 64)), (16, 16), "reaches"),
    (Layout((32, 2), (1, 33)), (8, 16), "linear"),
    (Layout((16, 4), (1, 16)), (8, 8), "whole warps"),
    (Layout((32, 4), (1, 32)), (8, 8), "outside"),
])
def test_tv_exports_refuse_what_triton_cannot_hold(tv: Layout, tile: tuple[int, int], words: str) -> None:
    with pytest.raises(LayoutError, match=words):
        to_triton(tv, tile=tile)


@pytest.mark.parametrize("layout, words", [
    (Layout((8, 8), (1, 0)), "injective"),
    (Layout((8, 8), (8, -1)), "negative"),
    (Layout((8, 8), (11, 1)), "holes"),  # padding 3: not a power of two
    (Layout((3, 8), (8, 1)), "power of two"),
    # padded, its unpadded order XORs a row bit into a column bit: Triton aborts on such a PaddedSharedLayout
    (la.parse("Sw<1,1,5> o _0 o ((2,1,4),(2,16)):((16,24,64),(256,1))"), "at most one dim"),
])
def test_smem_exports_refuse_what_triton_cannot_hold(layout: Layout, words: str) -> None:
    with pytest.raises(LayoutError, match=words):
        to_triton(layout, dtype="f16")
    with pytest.raises(LayoutError, match=words):
        to_triton_text(layout, dtype="f16")


def test_a_padded_layout_moving_a_basis_in_two_dims_is_refused_on_reading() -> None:
    """Triton requires each offset basis of a PaddedSharedLayout to move in one dim (it aborts otherwise); such a
    layout was exported (and failed to read back: 'neither affine nor linear')."""
    mixed = gl.PaddedSharedLayout([[32, 32]], [[0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 4], [4, 0], [0, 1]], [],
                                  [8, 32])
    with pytest.raises(LayoutError, match="at most one dim"):
        from_triton(mixed, shape=(8, 32))


def test_a_padded_layout_read_over_another_shape_than_its_own_is_refused() -> None:
    """A PaddedSharedLayout carries its shape; read over another one it was silently the 32 x 32 layout."""
    padded = gl.PaddedSharedLayout.with_identity_for([[32, 4]], [32, 32], [1, 0])
    text = "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [32, 32]}>"
    for obj in (padded, text):
        assert same_function(from_triton(obj, shape=(32, 32)), Layout((32, 32), (36, 1)))
        with pytest.raises(LayoutError, match=r"over shape \[32, 32\], not \[64, 64\]"):
            from_triton(obj, shape=(64, 64))


def test_shared_layouts_past_the_element_limit_are_read_through_their_bit_matrix() -> None:
    """A 2**32-element NVMMA, a 2**30-element swizzled layout, a 2**41-element SharedLinearLayout: read element by
    element they raised MemoryError or ran for minutes; they are read through the inverse of their offset bases
    (checked here at random offsets: the element Triton's bases put there maps back to that offset).  A padded
    layout that large is refused."""
    import random
    import time

    from layoutalg.interop.triton_shared import apply_bases, nvmma_bases, swizzled_bases

    rng = random.Random(7)
    cases = [(gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16), (1 << 16, 1 << 16),
              nvmma_bases((1 << 16, 1 << 16), 128, 16, False)),
             (gl.SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8, order=[1, 0]), (1 << 15, 1 << 15),
              swizzled_bases((1 << 15, 1 << 15), 8, 1, 8, [1, 0])),
             (gl.SharedLinearLayout([[0, 1]] + [[1 << k, 1] for k in range(40)]), (1 << 40, 2),
              [[0, 1]] + [[1 << k, 1] for k in range(40)])]
    for obj, shape, bases in cases:
        start = time.perf_counter()
        ours = from_triton(obj, shape=shape)
        assert time.perf_counter() - start < 5
        assert bases is not None
        for _ in range(200):
            offset = rng.randrange(shape[0] * shape[1])
            m, n = apply_bases(bases, offset, 2)
            assert ours(m, n) == offset, (obj, offset)
    padded = gl.PaddedSharedLayout.with_identity_for([[64, 8]], [1 << 12, 1 << 12], [1, 0])
    with pytest.raises(LayoutError, match="element by element"):
        from_triton(padded, shape=(1 << 12, 1 << 12))


def test_reading_needs_a_shape_where_the_layout_has_none() -> None:
    with pytest.raises(LayoutError, match="shape"):
        from_triton(gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16))
    with pytest.raises(LayoutError, match="shape"):
        from_triton(gl.BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0]))
    with pytest.raises(LayoutError, match="several CTAs"):
        from_triton(gl.DistributedLinearLayout([], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [], [[32, 0]], [64, 1]))


# ----------------------------------------------------------------------------- generated exports compile too


def generated_smem_layouts(count: int, seed: int) -> list[tuple[str, Any, int]]:
    """Seeded random layouts of :func:`smem_layouts`' kinds (plain, swizzled, padded) with an element width."""
    import random

    rng = random.Random(seed)
    out: dict[str, tuple[str, Any, int]] = {}
    while len(out) < count:
        bits = rng.randint(4, 10)
        row_bits = rng.randint(1, bits - 1)
        order = rng.sample(range(bits), bits)
        strides = [1 << o for o in order]
        layout: Any = Layout((tuple([2] * row_bits), tuple([2] * (bits - row_bits))),
                             (tuple(strides[:row_bits]), tuple(strides[row_bits:])))
        kind = rng.choice(["plain", "swizzled", "padded"])
        if kind == "swizzled":
            b = rng.randint(1, 3)
            if 2 * b > bits:
                continue
            m = rng.randint(0, bits - 2 * b)
            s = rng.randint(b, max(b, bits - m - b))
            if m + s + b > bits:
                continue
            layout = la.make_composed_layout(la.make_swizzle(b, m, s), 0, layout)
        elif kind == "padded":
            layout = Layout((1 << row_bits, 1 << (bits - row_bits)),
                            ((1 << (bits - row_bits)) + (1 << rng.randint(0, 3)), 1))
        element = rng.choice([8, 16, 32])
        out.setdefault(to_triton_text(layout, dtype=element), (f"generated {kind} {layout} b{element}", layout, element))
    return list(out.values())


def test_generated_shared_exports_compile_for_sm90_and_match_tritons_addresses() -> None:
    """All compile, print as we write them, and Triton addresses every element as we do (8-bit ones too: their
    address code uses the vector operations the IR oracle runs)."""
    cases = generated_smem_layouts(20, seed=16)
    assert {bits for _, _, bits in cases} == {8, 16, 32}
    compile_and_compare_shared([(to_triton(layout, dtype=bits), tile_shape(layout), bits) for _, layout, bits in cases],
                               cases)


def test_generated_tv_exports_compile_for_sm90_and_triton_reads_them_as_we_do() -> None:
    import random

    rng = random.Random(16)
    groups: dict[int, list[tuple[Any, Any, tuple[int, int]]]] = {}
    for _ in range(24):  # 32 * 2**w threads, 2**v values, a random bijection onto a random M x N tile
        warps, values = rng.randint(0, 2), rng.randint(0, 3)
        bits = 5 + warps + values
        order = rng.sample(range(bits), bits)
        strides = [1 << o for o in order]
        thread_bits = 5 + warps
        tv = Layout((tuple([2] * thread_bits), tuple([2] * values) if values else 1),
                    (tuple(strides[:thread_bits]), tuple(strides[thread_bits:]) if values else 0))
        m_bits = rng.randint(0, bits)
        tile = (1 << m_bits, 1 << (bits - m_bits))
        groups.setdefault(1 << warps, []).append((tv, to_triton(tv, tile=tile), tile))
    assert set(groups) == {1, 2, 4}
    for warps, items in groups.items():
        compiled = compile_distributed([(obj, tile) for _, obj, tile in items], warps)
        assert "cubin" in compiled.asm and ".target sm_90" in compiled.asm["ptx"]
        printed = ttgir_attributes(compiled.asm["ttgir"])
        for tv, obj, tile in items:
            assert to_triton_text(tv, tile=tile) in printed
            assert same_function(from_triton(triton_linear_view(obj, tile)), tv)


def test_tv_layouts_over_rank_3_tiles_export_compile_and_triton_reads_them_as_we_do() -> None:
    """A TV layout onto an M x N x K tile (index m + M*n + M*N*k) was refused ("tile must be (M, N)"); it exports as a
    rank-3 DistributedLinearLayout that compiles, prints as our text, and reads back through Triton's own view."""
    import random

    from oracles.gluon_kernels import compile_distributed_3d

    rng = random.Random(3)
    groups: dict[int, list[tuple[Any, Any, tuple[int, int, int]]]] = {}
    for _ in range(12):
        warps, values = rng.randint(0, 2), rng.randint(0, 3)
        bits = 5 + warps + values
        order = rng.sample(range(bits), bits)
        strides = [1 << o for o in order]
        thread_bits = 5 + warps
        tv = Layout((tuple([2] * thread_bits), tuple([2] * values) if values else 1),
                    (tuple(strides[:thread_bits]), tuple(strides[thread_bits:]) if values else 0))
        a = rng.randint(0, bits)
        b = rng.randint(0, bits - a)
        tile = (1 << a, 1 << b, 1 << (bits - a - b))
        groups.setdefault(1 << warps, []).append((tv, to_triton(tv, tile=tile), tile))
    for warps, items in groups.items():
        compiled = compile_distributed_3d([(obj, tile) for _, obj, tile in items], warps)
        printed = ttgir_attributes(compiled.asm["ttgir"])
        for tv, obj, tile in items:
            assert to_triton_text(tv, tile=tile) in printed
            assert same_function(from_triton(triton_linear_view(obj, tile)), tv)
            assert same_function(from_triton(to_triton_text(tv, tile=tile), shape=tile), tv)


def test_numpy_extents_are_extents() -> None:
    """A shape or tile of numpy integers (or a numpy array) was refused as 'must be a positive power of two, got
    np.int64(32)'; numpy integers are integers here as everywhere in layoutalg."""
    import numpy as np

    blocked = gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    want = from_triton(blocked, shape=(32, 16))
    for shape in ((np.int64(32), np.int64(16)), np.array([32, 16]), [np.int32(32), 16]):
        assert same_function(from_triton(blocked, shape=shape), want)
    smem = gl.SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8, order=[1, 0])
    assert same_function(la.as_layout(smem, shape=np.array([64, 64])), from_triton(smem, shape=(64, 64)))
    tv = la.parse("((4,8),(2,2)):((32,1),(16,8))")
    assert to_triton(tv, tile=(np.int64(16), 8)) == to_triton(tv, tile=(16, 8))
    assert to_triton_text(tv, tile=np.array([16, 8])) == to_triton_text(tv, tile=(16, 8))
    with pytest.raises(LayoutError, match="power of two"):
        from_triton(blocked, shape=(True, 16))


def test_a_linear_layout_listing_its_out_dims_out_of_order_is_read_by_their_names() -> None:
    """Triton's LinearLayout names its out dims; listed as [dim1, dim0] (each basis then [dim1, dim0]) the same map
    was read with dim1 fastest, another TV layout.  Judged by Triton's own apply: the TV layout's value at
    (thread, value) is m + M*n of the (dim0, dim1) Triton gives there."""
    linear = pytest.importorskip("triton._C.libtriton.linear_layout")
    lane = [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2]]
    listed = {"dim0-first": (["dim0", "dim1"], [("register", [[0, 4]]), ("lane", lane), ("warp", [[3, 1]])]),
              "dim1-first": (["dim1", "dim0"], [("register", [[4, 0]]), ("lane", [[b, a] for a, b in lane]),
                                                ("warp", [[1, 3]])])}
    for name, (outs, bases) in listed.items():
        theirs = linear.LinearLayout.from_bases(bases, outs, [8, 8], require_surjective=False)
        for ours in (from_triton(theirs), la.parse(str(theirs))):
            for value in range(2):
                for thread in range(64):
                    out = theirs.apply({"register": value, "lane": thread % 32, "warp": thread // 32})
                    assert ours(thread + 64 * value) == out["dim0"] + 8 * out["dim1"], (name, thread, value)

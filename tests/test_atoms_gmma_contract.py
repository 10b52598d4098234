"""wgmma atoms (layoutalg.atoms.gmma.make_gmma) against the PTX ISA: m64nNkK with K 16 (f16/bf16), 8 (tf32), 32
(e4m3/e5m2, s8/u8); N a multiple of 8 up to 256 (s8/u8: 8, 16, 24, then multiples of 16); sm_90a; a warpgroup of
128 threads; the accumulator D fragment: warp w holds rows 16w.., value i of a lane at row
16w + groupID + 8*((i >> 1) & 1), col 8*(i >> 2) + 2*tig + (i & 1)."""

from __future__ import annotations

import dataclasses

import pytest

from layoutalg.atoms.gmma import GMMA_NS, GMMA_NS_INT8, make_gmma, parse_gmma_name
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError

K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}


def test_n_ranges_are_the_ptx_isas() -> None:
    assert GMMA_NS == tuple(range(8, 257, 8))
    assert GMMA_NS_INT8 == (8, 16, 24, *range(32, 257, 16))


@pytest.mark.parametrize("a, c", [("f16", "f32"), ("f16", "f16"), ("bf16", "f32"), ("tf32", "f32"), ("e4m3", "f16"),
                                  ("s8", "s32")])
def test_an_atom_names_its_shape_types_and_arch_as_ptx_and_cute_do(a: str, c: str) -> None:
    atom = make_gmma(64, a, c=c)
    k = K[a]
    assert atom.shape_mnk == (64, 64, k) and atom.arch == 90 and atom.num_threads == 128
    assert atom.thr_id.size() == 128 and not atom.saturate and atom.a_source == "smem"
    assert atom.ptx == f"wgmma.mma_async.sync.aligned.m64n64k{k}.{c}.{a}.{a}"
    assert (atom.a_type, atom.b_type, atom.c_type, atom.d_type) == (a, a, c, c)
    assert parse_gmma_name(atom.name) == (64, a, a, c, "smem", False)
    reg = make_gmma(64, a, c=c, a_source="reg")
    assert reg.name == atom.name.replace("_SS", "_RS") and reg.a_source == "reg"


@pytest.mark.parametrize("n", [8, 24, 136, 256])
def test_the_accumulator_fragment_is_the_ptx_wgmma_d_layout(n: int) -> None:
    atom = make_gmma(n)
    tv = atom.layout("D")
    assert tv[1].size() == n // 2
    for t in range(128):
        w, lane = divmod(t, 32)
        g, tig = lane >> 2, lane % 4
        for i in range(n // 2):
            row, col = 16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * tig + (i & 1)
            assert tv(t, i) == row + 64 * col, (t, i)


def test_saturating_integer_atoms_say_satfinite() -> None:
    atom = make_gmma(32, "s8", "u8", "s32", saturate=True)
    assert atom.saturate and atom.ptx.endswith(".s32.s8.u8.satfinite") and atom.name.endswith("_SATURATE")
    assert parse_gmma_name(atom.name) == (32, "s8", "u8", "s32", "smem", True)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=40, a="s8", c="s32"), "wgmma m64nNk32 .s8: N must be one of 8, 16, 24, 32, 48"),
    (dict(n=12), "wgmma m64nNk16 .f16: N must be one of 8, 16, 24"),
    (dict(n=264), "N must be one of"),
    (dict(n=64, a_source="tmem"), "a_source must be 'smem' or 'reg', got 'tmem'"),
    (dict(n=64, saturate=True), r"saturate \(.satfinite\) exists only for s8/u8 wgmma, not .f16"),
    (dict(n=64, saturate=1), "wgmma saturate must be True or False, got 1"),
    (dict(n=64, a=16), "wgmma a must be a str such as 'f16', got 16"),
    (dict(n=64, a="f17"), "wgmma operand type: "),
    (dict(n=64, a="f16", c="s32"), "no wgmma takes a='f16', b='f16', c='s32'"),
    (dict(n=64, a="bf16", c="f16"), "no wgmma takes"),
])
def test_make_gmma_refuses_what_ptx_has_not_naming_the_argument(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(InstructionError, match=match):
        make_gmma(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("operand", ["E", "AB", 0])
def test_an_operand_other_than_a_b_c_d_is_refused(operand: object) -> None:
    with pytest.raises(InstructionError, match="operand must be 'A', 'B', 'C' or 'D', got"):
        make_gmma(8).layout(operand)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["SM90_64x64x8_F32F16F16_SS", "SM90_64x64x16_F32F16F16_XX", "SM80_64x64x16_F32F16F16_SS",
                                  "SM90_64x64x32_S32S8S8_SS", "SM90_64x64x16_F32F16F16_SS_TN"])
def test_a_name_that_is_no_cute_gmma_atom_parses_to_none(name: str) -> None:
    assert parse_gmma_name(name) is None


def test_an_atom_built_without_arch_or_saturate_is_a_plain_sm_90a_wgmma() -> None:
    from layoutalg.atoms.gmma import GmmaAtom

    a = make_gmma(16)
    bare = GmmaAtom(a.name, a.ptx, a.shape_mnk, a.thr_id, a.a_layout, a.b_layout, a.c_layout, a.a_type, a.b_type,
                    a.c_type, a.d_type, a.a_source)
    assert bare == a and bare.arch == 90 and bare.saturate is False


def test_a_wgmma_atom_prints_its_name_ptx_and_cute_layouts() -> None:
    # cute/atom/mma_traits_sm90_gmma.hpp: ALayout = BLayout = ABLayout<64, 16> = (_128,(_64,_16)):(_0,(_1,_64)),
    # CLayout_64x64 = ((_4,_8,_4),(_2,_2,_8)):((_128,_1,_16),(_64,_8,_512))
    assert str(make_gmma(64)) == (
        "SM90_64x64x16_F32F16F16_SS (wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16): A (128,(64,16)):(0,(1,64)), "
        "B (128,(64,16)):(0,(1,64)), C ((4,8,4),(2,2,8)):((128,1,16),(64,8,512))")


def test_a_warpgroup_thread_index_past_127_is_refused() -> None:
    atom = make_gmma(64)
    assert atom.fragment_coord("C", 127, 0) == (55, 6)  # thread 127: warp 3, lane 31 -> row 16 * 3 + 31 // 4, col 2 * (31 % 4)
    with pytest.raises(InstructionError, match=r"tid must be in \[0, 128\), got 128"):
        atom.fragment_coord("C", 128, 0)


def test_wgmma_atoms_are_immutable_values() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        make_gmma(64).a_source = "reg"  # type: ignore[misc]


def _ptx_wgmma_fragment(tid: int, i: int, k: int) -> int:
    """PTX ISA wgmma register fragments as row + 64 * col: D (and A of K 16) for k = 16, A of .tf32 (K 8) and of
    the 8-bit types (K 32); warp w of the warpgroup owns rows 16w .. 16w + 15, groupID = lane / 4."""
    row, t = 16 * (tid // 32) + (tid % 32) // 4, tid % 4
    if k == 16:
        row, col = row + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1)
    elif k == 8:
        row, col = row + 8 * (i & 1), t + 4 * (i >> 1)
    else:
        row, col = row + 8 * ((i >> 2) & 1), 16 * (i >> 3) + 4 * t + (i & 3)
    return row + 64 * col


@pytest.mark.parametrize("n", [8, 24, 64, 256])
def test_the_accumulator_layout_is_the_ptx_d_fragment(n: int) -> None:
    c = make_gmma(n).c_layout
    assert c[0].size() == 128 and c[1].size() == n // 2  # 64 x N accumulators over a warpgroup
    assert all(c(t, i) == _ptx_wgmma_fragment(t, i, 16) for t in range(128) for i in range(n // 2))


@pytest.mark.parametrize("a, k", [("tf32", 8), ("f16", 16), ("e4m3", 32)])
def test_a_register_a_operand_is_the_ptx_a_fragment_and_smem_operands_are_whole_tiles(a: str, k: int) -> None:
    rs, ss = make_gmma(64, a, a_source="reg"), make_gmma(64, a)
    assert rs.a_layout[0].size() == 128 and rs.a_layout[1].size() == 64 * k // 128
    assert all(rs.a_layout(t, i) == _ptx_wgmma_fragment(t, i, k) for t in range(128) for i in range(64 * k // 128))
    # smem A and B: every thread of the warpgroup names the whole tile, column-major (CuTe ABLayout<MN, K>)
    for lay, mn in ((ss.a_layout, 64), (ss.b_layout, 64), (rs.b_layout, 64)):
        assert lay == Layout((128, (mn, k)), (0, (1, mn)))


@pytest.mark.parametrize("n", [n for n in GMMA_NS if (n // 2) % 8 == 4])
def test_the_fitted_accumulator_layout_of_an_n_with_4_times_odd_registers_holds_exactly_n_over_2_values(n: int) -> None:
    """PTX ISA (wgmma D fragments): each of the 128 threads holds N/2 f32 accumulators; for N/2 = 4 * odd the
    fitted ``(thread, value)`` layout is not a power of two in its values and must not round them up."""
    layout = make_gmma(n).ptx_layout("C")
    assert layout.size() == 128 * (n // 2)
    assert Layout(layout.shape[1]).size() == n // 2  # type: ignore[index]

"""The ``layoutalg`` command through a subprocess: every subcommand, --json, pictures, and error paths.

Expected values come from formulas written here (row-major offsets, the PTX ISA
fragment tables, the swizzle bit formula), not from running layoutalg.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, cwd: Path | None = None, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="120")
    return subprocess.run([sys.executable, "-m", "layoutalg", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=timeout)


def cli_json(*args: str, expect: int = 0, cwd: Path | None = None) -> Any:
    proc = cli(*args, "--json", cwd=cwd)
    assert proc.returncode == expect, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def swizzle333(offset: int) -> int:
    return offset ^ ((offset >> 3) & 0b111000)


# ----------------------------------------------------------------------------- help and usage


def test_help_lists_every_subcommand_with_examples() -> None:
    proc = cli("--help")
    assert proc.returncode == 0
    for name in ("show", "banks", "prove", "suggest-swizzle", "gpu-check", "convert", "atoms"):
        assert name in proc.stdout
    assert "examples:" in proc.stdout and "layoutalg show '(8,8):(8,1)'" in proc.stdout


def test_help_does_not_import_heavy_modules() -> None:
    code = ("import sys\nfrom layoutalg.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('z3', 'numpy', 'PIL', 'cupy', 'sympy') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("sub", ["show", "banks", "suggest-swizzle", "convert", "atoms"])
def test_subcommand_help(sub: str) -> None:
    proc = cli(sub, "--help")
    assert proc.returncode == 0 and "--json" in proc.stdout


def test_no_subcommand_prints_help_and_exits_2() -> None:
    proc = cli()
    assert proc.returncode == 2 and "COMMAND" in proc.stdout


def test_unknown_subcommand_exits_2() -> None:
    proc = cli("shwo", "(2,2):(1,2)")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


def test_version() -> None:
    proc = cli("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("layoutalg ")


# ----------------------------------------------------------------------------- show


def test_show_row_major_table() -> None:
    proc = cli("show", "(4,8):(8,1)")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if "|" in line]
    assert len(rows) == 4
    for m, line in enumerate(rows):
        cells = [c.strip() for c in line.split("|")[1:-1]]
        assert cells == [str(8 * m + n) for n in range(8)]


def test_show_json_values_for_every_notation() -> None:
    for text in ("(4,8):(8,1)", "Layout<Shape<_4,_8>,Stride<_8,_1>>", "(_4,_8):(_8,_1)"):
        data = cli_json("show", text)
        assert data["values"] == [[8 * m + n for n in range(8)] for m in range(4)]
        assert data["size"] == 32 and data["cosize"] == 32


def test_show_swizzled_smem_atom() -> None:
    data = cli_json("show", "Sw<3,3,3> o 0 o (8,64):(64,1)")
    assert data["values"] == [[swizzle333(64 * m + n) for n in range(64)] for m in range(8)]


def test_show_writes_pictures(tmp_path: Path) -> None:
    from PIL import Image

    png, svg, tex = tmp_path / "l.png", tmp_path / "l.svg", tmp_path / "l.tex"
    proc = cli("show", "(4,8):(8,1)", "--png", str(png), "--svg", str(svg), "--tikz", str(tex))
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {png}" in proc.stdout
    with Image.open(png) as image:
        width, height = image.size
    root = ET.fromstring(svg.read_text())
    assert (width, height) == (int(root.get("width") or 0), int(root.get("height") or 0))
    assert tex.read_text().count("\\node[fill=") == 32


def test_show_tv_of_custom_layout_json() -> None:
    # mma.m16n8k16 A: lane l, element i -> row g + 8*((i>>1)&1), col 2*(l%4) + (i&1) + 8*(i>>2), g = l>>2.
    data = cli_json("show", "--tv", "((4,8),(2,2,2)):((32,1),(16,8,128))", "--tile", "16x16")
    cells = data["operands"][0]["cells"]
    for lane in range(32):
        for i in range(8):
            row = (lane >> 2) + 8 * ((i >> 1) & 1)
            col = 2 * (lane % 4) + (i & 1) + 8 * (i >> 2)
            assert cells[row][col] == f"T{lane}V{i}"


def test_show_tv_mma_atom_png(tmp_path: Path) -> None:
    from PIL import Image

    out = tmp_path / "c.png"
    data = cli_json("show", "--tv", "SM80_16x8x16_F32F16F16F32_TN", "--operand", "C", "--png", str(out))
    cells = data["operands"][0]["cells"]
    # PTX ISA m16n8 C/D fragment: c_i at row g + 8*(i>>1), col 2*(l%4) + (i&1).
    for lane in range(32):
        for i in range(4):
            assert cells[(lane >> 2) + 8 * (i >> 1)][2 * (lane % 4) + (i & 1)] == f"T{lane}V{i}"
    with Image.open(out) as image:
        assert image.size[0] > 8 * 36 and image.size[1] > 16 * 36


def test_show_tv_single_a_operand_is_drawn_m_by_k() -> None:
    data = cli_json("show", "--tv", "SM80_16x8x16_F32F16F16F32_TN", "--operand", "A")
    cells = data["operands"][0]["cells"]
    # PTX ISA m16n8k16 A fragment: a_i of lane l at row (l>>2) + 8*((i>>1)&1), col 2*(l%4) + (i&1) + 8*(i>>2).
    for lane in range(32):
        for i in range(8):
            assert cells[(lane >> 2) + 8 * ((i >> 1) & 1)][2 * (lane % 4) + (i & 1) + 8 * (i >> 2)] == f"T{lane}V{i}"


def test_show_tv_all_operands_write_one_file_each(tmp_path: Path) -> None:
    proc = cli("show", "--tv", "SM80_16x8x16_F32F16F16F32_TN", "--svg", str(tmp_path / "mma.svg"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mma_A.svg", "mma_B.svg", "mma_C.svg"]
    # B is drawn K x N: b_i of lane l at row 2*(l%4) + (i&1) + 8*(i>>1), col l>>2.
    root = ET.fromstring((tmp_path / "mma_B.svg").read_text())
    ns = "{http://www.w3.org/2000/svg}"
    labels = [g.find(ns + "text").text for g in root.findall(ns + "g")]  # type: ignore[union-attr]
    assert len(labels) == 16 * 8
    for lane in range(32):
        for i in range(4):
            assert labels[(2 * (lane % 4) + (i & 1) + 8 * (i >> 1)) * 8 + (lane >> 2)] == f"T{lane}V{i}"


def test_show_tv_ldmatrix_rows() -> None:
    data = cli_json("show", "--tv", "SM75_U32x4_LDSM_N", "--operand", "dst", "--dtype", "f16")
    cells = data["operands"][0]["cells"]
    # PTX ldmatrix (no .trans): lane l holds, in register r, row l//4, cols 2*(l%4), +1 of matrix r.
    assert len(cells) == 32 and len(cells[0]) == 8
    for lane in range(32):
        for r in range(4):
            for half in range(2):
                assert cells[8 * r + lane // 4][2 * (lane % 4) + half] == f"T{lane}V{2 * r + half}"


# ----------------------------------------------------------------------------- show: errors


def test_show_unparseable_layout_hints_the_notation() -> None:
    proc = cli("show", "(4,8:(8,1)")
    assert proc.returncode == 2
    assert "cannot read LAYOUT" in proc.stderr and "hint:" in proc.stderr and "'(8,64):(64,1)'" in proc.stderr


def test_show_error_as_json() -> None:
    data = cli_json("show", "Layout<Shape<_8,int>>", expect=2)
    assert "dynamic" in data["error"] and data["type"] == "UsageError" and "shape:stride" in data["hint"]


def test_show_rank3_suggests_grouping() -> None:
    proc = cli("show", "(4,8,2):(1,4,32)")
    assert proc.returncode == 2 and "((4,8),2):((1,4),32)" in proc.stderr


def test_show_without_layout() -> None:
    proc = cli("show")
    assert proc.returncode == 2 and "layoutalg show '(8,8):(8,1)'" in proc.stderr


def test_show_tv_notation_needs_tile() -> None:
    proc = cli("show", "--tv", "(32,4):(4,1)")
    assert proc.returncode == 2 and "--tile" in proc.stderr
    proc = cli("show", "--tv", "(32,4):(4,1)", "--tile", "16")
    assert proc.returncode == 2 and "MxN" in proc.stderr


def test_show_tv_unknown_atom_suggests_names() -> None:
    proc = cli("show", "--tv", "SM80_16x8x16_F32F16F16F32_NT")
    assert proc.returncode == 2
    assert "SM80_16x8x16_F32F16F16F32_TN" in proc.stderr and "layoutalg atoms" in proc.stderr


def test_show_tv_bad_operand() -> None:
    proc = cli("show", "--tv", "SM80_16x8x16_F32F16F16F32_TN", "--operand", "src")
    assert proc.returncode == 2 and "--operand A or B or C" in proc.stderr


def test_show_unwritable_picture(tmp_path: Path) -> None:
    proc = cli("show", "(2,2):(1,2)", "--svg", str(tmp_path / "no" / "x.svg"))
    assert proc.returncode == 2 and "cannot write" in proc.stderr


def test_unknown_dtype_suggests() -> None:
    proc = cli("show", "--tv", "(32,4):(4,1)", "--tile", "8x16", "--dtype", "f61")
    assert proc.returncode == 2 and "unknown dtype" in proc.stderr and "f16" in proc.stderr


# ----------------------------------------------------------------------------- convert and atoms


def test_convert_every_form() -> None:
    data = cli_json("convert", "(8,64):(64,1)")
    assert data["cpp"] == "Layout<Shape<_8,_64>,Stride<_64,_1>>"
    assert data["dsl"] == "(8,64):(64,1)"
    assert data["cute"] == "(8,64):(64,1)"
    proc = cli("convert", "Layout<Shape<_8,_64>,Stride<_64,_1>>", "--to", "cute")
    assert proc.stdout.strip() == "(8,64):(64,1)"
    proc = cli("convert", "S<3,3,3> o 0 o (8,64):(64,1)", "--to", "cpp")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ComposedLayout<Swizzle<3,3,3>,_0,Layout<Shape<_8,_64>,Stride<_64,_1>>>"


def test_convert_bad_target() -> None:
    proc = cli("convert", "(8,64):(64,1)", "--to", "rust")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


def test_atoms_lists_catalog() -> None:
    names = cli_json("atoms", "LDSM")
    assert "SM75_U32x4_LDSM_N" in names and "SM75_U16x8_LDSM_T" in names
    assert all("LDSM" in n for n in names)


# ----------------------------------------------------------------------------- delegated commands


def test_prove_missing_path() -> None:
    proc = cli("prove", "no/such/dir")
    assert proc.returncode != 0 and "no/such/dir" in (proc.stdout + proc.stderr)


def test_gpu_check_without_gpu_says_why() -> None:
    try:
        import cupy  # noqa: F401

        pytest.skip("CuPy present: the GPU path is tested by the gpu tests")
    except ImportError:
        pass
    proc = cli("gpu-check")
    assert proc.returncode == 2 and "cupy" in (proc.stdout + proc.stderr).lower()


def test_convert_triton_both_ways() -> None:
    # The mma.m16n8 C fragment (PTX ISA): register bit 0 -> column +1, bit 1 -> row +8; lane bits 0, 1 ->
    # columns +2, +4; lane bits 2, 3, 4 -> rows +1, +2, +4 (lane = 4 * row + column / 2).
    proc = cli("convert", "((4,8),(2,2)):((32,1),(16,8))", "--tile", "16x8", "--to", "triton")
    assert proc.returncode == 0, proc.stderr
    attribute = proc.stdout.strip()
    assert attribute == ("#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
                         "warp = [], block = []}>")
    assert cli("convert", attribute, "--to", "cute").stdout.strip() == "((4,8),(2,2)):((32,1),(16,8))"
    # A shared-memory layout needs its element type; without --dtype or --tile Triton's form is refused.
    swizzled = cli("convert", "Sw<3,3,3> o 0 o (8,64):(64,1)", "--dtype", "f16", "--to", "triton")
    assert swizzled.stdout.strip() == \
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
    assert cli("convert", "(8,8):(8,1)", "--to", "triton").returncode == 2
    proc = cli("convert", "(3,8):(8,1)", "--dtype", "f16", "--to", "triton")
    assert proc.returncode == 2 and "power of two" in proc.stderr


# ----------------------------------------------------------------------------- banks
# Expected counts are the textbook facts the bank issue states (not outputs of our model):
# a 64-column fp16 row-major tile read by ldmatrix.x4 is 8-way conflicted (32 wavefronts per instruction),
# Swizzle<3,3,3> makes it conflict-free (4); a 32x32 fp32 column read is 32-way; padding to 33 fixes it.


def test_banks_ldmatrix_row_major_is_8_way() -> None:
    data = cli_json("banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix.x4")
    assert data["instruction"] == "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
    assert len(data["instructions"]) == 16  # (64/16) x (64/16) blocks
    assert all(i["wavefronts"] == 32 and i["ideal"] == 4 for i in data["instructions"])
    assert data["conflict_free"] is False
    # Lane l of block (r0, c0) addresses row r0 + l % 16, column c0 + 8 * (l / 16): byte 2 * (64 * row + col).
    first = data["instructions"][5]  # block row 1, block column 1 -> r0 = 16, c0 = 16
    assert first["byte_addresses"] == [2 * (64 * (16 + lane % 16) + 16 + 8 * (lane // 16)) for lane in range(32)]
    assert data["worst"]["phases"][0]["words_per_bank"][:4] == [8, 8, 8, 8]


def test_banks_swizzle_makes_ldmatrix_conflict_free() -> None:
    data = cli_json("banks", "Sw<3,3,3> o 0 o (64,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix.x4.trans")
    assert data["instruction"] == "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
    assert all(i["wavefronts"] == 4 for i in data["instructions"]) and data["conflict_free"] is True


def test_banks_column_read_and_padding() -> None:
    data = cli_json("banks", "(32,32):(32,1)", "--dtype", "f32", "--access", "ld.shared", "--by", "column")
    assert data["instruction"] == "ld.shared.b32"
    assert all(i["wavefronts"] == 32 for i in data["instructions"])
    padded = cli_json("banks", "(32,32):(33,1)", "--dtype", "f32", "--access", "ld.shared.b32", "--by", "column")
    assert all(i["wavefronts"] == 1 for i in padded["instructions"])


def test_banks_text_report_names_the_conflict_bits() -> None:
    proc = cli("banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix.x4")
    assert proc.returncode == 0, proc.stderr
    assert "16 instructions: 512 wavefronts, ideal 64, excess 448" in proc.stdout
    # Rows are 128 bytes apart, so colliding rows differ in address bits 7, 8, 9 (rows 0..7 of a phase).
    assert "address bits [7, 8, 9]" in proc.stdout


def test_banks_expect_conflict_free_exit_status() -> None:
    assert cli("banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix.x4", "--expect-conflict-free").returncode == 1
    ok = cli("banks", "Sw<3,3,3> o 0 o (64,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix.x4", "--expect-conflict-free")
    assert ok.returncode == 0


def test_banks_heatmap_png(tmp_path: Path) -> None:
    from PIL import Image

    out = tmp_path / "heat.png"
    proc = cli("banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix.x4", "--png", str(out), "--svg",
               str(tmp_path / "heat.svg"))
    assert proc.returncode == 0, proc.stderr
    with Image.open(out) as image:
        assert image.size[1] > 4 * 36  # 4 phases
    root = ET.fromstring((tmp_path / "heat.svg").read_text())
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(ns + "g")) == 4 * 32


@pytest.mark.parametrize(
    "args, words",
    [
        (["(64,64):(64,1)", "--dtype", "f16", "--access", "cp.async.cg.shared.global"], "cp.async"),
        (["(60,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix.x4"], "16x16"),
        (["(64,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix"], "how many matrices"),
        (["(64,64):(64,1)", "--dtype", "half16", "--access", "ldmatrix.x4"], "unknown dtype"),
        (["(64,64):(64,1)", "--dtype", "f16", "--access", "ld.global.b32"], "shared"),
        (["(30,64):(64,1)", "--dtype", "f32", "--access", "ld.shared.b32", "--by", "column"], "multiples of 32"),
    ],
)
def test_banks_errors(args: list[str], words: str) -> None:
    proc = cli("banks", *args)
    assert proc.returncode == 2 and words in proc.stderr, proc.stderr


def test_banks_missing_options() -> None:
    proc = cli("banks", "(64,64):(64,1)")
    assert proc.returncode == 2 and "--dtype" in proc.stderr and "--access" in proc.stderr


def sw128_bytes(byte_address: int) -> int:
    """GMMA 128-byte swizzle on byte addresses (PTX ISA): bits [7,10) XORed into bits [4,7)."""
    return byte_address ^ ((byte_address >> 3) & 0b1110000)


def test_show_smem_atom_by_name() -> None:
    data = cli_json("show", "Layout_K_SW128_Atom", "--dtype", "bf16")
    # 8 rows of 128 bytes (64 bf16): element (m, k) at byte sw128(128 m + 2 k).
    assert data["values"] == [[sw128_bytes(128 * m + 2 * k) // 2 for k in range(64)] for m in range(8)]
    tiled = cli_json("show", "Layout_K_SW128_Atom", "--dtype", "bf16", "--tile-to", "16x64")
    assert tiled["values"] == [[sw128_bytes(128 * m + 2 * k) // 2 for k in range(64)] for m in range(16)]


def test_smem_atom_errors() -> None:
    proc = cli("show", "Layout_K_SW128_Atom")
    assert proc.returncode == 2 and "--dtype" in proc.stderr
    proc = cli("show", "Layout_K_SW129_Atom", "--dtype", "f16")
    assert proc.returncode == 2 and "did you mean Layout_K_SW128_Atom" in proc.stderr
    proc = cli("banks", "Layout_K_SW128_Atom", "--dtype", "bf16", "--tile-to", "60x64", "--access", "ldmatrix.x4")
    assert proc.returncode == 2 and "cannot tile" in proc.stderr


def test_banks_on_a_tiled_gmma_atom_is_conflict_free() -> None:
    data = cli_json("banks", "Layout_K_SW128_Atom", "--dtype", "bf16", "--tile-to", "64x64", "--access", "ldmatrix.x4")
    assert len(data["instructions"]) == 16 and all(i["wavefronts"] == 4 for i in data["instructions"])


# ----------------------------------------------------------------------------- suggest-swizzle


def swizzle(bits: int, base: int, shift: int, offset: int) -> int:
    """CuTe Swizzle<B,M,S> (S > 0): bits [M+S, M+S+B) XORed into [M, M+B)."""
    return offset ^ ((offset >> shift) & (((1 << bits) - 1) << base))


def test_suggest_swizzle_for_64_column_fp16_ldmatrix() -> None:
    data = cli_json("suggest-swizzle", "--shape", "64x64", "--dtype", "f16", "--access", "ldmatrix.x4")
    assert data["conflict_free"] is True and data["padding"] == 0
    sw = data["swizzle"]
    # Independent check: in every 8-lane phase of every ldmatrix.x4 of the sweep, the 8 row addresses fall in
    # 8 different 16-byte bank groups (address / 16 mod 8), which is what a 16-byte-per-lane phase needs.
    for r0 in range(0, 64, 16):
        for c0 in range(0, 64, 16):
            for phase in range(4):
                groups = set()
                for lane in range(8 * phase, 8 * phase + 8):
                    row, col = r0 + lane % 16, c0 + 8 * (lane // 16)
                    byte = 2 * swizzle(sw["bits"], sw["base"], sw["shift"], 64 * row + col)
                    groups.add((byte // 16) % 8)
                assert len(groups) == 8
    assert sw["bits"] == 3  # three row bits must be spread: Swizzle<3,3,3> or an equally cheap 3-bit swizzle


def test_suggest_swizzle_text_and_errors() -> None:
    proc = cli("suggest-swizzle", "--shape", "48x48", "--dtype", "f16", "--access", "ldmatrix.x4")
    assert proc.returncode == 0 and proc.stdout.startswith("suggestion: ") and "conflict-free" in proc.stdout
    proc = cli("suggest-swizzle", "--shape", "48x40", "--dtype", "f16", "--access", "ldmatrix.x4")
    assert proc.returncode == 2 and "16x16" in proc.stderr
    proc = cli("suggest-swizzle", "--shape", "64", "--dtype", "f16", "--access", "ldmatrix.x4")
    assert proc.returncode == 2 and "MxN" in proc.stderr


def test_show_formula() -> None:
    data = cli_json("show", "(8,64):(64,1)", "--formula")
    assert data["formula"] == "f(i, j) = 64*i + j" and "latex" in data
    proc = cli("show", "Sw<3,3,3> o 0 o (8,64):(64,1)", "--formula")
    assert proc.returncode == 0 and "XOR" in proc.stdout


def test_usage_errors_are_json_with_json_and_suggest_the_command() -> None:
    data = cli_json("banks", "(64,64):(64,1)", expect=2)
    assert "--dtype" in data["error"] and "layoutalg banks --help" in data["hint"]
    proc = cli("shwo", "(2,2):(1,2)")
    assert proc.returncode == 2 and "did you mean show?" in proc.stderr


def test_global_json_flag_before_the_command() -> None:
    proc = cli("--json", "convert", "(2,2):(1,2)")
    assert proc.returncode == 0 and json.loads(proc.stdout)["cpp"] == "Layout<Shape<_2,_2>,Stride<_1,_2>>"


def test_banks_cp_async_cg_needs_and_uses_the_global_pitch() -> None:
    tile = "Sw<3,3,3> o 0 o (64,64):(64,1)"
    proc = cli("banks", tile, "--dtype", "f16", "--access", "cp.async.cg", "--global-ld", "4096", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["instruction"] == "cp.async.cg.shared.global"
    assert (out["wavefronts"], out["ideal"]) == (64, 64)
    padded = json.loads(cli("banks", tile, "--dtype", "f16", "--access", "cp.async.cg", "--global-ld", "72",
                            "--json").stdout)
    assert padded["wavefronts"] > 64  # 144-byte global rows straddle 128-byte lines
    missing = cli("banks", tile, "--dtype", "f16", "--access", "cp.async.cg")
    assert missing.returncode == 2 and "--global-ld" in missing.stderr
    overlapping = cli("banks", tile, "--dtype", "f16", "--access", "cp.async.cg", "--global-ld", "60")
    assert overlapping.returncode == 2 and "hint: give --global-ld 64 or more" in overlapping.stderr


@pytest.mark.parametrize("layout, access, extra", [
    ("(32,32):(32,1)", "ld.shared", ["--dtype", "f32", "--by", "column"]),
    ("Sw<3,3,3> o 0 o (64,64):(64,1)", "ldmatrix.x4", ["--dtype", "f16"]),
    ("(64,64):(64,1)", "cp.async.ca.4", ["--dtype", "f16", "--global-ld", "64", "--by", "column"]),
])
def test_banks_json_totals_are_named_as_in_analysis_to_json(layout: str, access: str, extra: list[str]) -> None:
    # one spelling for the totals, "total" and "total_ideal", in Python and on the command line; the CLI's older
    # "wavefronts" / "ideal" stay as aliases of them
    from layoutalg import Layout
    from layoutalg.banks import analyze
    from layoutalg.banks.instruction import expand_short_form

    data = cli_json("banks", layout, "--access", access, *extra)
    dtype = extra[extra.index("--dtype") + 1]
    by = extra[extra.index("--by") + 1] if "--by" in extra else "row"
    glob = ((64, 64), (64, 1)) if "--global-ld" in extra else None
    ins = expand_short_form(access, 4 if dtype == "f32" else 2)
    analysis = analyze(layout, ins, dtype, by=by, global_layout=None if glob is None else Layout(*glob))
    want = analysis.to_json()
    for key in ("total", "total_ideal", "excess", "conflict_free"):
        assert data[key] == want[key], key
    assert (data["wavefronts"], data["ideal"]) == (data["total"], data["total_ideal"])
    assert data["total"] == sum(i["wavefronts"] for i in data["instructions"])


def test_banks_cp_async_ca_is_costed_with_its_global_side() -> None:
    # 4-byte copies down the columns of a 64x64 fp16 tile from 128-byte global rows: every lane of an
    # instruction reads the same global bank of a different line and writes the same shared bank: 32 each
    column = cli_json("banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "cp.async.ca.4", "--global-ld", "64",
                      "--by", "column")
    assert column["instruction"] == "cp.async.ca.shared.global, 4"
    assert {i["wavefronts"] for i in column["instructions"]} == {32} and column["ideal"] == 64
    rows = cli_json("banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "cp.async.ca.16", "--global-ld", "64")
    assert rows["wavefronts"] == rows["ideal"] == 64
    text = cli("banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "cp.async.ca.4", "--global-ld", "64",
               "--by", "column").stdout
    assert "lane 0 waits for 31 lanes" in text


def test_suggest_swizzle_covers_cp_async_fills() -> None:
    data = cli_json("suggest-swizzle", "--shape", "64x64", "--dtype", "f16", "--access", "cp.async.cg",
                    "--access", "ldmatrix.x4", "--global-ld", "4096")
    assert data["conflict_free"] and data["swizzle"] is not None
    assert data["per_access"][0]["instruction"] == "cp.async.cg.shared.global, 16"
    assert data["proof"]["status"] == "proved"
    short = cli("suggest-swizzle", "--shape", "64x64", "--dtype", "f16", "--access", "cp.async.ca.16",
                "--global-ld", "32")
    assert short.returncode == 2
    assert "smaller than the tile's row of 64" in short.stderr and "hint: give --global-ld 64 or more" in short.stderr
    missing = cli("suggest-swizzle", "--shape", "64x64", "--dtype", "f16", "--access", "cp.async.cg")
    assert missing.returncode == 2 and "--global-ld" in missing.stderr
    stray = cli("suggest-swizzle", "--shape", "64x64", "--dtype", "f16", "--access", "ldmatrix.x4", "--global-ld", "64")
    assert stray.returncode == 2 and "hint:" in stray.stderr


def test_suggest_swizzle_knows_a_cp_async_in_any_spelling_the_parser_takes() -> None:
    # mnemonics are case-insensitive (as for banks): upper case is the same fill and takes its --global-ld
    upper = cli_json("suggest-swizzle", "--shape", "64x64", "--dtype", "f16", "--access", "CP.ASYNC.CG",
                     "--access", "ldmatrix.x4", "--global-ld", "4096")
    lower = cli_json("suggest-swizzle", "--shape", "64x64", "--dtype", "f16", "--access", "cp.async.cg",
                     "--access", "ldmatrix.x4", "--global-ld", "4096")
    for answer in (upper, lower):
        del answer["proof"]["seconds"]
    assert upper == lower and upper["conflict_free"]


def test_prove_timeout_inf_means_no_limit_as_in_prove_fragment() -> None:
    rows = cli_json("prove", "proofs/ldmatrix_mma_a.py", "--timeout", "inf")
    assert rows and all(row["status"] == row["expected"] and row["status"] != "unknown" for row in rows)


def test_show_a_coordinate_layout_prints_each_cell_s_coordinate() -> None:
    """CuTe's print_layout of an identity layout: cell (m, n) holds the coordinate L(m, n); --json gives them as
    printed, with the extent per codomain axis as cosize."""
    import layoutalg as la

    text = "(4,(2,3)):(1@1,(1@0,2@0))"
    layout = la.parse(text)
    r = cli("show", text, "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["cosize"] == [6, 4]  # the largest coordinate on each axis, plus one
    for m in range(4):
        for n in range(6):
            value = layout((m, n))
            assert got["values"][m][n] == f"({int(value[0])},{int(value[1])})", (m, n)
    table = cli("show", text)
    assert table.returncode == 0 and "(5,3)" in table.stdout and "Traceback" not in table.stderr


def test_show_reads_ttg_text_without_a_shape_at_the_tile_it_is_given() -> None:
    text = "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>"
    shown = cli("show", text, "--tile", "4x8")
    assert shown.returncode == 0, shown.stderr
    # Triton's formula: element (r, c) sits at row r, column c XOR vec * (r // perPhase % maxPhase)
    rows = [line for line in shown.stdout.splitlines() if "|" in line and line.strip()[0].isdigit()]
    cells = [[int(v) for v in row.split("|")[1:-1]] for row in rows]
    assert cells == [[8 * r + (c ^ (2 * (r % 4))) for c in range(8)] for r in range(4)]
    missing = cli("show", text)
    assert missing.returncode != 0 and "--tile MxN" in missing.stderr and "Traceback" not in missing.stderr

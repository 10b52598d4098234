"""Pictures: the cells hold the layout's values (checked against formulas written here),
PNGs decode at the size the geometry says with the right fill in each cell, SVGs parse."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from layoutalg import Layout, LayoutError
from layoutalg.viz import grid as gridmod
from layoutalg.viz.grid import PALETTE8, layout_grid, matrix_grid, thread_color, tv_grid
from layoutalg.viz.png import layout_png, tv_png, write_png
from layoutalg.viz.svg import CELL, HEADER, TITLE, cell_width, grid_to_svg, layout_svg, tv_svg
from layoutalg.viz.table import grid_to_text
from layoutalg.viz.tikz import grid_to_tikz, layout_tikz, tex_escape

SVG_NS = "{http://www.w3.org/2000/svg}"

# PTX ISA, mma.m16n8k16 .f16 A fragment: groupID = lane >> 2, threadID_in_group = lane % 4,
# row = groupID (+8 for a2,a3 / a6,a7), col = threadID_in_group * 2 + (i & 1) (+8 for a4..a7).
MMA_A_TV = Layout(((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128)))


def ptx_a_cell(lane: int, i: int) -> tuple[int, int]:
    group, tig = lane >> 2, lane % 4
    row = group + 8 * ((i >> 1) & 1)
    col = tig * 2 + (i & 1) + 8 * (i >> 2)
    return row, col


def test_layout_grid_row_major_values() -> None:
    grid = layout_grid(Layout((4, 8), (8, 1)))
    assert (grid.rows, grid.cols) == (4, 8)
    for m in range(4):
        for n in range(8):
            assert grid.cell(m, n).label == str(8 * m + n)
            assert grid.cell(m, n).fill == PALETTE8[(8 * m + n) % 8]


def test_layout_grid_hierarchical_mode_uses_colex_order() -> None:
    # ((2,2),3):((1,6),2): m = m0 + 2*m1 -> m0*1 + m1*6; n -> 2n.
    grid = layout_grid(Layout(((2, 2), 3), ((1, 6), 2)))
    assert (grid.rows, grid.cols) == (4, 3)
    for m in range(4):
        for n in range(3):
            assert grid.cell(m, n).label == str((m % 2) + 6 * (m // 2) + 2 * n)


def test_rank1_layout_is_one_column() -> None:
    grid = layout_grid(Layout(5, 3))
    assert (grid.rows, grid.cols) == (5, 1)
    assert [grid.cell(m, 0).label for m in range(5)] == ["0", "3", "6", "9", "12"]


def test_rank3_layout_refused_with_advice() -> None:
    with pytest.raises(LayoutError, match="rank 3"):
        layout_grid(Layout((2, 2, 2)))


def test_picture_size_limit() -> None:
    with pytest.raises(LayoutError, match="limited"):
        layout_grid(Layout((1024, 1024)))


def test_tv_grid_matches_ptx_mma_a_fragment() -> None:
    grid = tv_grid(MMA_A_TV, (16, 16))
    seen = set()
    for lane in range(32):
        for i in range(8):
            row, col = ptx_a_cell(lane, i)
            assert grid.cell(row, col).label == f"T{lane}V{i}"
            assert grid.cell(row, col).fill == thread_color(lane)
            seen.add((row, col))
    assert len(seen) == 256


def test_tv_grid_thr_id_renames_threads() -> None:
    # A ThrID of 4:8 (threads 0,8,16,24 as in a quadpair-style atom) relabels threads.
    grid = tv_grid(Layout((4, 2), (1, 4)), (4, 2), thr_id=Layout(4, 8))
    assert grid.cell(0, 0).label == "T0V0"
    assert grid.cell(1, 0).label == "T8V0"
    assert grid.cell(3, 1).label == "T24V1"


def test_tv_grid_transpose_draws_n_by_m() -> None:
    # (t, v) -> t + 4*v over a (4, 2) tile; transposed, cell (n, m) holds index m + 4*n.
    grid = tv_grid(Layout((4, 2), (1, 4)), (4, 2), transpose=True)
    assert (grid.rows, grid.cols) == (2, 4)
    for m in range(4):
        for n in range(2):
            assert grid.cell(n, m).label == f"T{m}V{n}"


def test_tv_grid_outside_tile_refused() -> None:
    with pytest.raises(LayoutError, match="outside the 4x4 tile"):
        tv_grid(MMA_A_TV, (4, 4))
    with pytest.raises(LayoutError, match="tile"):
        tv_grid(MMA_A_TV, (16,))
    with pytest.raises(LayoutError, match="rank 2"):
        tv_grid(Layout(8), (8, 1))


def test_tv_grid_blank_cells_unreached() -> None:
    grid = tv_grid(Layout((2, 1), (1, 1)), (2, 2))
    assert grid.cell(0, 1).label == "" and grid.cell(0, 1).fill == (255, 255, 255)
    with pytest.raises(LayoutError):
        grid.cell(2, 0)


def test_svg_parses_and_holds_every_cell() -> None:
    layout = Layout((4, 8), (8, 1))
    root = ET.fromstring(layout_svg(layout))
    assert root.tag == SVG_NS + "svg"
    groups = root.findall(SVG_NS + "g")
    assert len(groups) == 32
    labels = [g.find(SVG_NS + "text").text for g in groups]  # type: ignore[union-attr]
    assert labels == [str(8 * m + n) for m in range(4) for n in range(8)]
    fills = [g.find(SVG_NS + "rect").get("fill") for g in groups]  # type: ignore[union-attr]
    assert fills[1] == "#{:02x}{:02x}{:02x}".format(*PALETTE8[1])
    width, height = int(root.get("width") or 0), int(root.get("height") or 0)
    assert width == HEADER + 8 * CELL + 2 and height == TITLE + HEADER + 4 * CELL + 2


def test_svg_escapes_title_and_tv_labels() -> None:
    svg = tv_svg(MMA_A_TV, (16, 16), title="A <fragment> & co")
    root = ET.fromstring(svg)
    assert root.find(SVG_NS + "text").text == "A <fragment> & co"  # type: ignore[union-attr]
    texts = {g.find(SVG_NS + "text").text for g in root.findall(SVG_NS + "g")}  # type: ignore[union-attr]
    assert "T31V7" in texts and len(texts) == 256


def _decode(path: Path):  # type: ignore[no-untyped-def]
    from PIL import Image

    image = Image.open(path)
    image.load()
    return image.convert("RGB")


def test_png_decodes_with_right_size_and_fills(tmp_path: Path) -> None:
    layout = Layout((4, 8), (8, 1))
    path = layout_png(layout, tmp_path / "l.png")
    image = _decode(path)
    assert image.size == (HEADER + 8 * CELL + 2, TITLE + HEADER + 4 * CELL + 2)
    for m in range(4):
        for n in range(8):
            # A pixel just inside the cell's top-left corner (no text there).
            x, y = HEADER + n * CELL + 3, TITLE + HEADER + m * CELL + 3
            assert image.getpixel((x, y)) == PALETTE8[(8 * m + n) % 8]


def test_tv_png_cells_coloured_by_thread(tmp_path: Path) -> None:
    path = tv_png(MMA_A_TV, (16, 16), tmp_path / "tv.png")
    image = _decode(path)
    grid = tv_grid(MMA_A_TV, (16, 16))
    cw = cell_width(grid)
    assert cw > CELL  # labels such as T31V7 widen the cells
    assert image.size == (HEADER + 16 * cw + 2, TITLE + HEADER + 16 * CELL + 2)
    for lane in (0, 5, 31):
        for i in (0, 3, 7):
            row, col = ptx_a_cell(lane, i)
            x, y = HEADER + col * cw + 3, TITLE + HEADER + row * CELL + 3
            assert image.getpixel((x, y)) == thread_color(lane)


def test_png_unwritable_path_is_layout_error(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="cannot write PNG"):
        write_png(layout_grid(Layout(2)), tmp_path / "missing" / "x.png")


def test_tikz_has_one_node_per_cell_and_escapes() -> None:
    source = layout_tikz(Layout((2, 3), (3, 1)))
    assert source.startswith("\\documentclass")
    cells = [line for line in source.splitlines() if line.startswith("\\node[fill=")]
    assert len(cells) == 6
    assert "at (2,-1) {\\texttt{5}}" in cells[5]
    assert tex_escape("T_1#%") == r"T\_1\#\%"
    body = grid_to_tikz(tv_grid(MMA_A_TV, (16, 16)), standalone=False)
    assert body.startswith("% ") and "\\documentclass" not in body


def test_text_table_layout() -> None:
    text = grid_to_text(layout_grid(Layout((2, 3), (3, 1))))
    lines = text.splitlines()
    assert lines[0] == "(2,3):(3,1)"
    assert lines[3].split("|")[1:4] == [" 0 ", " 1 ", " 2 "]
    assert lines[5].split("|")[1:4] == [" 3 ", " 4 ", " 5 "]


def test_heat_matrix_colours() -> None:
    grid = matrix_grid([[0, 2], [1, 4]], ["p0", "p1"], ["b0", "b1"], "heat")
    assert grid.cell(0, 0).fill == (255, 255, 255) and grid.cell(0, 0).label == ""
    assert grid.cell(1, 1).fill == gridmod.heat_color(4, 4) == (255, 100, 0)
    assert grid.cell(0, 1).label == "2"
    with pytest.raises(LayoutError):
        matrix_grid([[0, 1], [2]], ["a", "b"], ["x", "y"])
    svg = grid_to_svg(grid)
    ET.fromstring(svg)


def test_png_without_pillow_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "PIL", None)  # makes ``from PIL import ...`` fail as if Pillow were absent
    with pytest.raises(LayoutError, match=r"pip install 'layoutalg\[viz\]'"):
        write_png(layout_grid(Layout(2)), tmp_path / "x.png")

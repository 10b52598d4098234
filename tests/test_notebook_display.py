"""Notebook display: ``_repr_svg_``/``_repr_html_`` of layouts, composed layouts, TV layouts, atoms and bank analyses
show the right cells (values written here from formulas), stay well-formed, and decline pictures too large to draw."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import layoutalg as la
from layoutalg import Layout
from layoutalg.viz.notebook import MAX_CELLS, TVLayout

SVG = "{http://www.w3.org/2000/svg}"


def cell_labels(svg: str) -> list[str]:
    """The labels of the grid's cells, row by row (each cell is a <g> with a rect and a text)."""
    root = ET.fromstring(svg)
    return [g.find(f"{SVG}text").text or "" for g in root.iter(f"{SVG}g")]  # type: ignore[union-attr]


def test_layout_pictures_show_print_layout_cells() -> None:
    layout = Layout((8, 8), (8, 1))
    labels = cell_labels(layout._repr_svg_())  # type: ignore[attr-defined]
    assert labels == [str(8 * m + n) for m in range(8) for n in range(8)]
    page = layout._repr_html_()  # type: ignore[attr-defined]
    assert "<svg" in page and "(8,8):(8,1)" in page


def test_composed_layout_picture_shows_swizzled_offsets() -> None:
    composed = la.parse("Sw<3,3,3> o 0 o (8,64):(64,1)")
    labels = cell_labels(composed._repr_svg_())  # type: ignore[attr-defined]
    expected = [(64 * m + n) ^ (((64 * m + n) >> 3) & 0b111000) for m in range(8) for n in range(64)]
    assert labels == [str(v) for v in expected]
    assert "Sw&lt;3,3,3&gt;" in composed._repr_html_()  # type: ignore[attr-defined]


def test_too_large_or_high_rank_layouts_fall_back_to_text() -> None:
    big = Layout((128, 64), (64, 1))
    assert big.size() > MAX_CELLS
    assert big._repr_svg_() is None and "<svg" not in big._repr_html_()  # type: ignore[attr-defined]
    assert Layout((2, 2, 2))._repr_svg_() is None  # type: ignore[attr-defined]


def test_tv_layout_picture_matches_the_ptx_fragment_table() -> None:
    # mma.m16n8 C fragment (PTX ISA): lane l, register i hold row l/4 + 8*(i/2), column 2*(l%4) + i%2.
    tv = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))
    labels = cell_labels(TVLayout(tv, (16, 8))._repr_svg_() or "")
    expected = [""] * 128
    for lane in range(32):
        for i in range(4):
            row, col = lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2
            expected[row * 8 + col] = f"T{lane}V{i}"
    assert labels == expected


def test_atoms_and_tiled_mmas_show_every_operand() -> None:
    from layoutalg import atoms

    mma = atoms.get("SM80_16x8x16_F32F16F16F32_TN")
    assert mma._repr_html_().count("<svg") == 3  # type: ignore[attr-defined]
    copy = atoms.get("SM75_U32x4_LDSM_N")
    assert copy._repr_html_().count("<svg") == 2  # type: ignore[attr-defined]
    tiled = atoms.make_tiled_mma(mma, Layout((2, 2)))
    page = tiled._repr_html_()
    assert page.count("<svg") == 3 and "TiledMMA" in page


def test_bank_analysis_shows_its_worst_instruction_heat_map() -> None:
    from layoutalg import banks

    analysis = banks.analyze(Layout((64, 64), (64, 1)), "ldmatrix.x4", "f16")
    svg = analysis._repr_svg_()  # type: ignore[attr-defined]
    root = ET.fromstring(svg)
    counts = [int(label or 0) for label in cell_labels(svg)]  # an empty cell: the bank serves no word
    phases = len(counts) // 32
    assert len(counts) == 32 * phases and phases == 4  # ldmatrix.x4: one phase per matrix, one column per bank
    _, worst_wavefronts, _ = analysis.worst(1)[0]
    assert sum(max(counts[32 * p:32 * (p + 1)]) for p in range(phases)) == worst_wavefronts
    assert root.tag == f"{SVG}svg"
    page = analysis._repr_html_()  # type: ignore[attr-defined]
    assert "excess" in page and "<svg" in page
    clean = banks.analyze(la.parse("Sw<3,3,3> o 0 o (64,64):(64,1)"), "ldmatrix.x4", "f16")
    assert "conflict-free" in clean._repr_html_()  # type: ignore[attr-defined]

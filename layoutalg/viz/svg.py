"""SVG of a :class:`~layoutalg.viz.grid.Grid` (layouts, TV layouts, bank heat maps).

The picture is CuTe's ``print_latex`` drawn directly: one square per cell,
filled with the cell's colour and labelled with its text, row indices down the
left and column indices across the top, the layout's notation as the title.
Pure text generation; no dependency.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from layoutalg.viz.grid import Grid, layout_grid, tv_grid

CELL = 36  # pixels per cell side
HEADER = 28  # pixels for the index margins
TITLE = 24  # pixels for the title line


def cell_width(grid: Grid) -> int:
    """Wide enough for the longest label at ~7 px per character (TV labels like ``T127V15``)."""
    longest = max((len(c.label) for c in grid.cells), default=1)
    return max(CELL, 8 + 7 * longest)


def header_width(grid: Grid) -> int:
    """The left margin: ``HEADER`` pixels, or wider for long row labels (``p2 l16-23`` in a heat map)."""
    longest = max((len(name) for name in grid.row_labels), default=1)
    return max(HEADER, 10 + 7 * longest)


def picture_size(grid: Grid) -> tuple[int, int]:
    """``(width, height)`` in pixels of the picture of ``grid`` (wide enough for the cells and the title)."""
    cells_width = header_width(grid) + grid.cols * cell_width(grid) + 2
    return max(cells_width, 8 + 8 * len(grid.title)), TITLE + HEADER + grid.rows * CELL + 2


def _rgb(fill: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*fill)


def grid_to_svg(grid: Grid) -> str:
    """The SVG document (a string) of ``grid``."""
    cw = cell_width(grid)
    left = header_width(grid)
    width, height = picture_size(grid)
    top = TITLE + HEADER
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="4" y="{TITLE - 8}" font-size="13">{escape(grid.title)}</text>',
    ]
    for c, name in enumerate(grid.col_labels):
        x = left + c * cw + cw // 2
        out.append(f'<text x="{x}" y="{top - 9}" text-anchor="middle" fill="#555555">{escape(name)}</text>')
    for r, name in enumerate(grid.row_labels):
        y = top + r * CELL + CELL // 2 + 4
        out.append(f'<text x="{left - 5}" y="{y}" text-anchor="end" fill="#555555">{escape(name)}</text>')
    for r in range(grid.rows):
        for c in range(grid.cols):
            cell = grid.cells[r * grid.cols + c]
            x, y = left + c * cw, top + r * CELL
            out.append(
                f'<g><rect x="{x}" y="{y}" width="{cw}" height="{CELL}" fill="{_rgb(cell.fill)}" '
                f'stroke="#000000" stroke-width="0.5"/>'
                f'<text x="{x + cw // 2}" y="{y + CELL // 2 + 4}" text-anchor="middle">{escape(cell.label)}</text></g>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def layout_svg(layout: Any, title: str | None = None) -> str:
    """SVG of a rank-1 or rank-2 layout (``Layout`` or ``ComposedLayout``), cells ``L(m, n)``."""
    return grid_to_svg(layout_grid(layout, title))


def tv_svg(tv_layout: Any, tile: tuple[int, int], thr_id: Any = None, title: str | None = None) -> str:
    """SVG of a TV layout over an ``M x N`` tile, cells ``T#V#`` coloured by thread."""
    return grid_to_svg(tv_grid(tv_layout, tile, thr_id, title))


__all__ = ["grid_to_svg", "layout_svg", "tv_svg", "picture_size", "cell_width", "header_width"]

"""PNG of a :class:`~layoutalg.viz.grid.Grid`, drawn with Pillow (the ``viz`` extra).

Same geometry as :mod:`layoutalg.viz.svg` (:func:`~layoutalg.viz.svg.picture_size`),
so the SVG and the PNG of one grid have the same pixel size.  Pillow is imported
only when a PNG is asked for; without it the error says what to install.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError
from layoutalg.viz.grid import Grid, layout_grid, tv_grid
from layoutalg.viz.svg import CELL, HEADER, TITLE, cell_width, header_width, picture_size


def _pillow() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:
        raise LayoutError("PNG output needs Pillow: pip install 'layoutalg[viz]' (or use --svg)") from exc
    return Image, ImageDraw, ImageFont


def grid_to_image(grid: Grid) -> Any:
    """A ``PIL.Image`` (RGB) of ``grid``."""
    Image, ImageDraw, ImageFont = _pillow()
    cw = cell_width(grid)
    left = header_width(grid)
    width, height = picture_size(grid)
    image = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    top = TITLE + HEADER

    def centred(x: float, y: float, text: str, fill: tuple[int, int, int] = (0, 0, 0)) -> None:
        left, upper, right, lower = draw.textbbox((0, 0), text, font=font)
        draw.text((x - (right - left) / 2, y - (lower - upper) / 2 - upper), text, fill=fill, font=font)

    draw.text((4, 5), grid.title, fill=(0, 0, 0), font=font)
    for c, name in enumerate(grid.col_labels):
        centred(left + c * cw + cw / 2, top - HEADER / 2, name, (85, 85, 85))
    for r, name in enumerate(grid.row_labels):
        centred(left / 2, top + r * CELL + CELL / 2, name, (85, 85, 85))
    for r in range(grid.rows):
        for c in range(grid.cols):
            cell = grid.cells[r * grid.cols + c]
            x, y = left + c * cw, top + r * CELL
            draw.rectangle([x, y, x + cw, y + CELL], fill=cell.fill, outline=(0, 0, 0))
            if cell.label:
                centred(x + cw / 2, y + CELL / 2, cell.label)
    return image


def write_png(grid: Grid, path: str | Path) -> Path:
    """Write ``grid`` as a PNG file; returns the path."""
    target = Path(path)
    try:
        grid_to_image(grid).save(target, format="PNG")
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL character
        raise LayoutError(f"cannot write PNG {describe(str(target))}: {exc}") from exc
    return target


def layout_png(layout: Any, path: str | Path, title: str | None = None) -> Path:
    """PNG of a rank-1 or rank-2 layout, cells ``L(m, n)``."""
    return write_png(layout_grid(layout, title), path)


def tv_png(tv_layout: Any, tile: tuple[int, int], path: str | Path, thr_id: Any = None, title: str | None = None) -> Path:
    """PNG of a TV layout over an ``M x N`` tile, cells ``T#V#`` coloured by thread."""
    return write_png(tv_grid(tv_layout, tile, thr_id, title), path)


__all__ = ["grid_to_image", "write_png", "layout_png", "tv_png"]

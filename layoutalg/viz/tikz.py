"""TikZ of a :class:`~layoutalg.viz.grid.Grid`, for papers (a standalone LaTeX document).

Follows the shape of CuTe's ``print_latex`` output: one ``\\node`` per cell in a
``tikzpicture`` with unit squares, cell ``(m, n)`` at ``(n, -m)``, row and
column indices outside the grid, colours as ``{rgb,255:red,..;green,..;blue,..}``.
"""

from __future__ import annotations

from typing import Any

from layoutalg.viz.grid import Grid, layout_grid, tv_grid

_SPECIAL = {"\\": r"\textbackslash{}", "_": r"\_", "#": r"\#", "%": r"\%", "&": r"\&", "$": r"\$", "{": r"\{", "}": r"\}",
            "^": r"\^{}", "~": r"\~{}"}


def tex_escape(text: str) -> str:
    return "".join(_SPECIAL.get(ch, ch) for ch in text)


def grid_to_tikz(grid: Grid, standalone: bool = True) -> str:
    """LaTeX source drawing ``grid``; ``standalone=False`` gives only the ``tikzpicture``."""
    longest = max((len(c.label) for c in grid.cells), default=1)
    width = max(1.0, 0.2 * longest + 0.2)
    lines = [
        "% " + tex_escape(grid.title),
        r"\begin{tikzpicture}[x={(" + f"{width:g}" + r"cm,0cm)},y={(0cm,1cm)},every node/.style={minimum size=1cm, outer sep=0pt}]",
    ]
    for r in range(grid.rows):
        for c in range(grid.cols):
            cell = grid.cells[r * grid.cols + c]
            red, green, blue = cell.fill
            lines.append(
                rf"\node[fill={{rgb,255:red,{red};green,{green};blue,{blue}}}, draw, minimum width={width:g}cm] "
                rf"at ({c},{-r}) {{\texttt{{{tex_escape(cell.label)}}}}};"
            )
    for r, name in enumerate(grid.row_labels):
        lines.append(rf"\node at (-1,{-r}) {{\texttt{{{tex_escape(name)}}}}};")
    for c, name in enumerate(grid.col_labels):
        lines.append(rf"\node at ({c},1) {{\texttt{{{tex_escape(name)}}}}};")
    lines.append(r"\end{tikzpicture}")
    body = "\n".join(lines) + "\n"
    if not standalone:
        return body
    return "\\documentclass[convert]{standalone}\n\\usepackage{tikz}\n\\begin{document}\n" + body + "\\end{document}\n"


def layout_tikz(layout: Any, title: str | None = None, standalone: bool = True) -> str:
    """TikZ of a rank-1 or rank-2 layout, cells ``L(m, n)``."""
    return grid_to_tikz(layout_grid(layout, title), standalone)


def tv_tikz(tv_layout: Any, tile: tuple[int, int], thr_id: Any = None, title: str | None = None,
            standalone: bool = True) -> str:
    """TikZ of a TV layout over an ``M x N`` tile, cells ``T#V#``."""
    return grid_to_tikz(tv_grid(tv_layout, tile, thr_id, title), standalone)


__all__ = ["grid_to_tikz", "layout_tikz", "tv_tikz", "tex_escape"]

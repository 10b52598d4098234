"""Plain-text rendering of a :class:`~layoutalg.viz.grid.Grid`, in CuTe's ``print_layout`` style.

::

    (2,3):(3,1)
          0   1   2
        +---+---+---+
     0  | 0 | 1 | 2 |
        +---+---+---+
     1  | 3 | 4 | 5 |
        +---+---+---+

Used for bank heat maps and any grid without a dedicated table in
:mod:`layoutalg.viz.text`.
"""

from __future__ import annotations

from typing import Sequence

from layoutalg.viz.grid import Grid


def boxed_table(title: str, cells: Sequence[Sequence[str]], row_names: Sequence[str],
                col_names: Sequence[str]) -> str:
    """Rows of string cells as a boxed text table (one cell width for the whole table)."""
    width = max([len(c) for row in cells for c in row] + [len(n) for n in col_names] + [1])
    margin = max([len(n) for n in row_names] + [1]) + 2
    rule = " " * margin + "+" + "+".join("-" * (width + 2) for _ in col_names) + "+"
    lines = [title] if title else []
    lines.append(" " * margin + " " + " ".join(f" {n:>{width}} " for n in col_names).rstrip())
    lines.append(rule)
    for name, row in zip(row_names, cells):
        lines.append(f"{name:>{margin - 2}}  |" + "|".join(f" {c:>{width}} " for c in row) + "|")
        lines.append(rule)
    return "\n".join(lines) + "\n"


def grid_to_text(grid: Grid, title: bool = True) -> str:
    """The grid as a boxed text table (see :func:`boxed_table`)."""
    rows = [[c.label for c in grid.cells[r * grid.cols:(r + 1) * grid.cols]] for r in range(grid.rows)]
    return boxed_table(grid.title if title else "", rows, grid.row_labels, grid.col_labels)


__all__ = ["boxed_table", "grid_to_text"]

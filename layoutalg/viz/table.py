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

from layoutalg.viz.grid import Grid


def grid_to_text(grid: Grid, title: bool = True) -> str:
    """The grid as a boxed text table (one cell width for the whole table)."""
    width = max([len(c.label) for c in grid.cells] + [len(n) for n in grid.col_labels] + [1])
    margin = max([len(n) for n in grid.row_labels] + [1]) + 2
    rule = " " * margin + "+" + "+".join("-" * (width + 2) for _ in range(grid.cols)) + "+"
    lines = [grid.title] if title and grid.title else []
    lines.append(" " * margin + " " + " ".join(f" {name:>{width}} " for name in grid.col_labels).rstrip())
    lines.append(rule)
    for r in range(grid.rows):
        row = grid.cells[r * grid.cols:(r + 1) * grid.cols]
        lines.append(f"{grid.row_labels[r]:>{margin - 2}}  |" + "|".join(f" {c.label:>{width}} " for c in row) + "|")
        lines.append(rule)
    return "\n".join(lines) + "\n"


__all__ = ["grid_to_text"]

"""A picture as data: a 2-D grid of labelled, coloured cells, shared by every renderer.

Renderers (:mod:`svg`, :mod:`png`, :mod:`tikz`) draw a :class:`Grid`; builders
here turn layouts into grids, with CuTe's conventions:

* :func:`layout_grid` is CuTe's ``print_layout`` / ``print_latex`` of a rank-2
  layout: cell ``(m, n)`` holds ``L(m, n)``, coloured by ``L(m, n) % 8``.  A
  rank-1 layout is drawn as one column (CuTe appends a ``1:0`` mode).
* :func:`tv_grid` is CuTe's ``print_latex`` of a thread-value layout over an
  ``M x N`` tile: a TV layout maps ``(thread, value)`` to a 1-D index into the
  tile, which unfolds column-major (``m = i % M``, ``n = i // M``) into a cell
  labelled ``T<thread>V<value>`` and coloured by thread.

The index of ``(m, n)`` in a rank-2 layout is ``m + M * n`` (CuTe's
colexicographic order), so a whole picture costs one ``to_numpy()`` call.
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass
from typing import Any, Sequence

from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError, ShapeError

RGB = tuple[int, int, int]

# CuTe's print_latex cycles through 8 pastel fills; we use the same idea with our own values.
PALETTE8: tuple[RGB, ...] = (
    (175, 175, 255),
    (175, 255, 175),
    (255, 255, 175),
    (255, 175, 175),
    (210, 210, 255),
    (210, 255, 210),
    (255, 255, 210),
    (255, 210, 210),
)

MAX_CELLS = 1 << 16


def thread_color(thread: int) -> RGB:
    """A distinct pastel colour per thread (hues spread by the golden ratio, so neighbours differ)."""
    hue = (thread * 0.618033988749895) % 1.0
    lightness = 0.78 if thread % 2 == 0 else 0.70
    r, g, b = colorsys.hls_to_rgb(hue, lightness, 0.75)
    return (round(r * 255), round(g * 255), round(b * 255))


def heat_color(value: float, maximum: float) -> RGB:
    """White for 0, through yellow to red at ``maximum`` (a bank heat map)."""
    if maximum <= 0 or value <= 0:
        return (255, 255, 255)
    t = min(1.0, value / maximum)
    return (255, round(255 - 155 * t), round(230 - 230 * t))


@dataclass(frozen=True)
class Cell:
    """One cell: its text and fill colour."""

    label: str
    fill: RGB


@dataclass(frozen=True)
class Grid:
    """``rows x cols`` cells in row-major order, with header labels and a title."""

    rows: int
    cols: int
    cells: tuple[Cell, ...]
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    title: str = ""

    def cell(self, row: int, col: int) -> Cell:
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise LayoutError(f"cell ({row}, {col}) is outside the {self.rows}x{self.cols} grid")
        return self.cells[row * self.cols + col]


def _check_size(rows: int, cols: int, what: str) -> None:
    if rows * cols > MAX_CELLS:
        raise ShapeError(
            f"{what} has {rows}x{cols} = {rows * cols} cells; pictures are limited to {MAX_CELLS} cells: "
            "slice the layout first (e.g. show a tile of it)"
        )


def _text(t: Any) -> str:
    return "(" + ",".join(_text(e) for e in t) + ")" if isinstance(t, tuple) else str(t)


def _group_text(first: tuple[Any, ...], last: Any) -> str:
    return f"({_text(first)},{_text(last)})"


def _rank2_extents(layout: Any, what: str) -> tuple[int, int]:
    """``(M, N)`` of a rank-1 or rank-2 layout (size of each top-level mode)."""
    shape = layout.shape
    if isinstance(shape, tuple):
        if len(shape) == 2:
            return layout[0].size(), layout[1].size()
        if len(shape) == 1:
            return layout.size(), 1
        grouped = _group_text(shape[:-1], shape[-1]) + ":" + _group_text(layout.stride[:-1], layout.stride[-1])
        raise ShapeError(
            f"{what} {layout} has rank {len(shape)}; a picture needs rank 1 or 2: group its modes into two, "
            f"e.g. {grouped} (rows, columns)"
        )
    return layout.size(), 1


def layout_values(layout: Any) -> list[Any]:
    """``L(i)`` for every index ``i``: ints for a ``Layout`` or ``ComposedLayout``; a coordinate or F2 layout's
    values as they are (``ArithTuple`` coordinates, ``F2`` bit patterns), as CuTe's ``print_layout`` of an
    identity layout prints coordinates."""
    if hasattr(layout, "to_numpy"):
        return [int(v) for v in layout.to_numpy()]
    if hasattr(layout, "values") and hasattr(layout, "pairs"):
        from layoutalg.core.stride_codomain import coshape
        from layoutalg.core.stride_scalars import ArithTuple, value_as_coordinate
        from layoutalg.core.tuple_ops import repeat_like

        profile = coshape(layout)
        zero = repeat_like(0, profile)
        return [(value_as_coordinate(v, profile, ShapeError) or zero) if isinstance(v, ArithTuple) else v
                for v in layout.values()]
    raise ShapeError(f"expected a Layout, ComposedLayout or StrideLayout, got {type(layout).__name__}")


def value_label(value: Any) -> str:
    """A cell's text: a coordinate as CuTe prints one, ``(1,2)``; an F2 value ``F5`` (``0`` for none)."""
    if isinstance(value, tuple):
        return "(" + ",".join(value_label(x) for x in value) + ")"
    if type(value).__name__ == "F2":
        return str(value) if int(value) else "0"
    return str(value)


def colour_keys(values: list[Any]) -> list[int]:
    """The palette index of each value: an int (or an F2's bits) itself, any other value (a coordinate) the order
    of its first appearance, so equal values share a colour."""
    first: dict[str, int] = {}
    keys = []
    for value in values:
        if isinstance(value, int) or type(value).__name__ == "F2":
            keys.append(int(value))
        else:
            keys.append(first.setdefault(str(value), len(first)))
    return keys


def layout_grid(layout: Any, title: str | None = None) -> Grid:
    """CuTe ``print_layout``: cell ``(m, n)`` shows ``L(m, n)``, fill ``PALETTE8[L(m, n) % 8]``.

    Works for any value with ``.shape``, ``size()`` and mode access whose values :func:`layout_values` reads
    (a ``Layout``, a ``ComposedLayout``, a coordinate or F2 ``StrideLayout``).
    """
    rows, cols = _rank2_extents(layout, "layout")
    _check_size(rows, cols, f"layout {layout}")
    values = layout_values(layout)
    keys = colour_keys(values)
    cells = []
    for m in range(rows):
        for n in range(cols):
            at = m + rows * n
            cells.append(Cell(value_label(values[at]), PALETTE8[keys[at] % 8]))
    return Grid(
        rows,
        cols,
        tuple(cells),
        tuple(str(m) for m in range(rows)),
        tuple(str(n) for n in range(cols)),
        str(layout) if title is None else title,
    )


def tv_grid(
    tv_layout: Any,
    tile: Sequence[int],
    thr_id: Any = None,
    title: str | None = None,
    transpose: bool = False,
) -> Grid:
    """CuTe ``print_latex`` of a TV layout: ``(t, v) -> i``, ``i -> (i % M, i // M)``, label ``T<t>V<v>``.

    ``tile`` is ``(M, N)``; ``thr_id`` (a layout, optional) maps the logical thread
    index to the physical one shown in labels, as an atom's ``ThrID`` does.
    ``transpose=True`` draws the ``N x M`` transpose (cell ``(n, m)``): an MMA's
    B operand, indexed ``(N, K)`` by CuTe, drawn ``K x N`` as in the PTX ISA; or a
    row-major picture of a 1-D space (tile ``(cols, rows)``).
    Cells no ``(t, v)`` reaches stay blank; a cell several ``(t, v)`` reach (a
    broadcast, from a stride-0 mode) shows the first in ``(v, t)`` order.
    """
    if len(tile) != 2 or any(not isinstance(e, int) or e <= 0 for e in tile):
        raise ShapeError(f"tile must be two positive extents (M, N), got {describe(tuple(tile))}")
    rows, cols = int(tile[0]), int(tile[1])
    _check_size(rows, cols, f"tile {rows}x{cols}")
    shape = tv_layout.shape
    if not isinstance(shape, tuple) or len(shape) != 2:
        raise ShapeError(f"a TV layout has rank 2 (thread, value), got {tv_layout}")
    n_thr, n_val = tv_layout[0].size(), tv_layout[1].size()
    values = [int(v) for v in tv_layout.to_numpy()]
    thread_names = [int(thr_id(t)) if thr_id is not None else t for t in range(n_thr)]
    slots: list[Cell | None] = [None] * (rows * cols)
    for v in range(n_val):
        for t in range(n_thr):
            index = values[t + n_thr * v]
            if not 0 <= index < rows * cols:
                raise ShapeError(
                    f"TV layout {tv_layout} sends (thread {t}, value {v}) to index {index}, "
                    f"outside the {rows}x{cols} tile: pass the right --tile"
                )
            m, n = index % rows, index // rows
            slot = n * rows + m if transpose else m * cols + n
            if slots[slot] is not None:
                # A broadcast (several threads own one element, e.g. a stride-0 mode): keep the first.
                continue
            thread = thread_names[t]
            slots[slot] = Cell(f"T{thread}V{v}", thread_color(thread))
    blank = Cell("", (255, 255, 255))
    out_rows, out_cols = (cols, rows) if transpose else (rows, cols)
    return Grid(
        out_rows,
        out_cols,
        tuple(c if c is not None else blank for c in slots),
        tuple(str(m) for m in range(out_rows)),
        tuple(str(n) for n in range(out_cols)),
        str(tv_layout) if title is None else title,
    )


def matrix_grid(
    values: Sequence[Sequence[float]],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    title: str = "",
    labels: Sequence[Sequence[str]] | None = None,
) -> Grid:
    """A heat map: cell ``(r, c)`` shows ``values[r][c]`` (or ``labels[r][c]``), white at 0, red at the maximum."""
    rows = len(values)
    cols = len(values[0]) if rows else 0
    if any(len(r) != cols for r in values):
        raise ShapeError("heat map rows must all have the same length")
    if len(row_labels) != rows or len(col_labels) != cols:
        raise ShapeError(f"heat map needs {rows} row labels and {cols} column labels")
    _check_size(rows, cols, "heat map")
    peak = max((max(r) for r in values if r), default=0)
    cells = []
    for r in range(rows):
        for c in range(cols):
            value = values[r][c]
            text = labels[r][c] if labels is not None else (f"{value:g}" if value else "")
            cells.append(Cell(text, heat_color(value, peak)))
    return Grid(rows, cols, tuple(cells), tuple(row_labels), tuple(col_labels), title)


__all__ = ["Cell", "Grid", "PALETTE8", "layout_grid", "tv_grid", "matrix_grid", "thread_color", "heat_color"]

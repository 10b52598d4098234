"""Text tables of layouts, in CuTe's ``print_layout`` style, and thread-value (``T#V#``) tables.

* :func:`layout_table` -- CuTe ``print_layout``: for a rank-2 layout (plain or swizzled), cell
  ``(m, n)`` holds ``L(m, n)``; a rank-1 layout is one column.
* :func:`tv_table` -- a TV layout ``(thread, value) -> i`` over an ``M x N`` tile,
  ``i -> (i % M, i // M)``; the cell shows ``T<thread>V<value>`` (``thr_id`` maps the
  logical thread to the physical lane, as an atom's ``ThrID``).  A cell several
  (thread, value) pairs reach (a broadcast) shows the first in (value, thread) order
  followed by ``+``; a cell nothing reaches is blank.
* :func:`atom_table` -- one operand of an atom (``"A"``, ``"B"``, ``"C"`` or ``"src"``, ``"dst"``).
* :func:`partition_table` -- a :class:`~layoutalg.atoms.tiled.Partition` as rows ``value | coord | offset``.

Example::

    >>> from layoutalg import Layout
    >>> from layoutalg.viz.text import layout_table
    >>> print(layout_table(Layout((2, 3), (3, 1))), end="")
    (2,3):(3,1)
         0   1   2
       +---+---+---+
    0  | 0 | 1 | 2 |
       +---+---+---+
    1  | 3 | 4 | 5 |
       +---+---+---+
"""

from __future__ import annotations

from typing import Any, Sequence

from layoutalg.core import int_tuple as it
from layoutalg.core.validate import describe
from layoutalg.errors import ShapeError
from layoutalg.viz.table import boxed_table

MAX_CELLS = 1 << 16


def _extents(layout: Any) -> tuple[int, int]:
    shape = layout.shape
    if not it.is_tuple(shape):
        return it.product(shape), 1
    if len(shape) == 1:
        return it.product(shape[0]), 1
    if len(shape) != 2:
        raise ShapeError(f"print_layout takes a rank-1 or rank-2 layout, got rank {len(shape)}: {layout}")
    return it.product(shape[0]), it.product(shape[1])


def _check_cells(rows: int, cols: int) -> None:
    if rows * cols > MAX_CELLS:
        raise ShapeError(f"a {rows}x{cols} table has more than {MAX_CELLS} cells; slice the layout first")


def layout_table(layout: Any, title: str | None = None) -> str:
    """CuTe ``print_layout``: a boxed table with ``L(m, n)`` in row ``m``, column ``n``."""
    from layoutalg.viz.grid import layout_values, value_label

    if not (hasattr(layout, "to_numpy") or hasattr(layout, "pairs")) or not hasattr(layout, "shape"):
        raise ShapeError(f"layout_table takes a Layout, ComposedLayout or StrideLayout, got {describe(layout)}")
    rows, cols = _extents(layout)
    _check_cells(rows, cols)
    values = layout_values(layout)
    cells = [[value_label(values[m + rows * n]) for n in range(cols)] for m in range(rows)]
    return boxed_table(str(layout) if title is None else title, cells, [str(m) for m in range(rows)],
                 [str(n) for n in range(cols)])


def tv_table(tv_layout: Any, tile: Sequence[int], thr_id: Any = None, title: str | None = None) -> str:
    """``T#V#`` per cell of the ``tile = (M, N)`` a TV layout covers (see the module docstring)."""
    if len(tile) != 2 or any(not it.is_int(e) or e <= 0 for e in tile):
        raise ShapeError(f"tile must be two positive extents (M, N), got {describe(tuple(tile))}")
    rows, cols = int(tile[0]), int(tile[1])
    _check_cells(rows, cols)
    shape = tv_layout.shape
    if not it.is_tuple(shape) or len(shape) != 2:
        raise ShapeError(f"a TV layout has rank 2 (thread, value), got {tv_layout}")
    n_thr, n_val = it.product(shape[0]), it.product(shape[1])
    values = [int(v) for v in tv_layout.to_numpy()]
    cells = [[""] * cols for _ in range(rows)]
    for v in range(n_val):
        for t in range(n_thr):
            index = values[t + n_thr * v]
            if not 0 <= index < rows * cols:
                raise ShapeError(f"TV layout {tv_layout} sends (thread {t}, value {v}) to {index}, "
                                 f"outside the {rows}x{cols} tile")
            m, n = index % rows, index // rows
            if cells[m][n]:
                if not cells[m][n].endswith("+"):
                    cells[m][n] += "+"
                continue
            thread = int(thr_id(t)) if thr_id is not None else t
            cells[m][n] = f"T{thread}V{v}"
    return boxed_table(f"{tv_layout} over {rows}x{cols}" if title is None else title, cells,
                 [str(m) for m in range(rows)], [str(n) for n in range(cols)])


def atom_table(atom: Any, operand: str, bits: int | None = None) -> str:
    """:func:`tv_table` of one operand of an atom (copy atoms in ``bits``-wide values)."""
    from layoutalg.atoms.tv import operand_tv

    tv, tile, thr_id = operand_tv(atom, operand, bits)
    return tv_table(tv, tile, thr_id, title=f"{atom.name} {operand}: {tv} over {tile[0]}x{tile[1]}")


def partition_table(partition: Any) -> str:
    """One thread's :class:`~layoutalg.atoms.tiled.Partition`: value index, its coordinate and its offset."""
    lines = [f"thread {partition.thread}: shape {partition.shape}", "  value  coord       offset"]
    for i, (crd, off) in enumerate(zip(partition.coords, partition.offsets)):
        lines.append(f"  {i:>5}  {str(tuple(crd)):<10}  {off}")
    return "\n".join(lines) + "\n"


__all__ = ["layout_table", "tv_table", "atom_table", "partition_table"]

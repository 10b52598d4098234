"""Rich display in Jupyter: ``_repr_svg_`` / ``_repr_html_`` for layouts, TV layouts, atoms and bank analyses.

* ``Layout`` / ``ComposedLayout`` (rank 1 or 2): CuTe's ``print_layout`` picture (cell ``(m, n)`` shows
  ``L(m, n)``, coloured by value mod 8), as ``layoutalg show`` draws it;
* :class:`TVLayout` (a TV layout with the tile it covers), MMA/copy atoms and tiled MMAs/copies: CuTe's
  ``print_latex`` picture of each operand (cell = ``T<thread>V<value>``, coloured by thread);
* a bank :class:`~layoutalg.banks.analyze.Analysis`: its summary and the bank heat map of its worst
  instruction (one row per phase, one column per bank, cell = distinct words the bank serves).

Pictures larger than :data:`MAX_CELLS` cells are not drawn (the methods return None and Jupyter shows the
text form), so displaying a huge layout never hangs a notebook.  The classes of layers 1-5 reach this module
at call time only (``layoutalg/__init__.py`` attaches the layout methods; atoms and analyses forward here
through ``importlib``), so no lower layer imports the front end.
"""

from __future__ import annotations

import html
from typing import Any, Sequence

from layoutalg.errors import LayoutError

#: The largest picture (cells) drawn for a notebook.
MAX_CELLS = 4096


def _svg(grid: Any) -> str:
    from layoutalg.viz.svg import grid_to_svg

    return grid_to_svg(grid)


def _figure(caption: str, svgs: Sequence[str]) -> str:
    body = "".join(f"<div style='display:inline-block;margin:4px'>{s}</div>" for s in svgs)
    return f"<figure style='margin:0'><figcaption><code>{html.escape(caption)}</code></figcaption>{body}</figure>"


def layout_svg(layout: Any) -> str | None:
    """The picture of a rank-1 or rank-2 layout, or None (too large, or of higher rank)."""
    from layoutalg.viz.grid import layout_grid

    try:
        shape = layout.shape
        if isinstance(shape, tuple) and len(shape) > 2:
            return None
        rows = layout[0].size() if isinstance(shape, tuple) else layout.size()
        cols = layout[1].size() if isinstance(shape, tuple) and len(shape) == 2 else 1
        if rows * cols > MAX_CELLS:
            return None
        return _svg(layout_grid(layout))
    except LayoutError:
        return None


def layout_html(layout: Any) -> str:
    picture = layout_svg(layout)
    return _figure(str(layout), [picture] if picture else [])


class TVLayout:
    """A TV layout ``(thread, value) -> m + M*n`` with the ``(M, N)`` tile it covers, for display.

    ``thr_id`` (optional) maps logical threads to the lanes shown, as an atom's ``ThrID``.
    """

    def __init__(self, tv: Any, tile: Sequence[int], thr_id: Any = None, title: str | None = None) -> None:
        self.tv, self.tile, self.thr_id = tv, (int(tile[0]), int(tile[1])), thr_id
        self.title = title if title is not None else f"{tv} over {self.tile[0]}x{self.tile[1]}"

    def _repr_svg_(self) -> str | None:
        from layoutalg.viz.grid import tv_grid

        if self.tile[0] * self.tile[1] > MAX_CELLS:
            return None
        return _svg(tv_grid(self.tv, self.tile, self.thr_id, title=self.title))

    def _repr_html_(self) -> str:
        picture = self._repr_svg_()
        return _figure(self.title, [picture] if picture else [])

    def __repr__(self) -> str:
        return f"TVLayout({self.tv}, tile={self.tile})"


def atom_panels(atom: Any) -> list[TVLayout]:
    """One :class:`TVLayout` per operand of an MMA or copy atom (copy atoms in 16-bit values, as the CLI; in
    their own bits where 16-bit values do not split each thread's bits, e.g. the 8-bit ldmatrix atoms)."""
    from layoutalg.atoms.tv import operand_tv
    from layoutalg.errors import LayoutError

    operands = ["A", "B", "C"] if hasattr(atom, "c_layout") else ["src", "dst"]
    bits: int | None = None
    if operands[0] == "src" and hasattr(atom, "bind"):
        try:
            atom.bind(16)  # CuTe's Copy_Atom<Op, T> checks: do 16-bit values split each thread's bits?
            bits = 16
        except LayoutError:
            pass
    panels = []
    for operand in operands:
        tv, tile, thr_id = operand_tv(atom, operand, bits)
        panels.append(TVLayout(tv, tile, thr_id, f"{getattr(atom, 'name', atom)} {operand}"))
    return panels


def atom_html(atom: Any) -> str:
    pictures = [p for p in (panel._repr_svg_() for panel in atom_panels(atom)) if p]
    return _figure(str(getattr(atom, "name", atom)), pictures)


def tiled_panels(tiled: Any) -> list[TVLayout]:
    """The TV layouts of a TiledCopy (its ``layout_tv`` over its tiler) or TiledMMA (A, B, C)."""
    if hasattr(tiled, "get_layoutC_TV"):
        m, n, k = (tiled.tile_size_mnk(i) for i in range(3))
        return [TVLayout(tiled.get_layoutA_TV(), (m, k), title="A"), TVLayout(tiled.get_layoutB_TV(), (n, k), title="B"),
                TVLayout(tiled.get_layoutC_TV(), (m, n), title="C")]
    tiler = tiled.tiler
    return [TVLayout(tiled.layout_tv, (int(tiler[0]), int(tiler[1])), title=str(tiled.layout_tv))]


def tiled_html(tiled: Any) -> str:
    pictures = [p for p in (panel._repr_svg_() for panel in tiled_panels(tiled)) if p]
    return _figure(type(tiled).__name__, pictures)


def analysis_svg(analysis: Any) -> str | None:
    """The bank heat map of the analysis's worst instruction (None where the model needs more, e.g. cp.async)."""
    from layoutalg.viz.heatmap import bank_heatmap

    where, wavefronts, ideal = analysis.worst(1)[0]
    key = tuple(where[a] for a in analysis.axes)
    lanes = [int(x) for x in analysis.addresses[key]]
    title = f"{analysis.instruction} " + ", ".join(f"{k}={v}" for k, v in where.items()) + \
        f": {wavefronts} wavefronts (ideal {ideal})"
    try:
        return _svg(bank_heatmap(analysis.instruction, lanes, title=title))
    except LayoutError:
        return None


def analysis_html(analysis: Any) -> str:
    picture = analysis_svg(analysis)
    text = f"<pre style='margin:0'>{html.escape(analysis.summary())}</pre>"
    return f"<div>{text}{picture or ''}</div>"


__all__ = ["MAX_CELLS", "TVLayout", "layout_svg", "layout_html", "atom_panels", "atom_html", "tiled_panels",
           "tiled_html", "analysis_svg", "analysis_html"]

"""The layout arguments of :func:`~layoutalg.banks.analyze.analyze` and :func:`~layoutalg.banks.proof.conflict_free`,
read as the command line reads them.

``smem_layout`` may be layout text in any notation :func:`layoutalg.parse` reads below Triton
(:mod:`layoutalg.atoms.layout_text`: CuTe, CuTe C++ types, CuTe DSL, pycute, CUTLASS smem atom names, whose
element type ``dtype`` gives), and ``global_ld=N`` is the command line's ``--global-ld N``: a row-major global
matrix with ``N`` elements per row, ``Layout((rows, cols), (N, 1))`` over the tile's two modes; ``tile_to=(M, N)``
is ``--tile-to MxN``.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.validate import as_int, describe
from layoutalg.errors import LayoutError


def smem_layout_of(smem_layout: Any, dtype: Any = None, tile_to: Any = None) -> Any:
    """``smem_layout``, read from its text when it is a str (a smem atom name takes its width from ``dtype``) and
    repeated to ``tile_to`` (``--tile-to``) when given: :func:`layoutalg.atoms.layout_text.layout_of`."""
    from layoutalg.atoms.layout_text import layout_of

    return layout_of(smem_layout, dtype, tile_to)


def global_layout_of(global_layout: Any, global_ld: Any, sizes: list[int]) -> Any:
    """``global_layout``, or the row-major ``(rows, cols):(global_ld, 1)`` over the tile's mode ``sizes``."""
    if global_ld is None:
        return global_layout
    if global_layout is not None:
        raise LayoutError("give global_layout or global_ld, not both (global_ld=N is Layout((rows, cols), (N, 1)))")
    ld = as_int(global_ld, "global_ld")
    if len(sizes) != 2 or ld < sizes[1]:
        raise LayoutError(f"global_ld={describe(global_ld)} needs a rank-2 tile whose row it covers; the tile's "
                          f"modes are {sizes}")
    from layoutalg.core.layout import Layout

    return Layout((sizes[0], sizes[1]), (ld, 1))


__all__ = ["smem_layout_of", "global_layout_of"]

"""The package root: what ``import layoutalg`` gives a user, and what it must not load."""

from __future__ import annotations

import subprocess
import sys

import layoutalg as la


def test_import_loads_no_heavy_dependency() -> None:
    code = "import sys, layoutalg; print(sorted(m for m in ('z3', 'numpy', 'hypothesis', 'sympy', 'cupy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_every_exported_name_exists() -> None:
    missing = [name for name in la.__all__ if not hasattr(la, name)]
    assert not missing


def test_formula_method_renders_the_index_function() -> None:
    layout = la.Layout(((2, 4), 8), ((1, 16), 2))
    rendered = layout.formula()  # type: ignore[attr-defined]
    i, j = rendered.symbols
    for row in range(8):
        for col in range(8):
            assert int(rendered.expr.subs({i: row, j: col})) == layout(row, col)
    assert rendered.latex
    composed = la.parse("Sw<3,3,3> o _0 o (8,64):(64,1)")
    assert "XOR" in str(composed.formula())  # type: ignore[attr-defined]


def test_generic_algebra_is_exported_over_composed_layouts() -> None:
    tile = la.parse("Sw<3,3,3> o _0 o (8,64):(64,1)")
    tiled = la.zipped_divide(tile, (8, 8))
    # the first tile of a zipped divide is the tile's own top-left 8x8 block
    for r in range(8):
        for c in range(8):
            assert tiled((r, c), 0) == tile(r, c)

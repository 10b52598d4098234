"""The matrices of an mma check: ``'PARAM@LAYOUT'`` -> buffer, shape and the inverse of the layout.

``PARAM`` is the kernel parameter holding the matrix's base pointer (its PTX name or 0-based index);
``LAYOUT`` a layoutalg layout (CuTe notation, swizzled ones included) from the matrix coordinate to
the element offset from that pointer, in the mma's convention: A is M x K, B is K x N, C is M x N
(the layout's two top-level modes are the rows and the columns).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError
from layoutalg.swizzle.composed import ComposedLayout

MAX_ELEMENTS = 1 << 26


@dataclass
class MatrixSpec:
    """One matrix of the check, resolved against a launch (see the module doc)."""

    role: str
    param: Any
    layout: Any
    buffer: int = -1
    rows: int = 0
    cols: int = 0
    offsets: np.ndarray | None = None  # element offset of coordinate index r + rows * c
    inverse: np.ndarray | None = None  # element offset -> r + rows * c, or -1

    @property
    def text(self) -> str:
        return f"{self.role}={self.param}@{self.layout}"

    def coordinate(self, elem: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, col, valid) of element offsets (offsets outside the layout's image are invalid)."""
        assert self.inverse is not None
        e = np.asarray(elem, dtype=np.int64)
        inside = (e >= 0) & (e < self.inverse.size)
        idx = np.where(inside, self.inverse[np.where(inside, e, 0)], -1)
        ok = idx >= 0
        idx = np.where(ok, idx, 0)
        return idx % self.rows, idx // self.rows, ok


def parse_spec(role: str, value: Any) -> MatrixSpec:
    """``'PARAM@LAYOUT'``, ``(PARAM, layout)`` or a MatrixSpec -> MatrixSpec (LayoutError naming the matrix)."""
    from layoutalg.atoms.layout_text import parse

    if isinstance(value, MatrixSpec):
        return MatrixSpec(role, value.param, value.layout)
    if isinstance(value, str):
        if "@" not in value:
            raise LayoutError(f"{role}: {describe(value)} is not PARAM@LAYOUT (e.g. {role}=0@(128,64):(64,1))")
        param_text, layout_text = value.split("@", 1)
        param: Any = param_text.strip()
        if not param:
            raise LayoutError(f"{role}: {describe(value)} names no parameter before '@'")
        layout = parse(layout_text.strip())
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        param, layout = value
        if isinstance(layout, str):
            layout = parse(layout)
    else:
        raise LayoutError(f"{role}: expected 'PARAM@LAYOUT' or (PARAM, layout), got {describe(value)}")
    if not isinstance(layout, (Layout, ComposedLayout)):
        raise LayoutError(f"{role}: the layout must be a Layout or a swizzled (composed) layout, got {describe(layout)}")
    if isinstance(param, str) and param.isdigit():
        param = int(param)
    return MatrixSpec(role, param, layout)


def resolve(spec: MatrixSpec, fn: Any, buffers: list[str]) -> None:
    """Find the spec's buffer among the launch's and tabulate its layout (LayoutError on bad input)."""
    names = [p.name for p in fn.params]
    if isinstance(spec.param, int) and not isinstance(spec.param, bool):
        if not 0 <= spec.param < len(names):
            raise LayoutError(f"{spec.role}: parameter index {spec.param} out of range (the kernel has "
                              f"{len(names)} parameters)")
        name = names[spec.param]
    else:
        name = str(spec.param)
        if name not in names:
            raise LayoutError(f"{spec.role}: no kernel parameter {describe(name)}; parameters (index:name): "
                              + ", ".join(f"{k}:{n}" for k, n in enumerate(names)))
    ids = [k for k, b in enumerate(buffers) if b == name]
    if len(ids) != 1:
        why = "is not a buffer (pass it as buf)" if not ids else "holds several buffers"
        raise LayoutError(f"{spec.role}: parameter {spec.param} ({name}) {why}")
    spec.buffer = ids[0]
    layout = spec.layout
    shape = layout.shape
    if not isinstance(shape, tuple) or len(shape) != 2:
        raise LayoutError(f"{spec.role}: the layout {layout} must have two top-level modes (rows, columns)")
    rows, cols = layout[0].size(), layout[1].size()
    if rows * cols > MAX_ELEMENTS:
        raise LayoutError(f"{spec.role}: {rows} x {cols} elements; the check handles at most {MAX_ELEMENTS}")
    offsets = np.asarray(layout.to_numpy(), dtype=np.int64)
    if offsets.size and offsets.min() < 0:
        raise LayoutError(f"{spec.role}: the layout {layout} gives negative offsets")
    top = int(offsets.max()) + 1 if offsets.size else 0
    if top > 4 * MAX_ELEMENTS:
        raise LayoutError(f"{spec.role}: the layout reaches offset {top - 1}; the check handles at most "
                          f"{4 * MAX_ELEMENTS}")
    inverse = np.full(top, -1, dtype=np.int64)
    inverse[offsets] = np.arange(offsets.size, dtype=np.int64)
    if np.count_nonzero(inverse >= 0) != offsets.size:
        raise LayoutError(f"{spec.role}: the layout {layout} maps two coordinates to one element; a matrix "
                          "layout must be injective")
    spec.rows, spec.cols, spec.offsets, spec.inverse = rows, cols, offsets, inverse


def check_shapes(a: MatrixSpec, b: MatrixSpec, c: MatrixSpec) -> tuple[int, int, int]:
    """(M, N, K) from A (M x K), B (K x N), C (M x N); LayoutError when they disagree."""
    m, k = a.rows, a.cols
    if b.rows != k:
        raise LayoutError(f"B has {b.rows} rows but A has {k} columns (A is M x K, B is K x N)")
    n = b.cols
    if (c.rows, c.cols) != (m, n):
        raise LayoutError(f"C is {c.rows} x {c.cols} but A and B make it {m} x {n} (C is M x N)")
    return m, n, k

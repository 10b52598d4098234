"""The bytes one ``wmma.load`` / ``wmma.store`` touches (PTX ISA 8.x, 9.7.14.4.2 "Matrix Storage for WMMA").

A fragment is one matrix of a ``wmma`` shape ``mMnNkK``: ``a`` is M x K, ``b`` is K x N, ``c``/``d`` are M x N.
In ``.row`` layout its rows are its lines, in ``.col`` layout its columns.  The optional ``stride`` operand is
the distance, in matrix elements (not bytes), from the start of one line to the next; without it the lines are
packed (stride = line length: K for a row-major A, M for a column-major A, and so on).  So the matrix spans

    footprint_bits = ((lines - 1) * stride + line_length) * element_bits

from the base address: the last line starts ``(lines - 1) * stride`` elements after the base and holds
``line_length`` elements.  Sub-byte types (``.s4``/``.u4``: 4 bits, ``.b1``: 1 bit) round up to whole bytes.
"""

from __future__ import annotations

import re

from layoutalg.core.dtypes import dtype_bits
from layoutalg.errors import KernelError

#: every wmma element type (PTX ISA, wmma.load's ``.atype``/``.btype``/``.ctype``); widths from the dtype table
ELEMENT_TYPES = frozenset({"f16", "bf16", "tf32", "f32", "s32", "f64", "s8", "u8", "s4", "u4", "b1"})
_SHAPE = re.compile(r"m(\d+)n(\d+)k(\d+)")


def matrix_extent(parts: tuple[str, ...] | list[str], line: int, opcode: str) -> tuple[int, int, int]:
    """(lines, line_length, element_bits) of the fragment a ``wmma.load``/``wmma.store`` names in ``parts``."""
    shapes = [found for found in (_SHAPE.fullmatch(p) for p in parts) if found is not None]
    fragments = [p for p in parts if p in ("a", "b", "c", "d")]
    layouts = [p for p in parts if p in ("row", "col")]
    types = [p for p in parts if p in ELEMENT_TYPES]
    if len(shapes) != 1 or len(fragments) != 1 or len(layouts) != 1 or len(types) != 1:
        raise KernelError("wmma.load/wmma.store needs one fragment (.a/.b/.c/.d), one layout (.row/.col), one "
                          "shape (.mMnNkK) and one element type", line, opcode)
    m, n, k = (int(g) for g in shapes[0].groups())
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[fragments[0]]
    lines, line_length = (rows, cols) if layouts[0] == "row" else (cols, rows)
    return lines, line_length, dtype_bits(types[0])


def footprint_bytes(lines: int, line_length: int, element_bits: int, stride: int | None) -> int:
    """Bytes from the base address to the end of the fragment's last line (the module doc's formula);
    ``stride=None`` is the packed default, ``stride = line_length``."""
    step = line_length if stride is None else stride
    bits = ((lines - 1) * step + line_length) * element_bits
    return -(-bits // 8)

"""The fragment one lane holds for a ``wmma.load`` / ``wmma.store`` (PTX ISA 8.x, 9.7.14.4.1 "Matrix Fragments
for WMMA").

Each thread of the warp holds a fragment of the matrix: a vector of registers whose element count the ISA gives
per element type, shape and matrix (``a``, ``b``, or the accumulator ``c``/``d``); the row/col layout does not
change it.  A lane moves ``elements x element width`` bytes (sub-byte ``.s4``/``.u4``/``.b1`` packed, ``.tf32``
32 bits as in memory), so a ``.f32`` accumulator of ``m16n16k16`` is 8 x 4 = 32 bytes and an ``.f16``
multiplicand 16 x 2 = 32 bytes (its eight ``.f16x2`` registers hold more elements than the lane's share of the
matrix: the ISA leaves which ones unspecified); the vector holds ``bytes / 4`` ``.b32`` registers (``.f64``:
``bytes / 8``), the only length ptxas accepts.  One deviation from the ISA's table text, which says "a single
``.f64`` register" for the ``m8n8k4`` accumulator: ptxas (13.0) accepts only two, as the ISA's own
``mma.m8n8k4.f64`` accumulator (two ``.f64`` elements per lane, 8 x 8 over 32 lanes) has; the table follows ptxas.
"""

from __future__ import annotations

import re

from layoutalg.core.dtypes import dtype_bits
from layoutalg.errors import KernelError
from layoutalg.kernel.interp.wmma_footprint import ELEMENT_TYPES
from layoutalg.kernel.ptx.nodes import Instruction

_F16_SHAPES = ("m16n16k16", "m8n32k16", "m32n8k16")
# (a, b) elements per lane of the .bf16 and 8-bit multiplicands, by shape (two elements per .b32 for
# .bf16, four for .s8/.u8: 4/4, 2/8, 8/2 and 2/2, 1/4, 4/1 registers)
_NARROW = {"m16n16k16": (8, 8), "m8n32k16": (4, 16), "m32n8k16": (16, 4)}

#: (shape, element type, matrix) -> elements one lane holds (PTX ISA 9.7.14.4.1); matrix ``c`` stands for ``d``
FRAGMENT_ELEMENTS: dict[tuple[str, str, str], int] = {
    **{(s, "f16", "a"): 16 for s in _F16_SHAPES}, **{(s, "f16", "b"): 16 for s in _F16_SHAPES},
    **{(s, "f16", "c"): 8 for s in _F16_SHAPES}, **{(s, "f32", "c"): 8 for s in _F16_SHAPES},
    **{(s, t, "a"): a for s, (a, _) in _NARROW.items() for t in ("bf16", "s8", "u8")},
    **{(s, t, "b"): b for s, (_, b) in _NARROW.items() for t in ("bf16", "s8", "u8")},
    **{(s, "s32", "c"): 8 for s in _F16_SHAPES},
    ("m16n16k8", "tf32", "a"): 4, ("m16n16k8", "tf32", "b"): 4, ("m16n16k8", "f32", "c"): 8,
    ("m8n8k4", "f64", "a"): 1, ("m8n8k4", "f64", "b"): 1, ("m8n8k4", "f64", "c"): 2,
    **{("m8n8k32", t, x): 8 for t in ("s4", "u4") for x in ("a", "b")}, ("m8n8k32", "s32", "c"): 2,
    ("m8n8k128", "b1", "a"): 32, ("m8n8k128", "b1", "b"): 32, ("m8n8k128", "s32", "c"): 2,
}


def fragment_key(parts: tuple[str, ...] | list[str]) -> tuple[str, str, str]:
    """(shape, element type, matrix) named by a wmma.load/store's ``parts`` (``d`` read as ``c``); parts
    ``matrix_extent`` already checked hold one of each."""
    shape = next(p for p in parts if re.fullmatch(r"m\d+n\d+k\d+", p))
    dtype = next(p for p in parts if p in ELEMENT_TYPES)
    matrix = next(p for p in parts if p in ("a", "b", "c", "d"))
    return shape, dtype, "c" if matrix == "d" else matrix


def fragment_bytes(ins: Instruction) -> int:
    """Bytes of the fragment one lane of ``ins`` (a wmma.load/store) moves: elements x element width (module
    doc); a shape/type/matrix the ISA lists no fragment for is refused (ptxas refuses it too)."""
    key = fragment_key(ins.parts)
    if key not in FRAGMENT_ELEMENTS:
        raise KernelError(f"{ins.opcode}: the PTX ISA has no wmma .{key[2]} fragment of shape .{key[0]} with type "
                          f".{key[1]}", ins.line, ins.opcode)
    return -(-FRAGMENT_ELEMENTS[key] * dtype_bits(key[1]) // 8)

"""PTX ISA semantics of the warp-level matrix instructions, as symbolic formulas.

Stated here directly from the PTX ISA (sections cited per function), so the
theorems in this folder do not depend on CuTe's TV-layout encoding; the
theorem file ``cute_atoms_match_ptx.py`` separately proves that CuTe's
encoding (``layoutalg.atoms``) agrees with these formulas.

Every function takes symbolic terms (``layoutalg.prove.var``) and returns
terms, so the same formula works for one lane or for all 32 at once.
Notation of the PTX ISA: ``groupID = %laneid >> 2``,
``threadID_in_group = %laneid % 4``; a 32-bit register holds two 16-bit
elements, element ``i`` of a fragment lives in register ``i // 2``, half
``i % 2`` (low half first).

This file starts with ``_`` so ``layoutalg prove proofs/`` does not collect it.
"""

from __future__ import annotations

from typing import Any

from layoutalg.prove import sym


def group_id(lane: Any) -> Any:
    """``groupID = %laneid >> 2`` (PTX ISA 9.7.14.5, "Matrix Fragments for mma.m16n8k16")."""
    return lane >> 2


def thread_in_group(lane: Any) -> Any:
    """``threadID_in_group = %laneid % 4``."""
    return lane & 3


# --------------------------------------------------------------- mma.m16n8k16 (.f16/.bf16)
def mma_a(lane: Any, i: Any) -> tuple[Any, Any]:
    """A (16 x 16, row-major), element ``a_i``, ``i`` in [0, 8) (PTX ISA figure "MMA .m16n8k16 fragment layout for matrix A"):

    row = groupID            for a0, a1, a4, a5;   groupID + 8 for a2, a3, a6, a7
    col = threadID_in_group * 2 + (i & 0x1)        for a_i, i < 4;   ... + 8 for i >= 4
    """
    row = group_id(lane) + 8 * ((i >> 1) & 1)
    col = 2 * thread_in_group(lane) + (i & 1) + 8 * (i >> 2)
    return row, col


def mma_b(lane: Any, i: Any) -> tuple[Any, Any]:
    """B (16 x 8, K x N), element ``b_i``, ``i`` in [0, 4) ("fragment layout for matrix B"):

    row (k) = threadID_in_group * 2 + (i & 0x1)    for b_i, i < 2;   ... + 8 for i >= 2
    col (n) = groupID
    """
    k = 2 * thread_in_group(lane) + (i & 1) + 8 * (i >> 1)
    return k, group_id(lane)


def mma_c(lane: Any, i: Any) -> tuple[Any, Any]:
    """C/D (16 x 8), element ``c_i``, ``i`` in [0, 4) ("fragment layout for accumulator matrix C/D"):

    row = groupID for c0, c1;  groupID + 8 for c2, c3;   col = threadID_in_group * 2 + (i & 0x1)
    """
    return group_id(lane) + 8 * (i >> 1), 2 * thread_in_group(lane) + (i & 1)


# --------------------------------------------------------------- ldmatrix / stmatrix (.m8n8 .b16)
def matrix_row_lane(matrix: Any, row: Any) -> Any:
    """The lane whose address operand gives row ``row`` of matrix ``matrix``: ``8 * matrix + row``
    (PTX ISA 9.7.9.25 ldmatrix: "threads 0-7 ... addresses of the rows of the first matrix,
    8-15 the second, 16-23 the third, 24-31 the fourth"; stmatrix the same)."""
    return 8 * matrix + row


def matrix_fragment(lane: Any, reg: Any, half: Any, trans: bool) -> tuple[Any, Any, Any]:
    """(matrix, row, col) *as stored in memory* of the 16-bit element in half ``half`` of
    register ``reg`` of ``lane`` (ldmatrix destination / stmatrix source; register ``reg`` is
    matrix ``reg``). Without ``.trans`` each thread holds a fragment of a row: row ``lane / 4``,
    columns ``2 * (lane % 4) + {0, 1}``; ``.trans`` delivers the element at the transposed
    position: row ``2 * (lane % 4) + half``, column ``lane / 4`` (PTX ISA ldmatrix, "Optional
    qualifier .trans indicates that the matrix is loaded in column-major format")."""
    if trans:
        return reg, 2 * (lane & 3) + half, lane >> 2
    return reg, lane >> 2, 2 * (lane & 3) + half


def matrix_access_offset(address_of: Any, lane: Any, reg: Any, half: Any, trans: bool) -> Any:
    """Element offset in shared memory that ldmatrix reads into (stmatrix writes from) ``(lane, reg, half)``.

    ``address_of(s)`` is the element offset of the row address lane ``s`` supplies. Each row is
    16 contiguous bytes (eight b16) starting at that address, so element ``col`` of the row is at
    ``address_of(s) + col``.
    """
    matrix, row, col = matrix_fragment(lane, reg, half, trans)
    return address_of(matrix_row_lane(matrix, row)) + col


# --------------------------------------------------------------- movmatrix
def movmatrix_trans(lane: Any, half: Any) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """movmatrix.sync.aligned.m8n8.trans.b16 (PTX ISA 9.7.9.26): (row, col) of the source matrix held
    in the source register, and (row, col) *of the source matrix* that lands in the destination
    register, for ``(lane, half)``: source = (lane / 4, 2 * (lane % 4) + half);
    destination = (2 * (lane % 4) + half, lane / 4)."""
    return (lane >> 2, 2 * (lane & 3) + half), (2 * (lane & 3) + half, lane >> 2)


def swizzled(layout: Any) -> Any:
    """``sym(layout)``: re-exported so theorem files read ``S = swizzled(smem_layout)``."""
    return sym(layout)

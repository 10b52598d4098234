"""One operand of an atom as ``(TV layout, (M, N) tile, ThrID)``, for tables and pictures.

* MMA atoms: ``A -> (a_layout, (M, K))``, ``B -> (b_layout, (N, K))``, ``C``/``D`` -> ``(c_layout, (M, N))``;
  the index a TV layout returns is ``m + M*n`` in that tile (column-major), as CuTe's ``print_latex``.
* Copy atoms: ``src``/``dst``/``ref`` in ``bits``-wide values (``bits=None`` keeps CuTe's bits); a width
  binds as CuTe's ``Copy_Atom<Op, T>`` does, refused (LayoutError) where it does not split each thread's bits.
  The tile is ``(E, size // E)`` with ``E`` the values in one 128-bit matrix row for the
  matrix instructions (so column ``n`` is memory row ``n`` and row ``m`` the element in it),
  and ``(1, values)`` for the per-thread copies.
* PTX 8-bit ldmatrix/stmatrix forms (:class:`~layoutalg.atoms.ldmatrix_b8.B8MatrixForm`): the
  register side (``dst`` of ldmatrix, ``src`` of stmatrix) is the PTX fragment, the other side
  the rows the lanes' addresses name, over the tile ``(16, rows)`` (16 elements per row).
"""

from __future__ import annotations

from typing import Any

from layoutalg.atoms.copy import CopyAtom, TypedCopyAtom
from layoutalg.atoms.gmma import GmmaAtom
from layoutalg.atoms.ldmatrix_b8 import B8MatrixForm
from layoutalg.atoms.mma import MmaAtom
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe
from layoutalg.errors import InstructionError


def operand_tv(atom: Any, operand: str, bits: int | None = None) -> tuple[Layout, tuple[int, int], Layout]:
    """``(tv_layout, (M, N), thr_id)`` of ``operand`` of ``atom`` (see the module docstring)."""
    if isinstance(atom, (MmaAtom, GmmaAtom)):
        op = str(operand).upper()
        op = "C" if op == "D" else op
        m, n, k = atom.shape_mnk
        tiles = {"A": (m, k), "B": (n, k), "C": (m, n)}
        if op not in tiles:
            raise InstructionError(f"{atom.name} has operands A, B, C; got {describe(operand)}")
        return atom.layout(op), tiles[op], atom.thr_id
    if isinstance(atom, B8MatrixForm):
        return _b8_tv(atom, str(operand).lower())
    if isinstance(atom, TypedCopyAtom):
        bits, atom = atom.bits, atom.atom
    if isinstance(atom, CopyAtom):
        which = str(operand).lower()
        if which not in ("src", "dst", "ref"):
            raise InstructionError(f"{atom.name} has operands src, dst, ref; got {describe(operand)}")
        bit_layout = getattr(atom, f"{which}_layout")
        width = bits or 1
        tv = getattr(atom.bind(bits), f"val_layout_{which}") if bits is not None else bit_layout  # CuTe's checks
        total = max(1, _codomain(bit_layout) // width)
        if atom.is_matrix or atom.kind.endswith(".b8"):
            per_row = max(1, 128 // width)
            return tv, (per_row, max(1, total // per_row)), atom.thr_id
        return tv, (1, total), atom.thr_id
    raise InstructionError(f"not an atom: {describe(atom)}")


def _b8_tv(form: B8MatrixForm, which: str) -> tuple[Layout, tuple[int, int], Layout]:
    rows = form.rows_per_matrix * form.num
    register_side = "dst" if form.kind == "ldmatrix" else "src"
    if which not in ("src", "dst"):
        raise InstructionError(f"{form.ptx} has operands src, dst; got {describe(which)}")
    if which == register_side:
        return form.fragment_layout(), (16, rows), Layout(32)
    rows_tv = Layout(((rows, 32 // rows), 16), ((16, 0), 1)) if rows < 32 else Layout((32, 16), (16, 1))
    return rows_tv, (16, rows), Layout(32)


def _codomain(layout: Layout) -> int:
    return max(layout.values()) + 1


__all__ = ["operand_tv"]

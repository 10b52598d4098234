"""Both sides of a fragment theorem as terms: what the copy instruction moves, what the mma fragment holds.

Positions are compared in *units*: ``unit_bits = min(bits, 16)`` bits of shared
memory (an element, or a 16-bit half of a 32-bit element), so unit ``u`` of the
tile is bits ``[u * unit_bits, (u + 1) * unit_bits)`` from its base.  Within one
lane's 32-bit register, unit ``q = half * units_per_half + sub`` (low bits first).

Copy side (PTX ISA ``ldmatrix`` / ``stmatrix``, ``.m8n8 .b16``; the atoms'
``fragment_coord`` and ``row_address_lane``): half ``half`` of register ``reg``
of ``lane`` is b16 ``(matrix, row, col)`` = ``(reg, lane/4, 2(lane%4) + half)``,
transposed with ``.trans``; row ``row`` of matrix ``matrix`` is the 16 bytes at
the address lane ``8 matrix + row`` supplies, so that b16 is at unit
``row_address + col * units_per_half + sub``.

Mma side (PTX ISA fragment tables, the atom's ``fragment_coord``): unit ``q`` of
fragment register ``r`` is unit ``q % units_per_element`` of element
``i = r * elements_per_register + q / units_per_element``, at ``(row, col)`` of
the operand; that element lives at ``smem(row, col)``, i.e. unit
``smem(row, col) * units_per_element + q % units_per_element``.

Row addresses: by default lane ``8 m + r`` points at the element the fragment
needs first in row ``r`` of matrix ``m`` (the element that lands in column 0),
which is the only address that can be right; ``addresses=`` replaces that with
the kernel's own formula, and ``read_smem=`` the layout the kernel computes the
address with (when it differs from the layout the data was written with).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove import expr as ex
from layoutalg.prove.fragment_setup import FragmentSetup


def _log2(n: int) -> int:
    return n.bit_length() - 1


@dataclass(frozen=True)
class Need:
    """What the mma fragment holds at one (lane, copy register, unit): coordinates relative to the copy tile."""

    row: Any
    col: Any
    unit: Any  # unit inside the element (0 unless 32-bit)
    element: Any  # the PTX element index i (a_i, b_i, c_i)
    fragment: Any  # which fragment of the copy (0 when it carries one)


@dataclass(frozen=True)
class Sides:
    """The terms of one fragment theorem (all relative to ``origin``, the copy tile's first element)."""

    setup: FragmentSetup
    variables: tuple[ex.Var, ...]  # lane, reg, half (and byte / nibble)
    origin: tuple[Any, Any]
    part: Any  # 0, or the param selecting which registers of the fragment (num < R)
    address: Callable[[Any, Any], tuple[Any, Any]]  # (matrix, row) -> (row, col) in the copy tile
    read: Any = None  # the layout the kernel computes row addresses with (None: the smem layout itself)

    def need(self, lane: Any, reg: Any, half: Any, sub: Any) -> Need:
        s = self.setup
        if s.fragments > 1:
            frag, freg = reg >> _log2(s.regs), reg & (s.regs - 1)
        else:
            frag, freg = 0, self.part * s.num + reg
        q = half * s.units_per_half + sub
        ue = s.units_per_element
        e, unit = (q, 0) if ue == 1 else (q >> 1, q & 1)
        i = freg * s.elements_per_register + e
        row, col = s.mma.fragment_coord(s.operand, lane, i)
        if s.fragments > 1:
            if s.along == "row":
                row = row + frag * s.frag_rows
            else:
                col = col + frag * s.frag_cols
        return Need(row, col, unit, i, frag)

    def element_at(self, row: Any, col: Any) -> Any:
        """The smem element offset of ``(row, col)`` of the copy tile."""
        return ex.sym(self.setup.smem)(self.origin[0] + row, self.origin[1] + col)

    def row_address(self, matrix: Any, row: Any) -> Any:
        """The unit where row ``row`` of matrix ``matrix`` starts (the address lane ``8 matrix + row`` supplies)."""
        r, c = self.address(matrix, row)
        layout = self.setup.smem if self.read is None else self.read
        return ex.sym(layout)(self.origin[0] + r, self.origin[1] + c) * self.setup.units_per_element

    def delivered(self, lane: Any, reg: Any, half: Any, sub: Any) -> Any:
        """The smem unit the copy moves to / from (lane, reg, half, sub)."""
        m, r, c = self.setup.copy.fragment_coord(lane, reg, half)
        return self.row_address(m, r) + c * self.setup.units_per_half + sub

    def required(self, lane: Any, reg: Any, half: Any, sub: Any) -> Any:
        """The smem unit holding what the mma fragment has at (lane, reg, half, sub)."""
        n = self.need(lane, reg, half, sub)
        return self.element_at(n.row, n.col) * self.setup.units_per_element + n.unit


def domain(setup: FragmentSetup) -> tuple[ex.Var, ...]:
    out = [ex.var("lane", 32), ex.var("reg", setup.num), ex.var("half", 2)]
    if setup.sub_name:
        out.append(ex.var(setup.sub_name, setup.units_per_half))
    return tuple(out)


def tile_params(setup: FragmentSetup, origin: Any) -> tuple[tuple[Any, Any], tuple[ex.Var, ...]]:
    """The copy tile's first element: every position in the smem tile (params ``<dim>_tile``), or ``origin``."""
    if origin is not None:
        if not isinstance(origin, (tuple, list)) or len(origin) != 2:
            raise ProofError(f"origin must be (row, col) of the copy tile's first element (ints or terms), got {describe(origin)}")
        return (origin[0], origin[1]), ()
    tr, tc = setup.tile
    out: list[Any] = []
    params: list[ex.Var] = []
    for dim, extent, step in ((setup.dims[0], setup.rows, tr), (setup.dims[1], setup.cols, tc)):
        count = extent // step
        if count == 1:
            out.append(0)
        else:
            p = ex.param(f"{dim}_tile", count)
            params.append(p)
            out.append(p * step)
    return (out[0], out[1]), tuple(params)


def part_param(setup: FragmentSetup) -> Any:
    return ex.param("part", setup.parts) if setup.parts > 1 else 0


def derived_address(setup: FragmentSetup, part: Any) -> Callable[[Any, Any], tuple[Any, Any]]:
    """Row ``r`` of matrix ``m`` starts at the element the fragment needs where (m, r, col 0) lands:
    lane ``4 r``, half 0 without ``.trans``; lane ``r / 2``, half ``r % 2`` with it."""

    def address(matrix: Any, row: Any) -> tuple[Any, Any]:
        probe = Sides(setup, (), (0, 0), part, lambda m, r: (0, 0))
        lane, half = ((row >> 1), (row & 1)) if setup.copy.trans else (4 * row, 0)
        n = probe.need(lane, matrix, half, 0)
        return n.row, n.col

    return address


def user_address(setup: FragmentSetup, addresses: Any, part: Any) -> Callable[[Any, Any], tuple[Any, Any]]:
    """``addresses(lane)`` (or ``addresses(lane, part)``) -> (row, col) of the copy tile, as the kernel computes it."""
    if not callable(addresses):
        raise ProofError(f"addresses must be a function lane -> (row, col) in the copy tile, got {describe(addresses)}")
    try:
        takes_part = len(inspect.signature(addresses).parameters) >= 2
    except (TypeError, ValueError):
        takes_part = False

    def address(matrix: Any, row: Any) -> tuple[Any, Any]:
        lane = 8 * matrix + row
        try:
            value = addresses(lane, part) if takes_part else addresses(lane)
        except Exception as exc:
            raise ProofError(f"addresses: calling it on a symbolic lane failed: {type(exc).__name__}: {exc}") from exc
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            raise ProofError(f"addresses(lane) must return (row, col) of the copy tile, got {describe(value)}")
        return value[0], value[1]

    return address


__all__ = ["Sides", "Need", "domain", "tile_params", "part_param", "derived_address", "user_address"]

"""What a fragment theorem is about, resolved and checked before any term is built (:class:`FragmentSetup`).

The copy instruction moves 16-bit units (``.b16``): each of its registers is one
8 x 8 matrix of b16, a 32-bit register per lane.  The mma operand holds
``n`` elements of ``bits`` bits per lane (PTX ``a0 .. a{n-1}``), packed low
element first into ``R = n * bits / 32`` registers.  One copy instruction
therefore carries ``num`` of those registers:

* ``num >= R``: ``num / R`` whole fragments, side by side along ``along``
  (``"col"``: the second PTX dimension, N for B and C, K for A; or ``"row"``);
  copy register ``j`` is register ``j % R`` of fragment ``j / R``;
* ``num < R``: registers ``part * num .. part * num + num - 1`` of one fragment,
  for every ``part`` (a quantified parameter).

The *copy tile* is the part of the operand one instruction covers; the smem
tile is cut into copy tiles, and their indices are quantified parameters
named after the operand's dimensions (``k_tile``, ``n_tile`` for B).

Combinations that no shared-memory layout can make right are refused here
with the reason (``LayoutError``): 64-bit operands, sm70's quad-pair MMAs, and
``.trans`` on elements wider than 16 bits (it would split each element
across two rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from layoutalg.atoms.copy import CopyAtom
from layoutalg.atoms.gmma import GmmaAtom
from layoutalg.atoms.mma import TYPE_BITS, MmaAtom, mma_type
from layoutalg.atoms.short_names import copy_atom, mma_atom
from layoutalg.core.validate import describe, direction
from layoutalg.errors import InstructionError, LayoutError, ShapeError

OPERAND_DIMS = {"A": ("m", "k"), "B": ("k", "n"), "C": ("m", "n")}
CONTIGUOUS = {"A": "k", "B": "k", "C": "n"}  # the dimension along which a lane's elements of one register run


@dataclass(frozen=True)
class FragmentSetup:
    copy: CopyAtom
    mma: Union[MmaAtom, GmmaAtom]  # a wgmma fragment is taken per warp (16 rows)
    operand: str  # "A", "B" or "C"
    bits: int  # element width as held in registers and shared memory
    dtype: str
    smem: Any  # Layout / ComposedLayout from (row, col) of the operand to the element offset, None for movmatrix
    rows: int  # smem tile extents (0 for movmatrix)
    cols: int
    frag_rows: int  # the PTX matrix of the operand (A: M x K, B: K x N, C: M x N)
    frag_cols: int
    regs: int  # R: 32-bit registers of one fragment
    along: str  # "col" or "row": where the fragments of one copy sit side by side

    @property
    def num(self) -> int:
        return self.copy.num_matrices

    @property
    def dims(self) -> tuple[str, str]:
        return OPERAND_DIMS[self.operand]

    @property
    def unit_bits(self) -> int:
        """The granularity at which both sides are compared: one element, or a 16-bit half of a 32-bit one."""
        return min(self.bits, 16)

    @property
    def units_per_half(self) -> int:
        return 16 // self.unit_bits

    @property
    def units_per_element(self) -> int:
        return self.bits // self.unit_bits

    @property
    def elements_per_register(self) -> int:
        return 32 // self.bits

    @property
    def fragments(self) -> int:
        """Whole fragments one copy instruction carries (1 when it carries part of one)."""
        return max(1, self.num // self.regs)

    @property
    def parts(self) -> int:
        """Copy instructions that make up one fragment (1 when one instruction carries whole fragments)."""
        return max(1, self.regs // self.num)

    @property
    def tile(self) -> tuple[int, int]:
        """(rows, cols) of the operand one copy instruction covers."""
        if self.along == "row":
            return self.frag_rows * self.fragments, self.frag_cols
        return self.frag_rows, self.frag_cols * self.fragments

    @property
    def sub_name(self) -> str | None:
        """Name of the index of a sub-16-bit element inside a half: ``byte`` (8-bit), ``nibble`` (4-bit), ``bit``
        (the ``.b1`` operands of ``mma.m8n8k128`` / ``m16n8k128`` / ``m16n8k256``, 32 per register in the PTX ISA's
        fragment tables, so 16 per b16 half)."""
        return {1: None, 2: "byte", 4: "nibble", 16: "bit"}[self.units_per_half]

    @property
    def element_names(self) -> str:
        letter = "c" if self.operand == "C" else self.operand.lower()
        return f"{letter}0..{letter}{self.mma.num_elements(self.operand) - 1}"


def resolve(copy: Any, smem: Any, mma: Any, operand: Any, dtype: str | None, along: str,
            tile_to: Any = None) -> FragmentSetup:
    """Resolve names, check every argument and refuse meaningless combinations (see the module docstring)."""
    atom, bound_bits = copy_atom(copy)
    mm = mma_atom(mma)
    op = _operand(operand)
    frag_rows, frag_cols = operand_shape(mm, op)
    if mm.arch == 70:
        raise InstructionError(f"{mm.name}: sm70 mma.m8n8k4 splits the warp into four quad-pair MMAs of 8 x 8 x 4, but "
                               f"{atom.kind} moves warp-wide 8 x 8 matrices; name an sm75+ mma such as "
                               "'mma.m16n8k8.f16' or 'mma.m16n8k16.f16'")
    refuse_non_warp_mma(mm, atom.kind)
    type_name = {"A": mm.a_type, "B": mm.b_type, "C": mm.c_type}[op]
    if dtype is not None:
        named = mma_type(dtype)  # any spelling of the dtype table: float16, torch.bfloat16, cutlass.Float16, ...
        if named is None:
            raise LayoutError(f"dtype must be one of {', '.join(TYPE_BITS)} (or another spelling of one, e.g. "
                              f"float16, torch.bfloat16), got {describe(dtype)}")
        type_name = named
    bits = TYPE_BITS[type_name]
    if bits > 32:  # f64 (in .f64 registers), c64 / gc64
        raise InstructionError(f"operand {op} of {mm.name} holds {bits}-bit {type_name} elements, wider than the 32-bit "
                               f"registers {atom.kind} moves 16-bit units into; load such fragments with ld.shared "
                               "(ld.shared.f64 / ld.shared.v2.f64 for f64)")
    if bound_bits is not None and bound_bits != bits:
        raise LayoutError(f"the copy atom is bound to {bound_bits}-bit values (Copy_Atom<{atom.name}, ...>) but operand "
                          f"{op} of {mm.name} holds {bits}-bit {type_name}: bind it to {bits} bits, or pass the atom")
    if atom.kind == "movmatrix" and bits != 16:
        raise InstructionError(f"movmatrix transposes 16-bit units, but operand {op} of {mm.name} holds {bits}-bit "
                               f"{type_name}: a wider element would be split and narrower ones moved in pairs, so no "
                               "fragment comes out; transpose 16-bit data (dtype='f16'/'bf16'), or go through shared "
                               "memory with stmatrix and ldmatrix")
    if atom.trans and bits > 16:
        plain = atom.ptx.replace(".trans", "")
        raise InstructionError(f"{atom.ptx} transposes 16-bit units, so each {bits}-bit {type_name} element of operand "
                               f"{op} would be split across two rows and no shared-memory layout can deliver it; use "
                               f"{plain} (no .trans) over a tile with {CONTIGUOUS[op]} contiguous")
    n = mm.num_elements(op)
    if (n * bits) % 32:
        raise InstructionError(f"operand {op} of {mm.name}: {n} elements of {bits} bits do not fill whole 32-bit "
                               f"registers; dtype {type_name} does not fit this fragment")
    native = {"A": mm.a_type, "B": mm.b_type, "C": mm.c_type}[op]
    if op != "C" and bits != TYPE_BITS[native]:
        raise LayoutError(f"dtype {type_name!r} is {bits}-bit, but the mma reads operand {op} of {mm.name} as {TYPE_BITS[native]}-bit "
                          f"{native}: its registers hold {n} elements of {TYPE_BITS[native]} bits (PTX fragment table), so "
                          f"{bits}-bit elements form no fragment it reads; drop dtype=, or give one of {TYPE_BITS[native]} bits "
                          "(only the accumulator C may be converted to another width before stmatrix)")
    along = direction(along) or along  # column / Col / rows: the vocabulary of banks' by= too
    if along not in ("col", "row"):
        raise LayoutError(f"along must be 'col' or 'row' (where the fragments of one copy sit side by side), got {describe(along)}")
    setup = FragmentSetup(atom, mm, op, bits, type_name, None, 0, 0, frag_rows, frag_cols, n * bits // 32, along)
    if atom.kind == "movmatrix":
        if smem is not None:
            raise LayoutError("movmatrix moves registers to registers and reads no shared memory: drop smem= and "
                              "name the fragment it transposes with source= (an mma operand, default 'C')")
        return setup
    layout = _smem_layout(smem, setup, tile_to)
    return FragmentSetup(atom, mm, op, bits, type_name, layout, *_extents(layout, setup), frag_rows, frag_cols,
                         setup.regs, along)


def refuse_non_warp_mma(mm: Any, kind: str) -> None:
    """An mma.sync fragment is spread over the 32 lanes of a warp; an atom run by one thread (dp4a, dp2a, a scalar
    FMA) holds no such fragment, so no lane-indexed claim about it means anything."""
    threads = mm.thr_id.size() if isinstance(mm, MmaAtom) else 32
    if threads != 32:
        raise InstructionError(f"{mm.name} runs on {threads} of a warp's 32 threads: its operands are no warp-wide "
                               f"fragment that {kind} can move; name an sm75+ mma such as 'mma.m16n8k16.f16'")


def operand_shape(mm: Any, op: str) -> tuple[int, int]:
    """(rows, cols) of the operand one warp's fragment covers: the PTX matrix of an mma.sync; for a warpgroup
    wgmma, the 16 rows warp 0 holds (warp ``w`` holds rows ``16 w ..``: quantify it as a tile index)."""
    if isinstance(mm, GmmaAtom):
        if op == "B" or (op == "A" and mm.a_source != "reg"):
            raise InstructionError(f"operand {op} of {mm.name} is read from shared memory through a descriptor, not "
                                   "held in registers: no ldmatrix / stmatrix fragment to prove (the register "
                                   "fragments are C, and A of an _RS wgmma)")
        return 16, mm.shape_mnk[1] if op == "C" else mm.shape_mnk[2]
    return mm.ptx_matrix_shape(op)  # type: ignore[no-any-return]


def _operand(operand: Any) -> str:
    op = str(operand).strip().upper() if isinstance(operand, str) else ""
    op = "C" if op == "D" else op
    if op not in ("A", "B", "C"):
        raise LayoutError(f"operand must be 'A', 'B', 'C' or 'D' (C/D, the accumulator), got {describe(operand)}")
    return op


def _smem_layout(smem: Any, setup: FragmentSetup, tile_to: Any = None) -> Any:
    """``smem`` as a layout: text read as the command line's ``--smem`` is (a smem atom name in the operand's element
    type), repeated to ``tile_to`` when given (:func:`layoutalg.atoms.layout_text.layout_of`)."""
    from layoutalg.atoms.layout_text import layout_of
    from layoutalg.core.layout import Layout

    if smem is None:
        raise LayoutError(f"{setup.copy.kind} needs smem=: the layout from (row, col) of operand {setup.operand} "
                          f"({setup.dims[0]}, {setup.dims[1]}) to the shared-memory element offset, e.g. "
                          "'Sw<3,3,3> o _0 o (64,64):(64,1)'")
    smem = layout_of(smem, setup.dtype, tile_to)
    if not isinstance(smem, Layout) and not all(hasattr(smem, a) for a in ("outer", "offset", "inner")):
        raise LayoutError(f"smem must be a Layout or ComposedLayout (or its notation), got {describe(smem)}")
    return smem


def _extents(layout: Any, setup: FragmentSetup) -> tuple[int, int]:
    from layoutalg.core import int_tuple as it

    shape = layout.shape
    if not it.is_tuple(shape) or len(shape) != 2:
        raise ShapeError(f"smem {layout} must have rank 2, (rows, cols) of operand {setup.operand} = "
                         f"({setup.dims[0]}, {setup.dims[1]}); group its modes, e.g. ((8,16),64):((64,512),1)")
    rows, cols = it.product(shape[0]), it.product(shape[1])
    tr, tc = setup.tile
    what = f"one {setup.copy.ptx} carries a {tr} x {tc} ({setup.dims[0]} x {setup.dims[1]}) tile of operand {setup.operand}"
    if rows < tr or cols < tc or rows % tr or cols % tc:
        raise ShapeError(f"smem {layout} is {rows} x {cols}, but {what}; the smem tile must be a multiple of it in each "
                         f"dimension (e.g. {max(tr, rows - rows % tr)} x {max(tc, cols - cols % tc)})"
                         + ("; or pass along='row'" if setup.fragments > 1 and setup.along == "col" else ""))
    return rows, cols


__all__ = ["FragmentSetup", "resolve", "OPERAND_DIMS", "refuse_non_warp_mma"]

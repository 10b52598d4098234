"""Warp-level ``mma.sync`` instructions as data, in CuTe's thread-value (TV) convention.

Each :class:`MmaAtom` holds CuTe's ``MMA_Traits`` facts (cute/atom/mma_traits_sm70/75/80/89.hpp):

* ``thr_id``   : CuTe's ``ThrID``, logical atom thread -> lane (``32:1``, or the
  sm70 quad-pair ``(4,2):(1,16)``);
* ``a_layout`` : ``(thr, val) -> m + M*k``   (A is M x K, column-major index),
* ``b_layout`` : ``(thr, val) -> n + N*k``   (CuTe stores B as N x K),
* ``c_layout`` : ``(thr, val) -> m + M*n``.

PTX-level semantics, independent of CuTe's encoding
---------------------------------------------------
The PTX ISA ("Matrix Fragments for mma.mMnNkK") numbers the elements a thread
holds ``a0, a1, ...`` (low to high: register ``j`` holds elements
``j*E .. j*E+E-1`` where ``E = 32 // element bits``, 1 for f64) and gives, for
``%laneid`` and element ``i``, the row and column of that element in the PTX
matrix (A is M x K, **B is K x N**, C/D is M x N), with
``groupID = %laneid >> 2`` and ``threadID_in_group = %laneid % 4``.  This module
states those formulas as code:

* ``atom.fragment_coord(operand, lane, i) -> (row, col)`` in the PTX matrix;
* ``atom.fragment_coord_reg(operand, lane, reg, elem)`` the same with ``i = reg*E + elem``;
* ``atom.elements_per_register(operand)`` is ``E``;
* ``atom.ptx_layout(operand)`` is the ``Layout`` ``(lane, i) -> index`` fitted to
  (and checked against, at every point) ``fragment_coord``, with ``index``
  in CuTe's convention above (A: ``row + M*col``; B: ``col + N*row``;
  C: ``row + M*col``).  For sm70 ``m8n8k4`` a warp runs four independent MMAs,
  one per quad pair (lanes ``4q..4q+3`` and ``16+4q..16+4q+3``);
  ``ptx_layout`` then adds ``q * (size of the operand)`` so lanes of different
  MMAs never collide, and ``atom.ptx_mma_index(lane) = (lane % 16) // 4``.

For every atom, ``ptx_layout(op)(thr_id(t), v) == op_layout(t, v)`` for every
CuTe thread ``t`` and value ``v``: CuTe's value order is the PTX element order.
The tests check that against the formulas re-typed from the PTX ISA.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

from layoutalg.atoms.fragment import fit_layout, index_arg
from layoutalg.core.dtypes import cute_name, dtype, dtype_bits
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe
from layoutalg.errors import InstructionError, LayoutError

Coord = tuple[Any, Any]  # ints, or terms when the lane / element is symbolic
# formula(operand, lane, i) -> (row, col) in the PTX matrix (A: MxK, B: KxN, C: MxN)
Formula = Callable[[str, Any, Any], Coord]

#: Bits of each PTX element type the mma atoms use: the one table (:mod:`layoutalg.core.dtypes`), plus the
#: complex accumulators of CuTe's double-complex atoms (``c64``: complex<double>, ``gc64``: CuTe's Gauss-complex
#: accumulator, 3 doubles), atom-internal names rather than element types users type.
TYPE_BITS = {name: dtype_bits(name) for name in ("f16", "bf16", "tf32", "f32", "f64", "s32", "s8", "u8", "s4", "u4",
                                                 "e4m3", "e5m2", "b1", "s16")}
TYPE_BITS.update({"c64": 128, "gc64": 192})


def mma_type(x: Any) -> str | None:
    """The :data:`TYPE_BITS` name of an mma element type given in any spelling of the dtype table (``"float16"``,
    ``torch.bfloat16``, ``"int8"``: :func:`layoutalg.core.dtypes.dtype`), or None when it names none."""
    if isinstance(x, str) and x.strip().lower() in TYPE_BITS:
        return x.strip().lower()
    try:
        name = dtype(x).name
    except LayoutError:
        return None
    return name if name in TYPE_BITS else None


def _g(lane: int) -> int:
    return lane >> 2


def _t(lane: int) -> int:
    return lane % 4


def _c_m16n8(lane: int, i: int) -> Coord:
    """C/D of every m16n8 shape: row = groupID (+8 for c2,c3); col = threadID_in_group*2 + (i & 1)."""
    return _g(lane) + 8 * (i >> 1), 2 * _t(lane) + (i & 1)


def _m16n8k16_f16(op: str, lane: int, i: int) -> Coord:
    """m16n8k16 .f16/.bf16.

    A: row = groupID for a0,a1,a4,a5 else groupID+8;  col = tig*2 + (i&1) (+8 for i >= 4).
    B: row = tig*2 + (i&1) (+8 for i >= 2);           col = groupID.
    """
    g, t = _g(lane), _t(lane)
    if op == "A":
        return g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)
    if op == "B":
        return 2 * t + (i & 1) + 8 * (i >> 1), g
    return _c_m16n8(lane, i)


def _m16n8k8_f16(op: str, lane: int, i: int) -> Coord:
    """m16n8k8 .f16/.bf16.  A: row = groupID (+8 for a2,a3), col = tig*2 + (i&1).  B: row = tig*2 + i, col = groupID."""
    g, t = _g(lane), _t(lane)
    if op == "A":
        return g + 8 * (i >> 1), 2 * t + (i & 1)
    if op == "B":
        return 2 * t + i, g
    return _c_m16n8(lane, i)


def _m16n8k4_tf32(op: str, lane: int, i: int) -> Coord:
    """m16n8k4 .tf32.  A: row = groupID (+8 for a1), col = tig.  B: row = tig, col = groupID."""
    g, t = _g(lane), _t(lane)
    if op == "A":
        return g + 8 * i, t
    if op == "B":
        return t, g
    return _c_m16n8(lane, i)


def _m16n8k8_tf32(op: str, lane: int, i: int) -> Coord:
    """m16n8k8 .tf32.  A: row = groupID (+8 for a1,a3), col = tig (+4 for a2,a3).  B: row = tig (+4 for b1), col = groupID."""
    g, t = _g(lane), _t(lane)
    if op == "A":
        return g + 8 * (i & 1), t + 4 * (i >> 1)
    if op == "B":
        return t + 4 * i, g
    return _c_m16n8(lane, i)


def _m16n8k32_8bit(op: str, lane: int, i: int) -> Coord:
    """m16n8k32 .s8/.u8/.e4m3/.e5m2.

    A: row = groupID for a0..a3, a8..a11 else groupID+8;  col = tig*4 + (i&3) (+16 for i >= 8).
    B: row = tig*4 + (i&3) (+16 for i >= 4);              col = groupID.
    """
    g, t = _g(lane), _t(lane)
    if op == "A":
        return g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)
    if op == "B":
        return 4 * t + (i & 3) + 16 * (i >> 2), g
    return _c_m16n8(lane, i)


def _m16n8k64_4bit(op: str, lane: int, i: int) -> Coord:
    """m16n8k64 .s4/.u4.

    A: row = groupID for a0..a7, a16..a23 else groupID+8;  col = tig*8 + (i&7) (+32 for i >= 16).
    B: row = tig*8 + (i&7) (+32 for i >= 8);               col = groupID.
    """
    g, t = _g(lane), _t(lane)
    if op == "A":
        return g + 8 * ((i >> 3) & 1), 8 * t + (i & 7) + 32 * (i >> 4)
    if op == "B":
        return 8 * t + (i & 7) + 32 * (i >> 3), g
    return _c_m16n8(lane, i)


def _m8n8k4_f64(op: str, lane: int, i: int) -> Coord:
    """m8n8k4 .f64.  A: (groupID, tig).  B: (tig, groupID).  C: row = groupID, col = tig*2 + i."""
    g, t = _g(lane), _t(lane)
    if op == "A":
        return g, t
    if op == "B":
        return t, g
    return g, 2 * t + i


def _sm70(a_row_major: bool, b_row_major: bool, c_bits: int) -> Formula:
    """m8n8k4 .f16 (sm70), one MMA per quad pair; ``hi = %laneid >= 16``, ``l = %laneid % 4``.

    A .row: (l + 4*hi, i).          A .col: (i + 4*hi, l).
    B .row: (l, i + 4*hi).          B .col: (i, l + 4*hi).
    C .f16: (l + 4*hi, i).
    C .f32: row = (l & 1) + (i & 2) + 4*hi,  col = (l & 2) + (i & 5).
    """

    def formula(op: str, lane: int, i: int) -> Coord:
        hi, low = lane >> 4, lane % 4  # hi = (%laneid >= 16) for a lane in [0, 32); works on terms too
        if op == "A":
            return (low + 4 * hi, i) if a_row_major else (i + 4 * hi, low)
        if op == "B":
            return (low, i + 4 * hi) if b_row_major else (i, low + 4 * hi)
        if c_bits == 16:
            return low + 4 * hi, i
        return (low & 1) + (i & 2) + 4 * hi, (low & 2) + (i & 5)

    return formula


@dataclass(frozen=True)
class MmaAtom:
    """One ``mma.sync`` instruction: CuTe's MMA_Traits plus the PTX fragment formulas.

    ``name`` is CuTe's (``SM80_16x8x16_F32F16F16F32_TN``); ``ptx`` the full PTX
    instruction; ``shape_mnk`` the instruction shape; types are PTX type names.
    """

    name: str
    ptx: str
    arch: int
    shape_mnk: tuple[int, int, int]
    thr_id: Layout
    a_layout: Layout
    b_layout: Layout
    c_layout: Layout
    a_type: str
    b_type: str
    c_type: str
    d_type: str
    formula: Formula = field(repr=False, compare=False, hash=False)

    @property
    def num_threads(self) -> int:
        return self.thr_id.size()

    def layout(self, operand: str) -> Layout:
        """CuTe's TV layout of ``operand`` in ``"A" "B" "C"`` (``"D"`` is ``C``)."""
        op = _operand(operand)
        return {"A": self.a_layout, "B": self.b_layout, "C": self.c_layout}[op]

    def operand_bits(self, operand: str) -> int:
        op = _operand(operand)
        return TYPE_BITS[{"A": self.a_type, "B": self.b_type, "C": self.c_type}[op]]

    def elements_per_register(self, operand: str) -> int:
        """``E``: elements of ``operand`` packed in one 32-bit register (1 for f64)."""
        return max(1, 32 // self.operand_bits(operand))

    def num_elements(self, operand: str) -> int:
        """Elements of ``operand`` each lane holds (PTX ``a0..a{n-1}``)."""
        return self.layout(operand)[1].size()

    def ptx_matrix_shape(self, operand: str) -> tuple[int, int]:
        """(rows, cols) of the PTX matrix: A is M x K, B is K x N, C is M x N."""
        m, n, k = self.shape_mnk
        return {"A": (m, k), "B": (k, n), "C": (m, n)}[_operand(operand)]

    def fragment_coord(self, operand: str, lane: Any, i: Any) -> Coord:
        """(row, col) in the PTX matrix of element ``i`` held by ``lane`` (PTX ISA fragment table).

        ``lane`` and ``i`` are ints, or symbolic terms (``layoutalg.prove.var``), which give the
        formula as terms (see :func:`layoutalg.atoms.fragment.index_arg`).
        """
        op = _operand(operand)
        n = self.num_elements(op)
        lane = index_arg(lane, 32, "lane")
        i = index_arg(i, n, f"{self.name}: element index i for operand {op}")
        return self.formula(op, lane, i)

    def fragment_coord_reg(self, operand: str, lane: Any, reg: Any, elem: Any) -> Coord:
        """``fragment_coord`` with ``i = reg * elements_per_register + elem`` (ints or symbolic terms)."""
        e = self.elements_per_register(operand)
        elem = index_arg(elem, e, f"elem for operand {operand}")
        reg = index_arg(reg, max(1, self.num_elements(operand) // e), f"register for operand {operand}")
        return self.fragment_coord(operand, lane, reg * e + elem)

    def ptx_mma_index(self, lane: Any) -> Any:
        """Which of the warp's MMAs ``lane`` takes part in (0 except sm70 m8n8k4: ``(lane % 16) // 4``)."""
        lane = index_arg(lane, 32, "lane")
        return (lane % 16) // 4 if self.arch == 70 else 0

    def ptx_index(self, operand: str, lane: Any, i: Any) -> Any:
        """``fragment_coord`` as an index in CuTe's convention (plus the sm70 MMA offset)."""
        op = _operand(operand)
        row, col = self.fragment_coord(op, lane, i)
        m, n, k = self.shape_mnk
        if op == "A":
            idx = row + m * col
        elif op == "B":
            idx = col + n * row
        else:
            idx = row + m * col
        rows, cols = self.ptx_matrix_shape(op)
        return idx + rows * cols * self.ptx_mma_index(lane)

    def ptx_layout(self, operand: str) -> Layout:
        """``(lane, i) -> index``: the PTX fragment formula as a Layout (checked at every point)."""
        return self._ptx_layouts[_operand(operand)]

    @cached_property
    def _ptx_layouts(self) -> dict[str, Layout]:
        return {
            op: fit_layout(lambda lane, i, op=op: self.ptx_index(op, lane, i), (32, self.num_elements(op)), f"{self.name} {op}")
            for op in "ABC"
        }

    def __str__(self) -> str:
        m, n, k = self.shape_mnk
        return f"{self.name} ({self.ptx}): {m}x{n}x{k}, ThrID {self.thr_id}, A {self.a_layout}, B {self.b_layout}, C {self.c_layout}"


def _operand(operand: str) -> str:
    op = str(operand).upper()
    if op == "D":
        op = "C"
    if op not in ("A", "B", "C"):
        raise InstructionError(f"operand must be 'A', 'B', 'C' or 'D', got {describe(operand)}")
    return op


def L(shape: object, stride: object) -> Layout:
    return Layout(shape, stride)


# Shared CuTe layouts (cute/atom/mma_traits_sm80.hpp)
_SM80_8x4 = L(((4, 8), 1), ((8, 1), 0))
_SM80_8x8_Row = L(((4, 8), 2), ((16, 1), 8))
_SM80_16x8_Row = L(((4, 8), (2, 2)), ((32, 1), (16, 8)))
_T32 = Layout(32)

# cute/atom/mma_traits_sm70.hpp
_SM70_QuadPair = L((4, 2), (1, 16))
_SM70_8x4_Row = L((8, 4), (1, 8))
_SM70_8x4_Col = L(((4, 2), 4), ((8, 4), 1))
_SM70_8x8_16b = L((8, 8), (1, 8))
_SM70_8x8_32b = L(((2, 2, 2), (2, 2, 2)), ((1, 16, 4), (8, 2, 32)))



def _make(arch: int, mnk: tuple[int, int, int], a: str, b: str, c: str, layouts: tuple[Layout, Layout, Layout, Layout],
          formula: Formula, major: str = "TN", ptx_layout: str = "row.col") -> MmaAtom:
    m, n, k = mnk
    name = f"SM{arch}_{m}x{n}x{k}_{cute_name(c)}{cute_name(a)}{cute_name(b)}{cute_name(c)}_{major}"
    ptx = f"mma.sync.aligned.m{m}n{n}k{k}.{ptx_layout}.{c}.{a}.{b}.{c}"
    thr, la, lb, lc = layouts
    return MmaAtom(name, ptx, arch, mnk, thr, la, lb, lc, a, b, c, c, formula)


def _build() -> list[MmaAtom]:
    atoms: list[MmaAtom] = []
    # sm70 m8n8k4 f16 (quad pairs); CuTe's TN = PTX .row.col (A K-major, B K-major)
    sm70_majors = {"TN": ("row", "col"), "NT": ("col", "row"), "NN": ("col", "col"), "TT": ("row", "row")}
    for c in ("f16", "f32"):
        c_layout = _SM70_8x8_16b if c == "f16" else _SM70_8x8_32b
        for major, (am, bm) in sm70_majors.items():
            la = _SM70_8x4_Row if am == "row" else _SM70_8x4_Col
            # CuTe's B layout is over (N,K): PTX .col B (K-major) is CuTe's "Row" 8x4 layout
            lb = _SM70_8x4_Row if bm == "col" else _SM70_8x4_Col
            atoms.append(_make(70, (8, 8, 4), "f16", "f16", c, (_SM70_QuadPair, la, lb, c_layout),
                               _sm70(am == "row", bm == "row", TYPE_BITS[c]), major, f"{am}.{bm}"))
    # sm75 m16n8k8
    a16x8x8 = L(((4, 8), (2, 2)), ((32, 1), (16, 8)))
    b16x8x8 = L(((4, 8), 2), ((16, 1), 8))
    atoms.append(_make(75, (16, 8, 8), "f16", "f16", "f32", (_T32, a16x8x8, b16x8x8, _SM80_16x8_Row), _m16n8k8_f16))
    # sm80 f16 / bf16
    a16x8x16 = L(((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128)))
    b16x8x16 = L(((4, 8), (2, 2)), ((16, 1), (8, 64)))
    for a, c in (("f16", "f16"), ("f16", "f32"), ("bf16", "f32")):
        atoms.append(_make(80, (16, 8, 8), a, a, c, (_T32, _SM80_16x8_Row, _SM80_8x8_Row, _SM80_16x8_Row), _m16n8k8_f16))
        atoms.append(_make(80, (16, 8, 16), a, a, c, (_T32, a16x8x16, b16x8x16, _SM80_16x8_Row), _m16n8k16_f16))
    # sm80 tf32
    atoms.append(_make(80, (16, 8, 4), "tf32", "tf32", "f32",
                       (_T32, L(((4, 8), 2), ((16, 1), 8)), _SM80_8x4, _SM80_16x8_Row), _m16n8k4_tf32))
    atoms.append(_make(80, (16, 8, 8), "tf32", "tf32", "f32",
                       (_T32, L(((4, 8), (2, 2)), ((16, 1), (8, 64))), L(((4, 8), 2), ((8, 1), 32)), _SM80_16x8_Row),
                       _m16n8k8_tf32))
    # sm80 8-bit and 4-bit integers
    a_k32 = L(((4, 8), (4, 2, 2)), ((64, 1), (16, 8, 256)))
    b_k32 = L(((4, 8), (4, 2)), ((32, 1), (8, 128)))
    a_k64 = L(((4, 8), (8, 2, 2)), ((128, 1), (16, 8, 512)))
    b_k64 = L(((4, 8), (8, 2)), ((64, 1), (8, 256)))
    for a in ("s8", "u8"):
        for b in ("s8", "u8"):
            atoms.append(_make(80, (16, 8, 32), a, b, "s32", (_T32, a_k32, b_k32, _SM80_16x8_Row), _m16n8k32_8bit))
    for a in ("s4", "u4"):
        for b in ("s4", "u4"):
            atoms.append(_make(80, (16, 8, 64), a, b, "s32", (_T32, a_k64, b_k64, _SM80_16x8_Row), _m16n8k64_4bit))
    # sm80 f64
    atoms.append(_make(80, (8, 8, 4), "f64", "f64", "f64", (_T32, _SM80_8x4, _SM80_8x4, _SM80_8x8_Row), _m8n8k4_f64))
    # sm89 fp8
    for a in ("e4m3", "e5m2"):
        for b in ("e4m3", "e5m2"):
            for c in ("f32", "f16"):
                atoms.append(_make(89, (16, 8, 32), a, b, c, (_T32, a_k32, b_k32, _SM80_16x8_Row), _m16n8k32_8bit))
    return atoms


MMA_ATOMS: tuple[MmaAtom, ...] = tuple(_build())

__all__ = ["MmaAtom", "MMA_ATOMS", "TYPE_BITS", "mma_type"]

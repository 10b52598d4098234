"""Copy instructions as data: ldmatrix, stmatrix, movmatrix, ld/st.shared, cp.async.

Each :class:`CopyAtom` holds CuTe's ``Copy_Traits`` facts (cute/atom/copy_traits_sm75/80/90.hpp),
**in bits** as CuTe states them:

* ``thr_id``     : logical thread -> lane (``32:1`` for warp-wide matrix ops, ``1:0``... ``Layout(1)`` for per-thread copies);
* ``src_layout`` : ``(src thr, src val) -> bit`` in the atom's reference coordinate space;
* ``dst_layout`` : ``(dst thr, dst val) -> bit``;
* ``ref_layout`` : the reference TV layout (``dst`` for ldmatrix, ``src`` for stmatrix).

``atom.bind(bits)`` gives the :class:`TypedCopyAtom` (CuTe ``Copy_Atom<Op, T>``) whose
``val_layout_src/dst/ref`` are those layouts upcast to ``bits``-wide values
(``recast_layout<uint1_t, T>``), with CuTe's check that each still has
``size(thr_id)`` threads.

PTX-level semantics of the matrix instructions (independent of CuTe's encoding)
-------------------------------------------------------------------------------
From the PTX ISA (``ldmatrix``, ``stmatrix``, ``movmatrix``) for ``.m8n8`` ``.b16``
with ``num`` matrices (``.x1 .x2 .x4``).  Each matrix has 8 rows of 8 16-bit
elements (16 bytes per row); "row" and "col" refer to the matrix **as it lies in
shared memory** (row ``r`` of matrix ``i`` is the 16 bytes at the address lane
``8*i + r`` supplies).

* ``atom.row_address_lane(matrix, row) = 8*matrix + row`` (lanes ``0 .. 8*num-1`` supply addresses).
* ``atom.fragment_coord(lane, reg, half) -> (matrix, row, col)``: the 16-bit element that
  ``lane`` holds in half ``half`` (0 = low 16 bits) of its destination (ldmatrix) or
  source (stmatrix) register ``reg``; register ``reg`` belongs to matrix ``reg``::

      no .trans:  (reg, lane // 4, 2*(lane % 4) + half)
      .trans   :  (reg, 2*(lane % 4) + half, lane // 4)

* ``atom.address_layout``  : ``Layout`` ``(row, matrix) -> lane`` = ``(8,num):(1,8)``.
* ``atom.fragment_layout`` : ``Layout`` ``(lane, (half, reg)) -> 64*matrix + 8*row + col``,
  fitted to ``fragment_coord`` and checked at every point.

CuTe's bit coordinate of (matrix, row, col, bit b) is ``1024*matrix + 128*row + 16*col + b``;
the tests check every atom's CuTe layouts against the formulas above.

``movmatrix.sync.aligned.m8n8.trans.b16 d, a``: the source register of ``lane`` holds
``(lane // 4, 2*(lane % 4) + h)`` of the source matrix; the destination register holds
``(2*(lane % 4) + h, lane // 4)`` of the *source* matrix (``movmatrix_coords``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from layoutalg.atoms.fragment import fit_layout, index_arg, upcast_bits
from layoutalg.core.layout import Layout
from layoutalg.core.validate import as_int, describe
from layoutalg.errors import InstructionError, LayoutError

MatrixCoord = tuple[Any, Any, Any]  # ints, or terms when the arguments are symbolic


@dataclass(frozen=True)
class CopyAtom:
    """One copy instruction: CuTe's Copy_Traits (bit layouts) plus PTX facts.

    ``kind`` is one of ``ldmatrix stmatrix movmatrix ld.shared st.shared cp.async``;
    ``num_matrices``/``trans`` describe the matrix instructions; ``vector_bits``
    is the bits each thread moves (for the per-thread copies).
    """

    name: str
    ptx: str
    arch: int
    kind: str
    thr_id: Layout
    src_layout: Layout
    dst_layout: Layout
    ref_layout: Layout
    num_matrices: int = 0
    trans: bool = False
    vector_bits: int = 0

    @property
    def num_threads(self) -> int:
        return self.thr_id.size()

    @property
    def is_matrix(self) -> bool:
        return self.kind in ("ldmatrix", "stmatrix", "movmatrix")

    def bind(self, bits: int) -> "TypedCopyAtom":
        """CuTe ``Copy_Atom<Op, T>`` with ``sizeof_bits<T> == bits``."""
        return TypedCopyAtom(self, bits)

    # -- PTX semantics of ldmatrix / stmatrix -------------------------------
    def _check_matrix_op(self) -> None:
        if self.kind not in ("ldmatrix", "stmatrix"):
            raise InstructionError(f"{self.name} is not an ldmatrix/stmatrix instruction")

    def row_address_lane(self, matrix: Any, row: Any) -> Any:
        """The lane whose address operand names row ``row`` of matrix ``matrix``: ``8*matrix + row``.

        Ints, or symbolic terms (``layoutalg.prove.var``) for the formula as a term.
        """
        self._check_matrix_op()
        matrix = index_arg(matrix, self.num_matrices, f"{self.name}: matrix")
        row = index_arg(row, 8, "row")
        return 8 * matrix + row

    def fragment_coord(self, lane: Any, reg: Any, half: Any) -> MatrixCoord:
        """(matrix, row, col) of the element in half ``half`` of register ``reg`` of ``lane`` (ints or terms)."""
        self._check_matrix_op()
        lane = index_arg(lane, 32, "lane")
        reg = index_arg(reg, self.num_matrices, f"{self.name}: register")
        half = index_arg(half, 2, "half")
        if self.trans:
            return reg, 2 * (lane % 4) + half, lane // 4
        return reg, lane // 4, 2 * (lane % 4) + half

    @property
    def address_layout(self) -> Layout:
        """``(row, matrix) -> lane`` supplying that row's address."""
        self._check_matrix_op()
        return fit_layout(lambda r, i: self.row_address_lane(i, r), (8, self.num_matrices), f"{self.name} addresses")

    @cached_property
    def fragment_layout(self) -> Layout:
        """``(lane, (half, reg)) -> 64*matrix + 8*row + col`` from the PTX formula."""
        self._check_matrix_op()

        def index(lane: int, half: int, reg: int) -> int:
            m, r, c = self.fragment_coord(lane, reg, half)
            return 64 * m + 8 * r + c

        flat = fit_layout(index, (32, 2, self.num_matrices), f"{self.name} fragments")
        return Layout((flat.shape[0], (flat.shape[1], flat.shape[2])), (flat.stride[0], (flat.stride[1], flat.stride[2])))  # type: ignore[index]

    def __str__(self) -> str:
        return (f"{self.name} ({self.ptx}): ThrID {self.thr_id}, Src {self.src_layout}, "
                f"Dst {self.dst_layout}, Ref {self.ref_layout} (bits)")


def movmatrix_coords(lane: Any, half: Any) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """``movmatrix.trans``: ((row, col) of the source element in ``lane``'s source register half ``half``,
    (row, col) *of the source matrix* that lands in ``lane``'s destination register half ``half``).
    Ints, or symbolic terms for the formula as terms."""
    lane = index_arg(lane, 32, "lane")
    half = index_arg(half, 2, "half")
    return (lane // 4, 2 * (lane % 4) + half), (2 * (lane % 4) + half, lane // 4)


@dataclass(frozen=True)
class TypedCopyAtom:
    """CuTe ``Copy_Atom<Op, T>``: a :class:`CopyAtom` with a value width in bits."""

    atom: CopyAtom
    bits: int

    def __post_init__(self) -> None:
        if not isinstance(self.atom, CopyAtom):
            raise InstructionError(f"TypedCopyAtom atom must be a CopyAtom, got {describe(self.atom)}")
        object.__setattr__(self, "bits", as_int(self.bits, "value bits"))
        if self.bits <= 0:
            raise LayoutError(f"value bits must be a positive int, got {describe(self.bits)}")
        for which in ("src", "dst", "ref"):
            bit_layout = getattr(self.atom, f"{which}_layout")
            try:
                lay = upcast_bits(bit_layout, self.bits)
            except LayoutError as err:
                raise LayoutError(f"CopyOperation {self.atom.name} is not valid for {which.capitalize()} of "
                                  f"{self.bits}-bit values: {err}") from None
            if lay[0].size() != self.atom.num_threads or bit_layout[1].size() % self.bits:
                raise LayoutError(f"CopyOperation {self.atom.name} is not valid for {which.capitalize()} of "
                                  f"{self.bits}-bit values: its {which} layout {bit_layout} (bits) does not split into "
                                  f"{self.bits}-bit values per thread; use values of at most "
                                  f"{_max_bits(bit_layout)} bits")

    @property
    def name(self) -> str:
        return self.atom.name

    @property
    def thr_id(self) -> Layout:
        return self.atom.thr_id

    @property
    def val_layout_src(self) -> Layout:
        return upcast_bits(self.atom.src_layout, self.bits)

    @property
    def val_layout_dst(self) -> Layout:
        return upcast_bits(self.atom.dst_layout, self.bits)

    @property
    def val_layout_ref(self) -> Layout:
        return upcast_bits(self.atom.ref_layout, self.bits)

    @property
    def num_val_src(self) -> int:
        return self.val_layout_src[1].size()

    @property
    def num_val_dst(self) -> int:
        return self.val_layout_dst[1].size()

    def __str__(self) -> str:
        return (f"Copy_Atom<{self.atom.name}, {self.bits}b>: ThrID {self.thr_id}, ValLayoutSrc {self.val_layout_src}, "
                f"ValLayoutDst {self.val_layout_dst}, ValLayoutRef {self.val_layout_ref}")


def _max_bits(bit_layout: Layout) -> int:
    """Largest power-of-two width that splits each thread's bits into whole values and whose upcast keeps every
    thread (for the error message)."""
    best = 1
    b = 1
    while b <= 1024:
        try:
            if bit_layout[1].size() % b == 0 and upcast_bits(bit_layout, b)[0].size() == bit_layout[0].size():
                best = b
        except LayoutError:
            pass
        b *= 2
    return best


L = Layout

# -- ldmatrix (cute/atom/copy_traits_sm75.hpp) --------------------------------
_LDSM_SRC = {1: L(((8, 4), 128), ((128, 0), 1)), 2: L(((16, 2), 128), ((128, 0), 1)), 4: L((32, 128), (128, 1))}
_LDSM_N_DST = {1: L((32, 32), (32, 1)), 2: L((32, (32, 2)), (32, (1, 1024))), 4: L((32, (32, 4)), (32, (1, 1024)))}
_LDSM_T_DST = {
    1: L(((4, 8), (16, 2)), ((256, 16), (1, 128))),
    2: L(((4, 8), (16, 2, 2)), ((256, 16), (1, 128, 1024))),
    4: L(((4, 8), (16, 2, 4)), ((256, 16), (1, 128, 1024))),
}
_T32 = Layout(32)


def _matrix_atoms() -> list[CopyAtom]:
    atoms: list[CopyAtom] = []
    for num in (1, 2, 4):
        n_name = {1: "U32x1", 2: "U32x2", 4: "U32x4"}[num]
        t_name = {1: "U16x2", 2: "U16x4", 4: "U16x8"}[num]
        src, dst_n, dst_t = _LDSM_SRC[num], _LDSM_N_DST[num], _LDSM_T_DST[num]
        atoms.append(CopyAtom(f"SM75_{n_name}_LDSM_N", f"ldmatrix.sync.aligned.m8n8.x{num}.shared.b16", 75,
                              "ldmatrix", _T32, src, dst_n, dst_n, num, False))
        atoms.append(CopyAtom(f"SM75_{t_name}_LDSM_T", f"ldmatrix.sync.aligned.m8n8.x{num}.trans.shared.b16", 75,
                              "ldmatrix", _T32, src, dst_t, dst_t, num, True))
        # stmatrix (cute/atom/copy_traits_sm90.hpp): Src = LDSM's Dst, Dst = LDSM's Src, Ref = Src
        atoms.append(CopyAtom(f"SM90_{n_name}_STSM_N", f"stmatrix.sync.aligned.m8n8.x{num}.shared.b16", 90,
                              "stmatrix", _T32, dst_n, src, dst_n, num, False))
        atoms.append(CopyAtom(f"SM90_{t_name}_STSM_T", f"stmatrix.sync.aligned.m8n8.x{num}.trans.shared.b16", 90,
                              "stmatrix", _T32, dst_t, src, dst_t, num, True))
    movm = L((32, 32), (32, 1))
    atoms.append(CopyAtom("SM75_U32x1_MOVM_T", "movmatrix.sync.aligned.m8n8.trans.b16", 75, "movmatrix",
                          _T32, movm, movm, movm, 1, True))
    return atoms


_UINT = {8: "uint8_t", 16: "uint16_t", 32: "uint32_t", 64: "uint64_t", 128: "uint128_t"}
_LD_PTX = {8: "ld.shared.u8", 16: "ld.shared.u16", 32: "ld.shared.u32", 64: "ld.shared.v2.u32", 128: "ld.shared.v4.u32"}


def _per_thread_atoms() -> list[CopyAtom]:
    atoms: list[CopyAtom] = []
    one = Layout(1, 0)  # CuTe prints Layout<_1> as _1:_0
    for bits, uint in _UINT.items():
        lay = L((1, bits), (0, 1))  # CuTe Layout<Shape<_1, Int<bits>>>: compact, an extent-1 mode has stride 0
        atoms.append(CopyAtom(f"UniversalCopy<{uint}>", _LD_PTX[bits], 50, "ld.shared", one, lay, lay, lay,
                              vector_bits=bits))
        atoms.append(CopyAtom(f"UniversalCopy<{uint}>", _LD_PTX[bits].replace("ld.", "st."), 50, "st.shared",
                              one, lay, lay, lay, vector_bits=bits))
    for nbytes in (4, 8, 16):
        bits = 8 * nbytes
        lay = L((1, bits), (0, 1))
        atoms.append(CopyAtom(f"SM80_CP_ASYNC_CACHEALWAYS<{_UINT[bits]}>",
                              f"cp.async.ca.shared.global [dst], [src], {nbytes}", 80, "cp.async", one, lay, lay, lay,
                              vector_bits=bits))
    lay = L((1, 128), (0, 1))
    atoms.append(CopyAtom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "cp.async.cg.shared.global [dst], [src], 16", 80,
                          "cp.async", one, lay, lay, lay, vector_bits=128))
    return atoms


COPY_ATOMS: tuple[CopyAtom, ...] = tuple(_matrix_atoms() + _per_thread_atoms())


def find_matrix_atom(kind: str, num: int, trans: bool) -> CopyAtom | None:
    for atom in COPY_ATOMS:
        if atom.kind == kind and atom.num_matrices == num and atom.trans == trans:
            return atom
    return None


__all__ = ["CopyAtom", "TypedCopyAtom", "COPY_ATOMS", "movmatrix_coords", "find_matrix_atom"]

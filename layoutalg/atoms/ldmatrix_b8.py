"""The 8-bit ``ldmatrix`` / ``stmatrix`` forms (sm_100a / sm_120a): PTX semantics and CuTe's SM100 atoms.

PTX ISA ("Warp-level matrix load instruction: ldmatrix", "... store instruction: stmatrix"):

* ``ldmatrix.sync.aligned.m16n16.{x1,x2}.trans.shared.{b8 | b8x16.b6x16_p32 | b8x16.b4x16_p64}``:
  16 x 16 matrices, ``.trans`` mandatory, two registers per matrix;
* ``ldmatrix.sync.aligned.m8n16.{x1,x2,x4}.shared.b8x16.{b6x16_p32 | b4x16_p64}``: 8 x 16
  matrices, never transposed, one register per matrix;
* ``stmatrix.sync.aligned.m16n8.{x1,x2,x4}.trans.shared.b8``: 16 x 8 matrices stored
  transposed (8 rows of 16 bytes in shared memory), one register per matrix.

A *row* below is a row as it lies in shared memory: 16 bytes at the address one lane supplies
(lane ``R*matrix + row``, ``R`` = rows per matrix: 16 for m16n16, 8 otherwise).  A row holds 16
elements: bytes (``.b8``), or packed 6-bit / 4-bit values followed by 32 / 64 bits of
padding (``b6x16_p32`` / ``b4x16_p64``; element ``c`` occupies row bits
``[w*c, w*c + w)``), each widened into its own destination byte.  For ``lane``, destination
register ``reg`` (``reg // per_matrix`` is the matrix) and byte ``j`` of it
(``g = lane >> 2``, ``t = lane % 4``, ``h = reg % per_matrix``)::

    m16n16 .trans   (row, col) = (4t + j, g + 8h)    -- "each thread loads 4 consecutive columns
                                                         across 2 rows" (rows g, g + 8), transposed
    m8n16           (row, col) = (g, 4t + j)        -- "each thread loads 4 consecutive columns"
    stmatrix m16n8 .trans: byte j of lane's register holds element (g + 8*(j >> 1), 2t + (j & 1))
                    of the 16 x 8 fragment, stored at (row, col) = (2t + (j & 1), g + 8*(j >> 1))

(the m16n16 fragment is the 8-bit ``mma.m16n8k32`` A fragment of the transposed tile; the
m16n8 one the ``m16n8`` accumulator fragment).

CuTe's SM100 atoms (cute/atom/copy_traits_sm100.hpp, traits in bits as CuTe states them)
wrap these; ``SM100_U8x8_LDSM_T`` / ``SM100_U8x16_LDSM_T`` also *permute bytes* after the
load (cute/arch/copy_sm100.hpp: ``dst0 = {r0.x, r0.y, r1.x, r1.y}``, ``dst1 = {r0.z, r0.w,
r1.z, r1.w}`` per matrix), so their Dst layout is the PTX fragment composed with that
permutation (:func:`cute_byte_source`).
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.atoms.copy import CopyAtom
from layoutalg.core.layout import Layout
from layoutalg.core.validate import describe
from layoutalg.errors import InstructionError

_WIDTH = {"b8": 8, "b6x16_p32": 6, "b4x16_p64": 4}


@dataclass(frozen=True)
class B8MatrixForm:
    """One PTX 8-bit-destination ldmatrix / stmatrix form (see the module docstring)."""

    kind: str  # "ldmatrix" or "stmatrix"
    shape: str  # "m16n16", "m8n16" (ldmatrix), "m16n8" (stmatrix)
    num: int
    src_fmt: str = "b8"  # "b8", "b6x16_p32", "b4x16_p64"

    def __post_init__(self) -> None:
        valid = {("ldmatrix", "m16n16"): (1, 2), ("ldmatrix", "m8n16"): (1, 2, 4), ("stmatrix", "m16n8"): (1, 2, 4)}
        if not (isinstance(self.kind, str) and isinstance(self.shape, str)):
            raise InstructionError(f"kind and shape must be strings, got {describe(self.kind)}, {describe(self.shape)}")
        nums = valid.get((self.kind, self.shape))
        if nums is None or not (isinstance(self.num, int) and self.num in nums):
            raise InstructionError(f"no {self.kind}.{self.shape}.x{describe(self.num)}; valid: "
                                   + ", ".join(f"{k}.{s}.x{n}" for (k, s), ns in valid.items() for n in ns))
        fmts = {"m16n16": ("b8", "b6x16_p32", "b4x16_p64"), "m8n16": ("b6x16_p32", "b4x16_p64"), "m16n8": ("b8",)}
        if not (isinstance(self.src_fmt, str) and self.src_fmt in fmts[self.shape]):
            raise InstructionError(f"{self.kind}.{self.shape} reads {' or '.join(fmts[self.shape])}, got {describe(self.src_fmt)}")

    @property
    def trans(self) -> bool:
        return self.shape != "m8n16"

    @property
    def ptx(self) -> str:
        fmt = ".b8" if self.src_fmt == "b8" else f".b8x16.{self.src_fmt}"
        return f"{self.kind}.sync.aligned.{self.shape}.x{self.num}{'.trans' if self.trans else ''}.shared{fmt}"

    @property
    def rows_per_matrix(self) -> int:
        return 16 if self.shape == "m16n16" else 8

    @property
    def regs_per_matrix(self) -> int:
        return 2 if self.shape == "m16n16" else 1

    @property
    def num_regs(self) -> int:
        return self.num * self.regs_per_matrix

    @property
    def element_bits(self) -> int:
        """Bits an element occupies in its shared-memory row (8, 6 or 4)."""
        return _WIDTH[self.src_fmt]

    def row_address_lane(self, matrix: int, row: int) -> int:
        """The lane whose address names row ``row`` of matrix ``matrix``."""
        if not 0 <= matrix < self.num or not 0 <= row < self.rows_per_matrix:
            raise InstructionError(f"{self.ptx}: (matrix, row) must lie in [0, {self.num}) x "
                                   f"[0, {self.rows_per_matrix}), got ({matrix}, {row})")
        return self.rows_per_matrix * matrix + row

    def fragment_coord(self, lane: int, reg: int, byte: int) -> tuple[int, int, int]:
        """(matrix, row, col) in shared memory of byte ``byte`` of register ``reg`` of ``lane``."""
        if not 0 <= lane < 32 or not 0 <= reg < self.num_regs or not 0 <= byte < 4:
            raise InstructionError(f"{self.ptx}: lane in [0, 32), reg in [0, {self.num_regs}), byte in [0, 4); "
                                   f"got ({lane}, {reg}, {byte})")
        g, t = lane >> 2, lane % 4
        matrix, h = divmod(reg, self.regs_per_matrix)
        if self.shape == "m16n16":
            return matrix, 4 * t + byte, g + 8 * h
        if self.shape == "m8n16":
            return matrix, g, 4 * t + byte
        return matrix, 2 * t + (byte & 1), g + 8 * (byte >> 1)

    def fragment_layout(self) -> Layout:
        """``(lane, (byte, reg)) -> 16*rows*matrix + 16*row + col`` from :meth:`fragment_coord` (checked everywhere)."""
        from layoutalg.atoms.fragment import fit_layout

        rows = self.rows_per_matrix

        def index(lane: int, byte: int, reg: int) -> int:
            m, r, c = self.fragment_coord(lane, reg, byte)
            return 16 * rows * m + 16 * r + c

        flat = fit_layout(index, (32, 4, self.num_regs), self.ptx)
        return Layout((flat.shape[0], (flat.shape[1], flat.shape[2])), (flat.stride[0], (flat.stride[1], flat.stride[2])))  # type: ignore[index]


def all_forms() -> list[B8MatrixForm]:
    """Every 8-bit ldmatrix / stmatrix form the PTX ISA defines (15: 6 m16n16, 6 m8n16, 3 m16n8)."""
    out = [B8MatrixForm("ldmatrix", "m16n16", n, f) for f in ("b8", "b6x16_p32", "b4x16_p64") for n in (1, 2)]
    out += [B8MatrixForm("ldmatrix", "m8n16", n, f) for f in ("b6x16_p32", "b4x16_p64") for n in (1, 2, 4)]
    out += [B8MatrixForm("stmatrix", "m16n8", n) for n in (1, 2, 4)]
    return out


def cute_byte_source(name: str, reg: int, byte: int) -> tuple[int, int]:
    """CuTe's post-load permutation: (PTX register, byte) that CuTe's ``dst[reg]`` byte ``byte`` comes from.

    Identity except for ``SM100_U8x{8,16}_LDSM_T`` (cute/arch/copy_sm100.hpp), where per matrix
    ``dst0 = {r0.b0, r0.b1, r1.b0, r1.b1}`` and ``dst1 = {r0.b2, r0.b3, r1.b2, r1.b3}``.
    """
    if name not in ("SM100_U8x8_LDSM_T", "SM100_U8x16_LDSM_T"):
        return reg, byte
    pair, h = divmod(reg, 2)
    return 2 * pair + (byte >> 1), 2 * h + (byte & 1)


L = Layout
_T32 = Layout(32)


def _cute_atoms() -> list[tuple[CopyAtom, B8MatrixForm]]:
    """CuTe's SM100 atoms (traits verbatim, in bits) with the PTX form each executes."""
    def ldsm_n(num: int) -> tuple[Layout, Layout]:
        src = {1: L(((8, 4), 128), ((128, 0), 1)), 2: L(((16, 2), 128), ((128, 0), 1)), 4: L((32, 128), (128, 1))}[num]
        dst = L((32, 32), (32, 1)) if num == 1 else L((32, (32, num)), (32, (1, 1024)))
        return src, dst

    out = []
    for name, num in (("SM100_U8x8_LDSM_T", 1), ("SM100_U8x16_LDSM_T", 2)):
        src = L(((2, 2, 4, 2), 128), ((128, 1024, 256, 0 if num == 1 else 2048), 1))
        dst = L(((4, 8), (8, 2, 2, 2 * num)), ((256, 8), (1, 128, 64, 1024)))
        form = B8MatrixForm("ldmatrix", "m16n16", num)
        out.append((CopyAtom(name, form.ptx, 100, "ldmatrix.b8", _T32, src, dst, dst, num, True), form))
    for bits, fmt in ((4, "b4x16_p64"), (6, "b6x16_p32")):
        for num in (1, 2, 4):
            src, dst = ldsm_n(num)
            form = B8MatrixForm("ldmatrix", "m8n16", num, fmt)
            out.append((CopyAtom(f"SM100_SU{bits}_DU8x16_x{num}_LDSM_N", form.ptx, 100, "ldmatrix.b8", _T32, src, dst,
                                 dst, num, False), form))
    for num in (1, 2, 4):
        src = L(((4, 8), (8, 2, 2) + ((num,) if num > 1 else ())),
                ((256, 8), (1, 128, 64) + ((1024,) if num > 1 else ())))
        dst = {1: L(((8, 4), 128), ((128, 0), 1)), 2: L(((16, 2), 128), ((128, 0), 1)), 4: L((32, 128), (128, 1))}[num]
        form = B8MatrixForm("stmatrix", "m16n8", num)
        out.append((CopyAtom(f"SM100_U8x{4 * num}_STSM_T", form.ptx, 100, "stmatrix.b8", _T32, src, dst, src, num,
                             True), form))
    return out


_PAIRS = _cute_atoms()
B8_COPY_ATOMS: tuple[CopyAtom, ...] = tuple(a for a, _ in _PAIRS)
_FORM_OF = {a.name: f for a, f in _PAIRS}
B8_FORMS: tuple[B8MatrixForm, ...] = tuple(all_forms())


def form_of(atom: CopyAtom) -> B8MatrixForm:
    """The PTX form a CuTe SM100 b8 atom executes."""
    if atom.name not in _FORM_OF:
        raise InstructionError(f"{atom.name} is not one of CuTe's SM100 8-bit ldmatrix/stmatrix atoms")
    return _FORM_OF[atom.name]


def find_form(ptx: str) -> B8MatrixForm | None:
    """The form whose PTX string is ``ptx`` (``.shared::cta`` accepted for ``.shared``)."""
    key = ptx.strip().replace(".shared::cta", ".shared")
    return next((f for f in B8_FORMS if f.ptx == key), None)


__all__ = ["B8MatrixForm", "B8_COPY_ATOMS", "B8_FORMS", "all_forms", "cute_byte_source", "find_form", "form_of"]

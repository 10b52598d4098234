"""The hardware suite as data: every PTX instruction variant the GPU backend runs.

Pure Python (no CuPy, no numpy): the recorder turns these into kernels, the
replay turns them into predictions.  Register conventions (PTX ISA, "Matrix
fragments for mma.m16n8k*"): a lane's fragment of an operand is a list of
*elements*; element ``e`` lives in 32-bit register ``e // per_word`` at bit
``(e % per_word) * bits`` (lower elements in lower bits), except for f64
operands, where element ``e`` is the 64-bit register ``e``.  A *slot* of an
operand is ``lane * elems_per_lane + e``.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.core.dtypes import dtype_bits

HALVES = 8192  # 16 KiB of shared memory per case, in 16-bit units
SMEM_BYTES = 2 * HALVES


def swizzle(bits: int, base: int, shift: int, offset: int) -> int:
    """CuTe ``Swizzle<B,M,S>`` on an offset: ``x ^ ((x & (((1<<B)-1) << (M+S))) >> S)``."""
    yyy = ((1 << bits) - 1) << (base + shift)
    return offset ^ ((offset & yyy) >> shift)


#: Element widths in bits of the PTX element types the suite uses.
TYPE_BITS: dict[str, int] = {name: dtype_bits(name) for name in ("f16", "bf16", "tf32", "f32", "f64", "s8", "u8",
                                                                  "s4", "u4", "e4m3", "e5m2", "s32")}


@dataclass(frozen=True)
class MmaVariant:
    """One ``mma.sync.aligned`` instruction: shape, operand layouts and element types."""

    shape: str  # "m16n8k16"
    a_type: str
    b_type: str
    c_type: str
    d_type: str
    a_major: str = "row"  # PTX .alayout
    b_major: str = "col"  # PTX .blayout
    satfinite: bool = False  # integer .satfinite (CuTe's _SATURATE atoms)

    @property
    def mnk(self) -> tuple[int, int, int]:
        s = self.shape
        m = int(s[1:s.index("n")])
        n = int(s[s.index("n") + 1:s.index("k")])
        k = int(s[s.index("k") + 1:])
        return m, n, k

    @property
    def ptx(self) -> str:
        return (f"mma.sync.aligned.{self.shape}.{self.a_major}.{self.b_major}{'.satfinite' if self.satfinite else ''}."
                f"{self.d_type}.{self.a_type}.{self.b_type}.{self.c_type}")

    @property
    def quadpair(self) -> bool:
        """m8n8k4 with f16 inputs: four quad-pairs each compute their own 8x8x4 product."""
        return self.shape == "m8n8k4" and self.a_type == "f16"

    def elems_per_lane(self, operand: str) -> int:
        """Elements of operand ``a``/``b``/``c``/``d`` one lane holds."""
        m, n, k = self.mnk
        rows_cols = {"a": m * k, "b": k * n, "c": m * n, "d": m * n}[operand]
        threads = 8 if self.quadpair else 32
        return rows_cols // threads

    def elem_type(self, operand: str) -> str:
        return {"a": self.a_type, "b": self.b_type, "c": self.c_type, "d": self.d_type}[operand]

    def units(self, operand: str) -> int:
        """Registers per lane: 32-bit ones, or 64-bit ones for f64."""
        t = self.elem_type(operand)
        bits = TYPE_BITS[t]
        if bits == 64:
            return self.elems_per_lane(operand)
        return self.elems_per_lane(operand) * bits // 32

    def name(self) -> str:
        return self.ptx.replace("mma.sync.aligned.", "").replace(".", "_")


def _mma_variants() -> tuple[MmaVariant, ...]:
    v: list[MmaVariant] = []
    # sm70 m8n8k4 f16, every operand-major combination, f16 and f32 accumulators.
    for am in ("row", "col"):
        for bm in ("row", "col"):
            v.append(MmaVariant("m8n8k4", "f16", "f16", "f16", "f16", am, bm))
            v.append(MmaVariant("m8n8k4", "f16", "f16", "f32", "f32", am, bm))
    # sm75/sm80 m16n8k8 and m16n8k16 f16 / bf16.
    for shape in ("m16n8k8", "m16n8k16"):
        v.append(MmaVariant(shape, "f16", "f16", "f16", "f16"))
        v.append(MmaVariant(shape, "f16", "f16", "f32", "f32"))
        v.append(MmaVariant(shape, "bf16", "bf16", "f32", "f32"))
    # tf32.
    for shape in ("m16n8k4", "m16n8k8"):
        v.append(MmaVariant(shape, "tf32", "tf32", "f32", "f32"))
    # 8-bit and 4-bit integers.
    for shape, pair in (("m8n8k16", ("s8", "u8")), ("m16n8k16", ("s8", "u8")), ("m16n8k32", ("s8", "u8")),
                        ("m8n8k32", ("s4", "u4")), ("m16n8k32", ("s4", "u4")), ("m16n8k64", ("s4", "u4"))):
        for at in pair:
            for bt in pair:
                v.append(MmaVariant(shape, at, bt, "s32", "s32"))
    # .satfinite twins (CuTe's _SATURATE atoms): one sign pair per integer shape.
    for shape, at, bt in (("m8n8k16", "s8", "u8"), ("m16n8k16", "s8", "u8"), ("m16n8k32", "s8", "u8"),
                          ("m8n8k32", "s4", "u4"), ("m16n8k32", "s4", "u4"), ("m16n8k64", "s4", "u4")):
        v.append(MmaVariant(shape, at, bt, "s32", "s32", satfinite=True))
    # sm89 fp8.
    for at in ("e4m3", "e5m2"):
        for bt in ("e4m3", "e5m2"):
            v.append(MmaVariant("m16n8k32", at, bt, "f32", "f32"))
            v.append(MmaVariant("m16n8k32", at, bt, "f16", "f16"))
    # f64 (m8n8k4 from sm80, the m16n8 shapes from sm90).
    for shape in ("m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"):
        v.append(MmaVariant(shape, "f64", "f64", "f64", "f64"))
    return tuple(v)


MMA_VARIANTS: tuple[MmaVariant, ...] = _mma_variants()


def ldmatrix_ptx(num: int, trans: bool) -> str:
    return f"ldmatrix.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16"


def stmatrix_ptx(num: int, trans: bool) -> str:
    return f"stmatrix.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16"


MOVMATRIX_PTX = "movmatrix.sync.aligned.m8n8.trans.b16"

#: (num, trans) of every ldmatrix / stmatrix form.
MATRIX_FORMS: tuple[tuple[int, bool], ...] = tuple((n, t) for n in (1, 2, 4) for t in (False, True))

#: cp.async forms: (bytes per lane, cache operator); .cg exists only for 16 bytes.
CP_ASYNC_FORMS: tuple[tuple[int, str], ...] = ((4, "ca"), (8, "ca"), (16, "ca"), (16, "cg"))

#: Plain shared-memory loads/stores: (PTX type suffix, bytes per lane).
LD_ST_FORMS: tuple[tuple[str, int], ...] = (
    ("u8", 1), ("u16", 2), ("b32", 4), ("b64", 8), ("v2.b32", 8), ("v4.b32", 16),
)

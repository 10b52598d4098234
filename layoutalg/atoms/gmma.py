"""Hopper ``wgmma.mma_async`` atoms: every CuTe ``SM90_64xNxK_*`` GMMA (dense) as data.

TV layouts (cute/atom/mma_traits_sm90_gmma.hpp and ``_ext.hpp``), 128 threads (a warpgroup),
``ThrID = 128:1``, for ``K = 256 / (A bits)`` (tf32 8, f16/bf16 16, e4m3/e5m2/s8/u8 32):

* A from shared memory (``_SS``) and B: ``ABLayout<MN,K> = (128,(MN,K)):(0,(1,MN))`` -- every
  thread "sees" the whole tile (the instruction reads it through a descriptor,
  :mod:`layoutalg.atoms.gmma_desc`);
* A from registers (``_RS``): ``ALayout_64xK``::

      K =  8: ((4,8,4),(2,2)):((64,1,16),(8,256))
      K = 16: ((4,8,4),(2,2,2)):((128,1,16),(64,8,512))
      K = 32: ((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))

* C/D: ``CLayout_64xN = ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))``.

Atoms (names as CuTe spells them; N a multiple of 8 in [8, 256], for s8/u8 one of
8, 16, 24, 32, 48, 64, ..., 256 in steps of 16 past 32)::

    SM90_64xNx16_{F16F16F16,F32F16F16,F32BF16BF16}_{SS,RS}
    SM90_64xNx8_F32TF32TF32_{SS,RS}_TN
    SM90_64xNx32_{F16,F32}{E4M3,E5M2}{E4M3,E5M2}_{SS,RS}_TN
    SM90_64xNx32_S32{S8,U8}{S8,U8}_{SS,RS}_TN[_SATURATE]      (.satfinite)

PTX-level semantics (PTX ISA "Register Fragments" of ``wgmma.mma_async``), for ``%tid``
in the warpgroup ``[0,128)``, ``w = tid // 32``, ``g = (tid % 32) >> 2``, ``t = tid % 4``::

    D, d_i, i in [0, N/2):  row = 16w + g + 8*((i >> 1) & 1),   col = 8*(i >> 2) + 2t + (i & 1)
    A (registers), a_i:
      K =  8, i in [0,4):   row = 16w + g + 8*(i & 1),          col = t + 4*(i >> 1)
      K = 16, i in [0,8):   row = 16w + g + 8*((i >> 1) & 1),   col = 8*(i >> 2) + 2t + (i & 1)
      K = 32, i in [0,16):  row = 16w + g + 8*((i >> 2) & 1),   col = 16*(i >> 3) + 4t + (i & 3)

(each warp's 16 rows hold an m16n8kK ``mma.sync`` A fragment of the same element width).
``atom.fragment_coord(operand, tid, i) -> (row, col)``; ``atom.ptx_layout(operand)``
is that formula as a Layout (``(tid, i) -> row + 64*col``), checked at every point.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, Callable

from layoutalg.atoms.fragment import fit_layout, index_arg
from layoutalg.atoms.gmma_desc import LAYOUT_TYPES, GmmaDescriptor, make_gmma_desc, swizzle_address
from layoutalg.core.dtypes import cute_name, ptx_name
from layoutalg.core.layout import Layout
from layoutalg.core.validate import as_int, describe
from layoutalg.errors import InstructionError, LayoutError

Coord = tuple[Any, Any]  # ints, or terms when the arguments are symbolic


@dataclass(frozen=True)
class GmmaAtom:
    """``wgmma.mma_async.sync.aligned.m64nNkK.{d}.{a}.{b}``, A from smem (``SS``) or registers (``RS``)."""

    name: str
    ptx: str
    shape_mnk: tuple[int, int, int]
    thr_id: Layout
    a_layout: Layout
    b_layout: Layout
    c_layout: Layout
    a_type: str
    b_type: str
    c_type: str
    d_type: str
    a_source: str  # "smem" or "reg"

    arch: int = 90
    saturate: bool = False  # .satfinite (the s8/u8 ``_SATURATE`` atoms)

    def layout(self, operand: str) -> Layout:
        op = _op(operand)
        return {"A": self.a_layout, "B": self.b_layout, "C": self.c_layout}[op]

    @property
    def num_threads(self) -> int:
        return 128

    def num_elements(self, operand: str) -> int:
        op = _op(operand)
        if op == "C":
            return self.shape_mnk[1] // 2
        if op == "A" and self.a_source == "reg":
            return self.a_layout[1].size()
        raise InstructionError(f"{self.name}: operand {op} is read from shared memory through a descriptor, "
                               "not held in registers (see GmmaDescriptor.address)")

    def fragment_coord(self, operand: str, tid: Any, i: Any) -> Coord:
        """(row, col) of register element ``i`` of warpgroup thread ``tid`` (PTX ISA wgmma fragments);
        ints, or symbolic terms for the formula as terms."""
        op = _op(operand)
        n = self.num_elements(op)
        tid = index_arg(tid, 128, "tid")
        i = index_arg(i, n, f"{self.name}: element index for {op}")
        base, t = 16 * (tid // 32) + ((tid % 32) >> 2), tid % 4
        k = self.shape_mnk[2]
        if op == "C" or k == 16:
            return base + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1)
        if k == 8:
            return base + 8 * (i & 1), t + 4 * (i >> 1)
        return base + 8 * ((i >> 2) & 1), 16 * (i >> 3) + 4 * t + (i & 3)

    def ptx_layout(self, operand: str) -> Layout:
        """``(tid, i) -> row + 64*col`` for the register operands (C, and A of ``_RS``)."""
        return self._ptx_layouts[_op(operand)]

    @cached_property
    def _ptx_layouts(self) -> dict[str, Layout]:
        out = {}
        for op in ("A", "C"):
            try:
                n = self.num_elements(op)
            except InstructionError:
                continue
            out[op] = _fit(partial(self._index, op), n, f"{self.name} {op}")
        return out

    def _index(self, op: str, tid: int, i: int) -> int:
        return _rc(self.fragment_coord(op, tid, i))

    def __str__(self) -> str:
        return f"{self.name} ({self.ptx}): A {self.a_layout}, B {self.b_layout}, C {self.c_layout}"


def _fit(fn: Callable[[int, int], int], values: int, what: str) -> Layout:
    """``fit_layout`` over (128 threads, ``values``); a value count of 4 * (odd) (D of N = 24, 40, ...)
    is fitted on its first 4 values, extended by a mode of ``values // 4`` at the stride of value 4,
    and checked at every point."""
    if values & (values - 1) == 0:
        return fit_layout(fn, (128, values), what)
    base = fit_layout(fn, (128, 4), what)
    v_shape, v_stride = base.shape[1], base.stride[1]  # type: ignore[index]
    v_shape = (v_shape if isinstance(v_shape, tuple) else (v_shape,)) + (values // 4,)
    v_stride = (v_stride if isinstance(v_stride, tuple) else (v_stride,)) + (fn(0, 4),)
    layout = Layout((base.shape[0], v_shape), (base.stride[0], v_stride))  # type: ignore[index]
    for t in range(128):
        for i in range(values):
            if layout(t, i) != fn(t, i):
                raise LayoutError(f"{what} is not a layout: at ({t}, {i}) it gives {fn(t, i)}, the fitted "
                                  f"{layout} gives {layout(t, i)}")
    return layout


def _rc(rc: Coord) -> int:
    return rc[0] + 64 * rc[1]


def _op(operand: str) -> str:
    op = str(operand).upper()
    op = "C" if op == "D" else op
    if op not in ("A", "B", "C"):
        raise InstructionError(f"operand must be 'A', 'B', 'C' or 'D', got {describe(operand)}")
    return op


def _ab_layout(mn: int, k: int) -> Layout:
    return Layout((128, (mn, k)), (0, (1, mn)))


def _c_layout(n: int) -> Layout:
    return Layout(((4, 8, 4), (2, 2, n // 8)), ((128, 1, 16), (64, 8, 512)))


_A_REG = {
    8: Layout(((4, 8, 4), (2, 2)), ((64, 1, 16), (8, 256))),
    16: Layout(((4, 8, 4), (2, 2, 2)), ((128, 1, 16), (64, 8, 512))),
    32: Layout(((4, 8, 4), (4, 2, 2)), ((256, 1, 16), (64, 8, 1024))),
}
GMMA_NS = tuple(range(8, 257, 8))
GMMA_NS_INT8 = (8, 16, 24) + tuple(range(32, 257, 16))
_FP8 = ("e4m3", "e5m2")
_INT8 = ("s8", "u8")
_UP = {name: cute_name(name) for name in ("f16", "bf16", "f32", "tf32", "e4m3", "e5m2", "s8", "u8", "s32")}
_DOWN = {v: k for k, v in _UP.items()}


def _kind(a: str, b: str, c: str) -> tuple[int, bool] | None:
    """(K, whether CuTe names it ``_TN``) of a valid (A, B, C/D) type triple, else None."""
    if a == b and ((a == "f16" and c in ("f16", "f32")) or (a == "bf16" and c == "f32")):
        return 16, False
    if a == b == "tf32" and c == "f32":
        return 8, True
    if a in _FP8 and b in _FP8 and c in ("f16", "f32"):
        return 32, True
    if a in _INT8 and b in _INT8 and c == "s32":
        return 32, True
    return None


def make_gmma(n: int, a: str = "f16", b: str | None = None, c: str = "f32", a_source: str = "smem",
              saturate: bool = False) -> GmmaAtom:
    """CuTe's ``SM90_64x{n}x{K}_{C}{A}{B}_{SS|RS}[_TN][_SATURATE]`` (see the module docstring for the names).

    ``a``/``b``: f16, bf16 (both the same), tf32, e4m3/e5m2, s8/u8; ``c``: the accumulator
    (f16/f32; f32 for bf16/tf32; s32 for integers); ``saturate`` (``.satfinite``) only for integers.
    """
    n = as_int(n, "wgmma N", InstructionError)
    for what, value in (("a", a), ("b", b), ("c", c), ("a_source", a_source)):
        if value is not None and not isinstance(value, str):
            raise InstructionError(f"wgmma {what} must be a str such as 'f16', got {describe(value)}")
    if not isinstance(saturate, bool):
        raise InstructionError(f"wgmma saturate must be True or False, got {describe(saturate)}")
    try:  # any spelling of the one dtype table (torch.float16, cutlass.BFloat16, float8_e4m3fn, ...)
        a, c = ptx_name(a), ptx_name(c)
        b = ptx_name(b) if b is not None else a
    except LayoutError as exc:
        raise InstructionError(f"wgmma operand type: {exc}") from exc
    kind = _kind(a, b, c)
    if kind is None:
        raise InstructionError(f"no wgmma takes a={describe(a)}, b={describe(b)}, c={describe(c)}; valid: f16/f16 -> f16|f32, bf16/bf16 -> f32, "
                               "tf32/tf32 -> f32, e4m3|e5m2 x e4m3|e5m2 -> f16|f32, s8|u8 x s8|u8 -> s32")
    k, tn = kind
    ns = GMMA_NS_INT8 if a in _INT8 else GMMA_NS
    if n not in ns:
        raise InstructionError(f"wgmma m64nNk{k} .{a}: N must be one of {', '.join(map(str, ns))}; got {describe(n)}")
    if a_source not in ("smem", "reg"):
        raise InstructionError(f"a_source must be 'smem' or 'reg', got {describe(a_source)}")
    if saturate and a not in _INT8:
        raise InstructionError(f"saturate (.satfinite) exists only for s8/u8 wgmma, not .{a}")
    mode = "SS" if a_source == "smem" else "RS"
    name = f"SM90_64x{n}x{k}_{_UP[c]}{_UP[a]}{_UP[b]}_{mode}{'_TN' if tn else ''}{'_SATURATE' if saturate else ''}"
    ptx = f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{c}.{a}.{b}{'.satfinite' if saturate else ''}"
    a_layout = _ab_layout(64, k) if a_source == "smem" else _A_REG[k]
    return GmmaAtom(name, ptx, (64, n, k), Layout(128), a_layout, _ab_layout(n, k), _c_layout(n), a, b, c, c,
                    a_source, 90, saturate)


def gmma_names() -> list[str]:
    """Every CuTe dense GMMA atom name (1056 in CUTLASS 4.2)."""
    triples = [("f16", "f16", "f16"), ("f16", "f16", "f32"), ("bf16", "bf16", "f32"), ("tf32", "tf32", "f32")]
    triples += [(a, b, c) for c in ("f16", "f32") for a in _FP8 for b in _FP8]
    triples += [(a, b, "s32") for a in _INT8 for b in _INT8]
    out = []
    for a, b, c in triples:
        for n in GMMA_NS_INT8 if a in _INT8 else GMMA_NS:
            for src in ("smem", "reg"):
                for sat in (False, True) if a in _INT8 else (False,):
                    out.append(make_gmma(n, a, b, c, src, sat).name)
    return out


def parse_gmma_name(name: str) -> tuple[int, str, str, str, str, bool] | None:
    """``(n, a, b, c, a_source, saturate)`` of a CuTe GMMA name, or None if it is not one."""
    import re

    m = re.fullmatch(r"SM90_64x(\d+)x(\d+)_(F16|F32|S32)(F16|BF16|TF32|E4M3|E5M2|S8|U8)(F16|BF16|TF32|E4M3|E5M2|S8|U8)"
                     r"_(SS|RS)(_TN)?(_SATURATE)?", name)
    if not m:
        return None
    c, a, b = (_DOWN[m.group(i)] for i in (3, 4, 5))
    kind = _kind(a, b, c)
    if kind is None or kind[0] != int(m.group(2)) or kind[1] != bool(m.group(7)):
        return None
    return int(m.group(1)), a, b, c, "smem" if m.group(6) == "SS" else "reg", bool(m.group(8))


__all__ = ["GmmaAtom", "GmmaDescriptor", "make_gmma", "make_gmma_desc", "gmma_names", "parse_gmma_name", "GMMA_NS",
           "GMMA_NS_INT8", "LAYOUT_TYPES", "swizzle_address"]

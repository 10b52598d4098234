"""The rest of CuTe's warp-level MMA atoms: SM61 dot products, SM75/SM80 integer and binary
shapes, ``.satfinite``, complex f64, SM90 f64, and ``UniversalFMA``.

Each is an :class:`~layoutalg.atoms.mma.MmaAtom` holding CuTe's ``MMA_Traits`` verbatim
(cute/atom/mma_traits_sm61/75/80/90.hpp, CUTLASS 4.2 and, for
``SM75_16x8x8_F16F16F16F16_TN``, CUTLASS after 4.2) and the PTX ISA fragment formula
("Matrix Fragments for mma.mMnNkK"; ``g = %laneid >> 2``, ``t = %laneid % 4``)::

    m8n8k16  .s8/.u8   A (g, 4t + i)        B (4t + i, g)          C (g, 2t + i)
    m16n8k16 .s8/.u8   A (g + 8[i>=4], 4t + (i&3))                 B (4t + i, g)
    m8n8k32  .s4/.u4   A (g, 8t + i)        B (8t + i, g)          C (g, 2t + i)
    m16n8k32 .s4/.u4   A (g + 8[i>=8], 8t + (i&7))                 B (8t + i, g)
    m8n8k128 .b1       A (g, 32t + i)       B (32t + i, g)         C (g, 2t + i)
    m16n8k128 .b1      A (g + 8[i>=32], 32t + (i&31))              B (32t + i, g)
    m16n8k256 .b1      A (g + 8[(i>>5)&1], 32t + (i&31) + 128[i>=64])
                       B (32t + (i&31) + 128[i>=32], g)
    m16n8k4  .f64      A (g + 8i, t)        B (t, g)
    m16n8k8  .f64      A (g + 8(i&1), t + 4(i>>1))                 B (t + 4i, g)
    m16n8k16 .f64      A (g + 8(i&1), t + 4(i>>1))                 B (t + 4i, g)
    every m16n8 shape  C (g + 8[i>=2], 2t + (i&1))

``dp4a``/``dp2a`` (SM61) and ``UniversalFMA`` are one-thread atoms: a 1 x 1 x K dot product.

Two CuTe 4.2 traits are defective and are *not* copied (tests/test_atoms_cute_cpp.py checks
both defects against CuTe's own printout):

* ``SM80_16x8x32_S32{S4,U4}{S4,U4}S32_TN[_SATURATE]`` BLayout ``((4,8),(8)):((32,1),(8))``
  sends thread ``t`` value ``v`` to ``k = 4t + v``: 32 (thread, value) pairs onto 20 k's.
  Here B is ``((4,8),8):((64,1),8)``, the PTX table (``k = 8t + v``).
* ``SM80_16x8x128_S32U1U1S32_TN_{XOR,AND}POPC`` ALayout has stride ``((16,8))`` (rank 1) for
  shape ``(32,2)``; ``cute::crd2idx`` static_asserts "Mismatched Ranks" on any use.  Here A
  is ``((4,8),(32,2)):((512,1),(16,8))``, the PTX table.
"""

from __future__ import annotations

from layoutalg.atoms.mma import (
    Coord,
    Formula,
    L,
    MmaAtom,
    _c_m16n8,
    _g,
    _m16n8k8_tf32,
    _SM80_8x4,
    _SM80_8x8_Row,
    _SM80_16x8_Row,
    _t,
)
from layoutalg.core.dtypes import cute_name
from layoutalg.core.layout import Layout

_T32 = Layout(32)
_T1 = Layout(1, 0)  # CuTe's Layout<_1> prints _1:_0


def _c8(lane: int, i: int) -> Coord:
    return _g(lane), 2 * _t(lane) + i


def _m8n8(width: int) -> Formula:
    """m8n8k{4*width}: A (g, width*t + i), B (width*t + i, g), C (g, 2t + i)."""

    def f(op: str, lane: int, i: int) -> Coord:
        if op == "A":
            return _g(lane), width * _t(lane) + i
        if op == "B":
            return width * _t(lane) + i, _g(lane)
        return _c8(lane, i)

    return f


def _m16n8_one_block(width: int) -> Formula:
    """m16n8k{4*width}: A (g + 8[i >= width], width*t + i % width), B (width*t + i, g)."""

    def f(op: str, lane: int, i: int) -> Coord:
        if op == "A":
            return _g(lane) + 8 * (i // width), width * _t(lane) + i % width
        if op == "B":
            return width * _t(lane) + i, _g(lane)
        return _c_m16n8(lane, i)

    return f


def _m16n8k256_b1(op: str, lane: int, i: int) -> Coord:
    g, t = _g(lane), _t(lane)
    if op == "A":
        return g + 8 * ((i >> 5) & 1), 32 * t + (i & 31) + 128 * (i >> 6)
    if op == "B":
        return 32 * t + (i & 31) + 128 * (i >> 5), g
    return _c_m16n8(lane, i)


#: m16n8k4/k8/k16 .f64 (sm90): A (g + 8(i&1), t + 4(i>>1)), B (t + 4i, g): tf32 m16n8k8's formula, over more k.
_m16n8_f64 = _m16n8k8_tf32


def _m8n8k4_f64(op: str, lane: int, i: int) -> Coord:
    g, t = _g(lane), _t(lane)
    if op == "A":
        return g, t
    if op == "B":
        return t, g
    return _c8(lane, i)


def _dot(op: str, lane: int, i: int) -> Coord:
    """One thread, 1 x 1 x K: A (0, i) of 1 x K, B (i, 0) of K x 1, C (0, 0)."""
    if op == "A":
        return 0, i
    if op == "B":
        return i, 0
    return 0, 0


#: CuTe's spelling of each type in atom names (the one table); ``c64`` (complex<double>) is an atom-internal name.
_UP = {name: cute_name(name) for name in ("f16", "bf16", "f32", "f64", "s32", "s8", "u8", "s4", "u4", "b1")}
_UP["c64"] = "C64"


def _name(arch: int, mnk: tuple[int, int, int], d: str, a: str, b: str, c: str, suffix: str = "") -> str:
    m, n, k = mnk
    return f"SM{arch}_{m}x{n}x{k}_{_UP[d]}{_UP[a]}{_UP[b]}{_UP[c]}_TN{suffix}"


def _atom(arch: int, mnk: tuple[int, int, int], a: str, b: str, c: str, layouts: tuple[Layout, Layout, Layout, Layout],
          formula: Formula, *, suffix: str = "", ptx_mod: str = "", ptx_tail: str = "", ptx: str | None = None,
          d: str | None = None) -> MmaAtom:
    d = d or c
    m, n, k = mnk
    ptx_a, ptx_b = ("b1", "b1") if a == "b1" else (a, b)
    text = ptx or f"mma.sync.aligned.m{m}n{n}k{k}.row.col{ptx_mod}.{d}.{ptx_a}.{ptx_b}.{c}{ptx_tail}"
    thr, la, lb, lc = layouts
    return MmaAtom(_name(arch, mnk, d, a, b, c, suffix), text, arch, mnk, thr, la, lb, lc, a, b, c, d, formula)


_SM80_8x16_Row = L(((4, 8), 4), ((32, 1), 8))
_INT8 = [(a, b) for a in ("s8", "u8") for b in ("s8", "u8")]
_INT4 = [(a, b) for a in ("s4", "u4") for b in ("s4", "u4")]


def _sm75() -> list[MmaAtom]:
    a16x8x8 = L(((4, 8), (2, 2)), ((32, 1), (16, 8)))
    b16x8x8 = L(((4, 8), 2), ((16, 1), 8))
    from layoutalg.atoms.mma import _m16n8k8_f16

    return [
        _atom(75, (16, 8, 8), "f16", "f16", "f16", (_T32, a16x8x8, b16x8x8, _SM80_16x8_Row), _m16n8k8_f16),
        _atom(75, (8, 8, 16), "s8", "s8", "s32",
              (_T32, _SM80_8x16_Row, _SM80_8x16_Row, L(((4, 8), 2), ((16, 1), 8))), _m8n8(4)),
    ]


def _sm80_integer() -> list[MmaAtom]:
    """8x8x16 / 16x8x16 (8-bit), 8x8x32 / 16x8x32 (4-bit), every sign pair, and the _SATURATE twins
    (``.satfinite``) of those and of the 16x8x32 / 16x8x64 atoms already in :mod:`.mma`."""
    from layoutalg.atoms.mma import MMA_ATOMS

    out: list[MmaAtom] = []
    shapes = [
        ((8, 8, 16), _INT8, (_SM80_8x16_Row, _SM80_8x16_Row, _SM80_8x8_Row), _m8n8(4)),
        ((16, 8, 16), _INT8, (L(((4, 8), (4, 2)), ((64, 1), (16, 8))), _SM80_8x16_Row, _SM80_16x8_Row),
         _m16n8_one_block(4)),
        ((8, 8, 32), _INT4, (L(((4, 8), (8,)), ((64, 1), (8,))), L(((4, 8), (8,)), ((64, 1), (8,))), _SM80_8x8_Row),
         _m8n8(8)),
        ((16, 8, 32), _INT4, (L(((4, 8), (8, 2)), ((128, 1), (16, 8))), L(((4, 8), (8,)), ((64, 1), (8,))),
                              _SM80_16x8_Row), _m16n8_one_block(8)),
    ]
    for mnk, pairs, (la, lb, lc), formula in shapes:
        for a, b in pairs:
            out.append(_atom(80, mnk, a, b, "s32", (_T32, la, lb, lc), formula))
    plain = out + [x for x in MMA_ATOMS if x.arch == 80 and x.c_type == "s32"]
    for x in plain:
        out.append(MmaAtom(x.name + "_SATURATE", x.ptx.replace(".row.col.", ".row.col.satfinite."), 80, x.shape_mnk,
                           x.thr_id, x.a_layout, x.b_layout, x.c_layout, x.a_type, x.b_type, x.c_type, x.d_type,
                           x.formula))
    return out


def _sm80_binary() -> list[MmaAtom]:
    shapes = [
        ((8, 8, 128), (L(((4, 8), 32), ((256, 1), 8)), L(((4, 8), 32), ((256, 1), 8)), _SM80_8x8_Row), _m8n8(32)),
        ((16, 8, 128), (L(((4, 8), (32, 2)), ((512, 1), (16, 8))), L(((4, 8), 32), ((256, 1), 8)), _SM80_16x8_Row),
         _m16n8_one_block(32)),
        ((16, 8, 256), (L(((4, 8), (32, 2, 2)), ((512, 1), (16, 8, 2048))),
                        L(((4, 8), (32, 2)), ((256, 1), (8, 1024))), _SM80_16x8_Row), _m16n8k256_b1),
    ]
    out = []
    for mnk, (la, lb, lc), formula in shapes:
        for op in ("XOR", "AND"):
            out.append(_atom(80, mnk, "b1", "b1", "s32", (_T32, la, lb, lc), formula, suffix=f"_{op}POPC",
                             ptx_tail=f".{op.lower()}.popc"))
    return out


def _complex() -> list[MmaAtom]:
    """Complex f64 MMAs CuTe composes from 4 (Gauss: 3) real m8n8k4 f64 MMAs, with the real MMA's layouts."""
    f64 = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"
    layouts = (_T32, _SM80_8x4, _SM80_8x4, _SM80_8x8_Row)
    return [
        _atom(80, (8, 8, 4), "c64", "c64", "c64", layouts, _m8n8k4_f64, ptx=f64 + " x4 (complex<double>)"),
        MmaAtom("SM80_8x8x4_GC64C64C64GC64_TN", f64 + " x3 (Gauss complex)", 80, (8, 8, 4), *layouts,
                "c64", "c64", "gc64", "gc64", _m8n8k4_f64),
    ]


def _sm90_f64() -> list[MmaAtom]:
    layouts = {
        4: (L(((4, 8), 2), ((16, 1), 8)), _SM80_8x4),
        8: (L(((4, 8), (2, 2)), ((16, 1), (8, 64))), L(((4, 8), 2), ((8, 1), 32))),
        16: (L(((4, 8), (2, 4)), ((16, 1), (8, 64))), L(((4, 8), 4), ((8, 1), 32))),
    }
    out = []
    for k, (la, lb) in layouts.items():
        out.append(_atom(90, (16, 8, k), "f64", "f64", "f64", (_T32, la, lb, _SM80_16x8_Row), _m16n8_f64))
    for k, (la, lb) in layouts.items():
        out.append(_atom(90, (16, 8, k), "c64", "c64", "c64", (_T32, la, lb, _SM80_16x8_Row), _m16n8_f64,
                         ptx=f"mma.sync.aligned.m16n8k{k}.row.col.f64.f64.f64.f64 x4 (complex<double>)"))
    return out


def _scalar() -> list[MmaAtom]:
    one = L((1, 1), (0, 0))
    return [
        MmaAtom("SM61_DP4A", "dp4a.s32.s32", 61, (1, 1, 4), _T1, L((1, 4), (0, 1)), L((1, 4), (0, 1)), one,
                "s8", "s8", "s32", "s32", _dot),
        MmaAtom("SM61_DP2A", "dp2a.s32.s32", 61, (1, 1, 2), _T1, L((1, 2), (0, 1)), L((1, 2), (0, 1)), one,
                "s16", "s16", "s32", "s32", _dot),
        MmaAtom("UniversalFMA", "fma (UniversalFMA<D,A,B,C>: d = a * b + c, one thread, any type)", 50, (1, 1, 1),
                _T1, one, one, one, "f32", "f32", "f32", "f32", _dot),
    ]


MMA_EXT_ATOMS: tuple[MmaAtom, ...] = tuple(_sm75() + _sm80_integer() + _sm80_binary() + _complex() + _sm90_f64()
                                           + _scalar())

__all__ = ["MMA_EXT_ATOMS"]

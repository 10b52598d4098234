"""Integer and bit instructions of the tracer against the PTX ISA's formulas, written here bit by bit.

Each example builds a one-thread kernel whose registers are set by ``mov`` immediates, runs the
interpreter and reads the destination register.  The oracles below are Python-int translations
of the ISA pseudocode (independent of the numpy code under test).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.kernel.args import pack_params
from layoutalg.kernel.interp.geometry import Geometry
from layoutalg.kernel.interp.program import build_image, run
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.records import Recorder

U32 = st.integers(0, 2**32 - 1)
U64 = st.integers(0, 2**64 - 1)
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def run_lines(lines: list[str], regs: str = ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;") -> Any:
    ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" + regs + "\n" + \
          "\n".join(lines) + "\nret;\n}\n"
    module = parse_module(ptx)
    fn = module.entries["k"]
    block = pack_params(fn.params, {})
    image = build_image(module, fn, block.data, block.offsets, 0, 0)
    machine = run(image, Geometry((1, 1, 1), (1, 1, 1), [(0, 0, 0)]), Recorder(), 10_000)
    return machine


def reg(machine: Any, name: str) -> int:
    v = machine.regs[name]
    assert v.known is True or bool(v.known[0])
    import numpy as np

    return int(np.broadcast_to(np.asarray(v.bits), (machine.n,))[0])


def one(op: str, srcs: list[int], dest_type: str = "r", wide: bool = False) -> int:
    lines = []
    names = []
    for k, v in enumerate(srcs):
        if wide:
            lines.append(f"mov.b64 %rd{k + 1}, {v};")
            names.append(f"%rd{k + 1}")
        else:
            lines.append(f"mov.b32 %r{k + 1}, {v};")
            names.append(f"%r{k + 1}")
    dest = "%rd7" if dest_type == "rd" else "%r9"
    lines.append(f"{op} {dest}, {', '.join(names)};")
    return reg(run_lines(lines), dest)


def signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


# ----------------------------------------------------------------- oracles (PTX ISA pseudocode)
def prmt_ref(a: int, b: int, c: int) -> int:
    src = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    out = 0
    for i in range(4):
        sel = (c >> (4 * i)) & 0xF
        byte = src[sel & 7]
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


def lop3_ref(a: int, b: int, c: int, lut: int) -> int:
    out = 0
    for i in range(32):
        idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1)
        out |= ((lut >> idx) & 1) << i
    return out


def bfe_ref(a: int, pos: int, ln: int, is_signed: bool, w: int = 32) -> int:
    msb = w - 1
    pos, ln = pos & 0xFF, ln & 0xFF
    sbit = 0 if not is_signed or ln == 0 else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(w):
        bit = ((a >> (pos + i)) & 1) if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


def bfi_ref(a: int, b: int, pos: int, ln: int, w: int = 32) -> int:
    pos, ln = pos & 0xFF, ln & 0xFF
    f = b
    for i in range(ln):
        if pos + i > w - 1:
            break
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return f & ((1 << w) - 1)


def shf_ref(a: int, b: int, c: int, left: bool, clamp: bool) -> int:
    n = min(c, 32) if clamp else c & 31
    both = (b << 32) | a
    return ((both << n) >> 32) & 0xFFFFFFFF if left else (both >> n) & 0xFFFFFFFF


# ----------------------------------------------------------------- tests
@SETTINGS
@given(U32, U32, U32)
def test_prmt_matches_the_isa_byte_selection(a: int, b: int, c: int) -> None:
    assert one("prmt.b32", [a, b, c]) == prmt_ref(a, b, c)


@SETTINGS
@given(U32, U32, U32, st.integers(0, 255))
def test_lop3_matches_its_truth_table(a: int, b: int, c: int, lut: int) -> None:
    m = run_lines([f"mov.b32 %r1, {a};", f"mov.b32 %r2, {b};", f"mov.b32 %r3, {c};",
                   f"lop3.b32 %r9, %r1, %r2, %r3, {lut};"])
    assert reg(m, "%r9") == lop3_ref(a, b, c, lut)


@SETTINGS
@given(U32, st.integers(0, 300), st.integers(0, 300), st.booleans())
def test_bfe_matches_the_isa_pseudocode(a: int, pos: int, ln: int, is_signed: bool) -> None:
    t = "s32" if is_signed else "u32"
    assert one(f"bfe.{t}", [a, pos, ln]) == bfe_ref(a, pos, ln, is_signed)


@SETTINGS
@given(U64, st.integers(0, 80), st.integers(0, 80), st.booleans())
def test_bfe_64_bit_matches_the_isa_pseudocode(a: int, pos: int, ln: int, is_signed: bool) -> None:
    t = "s64" if is_signed else "u64"
    m = run_lines([f"mov.b64 %rd1, {a};", f"mov.b32 %r2, {pos};", f"mov.b32 %r3, {ln};",
                   f"bfe.{t} %rd7, %rd1, %r2, %r3;"])
    assert reg(m, "%rd7") == bfe_ref(a, pos, ln, is_signed, 64)


@SETTINGS
@given(U32, U32, st.integers(0, 300), st.integers(0, 300))
def test_bfi_matches_the_isa_pseudocode(a: int, b: int, pos: int, ln: int) -> None:
    assert one("bfi.b32", [a, b, pos, ln]) == bfi_ref(a, b, pos, ln)


@SETTINGS
@given(U32, U32, st.integers(0, 100), st.booleans(), st.booleans())
def test_funnel_shift_matches_the_isa(a: int, b: int, c: int, left: bool, clamp: bool) -> None:
    op = f"shf.{'l' if left else 'r'}.{'clamp' if clamp else 'wrap'}.b32"
    assert one(op, [a, b, c]) == shf_ref(a, b, c, left, clamp)


@SETTINGS
@given(U32, U32)
def test_multiplies_match_exact_integer_products(a: int, b: int) -> None:
    sa, sb = signed(a, 32), signed(b, 32)
    assert one("mul.lo.s32", [a, b]) == (sa * sb) & 0xFFFFFFFF
    assert one("mul.hi.s32", [a, b]) == ((sa * sb) >> 32) & 0xFFFFFFFF
    assert one("mul.hi.u32", [a, b]) == (a * b) >> 32
    assert one("mul.wide.s32", [a, b], "rd") == (sa * sb) & (2**64 - 1)
    assert one("mul.wide.u32", [a, b], "rd") == a * b
    assert one("mul24.lo.u32", [a, b]) == ((a & 0xFFFFFF) * (b & 0xFFFFFF)) & 0xFFFFFFFF
    assert one("mul24.hi.s32", [a, b]) == ((signed(a, 24) * signed(b, 24)) >> 16) & 0xFFFFFFFF


@SETTINGS
@given(U64, U64)
def test_64_bit_high_products_match_exact_integer_products(a: int, b: int) -> None:
    assert one("mul.hi.u64", [a, b], "rd", wide=True) == (a * b) >> 64
    assert one("mul.hi.s64", [a, b], "rd", wide=True) == ((signed(a, 64) * signed(b, 64)) >> 64) & (2**64 - 1)
    assert one("mul.lo.u64", [a, b], "rd", wide=True) == (a * b) & (2**64 - 1)


@SETTINGS
@given(U32, U32)
def test_division_truncates_toward_zero(a: int, b: int) -> None:
    sa, sb = signed(a, 32), signed(b, 32)
    if b == 0:
        m = run_lines([f"mov.b32 %r1, {a};", "mov.b32 %r2, 0;", "div.u32 %r9, %r1, %r2;"])
        assert m.regs["%r9"].known is False or not bool(m.regs["%r9"].known[0])
        return
    q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
    assert one("div.s32", [a, b]) == q & 0xFFFFFFFF
    assert one("rem.s32", [a, b]) == (sa - q * sb) & 0xFFFFFFFF
    assert one("div.u32", [a, b]) == a // b
    assert one("rem.u32", [a, b]) == a % b


@SETTINGS
@given(U32, st.integers(0, 40))
def test_shifts_saturate_past_the_width(a: int, n: int) -> None:
    assert one("shl.b32", [a, n]) == ((a << n) & 0xFFFFFFFF if n < 32 else 0)
    assert one("shr.u32", [a, n]) == (a >> n if n < 32 else 0)
    assert one("shr.s32", [a, n]) == (signed(a, 32) >> min(n, 31)) & 0xFFFFFFFF


@SETTINGS
@given(U32)
def test_bit_counts_match_python(a: int) -> None:
    assert one("popc.b32", [a]) == bin(a).count("1")
    assert one("clz.b32", [a]) == 32 - a.bit_length()
    assert one("brev.b32", [a]) == int(f"{a:032b}"[::-1], 2)
    assert one("bfind.u32", [a]) == (a.bit_length() - 1 if a else 0xFFFFFFFF)
    s = signed(a, 32)
    expect = (s if s >= 0 else ~s).bit_length() - 1
    assert one("bfind.s32", [a]) == (expect if expect >= 0 else 0xFFFFFFFF)


@SETTINGS
@given(U32, U32, st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]))
def test_integer_comparisons_follow_the_type_signedness(a: int, b: int, cmp: str) -> None:
    for t in ("s32", "u32"):
        m = run_lines([f"mov.b32 %r1, {a};", f"mov.b32 %r2, {b};", f"setp.{cmp}.{t} %p1, %r1, %r2;",
                       "selp.b32 %r9, 1, 0, %p1;"])
        x, y = (signed(a, 32), signed(b, 32)) if t == "s32" and cmp not in ("lo", "ls", "hi", "hs") else (a, b)
        ops = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y,
               "lo": a < b, "ls": a <= b, "hi": a > b, "hs": a >= b}
        assert reg(m, "%r9") == int(ops[cmp])


@SETTINGS
@given(st.integers(-(2**63), 2**63 - 1), st.sampled_from(["s8", "u8", "s16", "u16", "s32", "u32"]), st.booleans())
def test_integer_conversions_truncate_extend_and_saturate(v: int, dt: str, sat: bool) -> None:
    w = int(dt[1:])
    m = run_lines([f"mov.b64 %rd1, {v % 2**64};", f"cvt{'.sat' if sat else ''}.{dt}.s64 %rd7, %rd1;"])
    if sat:
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if dt[0] == "s" else (0, (1 << w) - 1)
        x = min(max(v, lo), hi)
    else:
        x = signed(v, w) if dt[0] == "s" else v % (1 << w)
    assert reg(m, "%rd7") == x % 2**64


def test_add_with_carry_chains_64_bit_addition_from_32_bit_halves() -> None:
    a, b = 0xFFFF_FFFF_0000_0001, 0x0000_0001_FFFF_FFFF
    m = run_lines([f"mov.b32 %r1, {a & 0xFFFFFFFF};", f"mov.b32 %r2, {a >> 32};", f"mov.b32 %r3, {b & 0xFFFFFFFF};",
                   f"mov.b32 %r4, {b >> 32};", "add.cc.u32 %r5, %r1, %r3;", "addc.u32 %r6, %r2, %r4;"])
    assert reg(m, "%r5") | (reg(m, "%r6") << 32) == (a + b) % 2**64


def test_float_branch_on_beta_from_half_bits_is_taken_as_on_the_gpu() -> None:
    for bits, expect in ((0, 0), (15360, 1), (0x8000, 0)):  # 0.0, 1.0, -0.0
        m = run_lines([f"mov.b16 %h1, {bits};", "cvt.f32.f16 %f1, %h1;", "setp.neu.f32 %p1, %f1, 0f00000000;",
                       "selp.b32 %r9, 1, 0, %p1;"],
                      ".reg .b32 %r<16>; .reg .b16 %h<4>; .reg .f32 %f<4>; .reg .pred %p<4>;")
        assert reg(m, "%r9") == expect

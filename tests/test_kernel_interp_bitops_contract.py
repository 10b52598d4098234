"""Bit instructions of the tracer against the PTX ISA's own pseudocode, written here in Python ints:
prmt's named modes (the ISA's selector table), bmsk and szext (.clamp/.wrap), cnot, and the refused forms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_interp_scalar_harness import op, run_lines, value

from layoutalg.errors import KernelError

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
U32 = st.integers(0, 2**32 - 1)
SMALL = st.one_of(st.integers(0, 40), st.integers(0, 2**32 - 1))
M32 = 0xFFFFFFFF

#: The ISA's prmt mode table: for selector c[1:0] = 0..3, the source bytes of d.b3 d.b2 d.b1 d.b0.
PRMT_TABLE = {"f4e": ("3210", "4321", "5432", "6543"), "b4e": ("5670", "6701", "7012", "0123"),
              "rc8": ("0000", "1111", "2222", "3333"), "ecl": ("3210", "3211", "3222", "3333"),
              "ecr": ("0000", "1110", "2210", "3210"), "rc16": ("1010", "3232", "1010", "3232")}


def prmt_mode_ref(a: int, b: int, c: int, mode: str) -> int:
    src = (b << 32) | a  # bytes 0..3 from a, 4..7 from b
    digits = PRMT_TABLE[mode][c & 3]
    out = 0
    for pos, ch in enumerate(digits):  # digits[0] is d.b3
        byte = (src >> (8 * int(ch))) & 0xFF
        out |= byte << (8 * (3 - pos))
    return out


def bmsk_ref(a: int, b: int, clamp: bool) -> int:
    """PTX ISA bmsk semantics, line by line."""
    a1 = a & 0x1F
    mask0 = (M32 << a1) & M32
    b1 = b & 0x1F
    total = a1 + b1
    mask1 = (M32 << total) & M32
    sum_overflow = total >= 32
    pos_overflow = width_overflow = False
    if clamp:
        if a >= 32:
            pos_overflow = True
            mask0 = 0
        if b >= 32:
            width_overflow = True
    if sum_overflow or pos_overflow or width_overflow:
        mask1 = 0
    elif b1 == 0:
        mask1 = M32
    return mask0 & ~mask1 & M32


def szext_ref(a: int, b: int, clamp: bool, is_signed: bool) -> int:
    """PTX ISA szext semantics, line by line."""
    b1 = b & 0x1F
    too_large = b >= 32 and clamp
    mask = 0 if too_large else (M32 << b1) & M32
    sign_pos = (b1 - 1) & 0x1F
    sign_bit = 0 if (b1 == 0 or too_large or not is_signed) else (a >> sign_pos) & 1
    return ((a & ~mask) | (mask if sign_bit else 0)) & M32


@SETTINGS
@given(U32, U32, U32, st.sampled_from(sorted(PRMT_TABLE)))
def test_prmt_named_modes_follow_the_isa_table(a: int, b: int, c: int, mode: str) -> None:
    assert op(f"prmt.b32.{mode}", [a, b, c]) == prmt_mode_ref(a, b, c, mode)


def test_prmt_mode_selector_uses_only_the_two_low_bits() -> None:
    a, b = 0x33221100, 0x77665544
    for mode in PRMT_TABLE:
        for c in range(4):
            assert op(f"prmt.b32.{mode}", [a, b, c | 0xFFF0]) == prmt_mode_ref(a, b, c, mode), (mode, c)


@SETTINGS
@given(SMALL, SMALL, st.booleans())
def test_bmsk_matches_the_isa(a: int, b: int, clamp: bool) -> None:
    mode = "clamp" if clamp else "wrap"
    assert op(f"bmsk.{mode}.b32", [a, b]) == bmsk_ref(a, b, clamp)


def test_bmsk_isa_examples_and_edges() -> None:
    assert op("bmsk.wrap.b32", [1, 2]) == 0x6  # the ISA's example
    assert op("bmsk.clamp.b32", [32, 4]) == 0
    assert op("bmsk.clamp.b32", [4, 32]) == 0xFFFFFFF0
    assert op("bmsk.wrap.b32", [4, 32]) == 0
    assert op("bmsk.wrap.b32", [36, 4]) == 0xF0
    for a, b in ((0x80000005, 4), (4, 0x80000001), (0x80000005, 0x80000001), (0xFFFFFFFF, 3)):
        for mode in ("clamp", "wrap"):
            assert op(f"bmsk.{mode}.b32", [a, b]) == bmsk_ref(a, b, mode == "clamp"), (hex(a), hex(b), mode)


@SETTINGS
@given(U32, SMALL, st.booleans(), st.booleans())
def test_szext_matches_the_isa(a: int, b: int, clamp: bool, is_signed: bool) -> None:
    text = f"szext.{'clamp' if clamp else 'wrap'}.{'s32' if is_signed else 'u32'}"
    assert op(text, [a, b]) == szext_ref(a, b, clamp, is_signed)


def test_szext_edges() -> None:
    assert op("szext.wrap.u32", [M32, 0]) == 0  # the ISA's example
    assert op("szext.clamp.s32", [0x80, 8]) == 0xFFFFFF80
    assert op("szext.clamp.u32", [0x180, 8]) == 0x80
    assert op("szext.clamp.s32", [0x12345678, 40]) == 0x12345678
    assert op("szext.wrap.s32", [0x1F, 36]) == 0xFFFFFFFF  # N wraps to 4: 0b1111 is -1


def shf_isa(a: int, b: int, c: int, left: bool, clamp: bool) -> int:
    """ISA shf: n = clamp ? min(c, 32) : c & 0x1f; .l: upper word of (b:a) << n, .r: lower word of (b:a) >> n."""
    n = min(c, 32) if clamp else c & 0x1F
    both = (b << 32) | a
    return ((both << n) >> 32) & M32 if left else (both >> n) & M32


@pytest.mark.parametrize("mode", ["l.wrap", "l.clamp", "r.wrap", "r.clamp"])
def test_funnel_shift_amounts_wrap_or_clamp_as_the_isa_says(mode: str) -> None:
    a, b = 0x89ABCDEF, 0x01234567
    for c in (0, 1, 31, 32, 33, 63, 64, 100, 0xFFFFFFFF):
        want = shf_isa(a, b, c, mode[0] == "l", mode.endswith("clamp"))
        assert op(f"shf.{mode}.b32", [a, b, c]) == want, c


@pytest.mark.parametrize(("a", "want"), [(0, 1), (1, 0), (0x80000000, 0), (M32, 0)])
def test_cnot_is_one_exactly_for_zero(a: int, want: int) -> None:
    assert op("cnot.b32", [a]) == want
    assert op("cnot.b16", [a & 0xFFFF], 16) == (1 if a & 0xFFFF == 0 else 0)
    assert op("not.b32", [a]) == ~a & M32


@pytest.mark.parametrize(("line", "message"), [
    ("shf.l.b32 %r7, %r1, %r1, %r1;", "shf needs .wrap or .clamp"),
    ("lop3.b32 %r7, %r1, %r1, %r1;", "lop3 needs d, a, b, c, immLut"),
    ("lop3.b32 %r7, %r1, %r1, %r1, %r1;", "lop3 needs d, a, b, c, immLut"),
    ("prmt.b32 %r7, %r1, %r1, 0x5410, %r1;", "expects 3 source operands"),  # an extra operand is not ignored
    ("shl.b32 %r7, %r1, 16, %r1;", "expects 2 source operands"),
    ("and.b32 %r7, %r1, %r1, %r1;", "expects 2 source operands"),
])
def test_malformed_bit_forms_are_refused_naming_the_line(line: str, message: str) -> None:
    with pytest.raises(KernelError, match=message) as e:
        run_lines(["mov.b32 %r1, 0;", line])
    assert e.value.line == 8


@pytest.mark.parametrize("line", ["bmsk.clamp.b32 %r7, 4, %rd1;", "bmsk.clamp.b32 %r6, %rd1, 4;"])
def test_bmsk_refuses_a_wider_source_register(line: str) -> None:
    # PTX ISA, "Operand Size Exceeding Instruction-Type Size": only ld, st and cvt take a wider register;
    # ptxas 13.0 refuses both lines ("Arguments mismatch for instruction 'bmsk'")
    with pytest.raises(KernelError, match=r"\(%rd1, a \.b64 register\).*wider") as e:
        run_lines(["mov.b64 %rd1, 0x100000004;", line])
    assert e.value.line == 8


def bfi_ref(a: int, b: int, c: int, d: int, width: int) -> int:
    """PTX ISA bfi: f = b; for (i = 0; i < len && pos + i <= msb; i++) f[pos + i] = a[i]."""
    pos, ln, f = c & 0xFF, d & 0xFF, b
    i = 0
    while i < ln and pos + i <= width - 1:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


@SETTINGS
@given(U32, U32, SMALL, SMALL)
def test_bfi_matches_the_isa(a: int, b: int, c: int, d: int) -> None:
    assert op("bfi.b32", [a, b, c, d]) == bfi_ref(a, b, c, d, 32)


def test_bfi_inserts_odd_length_fields() -> None:
    assert op("bfi.b32", [0b10110, 0, 3, 5]) == 0b10110 << 3
    assert op("bfi.b32", [M32, 0, 0x104, 0x101]) == 0x10  # pos and len are their low bytes


# ------------------------------------------------------------- many instructions per kernel
PREFIX = {16: "%h", 32: "%r", 64: "%rd"}


def batch(text: str, src_widths: list[int], cases: list[list[int]], dest_width: int = 32) -> list[int | None]:
    """``text d, s1, s2, ...`` for every case, all in one kernel (sources moved in as immediates of their widths)."""
    count = {16: 0, 32: 0, 64: 0}

    def fresh(w: int) -> str:
        count[w] += 1
        return f"{PREFIX[w]}{count[w] - 1}"

    lines, dests = [], []
    for case in cases:
        names = []
        for w, v in zip(src_widths, case):
            r = fresh(w)
            lines.append(f"mov.b{w} {r}, {v};")
            names.append(r)
        d = fresh(dest_width)
        dests.append(d)
        lines.append(f"{text} {d}, {', '.join(names)};")
    regs = " ".join(f".reg .b{w} {PREFIX[w]}<{max(count[w], 1)}>;" for w in (16, 32, 64))
    m = run_lines(lines, regs)
    return [value(m, d) for d in dests]


def shift_ref(root: str, kind: str, w: int, a: int, n: int) -> int:
    """ISA shl/shr: the amount is the .u32 b; past the width, shl/shr.u give 0 and shr.s the sign fill."""
    mask = (1 << w) - 1
    if root == "shl":
        return (a << n) & mask if n < w else 0
    if kind == "s":
        s = a - (1 << w) if a >> (w - 1) else a
        return (s >> n) & mask  # Python's >> of a negative int fills with the sign for any n
    return a >> n if n < w else 0


SHIFT_AMOUNTS = [0, 1, 2, 14, 15, 16, 17, 30, 31, 32, 33, 62, 63, 64, 65, 255, 256, 0x80000000, 0x80000001,
                 0xFFFFFFFF]


@pytest.mark.parametrize("w", [16, 32, 64])
@pytest.mark.parametrize("form", ["shl.b", "shr.u", "shr.s", "shr.b"])
def test_shifts_clamp_amounts_past_the_width_as_the_isa_says(form: str, w: int) -> None:
    root, kind = form.split(".")
    values = [0, 1, 3, 1 << (w - 2), 1 << (w - 1), (1 << (w - 1)) | 1, (1 << w) - 1, 0x5A5A5A5A5A5A5A5A & ((1 << w) - 1)]
    cases = [[a, n] for a in values for n in SHIFT_AMOUNTS]
    got = batch(f"{form}{w}", [w, 32], cases, w)
    want = [shift_ref(root, kind, w, a, n) for a, n in cases]
    bad = [(hex(a), n, g, x) for (a, n), g, x in zip(cases, got, want) if g != x]
    assert not bad, bad


@pytest.mark.parametrize("form", ["shl.b32", "shr.u32", "shr.s32"])
def test_an_immediate_shift_amount_is_converted_to_the_u32_operand_type(form: str) -> None:
    # PTX ISA "Integer Constants": a literal is converted to the size of the instruction type at its use
    a = 0x80000011
    m = run_lines([f"mov.b32 %r1, {a};", f"{form} %r7, %r1, 0x100000004;", f"{form} %r6, %r1, 0x100000000;"])
    root, kind = form[:3], form[4]
    assert value(m, "%r7") == shift_ref(root, kind, 32, a, 4)
    assert value(m, "%r6") == a


def bfind_ref(a: int, w: int, signed: bool, shiftamt: bool) -> int:
    """ISA bfind: position of the most significant 1 (signed: of the most significant non-sign bit), else
    0xffffffff; .shiftamt: the left shift that moves that bit to the msb, w - 1 - pos."""
    if signed and a >> (w - 1):
        a = ~a & ((1 << w) - 1)
    if a == 0:
        return 0xFFFFFFFF
    pos = a.bit_length() - 1
    return w - 1 - pos if shiftamt else pos


@pytest.mark.parametrize("w", [32, 64])
@pytest.mark.parametrize("t", ["u", "s"])
@pytest.mark.parametrize("shiftamt", [False, True])
def test_bfind_and_its_shift_amount_follow_the_isa(w: int, t: str, shiftamt: bool) -> None:
    values = [0, 1, 2, 3, 0x80, (1 << (w - 2)), (1 << (w - 1)), (1 << (w - 1)) | 1, (1 << w) - 1, (1 << w) - 2,
              0x5A5A5A5A5A5A5A5A & ((1 << w) - 1), 1 << (w // 2)]
    text = f"bfind{'.shiftamt' if shiftamt else ''}.{t}{w}"
    got = batch(text, [w], [[a] for a in values], 32)
    assert got == [bfind_ref(a, w, t == "s", shiftamt) for a in values], text


def test_64_bit_bit_counts_read_every_byte() -> None:
    values = [0, 1, 0xFF << 56, 1 << 63, (1 << 64) - 1, 0x0123456789ABCDEF, 0x8000000000000001, 1 << 40]
    cases = [[a] for a in values]
    assert batch("popc.b64", [64], cases) == [bin(a).count("1") for a in values]
    assert batch("clz.b64", [64], cases) == [64 - a.bit_length() for a in values]
    assert batch("brev.b64", [64], cases, 64) == [int(f"{a:064b}"[::-1], 2) for a in values]


EDGE = [0, 1, 2, 4, 8, 30, 31, 32, 33, 36, 63, 64, 255, 0x80000000, 0xFFFFFFFF]


@pytest.mark.parametrize("clamp", [False, True])
def test_bmsk_over_edge_positions_and_widths(clamp: bool) -> None:
    cases = [[a, b] for a in EDGE for b in EDGE]
    got = batch(f"bmsk.{'clamp' if clamp else 'wrap'}.b32", [32, 32], cases)
    assert got == [bmsk_ref(a, b, clamp) for a, b in cases]


@pytest.mark.parametrize("clamp", [False, True])
@pytest.mark.parametrize("is_signed", [False, True])
def test_szext_over_edge_values_and_widths(clamp: bool, is_signed: bool) -> None:
    values = [0, 1, 2, 3, 0x40000000, 0x80000000, 0xC0000000, 0x7FFFFFFF, M32, 0x12345678, 0x0000FF80]
    cases = [[a, b] for a in values for b in EDGE]
    got = batch(f"szext.{'clamp' if clamp else 'wrap'}.{'s32' if is_signed else 'u32'}", [32, 32], cases)
    want = [szext_ref(a, b, clamp, is_signed) for a, b in cases]
    bad = [(hex(a), b, g, x) for (a, b), g, x in zip(cases, got, want) if g != x]
    assert not bad, bad


@pytest.mark.parametrize("mode", sorted(PRMT_TABLE))
def test_prmt_mode_written_before_the_type_is_the_same_mode(mode: str) -> None:
    # ptxas accepts prmt.f4e.b32 as prmt.b32.f4e (checked with ptxas 13.0); the mode is honoured either way
    a, b = 0x33221100, 0x77665544
    for c in range(4):
        assert op(f"prmt.{mode}.b32", [a, b, c]) == prmt_mode_ref(a, b, c, mode), (mode, c)


# ------------------------------------------------------------- operand conversion and field edges
@pytest.mark.parametrize("mode", ["l.wrap", "l.clamp", "r.wrap", "r.clamp"])
def test_funnel_shift_amount_is_the_u32_value_of_an_immediate_or_register(mode: str) -> None:
    # PTX ISA "Integer Constants": a 64-bit literal is converted to the .u32 operand type at its use, so
    # 0x100000000 shifts by 0 and 0x180000000 by 0x80000000 (clamped to 32 / wrapped to 0)
    a, b = 0x89ABCDEF, 0x01234567
    left, clamp = mode[0] == "l", mode.endswith("clamp")
    lines = ["mov.b32 %r1, 0x89ABCDEF;", "mov.b32 %r2, 0x01234567;", "mov.b32 %r3, 0x80000000;",
             f"shf.{mode}.b32 %r4, %r1, %r2, %r3;"]
    imms = [0x100000000, 0x100000001, 0x180000000, 0x10000001F]
    lines += [f"shf.{mode}.b32 %r{8 + k}, %r1, %r2, {c};" for k, c in enumerate(imms)]
    m = run_lines(lines)
    assert value(m, "%r4") == shf_isa(a, b, 0x80000000, left, clamp)
    got = [value(m, f"%r{8 + k}") for k in range(len(imms))]
    assert got == [shf_isa(a, b, c & M32, left, clamp) for c in imms]


def test_prmt_reads_the_u32_value_of_an_immediate_first_source() -> None:
    # PTX ISA "Integer Constants": the literal 0x133221100 used as prmt's .b32 a is 0x33221100; selector
    # nibbles 0, 1, 4, 5 pick a.b0, a.b1, b.b0, b.b1 (bit 32 of the literal must not reach b.b0)
    m = run_lines(["mov.b32 %r2, 0x77665544;", "prmt.b32 %r7, 0x133221100, %r2, 0x5410;"])
    assert value(m, "%r7") == 0x55441100


def bfe_ref(a: int, b: int, c: int, w: int, signed: bool) -> int:
    """PTX ISA bfe, line by line: pos = b & 0xff, len = c & 0xff; sbit = 0 for .u or len == 0, else
    a[min(pos + len - 1, msb)]; d[i] = (i < len && pos + i <= msb) ? a[pos + i] : sbit."""
    msb = w - 1
    pos, ln = b & 0xFF, c & 0xFF
    sbit = 0 if (not signed or ln == 0) else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(w):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


@pytest.mark.parametrize("w", [32, 64])
@pytest.mark.parametrize("t", ["u", "s"])
def test_bfe_at_position_and_length_edges_matches_the_isa(w: int, t: str) -> None:
    values = [1, 2, 0b10, 0b01 | (1 << (w - 1)), 1 << (w - 1), (1 << (w - 1)) | (1 << (w - 2)), (1 << w) - 1,
              0x5A5A5A5A5A5A5A5A & ((1 << w) - 1)]
    edges = [0, 1, 2, w - 2, w - 1, w, w + 1, 255, 256, 257]
    cases = [[a, p, n] for a in values for p in edges for n in [0, 1, 2, 3, w - 1, w, 255, 256, 257]]
    got = batch(f"bfe.{t}{w}", [w, 32, 32], cases, w)
    want = [bfe_ref(a, p, n, w, t == "s") for a, p, n in cases]
    bad = [(hex(a), p, n, g, x) for (a, p, n), g, x in zip(cases, got, want) if g != x]
    assert not bad, bad


def test_bfe_sign_fills_from_the_single_extracted_bit() -> None:
    # ISA: for bfe.s32 with pos = 0, len = 1 the sign bit is a[min(0 + 1 - 1, 31)] = a[0]
    assert op("bfe.s32", [1, 0, 1]) == M32
    assert op("bfe.s32", [2, 0, 1]) == 0
    # ...and for bfe.u32 the field's top bit may be bit 31 itself (pos + i <= msb)
    assert op("bfe.u32", [0x80000000, 31, 1]) == 1

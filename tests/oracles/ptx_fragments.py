"""The PTX ISA's warp-level matrix semantics re-typed in plain Python, and a brute-force judge of fragment claims.

Nothing here imports layoutalg.  ``judge(case)`` walks every copy tile, part,
lane, register, half and byte in that order and answers what
``layoutalg.prove.fragment_delivers`` must answer: the first element where
the copy instruction and the mma fragment disagree, else the first lane whose
row address is not 16-byte aligned (or leaves the tile), else two tile
elements sharing one offset, else "proved".

Sources: PTX ISA 8.x, "Matrix Fragments for mma.m16n8k*" (groupID = lane >> 2,
threadID_in_group = lane % 4; element i of a lane lives in register
i / (32 / bits), low bits first), and the ldmatrix / stmatrix / movmatrix
sections (lane 8 m + r supplies row r of matrix m; register j holds matrix j;
lane l holds row l / 4, b16 columns 2 (l % 4) + h; .trans the transposed position).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


def _m16n8_c(lane: int, i: int) -> tuple[int, int]:
    return lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2


def _k16_f16(op: str, lane: int, i: int) -> tuple[int, int]:
    g, t = lane // 4, lane % 4
    if op == "A":
        return g + 8 * ((i // 2) % 2), 2 * t + i % 2 + 8 * (i // 4)
    return 2 * t + i % 2 + 8 * (i // 2), g


def _k8_f16(op: str, lane: int, i: int) -> tuple[int, int]:
    g, t = lane // 4, lane % 4
    if op == "A":
        return g + 8 * (i // 2), 2 * t + i % 2
    return 2 * t + i, g


def _k4_tf32(op: str, lane: int, i: int) -> tuple[int, int]:
    g, t = lane // 4, lane % 4
    return (g + 8 * i, t) if op == "A" else (t, g)


def _k8_tf32(op: str, lane: int, i: int) -> tuple[int, int]:
    g, t = lane // 4, lane % 4
    if op == "A":
        return g + 8 * (i % 2), t + 4 * (i // 2)
    return t + 4 * i, g


def _k32_8bit(op: str, lane: int, i: int) -> tuple[int, int]:
    g, t = lane // 4, lane % 4
    if op == "A":
        return g + 8 * ((i // 4) % 2), 4 * t + i % 4 + 16 * (i // 8)
    return 4 * t + i % 4 + 16 * (i // 4), g


def _k64_4bit(op: str, lane: int, i: int) -> tuple[int, int]:
    g, t = lane // 4, lane % 4
    if op == "A":
        return g + 8 * ((i // 8) % 2), 8 * t + i % 8 + 32 * (i // 16)
    return 8 * t + i % 8 + 32 * (i // 8), g


_AB = {(16, 8, 16, 16): _k16_f16, (16, 8, 8, 16): _k8_f16, (16, 8, 4, 32): _k4_tf32, (16, 8, 8, 32): _k8_tf32,
       (16, 8, 32, 8): _k32_8bit, (16, 8, 64, 4): _k64_4bit}


@dataclass(frozen=True)
class Fragment:
    """One lane's share of an mma operand: ``coord(lane, i) -> (row, col)``, ``n`` elements of ``bits`` bits."""

    rows: int
    cols: int
    bits: int
    coord: Callable[[int, int], tuple[int, int]]

    @property
    def n(self) -> int:
        return self.rows * self.cols // 32

    @property
    def regs(self) -> int:
        return self.n * self.bits // 32


def fragment(mnk: tuple[int, int, int], ab_bits: int, op: str, bits: int) -> Fragment:
    """The fragment of ``op`` for an m16n8kK mma whose A/B are ``ab_bits`` wide, holding ``bits``-bit elements."""
    m, n, k = mnk
    if op == "C":
        return Fragment(m, n, bits, _m16n8_c)
    fn = _AB[(m, n, k, ab_bits)]
    rows, cols = (m, k) if op == "A" else (k, n)
    return Fragment(rows, cols, bits, lambda lane, i: fn(op, lane, i))


def wgmma_warp_fragment(cols: int, bits: int) -> Fragment:
    """One warp's 16 rows of a wgmma m64nNk16 register fragment (D: ``cols`` = N; A of RS: 16):
    row groupID + 8 * ((i >> 1) & 1), col 8 * (i >> 2) + 2 * threadID_in_group + (i & 1) (PTX ISA wgmma D layout)."""
    return Fragment(16, cols, bits, lambda lane, i: (lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2))


def ldmatrix_slot(trans: bool, lane: int, reg: int, half: int) -> tuple[int, int, int]:
    """(matrix, row, col) in memory of half ``half`` of register ``reg`` of ``lane``."""
    row, col = lane // 4, 2 * (lane % 4) + half
    return (reg, col, row) if trans else (reg, row, col)


def swizzle(bits: int, base: int, shift: int) -> Callable[[int], int]:
    """CuTe Swizzle<B, M, S>: XOR bits [M+S, M+S+B) into bits [M, M+B)."""
    mask = ((1 << bits) - 1) << (base + shift)
    return lambda x: x ^ ((x & mask) >> shift)


@dataclass(frozen=True)
class Case:
    num: int
    trans: bool
    frag: Fragment
    rows: int
    cols: int
    smem: Callable[[int, int], int]
    read: Callable[[int, int], int] | None = None
    along: str = "col"
    addresses: Callable[..., tuple[int, int]] | None = None

    @property
    def fragments(self) -> int:
        return max(1, self.num // self.frag.regs)

    @property
    def parts(self) -> int:
        return max(1, self.frag.regs // self.num)

    @property
    def tile(self) -> tuple[int, int]:
        f = self.fragments
        return (self.frag.rows * f, self.frag.cols) if self.along == "row" else (self.frag.rows, self.frag.cols * f)


def need(case: Case, part: int, lane: int, reg: int, half: int, sub: int) -> tuple[int, int, int, int]:
    """(row, col, unit in element, element index) the fragment holds at this register position (copy-tile coords)."""
    fr = case.frag
    unit_bits = min(fr.bits, 16)
    per_reg = 32 // fr.bits
    position = (half * 16 + sub * unit_bits)  # bit offset inside the 32-bit register
    element_in_reg, unit = position // fr.bits, (position % fr.bits) // unit_bits
    if case.fragments > 1:
        f, freg = reg // fr.regs, reg % fr.regs
    else:
        f, freg = 0, part * case.num + reg
    i = freg * per_reg + element_in_reg
    row, col = fr.coord(lane, i)
    if case.along == "row":
        row += f * fr.rows
    else:
        col += f * fr.cols
    return row, col, unit, i


def row_coordinate(case: Case, part: int, matrix: int, row: int) -> tuple[int, int]:
    """Where lane 8 matrix + row points, relative to the copy tile."""
    if case.addresses is not None:
        lane = 8 * matrix + row
        try:
            return case.addresses(lane, part)
        except TypeError:
            return case.addresses(lane)
    for lane in range(32):  # the lane and half that receive (matrix, row, column 0)
        for half in range(2):
            if ldmatrix_slot(case.trans, lane, matrix, half) == (matrix, row, 0):
                r, c, _, _ = need(case, part, lane, matrix, half, 0)
                return r, c
    raise AssertionError("no lane receives column 0")  # pragma: no cover


def positions(case: Case):
    """Every (row_tile, col_tile, part, lane, reg, half, sub) in the order the first failure is looked for."""
    tr, tc = case.tile
    subs = 16 // min(case.frag.bits, 16)
    for ti in range(case.rows // tr):
        for tj in range(case.cols // tc):
            for part in range(case.parts):
                for lane in range(32):
                    for reg in range(case.num):
                        for half in range(2):
                            for sub in range(subs):
                                yield ti, tj, part, lane, reg, half, sub


def judge(case: Case) -> tuple[str, dict]:
    """("proved", {}) or ("refuted", what failed first); see the module docstring."""
    fr = case.frag
    unit_bits = min(fr.bits, 16)
    per_half, per_element = 16 // unit_bits, fr.bits // unit_bits
    tr, tc = case.tile
    read = case.read or case.smem
    for ti, tj, part, lane, reg, half, sub in positions(case):
        r0, c0 = ti * tr, tj * tc
        m, mr, mc = ldmatrix_slot(case.trans, lane, reg, half)
        ar, ac = row_coordinate(case, part, m, mr)
        got = read(r0 + ar, c0 + ac) * per_element + mc * per_half + sub
        nr, nc, unit, i = need(case, part, lane, reg, half, sub)
        want = case.smem(r0 + nr, c0 + nc) * per_element + unit
        if got != want:
            return "refuted", {"kind": "element", "tile": (ti, tj), "part": part, "lane": lane, "reg": reg,
                               "half": half, "sub": sub, "got_unit": got, "expected": (r0 + nr, c0 + nc),
                               "element_index": i}
    for ti in range(case.rows // tr):
        for tj in range(case.cols // tc):
            for part in range(case.parts):
                for lane in range(8 * case.num):
                    ar, ac = row_coordinate(case, part, lane // 8, lane % 8)
                    r, c = ti * tr + ar, tj * tc + ac
                    inside = 0 <= r < case.rows and 0 <= c < case.cols
                    if not inside or (read(r, c) * per_element * unit_bits) % 128:
                        return "refuted", {"kind": "row_address", "tile": (ti, tj), "part": part, "lane": lane,
                                           "at": (r, c)}
    offsets = [case.smem(r, c) for r in range(case.rows) for c in range(case.cols)]
    if len(set(offsets)) != len(offsets):
        return "refuted", {"kind": "not_injective"}
    return "proved", {}


def coordinate_of(case: Case, element: int) -> tuple[int, int] | None:
    """The first (row, col) of the tile stored at ``element``, in column-major order."""
    for c in range(case.cols):
        for r in range(case.rows):
            if case.smem(r, c) == element:
                return r, c
    return None


def native_offsets(case: Case) -> dict[tuple[int, int], int]:
    """A tile layout in which the copy moves exactly the fragment: matrix m, row r at 16 bytes * (8 m + r)
    of the copy tile (copy tiles packed one after another), read off the copy's own slots."""
    fr = case.frag
    unit_bits = min(fr.bits, 16)
    per_half, per_element = 16 // unit_bits, fr.bits // unit_bits
    tr, tc = case.tile
    table: dict[tuple[int, int], int] = {}
    for part in range(case.parts):
        for lane in range(32):
            for reg in range(case.num):
                for half in range(2):
                    for sub in range(per_half):
                        m, mr, mc = ldmatrix_slot(case.trans, lane, reg, half)
                        unit = ((part * case.num + m) * 8 + mr) * 8 * per_half + mc * per_half + sub
                        nr, nc, u, _ = need(case, part, lane, reg, half, sub)
                        if unit % per_element != u:
                            raise ValueError("an element would be split")
                        table[(nr, nc)] = unit // per_element
    assert len(table) == tr * tc and sorted(table.values()) == list(range(tr * tc))
    return table



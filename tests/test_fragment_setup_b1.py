"""The one-bit operands (``.b1``, ``mma.m8n8k128`` / ``m16n8k128`` / ``m16n8k256``) through ldmatrix.

PTX ISA, "Matrix Fragments for mma.m16n8k128 / m16n8k256 / m8n8k128" (``.b1``): 32 elements per 32-bit
register, low bits first; for A (M x K, row) element ``i`` of lane ``l`` is row ``l / 4 + 8 (i / 32 % 2)``,
column ``32 (l % 4) + i % 32 + 128 (i / 64)``; for B (K x N, col) row ``32 (l % 4) + i % 32 + 128 (i / 32)``,
column ``l / 4``.  ldmatrix moves 16 of them per b16 half, so the theorem is over every ``bit`` of a half.
They used to crash the setup with a KeyError (no name for a 16-unit half).
"""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.prove import fragment_delivers
from layoutalg.swizzle import ComposedLayout, Swizzle

B1_16x8x256 = "SM80_16x8x256_S32U1U1S32_TN_XORPOPC"


def _b1(op: str, lane: int, i: int) -> tuple[int, int]:
    g, t = lane // 4, lane % 4
    if op == "A":
        return g + 8 * ((i // 32) % 2), 32 * t + i % 32 + 128 * (i // 64)
    return 32 * t + i % 32 + 128 * (i // 32), g


def _brute(op: str, num: int, smem: object) -> tuple[str, dict[str, int] | None]:
    """ldmatrix.x``num`` (no .trans): lane ``8 m + r`` gives row r of matrix m; register j of lane l, half h,
    bit s is bit ``16 (2 (l % 4) + h) + s`` of that row; 'proved' iff for every (matrix, row) the bits the
    fragment needs are 128 consecutive bits starting on 128 (the only address that can work)."""
    regs = {"A": 4, "B": 2}[op]
    for j in range(num):
        for row in range(8):
            need = []
            for col16 in range(8):
                lane, half = 4 * row + col16 // 2, col16 % 2
                for s in range(16):
                    f, reg = divmod(j, regs)
                    r, c = _b1(op, lane, 32 * reg + 16 * half + s)
                    if op == "B":
                        c += 8 * f
                    need.append(smem(r, c))  # type: ignore[operator]
            if need[0] % 128 or need != list(range(need[0], need[0] + 128)):
                return "refuted", {"reg": j, "row": row}
    return "proved", None


@pytest.mark.parametrize("op, num, shape, swizzle", [
    ("A", 4, (16, 256), None), ("A", 4, (16, 256), Swizzle(3, 7, 3)), ("A", 4, (16, 256), Swizzle(2, 4, 3)),
    ("B", 4, (256, 16), None), ("B", 4, (256, 16), Swizzle(3, 7, 3)), ("B", 4, (256, 16), Swizzle(1, 5, 4)),
])
def test_b1_fragments_agree_with_the_ptx_table(op: str, num: int, shape: tuple[int, int], swizzle: object) -> None:
    rows, cols = shape
    inner = Layout(shape, (cols, 1) if op == "A" else (1, rows))  # K contiguous for both
    smem = inner if swizzle is None else ComposedLayout(swizzle, 0, inner)
    want, where = _brute(op, num, smem)
    result = fragment_delivers(f"ldmatrix.x{num}", smem, B1_16x8x256, op)
    assert result.status == want
    if want == "refuted":
        cex = result.counterexample
        assert cex is not None and 0 <= cex["bit"] < 16 and cex["element"] != cex["expected_element"]

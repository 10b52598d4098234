"""Swizzle(B, M, S): CuTe's definition checked against a bit-by-bit formula, bijectivity, involution, oracles."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.errors import LayoutError
from layoutalg.swizzle.strategies import swizzles
from layoutalg.swizzle.swizzle import Swizzle


def bitwise_swizzle(x: int, b: int, m: int, s: int) -> int:
    """The swizzle written bit by bit (independent of the library's mask arithmetic).

    S > 0: for j < B, bit M+j of the result is bit M+j XOR bit M+S+j of x.
    S < 0: for j < B, bit M-S+j of the result is bit M-S+j XOR bit M+j of x.
    """
    out = x
    for j in range(b):
        if s > 0:
            src, dst = m + s + j, m + j
        else:
            src, dst = m + j, m - s + j
        if (x >> src) & 1:
            out ^= 1 << dst
    return out


def test_masks_of_sw343_match_cute() -> None:
    # Sw<3,4,3>: reads bits 7..9 (0x380), writes bits 4..6 (0x70), as in cute/swizzle.hpp's comment.
    sw = Swizzle(3, 4, 3)
    assert sw.yyy_mask == 0b1110000000
    assert sw.zzz_mask == 0b0001110000
    assert str(sw) == "Sw<3,4,3>"
    assert repr(sw) == "Swizzle(3, 4, 3)"


def test_negative_shift_masks() -> None:
    sw = Swizzle(2, 1, -3)
    assert sw.yyy_mask == 0b11 << 1
    assert sw.zzz_mask == 0b11 << 4
    assert sw(0b000110) == 0b110110


def test_known_values_sw333() -> None:
    sw = Swizzle(3, 3, 3)
    # row r of an 8x64 row-major fp16 tile starts at 64 r; bits 6..8 (= r) flip the 8-element chunk index.
    for r in range(8):
        for chunk in range(8):
            assert sw(64 * r + 8 * chunk) == 64 * r + 8 * (chunk ^ r)


@given(swizzles(max_bits=4, max_base=5, max_shift=6), st.integers(0, 1 << 16))
@settings(max_examples=300, deadline=None)
def test_matches_bitwise_formula(sw: Swizzle, x: int) -> None:
    assert sw(x) == bitwise_swizzle(x, sw.bits, sw.base, sw.shift)


@given(swizzles(max_bits=3, max_base=3, max_shift=4))
@settings(max_examples=60, deadline=None)
def test_bijection_and_involution_on_its_period(sw: Swizzle) -> None:
    n = max(sw.period(), 16)
    image = [sw(x) for x in range(n)]
    assert sorted(image) == list(range(n))
    assert all(sw(sw(x)) == x for x in range(n))
    # blocks of the period are permuted within themselves
    assert all(x // sw.period() == sw(x) // sw.period() for x in range(n))


def test_identity_when_no_bits() -> None:
    sw = Swizzle(0, 5, 3)
    assert sw.is_identity()
    assert [sw(x) for x in range(300)] == list(range(300))
    assert Swizzle(0, 0, 0)(17) == 17


def test_numpy_evaluation_matches_scalar() -> None:
    import numpy as np

    sw = Swizzle(3, 4, 3)
    xs = np.arange(4096, dtype=np.int64)
    assert sw(xs).tolist() == [sw(int(x)) for x in xs]


@pytest.mark.parametrize(
    "args, word",
    [((-1, 0, 1), "bits"), ((1, -1, 1), "base"), ((3, 4, 2), "|S| >= B"), ((2, 0, 0), "|S| >= B"), ((1, 0, -0), "|S|")],
)
def test_validation(args: tuple[int, int, int], word: str) -> None:
    with pytest.raises(LayoutError, match=word.replace("|", r"\|")):
        Swizzle(*args)


@pytest.mark.parametrize("bad", [1.5, "3", True, None])
def test_validation_types(bad: object) -> None:
    with pytest.raises(LayoutError):
        Swizzle(bad, 0, 1)  # type: ignore[arg-type]
    with pytest.raises(LayoutError):
        Swizzle(1, 0, 1)(bad)  # type: ignore[arg-type]


def test_from_masks_round_trip() -> None:
    for sw in [Swizzle(3, 4, 3), Swizzle(2, 1, -3), Swizzle(1, 0, 5)]:
        assert Swizzle.from_masks(sw.yyy_mask, sw.zzz_mask) == sw
    with pytest.raises(LayoutError):
        Swizzle.from_masks(0b101, 0b11000)


@given(swizzles(max_bits=3, max_base=4, max_shift=5), st.integers(0, 1 << 12))
@settings(max_examples=200, deadline=None)
def test_pycute_oracle(sw: Swizzle, x: int) -> None:
    pycute = pytest.importorskip("pycute")
    if sw.shift == 0:  # pycute's Swizzle recurses forever with shift 0 (ORACLES.md)
        return
    assert sw(x) == pycute.Swizzle(sw.bits, sw.base, sw.shift)(x)


@pytest.mark.oracle
def test_cute_dsl_oracle_evaluation() -> None:
    """make_composed_layout(make_swizzle(B,M,S), 0, make_layout(N)) evaluated at every index by CuTe DSL."""
    cases = [(b, m, s) for b in range(4) for m in range(5) for s in (-4, -3, 3, 4) if abs(s) >= b]
    n = 1024
    got = run_dsl_swizzles(cases, n)
    for (b, m, s), values in zip(cases, got):
        sw = Swizzle(b, m, s)
        assert values == [sw(i) for i in range(n)], (b, m, s)


def run_dsl_swizzles(cases: list[tuple[int, int, int]], n: int) -> list[list[int]]:
    pytest.importorskip("cutlass.cute")
    from oracles.cute_dsl import Batch, Composed, Lay, Swz

    batch = Batch()
    for b, m, s in cases:
        # every value, as a tuple of ints (a composed layout itself may not leave the trace)
        batch.custom(lambda cute, c: tuple(c(i) for i in range(n)), Composed(Swz(b, m, s), 0, Lay(n)))
    out = []
    for result in batch.run():
        assert result.ok, result.error
        out.append(list(result.value))
    return out

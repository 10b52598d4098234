"""Swizzle<B,M,S> contract: CuTe's formula (cute/swizzle.hpp) checked by brute force on ints and numpy arrays.

The reference below is written from CuTe's definition, independently of ``Swizzle.__call__``:
``yyy = bit_msk << (M + max(0,S))``, ``Sw(x) = x ^ shiftr(x & yyy, S)`` (a negative S shifts left).
"""

from __future__ import annotations

import numpy as np
import pytest

from layoutalg.errors import LayoutError
from layoutalg.swizzle.swizzle import Swizzle


def cute_swizzle(b: int, m: int, s: int, x: int) -> int:
    yyy = ((1 << b) - 1) << (m + max(0, s))
    picked = x & yyy
    return x ^ (picked >> s if s >= 0 else picked << -s)


def small_swizzles(top_bits: int) -> list[tuple[int, int, int]]:
    """Every valid (B, M, S) with B >= 1 whose touched bits lie below ``top_bits``."""
    out = []
    for b in range(1, top_bits):
        for m in range(top_bits):
            for s in range(-top_bits, top_bits + 1):
                if abs(s) >= b and m + abs(s) + b <= top_bits:
                    out.append((b, m, s))
    return out


def test_period_is_the_smallest_power_of_two_the_swizzle_repeats_with() -> None:
    for b, m, s in small_swizzles(7) + [(0, 0, 0), (0, 3, 5)]:
        expected = next(1 << k for k in range(9)
                        if all(cute_swizzle(b, m, s, x + (1 << k)) == cute_swizzle(b, m, s, x) + (1 << k)
                               for x in range(-128, 256)))
        assert Swizzle(b, m, s).period() == expected, (b, m, s)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16"])
def test_numpy_arrays_of_every_width_swizzle_like_python_ints(dtype: str) -> None:
    info = np.iinfo(dtype)
    values = np.arange(info.min, info.max + 1, max(1, (info.max - info.min + 1) // 512), dtype=dtype)
    for b, m, s in small_swizzles(10):
        got = Swizzle(b, m, s)(values)
        assert [int(v) for v in got] == [cute_swizzle(b, m, s, int(v)) for v in values], (dtype, b, m, s)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint64"])
def test_numpy_array_keeps_its_dtype_exactly_when_every_touched_bit_fits(dtype: str) -> None:
    info = np.iinfo(dtype)
    value_bits = info.bits - (1 if info.min < 0 else 0)
    values = np.array([info.min, 0, 1, info.max // 3, info.max], dtype=dtype)
    for top in (value_bits - 1, value_bits, value_bits + 1):
        for sw in (Swizzle(1, top - 2, 1), Swizzle(1, top - 2, -1)):
            assert sw.swizzle_code.bit_length() == top
            got = sw(values)
            assert [int(v) for v in got] == [cute_swizzle(sw.bits, sw.base, sw.shift, int(v)) for v in values]
            assert (got.dtype == values.dtype) == (top <= value_bits), (dtype, sw, got.dtype)


def test_wide_swizzle_on_int64_array_is_exact() -> None:
    values = np.array([-1, 0, 1 << 62, (1 << 63) - 1, -(1 << 63)], dtype=np.int64)
    for sw in (Swizzle(3, 60, 3), Swizzle(2, 59, -3), Swizzle(1, 200, 1)):
        assert [int(v) for v in sw(values)] == [cute_swizzle(sw.bits, sw.base, sw.shift, int(v)) for v in values]


def test_numpy_integer_scalar_swizzles_to_a_python_int() -> None:
    sw = Swizzle(3, 4, 3)
    for scalar in (np.int64(1000), np.uint16(1000), np.int8(-7)):
        got = sw(scalar)
        assert type(got) is int
        assert got == cute_swizzle(3, 4, 3, int(scalar))


def test_integer_like_object_with_a_dtype_attribute_but_no_ndim_is_a_scalar() -> None:
    class Tagged:
        dtype = np.dtype("int64")

        def __index__(self) -> int:
            return 1000

    assert Swizzle(3, 4, 3)(Tagged()) == cute_swizzle(3, 4, 3, 1000)


def test_float_array_is_refused_naming_its_dtype() -> None:
    with pytest.raises(LayoutError, match="float64"):
        Swizzle(3, 4, 3)(np.zeros(4))


def test_object_array_of_non_integers_is_refused() -> None:
    with pytest.raises(LayoutError, match="integer offsets"):
        Swizzle(3, 4, 3)(np.array(["a", 1.5], dtype=object))


def test_object_array_of_python_ints_swizzles_exactly() -> None:
    values = np.array([0, 1 << 70, (1 << 80) + 12345], dtype=object)
    sw = Swizzle(3, 4, 3)
    assert list(sw(values)) == [cute_swizzle(3, 4, 3, int(v)) for v in values]


def test_apply_is_the_swizzle_and_inverse_undoes_it() -> None:
    for b, m, s in small_swizzles(6):
        sw = Swizzle(b, m, s)
        inv = sw.inverse()
        for x in range(64):
            assert sw.apply(x) == cute_swizzle(b, m, s, x)
            assert inv(sw(x)) == x


def test_swizzle_takes_exactly_three_parameters() -> None:
    with pytest.raises(TypeError):
        Swizzle(2, 3, 3, 0)  # type: ignore[call-arg]


def test_from_masks_of_two_empty_masks_is_the_identity_swizzle() -> None:
    sw = Swizzle.from_masks(0, 0)
    assert sw == Swizzle(0, 0, 0)
    assert all(sw(x) == x for x in range(64))


def test_from_masks_recovers_every_small_swizzle() -> None:
    for b, m, s in small_swizzles(8):
        sw = Swizzle(b, m, s)
        assert Swizzle.from_masks(sw.yyy_mask, sw.zzz_mask) == sw


@pytest.mark.parametrize(("yyy", "zzz", "pattern"), [
    (0b101, 0b11000, "yyy_mask 0x5 is not a contiguous run"),
    (0b11000, 0b1001, "zzz_mask 0x9 is not a contiguous run"),
    (0b111000, 0b11, "different widths"),
    (0, 0b11, "yyy_mask 0x0 must be a positive"),
])
def test_from_masks_refuses_masks_that_are_not_equal_contiguous_runs(yyy: int, zzz: int, pattern: str) -> None:
    with pytest.raises(LayoutError, match=pattern):
        Swizzle.from_masks(yyy, zzz)


def test_identity_swizzle_returns_every_array_unchanged() -> None:
    for values in (np.arange(-4, 4, dtype=np.int8), np.array([1 << 70, 3], dtype=object)):
        got = Swizzle(0, 5, 0)(values)
        assert list(got) == list(values)

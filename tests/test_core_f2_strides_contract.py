"""Contract of `layoutalg.core.f2_strides`: its inverses refuse a layout whose strides mix F2 with another kind,
naming the stride, and on F2 layouts L(R(v)) == v / R(L(i)) == i hold by brute force (XOR arithmetic)."""

from __future__ import annotations

import importlib
import random
from typing import Any

import pytest
from gf2_oracle import xor_fold

import layoutalg as la
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout
from layoutalg.core.stride_scalars import F2, E
from layoutalg.errors import ShapeError

f2_strides = importlib.import_module("layoutalg.core.f2_strides")


@pytest.mark.parametrize("other, text", [(2, "2"), (E(1), "1@1")])
@pytest.mark.parametrize("name", ["right_inverse", "left_inverse"])
def test_inverses_refuse_strides_mixing_f2_with_another_kind(other: Any, text: str, name: str) -> None:
    layout = StrideLayout((2, 2), (F2(1), other))
    with pytest.raises(ShapeError, match=f"stride {text} mixes F2 with another kind"):
        getattr(f2_strides, name)(layout)


def test_an_f2_layout_and_its_inverses_round_trip() -> None:
    layout = StrideLayout((2, 2, 2), (F2(1), F2(3), F2(6)))
    values = [int(v) for v in layout.values()]
    assert sorted(values) == list(range(8))
    left = f2_strides.left_inverse(layout)
    right = f2_strides.right_inverse(layout)
    assert [int(left(v)) for v in values] == list(range(8))
    assert [values[int(right(v))] for v in range(8)] == list(range(8))


def test_a_non_power_of_two_f2_layout_gets_the_right_inverse_of_its_reached_prefix() -> None:
    layout = StrideLayout((3, 2), (F2(1), F2(4)))  # values clmul(i, 1) = 0, 1, 2, then those xor 4
    values = [int(v) for v in layout.values()]
    right = f2_strides.right_inverse(layout)
    reached = 0
    while reached in values:
        reached += 1
    size = right.size()
    assert 1 <= size <= reached
    assert [values[int(right(v))] for v in range(size)] == list(range(size))


# --- right inverse of a non-power-of-two F2 layout: brute force over every mode decomposition ---------------------

def _is_f2_values(values: list[int]) -> bool:
    """Whether ``values`` (values[0] == 0) is the value list of some F2 layout, trying EVERY first extent ``e``
    dividing the length: mode ``e:F2(values[1])`` then, recursively, a layout with values ``values[::e]``, with
    ``values[i + e*j] == i*values[1] ^ values[e*j]`` (carry-less)."""
    n = len(values)
    if n == 1:
        return True
    d = values[1]
    for e in range(2, n + 1):
        if n % e == 0 and all(values[i + e * j] == xor_fold(d, i) ^ values[e * j]
                              for j in range(n // e) for i in range(e)) and _is_f2_values(values[::e]):
            return True
    return False


def _smallest_preimages(layout: Any) -> list[int]:
    """For each value 0, 1, ... the layout reaches, in order until the first it misses: its smallest index."""
    first: dict[int, int] = {}
    for i, v in enumerate(layout.values()):
        first.setdefault(int(v), i)
    reached = 0
    while reached in first:
        reached += 1
    return [first[v] for v in range(reached)]


def _expected_right_inverse_values(layout: Any) -> list[int]:
    """The documented answer: the smallest preimages of the longest prefix ``0 .. n-1`` of reached values that are
    an F2 layout's values -- every ``n`` up to 4096 reached values, past that the whole prefix and the powers of two
    below it -- or ``[0]`` (the layout 1:0) when there is none with ``n >= 2``."""
    pre = _smallest_preimages(layout)
    k = len(pre)
    sizes = range(k, 1, -1) if k <= 4096 else [k] + [1 << b for b in range(k.bit_length(), 0, -1) if 1 < 1 << b < k]
    return next((pre[:n] for n in sizes if _is_f2_values(pre[:n])), [0])


def _random_non_power_of_two_f2_layouts(count: int) -> list[Any]:
    rng = random.Random(1917)
    out: list[Any] = []
    while len(out) < count:
        shape = tuple(rng.randint(1, 7) for _ in range(rng.randint(1, 3)))
        if any(s & (s - 1) for s in shape):
            out.append(StrideLayout(shape, tuple(F2(rng.randint(0, 31)) for _ in shape)))
    return out


def _assert_right_inverse_is(layout: Any, expected: list[int]) -> None:
    right = f2_strides.right_inverse(layout)
    if expected == [0]:
        assert right == Layout(1, 0), layout
    else:
        assert [int(right(v)) for v in range(right.size())] == expected, layout


@pytest.mark.parametrize("layout", _random_non_power_of_two_f2_layouts(160), ids=str)
def test_a_non_power_of_two_f2_layout_gets_the_longest_right_inverse_of_smallest_preimages(layout: Any) -> None:
    _assert_right_inverse_is(layout, _expected_right_inverse_values(layout))


@pytest.mark.parametrize("layout, size", [
    # reaches 0 .. 4095 (4095 at index 4095 + 1): every prefix is tried and 0 .. 4094 is one (4095:F2(1)); the whole
    # prefix is not (a 4096-value F2 layout has power-of-two extents, so it is linear and sends 4095 to 4095)
    (StrideLayout((4095, 2), (F2(1), F2(4094))), 4095),
    # reaches 0 .. 4096 at indices 3v: past 4096 only 4097 and the powers of two are tried; 3v needs a first extent
    # 3 (2 would give 3 ^ 6 at index 3), which no power of two has, so 0 .. 1 is the longest
    (StrideLayout((3, 4097), (F2(1 << 13), F2(1))), 2),
    # (4,5):(F2(2),F2(5)) under a 256:F2(1) mode: reaches 0 .. 4351, of which 0 .. 4095 is the longest
    # power-of-two prefix that is an F2 layout (the largest power of two below 4352, so none is skipped)
    (StrideLayout((256, 4, 5), (F2(1), F2(2 << 8), F2(5 << 8))), 4096),
], ids=str)
def test_past_4096_reached_values_only_power_of_two_prefixes_are_tried_for_the_right_inverse(layout: Any,
                                                                                          size: int) -> None:
    expected = _expected_right_inverse_values(layout)
    assert len(expected) == size
    _assert_right_inverse_is(layout, expected)


def test_an_f2_layout_reaching_no_unit_value_has_the_right_inverse_1_0_as_an_int_layout_does() -> None:
    assert f2_strides.right_inverse(StrideLayout((2, 2), (F2(2), F2(4)))) == Layout(1, 0)
    assert la.right_inverse(Layout((2, 2), (2, 4))) == Layout(1, 0)


def test_the_left_inverse_of_an_all_zero_f2_layout_is_1_0_as_an_int_layout_does() -> None:
    left = f2_strides.left_inverse(StrideLayout((2, 4), (F2(0), F2(0))))
    assert left == Layout(1, 0)
    assert la.left_inverse(Layout((2, 4), (0, 0))) == Layout(1, 0)

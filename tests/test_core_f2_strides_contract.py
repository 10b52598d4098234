"""Contract of `layoutalg.core.f2_strides`: its inverses refuse a layout whose strides mix F2 with another kind,
naming the stride, and on F2 layouts L(R(v)) == v / R(L(i)) == i hold by brute force (XOR arithmetic)."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

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

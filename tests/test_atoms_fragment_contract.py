"""Formula-to-layout fitting and bit-layout upcasts (layoutalg.atoms.fragment): fit_layout recovers CUTLASS's
SM80 m16n8k16 A layout from the PTX fragment formula and refuses a formula no layout equals; upcast_bits views
a layout over bits as one over wider values (CuTe upcast<N>), keeping the sign of a stride; bad input refused."""

from __future__ import annotations

import pytest

from layoutalg.atoms.fragment import fit_layout, index_arg, upcast_bits
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError, LayoutError


def ptx_a_m16n8k16(lane: int, i: int) -> int:
    """PTX m16n8k16 .f16 A: row groupID (+8 for a2,a3,a6,a7), col 2*tig + (i&1) (+8 for i >= 4); m + 16k."""
    g, t = lane >> 2, lane % 4
    row = g + (8 if i in (2, 3, 6, 7) else 0)
    col = 2 * t + (i & 1) + (8 if i >= 4 else 0)
    return row + 16 * col


def test_fit_layout_recovers_cutlass_sm80_16x8x16_a_layout_from_the_ptx_formula() -> None:
    # CUTLASS SM80_16x8x16 ALayout: ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))
    assert fit_layout(ptx_a_m16n8k16, (32, 8)) == Layout(((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128)))


def test_fit_layout_gives_a_mode_of_extent_one_stride_zero() -> None:
    assert fit_layout(lambda a, b: 3 * a, (4, 1)) == Layout((4, 1), (3, 0))


@pytest.mark.parametrize("modes", [(3, 4), (4, 6), (0, 2)])
def test_fit_layout_refuses_a_mode_extent_that_is_not_a_power_of_two(modes: tuple[int, int]) -> None:
    bad = next(n for n in modes if n <= 0 or n & (n - 1))
    with pytest.raises(LayoutError, match=f"f: mode extent {bad} is not a power of two"):
        fit_layout(lambda a, b: a + b, modes, "f")


def test_fit_layout_refuses_a_formula_that_misses_the_origin_or_is_no_layout() -> None:
    with pytest.raises(LayoutError, match="g: value at the origin is 5, not 0"):
        fit_layout(lambda a: a + 5, (4,), "g")
    with pytest.raises(LayoutError, match=r"h is not a layout: at \(3,\) it gives 9"):
        fit_layout(lambda a: a * a, (4,), "h")


def test_upcast_bits_views_register_bits_as_values() -> None:
    assert upcast_bits(Layout((32, 32), (32, 1)), 16) == Layout((32, 2), (2, 1))
    assert upcast_bits(Layout(((8, 4), 128), ((128, 0), 1)), 16) == Layout(((8, 4), 8), ((8, 0), 1))
    assert upcast_bits(Layout(4, -8), 16) == Layout(2, -1)  # stride below the width keeps its sign
    assert upcast_bits(Layout(4, 8), 16) == Layout(2, 1)
    assert upcast_bits(Layout(2, -64), 16) == Layout(2, -4)
    assert upcast_bits(Layout(2, 1), 16).shape == 1  # two bits fold into one value
    one_bit = Layout(((8, 4), 128), ((128, 0), 1))
    assert upcast_bits(one_bit, 1) == one_bit  # 1-bit values are the bits themselves


@pytest.mark.parametrize("layout, bits, match", [
    (Layout(4, 24), 16, "a stride of 24 bits cannot be recast to 16-bit values"),
    (Layout(3, 1), 2, "a mode of 3 bits at stride 1 does not split into 2-bit values"),
    (Layout(8, 1), 0, "bits must be a positive int, got 0"),
    (Layout(8, 1), True, "bits must be a positive int, got True"),
    (Layout(8, 1), 2.0, "bits must be a positive int, got 2.0"),
])
def test_upcast_bits_refuses_what_does_not_split_into_values(layout: Layout, bits: int, match: str) -> None:
    with pytest.raises(LayoutError, match=match):
        upcast_bits(layout, bits)


@pytest.mark.parametrize("value, match", [(8, r"lane must be in \[0, 8\), got 8"), (-1, r"must be in \[0, 8\)"),
                                          ("3", r"lane must be an int in \[0, 8\) or a symbolic term")])
def test_index_arg_refuses_an_index_outside_its_range(value: object, match: str) -> None:
    with pytest.raises(InstructionError, match=match):
        index_arg(value, 8, "lane")
    assert index_arg(7, 8, "lane") == 7

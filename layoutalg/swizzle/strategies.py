"""Hypothesis strategies for swizzles, power-of-two layouts and composed layouts (for tests; imports hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from layoutalg.core.layout import Layout
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


@st.composite
def swizzles(draw: Any, max_bits: int = 3, max_base: int = 4, max_shift: int = 4) -> Swizzle:
    """A valid ``Swizzle(B, M, S)``: ``0 <= B <= max_bits``, ``0 <= M <= max_base``, ``B <= |S| <= max_shift``."""
    bits = draw(st.integers(0, max_bits))
    base = draw(st.integers(0, max_base))
    low = max(bits, 1)
    magnitude = draw(st.integers(low, max(low, max_shift)))
    shift = magnitude if draw(st.booleans()) else -magnitude
    return Swizzle(bits, base, shift)


@st.composite
def pow2_layouts(draw: Any, max_modes: int = 4, max_log_extent: int = 3, max_log_stride: int = 8,
                 zero_strides: bool = True) -> Layout:
    """A flat layout with power-of-two extents and power-of-two (or zero) strides; possibly not injective."""
    n = draw(st.integers(1, max_modes))
    shape = tuple(1 << draw(st.integers(0, max_log_extent)) for _ in range(n))
    choices = st.one_of(st.just(0), st.integers(0, max_log_stride).map(lambda k: 1 << k)) if zero_strides else (
        st.integers(0, max_log_stride).map(lambda k: 1 << k)
    )
    stride = tuple(draw(choices) for _ in range(n))
    return Layout(shape, stride) if n > 1 else Layout(shape[0], stride[0])


@st.composite
def compact_pow2_layouts(draw: Any, max_modes: int = 4, max_log_extent: int = 3) -> Layout:
    """A bijection onto ``[0, 2**k)``: power-of-two extents with their compact strides in a random order."""
    n = draw(st.integers(1, max_modes))
    shape = [1 << draw(st.integers(0, max_log_extent)) for _ in range(n)]
    order = draw(st.permutations(list(range(n))))
    stride = [0] * n
    running = 1
    for k in order:
        stride[k] = running
        running *= shape[k]
    return Layout(tuple(shape), tuple(stride)) if n > 1 else Layout(shape[0], stride[0])


@st.composite
def small_layouts(draw: Any, max_modes: int = 3, max_extent: int = 6, max_stride: int = 12) -> Layout:
    """A small flat layout with arbitrary positive extents and non-negative strides."""
    n = draw(st.integers(1, max_modes))
    shape = tuple(draw(st.integers(1, max_extent)) for _ in range(n))
    stride = tuple(draw(st.integers(0, max_stride)) for _ in range(n))
    return Layout(shape, stride) if n > 1 else Layout(shape[0], stride[0])


@st.composite
def swizzled_layouts(draw: Any, offset: bool = False, compact: bool = True) -> ComposedLayout:
    """``Sw o off o L`` with a small swizzle; ``L`` a compact power-of-two bijection unless ``compact=False``."""
    inner = draw(compact_pow2_layouts() if compact else pow2_layouts())
    sw = draw(swizzles())
    off = draw(st.integers(0, 64)) if offset else 0
    return ComposedLayout(sw, off, inner)


__all__ = ["swizzles", "pow2_layouts", "compact_pow2_layouts", "small_layouts", "swizzled_layouts"]

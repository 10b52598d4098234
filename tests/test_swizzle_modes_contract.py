"""append and prepend (layoutalg.swizzle.modes) on plain and composed layouts: the new mode is added to the inner
layout, the swizzle and offset are kept, and the old modes hold the same function."""

from __future__ import annotations

from layoutalg.core.layout import Layout
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.modes import append, prepend
from layoutalg.swizzle.swizzle import Swizzle

SWIZZLED = ComposedLayout(Swizzle(1, 0, 1), 2, Layout((4, 2), (2, 1)))


def test_append_adds_a_last_mode_to_the_inner_layout_and_keeps_the_swizzle() -> None:
    appended = append(SWIZZLED)
    assert appended == ComposedLayout(Swizzle(1, 0, 1), 2, Layout((4, 2, 1), (2, 1, 0)))
    assert all(appended((i, j, 0)) == SWIZZLED((i, j)) for i in range(4) for j in range(2))
    assert append(Layout(4, 1), n=3) == Layout((4, 1, 1), (1, 0, 0))


def test_prepend_adds_a_first_mode_to_the_inner_layout_and_keeps_the_swizzle() -> None:
    prepended = prepend(SWIZZLED, Layout(3, 8))
    assert prepended == ComposedLayout(Swizzle(1, 0, 1), 2, Layout((3, 4, 2), (8, 2, 1)))
    assert all(prepended((0, i, j)) == SWIZZLED((i, j)) for i in range(4) for j in range(2))
    assert prepend(Layout(4, 1), n=3) == Layout((1, 1, 4), (0, 0, 1))

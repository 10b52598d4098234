"""The exported hypothesis strategies (``layoutalg.swizzle.strategies``) reach every value their docstrings allow and
none outside: ``find`` reaches each extreme, and a derandomized search of 300 examples for a value past a bound
finds none (hypothesis tries the ends of each integer range early, so a bound moved by one is drawn)."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, find, settings
from hypothesis.errors import NoSuchExample

from layoutalg.core.layout import Layout
from layoutalg.swizzle.strategies import compact_pow2_layouts, pow2_layouts, small_layouts, swizzled_layouts

SEARCH = settings(max_examples=2000, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
BOUND = settings(max_examples=300, database=None, derandomize=True, suppress_health_check=list(HealthCheck))


def _leaves(layout: Layout) -> Any:
    shape, stride = layout.shape, layout.stride
    return (shape, stride) if isinstance(shape, tuple) else ((shape,), (stride,))


def _never(strategy: Any, predicate: Callable[[Any], bool], search: settings = BOUND) -> None:
    with pytest.raises(NoSuchExample):
        find(strategy, predicate, settings=search)


def test_pow2_layouts_without_zero_strides_reach_stride_1_and_256_and_never_pass_256() -> None:
    strategy = pow2_layouts(zero_strides=False)
    assert 1 in _leaves(find(strategy, lambda lay: 1 in _leaves(lay)[1], settings=SEARCH))[1]
    assert 256 in _leaves(find(strategy, lambda lay: 256 in _leaves(lay)[1], settings=SEARCH))[1]
    _never(strategy, lambda lay: max(_leaves(lay)[1]) > 256)


@pytest.mark.parametrize("strategy", [pow2_layouts(), compact_pow2_layouts(), small_layouts()],
                         ids=["pow2", "compact", "small"])
def test_each_layout_strategy_reaches_exactly_two_modes(strategy: Any) -> None:
    two = find(strategy, lambda lay: len(_leaves(lay)[0]) == 2, settings=SEARCH)
    assert isinstance(two.shape, tuple) and len(two.shape) == 2


def test_compact_pow2_layouts_reach_extent_8_and_four_modes_and_never_more() -> None:
    assert 8 in _leaves(find(compact_pow2_layouts(), lambda lay: 8 in _leaves(lay)[0], settings=SEARCH))[0]
    _never(compact_pow2_layouts(), lambda lay: len(_leaves(lay)[0]) > 4 or max(_leaves(lay)[0]) > 8)


def test_swizzled_layouts_with_an_offset_reach_offset_0_and_never_pass_64() -> None:
    assert find(swizzled_layouts(offset=True), lambda c: c.offset == 0, settings=SEARCH).offset == 0
    # the offset is drawn last, after a layout and a swizzle: 1000 examples (300 do not draw an offset of 65)
    _never(swizzled_layouts(offset=True), lambda c: c.offset > 64, settings(BOUND, max_examples=1000))

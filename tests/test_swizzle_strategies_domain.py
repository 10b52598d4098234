"""The hypothesis strategies we export (``layoutalg.swizzle.strategies``) generate exactly their documented domain:
every example satisfies the docstring's bounds, and the bounds' extreme values are reachable (``hypothesis.find``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis.errors import NoSuchExample

from layoutalg.core.layout import Layout
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.strategies import compact_pow2_layouts, pow2_layouts, small_layouts, swizzled_layouts, swizzles

FIND = settings(max_examples=2000, database=None, suppress_health_check=list(HealthCheck))


def _leaves(layout: Layout) -> tuple[tuple[int, ...], tuple[int, ...]]:
    shape, stride = layout.shape, layout.stride
    return (shape, stride) if isinstance(shape, tuple) else ((shape,), (stride,))


@settings(max_examples=200, database=None)
@given(swizzles())
def test_every_generated_swizzle_is_within_its_documented_bounds(sw) -> None:  # type: ignore[no-untyped-def]
    assert 0 <= sw.bits <= 3 and 0 <= sw.base <= 4 and max(sw.bits, 1) <= abs(sw.shift) <= 4


def test_the_swizzle_bounds_extremes_and_both_shift_signs_are_reachable() -> None:
    for predicate in (lambda s: s.bits == 0, lambda s: s.bits == 3, lambda s: s.base == 0, lambda s: s.base == 4,
                      lambda s: s.shift == -4, lambda s: s.shift == 4, lambda s: s.bits == 0 and abs(s.shift) == 1,
                      lambda s: s.bits == 3 and s.shift == -3):
        assert predicate(find(swizzles(), predicate, settings=FIND))
    wide = find(swizzles(max_bits=5, max_base=6, max_shift=7), lambda s: s.bits == 5 and s.base == 6 and s.shift == 7,
                settings=FIND)
    assert (wide.bits, wide.base, wide.shift) == (5, 6, 7)


@settings(max_examples=200, database=None)
@given(pow2_layouts())
def test_every_pow2_layout_has_power_of_two_extents_and_strides(layout) -> None:  # type: ignore[no-untyped-def]
    shape, stride = _leaves(layout)
    assert 1 <= len(shape) <= 4
    assert all(e in (1, 2, 4, 8) for e in shape)
    assert all(d == 0 or (d & (d - 1) == 0 and d <= 256) for d in stride)


def test_pow2_layout_extremes_are_reachable_and_zero_strides_can_be_excluded() -> None:
    assert len(_leaves(find(pow2_layouts(), lambda lay: len(_leaves(lay)[0]) == 4, settings=FIND))[0]) == 4
    assert 8 in _leaves(find(pow2_layouts(), lambda lay: 8 in _leaves(lay)[0], settings=FIND))[0]
    assert 256 in _leaves(find(pow2_layouts(), lambda lay: 256 in _leaves(lay)[1], settings=FIND))[1]
    assert 0 in _leaves(find(pow2_layouts(), lambda lay: 0 in _leaves(lay)[1], settings=FIND))[1]
    assert 1 in _leaves(find(pow2_layouts(), lambda lay: 1 in _leaves(lay)[1], settings=FIND))[1]

    @settings(max_examples=200, database=None)
    @given(pow2_layouts(zero_strides=False))
    def no_zero_strides(layout) -> None:  # type: ignore[no-untyped-def]
        assert 0 not in _leaves(layout)[1]

    no_zero_strides()


@settings(max_examples=200, database=None)
@given(compact_pow2_layouts())
def test_every_compact_pow2_layout_is_a_bijection_onto_its_size(layout) -> None:  # type: ignore[no-untyped-def]
    assert sorted(layout(i) for i in range(layout.size())) == list(range(layout.size()))
    assert all(e in (1, 2, 4, 8) for e in _leaves(layout)[0])


def test_compact_pow2_layouts_reach_four_modes_in_a_non_column_major_order() -> None:
    four = find(compact_pow2_layouts(), lambda lay: len(_leaves(lay)[0]) == 4 and min(_leaves(lay)[0]) > 1
                and _leaves(lay)[1][0] != 1, settings=FIND)
    assert len(_leaves(four)[0]) == 4 and _leaves(four)[1][0] != 1


@settings(max_examples=200, database=None)
@given(small_layouts())
def test_every_small_layout_is_within_its_documented_bounds(layout) -> None:  # type: ignore[no-untyped-def]
    shape, stride = _leaves(layout)
    assert 1 <= len(shape) <= 3 and all(1 <= e <= 6 for e in shape) and all(0 <= d <= 12 for d in stride)


def test_small_layout_extremes_are_reachable() -> None:
    for predicate in (lambda lay: len(_leaves(lay)[0]) == 3, lambda lay: 6 in _leaves(lay)[0],
                      lambda lay: 1 in _leaves(lay)[0], lambda lay: 12 in _leaves(lay)[1],
                      lambda lay: 0 in _leaves(lay)[1]):
        assert predicate(find(small_layouts(), predicate, settings=FIND))


@settings(max_examples=100, database=None)
@given(swizzled_layouts(offset=True, compact=False))
def test_every_swizzled_layout_composes_a_valid_swizzle_an_offset_and_a_pow2_layout(composed) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(composed, ComposedLayout) and 0 <= composed.offset <= 64


def test_swizzled_layouts_have_offset_zero_unless_asked_and_offsets_0_to_64_when_asked() -> None:
    assert find(swizzled_layouts(), lambda c: True, settings=FIND).offset == 0
    assert find(swizzled_layouts(offset=True), lambda c: c.offset == 64, settings=FIND).offset == 64
    assert find(swizzled_layouts(offset=True), lambda c: c.offset == 0, settings=FIND).offset == 0
    with pytest.raises(NoSuchExample):  # 64 is the largest offset drawn
        find(swizzled_layouts(offset=True), lambda c: c.offset > 64, settings=FIND)
    compact = find(swizzled_layouts(), lambda c: c.inner.size() >= 64, settings=FIND)
    assert sorted(compact.inner(i) for i in range(compact.inner.size())) == list(range(compact.inner.size()))


def test_each_layout_strategy_reaches_one_mode_as_a_scalar_layout_and_extent_one() -> None:
    for strategy in (pow2_layouts(), compact_pow2_layouts(), small_layouts()):
        single = find(strategy, lambda lay: not isinstance(lay.shape, tuple), settings=FIND)
        assert isinstance(single.shape, int) and isinstance(single.stride, int)
        assert 1 in _leaves(find(strategy, lambda lay: 1 in _leaves(lay)[0], settings=FIND))[0]
        several = find(strategy, lambda lay: isinstance(lay.shape, tuple), settings=FIND)
        assert len(several.shape) >= 2  # a tuple shape always has two or more modes

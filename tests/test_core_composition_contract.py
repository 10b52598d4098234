"""Contract of `layoutalg.core.composition` at its edges: a ``None`` tiler (CuTe's ``_``) leaves A as it is,
per mode too, and the result R of A o B satisfies R(i) == A(B(i)) on B's domain (brute force)."""

from __future__ import annotations

import importlib

import pytest

from layoutalg.core.layout import Layout

composition = importlib.import_module("layoutalg.core.composition").composition


def test_composition_with_none_returns_a_itself() -> None:
    a = Layout((2, (3, 4)), (1, (8, 2)))
    assert composition(a, None) == a


def test_a_none_entry_of_a_tuple_tiler_keeps_that_mode() -> None:
    a = Layout((4, 6), (1, 4))
    got = composition(a, (None, Layout(3, 2)))
    assert got == Layout((4, 3), (1, 8))


@pytest.mark.parametrize("a, b", [(Layout((4, 6), (1, 4)), Layout((2, 3), (3, 4))),
                                  (Layout(((2, 2), 3), ((1, 6), 2)), Layout(6, 2)),
                                  (Layout((3, 4), (4, 1)), Layout(4, 3))])
def test_composition_agrees_with_a_of_b_on_every_index(a: Layout, b: Layout) -> None:
    r = composition(a, b)
    assert [r(i) for i in range(b.size())] == [a(b(i)) for i in range(b.size())]


@pytest.mark.parametrize("a", [Layout(8, 2), Layout((2, 4), (3, 6)), Layout(1, 0)])
def test_a_single_stride_a_composes_with_a_negative_stride_b_as_the_linear_map_it_is(a: Layout) -> None:
    # A coalesces to one mode x -> x * d, linear on every integer, so A o B is B's strides times d, negative
    # offsets included (brute force: d * B(i) for every i; d read off A(1))
    b = Layout((4, 2), (-1, 5))
    d = a(1) if a.size() > 1 else 0
    r = composition(a, b)
    assert [r(i) for i in range(b.size())] == [d * b(i) for i in range(b.size())]

"""Hierarchical int tuples: every function against a definition written out here."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutalg.core import int_tuple as it
from layoutalg.errors import CoordinateError, ShapeError

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)

shapes = st.recursive(st.integers(1, 6), lambda inner: st.tuples(inner) | st.tuples(inner, inner) | st.tuples(inner, inner, inner), max_leaves=6)


def leaves(t: object) -> list[int]:
    return [x for e in t for x in leaves(e)] if isinstance(t, tuple) else [t]  # type: ignore[list-item]


def test_basics() -> None:
    t = ((2, 4), 8)
    assert it.flatten(t) == (2, 4, 8)
    assert it.rank(t) == 2 and it.rank(5) == 1
    assert it.depth(t) == 2 and it.depth(3) == 0
    assert it.product(t) == 64 and it.product(()) == 1
    assert it.prefix_product(t) == ((1, 2), 8)
    assert it.suffix_product((2, 3, 4)) == (12, 4, 1)
    assert it.inner_product((1, (2, 3)), (4, (5, 6))) == 4 + 10 + 18
    assert it.congruent((1, (2, 3)), (4, (5, 6))) and not it.congruent((1, 2), (1, (2,)))
    assert it.weakly_congruent((1, 2), ((3, 4), 5)) and not it.weakly_congruent(((1, 2), 3), (4, 5))
    assert it.shape_div((6, 2), 2) == (3, 2) and it.shape_div((2, 6), 4) == (1, 3)
    assert it.ceil_div(7, 2) == 4


@SETTINGS
@given(shapes)
def test_idx2crd_crd2idx_inverse_and_colexicographic(shape: object) -> None:
    stride = it.prefix_product(shape)  # type: ignore[arg-type]
    n = it.product(shape)  # type: ignore[arg-type]
    flat = leaves(shape)
    for i in range(n):
        crd = it.idx2crd(i, shape)  # type: ignore[arg-type]
        assert it.crd2idx(crd, shape, stride) == i  # type: ignore[arg-type]
        digits = leaves(crd)
        expect, run = [], i
        for s in flat:
            expect.append(run % s)
            run //= s
        assert digits == expect
    assert it.product(shape) == math.prod(flat)  # type: ignore[arg-type]


@SETTINGS
@given(shapes, st.integers(0, 500))
def test_last_mode_is_unbounded(shape: object, i: int) -> None:
    crd = it.idx2crd(i, shape)  # type: ignore[arg-type]
    assert it.crd2idx(crd, shape, it.prefix_product(shape)) == i  # type: ignore[arg-type]


def test_errors() -> None:
    with pytest.raises(ShapeError):
        it.shape_div(6, 4)
    with pytest.raises(ShapeError):
        it.to_int_tuple((1, "a"))
    with pytest.raises(CoordinateError):
        it.crd2idx((1, 2, 3), (2, 2), (1, 2))

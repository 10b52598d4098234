"""Terms: idx2crd/tv_coord, lowering against the objects, and the GF(2) compiler against layoutalg.swizzle.f2."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.core.int_tuple import idx2crd as int_idx2crd
from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import expr as ex
from layoutalg.prove import idx2crd, tv_coord, var
from layoutalg.prove.engine_f2 import BitSpace, compile_term
from layoutalg.prove.problem import NotApplicableError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.f2 import NotLinearError, to_f2
from layoutalg.swizzle.swizzle import Swizzle


@pytest.mark.parametrize("shape", [(4, 8), ((2, 3), 5), (2, (2, 2), 3)])
def test_idx2crd_matches_core(shape: Any) -> None:
    i = var("i", 200)
    crd = idx2crd(i, shape)
    for value in range(200):
        assert ex.evaluate(crd, {"i": value}) == int_idx2crd(value, shape)


def test_tv_coord_of_the_mma_c_layout() -> None:
    """CuTe's SM80 16x8 C layout decoded to (m, n) equals the PTX c_i position."""
    from layoutalg.atoms import catalog

    coord = tv_coord(catalog.mma("m16n8k16", a="f16", c="f32").c_layout, (16, 8))
    for lane, v in itertools.product(range(32), range(4)):
        m, n = ex.evaluate(coord(lane, v), {})
        assert (m, n) == ((lane >> 2) + 8 * (v >> 1), 2 * (lane & 3) + (v & 1))


@st.composite
def linear_candidates(draw: Any) -> Any:
    rank = draw(st.integers(1, 3))
    shape = tuple(1 << draw(st.integers(0, 3)) for _ in range(rank))
    stride = tuple(draw(st.sampled_from([0, 1, 2, 4, 8, 16, 32, 64, 3])) for _ in range(rank))
    layout = Layout(shape, stride)
    if draw(st.booleans()):
        return ComposedLayout(Swizzle(draw(st.integers(1, 2)), draw(st.integers(0, 3)), 3), 0, layout)
    return layout


@settings(max_examples=200, deadline=None, database=None)
@given(linear_candidates())
def test_gf2_compiler_agrees_with_swizzle_f2(fn: Any) -> None:
    """Where layoutalg.swizzle.f2 finds a bit matrix, ours has the same columns; where it says
    non-linear, ours refuses too (ours may also refuse a few linear ones, never accept a non-linear one)."""
    i = var("i", fn.size())
    space = BitSpace((i,))
    try:
        ours = compile_term(ex.lower(ex.sym(fn)(i)), space)
    except NotApplicableError:
        ours = None
    try:
        theirs = to_f2(fn)
    except NotLinearError:
        theirs = None
    if ours is not None:
        assert theirs is not None, fn
        assert ours.const == 0
        assert list(ours.cols) == list(theirs.columns), fn
        for value in range(fn.size()):  # and the map is the function
            assert ours.at(value) == fn(value)


def test_lowered_terms_follow_crd2idx_past_the_last_mode() -> None:
    layout = Layout((4, 8), (1, 4))
    i = var("i", 64)  # twice the size: the last mode keeps counting
    term = ex.sym(layout)(i)
    for value in range(64):
        assert ex.evaluate(term, {"i": value}) == (value % 4) + 4 * (value // 4)


def test_terms_reject_floats_and_wrong_ranks() -> None:
    with pytest.raises(ProofError):
        ex.as_expr(1.5)
    with pytest.raises(ProofError, match="does not match"):
        ex.evaluate(ex.sym(Layout((4, 8)))((var("a", 4), var("b", 2)), var("c", 8)), {"a": 0, "b": 0, "c": 0})
    with pytest.raises(ProofError, match="Layout, Swizzle or ComposedLayout"):
        ex.sym("4:1")

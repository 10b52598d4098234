"""Layouts, swizzles and composed layouts as symbolic functions (``layoutalg.prove.symbolic_layouts``): which kind
an object is, ``sym(f)(...)`` evaluating to ``f(...)`` on every coordinate, and the refusals and reprs users see."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import sym, var
from layoutalg.prove.expr import evaluate, kind_of
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

LAYOUT = Layout((4, 8), (8, 1))
SWIZZLE = Swizzle(2, 0, 3)
COMPOSED = ComposedLayout(Swizzle(1, 1, 3), 2, Layout((4, 8), (1, 4)))


def test_kind_of_tells_layouts_swizzles_and_composed_layouts_apart() -> None:
    assert kind_of(LAYOUT) == "layout"
    assert kind_of(SWIZZLE) == "swizzle"
    assert kind_of(COMPOSED) == "composed"


@pytest.mark.parametrize("bad", [5, "L", (4, 8), None])
def test_kind_of_and_sym_refuse_what_is_not_layout_like(bad: Any) -> None:
    with pytest.raises(ProofError, match=r"^expected a Layout, Swizzle or ComposedLayout, got "):
        kind_of(bad)
    with pytest.raises(ProofError, match=r"^expected a Layout, Swizzle or ComposedLayout, got "):
        sym(bad)


@pytest.mark.parametrize("fn", [LAYOUT, SWIZZLE, COMPOSED], ids=["layout", "swizzle", "composed"])
def test_sym_applied_to_an_index_evaluates_to_the_function_itself(fn: Any) -> None:
    i = var("i", 32)
    term = sym(fn)(i)
    for value in range(32):
        assert evaluate(term, {"i": value}) == fn(value), value


def test_sym_applied_to_a_coordinate_evaluates_to_the_layout_of_it() -> None:
    r, c = var("r", 4), var("c", 8)
    for f in (LAYOUT, COMPOSED):
        two_args, one_tuple = sym(f)(r, c), sym(f)((r, c))
        for a, b in itertools.product(range(4), range(8)):
            assert evaluate(two_args, {"r": a, "c": b}) == f((a, b))
            assert evaluate(one_tuple, {"r": a, "c": b}) == f((a, b))


def test_sym_applied_to_no_coordinate_is_refused_naming_the_layout() -> None:
    with pytest.raises(ProofError, match="^" + re.escape(f"{LAYOUT} applied to no coordinate") + "$"):
        sym(LAYOUT)()


def test_sym_of_a_sym_is_itself_and_reads_as_sym_of_the_layout() -> None:
    s = sym(LAYOUT)
    assert sym(s) is s
    assert repr(s) == f"sym({LAYOUT})"
    assert repr(sym(SWIZZLE)) == f"sym({SWIZZLE})"

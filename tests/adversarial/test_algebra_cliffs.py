"""The cliffs of issue 13: each case is decided from structure, or refused before any whole-domain work.

Whole-domain evaluation is made to fail here (``to_numpy`` and the offset
enumerators raise), so a case passes only if it was answered or refused
without it; the answers and refusals are then checked against evaluation at
the witness they name.  Timings are in ``benchmarks/bench_cliffs.py``.  The
structural rules themselves are checked against brute force on small layouts.
"""

from __future__ import annotations

import importlib
import itertools
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from oracles import reference as ref

from layoutalg import CompositionError, Layout, NotInjectiveError
from layoutalg.core import algebra as alg
from layoutalg.core import flat, inverses
from layoutalg.core import layout as layout_module
from layoutalg.core.int_linear import RowSpace

# the package re-exports functions of the same names, so the modules are fetched by their dotted names
complement_module = importlib.import_module("layoutalg.core.complement")
composition_module = importlib.import_module("layoutalg.core.composition")

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@pytest.fixture
def no_whole_domain_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("whole-domain enumeration was attempted")

    monkeypatch.setattr(Layout, "to_numpy", refuse)
    for module in (layout_module, flat, complement_module, composition_module, inverses):
        if hasattr(module, "offsets_of_modes"):
            monkeypatch.setattr(module, "offsets_of_modes", refuse)
    monkeypatch.setattr(composition_module, "evaluate_modes", refuse)


def test_composition_refuses_2_to_26_points_it_cannot_prove_before_enumerating(no_whole_domain_work: None) -> None:
    a = Layout((8192, 8192), (1, 16384))
    with pytest.raises(CompositionError, match="without enumerating 67108864 offsets"):
        alg.composition(a, Layout((8192, 8192), (8193, 1)))  # CuTe's divisibility fails: only the function decides
    with pytest.raises(CompositionError, match="without enumerating 67108864 offsets"):
        alg.composition(a, Layout(((8192, 8192),), ((1, 1),)))  # a carry inside one mode: only the function decides


def test_composition_refutes_a_carry_between_modes_from_structure(no_whole_domain_work: None) -> None:
    a, b = Layout((8192, 8192), (1, 16384)), Layout((8192, 8192), (1, 1))
    with pytest.raises(CompositionError, match="not a sum of per-mode functions") as info:
        alg.composition(a, b)
    i, j = (int(v) for v in re.search(r"at coordinate \((\d+), (\d+)\)", str(info.value)).groups())  # type: ignore[union-attr]
    whole = ref.evaluate(a.shape, a.stride, i + j)
    apart = ref.evaluate(a.shape, a.stride, i) + ref.evaluate(a.shape, a.stride, j)
    assert whole != apart  # so no layout of B's mode sizes has this function


def test_composition_proves_overlapping_leaves_without_a_carry(no_whole_domain_work: None) -> None:
    result = alg.composition(Layout((4, 1 << 26), (1, 5)), Layout((2, 2, 1 << 24), (1, 1, 4)))
    assert result == Layout((2, 2, 1 << 24), (1, 1, 5))


def test_complement_refuted_by_the_first_stride_that_breaks_the_chain(no_whole_domain_work: None) -> None:
    with pytest.raises(CompositionError, match=r"must hold offset 2048, and A shifted by 2048 reaches 2049"):
        alg.complement(Layout((2048, 2048), (1, 2049)))
    with pytest.raises(CompositionError, match="without enumerating"):
        alg.complement(Layout((2097151, 2), (1, 2097152)), 1)  # needs injectivity of 2^22 offsets: refused


def test_left_inverse_of_too_many_offsets_is_refused_before_any_search(no_whole_domain_work: None) -> None:
    with pytest.raises(CompositionError, match="undecided.*1048576 offsets"):
        alg.left_inverse(Layout((2, 1 << 19), (3, 7)))


def test_left_inverse_search_stays_within_its_work_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    add = RowSpace.add

    def counted(self: RowSpace, *args: Any, **kwargs: Any) -> bool:
        calls[0] += 1
        return add(self, *args, **kwargs)

    monkeypatch.setattr(RowSpace, "add", counted)
    with pytest.raises(CompositionError, match="undecided"):
        alg.left_inverse(Layout((8, 8), (770, 1650)))  # issue 13: 2.7 s and 316,000 equations before
    assert calls[0] < 40_000


# ---------------------------------------------------------------------------
# the structural rules against brute force


def _flat_layouts(max_rank: int, max_extent: int, max_stride: int) -> st.SearchStrategy[Layout]:
    def build(parts: list[tuple[int, int]]) -> Layout:
        shape, stride = zip(*parts)
        return Layout(tuple(shape), tuple(stride))

    return st.lists(st.tuples(st.integers(1, max_extent), st.integers(0, max_stride)), min_size=1, max_size=max_rank).map(build)


@seed(1313)
@SETTINGS
@given(_flat_layouts(3, 6, 20), _flat_layouts(3, 4, 12), st.booleans())
def test_composition_answers_and_refusals_agree_with_brute_force(a: Layout, b: Layout, group: bool) -> None:
    if group and isinstance(b.shape, tuple) and len(b.shape) > 1:
        b = Layout((b.shape[:2],) + b.shape[2:], (b.stride[:2],) + b.stride[2:])  # two leaves in one mode
    truth = [ref.evaluate(a.shape, a.stride, v) for v in ref.values(b.shape, b.stride)]
    sizes = ref.top_sizes(b.shape)
    try:
        result = alg.composition(a, b)
    except CompositionError as err:
        assert not ref.composition_exists(truth, sizes), f"{a} o {b} refused ({err}) but a layout exists"
        return
    assert ref.values(result.shape, result.stride) == truth
    assert ref.top_sizes(result.shape) == sizes


@seed(1314)
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(_flat_layouts(3, 4, 14), st.integers(1, 12))
def test_complement_refutation_agrees_with_brute_force(a: Layout, m: int) -> None:
    """Where the first-break rule refutes, no complement R (rank <= 2, strides < 2m) exists; NotInjectiveError
    only for a non-injective A."""
    kept = [(s, d) for s, d in zip(ref.flat(a.shape), ref.flat(a.stride)) if d != 0]
    a_vals = ref.values(tuple(s for s, _ in kept) or 1, tuple(d for _, d in kept) or 0)
    try:
        alg.complement(a, m)
        return
    except NotInjectiveError:
        assert len(set(a_vals)) < len(a_vals)
        return
    except CompositionError:
        pass
    for shape in itertools.chain([(1,)], *(ref.ordered_factorizations(n) for n in range(2, 2 * m + 1))):
        if len(shape) > 2:
            continue
        for stride in itertools.product(range(1, 2 * m), repeat=len(shape)):
            r = ref.values(shape, stride)
            joined = [x + y for y in r for x in a_vals]
            ordered = all(x < y for x, y in zip(r, r[1:]))
            assert not (ordered and len(set(joined)) == len(joined) and set(range(m)) <= set(joined)), (
                f"complement({a}, {m}) raised, but {shape}:{stride} is one"
            )

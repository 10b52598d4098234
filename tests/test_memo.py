"""The algebra's memos (``layoutalg.core.memo``): a remembered answer is the computed one, and inputs that are
not plain Layouts/ints (bools, lists, numpy integers) never key a memo, so they are validated as before."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import layoutalg as la
from layoutalg import strategies as ls
from layoutalg.core import memo

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


def _outcome(fn, *args):
    try:
        return fn(*args)
    except la.LayoutError as err:
        return type(err)


@SETTINGS
@given(ls.layouts(max_size=64, max_rank=3))
def test_a_remembered_answer_equals_a_fresh_one(a):
    calls = [(la.weak_complement, a), (la.complement, a, 4 * a.size()), (la.left_inverse, a),
             (la.logical_product, a, la.Layout(3, 1))]
    warm = [_outcome(*c) for c in calls]
    again = [_outcome(*c) for c in calls]
    memo.clear_all()
    cold = [_outcome(*c) for c in calls]
    assert warm == again == cold


def test_a_bool_never_hits_the_entry_of_one_and_is_refused():
    a = la.Layout(4, 2)
    assert la.complement(a, 1) == la.complement(a, 1)  # 1 remembered
    with pytest.raises(la.LayoutError):
        la.complement(a, True)


def test_unhashable_and_numpy_arguments_are_validated_not_memoized():
    a = la.Layout((2, 2), (1, 4))
    assert la.complement(a, [16]) == la.complement(a, 16)  # a shape given as a list: its size
    assert la.complement(a, np.int64(16)) == la.complement(a, 16)
    with pytest.raises(la.LayoutError):
        la.weak_complement([2, "x"])  # type: ignore[list-item]
    with pytest.raises(la.LayoutError):
        la.logical_product(a, [[1, 2], "x"])  # type: ignore[arg-type]


def test_the_memo_is_bounded():
    memo.clear_all()
    for n in range(1, memo.LIMIT + 10):
        la.weak_complement(la.Layout(n, 1))
    assert all(len(cache) <= memo.LIMIT for cache in memo._MEMOS)


def test_a_tuple_tiler_is_remembered_but_a_bool_inside_one_is_not():
    a = la.Layout((2, 3), (1, 4))
    by_mode = la.logical_product(a, (la.Layout(2, 1), 3))
    assert la.logical_product(a, (la.Layout(2, 1), 3)) == by_mode
    assert la.logical_product(a, (la.Layout(2, 1), np.int64(3))) == by_mode
    with pytest.raises(la.LayoutError):
        la.logical_product(a, (la.Layout(2, 1), True))


def test_memoised_operations_take_their_arguments_by_keyword_too():
    a = la.Layout((2, 4), (1, 8))
    assert la.complement(layout=a, cotarget=64) == la.complement(a, 64)
    assert la.weak_complement(layout=a, cotarget=64) == la.weak_complement(a, 64)
    assert la.logical_product(a, tiler=la.Layout(3)) == la.logical_product(a, la.Layout(3))
    from layoutalg.core import inverses

    assert inverses.left_inverse(layout=a) == inverses.left_inverse(a)

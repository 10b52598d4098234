"""Bad input to the core raises a LayoutError subclass whose message names the mode or argument at fault."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutalg.core import algebra as alg
from layoutalg.core import divide_product as dp
from layoutalg.core import shape_ops as so
from layoutalg.core.layout import Layout
from layoutalg.core.recast import downcast, recast, upcast
from layoutalg.errors import (
    CompositionError,
    CoordinateError,
    LayoutError,
    NotInjectiveError,
    ShapeError,
)


@pytest.mark.parametrize(
    "call, kind, words",
    [
        (lambda: Layout((2, 0)), ShapeError, "mode [1]"),
        (lambda: Layout((2, 3), (1,)), ShapeError, "not congruent"),
        (lambda: Layout((2.5, 3)), ShapeError, "shape[0]"),
        (lambda: Layout((2, 3))(1, 2, 3), CoordinateError, "rank"),
        (lambda: Layout((2, 3))[5], CoordinateError, "mode 5"),
        (lambda: alg.composition(Layout((8, 2), (1, 4)), Layout((2, (4,)), (2, (2,)))), CompositionError, "modes [2, 4]"),
        (lambda: alg.composition(Layout(((4, 3), 4), ((1, 5), 20)), (Layout(6), None)), CompositionError, "mode 0"),
        (lambda: alg.composition(Layout((8, 4)), (1, 2, 3)), ShapeError, "rank 3"),
        (lambda: alg.composition(Layout((4, 2), (1, 8)), Layout(2, -1)), CompositionError, "negative stride"),
        (lambda: alg.complement(Layout((2, 2), (2, 2)), 8), NotInjectiveError, "offset 2"),
        (lambda: alg.complement(Layout((2, 2), (1, 3)), 12), CompositionError, "no complement"),
        (lambda: alg.complement(Layout(4), 0), ShapeError, "cotarget"),
        (lambda: alg.left_inverse(Layout((3, 8, 2), (5, 6, 4))), NotInjectiveError, "every choice of preimage"),
        (lambda: alg.coalesce(Layout((2, 2)), (1, 1, 1)), ShapeError, "profile"),
        (lambda: dp.logical_divide(Layout((8, 4)), (Layout((2, 2), (2, 3)),)), LayoutError, "mode 0"),
        (lambda: dp.blocked_product(Layout(2), "x"), ShapeError, "tiler"),
        (lambda: upcast(Layout(6, 1), 4), ShapeError, "leaf 0"),
        (lambda: recast(Layout(4), 0, 16), ShapeError, "old_bits"),
        (lambda: so.group(Layout((2, 3)), 2, 1), CoordinateError, "begin"),
        (lambda: so.select(Layout((2, 3)), 4), CoordinateError, "select index 4"),
    ],
)
def test_error_kind_and_message(call: Callable[[], Any], kind: type, words: str) -> None:
    with pytest.raises(kind) as info:
        call()
    assert words in str(info.value)


_junk = st.one_of(
    st.none(),
    st.integers(-5, 40),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.tuples(st.integers(-3, 9), st.integers(-3, 9)),
    st.builds(Layout, st.sampled_from([(2, 4), 8, ((2, 2), 3), 1]), st.none()),
    st.lists(st.integers(0, 4), max_size=3),
)

_OPS = [
    alg.coalesce, alg.composition, alg.complement, alg.right_inverse, alg.left_inverse, alg.filter, alg.filter_zeros,
    alg.max_common_vector, alg.max_common_layout, dp.logical_divide, dp.zipped_divide, dp.tiled_divide,
    dp.flat_divide, dp.logical_product, dp.zipped_product, dp.tiled_product, dp.flat_product, dp.blocked_product,
    dp.raked_product, so.append, so.prepend, so.group, so.select, upcast, downcast,
]


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.sampled_from(_OPS), st.lists(_junk, min_size=1, max_size=3))
def test_only_layout_errors_escape(op: Callable[..., Any], args: list[Any]) -> None:
    try:
        op(*args)
    except LayoutError:
        pass
    except TypeError as err:  # wrong number of arguments is a Python call error, not bad layout input
        assert "argument" in str(err)


def test_absurd_inputs_get_layout_errors_not_crashes() -> None:
    """Nesting deep enough to overflow a recursion, and a domain too large to hold, are refused cleanly."""
    import pytest

    from layoutalg import Layout
    from layoutalg.errors import LayoutError

    nested: object = 2
    for _ in range(3000):
        nested = (nested,)
    with pytest.raises(LayoutError, match="nested more than"):
        Layout(nested)
    with pytest.raises(LayoutError, match="whole-domain evaluation is limited"):
        Layout((1 << 20, 1 << 20)).to_numpy()

"""Contract of `layoutalg.core.memo.memoized`: a memo hit only for the same exact Layouts, plain ints,
Nones and tuples of those; keyword calls, bools (equal and hash-equal to ints) and unhashable or deeply
nested arguments are passed through, each answered by the function itself."""

from __future__ import annotations

from typing import Any

from layoutalg.core.layout import Layout
from layoutalg.core.memo import memoized


def _leaf_types(x: Any) -> str:
    """The type names of the leaves, walked without recursion (deep tuples stay cheap)."""
    out, stack = [], [x]
    while stack:
        e = stack.pop()
        if type(e) is tuple:
            stack.extend(reversed(e))
        else:
            out.append(type(e).__name__)
    return ",".join(out)


def _make() -> tuple[Any, list[Any]]:
    calls: list[Any] = []

    @memoized
    def describe_types(x: Any, scale: int = 1) -> str:
        calls.append(x)
        return f"{type(x).__name__}:{_leaf_types(x)}*{scale}"

    return describe_types, calls


def test_plain_arguments_are_answered_from_the_memo_on_a_repeat_call() -> None:
    fn, calls = _make()
    assert fn((1, (2, None), Layout(4, 2))) == fn((1, (2, None), Layout(4, 2)))
    assert len(calls) == 1


def test_keyword_calls_are_answered_by_the_function_each_time() -> None:
    fn, calls = _make()
    assert fn(3, scale=2) == "int:int*2"
    assert fn(3, scale=2) == "int:int*2"
    assert len(calls) == 2


def test_a_bool_inside_a_tuple_never_hits_the_entry_of_the_equal_int() -> None:
    fn, _ = _make()
    assert fn((1, 1)) == "tuple:int,int*1"
    assert fn((1, True)) == "tuple:int,bool*1"
    assert fn((1, [2])) == "tuple:int,list*1"  # unhashable inside: passed through, no TypeError


def test_deeply_nested_tuples_are_passed_through_without_exhausting_the_stack() -> None:
    fn, _ = _make()
    deep: Any = 0
    for _ in range(5000):
        deep = (deep,)
    assert fn(deep) == "tuple:int*1"
    nested_bool: Any = True
    nested_int: Any = 1
    for _ in range(12):
        nested_bool, nested_int = (nested_bool,), (nested_int,)
    assert (fn(nested_int), fn(nested_bool)) == ("tuple:int*1", "tuple:bool*1")


def _nested(levels: int) -> Any:
    x: Any = 1
    for _ in range(levels):
        x = (x,)
    return x


def test_tuples_nested_nine_deep_are_memoised_and_ten_deep_are_passed_through() -> None:
    fn, calls = _make()
    fn(_nested(9))
    fn(_nested(9))
    assert len(calls) == 1
    fn(_nested(10))
    fn(_nested(10))
    assert len(calls) == 3


def test_a_memo_holding_limit_entries_is_cleared_by_the_next_new_argument() -> None:
    from layoutalg.core.memo import LIMIT

    fn, calls = _make()
    for i in range(LIMIT):
        fn(i)
    fn(0)
    assert len(calls) == LIMIT  # still remembered with LIMIT entries
    fn(LIMIT)  # a new argument at the limit clears the memo before it is stored
    fn(0)
    assert len(calls) == LIMIT + 2

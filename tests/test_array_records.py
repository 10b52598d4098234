"""Records holding numpy arrays compare and hash by value (``layoutalg.core.array_records``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutalg import Layout
from layoutalg.banks.access import Access
from layoutalg.banks.analyze import analyze
from layoutalg.core.array_records import ArrayRecord


@dataclass(frozen=True, eq=False)
class _Record(ArrayRecord):
    name: str
    values: Any
    note: Any = field(default=None, compare=False)


def test_records_with_equal_arrays_are_equal_and_hash_alike_whatever_the_integer_dtype():
    a = _Record("r", np.arange(6, dtype=np.int32).reshape(2, 3))
    b = _Record("r", np.arange(6, dtype=np.int64).reshape(2, 3))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1


def test_records_differ_by_any_element_by_shape_or_by_another_field():
    a = _Record("r", np.arange(6).reshape(2, 3))
    assert a != _Record("r", np.arange(6).reshape(3, 2))
    assert a != _Record("r", np.arange(1, 7).reshape(2, 3))
    assert a != _Record("s", np.arange(6).reshape(2, 3))
    assert a != _Record("r", [[0, 1, 2], [3, 4, 5]])  # a list is not an array
    assert a != "r" and (a == "r") is False  # another type: NotImplemented, so Python answers a plain False


def test_a_field_declared_compare_false_is_ignored_by_equality_and_hash():
    a = _Record("r", np.zeros(3, dtype=np.int64), note=lambda: 1)
    b = _Record("r", np.zeros(3, dtype=np.int64), note="another note")
    assert a == b and hash(a) == hash(b)


def test_float_arrays_compare_by_value_and_equal_ones_hash_alike():
    a = _Record("r", np.array([0.5, 1.0], dtype=np.float32))
    b = _Record("r", np.array([0.5, 1.0], dtype=np.float64))
    assert a == b and hash(a) == hash(b)
    assert a != _Record("r", np.array([0.5, 2.0]))


def test_two_accesses_built_from_different_functions_with_the_same_values_are_equal():
    first = Access.from_fn("ld.shared.b32", lambda lane, k: (lane, k), k=2)
    second = Access.from_fn("ld.shared.b32", lambda lane, k: (lane + 0, k * 1), k=2)
    assert first == second and hash(first) == hash(second)
    assert first != Access.from_fn("ld.shared.b32", lambda lane, k: (lane, k + 1), k=2)


def test_two_analyses_of_the_same_access_are_equal_and_a_different_layout_is_not():
    access = Access.from_fn("ld.shared.b32", lambda lane: (lane, 0))
    column = Layout((32, 32), (32, 1))
    first = analyze(column, access, "f32")
    assert first == analyze(column, access, "f32") and hash(first) == hash(analyze(column, access, "f32"))
    assert first != analyze(Layout((32, 32), (33, 1)), access, "f32")

"""Tag planes of registers (layoutalg/kernel/dataflow/registers.py): one (threads, 16-bit units) plane per
register, absent = every unit NONE; a write with a thread mask changes only the masked threads (the others
keep their tags, NONE if they had none); predicates carry no tags; a narrower value is zero-extended (its
missing units are ZERO) and a wider one is cut to the register's units; ``value_units`` splits an
interpreter value into its 16-bit units, low unit first."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.registers import RegisterTags, join_units, value_units

NONE, ZERO = int(tg.NONE), int(tg.ZERO)
REGS = {"%p1": "pred", "%h1": "b16", "%r1": "b32", "%rd1": "b64", "%c1": "b8", "%f1": "f32"}


def regs(n: int = 4) -> RegisterTags:
    return RegisterTags(n, REGS)


def test_a_register_has_one_unit_per_16_bits_an_8_bit_one_has_one_and_a_predicate_none() -> None:
    r = regs()
    assert [r.units_of(x) for x in ("%p1", "%h1", "%r1", "%rd1", "%c1", "%f1")] == [0, 1, 2, 4, 1, 2]
    assert r.units_of("%unknown") == 4


def test_an_unwritten_register_has_no_plane_and_reads_as_all_none() -> None:
    r = regs(3)
    assert r.get("%r1") is None
    assert r.full("%r1").tolist() == [[NONE, NONE]] * 3 and r.full("%rd1").shape == (3, 4)


def test_an_unmasked_write_replaces_the_plane_and_a_none_write_clears_it() -> None:
    r = regs(2)
    plane = np.array([[5, 6], [7, 8]], dtype=np.int64)
    r.put("%r1", plane, None)
    assert r.get("%r1").tolist() == [[5, 6], [7, 8]] and r.full("%r1").tolist() == [[5, 6], [7, 8]]
    r.put("%r1", None, None)
    assert r.get("%r1") is None


def test_a_masked_write_changes_only_the_masked_threads() -> None:
    r = regs(3)
    mask = np.array([True, False, True])
    r.put("%r1", np.full((3, 2), 9, dtype=np.int64), mask)
    assert r.get("%r1").tolist() == [[9, 9], [NONE, NONE], [9, 9]]
    r.put("%r1", np.full((3, 2), 4, dtype=np.int64), np.array([False, True, False]))
    assert r.get("%r1").tolist() == [[9, 9], [4, 4], [9, 9]]
    r.put("%r1", None, np.array([True, False, False]))  # untagged result in thread 0 only
    assert r.get("%r1").tolist() == [[NONE, NONE], [4, 4], [9, 9]]
    r.put("%h1", None, mask)  # nothing to clear: still no plane
    assert r.get("%h1") is None


def test_predicates_and_unknown_registers_keep_no_tags() -> None:
    r = regs(2)
    r.put("%p1", np.ones((2, 1), dtype=np.int64), None)
    r.put("%zz", np.ones((2, 1), dtype=np.int64), None)
    assert r.get("%p1") is None and r.get("%zz") is None


def test_a_narrow_value_is_zero_extended_a_wide_one_cut_and_one_row_broadcast() -> None:
    r = regs(3)
    r.put("%rd1", np.array([1, 2, 3], dtype=np.int64), None)  # one unit per thread into four
    assert r.get("%rd1").tolist() == [[1, ZERO, ZERO, ZERO], [2, ZERO, ZERO, ZERO], [3, ZERO, ZERO, ZERO]]
    r.put("%h1", np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], dtype=np.int64), None)  # four units into one
    assert r.get("%h1").tolist() == [[1], [5], [9]]
    r.put("%r1", np.array([[7, 8]], dtype=np.int64), None)  # one row for every thread
    assert r.get("%r1").tolist() == [[7, 8]] * 3
    two = regs(2)  # as many threads as units
    two.put("%r1", np.array([[7, 8]], dtype=np.int64), None)
    assert two.get("%r1").tolist() == [[7, 8]] * 2


def test_set_opaque_marks_the_lanes_of_every_tagged_register_named() -> None:
    r = regs(2)
    code = tg.opaque(5, tg.W_UNMODELLED)
    r.set_opaque(["%r1", "%p1", "%h1"], code, np.array([False, True]))
    assert r.get("%r1").tolist() == [[NONE, NONE], [int(code)] * 2]
    assert r.get("%h1").tolist() == [[NONE], [int(code)]] and r.get("%p1") is None


def test_join_units_concatenates_low_part_first_with_none_for_missing_parts() -> None:
    assert join_units([None, None], [1, 1], 2) is None
    got = join_units([np.array([[3], [4]]), None, np.array([5, 6])], [1, 2, 2], 2)
    assert got.tolist() == [[3, NONE, NONE, 5, ZERO], [4, NONE, NONE, 6, ZERO]]


def test_value_units_splits_a_value_into_16_bit_units_low_first() -> None:
    v = SimpleNamespace(bits=np.array([0x1111_2222_3333_4444, 0xABCD], dtype=np.uint64), known=np.array([True, False]))
    units, known = value_units(v, 2, 4)
    assert units.tolist() == [[0x4444, 0x3333, 0x2222, 0x1111], [0xABCD, 0, 0, 0]] and known.tolist() == [True, False]
    units, known = value_units(SimpleNamespace(bits=0x0102_0304, known=True), 3, 2)
    assert units.tolist() == [[0x0304, 0x0102]] * 3 and known.tolist() == [True] * 3

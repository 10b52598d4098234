"""banks.access: element widths, Access validation, from_fn ranges and the tile sweeps' coverage.

The sweep truth is a brute-force count written here: every lane the instruction uses moves the bytes from its
coordinate on, so a sweep of a row-major tile must touch every element exactly once and stay inside its row.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from layoutalg.banks.access import Access, element_bytes, tile_access
from layoutalg.banks.instruction import parse_instruction
from layoutalg.errors import LayoutError

LD32 = "ld.shared.b32"


# ---------------------------------------------------------------- element_bytes


@pytest.mark.parametrize("name, nbytes", [("complex64", 8), ("complex128", 16), ("S1", 1), ("V3", 3)])
def test_element_bytes_reads_any_numpy_dtype_by_its_itemsize(name, nbytes):
    # numpy dtypes the name table does not know still have a width: a bank model only needs the bytes
    assert element_bytes(np.dtype(name)) == nbytes


def test_element_bytes_refuses_an_object_whose_itemsize_is_zero_or_a_bool():
    class ZeroWide:
        itemsize = 0
        name = "zero_wide"

    class BoolWide:
        itemsize = True
        name = "bool_wide"

    for obj in (ZeroWide(), BoolWide()):
        with pytest.raises(LayoutError, match="unknown dtype"):
            element_bytes(obj)


def test_element_bytes_without_a_dtype_says_one_is_required():
    with pytest.raises(LayoutError, match="dtype is required"):
        element_bytes(None)


@pytest.mark.parametrize("dtype", ["s4", "e2m1", "e3m2", 12])
def test_element_bytes_refuses_sub_byte_and_odd_bit_widths(dtype):
    with pytest.raises(LayoutError, match="not addressable per lane"):
        element_bytes(dtype)


# ---------------------------------------------------------------- Access validation


def test_access_refuses_float_coordinates():
    with pytest.raises(LayoutError, match="must be integers"):
        Access(LD32, np.zeros((32, 2)))


def test_access_refuses_one_dimensional_coordinates():
    with pytest.raises(LayoutError, match=r"shape \(\*batch, 32, rank\)"):
        Access(LD32, np.zeros(32, dtype=np.int64))


def test_unbatched_access_has_no_axes_and_one_instance():
    acc = Access(LD32, np.zeros((32, 2), dtype=np.int64))
    assert acc.axes == () and acc.batch_shape == () and acc.count == 1


def test_access_refuses_axis_names_that_do_not_match_the_batch_axes():
    with pytest.raises(LayoutError, match=r"do not match the 1 batch axes"):
        Access(LD32, np.zeros((4, 32, 2), dtype=np.int64), ("warp", "k"))


def test_access_cannot_be_altered_after_validation():
    acc = Access(LD32, np.zeros((32, 2), dtype=np.int64))
    with pytest.raises(dataclasses.FrozenInstanceError):
        acc.instruction = "ld.shared.v4.b32"  # type: ignore[misc]


def test_batch_shape_and_count_follow_the_ranges_of_from_fn():
    one = Access.from_fn(LD32, lambda lane, warp: (warp, lane), warp=5)
    assert one.batch_shape == (5,) and one.count == 5 and one.rank == 2
    two = Access.from_fn(LD32, lambda lane, warp, k: (warp * 32 + lane, k), warp=3, k=7)
    assert two.batch_shape == (3, 7) and two.count == 21


def test_from_fn_accepts_a_range_of_one():
    acc = Access.from_fn(LD32, lambda lane, k: (k, lane), k=1)
    assert acc.batch_shape == (1,) and acc.count == 1


@pytest.mark.parametrize("extent", [0, -2, True, 2.0, "4"])
def test_from_fn_refuses_a_range_that_is_not_a_positive_int(extent):
    with pytest.raises(LayoutError, match=r"Access range k="):
        Access.from_fn(LD32, lambda lane, k: (k, lane), k=extent)


# ---------------------------------------------------------------- tile_access


def _touched(acc: Access, shape: tuple[int, int], nbytes: int) -> np.ndarray:
    """How many times each element of a row-major ``shape`` tile is moved by the sweep (brute force)."""
    ins = parse_instruction(acc.instruction)
    width = 16 if ins.matrices else ins.access_bytes  # ldmatrix: each active lane gives one 16-byte row
    per_lane = width // nbytes
    rows, cols = shape
    hits = np.zeros(shape, dtype=np.int64)
    for r, c in acc.coords[..., list(ins.active_lanes), :].reshape(-1, 2):
        assert 0 <= r < rows and 0 <= c and c + per_lane <= cols, (r, c)
        hits[r, c:c + per_lane] += 1
    return hits


@pytest.mark.parametrize("count", ["x1", "x2", "x4"])
@pytest.mark.parametrize("dtype, shape", [("s8", (32, 64)), ("f16", (32, 32)), ("f32", (16, 16)), ("f64", (16, 8))])
def test_ldmatrix_sweep_moves_every_element_of_the_tile_once(count, dtype, shape):
    acc = tile_access(f"ldmatrix.{count}", shape, dtype)
    assert (_touched(acc, shape, element_bytes(dtype)) == 1).all()


@pytest.mark.parametrize("ins, dtype, shape, by", [
    (LD32, "f32", (32, 32), "row"), ("ld.shared.v4.b32", "f16", (64, 64), "row"),
    (LD32, "f32", (992, 1), "column"), ("ld.shared.v2.b32", "f16", (64, 8), "column"),
    ("st.shared.b64", "f32", (96, 6), "column"),
])
def test_ld_st_sweep_moves_every_element_of_the_tile_once(ins, dtype, shape, by):
    acc = tile_access(ins, shape, dtype, by)
    assert (_touched(acc, shape, element_bytes(dtype)) == 1).all()


@pytest.mark.parametrize("shape", [[8, 8], (8,), (8, 8, 8), (0, 8), (8, -8), (True, 8), (8.0, 8)])
def test_tile_access_refuses_a_shape_that_is_not_two_positive_ints(shape):
    with pytest.raises(LayoutError, match="tile shape must be"):
        tile_access(LD32, shape, "f32")


def test_ldmatrix_refuses_elements_wider_than_its_16_byte_rows():
    with pytest.raises(LayoutError, match="moves 16-byte rows; 32-byte elements"):
        tile_access("ldmatrix.sync.aligned.m8n8.x4.shared.b16", (16, 16), 256)


def test_ld_refuses_elements_wider_than_the_access():
    with pytest.raises(LayoutError, match="moves 4 bytes, not whole 8-byte elements"):
        tile_access(LD32, (32, 32), "f64")


def test_ld_refuses_columns_that_do_not_split_into_vectors():
    with pytest.raises(LayoutError, match="6 columns do not split into 4-element vectors"):
        tile_access("ld.shared.v4.b32", (32, 6), "f32")


def test_row_sweep_refuses_a_tile_that_is_not_whole_warp_accesses():
    with pytest.raises(LayoutError, match="96 elements are not a whole number of warp accesses of 64 elements"):
        tile_access("ld.shared.v2.b32", (16, 6), "f32")


def test_tile_access_refuses_an_unknown_sweep_order():
    with pytest.raises(LayoutError, match="by must be 'row' or 'column'"):
        tile_access(LD32, (32, 32), "f32", by="diagonal")


def test_batched_access_without_axis_names_gets_one_default_name_per_batch_axis():
    acc = Access(LD32, np.zeros((4, 3, 32, 2), dtype=np.int64))
    assert acc.axes == ("i0", "i1") and acc.count == 12


@pytest.mark.parametrize("ins, dtype, shape, by", [
    ("ldmatrix.x1", "f16", (16, 16), "row"), ("ldmatrix.x2", "f16", (32, 8), "row"),
    (LD32, "f32", (64, 8), "column"),
])
def test_tile_sweeps_run_without_numpy_warnings(ins, dtype, shape, by):
    # a user running with -W error (or a notebook) must not see a numpy division-by-zero warning from a sweep
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tile_access(ins, shape, dtype, by)


def test_accesses_compare_by_their_coordinates_and_hash_alike_when_equal():
    rows = np.arange(32)[:, None] * np.array([[1, 0]])
    first = Access("ld.shared.b32", rows.copy())
    same = Access("ld.shared.b32", rows.copy())
    assert first == same and hash(first) == hash(same)
    assert {first, same} == {first}
    assert first != Access("ld.shared.b32", rows + 1)
    assert first != Access("ld.shared.b64", rows.copy())
    assert first != Access("ld.shared.b32", np.stack([rows, rows]))
    assert first != "ld.shared.b32"


@pytest.mark.parametrize("fn", [lambda lane: (lane, lane / 2), lambda lane: (lane, 0.5 + 0 * lane), lambda lane: "x"])
def test_from_fn_refuses_coordinates_that_are_not_integers_instead_of_truncating_them(fn):
    # lane / 2 (not //): casting to int64 used to turn 2.5 into 2 and analyse an access nobody wrote
    with pytest.raises(LayoutError, match="coordinates must be integers"):
        Access.from_fn("ld.shared.b32", fn)


def test_from_fn_refuses_a_coordinate_that_does_not_broadcast_to_the_ranges():
    with pytest.raises(LayoutError, match=r"does not broadcast to \(\*ranges, 32\) = \(3, 32\)"):
        Access.from_fn("ld.shared.b32", lambda lane, i: (lane, np.zeros(5, dtype=np.int64)), i=3)


def test_from_fn_refuses_ranges_too_large_to_enumerate_before_building_them():
    # 2^40 instances x 32 lanes: refused by count (it used to try to allocate 8 TiB)
    with pytest.raises(LayoutError, match="enumerates 35184372088832 lanes, more than the 67108864"):
        Access.from_fn("ld.shared.b32", lambda lane, i: (lane, i), i=1 << 40)
    assert Access.from_fn("ld.shared.b32", lambda lane, i: (lane, i), i=(1 << 21)).count == 1 << 21  # 2^26 lanes


def test_tile_sweeps_say_their_lanes_run_along_the_columns_and_a_bad_run_mode_is_refused():
    assert tile_access("ld.shared.v4.b32", (32, 32), "f32").run_mode == 1
    assert tile_access("ldmatrix.x4", (16, 16), "f16").run_mode == 1
    assert Access.from_fn("ld.shared.b32", lambda lane: (lane, 0)).run_mode is None
    for bad in (2, -1, True, 1.0):
        with pytest.raises(LayoutError, match="run_mode must be None or a mode of the coordinates"):
            Access("ld.shared.b32", np.zeros((1, 32, 2), dtype=np.int64), run_mode=bad)

"""One thread's share of a tensor (layoutalg.atoms.partition.Partition): values numbered colexicographically
over (V, Rest...), read by flat index or by coordinate; out-of-range and wrong-arity indices refused naming the
shape; and the shared argument checks of the tiled atoms (a thread layout that is no shape, a tensor that is no
layout, a permutation that does not divide its mode)."""

from __future__ import annotations

import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.partition import Partition
from layoutalg.atoms.tiled_copy import make_tiled_copy
from layoutalg.atoms.tiled_mma import make_tiled_mma
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, ShapeError

# shape (2, 3): value (v, r) has flat index v + 2r; offsets 10 * flat + 1, coords (flat, 0)
PART = Partition(4, (2, 3), tuple((i, 0) for i in range(6)), tuple(10 * i + 1 for i in range(6)))


def test_values_are_read_by_flat_index_or_colexicographic_coordinate() -> None:
    assert PART.size() == 6
    for v in range(2):
        for r in range(3):
            assert PART(v, r) == PART(v + 2 * r) == 10 * (v + 2 * r) + 1
            assert PART.coord(v, r) == (v + 2 * r, 0)
    assert str(PART) == "Partition(thread 4, shape (2, 3), offsets [1, 11, 21, 31, 41, 51])"


@pytest.mark.parametrize("index", [6, -1, 100])
def test_a_flat_index_outside_the_partition_is_refused(index: int) -> None:
    with pytest.raises(LayoutError, match=f"index {index} out of range for a partition of size 6"):
        PART(index)


@pytest.mark.parametrize("coord", [(2, 0), (0, 3), (-1, 0), (1, -1)])
def test_a_coordinate_outside_the_shape_is_refused(coord: tuple[int, int]) -> None:
    with pytest.raises(LayoutError, match=rf"coordinate \({coord[0]}, {coord[1]}\) out of range for shape \(2, 3\)"):
        PART.coord(*coord)


def test_a_coordinate_of_the_wrong_arity_is_refused() -> None:
    with pytest.raises(LayoutError, match=r"a coordinate for shape \(2, 3\) has 2 entries, got \(0, 0, 0\)"):
        PART(0, 0, 0)


def test_affine_gives_base_and_layout_of_an_affine_partition() -> None:
    layout, base = PART.affine()  # type: ignore[misc]
    assert base == 1 and all(layout(v, r) == 10 * (v + 2 * r) for v in range(2) for r in range(3))


def test_a_partition_of_a_tiled_mma_reads_the_tensor_at_its_coordinates() -> None:
    tensor = Layout((32, 16), (16, 1))
    part = make_tiled_mma(catalog.get("SM80_16x8x16_F32F16F16F32_TN")).get_slice(9).partition_A(tensor)
    assert part.thread == 9 and part.size() == 8 * 2
    for i in range(part.size()):
        m, k = part.coord(i)
        assert part(i) == tensor(m, k) == 16 * m + k


@pytest.mark.parametrize("thr_layout", ["32", 3.0, None])
def test_a_thread_layout_that_is_no_shape_is_refused_by_name(thr_layout: object) -> None:
    with pytest.raises(ShapeError, match="thr_layout must be a Layout or a shape, got"):
        make_tiled_copy(catalog.ldmatrix(1, False), thr_layout, 1, bits=16)


@pytest.mark.parametrize("tensor", ["abc", 2.5, None])
def test_a_tensor_that_is_no_layout_is_refused_by_name(tensor: object) -> None:
    with pytest.raises(ShapeError, match="partition_A tensor must be a Layout, a ComposedLayout or a shape"):
        make_tiled_mma(catalog.get("SM80_16x8x16_F32F16F16F32_TN")).get_slice(0).partition_A(tensor)


def test_a_shape_is_partitioned_as_its_compact_layout() -> None:
    thr = make_tiled_mma(catalog.get("SM80_16x8x16_F32F16F16F32_TN")).get_slice(0)
    assert thr.partition_A((32, 16)).offsets == thr.partition_A(Layout((32, 16))).offsets


def test_a_partition_is_an_immutable_hashable_value() -> None:
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        PART.thread = 0  # type: ignore[misc]
    same = Partition(4, (2, 3), PART.coords, PART.offsets)
    assert {PART: "x"}[same] == "x"


@pytest.mark.parametrize("perm_m", [Layout(32), Layout((16, 2), (2, 1)), Layout((4, 2, 4), (2, 1, 8))])
def test_a_tiled_mma_permutation_sends_each_tiled_row_to_the_permuted_row(perm_m: Layout) -> None:
    """CuTe's TiledMMA logically divides the tile's M mode by its permutation P: the row the unpermuted tiling gives
    a value, i, is row P(i) of the tensor (the identity P changes nothing); the K side and the offsets follow."""
    atom, tensor = catalog.get("SM80_16x8x16_F32F16F16F32_TN"), Layout((32, 16), (16, 1))
    plain = make_tiled_mma(atom, (2, 1, 1))
    permuted = make_tiled_mma(atom, (2, 1, 1), (perm_m, None, None))
    for thread in range(plain.size()):
        want = plain.get_slice(thread).partition_A(tensor)
        got = permuted.get_slice(thread).partition_A(tensor)
        assert got.shape == want.shape
        assert got.coords == tuple((perm_m(m), k) for m, k in want.coords)
        assert got.offsets == tuple(tensor(c) for c in got.coords)


def test_two_one_thread_fma_atoms_along_m_give_thread_t_row_t() -> None:
    """TiledMMA<UniversalFMA, Layout<(2,1,1)>>: thread t computes C row t from A row t and the one B column; each
    thread holds one value, a mode of extent 1 at stride 0 as CuTe writes it."""
    tiled = make_tiled_mma(catalog.get("UniversalFMA"), (2, 1, 1))
    a, b, c = tiled.get_layoutA_TV(), tiled.get_layoutB_TV(), tiled.get_layoutC_TV()
    assert (a.values(), b.values(), c.values()) == ([0, 1], [0, 0], [0, 1])
    assert (str(a), str(c)) == ("(2,1):(1,0)", "(2,1):(1,0)")


def test_an_array_with_a_shape_but_no_layout_is_refused_as_a_tensor() -> None:
    """A numpy array has ``.shape`` but is no layout (no offsets to read): refused, not an AttributeError."""
    import numpy as np

    with pytest.raises(ShapeError, match="partition_A tensor must be a Layout, a ComposedLayout or a shape"):
        make_tiled_mma(catalog.get("SM80_16x8x16_F32F16F16F32_TN")).get_slice(0).partition_A(np.zeros((16, 16)))


def test_a_thread_value_map_that_is_no_layout_is_refused_listing_its_first_sixteen_thread_values() -> None:
    """ldmatrix.x1 (16-bit) reads, for lane t, row t % 8 of the matrix: its first value is the register value
    of lane 4 * (t % 8) (the reference is the destination).  A hand-given TV layout whose 96 threads run as
    (6, 16):(16, 1) sends that lane to 16 * (lane % 6) + lane // 6, which no shape:stride follows."""
    from layoutalg.atoms.tiled_copy import TiledCopy

    tc = TiledCopy(catalog.ldmatrix(1, bits=16), Layout(((6, 16), 2), ((16, 1), 384)), (768,))  # type: ignore[arg-type]
    firsts = [16 * (4 * t % 6) + 4 * t // 6 for t in range(8)]
    assert firsts == [0, 64, 33, 2, 66, 35, 4, 68]
    with pytest.raises(LayoutError) as err:
        tc.get_layoutS_TV()
    assert str(err.value) == f"TiledCopy S TV layout is not a layout: values {firsts + firsts}... follow no shape:stride"


def test_a_thread_value_map_that_carries_across_threads_and_values_is_refused() -> None:
    """A hand-built 2-thread atom over a 3 x 2 tile, C = (2,2):(1,2): lane 1's second value is tile index 3, which
    wraps to (0, 1).  Two such atoms along M (a 6 x 2 tile): lane 0 holds indices 0 and 2, lane 1 holds 1 and
    0 + 6 * 1 = 6, not 1 + 2; no (thread, value) layout gives that."""
    import dataclasses

    atom = dataclasses.replace(catalog.get("UniversalFMA"), name="X", shape_mnk=(3, 2, 1), thr_id=Layout(2),
                               c_layout=Layout((2, 2), (1, 2)))
    tiled = make_tiled_mma(atom, (2, 1, 1))
    assert tiled.get_slice(0).partition_C((6, 2)).coords == ((0, 0), (2, 0))
    assert tiled.get_slice(1).partition_C((6, 2)).coords == ((1, 0), (0, 1))
    with pytest.raises(LayoutError, match=r"^TiledMMA C TV layout: the \(thread, value\) map is not additive across "
                                          r"threads and values$"):
        tiled.get_layoutC_TV()

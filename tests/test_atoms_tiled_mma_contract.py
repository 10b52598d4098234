"""TiledMMA register fragments (layoutalg.atoms.tiled_mma): CuTe's make_fragment_like of a partition keeps the
values compact first and orders the rest modes by their strides in the partitioned tensor, so a K-major and an
M-major A tile give different fragments (hand-derived for SM80_16x8x16, one atom, a 32 x 64 tile: a thread holds
8 values per atom, 2 atoms along M 16 rows apart, 4 along K 16 columns apart)."""

from __future__ import annotations

import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.tiled_mma import make_tiled_mma
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError

ATOM = "SM80_16x8x16_F32F16F16F32_TN"


def test_a_k_major_a_tile_gives_a_fragment_with_the_k_repeats_inner() -> None:
    thr = make_tiled_mma(catalog.get(ATOM)).get_slice(0)
    row_major = Layout((32, 64), (64, 1))  # M step 16 rows = 1024 elements, K step 16 columns = 16: K first
    assert thr.partition_A(row_major).shape == (8, 2, 4)
    assert thr.partition_fragment_A(row_major).layout == Layout((8, 2, 4), (1, 32, 8))


def test_an_m_major_a_tile_gives_a_column_major_fragment() -> None:
    thr = make_tiled_mma(catalog.get(ATOM)).get_slice(5)
    col_major = Layout((32, 64), (1, 32))  # M step 16, K step 16 * 32: M first
    assert thr.partition_fragment_A(col_major).layout == Layout((8, 2, 4), (1, 8, 16))


def test_the_accumulator_fragment_is_compact_whatever_cs_strides() -> None:
    thr = make_tiled_mma(catalog.get(ATOM)).get_slice(3)
    for c in (Layout((32, 16), (16, 1)), Layout((32, 16), (1, 32))):
        assert thr.partition_fragment_C(c).layout == Layout((4, 2, 2), (1, 4, 8))


@pytest.mark.parametrize("operand", ["X", "AB", "", 1])
def test_partition_refuses_an_operand_other_than_a_b_c_or_d(operand: object) -> None:
    with pytest.raises(LayoutError, match="operand must be A, B or C, got"):
        make_tiled_mma(catalog.get(ATOM)).partition(operand, Layout((16, 16)), 0)  # type: ignore[arg-type]


def test_a_tile_of_one_atom_gives_a_fragment_of_the_atoms_values_alone() -> None:
    thr = make_tiled_mma(catalog.get(ATOM)).get_slice(7)
    frag = thr.partition_fragment_A(Layout((16, 16), (16, 1))).layout
    assert frag.shape == (8, 1, 1) and [frag(v, 0, 0) for v in range(8)] == list(range(8))


def test_atom_layout_tiles_atoms_and_its_threads() -> None:
    tiled = make_tiled_mma(catalog.get(ATOM), (2, 2))  # 2 x 2 atoms of 32 threads
    assert tiled.get_slice(127).partition_A(Layout((32, 16), (16, 1))).size() == 8
    with pytest.raises(LayoutError, match="thread index 128 out of range for a TiledMMA of 128 threads"):
        tiled.get_slice(128)


@pytest.mark.parametrize("atom_layout, match", [
    ((1, 1, 1, 2), "atom_layout has 4 modes; a TiledMMA tiles at most M, N, K"),
    ("2x2", "atom_layout must be a Layout or a shape"),
    (Layout((2, 2), (0, 1)), "has a broadcast thread mode; give atom_layout positive strides"),
])
def test_an_atom_layout_that_tiles_no_m_n_k_grid_is_refused(atom_layout: object, match: str) -> None:
    with pytest.raises(LayoutError, match=match):
        tiled = make_tiled_mma(catalog.get(ATOM), atom_layout)
        tiled.get_slice(0).partition_A(Layout((32, 16)))


@pytest.mark.parametrize("permutations, match", [
    ((None, None, None, None), "permutations must be a tuple of up to 3 entries"),
    (None, "permutations must be a tuple of up to 3 entries"),
    (("x",), "permutation M must be a Layout or a shape"),
])
def test_permutations_other_than_up_to_three_layouts_are_refused(permutations: object, match: str) -> None:
    with pytest.raises(LayoutError, match=match):
        make_tiled_mma(catalog.get(ATOM), (1, 1, 1), permutations)


def test_a_tensor_extent_that_is_no_multiple_of_the_tiled_atoms_is_refused() -> None:
    thr = make_tiled_mma(catalog.get(ATOM), (2, 1)).get_slice(0)
    with pytest.raises(LayoutError, match=r"partition_A: the tensor's M extent 48 is not a multiple of the MMA's "
                                          r"16 x 2 atoms = 32; pad the tile or change atom_layout"):
        thr.partition_A(Layout((48, 16)))
    with pytest.raises(LayoutError, match="make_tiled_mma needs an MMA atom, got 5"):
        make_tiled_mma(5)  # type: ignore[arg-type]


def test_a_tensor_extent_that_is_no_multiple_of_a_permutation_is_refused() -> None:
    thr = make_tiled_mma(catalog.get(ATOM), (1, 1, 1), (Layout(32), None, None)).get_slice(0)
    with pytest.raises(LayoutError, match=r"partition_A: the tensor's M extent 48 is not a multiple of the "
                                          r"permutation's size 32"):
        thr.partition_A(Layout((48, 16)))


def test_a_tiled_mma_refuses_a_non_mma_atom_a_non_rank_3_atom_layout_and_malformed_permutations() -> None:
    from layoutalg.atoms.tiled_mma import TiledMMA

    atom, mnk = catalog.get(ATOM), Layout((1, 1, 1))
    with pytest.raises(LayoutError, match="needs an MMA atom, got"):
        TiledMMA(catalog.ld_shared(32), mnk, (None, None, None))  # type: ignore[arg-type]
    for bad in (Layout((1, 1)), "(1,1,1)"):
        with pytest.raises(LayoutError, match="atom_layout must be a rank-3"):
            TiledMMA(atom, bad, (None, None, None))  # type: ignore[arg-type]
    for perms in ((None, None), [None, None, None], (None, None, 16)):
        with pytest.raises(LayoutError, match="permutations must be 3 entries"):
            TiledMMA(atom, mnk, perms)  # type: ignore[arg-type]

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


def test_a_tiled_mma_prints_cutes_thread_layout_padded_with_1_0_permutations_tile_and_atom() -> None:
    """CuTe: ThrLayoutVMNK = tiled_product(ThrID 32:1, AtomLayoutMNK), the (2, 2) atom layout padded to rank 3
    with 1:0 (make_tiled_mma's append<3>); complement(32:1, 32 * 4) = 4:32 composed with (2,2,1):(1,2,0)."""
    tiled = make_tiled_mma(catalog.get(ATOM), (2, 2))
    assert tiled.thr_layout_vmnk == Layout((32, 2, 2, 1), (1, 32, 64, 0))
    text = str(tiled)
    assert text.startswith("TiledMMA\n  ThrLayoutVMNK: (32,2,2,1):(1,32,64,0)\n  PermutationMNK: (None, None, None)\n"
                           "  Tile: (32, 16, 16)\n  Atom: SM80_16x8x16_F32F16F16F32_TN")


def test_eight_sm70_quad_pair_atoms_take_the_threads_the_complement_of_the_quad_pair_leaves() -> None:
    """SM70 ThrID (4,2):(1,16) uses lanes 0-3 and 16-19; tiled_product with (2,4,1) atoms takes the complement of
    ThrID in 8 * 8 = 64 threads, (4,2):(4,32): M atom 1 at +4, N atoms at +8, +32, +40."""
    tiled = make_tiled_mma(catalog.get("SM70_8x8x4_F32F16F16F32_TN"), (2, 4, 1))
    assert tiled.size() == 64
    assert tiled.thr_layout_vmnk == Layout(((4, 2), 2, (2, 2), 1), ((1, 16), 4, (8, 32), 0))
    # thread 32 computes atom (0, 2): columns 16..23 of the 16 x 32 accumulator tile, rows 0..7
    coords = tiled.get_slice(32).partition_C((16, 32)).coords
    assert {c[1] // 8 for c in coords} == {2} and {c[0] // 8 for c in coords} == {0}


@pytest.mark.parametrize("mode", [0, 2])
def test_a_permutation_reaching_exactly_its_size_is_refused(mode: int) -> None:
    perms: list[Layout | None] = [None, None, None]
    perms[mode] = Layout((2, 8), (16, 0))  # 16 values, the odd ones sent to 16: one past the 16-wide tile
    tiled = make_tiled_mma(catalog.get(ATOM), (1, 1, 1), tuple(perms))
    # A holds rows lane // 4 (+ 8) and columns 2 (lane % 4) (+ 1, + 8): lane 4 has row 1, lane 0 column 1
    sent = r"\(1, 0\) to \(16, 0\)" if mode == 0 else r"\(0, 1\) to \(0, 16\)"
    with pytest.raises(LayoutError, match=rf"partition_A: the permutations send {sent}, outside the 16 x 16 tensor"):
        tiled.get_layoutA_TV()


def test_a_one_thread_tiled_mma_has_the_atoms_own_tv_layouts() -> None:
    """CuTe SM61_DP4A: ThrID 1, Shape 1x1x4, A and B (1,4) compact (size-1 modes stride 0), C (1,1)."""
    tiled = make_tiled_mma(catalog.get("SM61_DP4A"))
    assert tiled.size() == 1
    assert tiled.get_layoutA_TV() == tiled.get_layoutB_TV() == Layout((1, 4), (0, 1))
    assert tiled.get_layoutC_TV() == Layout((1, 1), (0, 0))


def test_an_atom_layout_with_a_gap_between_its_atoms_threads_is_refused_for_tv_layouts() -> None:
    tiled = make_tiled_mma(catalog.get(ATOM), Layout((2, 1, 1), (2, 0, 0)))  # atoms at thread 0 and 64: none at 32
    with pytest.raises(LayoutError, match=r"thr_layout_vmnk \(32,2,1,1\):\(1,64,0,0\) is not invertible: give "
                                          r"atom_layout compact strides"):
        tiled.get_layoutC_TV()


def test_a_fragment_keeps_every_rest_mode_of_a_rank_2_copy_partition() -> None:
    """A 1-D copy of 32 threads x 2 values (tile 64) over 128 elements: a thread holds (2 values, 2 tiles)."""
    from layoutalg.atoms.tiled_copy import make_tiled_copy
    from layoutalg.atoms.tiled_mma import fragment_of

    part = make_tiled_copy(catalog.ld_shared(32), Layout(32), Layout(2), bits=16).get_slice(3).partition_S(Layout(128))
    assert part.shape == (2, 2) and part.offsets == (6, 7, 70, 71)
    assert fragment_of(part).layout == Layout((2, 2), (1, 2))


def test_a_fragment_of_a_rank_1_or_scalar_partition_is_compact() -> None:
    from layoutalg.atoms.partition import Partition
    from layoutalg.atoms.tiled_mma import fragment_of

    four = fragment_of(Partition(0, (4,), tuple((2 * i,) for i in range(4)), (0, 2, 4, 6))).layout
    assert four.size() == 4 and four.values() == [0, 1, 2, 3]
    # CuTe's make_fragment_like of a rank-1 layout is make_layout(shape): the one mode stays a rank-1 tuple
    assert four == Layout((4,), (1,)) and str(four) == "(4):(1)"
    scalar = fragment_of(Partition(0, (), ((),), (7,))).layout
    assert scalar.size() == 1 and scalar.values() == [0]


def test_a_single_block_mode_orders_before_a_rest_mode_one_element_apart() -> None:
    """M as (16,2):(2,1): the second 16-row block starts 1 element on.  CuTe's partition_A has rest modes
    (2,1):(1,0) (its single K block has stride 0), so make_ordered_layout puts K (order 0) before M (order 1):
    K takes the running product after the 8 values, 8 (layoutalg keeps the running product on size-1 modes, as
    pycute does; CuTe C++ writes 0 there), and M, after K's single block, 8 as well."""
    thr = make_tiled_mma(catalog.get(ATOM)).get_slice(5)
    tensor = Layout(((16, 2), 16), ((2, 1), 32))
    assert thr.partition_A(tensor).shape == (8, 2, 1)
    assert thr.partition_fragment_A(tensor).layout == Layout((8, 2, 1), (1, 8, 8))


def test_a_fragment_of_a_broadcast_tile_is_the_same_for_every_thread() -> None:
    """CuTe's partitioned tensors of two threads differ only in their start, so make_fragment_like gives each the
    same layout.  A tile broadcast along M (stride 0) has rest modes (2,1):(0,0) for every thread, although each
    thread starts at its own column; the tie is broken by position: M, then K."""
    tiled = make_tiled_mma(catalog.get(ATOM))
    tensor = Layout((32, 16), (0, 1))
    frags = {tiled.get_slice(t).partition_fragment_A(tensor).layout for t in range(32)}
    assert frags == {Layout((8, 2, 1), (1, 8, 16))}


def test_a_fragment_orders_a_negative_rest_stride_by_its_signed_value_as_cute_does() -> None:
    """CuTe's make_fragment_like puts V first and orders the rest modes with make_ordered_layout over their strides,
    compared as signed values: rest strides (4, -8) put the -8 mode first (stride 2 after V's 2 values), the +4
    mode after it (stride 4).  Ordering by magnitude would give (1,2,4).  (CuTe DSL 4.8.1's make_fragment_like of
    (2,2,2):(1,4,-8) gives (2,2,2):(1,4,2), of (2,2,2):(1,4,8) gives (2,2,2):(1,2,4).)"""
    from layoutalg.atoms.partition import Partition
    from layoutalg.atoms.tiled_mma import fragment_of

    values = [(v, a, b) for b in range(2) for a in range(2) for v in range(2)]  # colexicographic over (2,2,2)
    offsets = tuple(32 + v + 4 * a - 8 * b for v, a, b in values)
    part = Partition(0, (2, 2, 2), tuple((o,) for o in offsets), offsets)
    assert fragment_of(part).layout == Layout((2, 2, 2), (1, 4, 2))
    positive = tuple(32 + v + 4 * a + 8 * b for v, a, b in values)  # the same magnitudes, both positive
    assert fragment_of(Partition(0, (2, 2, 2), tuple((o,) for o in positive), positive)).layout == \
        Layout((2, 2, 2), (1, 2, 4))

"""TiledCopy construction refusals (layoutalg.atoms.tiled_copy): a tile holding fewer values per thread than
the atom moves is refused with advice naming a smaller, existing form of the atom (.x4 -> .x2, .x2 -> .x1)."""

from __future__ import annotations

import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.tiled_copy import make_tiled_copy
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError


@pytest.mark.parametrize("num, smaller", [(4, 2), (2, 1), (1, 1)])
def test_too_few_values_per_thread_names_an_existing_smaller_ldmatrix_form(num: int, smaller: int) -> None:
    moved = 2 * num  # 16-bit values: two per register, one register per matrix
    with pytest.raises(LayoutError) as err:
        make_tiled_copy(catalog.ldmatrix(num, False), Layout(32), 1, bits=16)
    text = str(err.value)
    assert f"each thread holds 1 values of the tile but SM75_U32x{num}_LDSM_N with 16-bit values moves {moved}" in text
    assert f"(e.g. the .x{smaller} form)" in text and ".x0" not in text


def test_too_few_values_of_a_per_thread_copy_advises_a_narrower_vector() -> None:
    with pytest.raises(LayoutError, match=r"Use a smaller atom \(a narrower vector\)"):
        make_tiled_copy(catalog.ld_shared(128), Layout(32), 1, bits=16)


def _rows_copy():  # type: ignore[no-untyped-def]
    """32 threads as 4 x 8 (row-major), 8 contiguous 16-bit values each: a 4 x 64 tile of 128-bit loads."""
    from layoutalg.atoms.tiled_copy import make_tiled_copy as make

    return make(catalog.ld_shared(128), Layout((4, 8), (8, 1)), Layout((1, 8)), bits=16)


def test_a_tensor_of_higher_rank_is_tiled_by_one_along_its_extra_modes() -> None:
    tc = _rows_copy()
    assert tc.tiler == (4, 64) and tc.num_threads == 32
    tensor = Layout((4, 64, 2), (64, 1, 256))  # row-major rows, two of them
    part = tc.get_slice(9).partition_S(tensor)  # thread 9: row 9 // 8 = 1, columns 8 * (9 % 8) ..
    assert part.shape == (8, 1, 1, 2)
    assert [part(v, 0, 0, 0) for v in range(8)] == [64 + 8 + v for v in range(8)]
    assert part(0, 0, 0, 1) == 256 + 64 + 8


def test_partition_refuses_a_tensor_the_tile_does_not_fit() -> None:
    thr = _rows_copy().get_slice(0)
    with pytest.raises(LayoutError, match=r"partition_S: the tensor has rank 1, less than the tiler's 2"):
        thr.partition_S(Layout(256))
    with pytest.raises(LayoutError, match=r"partition_D: tensor mode 1 has extent 60, not a multiple of the copy tile's 64"):
        thr.partition_D(Layout((4, 60), (60, 1)))
    with pytest.raises(LayoutError, match="partition_S: the tensor holds 8-bit values but the copy atom"):
        thr.partition_S(Layout((4, 64), (64, 1)), bits=8)


@pytest.mark.parametrize("thread", [32, -1, True])
def test_a_thread_index_outside_the_tiled_copy_is_refused(thread: object) -> None:
    with pytest.raises(LayoutError, match=f"thread index {thread!r} out of range for a TiledCopy of 32 threads"):
        _rows_copy().get_slice(thread)  # type: ignore[arg-type]


def test_an_atom_without_its_element_width_is_refused_saying_how_to_bind_it() -> None:
    with pytest.raises(LayoutError, match=r"SM75_U32x4_LDSM_N is in bits; give the element width \(atom.bind\(16\)"):
        make_tiled_copy(catalog.ldmatrix(4, False), Layout(32), Layout(8))
    with pytest.raises(LayoutError, match=r"bound to 16-bit values but 8-bit data was given; bind it with .bind\(8\)"):
        make_tiled_copy(catalog.ldmatrix(4, False, bits=16), Layout(32), Layout(8), bits=8)


def test_fewer_threads_than_the_atom_needs_is_refused() -> None:
    with pytest.raises(LayoutError, match="TiledCopy uses too few thrs for selected CopyAtom: the tiled layout has 16"):
        make_tiled_copy(catalog.ldmatrix(4, False), Layout(16), Layout(8), bits=16)


def test_a_tiled_copy_needs_a_bound_atom_and_a_thread_value_layout() -> None:
    from layoutalg.atoms.tiled_copy import TiledCopy

    bound = catalog.ld_shared(128).bind(16)
    with pytest.raises(LayoutError, match="must be a TypedCopyAtom"):
        TiledCopy(catalog.ld_shared(128), Layout((32, 8)), (4, 64))  # type: ignore[arg-type]
    for bad in (Layout(32), "(32,8):(8,1)"):
        with pytest.raises(LayoutError, match=r"must be a \(thread, value\) Layout"):
            TiledCopy(bound, bad, (4, 64))  # type: ignore[arg-type]


@pytest.mark.parametrize("thread", [32, 33, -1, True])
def test_partitioning_for_a_thread_outside_the_tiled_copy_is_refused(thread: int) -> None:
    tc = _rows_copy()
    assert tc.size() == 32
    with pytest.raises(LayoutError, match="out of range for a TiledCopy of 32 threads"):
        tc.partition("S", Layout((4, 64), (64, 1)), thread)


def test_a_tiled_ldmatrix_with_two_atoms_per_thread_moves_every_tile_element_on_both_sides() -> None:
    """Two x1 atoms along the values (16-bit: 2 register values, 8 address-side values a lane): the D side is the
    tiled layout itself (each element once), the S side reaches every element of the same tile."""
    tc = make_tiled_copy(catalog.ldmatrix(1, False), Layout(32), Layout((1, 4)), bits=16)
    size = tc.tiler[0] * tc.tiler[1]
    dst = list(tc.get_layoutD_TV().values())
    assert sorted(dst) == list(range(size)) and tc.num_vals("D") == 4
    assert set(tc.get_layoutS_TV().values()) == set(range(size)) and tc.num_vals("S") == 16


@pytest.mark.parametrize("ref, src, match", [
    (Layout((1, (16, 2)), (0, (1, 0))), Layout((1, 32), (0, 1)), "reference layout .* is not injective"),
    (Layout((1, 32), (0, 1)), Layout((1, 32), (0, 2)), r"S value \(0, \d+\) at \d+ is outside the reference layout"),
])
def test_a_hand_built_atom_whose_reference_cannot_index_its_values_is_refused(ref: Layout, src: Layout,
                                                                              match: str) -> None:
    from layoutalg.atoms.copy import CopyAtom

    atom = CopyAtom("X", "x", 80, "ld.shared", Layout(1, 0), src, Layout((1, 32), (0, 1)), ref, vector_bits=32)
    with pytest.raises(LayoutError, match=match):
        make_tiled_copy(atom, Layout(1), Layout((1, 2)), bits=16).get_layoutS_TV()


def test_make_tiled_copy_refuses_what_is_not_a_copy_atom() -> None:
    with pytest.raises(LayoutError, match="needs a copy atom, got"):
        make_tiled_copy(catalog.get("SM80_16x8x16_F32F16F16F32_TN"), Layout(32), 1, bits=16)


def test_a_tiled_copy_prints_its_tiler_tv_layout_and_atom_and_a_thread_retiles_its_fragment() -> None:
    tc = _rows_copy()
    text = str(tc)
    assert text.startswith("TiledCopy\n") and "Tiler_MN: (4, 64)" in text
    assert f"TiledLayout_TV: {tc.layout_tv}" in text and str(tc.atom) in text
    fragment = Layout((8, 1, 1))  # one thread's 8 values of one 128-bit load
    thr = tc.get_slice(5)
    assert thr.retile_S(fragment) == thr.retile_D(fragment) == tc.retile(fragment)
    assert sorted(thr.retile_S(fragment).values()) == list(range(8))


def test_a_source_that_does_not_vectorize_is_refused_naming_the_access_and_the_thread_values() -> None:
    tc = _rows_copy()  # 8 x 16-bit values a thread, one 128-bit load
    with pytest.raises(LayoutError) as err:
        tc.partition("S", Layout((4, 64), (1, 4)), 0)  # column-major: a thread's 8 values 4 apart
    assert ("In CopyAtom, src layout doesn't vectorize: UniversalCopy<uint128_t> moves 8 x 16-bit values per thread "
            "as one 128-bit access, but thread 0's values 0..7 sit at offsets [0, 4, 8, 12, 16, 20, 24, 28] "
            "(not contiguous)") in str(err.value)
    with pytest.raises(LayoutError, match=r"thread 8's values 0\.\.7 sit at offsets \[65, .*, 72\] \(not aligned to 8 "):
        tc.partition("S", Layout((4, 64), (65, 1)), 8)  # rows 65 elements apart: row 1 starts off alignment


def _matrix_copy(make):  # type: ignore[no-untyped-def]
    """One 8 x 8 matrix of 16-bit values: lane t holds row t // 4, columns 2 (t % 4) + {0, 1} (the PTX ldmatrix /
    stmatrix register fragment); on the shared-memory side lane r < 8 addresses row r, 8 values (128 bits)."""
    return make_tiled_copy(make(1), Layout((8, 4), (4, 1)), Layout((1, 2)), bits=16)


ROW_MAJOR_8X8 = Layout((8, 8), (8, 1))
PAIRS_16_APART = Layout((8, (2, 4)), (2, (1, 16)))  # a row's 8 values: pairs 0,1 16,17 32,33 48,49: not one access


def test_ldmatrix_checks_its_shared_memory_source_rows_as_one_128_bit_access() -> None:
    tc = _matrix_copy(catalog.ldmatrix)
    assert tc.get_slice(0).partition_S(ROW_MAJOR_8X8).offsets == tuple(range(8))
    with pytest.raises(LayoutError) as err:
        tc.get_slice(0).partition_S(PAIRS_16_APART)
    assert ("src layout doesn't vectorize: SM75_U32x1_LDSM_N moves 8 x 16-bit values per thread as one 128-bit "
            "access, but thread 0's values 0..7 sit at offsets [0, 1, 16, 17, 32, 33, 48, 49] (not contiguous)"
            ) in str(err.value)
    # the destination is registers: any layout of them is accepted
    assert tc.get_slice(0).partition_D(PAIRS_16_APART).offsets == (0, 1)


def test_stmatrix_checks_its_shared_memory_destination_rows_as_one_128_bit_access() -> None:
    tc = _matrix_copy(catalog.stmatrix)
    assert tc.get_slice(0).partition_S(PAIRS_16_APART).offsets == (0, 1)  # registers
    assert tc.get_slice(3).partition_D(ROW_MAJOR_8X8).offsets == tuple(range(24, 32))
    with pytest.raises(LayoutError, match=r"dst layout doesn't vectorize: SM90_U32x1_STSM_N moves 8 x 16-bit values "
                                          r"per thread as one 128-bit access, but thread 0's values 0\.\.7 sit at "
                                          r"offsets \[0, 1, 16, 17, 32, 33, 48, 49\] \(not contiguous\)"):
        tc.get_slice(0).partition_D(PAIRS_16_APART)


def test_a_shared_memory_store_checks_its_destination_and_not_its_register_source() -> None:
    tc = make_tiled_copy(catalog.st_shared(128), Layout((4, 8), (8, 1)), Layout((1, 8)), bits=16)
    column_major = Layout((4, 64), (1, 4))  # a thread's 8 values 4 apart
    assert tc.get_slice(0).partition_S(column_major).offsets == tuple(range(0, 32, 4))
    with pytest.raises(LayoutError, match=r"dst layout doesn't vectorize: UniversalCopy<uint128_t> moves 8 x 16-bit "
                                          r"values .* offsets \[0, 4, 8, 12, 16, 20, 24, 28\] \(not contiguous\)"):
        tc.get_slice(0).partition_D(column_major)


def test_a_register_to_register_movmatrix_is_checked_on_neither_side() -> None:
    tc = _matrix_copy(lambda n: catalog.movmatrix())
    column_major = Layout((8, 8), (1, 8))  # a lane's two values 8 apart: no memory access to vectorise
    assert tc.get_slice(0).partition_S(column_major).offsets == (0, 8)
    assert tc.get_slice(0).partition_D(column_major).offsets == (0, 8)


def _cp_async_columns():  # type: ignore[no-untyped-def]
    """8 x 16 threads (column-major), 8 x 1 values each: 128 threads x 8 values, one 16-byte cp.async (8 halves)."""
    return make_tiled_copy(catalog.cp_async(16), Layout((8, 16)), Layout((8, 1)), bits=16)


def test_a_fragment_too_small_for_the_copy_is_refused_naming_threads_values_and_atom() -> None:
    with pytest.raises(LayoutError) as err:
        _cp_async_columns().retile(Layout((3, 4), (1, 8)))
    assert str(err.value).startswith("retile: a fragment of 3 values per thread does not fit this tiled copy "
                                     "(128 threads x 8 values, atom of 8): ")


def test_a_fragment_whose_retiled_values_are_not_its_own_is_refused() -> None:
    """One value per (1, 3) block where the copy moves 8 a thread: CuTe's retile composes the fragment past its
    3 values, which is no reordering of them."""
    with pytest.raises(LayoutError, match=r"retile: the result .* does not reorder the fragment \(1,3\):\(1,1\)"):
        _cp_async_columns().retile(Layout((1, 3), (1, 1)))

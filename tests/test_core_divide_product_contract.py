"""Contract of `layoutalg.core.divide_product` at its edges: a ``None`` tiler leaves the layout as it is
(CuTe's ``_``), and the tiled/flat forms refuse a result that is not ``(tile, rest)``."""

from __future__ import annotations

import pytest

import layoutalg as la
from layoutalg.core.divide_product import logical_divide, logical_product, tiled_divide, tiled_product
from layoutalg.core.layout import Layout
from layoutalg.errors import ShapeError


def test_a_none_tiler_leaves_the_layout_unchanged() -> None:
    layout = Layout((4, (2, 3)), (3, (1, 12)))
    assert logical_divide(layout, None) == layout
    assert logical_product(layout, None) == layout


def test_a_none_tiler_on_a_shape_gives_its_compact_layout() -> None:
    assert logical_divide((4, 6), None) == Layout((4, 6), (1, 4))  # type: ignore[arg-type]
    assert logical_product((4, 6), None) == Layout((4, 6), (1, 4))  # type: ignore[arg-type]


@pytest.mark.parametrize("fn", [tiled_divide, tiled_product])
def test_tiled_forms_refuse_a_result_that_is_not_tile_and_rest(fn: object) -> None:
    with pytest.raises(ShapeError, match=r"need a tiler \(got a result 8:1 that is not \(tile, rest\)\)"):
        fn(Layout(8), None)  # type: ignore[operator]


def test_tiled_divide_unpacks_the_rest_modes() -> None:
    a = Layout((8, 6), (1, 8))
    got = tiled_divide(a, (Layout(2, 1), Layout(3, 1)))
    assert got.shape == ((2, 3), 4, 2)
    for t in range(6):
        for r0 in range(4):
            for r1 in range(2):
                i, j = t % 2 + 2 * r0, t // 2 + 3 * r1
                assert got((t, r0, r1)) == a((i, j))


_PRODUCT_BLOCKS = [((2,), (1,)), ((4,), (2,)), ((2, 2), (1, 4)), ((3, 2), (2, 12)), ((2, 4), (4, 1)), ((2, 3), (1, 2)),
                   ((3,), (0,))]
_PRODUCT_TILERS: list[tuple[object, object]] = [(3, 1), (4, 2), ((2, 3), (1, 2)), ((2, 2), (0, 1)), ((3, 2), (2, 1)),
                                                 (1, 0), ((2, 4), (1, 0))]


def test_logical_product_is_cutes_layout_wherever_it_answers() -> None:
    import pycute

    answered = 0
    for shape, stride in _PRODUCT_BLOCKS:
        for b_shape, b_stride in _PRODUCT_TILERS:
            p = pycute.logical_product(pycute.Layout(shape, stride), pycute.Layout(b_shape, b_stride))
            try:
                got = la.logical_product(la.Layout(shape, stride), la.Layout(b_shape, b_stride))
            except la.CompositionError:  # CuTe's answer there is not A o B (checked elsewhere)
                continue
            assert got == la.Layout(p.shape, p.stride), (shape, stride, b_shape, b_stride)
            answered += 1
    assert answered >= 40


def test_flat_divide_unpacks_both_the_tiles_and_the_rests() -> None:
    # (8,8):(1,8) by (2:1, 4:1): tiles 2:1 and 4:8, rests 4:2 and 2:32 (CuTe's flat_divide order)
    a = la.Layout((8, 8), (1, 8))
    assert la.flat_divide(a, (la.Layout(2, 1), la.Layout(4, 1))) == la.Layout((2, 4, 4, 2), (1, 8, 2, 32))
    assert la.tiled_divide(a, (la.Layout(2, 1), la.Layout(4, 1))) == la.Layout(((2, 4), 4, 2), ((1, 8), 2, 32))


def test_a_numpy_integer_tiler_is_the_tiler_n_to_one() -> None:
    import numpy as np

    # CuTe: complement(4:1, 12) = 3:4, so 4:1 times 3:1 is (4,3):(1,4)
    assert la.logical_product(la.Layout(4, 1), np.int64(3)) == la.Layout((4, 3), (1, 4))
    assert la.logical_product(la.Layout(4, 1), np.array(3)) == la.Layout((4, 3), (1, 4))  # a 0-d array too


def test_a_list_of_tilers_multiplies_by_mode_like_a_tuple() -> None:
    # mode 0: 4:1 times 2:1 is (4,2):(1,4); mode 1 (2:4) is kept by None
    want = la.Layout(((4, 2), 2), ((1, 4), 4))
    assert la.logical_product(la.Layout((4, 2)), [la.Layout(2, 1), None]) == want


@pytest.mark.parametrize("tiler", ["x", 2.5])
def test_a_tiler_of_no_accepted_type_is_refused_naming_what_was_given(tiler: object) -> None:
    with pytest.raises(ShapeError, match="logical_product tiler must be a Layout, an int, None or a tuple of tilers"):
        la.logical_product(la.Layout(4, 1), tiler)


def test_an_index_like_tiler_without_ndim_is_the_tiler_n_to_one() -> None:
    class Four:  # operator.index() gives 4; no numpy ``ndim`` attribute
        def __index__(self) -> int:
            return 4

    assert la.logical_divide(la.Layout(16, 1), Four()) == la.logical_divide(la.Layout(16, 1), 4)
    assert la.logical_divide(la.Layout(16, 1), 4) == la.Layout((4, 4), (1, 4))


def test_a_none_entry_of_a_zipped_divide_tiler_divides_like_a_tile_of_the_whole_mode() -> None:
    a = la.Layout((4, 6), (1, 4))
    whole = la.zipped_divide(a, (la.Layout(2, 1), la.Layout(6, 1)))  # mode 1 tiled by all of it: rest 1:0
    assert la.zipped_divide(a, (la.Layout(2, 1), None)) == whole == la.Layout(((2, 6), (2, 1)), ((1, 4), (2, 0)))


@pytest.mark.parametrize("tiler", [Layout(3, 0), Layout(3, -1), Layout(3, -2), Layout((2, 3), (0, -1)),
                                   Layout(((2, 2), 3), ((1, 2), 4))], ids=str)
def test_logical_product_by_a_non_positive_or_nested_tiler_is_its_definition(tiler: Layout) -> None:
    # (A, complement(A, size(A) * cosize(B)) o B), from the library's own complement, cosize and composition
    a = Layout(4, 1)
    rest = la.composition(la.complement(a, a.size() * tiler.cosize()), tiler)
    assert logical_product(a, tiler) == Layout((a.shape, rest.shape), (a.stride, rest.stride))


@pytest.mark.parametrize("tiler", [Layout(1 << 2048, 1), Layout((1 << 2047, 2), (1, 1 << 2047))], ids=["int", "flat"])
def test_a_product_whose_complement_cotarget_reaches_2_to_4096_is_refused_and_one_below_answers(tiler: Layout) -> None:
    # size(A) * cosize(B) = 2**2048 * 2**2048: the complement's cotarget is past the 4096-bit integer limit, so the
    # product is refused as the general path refuses it, whichever path answers; half that A stays below the limit
    with pytest.raises(ShapeError, match="complement cotarget has 4097 bits; integers are limited to 4096 bits"):
        logical_product(Layout(1 << 2048, 1), tiler)
    got = logical_product(Layout(1 << 2047, 1), tiler)
    assert got.size() == (1 << 2047) * tiler.size() and got(1 << 2047) == 1 << 2047  # the rest mode starts there


def test_a_divide_whose_tile_has_no_covering_complement_uses_the_weak_one_as_products_do() -> None:
    # B = (3,4):(12,2) spans [0, 8) then jumps to 12: no complement covers [0, 18), CuTe's (and PyCuTe's) floored one
    # is 2:1 (ordered, disjoint from B, under-filling), so the divide answers A o (B, 2:1) instead of refusing
    got = logical_divide(Layout(18, 1), Layout((3, 4), (12, 2)))
    assert got == Layout(((3, 4), (2, 1)), ((12, 2), (1, 36)))
    assert [got(i, 0) for i in range(12)] == [Layout((3, 4), (12, 2))(i) for i in range(12)]


@pytest.mark.parametrize("block", [Layout((4, 2), (1, 4)), Layout((3, 2), (2, 1)), Layout(((2, 2), 3), ((1, 6), 2))],
                         ids=str)
@pytest.mark.parametrize("tiler", [(2, 3), (Layout(2, 1), Layout(3, 2)), (Layout(2, 2),), (None, 2)],
                         ids=str)
def test_a_tuple_tiler_blocks_and_rakes_each_mode_as_that_modes_own_product(block: Layout, tiler: tuple) -> None:
    """Mode i of blocked_product(A, (B_0, B_1)) is blocked_product of the whole mode A_i (as a rank-1 layout) by B_i
    through the layout-tiler path (a missing or None tiler mode repeats once), and it is refused exactly when one
    of those is; raked_product puts each mode's repetitions first."""
    modes = [block[k] for k in range(len(block.shape))]
    wants = []
    for k, mode in enumerate(modes):
        mode_tiler = tiler[k] if k < len(tiler) else None
        if mode_tiler is None:
            wants.append(Layout((mode.shape, 1), (mode.stride, 0)))
            continue
        whole_mode = Layout((mode.shape,), (mode.stride,))  # rank 1: the layout path multiplies the mode whole
        try:
            wants.append(la.blocked_product(whole_mode, mode_tiler if isinstance(mode_tiler, Layout)
                                            else Layout(mode_tiler, 1))[0])
        except la.CompositionError:
            with pytest.raises(la.CompositionError):
                la.blocked_product(block, tiler)
            return
    blocked, raked = la.blocked_product(block, tiler), la.raked_product(block, tiler)
    for k, want in enumerate(wants):
        got = blocked[k]
        assert [got(i) for i in range(got.size())] == [want(i) for i in range(want.size())], (k, got, want)
        rep = raked[k]
        assert rep.size() == got.size()
        assert sorted(rep(i) for i in range(rep.size())) == sorted(got(i) for i in range(got.size()))


def test_a_tuple_tiler_with_more_modes_than_the_block_is_refused_naming_both() -> None:
    with pytest.raises(ShapeError, match=r"the tiler \(2, 2, 2\) has 3 modes, more than the rank-2 block"):
        la.blocked_product(Layout((4, 2), (1, 4)), (2, 2, 2))


@pytest.mark.parametrize(("block", "tiler"), [
    ("(2,2):(1,1)", "1:0"),  # A not injective: no complement exists, and none is needed
    ("(4,3):(5,6)", "1:1"),  # no complement covers A's gaps
    ("(4,3):(5,6)", "4:0"),
    ("(2,2):(1,1)", "(2,3):(0,0)"),
])
def test_a_tiler_whose_image_is_zero_needs_no_complement(block: str, tiler: str) -> None:
    # Any complement C has C(0) == 0, so C o B is B's shape at stride 0 whichever C: (A, B's shape:0).
    a, b = la.parse(block), la.parse(tiler)
    product = logical_product(a, b)
    assert [product(i) for i in range(product.size())] == [a(i % a.size()) for i in range(a.size() * b.size())]
    for name in ("blocked_product", "raked_product", "zipped_product"):
        other = getattr(la, name)(a, b)
        assert sorted(other(i) for i in range(other.size())) == sorted(product(i) for i in range(product.size()))

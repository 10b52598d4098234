"""Bad input above the algebra (issue 13): basis strides, int-tuple helpers, tensors, the prover's results, the
bank model's arrays and the kernel tracer's launch.  Each case raises the LayoutError family naming the
argument, before any large work; numpy integers are integers everywhere; a hostile ``__repr__`` or a
4,300-digit integer inside a bad argument never turns the error into something else."""

from __future__ import annotations

import time

import numpy as np
import pytest

import layoutalg as la
import layoutalg.banks as banks
import layoutalg.prove as prove
from layoutalg import ComposedLayout, Layout, LayoutError, ShapeError, Swizzle
from layoutalg.errors import InstructionError, KernelError, ProofError
from layoutalg.kernel.interp.geometry import MAX_WHOLE_GRID_THREADS, all_ctas, dim3
from layoutalg.kernel.ptx.operands import parse_int

HUGE = 10**5000


class RaisingRepr:
    def __repr__(self) -> str:
        raise RuntimeError("__repr__ exploded")


def test_numpy_integers_are_integers_in_basis_strides() -> None:
    n = np.int64
    assert la.StrideLayout((n(4), n(2)), (la.E(0), la.E(n(1))))((n(3), n(1))) == la.ArithTuple((3, 1))
    assert la.StrideLayout(4, [n(1), 2])(n(3)) == la.ArithTuple((3, 6))
    assert la.E(n(1)) == la.E(1)
    assert la.ScaledBasis(n(2), n(1)) == la.ScaledBasis(2, (1,))
    assert la.ArithTuple((n(2), np.int32(1))) == la.ArithTuple((2, 1))
    assert la.F2(np.uint8(5)) == la.F2(5)
    assert la.coshape(la.StrideLayout((4,), (2,))) == 7  # int strides only: a plain layout's cosize


def test_basis_strides_refuse_huge_values_deep_paths_and_arrays() -> None:
    with pytest.raises(LayoutError, match="4096 bits"):
        la.StrideLayout((4,), (HUGE,))
    with pytest.raises(LayoutError, match="4096 bits"):
        la.ArithTuple((1, HUGE))
    with pytest.raises(ShapeError, match="mode indices"):
        la.ScaledBasis(1, (10**9,))  # a basis vector of a billion zeros would be built
    with pytest.raises(ShapeError, match="not congruent"):
        la.StrideLayout((4,), np.array([1]))


def test_int_tuple_helpers_check_their_callables_and_congruence() -> None:
    assert la.transform_leaf(lambda a, b: a + b, (1, (2, 3)), (10, (20, 30))) == (11, (22, 33))
    assert la.transform_apply_leaf(sum, lambda a: a * 2, (1, (2, 3))) == 12
    with pytest.raises(ShapeError, match="at least one tuple"):
        la.transform_leaf(abs)
    with pytest.raises(ShapeError, match="must be callable"):
        la.transform_leaf(3, (1, 2))
    with pytest.raises(ShapeError, match="cannot take 2"):
        la.transform_leaf(Swizzle(1, 0, 1), (1,), (2,))
    with pytest.raises(ShapeError, match="not congruent"):
        la.transform_apply_leaf(sum, lambda a, b: a, (1, 2, 3), (1, 2))  # zip would silently drop the 3
    with pytest.raises(LayoutError, match="take: begin"):
        la.take((1, 2, 3), (), 2)
    with pytest.raises(ShapeError, match="coshape takes"):
        la.coshape(Swizzle(1, 0, 1))


def test_tensors_refuse_non_layouts_and_unknown_dtypes() -> None:
    with pytest.raises(ShapeError, match="not a numpy dtype"):
        la.make_tensor(Layout(4), ComposedLayout(Swizzle(1, 0, 1), 0, Layout(2)))
    with pytest.raises(ShapeError, match="not a numpy dtype"):
        la.make_fragment_like(Layout((2, 2)), "(4,8):(1,4)")
    with pytest.raises(ShapeError, match="make_fragment_like takes"):
        la.make_fragment_like(Swizzle(1, 0, 1))


def test_prover_results_and_names_are_checked() -> None:
    with pytest.raises(ProofError, match="combine takes ProofResults"):
        prove.combine((None,))
    with pytest.raises(ProofError, match="iterable of ProofResults"):
        prove.combine(0)
    with pytest.raises(ProofError, match="status must be one of"):
        prove.ProofResult("maybe", None, 0.0, "x", "claim")
    with pytest.raises(ProofError, match="names must be two strings"):
        prove.disjoint(Layout(4), Layout(4, 4), names=np.int64(3))
    with pytest.raises(ProofError, match="names must be two strings"):
        prove.equivalent(Layout(4), Layout(4), names=("lhs",))


def test_a_hostile_repr_inside_a_bad_argument_still_gives_a_layout_error() -> None:
    with pytest.raises(ProofError):
        prove.in_bounds(Layout(4), (RaisingRepr(),))
    with pytest.raises(ProofError):
        prove.forall(RaisingRepr(), {"i": 4})


def test_bank_entry_points_refuse_non_layouts_and_ragged_lane_arrays() -> None:
    with pytest.raises(LayoutError, match="smem_layout must be"):
        banks.analyze(0, "ldmatrix.x4", "f16")
    with pytest.raises(LayoutError, match="smem_layout must be"):
        prove.conflict_free(Swizzle(1, 2, 3), "ldmatrix.x4", "f16")
    with pytest.raises(InstructionError, match="not an array of lane values"):
        banks.wavefronts_many("ld.shared.b32", [[0] * 32, [0] * 31])
    with pytest.raises(LayoutError, match="not an array"):
        banks.Access("ld.shared.b32", [[0] * 32, [1]])
    with pytest.raises(LayoutError, match="must be strings"):
        la.atoms.ldmatrix_b8({}, 1, "b8")  # type: ignore[arg-type]


def test_kernel_launches_past_cuda_limits_or_the_whole_grid_bound_are_refused_at_once() -> None:
    assert dim3((8, 2), "grid") == (8, 2, 1)
    assert dim3(np.int64(256), "block") == (256, 1, 1)
    for value, what, word in [(10**30, "grid", "2147483647"), ((1, 70000), "grid", "65535"),
                              ((1, 1, 65), "block", "64"), ((64, 32), "block", "1024"), (HUGE, "grid", "bits")]:
        with pytest.raises(KernelError, match=word):
            dim3(value, what)
    start = time.perf_counter()
    with pytest.raises(KernelError, match="whole-grid trace"):
        all_ctas(((1 << 31) - 1, 65535, 65535), (1024, 1, 1))  # would list 2^63 CTAs
    assert time.perf_counter() - start < 0.5
    assert len(all_ctas((MAX_WHOLE_GRID_THREADS // 256, 1, 1), (256, 1, 1))) == MAX_WHOLE_GRID_THREADS // 256


def test_integer_literals_past_128_digits_are_refused_in_every_base() -> None:
    assert parse_int("0x" + "0" * 300 + "ff") == 255  # leading zeros are not significant
    assert parse_int("-12U") == -12
    for text in ("9" * 5000, "0x" + "f" * 200, "0b" + "1" * 200, "0" + "7" * 200):
        with pytest.raises(KernelError, match="integer literal of"):
            parse_int(text)


def test_a_triton_basis_of_a_thousand_digits_is_refused_before_the_swizzle_search() -> None:
    """The swizzle search of ``from_f2`` tries O(n^3) swizzles over n output bits: a 1,200-digit basis entry
    (n = 3,987) ran for minutes; it is refused at once, while a 41-bit one still finds its swizzle."""
    from layoutalg.interop import from_string

    start = time.perf_counter()
    with pytest.raises(LayoutError, match="at most 64 output bits"):
        from_string("#ttg.linear<{register = [[" + "9" * 1200 + "]], " + _LANES + "}>")
    assert time.perf_counter() - start < 0.5
    found = from_string("#ttg.linear<{register = [[" + str(2**40 + 1) + "]], " + _LANES + "}>")
    # offset of (register r, lane l) as Triton reads it: r * (2**40 + 1) XOR l; our function takes (lane, register)
    assert [found((lane, r)) for lane in range(32) for r in range(2)] == [
        (r * (2**40 + 1)) ^ lane for lane in range(32) for r in range(2)]


_LANES = "lane = [[1], [2], [4], [8], [16]], warp = [], block = []"


def _cases_found_by_the_eighteenth_session_fuzzer() -> list[tuple[str, object]]:
    from layoutalg.atoms import catalog
    from layoutalg.atoms.gmma_desc import make_gmma_desc
    from layoutalg.swizzle.cpp import element_swizzle_base

    tile = la.parse("(64,64):(64,1)")
    ragged = [[0] * 32, [0] * 31]
    return [
        ("suggest_swizzle accesses None", lambda: banks.suggest_swizzle((64, 64), "f16", None)),
        ("wavefronts of a lane array of pairs", lambda: banks.wavefronts("ld.shared.b32", np.zeros((32, 2), int))),
        ("wavefronts_many ragged with active", lambda: banks.wavefronts_many("ld.shared.b32", ragged, None,
                                                                             [True] * 32)),
        ("element_swizzle_base None", lambda: element_swizzle_base(None, 16)),  # type: ignore[arg-type]
        ("prove method an array", lambda: prove.injective(tile, method=np.array([1, 2]))),
        ("prove cross_check an array", lambda: prove.injective(tile, cross_check=np.array([1, 2]))),
        ("mma satfinite an array", lambda: catalog.mma("m16n8k16", "f16", satfinite=np.array([1]))),
        ("gmma descriptor bits an array", lambda: make_gmma_desc(tile, "K", np.array([8, 16]))),
        ("gmma descriptor major an array", lambda: make_gmma_desc(tile, np.array(["K"]), 16)),
        ("ldmatrix_b8 num an array", lambda: catalog.ldmatrix_b8("m16n16", np.array([1, 2]))),
        ("triton in_dim_size unknown", lambda: la.to_triton(la.Layout((4, 4), (1, 4))).in_dim_size("nosuch")),
        ("triton linear text of 30000 bases", lambda: la.parse_triton(
            "#ttg.linear<{register = [" + ",".join(["[0, 1]"] * 30000) + "], lane = [], warp = [], block = []}>")),
        ("composition past 2**62", lambda: la.composition(la.Layout((4, 4), (2**64, 1)),
                                                         la.parse("Sw<3,3,3> o 0 o (8,64):(64,1)"))),
        ("trace kernel=True", lambda: _trace(kernel=True)),
        ("trace kernel a list", lambda: _trace(kernel=["transpose_tile"])),
        ("trace args=True", lambda: _trace(kernel="transpose_tile", args=True)),
        ("trace args an array", lambda: _trace(kernel="transpose_tile", args=np.array([1, 2]))),
        ("ParseError of None and 4 is still a ParseError", lambda: _raise(la.ParseError(None, 4))),  # type: ignore
    ]


def _trace(**kwargs: object) -> object:
    from pathlib import Path

    from layoutalg.kernel import trace

    ptx = Path(__file__).resolve().parents[2] / "examples" / "kernels" / "transpose.ptx"
    return trace(ptx, grid=(2, 2), block=(32, 8), **kwargs)  # type: ignore[arg-type]


def _raise(error: Exception) -> None:
    raise error


@pytest.mark.parametrize(("name", "call"), _cases_found_by_the_eighteenth_session_fuzzer(),
                         ids=[name for name, _ in _cases_found_by_the_eighteenth_session_fuzzer()])
def test_arrays_none_and_huge_values_where_a_choice_or_an_int_is_expected_are_layout_errors(name: str,
                                                                                          call: object) -> None:
    start = time.monotonic()
    with pytest.raises(LayoutError):
        call()  # type: ignore[operator]
    assert time.monotonic() - start < 20, name


def test_numpy_integers_still_work_where_those_checks_run() -> None:
    from layoutalg.swizzle.cpp import element_swizzle_base

    assert element_swizzle_base(np.int64(4), np.int64(16)) == element_swizzle_base(4, 16) == 3
    assert banks.wavefronts("ld.shared.b32", np.arange(0, 128, 4)) == banks.wavefronts("ld.shared.b32",
                                                                                       list(range(0, 128, 4)))
    # a swizzled A: composition still answers for a huge A whose offsets stay small on B's reach
    assert la.composition(la.Layout(2**40, 1), la.parse("Sw<3,3,3> o 0 o (8,64):(64,1)")) == \
        la.parse("Sw<3,3,3> o 0 o (8,64):(64,1)")


def test_the_prover_refuses_giant_shifts_and_array_terms_and_takes_a_giant_timeout_as_none() -> None:
    tile = la.parse("(8,4):(4,1)")
    with pytest.raises(ProofError, match="shift amounts are at most"):
        prove.forall(lambda i: (i << 2**33) >= 0, 8, timeout=2)
    with pytest.raises(ProofError, match="a term must be an int"):
        prove.in_bounds(tile, np.array([8, 4]))
    assert prove.equivalent(tile, tile, timeout=2**4000).status == "proved"
    with pytest.raises(ProofError, match="positive number of seconds"):
        prove.equivalent(tile, tile, timeout=-(2**4000))


def test_the_gf2_engine_sets_up_a_4000_bit_domain_in_linear_time() -> None:
    # its bit-packing constants were sums of 4000 shifted ints of 16 million bits each (41 s); now closed forms
    start = time.monotonic()
    assert prove.injective(Layout(2**4000, 1), method="f2").status == "proved"
    assert time.monotonic() - start < 20


def test_library_layouts_nesting_one_tuple_in_itself_are_refused_at_once() -> None:
    """A pycute layout whose shape pairs one tuple with itself 60 times (2**60 leaves) hung ``as_layout`` (it listed
    every stride leaf); the reader counts nodes before walking leaves, as every public function does."""
    import pycute

    shape: object = 1
    stride: object = 0
    for _ in range(60):
        shape, stride = (shape, shape), (stride, stride)
    start = time.perf_counter()
    with pytest.raises(la.LayoutError, match="MAX_NODES"):
        la.as_layout(pycute.Layout(shape, stride))
    assert time.perf_counter() - start < 5

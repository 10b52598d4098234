"""The data-flow mma check and layout recovery on the measured kernel corpus (tests/data/kernels).

Correct kernels are proved, every planted bug is refuted with the counterexample its bug implies,
the missing barrier is reported as a race naming both instructions, and every verdict agrees with
the GPU's numerical check recorded in measured.json.  The recovered shared-memory layouts of the
CuTe tutorial GEMM print as CuTe prints them and equal, as functions, the layouts its source builds
(rebuilt here with layoutalg's own algebra from the definitions in kernel.cu).
"""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

from layoutalg import Layout, Swizzle, append, composition
from layoutalg.atoms.smem import tile_to_shape
from layoutalg.kernel import check_mma, trace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "data", "kernels")
_CACHE: dict = {}


def _launch(name: str) -> dict:
    with open(os.path.join(CORPUS, name, "launch.json")) as fh:
        return json.load(fh)


def _measured(name: str) -> dict:
    with open(os.path.join(CORPUS, name, "measured.json")) as fh:
        return json.load(fh)


def check(name: str, ctas=None):
    key = (name, None if ctas is None else tuple(ctas))
    if key not in _CACHE:
        launch = _launch(name)
        ptx = os.path.normpath(os.path.join(CORPUS, name, launch["ptx"]))
        t = trace(ptx, kernel=launch["kernel"], grid=launch["grid"], block=launch["block"], args=launch["args"],
                  dynamic_smem=launch["dynamic_smem"], ctas=ctas)
        specs = dict(s.split("=", 1) for s in launch["mma_check"])
        _CACHE[key] = check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"])
    return _CACHE[key]


def _coords(text: str) -> tuple[int, int]:
    m = re.search(r"\((\d+), (\d+)\)", text)
    assert m, text
    return int(m.group(1)), int(m.group(2))


WHOLE = ["hw_mma_trans_padded", "hw_mma_trans_swizzled", "hw_mma_movmatrix_padded", "cute_gemm_cg_sw333",
         "triton_matmul_sm80", "cute_tutorial_hgemm_tn_256x128x64", "cute_tutorial_sgemm_nt_256x128x64"]
ONE_CTA = ["cute_tutorial_hgemm_tn_256x256x256", "cute_tutorial_sgemm_nt_256x256x128"]


@pytest.mark.parametrize("name", WHOLE)
def test_correct_kernels_are_proved_over_the_whole_launch_and_the_gpu_agreed(name):
    r = check(name)
    assert r.verdict == "proved", r.reason
    assert r.counterexample is None and "every CTA" in r.claim
    assert r.checker.c_checked == r.checker.M * r.checker.N  # every C element, all K products
    assert _measured(name)["verify"]["ok"] is True


@pytest.mark.parametrize("name", ONE_CTA)
def test_larger_tutorial_launches_are_proved_for_one_cta(name):
    r = check(name, ctas=[(1, 1)])
    assert r.verdict == "proved", r.reason
    assert "CTAs [(1, 1, 0)]" in r.claim
    assert r.checker.c_checked == 128 * 128  # the CTA's C tile, each element after all K products
    assert _measured(name)["verify"]["ok"] is True


def test_missing_trans_is_refuted_at_a_b_fragment_holding_the_transposed_element():
    r = check("hw_bug_missing_trans")
    assert r.verdict == "refuted"
    cex = r.counterexample
    assert cex["kind"] == "operand" and cex["operand"] == "B" and cex["opcode"].startswith("mma.sync")
    (k_held, n_held), (k_need, n_need) = _coords(cex["held"]), _coords(cex["expected"])
    assert (k_held % 8, n_held % 8) == (n_need % 8, k_need % 8) != (k_need % 8, n_need % 8)
    assert _measured("hw_bug_missing_trans")["verify"]["ok"] is False


def test_swizzle_on_write_only_is_refuted_at_an_a_element_from_the_wrong_16_byte_chunk():
    r = check("hw_bug_swizzle_write_only")
    assert r.verdict == "refuted"
    cex = r.counterexample
    assert cex["kind"] == "operand" and cex["operand"] == "A"
    (m_held, k_held), (m_need, k_need) = _coords(cex["held"]), _coords(cex["expected"])
    # Swizzle<2,3,3> on 32-half rows moves whole 8-half chunks within the row
    assert m_held == m_need and k_held != k_need and k_held % 8 == k_need % 8
    assert _measured("hw_bug_swizzle_write_only")["verify"]["ok"] is False


def test_swapped_row_addresses_are_refuted_at_an_a_element_of_the_other_row():
    r = check("hw_bug_swapped_rows")
    assert r.verdict == "refuted"
    cex = r.counterexample
    assert cex["kind"] == "operand" and cex["operand"] == "A"
    (m_held, k_held), (m_need, k_need) = _coords(cex["held"]), _coords(cex["expected"])
    assert {m_held % 16, m_need % 16} == {1, 2} and k_held == k_need
    assert cex["lane"] // 4 == m_need % 8  # groupID of the lane is the row it needs
    assert _measured("hw_bug_swapped_rows")["verify"]["ok"] is False


def test_epilogue_column_swap_is_refuted_at_a_c_element_holding_its_neighbours_accumulator():
    r = check("hw_bug_epilogue_colswap")
    assert r.verdict == "refuted"
    cex = r.counterexample
    assert cex["kind"] == "store" and cex["opcode"].startswith("st.global")
    m, n = cex["element"]
    m_held, n_held = _coords(cex["held"])
    assert n % 8 in (2, 3) and (m_held, n_held) == (m, n ^ 1)
    wrong = _measured("hw_bug_epilogue_colswap")["verify"]
    assert wrong["ok"] is False and [m, n] in [w["coord"] for w in wrong["first_wrong"]]


def test_missing_barrier_is_refuted_as_a_race_naming_the_store_and_the_ldmatrix():
    r = check("hw_bug_missing_barsync")
    assert r.verdict == "refuted"
    cex = r.counterexample
    assert cex["kind"] == "race" and cex["race"].startswith("read after write")
    assert cex["first"]["opcode"].startswith("st.shared") and cex["second"]["opcode"].startswith("ldmatrix")
    assert cex["first"]["warp"] != cex["second"]["warp"]
    ptx = open(os.path.join(CORPUS, "hw_bug_missing_barsync", "kernel.ptx")).read().split("\n")
    assert ptx[cex["first"]["line"] - 1].strip().startswith("st.shared")
    assert ptx[cex["second"]["line"] - 1].strip().startswith("ldmatrix")
    # the same kernel with its barrier has no race
    assert not check("hw_mma_trans_padded").flow.races


def test_wgmma_kernel_is_unknown_naming_the_unfollowed_wgmma():
    r = check("triton_matmul_sm90")
    assert r.verdict == "unknown" and "wgmma.mma_async" in r.reason


def _functions_equal(a, b) -> bool:
    return a.size() == b.size() and np.array_equal(np.asarray(a.to_numpy()), np.asarray(b.to_numpy()))


@pytest.mark.parametrize("name", ["cute_tutorial_hgemm_tn_256x256x256", "cute_tutorial_hgemm_tn_256x128x64"])
def test_tutorial_smem_layouts_print_as_cute_and_equal_the_tiled_swizzle_atom(name):
    # kernel.cu: swizzle_atom = composition(Swizzle<3,3,3>{}, Layout<Shape<_8,Shape<_8,_8>>,
    #            Stride<_8,Stride<_1,_64>>>{}); sA = tile_to_shape(swizzle_atom, make_shape(bM, bK, bP))
    atom = composition(Swizzle(3, 3, 3), Layout((8, (8, 8)), (8, (1, 64))))
    cute_sa = tile_to_shape(atom, (128, 64, 3))
    r = check(name, ctas=[(0, 0)])
    layouts = [x for x in r.layouts() if x.matrix in ("A", "B")]
    kinds = {(x.matrix, x.opcode.split(".")[0]) for x in layouts}
    assert kinds == {("A", "ldmatrix"), ("B", "ldmatrix"), ("A", "cp"), ("B", "cp")}
    for x in layouts:
        got = x.as_layout()
        assert str(got).startswith("Sw<3,3,3> o _0 o ")
        stages = got.inner.shape[2]  # K = 64 fills fewer stages than the pipe has
        want = tile_to_shape(atom, (128, 64, stages)) if stages < 3 else cute_sa
        assert _functions_equal(got, want), (x.line, got, want)
    if name.endswith("256x256x256"):
        assert {str(x.as_layout()) for x in layouts} == {str(cute_sa)}


@pytest.mark.parametrize("name,cute_sa", [
    # kernel.cu (gemm_nt): sA = make_layout(make_shape(bM, bK, bP)) with bM = 128, bK = 8, bP = 3
    ("cute_tutorial_sgemm_nt_256x128x64", Layout((128, 8, 3))),
    # kernel.cu (gemm_tn): sA = tile_to_shape(sA_atom, (bM, bK, bP)), sA_atom = (bM, bK):(_1, bM + _1).  CuTe's
    # logical_product repeats the atom at complement(sA_atom, 1024 * 3) = 3:(129 * 8) (its complement steps past
    # the last mode, 8 x 129); layoutalg's exact complement refuses this non-compact atom, so the repeat is
    # appended as CuTe's algorithm defines it
    ("cute_tutorial_sgemm_tn_256x128x64", append(Layout((128, 8), (1, 129)), Layout(3, 129 * 8))),
])
def test_sgemm_tutorial_smem_layouts_print_and_act_as_the_sources_layouts(name, cute_sa):
    r = check(name) if name in WHOLE else check(name, ctas=[(0, 0)])
    layouts = r.layouts()
    assert {(x.matrix, x.direction) for x in layouts} == {("A", "read"), ("B", "read"), ("A", "write"),
                                                         ("B", "write")}
    for x in layouts:
        assert str(x.as_layout()) == str(cute_sa) and _functions_equal(x.as_layout(), cute_sa), x.describe()


@pytest.mark.parametrize("name,a,b,c", [
    # kernel.cu: A_PITCH = BK + 8 = 40, B_PITCH = C_PITCH = BN + 8 = 72 halves (B stored [k][n])
    ("hw_mma_trans_padded", Layout((64, 32), (40, 1)), Layout((64, 32), (1, 72)), Layout((64, 64), (72, 1))),
    # kernel.cu: 16-byte-chunk XOR swizzles: A Swizzle<2,3,3>, B and C Swizzle<3,3,3> on unpadded rows
    ("hw_mma_trans_swizzled", composition(Swizzle(2, 3, 3), Layout((64, 32), (32, 1))),
     composition(Swizzle(3, 3, 3), Layout((64, 32), (1, 64))),
     composition(Swizzle(3, 3, 3), Layout((64, 64), (64, 1)))),
])
def test_hand_written_kernels_smem_layouts_are_their_source_layouts(name, a, b, c):
    r = check(name)
    want = {"A": a, "B": b, "C": c}
    seen = set()
    for x in r.layouts():
        assert x.matrix in want, x.describe()
        assert _functions_equal(x.as_layout(), want[x.matrix]), x.describe()
        seen.add(x.matrix)
    assert seen == {"A", "B", "C"}


def test_a_recovered_layout_goes_to_prove_as_a_theorem_about_the_cute_layout():
    from layoutalg.prove import equivalent

    atom = composition(Swizzle(3, 3, 3), Layout((8, (8, 8)), (8, (1, 64))))
    r = check("cute_tutorial_hgemm_tn_256x256x256", ctas=[(0, 0)])
    ldsm = next(x for x in r.layouts() if x.opcode.startswith("ldmatrix") and x.matrix == "A")
    proof = equivalent(ldsm.as_layout(), tile_to_shape(atom, (128, 64, 3)))
    assert proof.status == "proved"
    wrong = equivalent(ldsm.as_layout(), tile_to_shape(composition(Swizzle(2, 3, 3), atom.inner), (128, 64, 3)))
    assert wrong.status == "refuted"


def test_an_epilogue_that_reads_c_for_beta_is_still_proved():
    # beta = 1.0 (half bits 15360): the tutorial's axpby loads C, scales it and adds alpha * acc
    launch = _launch("cute_tutorial_hgemm_tn_256x128x64")
    args = {**launch["args"], "17": "15360"}
    t = trace(os.path.join(CORPUS, "cute_tutorial_hgemm_tn_256x128x64", "kernel.ptx"), kernel=launch["kernel"],
              grid=launch["grid"], block=launch["block"], args=args, dynamic_smem=launch["dynamic_smem"],
              ctas=[(1, 0)])
    specs = dict(s.split("=", 1) for s in launch["mma_check"])
    r = check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"])
    assert r.verdict == "proved", r.reason

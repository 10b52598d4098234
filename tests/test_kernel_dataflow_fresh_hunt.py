"""check_mma on a second set of kernels it was not developed on (tests/data/kernels_fresh/hunt: hunt_gemm.cu built
by build_hunt.py for sm_80, Triton matmuls by triton/build_hunt_triton.py; PTX committed): 64 x 64 CTA tiles of 4
or 8 warps, 128-byte shared rows under Swizzle<3,4,3>, <2,4,3>, <3,5,3> (byte offsets) or padding, 3-stage
cp.async, plain ld.global/st.shared, A column-major through ldmatrix.x4.trans, tf32 through ldmatrix and through
ld.shared.b32, stmatrix.x4 and smem-staged epilogues, an s8 m16n8k32 (never proved: "unknown"), and 31 planted
bugs.  Each correct kernel is proved over the whole grid; each planted bug is refuted (or unknown), and the
counterexample is judged against what the bug implies through the PTX ISA fragment formulas of
tests/test_kernel_dataflow_fresh.py (g = lane / 4, t = lane % 4; tf32's m16n8k8 has a0 = (g, t), a2 = (g, t + 4),
b0 = (t, g), b1 = (t + 4, g))."""

from __future__ import annotations

import gzip
import json
import os
import re
from typing import Any

import pytest
from test_kernel_dataflow_fresh import acc_of, coord, mma_operands

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kernels_fresh", "hunt")
MANIFEST = json.load(open(os.path.join(HERE, "hunt.json")))
TRITON = json.load(open(os.path.join(HERE, "triton", "hunt_triton.json")))
_CACHE: dict[str, Any] = {}


def ptx_text(name: str, sub: str = "") -> str:
    with gzip.open(os.path.join(HERE, sub, name + ".ptx.gz"), "rt") as fh:
        return fh.read()


def run(name: str, text: str | None = None, triton: bool = False) -> Any:
    if name in _CACHE and text is None:
        return _CACHE[name]
    e = (TRITON if triton else MANIFEST)[name]
    ptx = text if text is not None else ptx_text(name, "triton" if triton else "")
    t = trace(parse_module(ptx), kernel=e.get("kernel", name), grid=e["grid"], block=e["block"],
              dynamic_smem=e.get("dynamic_smem", 0), args={int(k): v for k, v in e["args"].items()})
    specs = dict(s.split("=", 1) for s in e["check_mma"])
    r = check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"])
    if text is None:
        _CACHE[name] = r
    return r


def operand_cex(name: str) -> tuple[dict, tuple[int, int], tuple[int, int]]:
    """The counterexample names an mma line and the operand register of its element: (cex, held, expected)."""
    cex = run(name).counterexample
    line = ptx_text(name).split("\n")[cex["line"] - 1]
    assert "mma.sync" in line and cex["opcode"] in line
    ops = mma_operands(line.replace("{ ", "{").replace(" }", "}"))
    per_reg = 1 if ".tf32" in line else 2
    assert ops[cex["operand"]][cex["element"] // per_reg] == cex["register"]
    exp = coord(cex["expected"], cex["operand"])
    held = coord(cex["held"], cex["operand"]) if cex["held"][:2] in ("A(", "B(") else (-1, -1)
    return cex, held, exp


CORRECT = sorted(n for n, e in MANIFEST.items() if e["expect"]["verdict"] == "proved")
BUGGY = sorted(n for n, e in MANIFEST.items() if "bug" in e)


def test_the_hunt_set_has_seven_proved_kernels_one_unsupported_and_thirty_two_planted_bugs() -> None:
    assert len(CORRECT) == 7 and len(BUGGY) == 32
    assert {MANIFEST[n]["expect"]["verdict"] for n in BUGGY} == {"refuted", "unknown"}


@pytest.mark.parametrize("name", CORRECT)
def test_hunt_correct_kernel_is_proved_for_every_cta_and_c_element(name: str) -> None:
    r = run(name)
    assert r.verdict == "proved", r.reason
    assert "every CTA" in r.claim and r.checker.c_checked == r.checker.M * r.checker.N


@pytest.mark.parametrize("name", ["h6_s8_tn_sw333_cp3", "x24_s8_swz_write_only"])
def test_an_s8_mma_is_never_proved(name: str) -> None:
    r = run(name)
    assert r.verdict == "unknown" and "m16n8k32" in r.reason and "supports 16-bit" in r.reason


@pytest.mark.parametrize("name", [n for n in BUGGY if MANIFEST[n]["expect"]["verdict"] == "refuted"])
def test_hunt_planted_bug_is_refuted_with_the_counterexample_kind_it_implies(name: str) -> None:
    r = run(name)
    assert r.verdict == "refuted", r.reason
    assert r.counterexample["kind"] == MANIFEST[name]["expect"]["kind"], r.reason


def _chunk_xor(c: int, row_bits: int, per_row: int, chunk: int) -> int:
    """Column ``c`` with its ``chunk``-element chunk index (within a row of ``per_row`` elements) XORed."""
    base, inner = c - c % per_row, c % per_row
    return base + ((inner // chunk) ^ row_bits) * chunk + inner % chunk


def test_swizzle_bugs_read_the_chunk_the_write_moved() -> None:
    # h1: A(r, c) written at chunk (c / 8) ^ (r % 8) of a 64-element row; read unswizzled: chunk j holds j ^ (r % 8)
    _, held, (r, c) = operand_cex("x01_swz_write_only")
    assert held == (r, _chunk_xor(c, r % 8, 64, 8)) and held != (r, c)
    # the reader XORs two bits of three: chunk c ^ (r & 3) holds c ^ (r & 3) ^ (r & 7) = c ^ (r & 4)
    _, held, (r, c) = operand_cex("x02_wrong_xor")
    assert held == (r, _chunk_xor(c, r & 4, 64, 8)) and r & 4
    _, held, (r, c) = operand_cex("x21_wrong_xor_tf32")  # tf32: 4-element chunks in 32-element rows
    assert held == (r, _chunk_xor(c, r & 4, 32, 4)) and r & 4


def test_one_ldmatrix_matrix_from_the_wrong_k_block_holds_k_minus_its_width() -> None:
    for name, width in (("x04_ldsm_lane", 8), ("x22_ldsm_lane_tf32", 4)):
        cex, held, exp = operand_cex(name)
        assert cex["operand"] == "A" and exp[1] % (2 * width) >= width and held == (exp[0], exp[1] - width)


def test_missing_trans_on_an_n_major_b_holds_the_transposed_element_of_the_8x8_block() -> None:
    _, (hk, hn), (k, n) = operand_cex("x05_no_trans")
    assert (hk, hn) == (k - k % 8 + n % 8, n - n % 8 + k % 8) and (hk, hn) != (k, n)


def test_swapped_b_registers_hold_the_other_k_half() -> None:
    for name, half in (("x06_breg_swap", 8), ("x07_breg_swap_tf32", 4)):
        cex, held, exp = operand_cex(name)
        assert cex["operand"] == "B" and held == (exp[0] + half, exp[1]) and exp[0] % (2 * half) < half


def test_a_row_loaded_with_the_next_rows_stride_and_b_one_k_tile_ahead() -> None:
    cex, held, exp = operand_cex("x14_gstride_row")
    assert exp[0] == 37 and held == (38, exp[1]) and cex["lane"] // 4 == 37 % 8
    _, held, exp = operand_cex("x16_b_next_ktile")
    assert held == (exp[0] + 64, exp[1])


def test_a_register_never_loaded_is_untagged_where_b_of_the_second_n_tile_belongs() -> None:
    cex, _, (k, n) = operand_cex("x15_unloaded_reg")
    assert cex["held"].startswith("an untagged value") and k % 16 >= 8 and n % 16 >= 8


def test_a_misread_pitch_is_judged_against_the_tile_inside_the_matrix() -> None:
    # the padded tile (144-byte rows) read with 128-byte rows: every lane's origin differs; the tile judged is lane
    # 0's (once the smallest key's, A(-2, 24), outside the matrix, blaming lane 0's right element)
    cex, held, (r, c) = operand_cex("x03_pad_off")
    assert "outside" not in cex["expected"] and r >= 0 and c >= 0
    assert held != (r, c)


def test_permuted_c_operands_chain_the_neighbouring_accumulator() -> None:
    for name in ("x12_c_perm", "x13_c_perm_tf32"):
        cex = run(name).counterexample
        m, n, _ = acc_of(cex["held"])
        assert cex["operand"] == "C" and cex["element"] == 2
        assert cex["expected"].startswith(f"the accumulator of C({m}, {n - 1})")


@pytest.mark.parametrize("name,moved", [("x27_cvt_swap", lambda r, c: (r, c ^ 1)),
                                        ("x33_b_nt_swap", lambda r, c: (r, c ^ 8)),
                                        ("x34_b_nt_swap_f16", lambda r, c: (r, c ^ 8))])
def test_epilogue_and_n_tile_bugs_store_a_neighbouring_accumulator(name: str, moved: Any) -> None:
    cex = run(name).counterexample
    r, c = cex["element"]
    hm, hn, depth = acc_of(cex["held"])
    assert (hm, hn) == moved(r, c) and depth == run(name).checker.K


def test_an_epilogue_row_off_by_one_leaves_its_row_unwritten_and_a_reset_accumulator_is_short() -> None:
    cex = run("x19_epi_row").counterexample
    assert cex["held"] == "nothing (never written)" and cex["element"][0] % 16 == 6
    cex = run("x25_acc_reset").counterexample
    assert acc_of(cex["held"])[2] == 64 and tuple(cex["element"]) == acc_of(cex["held"])[:2]


@pytest.mark.parametrize("name,first,second", [
    ("x09_no_wait", "cp.async", "ldmatrix"), ("x23_no_wait_2stage", "cp.async", "ldmatrix"),
    ("x10_no_sync_cp", "cp.async", "ldmatrix"), ("x11_no_sync_ldst", "st.shared", "ldmatrix"),
    ("x17_epi_nosync", "st.shared", "ld.shared.v4"), ("x26_epi_presync", "ldmatrix", "st.shared"),
    ("x30_prefetch_early_3st", "ldmatrix", "cp.async"), ("x31_prefetch_early_2st", "ldmatrix", "cp.async"),
    ("x32_no_trail_ldst", "ldmatrix", "st.shared")])
def test_a_missing_wait_or_barrier_names_both_instructions_of_the_race(name: str, first: str, second: str) -> None:
    cex = run(name).counterexample
    lines = ptx_text(name).split("\n")
    for side, op in (("first", first), ("second", second)):
        assert cex[side]["opcode"].startswith(op) and op in lines[cex[side]["line"] - 1]
    assert cex["first"]["warp"] != cex["second"]["warp"] or "not yet waited" in cex["race"]


@pytest.mark.parametrize("name", sorted(TRITON))
def test_hunt_triton_matmul_is_proved(name: str) -> None:
    # A stored K x M, transposed in the kernel; f16 accumulators; sm_90 with 2 warps (mma.sync: no wgmma)
    r = run(name, triton=True)
    assert r.verdict == "proved", r.reason
    assert r.checker.c_checked == r.checker.M * r.checker.N and not TRITON[name]["has_wgmma"]


def _mutated(name: str, find: str, old: str, new: str, nth: int = 0) -> str:
    lines = ptx_text(name, "triton").split("\n")
    at = [i for i, ln in enumerate(lines) if re.search(find, ln)][nth]
    assert old in lines[at]
    lines[at] = lines[at].replace(old, new)
    return "\n".join(lines)


@pytest.mark.parametrize("name,find,old,new,kind", [
    ("tt1_f16_bmm_at_sm80", r"ldmatrix.*trans", ".trans", "", "operand"),
    ("tt1_f16_bmm_at_sm80", r"^\s*bar\.sync", "bar.sync", "bar.warp.sync -1; //", "race"),
    ("tt3_bf16_bmm_at_sm90_2warps", r"ldmatrix.*trans", ".trans", "", "operand"),
    ("tt2_f16_bmm_at_f16acc_sm80", r"mma\.sync", "{ %r74, %r75 };", "{ %r75, %r74 };", "accumulator")])
def test_hunt_triton_mutants_are_refuted(name: str, find: str, old: str, new: str, kind: str) -> None:
    r = run(name, _mutated(name, find, old, new, nth=-1 if kind == "race" else 0), triton=True)
    assert r.verdict == "refuted" and r.counterexample["kind"] == kind, r.reason

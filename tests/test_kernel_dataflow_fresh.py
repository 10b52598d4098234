"""check_mma on kernels it was not developed on (tests/data/kernels_fresh: fresh_gemm.cu built by build.py,
the PTX committed): ldmatrix .x1/.x2/.x4 with other lane -> row formulas, m16n8k8 and bf16 mma, plain
ld.shared fragment loads, 16-bit loads packed by mov/prmt/shl+or, K-major and N-major B, padded and
Swizzle<2,3,2> tiles, a 2-stage cp.async pipeline, zero-filled partial tiles, stmatrix.trans into a
column-major C, C = A B + C, 8-warp CTAs, smem-staged and direct epilogues, and 32 planted bugs.

Each correct kernel is proved over the whole grid; each planted bug is refuted, and its counterexample is
judged against what the bug implies, with the PTX ISA fragment formulas written out here (not read from
layoutalg): the line holds the right instruction, the register is the operand register of the element,
the expected element sits at the lane's fragment position of an aligned tile, and the held element is the
one the bug puts there.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess

import pytest

from layoutalg.kernel import check_mma, trace

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kernels_fresh")
MANIFEST = json.load(open(os.path.join(HERE, "manifest.json")))
_CACHE: dict = {}


def ptx_text(name: str, sub: str = "") -> str:
    with gzip.open(os.path.join(HERE, sub, name + ".ptx.gz"), "rt") as fh:
        return fh.read()


def ptx_lines(name: str) -> list[str]:
    return ptx_text(name).split("\n")


def run(name: str):
    from layoutalg.kernel.ptx import parse_module

    if name not in _CACHE:
        e = MANIFEST[name]
        t = trace(parse_module(ptx_text(name)), kernel=name, grid=e["grid"], block=e["block"],
                  args={int(k): v for k, v in e["args"].items()})
        specs = dict(s.split("=", 1) for s in e["check_mma"])
        _CACHE[name] = check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"])
    return _CACHE[name]


def coord(text: str, role: str) -> tuple[int, int]:
    m = re.match(rf"{role}\((\d+), (\d+)\)", text)
    assert m, (role, text)
    return int(m.group(1)), int(m.group(2))


def acc_of(text: str) -> tuple[int, int, int]:
    m = re.match(r"the accumulator of C\((\d+), (\d+)\)(?: after (\d+) k-products)?", text)
    assert m, text
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or -1)


# PTX ISA "Matrix Fragments for mma.m16n8k16 / mma.m16n8k8" (16-bit A and B, 32-bit C), g = lane / 4, t = lane % 4
def frag(operand: str, k: int, lane: int, i: int) -> tuple[int, int]:
    g, t = lane >> 2, lane & 3
    if operand == "A":
        return (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)) if k == 16 else (g + 8 * (i >> 1), 2 * t + (i & 1))
    if operand == "B":
        return (2 * t + (i & 1) + 8 * (i >> 1), g)
    return (g + 8 * (i >> 1), 2 * t + (i & 1))


def mma_operands(line: str) -> dict[str, list[str]]:
    groups = [g.split(", ") for g in re.findall(r"\{([^}]*)\}", line)]
    return dict(zip("DABC", groups))


def check_operand_cex(name: str, cex: dict) -> tuple[tuple[int, int], tuple[int, int]]:
    """The counterexample names an mma line, an operand register holding the element, and an expected element
    at the lane's fragment position of an aligned tile; returns (held, expected) coordinates."""
    line = ptx_lines(name)[cex["line"] - 1]
    assert "mma.sync" in line and cex["opcode"] in line
    k = 16 if "m16n8k16" in line else 8
    role, e = cex["operand"], cex["element"]
    assert mma_operands(line)[role][e // 2] == cex["register"]
    assert 0 <= cex["warp"] < 8 and 0 <= cex["lane"] < 32
    exp = coord(cex["expected"], role)
    fr, fc = frag(role, k, cex["lane"], e)
    tile = (16, k) if role == "A" else (k, 8)
    assert (exp[0] - fr) % tile[0] == 0 and (exp[1] - fc) % tile[1] == 0, (exp, fr, fc)
    return coord(cex["held"], role), exp


def check_store_cex(name: str, cex: dict) -> None:
    line = ptx_lines(name)[cex["line"] - 1]
    assert line.strip().startswith("st.global") and cex["opcode"] in line
    assert re.search(re.escape(cex["register"]) + r"\b", line)
    assert 0 <= cex["warp"] < 8 and 0 <= cex["lane"] < 32


CORRECT = sorted(n for n, e in MANIFEST.items() if e["expect"]["verdict"] == "proved")
BUGGY = sorted(n for n, e in MANIFEST.items() if e["expect"]["verdict"] == "refuted")


def test_the_fresh_set_covers_thirty_planted_bugs_and_fourteen_correct_kernels():
    assert len(CORRECT) >= 14 and len(BUGGY) >= 32


@pytest.mark.parametrize("name", CORRECT)
def test_fresh_correct_kernel_is_proved_for_every_cta_and_c_element(name):
    r = run(name)
    assert r.verdict == "proved", r.reason
    assert "every CTA" in r.claim and r.checker.c_checked == r.checker.M * r.checker.N


@pytest.mark.parametrize("name", BUGGY)
def test_fresh_planted_bug_is_refuted_with_the_counterexample_kind_it_implies(name):
    r = run(name)
    assert r.verdict == "refuted", r.reason
    assert r.counterexample["kind"] == MANIFEST[name]["expect"]["kind"], r.reason


def test_missing_trans_holds_the_transposed_element_of_the_8x8_block():
    for name in ("b_missing_trans_x2", "b_missing_trans_x1"):
        held, exp = check_operand_cex(name, run(name).counterexample)
        assert held == (exp[0] - exp[0] % 8 + exp[1] % 8, exp[1] - exp[1] % 8 + exp[0] % 8) and held != exp


def test_swizzle_on_write_only_reads_the_chunk_the_xor_moved():
    for name in ("b_swizzle_write_only", "b_swizzle_write_only_k8"):
        held, (r, c) = check_operand_cex(name, run(name).counterexample)
        assert held == (r, (((c % 32) >> 3) ^ (r & 3)) * 8 + c % 8 + c - c % 32) and held != (r, c)


@pytest.mark.parametrize("name", ["b_swapped_rows", "b_8warps_swapped_rows"])
def test_swapped_ldmatrix_row_addresses_put_row_4_k8_where_row_3_k0_belongs(name):
    cex = run(name).counterexample
    held, exp = check_operand_cex(name, cex)
    assert exp[0] % 16 == 3 and exp[1] % 16 < 8 and held == (exp[0] + 1, exp[1] + 8)
    assert cex["lane"] // 4 == 3  # the lanes that hold fragment row 3


def test_unpermuted_ldmatrix_x4_registers_exchange_a1_and_a2():
    held, exp = check_operand_cex("b_a_register_order", run("b_a_register_order").counterexample)
    e = run("b_a_register_order").counterexample["element"]
    assert e // 2 in (1, 2)
    # register 1 (a2, a3: rows 8-15, k 0-7) got rows 0-7, k 8-15, and register 2 the other way round
    assert held == ((exp[0] - 8, exp[1] + 8) if e // 2 == 1 else (exp[0] + 8, exp[1] - 8))


def test_k_off_by_one_and_prmt_swap_hold_the_neighbouring_k():
    held, exp = check_operand_cex("b_k_off_by_one", run("b_k_off_by_one").counterexample)
    assert held == (exp[0] + 1, exp[1]) and exp[0] % 2 == 1  # the upper half, loaded from k + 2
    cex = run("b_prmt_halves_swapped").counterexample
    held, exp = check_operand_cex("b_prmt_halves_swapped", cex)
    assert held == (exp[0] + 1 - 2 * (exp[0] % 2), exp[1]) and exp[0] % 16 == 0  # judged at A's k tile


def test_b_fill_one_k_tile_ahead_is_judged_against_the_a_fragments_k_tile():
    cex = run("b_b_ktile_ahead").counterexample
    held, exp = check_operand_cex("b_b_ktile_ahead", cex)
    assert held == (exp[0] + 32, exp[1]) and "k = 0" in cex["expected"]


def test_a_and_b_pointers_swapped_is_an_a_operand_holding_b_elements():
    cex = run("b_ab_swapped").counterexample
    line = ptx_lines("b_ab_swapped")[cex["line"] - 1]
    assert "mma.sync" in line and cex["operand"] == "A" and cex["held"].startswith("B(")
    assert cex["register"] == mma_operands(line)["A"][0]


def test_unguarded_k_tail_reads_past_the_end_of_a():
    cex = run("b_no_k_guard").counterexample
    line = ptx_lines("b_no_k_guard")[cex["line"] - 1]
    assert "mma.sync" in line and "outside its layout" in cex["held"] and cex["expected"].startswith("0 (")


def test_epilogue_column_swap_names_the_store_lane_and_the_neighbouring_column():
    for name in ("b_epi_colswap", "b_epi_colswap_f16out", "b_8warps_epi_colswap"):
        cex = run(name).counterexample
        check_store_cex(name, cex)
        r, c = cex["element"]
        hm, hn, depth = acc_of(cex["held"])
        assert (hm, hn) == (r, c ^ 1) and c % 8 in (4, 5) and cex["lane"] % 4 == 2 and depth == run(name).checker.K


def test_epilogue_row_swap_puts_row_g_plus_8_in_row_g():
    for name in ("b_epi_rowswap_direct", "b_epi_rowswap_staged"):
        cex = run(name).counterexample
        check_store_cex(name, cex)
        r, c = cex["element"]
        hm, hn, _ = acc_of(cex["held"])
        assert hn == c and {r % 16, hm % 16} == {5, 13} and abs(hm - r) == 8
    assert run("b_epi_rowswap_direct").counterexample["lane"] // 4 == 5  # the direct store is by the lane itself


def test_stmatrix_without_trans_stores_the_transposed_8x8_block():
    cex = run("b_stmatrix_no_trans").counterexample
    check_store_cex("b_stmatrix_no_trans", cex)
    r, c = cex["element"]
    hm, hn, _ = acc_of(cex["held"])
    assert (hm, hn) == (r - r % 8 + c % 8, c - c % 8 + r % 8) != (r, c)


def test_missing_or_zero_filled_k_products_show_in_the_final_depth():
    cex = run("b_ktile_skip").counterexample
    check_store_cex("b_ktile_skip", cex)
    assert acc_of(cex["held"])[2] == 96 and acc_of(cex["expected"])[2] == 128
    cex = run("b_guard_zero_fills_b_k").counterexample
    assert acc_of(cex["held"])[2] == 64 and acc_of(cex["expected"])[2] == 80
    cex = run("b_guard_zero_fills_a_rows").counterexample
    assert cex["element"][0] >= 32 and "untagged" in cex["held"]


def test_k_tile_accumulated_twice_names_a_product_of_k_tile_0():
    for name in ("b_ktile_twice_1stage", "b_ktile_twice_cpasync"):
        cex = run(name).counterexample
        assert "mma.sync" in ptx_lines(name)[cex["line"] - 1]
        assert cex["element"][2] < 32


def test_c_operand_listed_out_of_order_is_an_accumulator_of_the_neighbouring_column():
    for name in ("b_c_operand_swapped", "b_c_operand_swapped_k8"):
        cex = run(name).counterexample
        line = ptx_lines(name)[cex["line"] - 1]
        assert "mma.sync" in line and cex["register"] == mma_operands(line)["C"][cex["element"]]
        hm, hn, _ = acc_of(cex["held"])
        em, en, _ = acc_of(cex["expected"])
        assert (hm, hn) == (em, en ^ 1) and cex["element"] in (0, 1)


@pytest.mark.parametrize("name,first,second,kind", [
    ("b_no_barsync", "st.shared", "ld.shared", "read after write"),
    ("b_8warps_no_barsync", "st.shared", "ld.shared", "read after write"),
    ("b_8warps_no_wait_group", "cp.async", "ldmatrix", "read of a cp.async not yet waited for"),
    ("b_no_wait_group", "cp.async", "ldmatrix", "read of a cp.async not yet waited for"),
    ("b_no_trailing_sync", "ldmatrix", "cp.async", "write after read"),
    ("b_epi_nosync", "st.shared", "ld.shared", "read after write"),
])
def test_missing_synchronisation_is_the_first_race_with_both_instructions(name, first, second, kind):
    cex = run(name).counterexample
    lines = ptx_lines(name)
    assert cex["race"].startswith(kind)
    for side, op in (("first", first), ("second", second)):
        assert cex[side]["opcode"].startswith(op) and lines[cex[side]["line"] - 1].strip().startswith(op)
    if kind.startswith("read after"):
        assert cex["first"]["warp"] != cex["second"]["warp"]


def test_ldmatrix_lanes_whose_addresses_are_ignored_do_not_read_memory_in_flight():
    # c7: lanes 16-31 of the .x2 and 8-31 of the .x1.trans point into the stage cp.async is filling
    assert run("c7_f16_k8_ldsm_x2_x1trans_ignored_lanes_in_flight_cpasync2").verdict == "proved"


def test_operand_converted_from_f32_is_unknown_naming_the_conversion():
    r = run("u1_f16_a_converted_from_f32")
    assert r.verdict == "unknown" and "cvt" in r.reason


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="rebuilding from the .cu needs nvcc")
def test_committed_ptx_is_what_the_source_builds(tmp_path):
    name = "c1_f16_k16_ldsm_perm_trans_x2_sw232_cpasync2_v2f32"
    flags = [f"-D{k}={v}" for k, v in MANIFEST[name]["defines"].items()] + [f"-DKERNEL_NAME={name}"]
    out = tmp_path / "k.ptx"
    subprocess.run(["nvcc", "-ptx", "-lineinfo", "-arch=sm_90", "-std=c++17", *flags,
                    os.path.join(HERE, "fresh_gemm.cu"), "-o", str(out)], check=True)
    def body(text: str) -> list[str]:  # the kernel's code: debug sections hold the checkout's path
        lines = text.split("\n")
        start = next(i for i, ln in enumerate(lines) if ".entry" in ln)
        end = next(i for i in range(start, len(lines)) if lines[i] == "}")
        return [ln for ln in lines[start:end + 1] if not ln.lstrip().startswith(".loc")]

    assert body(out.read_text()) == body("\n".join(ptx_lines(name)))


def test_a_launch_of_64_ctas_traced_in_two_batches_is_proved():
    # flow interprets 32 CTAs of 128 threads per batch; the tag rules once wrapped the interpreter's cached
    # ops again in every batch, so batch 2 counted each product twice and refuted a correct kernel
    name = "c1_f16_k16_ldsm_perm_trans_x2_sw232_cpasync2_v2f32"
    from layoutalg.kernel.ptx import parse_module

    t = trace(parse_module(ptx_text(name)), grid=(8, 8), block=128, args={3: 256, 4: 256, 5: 32, 6: 32})
    r = check_mma(t, a="0@(256,32):(32,1)", b="1@(32,256):(256,1)", c="2@(256,256):(256,1)")
    assert r.verdict == "proved", r.reason
    assert r.checker.c_checked == 256 * 256


def test_check_mma_twice_and_a_plain_trace_after_it_answer_as_the_first_time():
    from layoutalg.kernel.ptx import parse_module

    name = "c6_bf16_k16_ldsm_kmajor_x4_sw232_cpasync2_v2f32"
    e = MANIFEST[name]
    module = parse_module("\n".join(ptx_lines(name)))
    kw = dict(kernel=name, grid=e["grid"], block=e["block"], args={int(k): v for k, v in e["args"].items()})
    t = trace(module, **kw)
    specs = dict(s.split("=", 1) for s in e["check_mma"])
    verdicts = [check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"]).verdict for _ in range(2)]
    assert verdicts == ["proved", "proved"]
    assert trace(module, **kw).counters == t.counters  # the data-flow rules did not leak into the plain trace


TRITON = json.load(open(os.path.join(HERE, "triton", "triton.json")))


def triton_check(name: str, text: str | None = None):
    e = TRITON[name]
    ptx = ptx_text(name, "triton") if text is None else text
    from layoutalg.kernel.ptx import parse_module

    t = trace(parse_module(ptx), kernel=e["kernel"], grid=e["grid"], block=e["block"], dynamic_smem=e["dynamic_smem"],
              args={int(k): v for k, v in e["args"].items()})
    specs = dict(s.split("=", 1) for s in e["check_mma"])
    return check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"])


@pytest.mark.parametrize("name", sorted(TRITON))
def test_fresh_triton_matmul_is_proved(name):
    # masked loads (other=0) and stores on M, N, K that are not multiples of the block, grouped program order,
    # a column-major B, bf16, and a tf32 dot (m16n8k8 on 32-bit elements moved by ldmatrix as 16-bit pairs)
    r = triton_check(name)
    assert r.verdict == "proved", r.reason
    assert "every CTA" in r.claim and r.checker.c_checked == r.checker.M * r.checker.N


def test_triton_mma_with_two_a_registers_exchanged_is_refuted_at_that_mma():
    name = "t1_f16_masked_grouped_sm80"
    lines = ptx_text(name, "triton").split("\n")
    at = next(i for i, ln in enumerate(lines) if "mma.sync" in ln)
    a = mma_operands(lines[at].replace("{ ", "{").replace(" }", "}"))["A"]
    lines[at] = lines[at].replace(", ".join(a), ", ".join([a[0], a[2], a[1], a[3]]))
    cex = triton_check(name, "\n".join(lines)).counterexample
    assert cex["kind"] == "operand" and cex["line"] == at + 1 and cex["operand"] == "A"
    assert cex["register"] in (a[1], a[2])


def test_c_plus_ab_starts_each_chain_from_the_same_elements_old_value():
    r = run("c12_f16_k16_c_plus_ab_cinit_cpasync2")
    assert r.verdict == "proved" and "C = A B + C" in r.claim
    cex = run("b_cinit_rows_swapped").counterexample  # lanes g == 2 start rows 2 and 10 from each other's old C
    held, (em, en, _) = coord(cex["held"], "C"), acc_of(cex["expected"])
    assert held == (em + 8 - 16 * ((em % 16) // 8), en) and em % 8 == 2 and cex["lane"] // 4 == 2


def test_a_c_element_surely_wrong_refutes_even_when_another_was_lost_track_of():
    # c2's staging store of c0 gets its address's bit 3 cleared: lanes t = 0, 1 (and 2, 3) write one place
    # (the model keeps no accumulator there: OPAQUE), and columns 2 and 6 of each 8 keep stale shared memory
    from layoutalg.kernel.ptx import parse_module

    name = "c2_bf16_k16_lds32_kmajor_padded_1stage_smemepi_lda136"
    e = MANIFEST[name]
    lines = ptx_lines(name)
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("st.shared.f32") and "+4]" not in ln)
    addr = lines[at].split("[")[1].split("]")[0]
    reg_at = next(i for i, ln in enumerate(lines) if ln.strip().startswith(".reg .b32"))
    lines.insert(reg_at + 1, "\t.reg .b32 \t%q<1>;")
    lines[at + 1] = lines[at + 1].replace(f"[{addr}]", "[%q0]")
    lines.insert(at + 1, f"\tand.b32 \t%q0, {addr}, -9;")
    t = trace(parse_module("\n".join(lines)), kernel=name, grid=e["grid"], block=e["block"],
              args={int(k): v for k, v in e["args"].items()})
    specs = dict(s.split("=", 1) for s in e["check_mma"])
    r = check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"])
    assert r.verdict == "refuted", r.reason
    assert r.counterexample["kind"] == "store" and r.counterexample["element"][1] % 8 in (2, 6)
    assert r.counterexample["held"].startswith(("A(", "B(", "an untagged", "nothing"))


@pytest.mark.parametrize("size,verdict", [(15, "unknown"), (14, "refuted"), (32, "unknown")])
def test_cp_async_src_size_that_cuts_an_element_or_exceeds_the_copy_is_never_proved(size, verdict):
    # c10 zero-fills with cp.async's src-size (16 or 0); 15 copies half of the last 2-byte element (the tag
    # cannot say what it holds), 14 zero-fills an element inside A, 32 is past the 16-byte copy (PTX: src-size
    # <= cp-size).  Once 15 and 32 were proved: a unit was ZERO only when it started past src-size.
    from layoutalg.kernel.ptx import parse_module

    name = "c10_f16_k16_kmajor_guarded_48x48x80_cpasync_zfill"
    e = MANIFEST[name]
    lines = ptx_lines(name)
    sizes = [i for i, ln in enumerate(lines) if re.match(r"\s*selp\.b32\s+%r\d+, 16, 0, %p\d+;", ln)]
    assert sizes
    for i in sizes:
        lines[i] = lines[i].replace(", 16, 0,", f", {size}, 0,")
    t = trace(parse_module("\n".join(lines)), kernel=name, grid=e["grid"], block=e["block"],
              args={int(k): v for k, v in e["args"].items()})
    specs = dict(s.split("=", 1) for s in e["check_mma"])
    r = check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"])
    assert r.verdict == verdict, r.reason
    if verdict == "unknown":
        assert "src-size" in r.reason


def test_mma_fed_a_constant_zero_a_fragment_everywhere_is_refuted():
    # every mma of c1 gets {0, 0, 0, 0} as A: no product is made, and C receives no accumulator
    from layoutalg.kernel.ptx import parse_module

    name = "c1_f16_k16_ldsm_perm_trans_x2_sw232_cpasync2_v2f32"
    e = MANIFEST[name]
    lines = ptx_lines(name)
    reg_at = next(i for i, ln in enumerate(lines) if ln.strip().startswith(".reg .b32"))
    lines.insert(reg_at + 1, "\t.reg .b32 \t%q<1>;")
    first = next(i for i, ln in enumerate(lines) if ln.strip().startswith(("mov.u32", "ld.param")))
    lines.insert(first, "\tmov.b32 \t%q0, 0;")
    for i, ln in enumerate(lines):
        if "mma.sync" in ln:
            lines[i] = ln.replace(re.findall(r"\{[^}]*\}", ln)[1], "{%q0, %q0, %q0, %q0}")
    t = trace(parse_module("\n".join(lines)), kernel=name, grid=e["grid"], block=e["block"],
              args={int(k): v for k, v in e["args"].items()})
    specs = dict(s.split("=", 1) for s in e["check_mma"])
    r = check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"])
    assert r.verdict == "refuted" and r.counterexample["kind"] == "store", r.reason

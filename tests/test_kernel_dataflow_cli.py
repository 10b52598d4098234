"""``layoutalg kernel ... --check-mma`` and the check's refusals: exit status 0 proved, 1 refuted, 3 unknown,
2 bad input (with the CLI's own option names in the hint), and the ``--json`` mma_check object."""

from __future__ import annotations

import json
import os

import pytest

from layoutalg.cli import main

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kernels")
HW_ARGS = ["--grid", "2,2,1", "--block", "128", "--arg", "0=buf", "--arg", "1=buf", "--arg", "2=buf", "--arg", "3=128",
           "--arg", "4=128", "--arg", "5=64"]
CHECK = ["--check-mma", "A=0@(128,64):(64,1)", "--check-mma", "B=1@(64,128):(128,1)",
         "--check-mma", "C=2@(128,128):(128,1)"]


def run(capsys, name: str, *extra: str) -> tuple[int, str, str]:
    code = main(["kernel", os.path.join(CORPUS, name, "kernel.ptx"), "--kernel", name, *HW_ARGS, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_proved_kernel_exits_0_and_json_carries_the_verdict_and_layouts(capsys):
    code, out, _ = run(capsys, "hw_mma_trans_padded", *CHECK, "--json")
    data = json.loads(out)
    assert code == 0 and data["mma_check"]["verdict"] == "proved"
    assert data["mma_check"]["counterexample"] is None and "counters" in data
    assert {x["matrix"] for x in data["mma_check"]["layouts"]} == {"A", "B", "C"}
    assert any(x["layout"] == "(64,32):(40,1)" for x in data["mma_check"]["layouts"])


def test_refuted_kernel_exits_1_and_names_line_warp_lane_register_and_elements(capsys):
    code, out, _ = run(capsys, "hw_bug_missing_trans", *CHECK, "--json")
    cex = json.loads(out)["mma_check"]["counterexample"]
    assert code == 1
    assert {"line", "warp", "lane", "register", "held", "expected"} <= set(cex)


def test_text_report_prints_the_verdict_and_the_recovered_layouts(capsys):
    code, out, _ = run(capsys, "hw_mma_trans_swizzled", *CHECK)
    assert code == 0
    assert "mma check: proved" in out and "Sw<2,3,3> o _0 o (64,32):(32,1)" in out and "SM75_U32x4_LDSM_N" in out


def test_wgmma_kernel_exits_3(capsys):
    code = main(["kernel", os.path.join(CORPUS, "triton_matmul_sm90", "kernel.ptx"), "--grid", "4", "--block", "128",
                 "--arg", "3=128", "--arg", "4=128", "--arg", "5=128", "--arg", "6=128", "--arg", "7=128",
                 "--arg", "8=128", "--dynamic-smem", "24576", "--json",
                 "--check-mma", "A=0@(128,128):(128,1)", "--check-mma", "B=1@(128,128):(128,1)",
                 "--check-mma", "C=2@(128,128):(128,1)"])
    out, _ = capsys.readouterr()
    assert code == 3 and json.loads(out)["mma_check"]["verdict"] == "unknown"


@pytest.mark.parametrize("check,needle", [
    (["--check-mma", "A=0@(128,64):(64,1)", "--check-mma", "B=1@(64,128):(128,1)"], "missing C"),
    (CHECK[:4] + ["--check-mma", "C=2"], "PARAM@LAYOUT"),
    (CHECK[:4] + ["--check-mma", "D=2@(128,128):(128,1)"], "A, B or C"),
    (CHECK[:4] + ["--check-mma", "C=3@(128,128):(128,1)"], "not a buffer"),
    (CHECK[:4] + ["--check-mma", "C=2@(128,64):(128,1)"], "C is 128 x 64"),
    (CHECK[:4] + ["--check-mma", "C=2@(128,128):(1,1)"], "two coordinates to one element"),
    (CHECK[:4] + ["--check-mma", "C=9@(128,128):(128,1)"], "out of range"),
    (CHECK[:4] + ["--check-mma", "C=2@(128,128:(128,1)"], "at column 9"),
])
def test_bad_check_mma_input_exits_2_with_a_hint(capsys, check, needle):
    code, _, err = run(capsys, "hw_mma_trans_padded", *check)
    assert code == 2 and needle in err and "hint:" in err and "--check-mma" in err


def test_exact_fragments_holds_a_shared_k_order_to_the_ptx_positions(capsys, tmp_path):
    # the synthetic m16n8k16 kernel with A's registers listed {a2, a3, a0, a1} and B's {b1, b0} in both mma: the
    # same order of k in A and B, so C = A B (exit 0), but not the PTX fragments (--exact-fragments: exit 1)
    import re

    from dataflow_synth import MmaCase, mma_kernel

    lines = mma_kernel(MmaCase()).split("\n")
    for i, ln in enumerate(lines):
        if "mma.sync" in ln:
            d, a, b, c = re.findall(r"\{([^}]*)\}", ln)
            ra, rb = a.split(", "), b.split(", ")
            lines[i] = ln.replace(a, ", ".join([ra[2], ra[3], ra[0], ra[1]])).replace(b, ", ".join([rb[1], rb[0]]))
    path = tmp_path / "perm.ptx"
    path.write_text("\n".join(lines))
    argv = ["kernel", str(path), "--block", "32", "--check-mma", "A=pA@(16,32):(32,1)", "--check-mma",
            "B=pB@(32,8):(8,1)", "--check-mma", "C=pC@(16,8):(8,1)", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr()[0])["mma_check"]["verdict"] == "proved"
    assert main(argv + ["--exact-fragments"]) == 1
    cex = json.loads(capsys.readouterr()[0])["mma_check"]["counterexample"]
    assert cex["kind"] == "operand" and cex["operand"] == "A"

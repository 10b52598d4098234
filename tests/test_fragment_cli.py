"""``layoutalg prove-fragment``: exit status 0 proved, 1 refuted, 3 unknown, 2 bad input with a hint in option names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SW = "Sw<3,3,3> o _0 o (64,64):(64,1)"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="120")
    return subprocess.run([sys.executable, "-m", "layoutalg", "prove-fragment", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)


def test_proved_exits_0_and_names_the_row_addresses() -> None:
    proc = cli("--copy", "ldmatrix.x4.trans", "--smem", SW, "--mma", "mma.m16n8k16.f16", "--operand", "B")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("proved: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 over " + SW)
    assert "k_tile in [0, 4), n_tile in [0, 4)" in proc.stdout
    assert "lanes 0-7 -> (0..7, 0); lanes 8-15 -> (8..15, 0); lanes 16-23 -> (0..7, 8)" in proc.stdout


def test_refuted_exits_1_with_the_first_wrong_element_in_json() -> None:
    proc = cli("--copy", "ldmatrix.x4", "--smem", SW, "--mma", "SM80_16x8x16_F32F16F16F32_TN", "--operand", "B", "--json")
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == "refuted"
    cex = out["counterexample"]
    # V[0][1] delivered where b1 = V[1][0] is needed (row-major 64-column tile, XOR of bits 7-9 into 4-6)
    assert (cex["lane"], cex["reg"], cex["half"], cex["row"], cex["col"]) == (0, 0, 1, 0, 1)
    assert (cex["expected_row"], cex["expected_col"], cex["element"], cex["byte_address"]) == (1, 0, 1, 2)
    assert cex["expected_element"] == 64 ^ ((64 >> 3) & 0b111000)
    assert len(out["addresses"][0]) == 32


def test_unknown_exits_3() -> None:
    """A padded 4096 x 2048 tile: 2^23 points (past enumeration), not GF(2)-linear, and z3 gets a millisecond."""
    proc = cli("--copy", "ldmatrix.x4", "--smem", "(4096,2048):(2056,1)", "--mma", "mma.m16n8k16.f16",
               "--operand", "A", "--timeout", "0.001")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stdout.startswith("unknown:")


@pytest.mark.parametrize("args, message, hint", [
    (["--copy", "ldmatrix.x5", "--smem", SW, "--mma", "mma.m16n8k16.f16", "--operand", "B"], "'x5'", "--copy takes"),
    (["--copy", "ldmatrix.x4", "--smem", SW, "--mma", "mma.m16n8k13.f16", "--operand", "B"], "m16n8k13", "--mma takes"),
    (["--copy", "ldmatrix.x4", "--smem", SW, "--mma", "mma.m16n8k16.f16", "--operand", "E"], "--operand", "--operand B"),
    (["--copy", "ldmatrix.x4", "--mma", "mma.m16n8k16.f16", "--operand", "A"], "--smem", "--smem 'Sw"),
    (["--copy", "ldmatrix.x4", "--smem", "(8,64:(64,1)", "--mma", "mma.m16n8k16.f16", "--operand", "A"], "--smem", "shape:stride"),
    (["--copy", "ldmatrix.x4", "--smem", "(8,64):(64,1)", "--mma", "mma.m16n8k16.f16", "--operand", "A"],
     "is 8 x 64", "--help"),
    (["--copy", "ldmatrix.x4.trans", "--smem", SW, "--mma", "mma.m16n8k8.tf32", "--operand", "A"],
     "split across two rows", "--help"),
    (["--copy", "movmatrix", "--smem", SW, "--mma", "mma.m16n8k16.f16", "--operand", "B"], "drop --smem", "--help"),
    (["--copy", "ldmatrix.x4", "--smem", SW, "--mma", "mma.m16n8k16.f16", "--operand", "A", "--timeout", "0"],
     "--timeout", "--timeout 30"),
])
def test_bad_input_exits_2_with_a_hint_in_option_names(args, message, hint) -> None:
    proc = cli(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "error:" in proc.stderr and message in proc.stderr
    assert "hint:" in proc.stderr and hint in proc.stderr.split("hint:")[1]
    assert not any(keyword in proc.stderr for keyword in ("smem=", "source=", "dtype=", "along=", "operand=")), proc.stderr


def test_bad_input_in_json_mode_is_json() -> None:
    proc = cli("--copy", "ldmatrix.x5", "--smem", SW, "--mma", "mma.m16n8k16.f16", "--operand", "B", "--json")
    assert proc.returncode == 2
    out = json.loads(proc.stdout)
    assert "x5" in out["error"] and "--copy" in out["hint"]

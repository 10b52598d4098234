"""The kernel tracer's front ends: CLI (text, --json, exit codes), pytest helpers, .cu compilation, Triton."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from layoutalg.cli import main
from layoutalg.kernel import trace
from layoutalg.kernel.counters import ALL_COUNTERS, LD_WAVEFRONTS
from layoutalg.pytest_plugin import assert_kernel_conflict_free, assert_kernel_wavefronts

DATA = Path(__file__).parent / "data" / "kernel_trace"
TRANSPOSE = str(DATA / "transpose.ptx")
FEATURES = str(DATA / "features.ptx")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json_has_the_issue_s_keys_and_every_counter(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "kernel", TRANSPOSE, "--kernel", "transpose_naive", "--grid", "2,2",
                           "--block", "32,8", "--arg", "2=64", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"kernel", "grid", "block", "counters", "instructions", "unmodelled", "data_dependent"} <= set(data)
    assert set(data["counters"]) == set(ALL_COUNTERS)
    assert data["counters"][LD_WAVEFRONTS] == 32 * 4 * 8 * 4
    assert data["grid"] == [2, 2, 1] and data["block"] == [32, 8, 1]
    load = next(i for i in data["instructions"] if i["kind"] == "ld")
    assert load["excess"] == load["wavefronts"] - load["ideal"] and load["source"].endswith("transpose.cu:14")


def test_cli_exits_3_when_something_is_data_dependent(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "kernel", FEATURES, "--kernel", "gather", "--block", "64")
    assert code == 3 and "data-dependent" in out


def test_cli_exits_3_when_something_is_unmodelled(capsys: pytest.CaptureFixture[str]) -> None:
    # with its SASS, the PTX's two 4-byte accesses that ptxas merged into one LDS.64 / STS.64 are unmodelled
    merge = str(DATA / "merge_pair.ptx")
    code, out, _ = run_cli(capsys, "kernel", merge, "--block", "32", "--sass", str(DATA / "merge_pair.sass"), "--json")
    assert code == 3 and len(json.loads(out)["unmodelled"]) == 4


@pytest.mark.parametrize("argv,needle", [
    (["--kernel", "transpose", "--block", "32,8"], "matches 2 kernels"),
    (["--kernel", "transpose_naive", "--block", "32,8"], "is not given"),
    (["--kernel", "transpose_naive", "--block", "0"], "positive integers"),
    (["--kernel", "transpose_naive", "--block", "32,8", "--arg", "nine=1"], "no kernel parameter"),
])
def test_cli_bad_input_exits_2_with_a_hint(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    code, _, err = run_cli(capsys, "kernel", TRANSPOSE, *argv)
    assert code == 2 and needle in err and "hint:" in err


def test_cli_ctas_traces_only_those(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "kernel", TRANSPOSE, "--kernel", "transpose_naive", "--grid", "4,4", "--block",
                           "32,8", "--arg", "2=128", "--ctas", "0,0;3,1", "--json")
    assert code == 0 and json.loads(out)["counters"][LD_WAVEFRONTS] == 2 * 8 * 4 * 32


def test_pytest_helpers_pass_and_fail_on_the_real_counts() -> None:
    assert_kernel_conflict_free(TRANSPOSE, kernel="transpose_padded", block=(32, 8), args={2: 32})
    with pytest.raises(AssertionError, match="not provably conflict-free"):
        assert_kernel_conflict_free(TRANSPOSE, kernel="transpose_naive", block=(32, 8), args={2: 32})
    assert_kernel_wavefronts(TRANSPOSE, {LD_WAVEFRONTS: 32 * 32}, kernel="transpose_naive", block=(32, 8),
                             args={2: 32})
    t = trace(TRANSPOSE, kernel="transpose_naive", block=(32, 8), args={2: 32})
    line = next(s.line for s in t.instructions if s.kind == "ld")
    with pytest.raises(AssertionError, match=f"PTX line {line}: expected 31, traced 1024"):
        assert_kernel_wavefronts(TRANSPOSE, {line: 31}, kernel="transpose_naive", block=(32, 8), args={2: 32})


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc on the PATH (the committed PTX covers CI)")
def test_a_cuda_file_is_compiled_with_nvcc_and_traced() -> None:
    t = trace(DATA / "transpose.cu", kernel="transpose_naive", grid=1, block=(32, 8), args={2: 32})
    assert t.counters[LD_WAVEFRONTS] == 32 * 32


def test_from_triton_takes_the_compiled_ptx() -> None:
    from layoutalg.kernel import from_triton

    class Compiled:
        asm = {"ptx": Path(TRANSPOSE).read_text()}

    t = trace(from_triton(Compiled()), kernel="transpose_padded", block=(32, 8), args={2: 32})
    assert t.counters[LD_WAVEFRONTS] == 32

"""Every CLI error path ends in ``error:`` plus a ``hint:`` that says what to type, in the CLI's own words.

The table below walks every subcommand's options with bad values (malformed, out of range, unknown, too large,
unsupported on an architecture, files that are missing or not what they should be).  For each: the exit status
is the documented one, the hint is present, is not the generic fallback the CLI prints for an untranslated
LayoutError (which would mean a path that gives no specific hint), names a CLI option or command form, and
uses none of the Python API's parameter names.  Runs in-process (``layoutalg.cli.main``), so it is fast.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path

import pytest

from layoutalg.cli import FALLBACK_HINT, main
from layoutalg.cli.common import EXIT_CODES, UsageError

ROOT = Path(__file__).resolve().parent.parent

PYTHON_NAMES = ("lane_byte_addresses", "global_byte_addresses", "smem_layout", "smem_shape", "global_layout",
                "max_swizzle_bits", "max_padding_bytes", "by=", "dtype=", "arch=", "pitch=", "timeout=", "shape=",
                "tile_access", "suggest_swizzle", "conflict_free", "step_budget", "dynamic_smem", "ctas=",
                "copy=", "mma=", "operand=", "Traceback")
CLI_WORDS = re.compile(r"(?<![\w-])-[a-zA-Z]\b|--[a-z]|layoutalg |LAYOUT|PATH|\bpip install|\bgroup its modes\b")

# (command line, expected exit status, a word the error or hint must contain)
BAD = [
    ("", 2, "COMMAND"),
    ("--bogus", 2, "--help"),
    ("shwo '(2,2):(1,2)'", 2, "did you mean show"),
    ("show", 2, "--tv"),
    ("show '(8,64:(64,1)'", 2, "shape:stride"),
    ("show ''", 2, "LAYOUT"),
    ("show 'Layout<Shape<_8,int>>'", 2, "dynamic"),
    ("show '#ttg.linear<{a = [[x]]}>'", 2, "not integers"),
    ("show '" + "(" * 100 + "1" + ")" * 100 + "'", 2, "nesting"),
    ("show '" + "9" * 5000 + "'", 2, "4096"),
    ("show '(4,8,2):(1,4,32)'", 2, "((4,8),2)"),
    ("show '(1048576,1048576):(1,1048576)'", 2, "--formula"),
    ("show '(8,8):(8,1)' --tile-to 0x8", 2, "MxN"),
    ("show '(4,8):(1@0,1@1)' --tile-to 8x16", 2, "int strides"),
    ("show '(4,8):(1@0,1@1)' --formula", 2, "--formula"),
    ("banks '(4,8):(1@0,1@1)' --dtype f16 --access ld.shared.b16", 2, "int strides"),
    ("banks '8:F3' --dtype f16 --access ldmatrix.x4", 2, "int strides"),
    ("convert '(4,8):(1@0,1@1)' --to cpp", 2, "--to cute"),
    ("convert '8:F3' --to dsl", 2, "--to cute"),
    ("show '(4,3):(1@-1,2)'", 2, "non-negative"),
    ("show '(8,8):(8,1)' --tile-to 9x8", 2, "multiple"),
    ("show '(64,64):(100000,1)' --tile-to 64x64", 2, "drop --tile-to"),
    ("show '(8,8):(8,1)' --tile-to " + "9" * 100, 2, "--tile-to"),
    ("show '(8,8):(8,1)' --png /nonexistent/x.png", 2, "writable"),
    ("show '(8,8):(8,1)' --svg /nonexistent/x.svg", 2, "writable"),
    ("show '(8,8):(8,1)' --jsn", 2, "did you mean --json"),
    ("show Layout_K_SW128_Atom", 2, "--dtype"),
    ("show Layout_K_SW129_Atom --dtype f16", 2, "Layout_K_SW128_Atom"),
    ("show Layout_K_SW128_Atom --dtype f61", 2, "f16"),
    ("show --tv SM80_16x8x16_F32F16F16F32_NT", 2, "layoutalg atoms"),
    ("show --tv SM80_16x8x16_F32F16F16F32_TN --operand src", 2, "--operand A or B or C"),
    ("show --tv SM80_16x8x16_F32F16F16F32_TN --tile 4x4", 2, "--tile"),
    ("show --tv '(32,4):(4,1)'", 2, "--tile"),
    ("show --tv '(32,4):(4,1)' --tile 16", 2, "MxN"),
    ("show --tv '(32,4):(4,1)' --tile 4x4", 2, "--tile"),
    ("show --tv '(32,4,2):(4,1,128)' --tile 16x16", 2, "rank 2"),
    ("show --tv '(1048576,1048576):(1,1048576)' --tile 16x16", 2, "--tv"),
    ("show --tv " + "A" * 300, 2, "ATOM"),
    ("banks '(64,64):(64,1)'", 2, "--dtype"),
    ("banks '(64,64):(64,1)' --dtype f16 --access ldmatrix", 2, "ldmatrix.x4"),
    ("banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x3", 2, "ldmatrix.x4"),
    ("banks '(64,64):(64,1)' --dtype f16 --access ''", 2, "--access"),
    ("banks '(64,64):(64,1)' --dtype f16 --access mma.sync", 2, "--access"),
    ("banks '(64,64):(64,1)' --dtype f16 --access ld.global.b32", 2, "--access"),
    ("banks '(64,64):(64,1)' --dtype f16 --access ld.shared.v8.b32", 2, "--access"),
    ("banks '(64,64):(64,1)' --dtype f16 --access cp.async", 2, "cp.async.cg"),
    ("banks '(64,64):(64,1)' --dtype f16 --access 'ld.shared" + " " * 20000 + "x'", 2, "--access"),
    ("banks '(64,64):(64,1)' --dtype half16 --access ldmatrix.x4", 2, "--dtype"),
    ("banks '(64,64):(64,1)' --dtype s4 --access ldmatrix.x4", 2, "--dtype u8"),
    ("banks '(60,64):(64,1)' --dtype f16 --access ldmatrix.x4", 2, "--tile-to"),
    ("banks '(30,64):(64,1)' --dtype f32 --access ld.shared.b32 --by column", 2, "--by column"),
    ("banks '(64,64):(64,1)' --dtype f16 --access ld.shared --by diagonal", 2, "--by row, --by column"),
    ("banks '(64,64,2):(64,1,4096)' --dtype f16 --access ld.shared", 2, "group"),
    ("banks '64:1' --dtype f32 --access ld.shared.b32", 2, "'(1,64):(0,1)' for one row"),  # was rank 2 vs 1 modes
    ("banks '(64,64):(-64,1)' --dtype f16 --access ldmatrix.x4", 2, "strides"),
    ("banks '(64,64):(100000,1)' --dtype f16 --access ldmatrix.x4", 2, "--arch"),
    ("banks '(64,64):(72,1)' --dtype f16 --access ld.shared.v4 --arch sm_80", 0, ""),
    # aligned, but each lane's 8 halves lie 3 apart: no 16-byte load moves them (it used to be costed as one)
    ("banks '(64,64):(64,3)' --dtype f16 --access ld.shared.v4 --arch sm_80", 2, "contiguous"),
    ("banks '(1048576,1048576):(1048576,1)' --dtype f16 --access ldmatrix.x4", 2, "2^40"),
    ("banks '(256,128):(128,1)' --dtype f32 --access ld.shared --arch sm_86", 2, "--arch sm_90"),
    ("banks '(256,256):(256,1)' --dtype f32 --access ld.shared --arch sm_86", 2, "at most 25344 elements"),
    ("banks '(64,64):(64,1)' --dtype f16 --access stmatrix.x4 --arch sm_80", 2, "--arch sm_90"),
    ("banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x4 --arch sm_75", 2, "--arch sm_80"),
    ("banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x4 --arch " + "9" * 40, 2, "--arch"),
    ("banks '(64,64):(64,1)' --dtype f16 --access cp.async.cg", 2, "--global-ld"),
    ("banks '(64,64):(64,1)' --dtype f16 --access cp.async.cg --global-ld 0", 2, "--global-ld 4096"),
    ("banks '(64,64):(64,1)' --dtype f16 --access cp.async.cg --global-ld x", 2, "--global-ld takes a whole number"),
    ("banks '(64,64):(64,1)' --dtype f16 --access cp.async.cg --global-ld 64 --png a.png", 2, "--png"),
    ("banks '(64,64):(64,1)' --dtype f16 --access ld.shared --global-ld 64", 2, "--global-ld"),
    ("banks '(64,64):(64,1)' --dtype f16 --access cp.async.ca.8 --global-ld 32", 2, "--global-ld 64"),
    # 68 halves = 136 bytes: global row 1 is not 16-byte aligned (it used to be blamed on LAYOUT)
    ("banks '(64,64):(64,1)' --dtype f16 --access cp.async.cg --global-ld 68", 2, "--global-ld 72"),
    ("banks '(64,64):(64,1)' --dtype f16 --access cp.async.ca.4 --global-ld 65", 2, "--global-ld 66"),
    ("banks Layout_K_SW128_Atom --dtype bf16 --tile-to 60x64 --access ldmatrix.x4", 2, "--tile-to"),
    ("suggest-swizzle --shape 64x64 --dtype f16", 2, "--access"),
    ("suggest-swizzle --shape 64 --dtype f16 --access ldmatrix.x4", 2, "MxN"),
    ("suggest-swizzle --shape 0x8 --dtype f16 --access ld.shared", 2, "MxN"),
    ("suggest-swizzle --shape 48x40 --dtype f16 --access ldmatrix.x4", 2, "--tile-to"),
    ("suggest-swizzle --shape 1048576x1048576 --dtype f16 --access ldmatrix.x4", 2, "2^40"),
    ("suggest-swizzle --shape 64x64 --dtype f16 --access cp.async.cg", 2, "--global-ld"),
    ("suggest-swizzle --shape 64x64 --dtype f16 --access CP.ASYNC.CG", 2, "--global-ld 4096"),
    ("suggest-swizzle --shape 64x64 --dtype f16 --access cp.async.cg --global-ld 68", 2, "--global-ld 72"),
    ("suggest-swizzle --shape 64x64 --dtype f16 --access cp.async.cg --global-ld 100000000000000000000", 2, "2^40"),
    ("suggest-swizzle --shape 64x64 --dtype f16 --access stmatrix.x4 --arch sm_80", 2, "--arch sm_90"),
    ("suggest-swizzle --shape 64x64 --dtype f16 --access ldmatrix.x4 --arch sm_1", 2, "--arch"),
    ("suggest-swizzle --shape 64x64 --dtype s4 --access ld.shared", 2, "--dtype"),
    ("suggest-swizzle --shape 60x64 --dtype f32 --access ld.shared --by column", 2, "--by column"),
    ("convert", 2, "layoutalg convert"),
    ("convert '(8,8):(8,1)' --to rust", 2, "choose one of"),
    ("convert '(3,8):(8,1)' --to triton --dtype f16", 2, "power-of-two"),
    ("convert '(8,8):(8,1)' --to triton", 2, "--dtype"),
    ("atoms --bogus", 2, "layoutalg atoms"),
    ("atoms a b", 2, "quote"),
    ("prove", 2, "layoutalg prove"),
    ("prove no/such/path", 2, "layoutalg prove proofs/"),
    ("prove proofs/ldmatrix_mma_a.py --timeout 0", 2, "--timeout"),
    ("prove proofs/ldmatrix_mma_a.py --timeout nan", 2, "inf for no limit"),
    ("prove proofs/ldmatrix_mma_a.py --timeout -1", 2, "--timeout"),
    ("prove proofs/ldmatrix_mma_a.py --timeout x", 2, "--timeout takes a number"),
    ("prove proofs/ldmatrix_mma_a.py -k no_such_theorem", 2, "-k"),
    ("prove tools", 2, "proofs"),
    ("prove README.md", 2, "PATHs"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256", 2, "--arg"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --arg 0=" + "9" * 5000, 2, "--arg"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --arg " + "9" * 5000 + "=1", 2, "--arg"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --arg 3=5", 2, "twice"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --grid " + "9" * 5000, 2, "--grid"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --grid 1000000000000000000000000000000", 2, "2147483647"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --grid 1,70000", 2, "65535"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --grid 100000,100", 2, "--ctas"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 2048 --arg 3=1024", 2, "1024"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --ctas '0;9'", 2, "--ctas"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --ctas '0;" + "9" * 5000 + "'", 2, "--ctas"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --step-budget 0", 2, "--step-budget"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --dynamic-smem -5", 2, "--dynamic-smem"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --dynamic-smem 100000000000000000000", 2, "--dynamic-smem"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --arch sm_99", 2, "--arch sm_90"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --sass /nonexistent/k.sass", 2, "--sass"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --sass tests", 2, "--sass"),
    ("kernel tests/data/kernels/gather_smem/kernel.ptx --kernel gather_smem --block 256 --arg 3=1024 --kernel nonexist", 2, "--kernel"),
    ("kernel /nonexistent/k.ptx --kernel k --block 32", 2, "FILE"),
    ("kernel tests --kernel k --block 32", 2, "FILE"),
    ("kernel " + "a" * 5000 + " --kernel k --block 32", 2, "FILE"),
    ("prove-fragment --copy ldmatrix.x4.trans --smem '(64,64):(64,1)' --mma mma.m16n8k16.f16 --operand Q", 2, "--operand"),
    ("prove-fragment --copy ldmatrix.x9 --smem '(64,64):(64,1)' --mma mma.m16n8k16.f16 --operand B", 2, "--copy"),
    ("prove-fragment --copy ldmatrix.x4 --smem '(64,64):(64,1)' --mma mma.m99 --operand B", 2, "--mma"),
    ("prove-fragment --copy ldmatrix.x4 --smem '(64,64' --mma mma.m16n8k16.f16 --operand A", 2, "--smem"),
    ("prove-fragment --copy ldmatrix.x4 --smem '(" + "9" * 5000 + "):1' --mma mma.m16n8k16.f16 --operand A", 2, "--smem"),
    ("prove-fragment --copy ldmatrix.x4 --smem '(64,64):(64,1)' --mma mma.m16n8k16.f16 --operand A --timeout nan", 2, "--timeout"),
    ("prove-fragment --copy ldmatrix.x4 --smem '(64,64):(64,1)' --mma mma.m16n8k16.f16 --operand A --timeout -1", 2, "--timeout"),
    ("prove-fragment --copy ldmatrix.x4 --smem '(4,4):(4,1)' --mma mma.m16n8k16.f16 --operand A", 2, "--smem"),
    ("gpu-check --bogus", 2, "layoutalg gpu-check"),
    ("gpu-check --replay /nonexistent/recording.json", 2, "--replay"),
    ("gpu-check --replay README.md", 2, "--replay"),
    ("gpu-check --replay layoutalg/data/h200_smem_wavefronts_calibration.json", 2, "--replay"),
]


def run(command: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(shlex.split(command))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the table names files relative to the repository


def hint_of(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip().startswith("hint:")]
    assert lines, f"no hint: line in {stderr!r}"
    return lines[-1][len("hint:"):].strip()


@pytest.mark.parametrize("command, status, word", BAD, ids=[c[:70] for c, _, _ in BAD])
def test_error_paths_say_what_to_type(command: str, status: int, word: str) -> None:
    code, _, err = run(command)
    assert code == status, err
    if status == 0:
        return
    assert status in EXIT_CODES
    assert "error: " in err, err
    hint = hint_of(err)
    assert hint != FALLBACK_HINT.format(command=shlex.split(command or "x")[0]), f"untranslated error: {err}"
    assert word in err, err
    assert CLI_WORDS.search(hint), f"the hint names no option or command: {hint!r}"
    for name in PYTHON_NAMES:
        assert name not in hint and name not in err, f"{name!r} (a Python name) in: {err}"


@pytest.mark.parametrize("command", ["banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x3",
                                     "show '(4,8,2):(1,4,32)'", "prove no/such/path", "--json"])
def test_errors_as_json_carry_the_hint(command: str) -> None:
    code, out, err = run(command + " --json")
    payload = json.loads(out)
    assert code == 2 and set(payload) == {"error", "type", "hint"} and payload["hint"] and not err


def test_bad_replay_files_exit_2_with_a_hint(tmp_path: Path) -> None:
    """Not JSON, JSON of the wrong shape, and a recording whose cases are malformed: never a traceback."""
    files = {"not_json.json": "{", "list.json": "[1, 2]",
             "cases.json": json.dumps({"format": "layoutalg-gpu-recording/1", "ldmatrix": [1, 2]}),
             "case_keys.json": json.dumps({"format": "layoutalg-gpu-recording/1", "ldmatrix": [{"x": 1}]})}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        code, _, err = run(f"gpu-check --replay {tmp_path / name}")
        assert code == 2 and "--replay" in hint_of(err) and "Traceback" not in err, (name, err)


def test_the_error_printer_requires_a_hint() -> None:
    with pytest.raises(TypeError):
        UsageError("bad input", "")
    with pytest.raises(TypeError):
        UsageError("bad input")  # type: ignore[call-arg]


def test_an_untranslated_layout_error_still_prints_error_and_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    """The safety net: a LayoutError no command translated is printed (exit 2) with a pointer to --help."""
    from layoutalg.cli import convert
    from layoutalg.errors import ShapeError

    def broken(args: object) -> int:
        raise ShapeError("raised below the CLI")

    monkeypatch.setattr(convert, "_cmd_atoms", broken)
    from layoutalg.cli import parser as parser_module

    monkeypatch.setattr(parser_module, "_cmd_atoms", broken)
    code, _, err = run("atoms")
    assert code == 2 and "raised below the CLI" in err and hint_of(err) == FALLBACK_HINT.format(command="atoms")


def test_a_recording_with_no_checkable_case_is_not_a_pass(tmp_path: Path) -> None:
    """Cases the model cannot read (lane addresses that are not 32 integers) are 'not checked'; a recording of
    nothing but those exits 3 with an error and a hint, never 0."""
    case = {"name": "bad", "instruction": "ld.shared.b32", "lane_byte_addresses": "abc", "wavefronts": 1}
    path = tmp_path / "recording.json"
    path.write_text(json.dumps({"format": "layoutalg-gpu-recording/1", "banks": [case]}))
    code, _, err = run(f"gpu-check --replay {path}")
    assert code == 3, err
    assert "none of the recording's 1 cases could be checked" in err and "--replay" in hint_of(err)
    code, out, _ = run(f"gpu-check --replay {path} --json")
    assert code == 3 and {"error", "hint"} <= set(json.loads(out))
    good = dict(case, lane_byte_addresses=[0] * 32)
    path.write_text(json.dumps({"format": "layoutalg-gpu-recording/1", "banks": [good, case]}))
    assert run(f"gpu-check --replay {path}")[0] == 0  # one case agrees: the rest are reported as not checked


def test_convert_to_pycute_without_pycute_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from layoutalg import interop

    def missing(layout: object) -> object:
        raise ImportError("No module named 'pycute'")

    monkeypatch.setattr(interop, "to_pycute", missing)
    status, _, err = run("convert '(8,8):(8,1)' --to pycute")
    assert status == 2 and "pip install nvidia-cutlass" in hint_of(err), err
    status, _, err = run("convert '(4,8):(1@0,1@1)' --to pycute")  # a coordinate layout: the reason is its kind
    assert status == 2 and "CuTe notation only" in hint_of(err), err

"""The CLI's contract with shells and CI: exit statuses are documented, global flags alone always exit, a closed
output pipe ends every command quietly, and --arch sets the shared-memory capacity and the instruction set."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from layoutalg.cli import main
from layoutalg.cli.common import EXIT_BROKEN_PIPE, EXIT_CODES

sys.path.insert(0, str(Path(__file__).resolve().parent / "adversarial"))
from timebox import within  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


# ----------------------------------------------------------------------------- exit statuses


def test_every_exit_status_is_documented_in_help_and_docs() -> None:
    """0, 1, 2, 3 and the rest: each appears with its meaning in ``layoutalg --help`` and in docs/cli.md."""
    assert {0, 1, 2, 3} <= set(EXIT_CODES)
    _, help_text, _ = run(["--help"])
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for code, meaning in EXIT_CODES.items():
        assert f"  {code:<3} {meaning}" in help_text, code
        assert f"| {code} |" in docs, f"docs/cli.md has no row for exit status {code}"


# ----------------------------------------------------------------------------- global flags alone

GLOBAL_FLAGS = ["--json", "--version", "--help", "-h"]
FLAG_LINES = [list(p) for k in range(0, 4) for p in itertools.permutations(GLOBAL_FLAGS, k)] + [
    ["--json", "--json"], ["--json", "--json", "--json"]]


@pytest.mark.parametrize("argv", FLAG_LINES, ids=[" ".join(a) or "(none)" for a in FLAG_LINES])
def test_global_flags_alone_exit(argv: list[str]) -> None:
    """``layoutalg --json`` used to loop forever; every line of global flags only answers within a CPU second."""
    (code, out, err), _ = within(1.0, lambda: run(argv))
    if "--help" in argv or "-h" in argv:
        assert code == 0 and "COMMAND" in out
    elif "--version" in argv:
        assert code == 0 and "0." in out
    else:
        assert code == 2
        if "--json" in argv:
            assert json.loads(out)["error"] == "no COMMAND given"
        else:
            assert "hint:" in err


# ----------------------------------------------------------------------------- closed pipes

RECORDING = {"format": "layoutalg-gpu-recording/1", "device": {"name": "test"},
             "banks": [{"name": "broadcast", "instruction": "ld.shared.b32", "lane_byte_addresses": [0] * 32,
                        "wavefronts": 1}]}
PIPED = [
    ["--help"], ["--version"], ["atoms"], ["convert", "(8,8):(8,1)"], ["show", "(256,256):(256,1)"],
    ["show", "(8,8):(8,1)", "--json"],
    ["banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "ldmatrix.x4", "--detail"],
    ["suggest-swizzle", "--shape", "64x64", "--dtype", "f16", "--access", "ldmatrix.x4"],
    ["prove", "proofs/ldmatrix_mma_a.py"], ["prove", "proofs/ldmatrix_mma_a.py", "--json"],
    ["gpu-check", "--replay", "RECORDING"],
]


@pytest.mark.parametrize("argv", PIPED, ids=[" ".join(a)[:50] for a in PIPED])
def test_a_closed_output_pipe_ends_every_command_quietly(argv: list[str], tmp_path: Path) -> None:
    """As ``layoutalg ... | head -1`` once the reader has gone: status 141, nothing on stderr (no traceback)."""
    recording = tmp_path / "recording.json"
    recording.write_text(json.dumps(RECORDING))
    argv = [str(recording) if a == "RECORDING" else a for a in argv]
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "layoutalg", *argv], stdout=write_end, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT, timeout=300)
    finally:
        os.close(write_end)
    assert proc.returncode == EXIT_BROKEN_PIPE and proc.stderr == "", proc.stderr


def test_prove_into_head_ends_quietly() -> None:
    """The issue's own command line."""
    proc = subprocess.run(["bash", "-c", f"{sys.executable} -m layoutalg prove proofs/ | head -1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0 and proc.stdout.startswith("theorem") and proc.stderr == "", proc.stderr


# ----------------------------------------------------------------------------- --arch


def test_arch_sets_capacity_and_instruction_set() -> None:
    """A 48 KiB f32 tile fits sm_90 (227 KiB per block) and sm_86 (99 KiB), a 128 KiB one only sm_90;
    stmatrix exists from sm_90 on, cp.async from sm_80 on (PTX ISA target notes)."""
    tile_48k = ["banks", "(96,128):(128,1)", "--dtype", "f32", "--access", "ld.shared.v4"]
    tile_128k = ["banks", "(256,128):(128,1)", "--dtype", "f32", "--access", "ld.shared.v4"]
    assert run(tile_48k + ["--arch", "sm_86"])[0] == 0
    assert run(tile_128k + ["--arch", "sm_90"])[0] == 0
    code, _, err = run(tile_128k + ["--arch", "sm_86"])
    assert code == 2 and "131072 bytes" in err and "101376 bytes (99 KiB)" in err and "sm_86" in err
    stmatrix = ["banks", "(64,64):(64,1)", "--dtype", "f16", "--access", "stmatrix.x4"]
    assert run(stmatrix + ["--arch", "sm_90"])[0] == 0 and run(stmatrix + ["--arch", "sm_120"])[0] == 0
    code, _, err = run(stmatrix + ["--arch", "sm_89"])
    assert code == 2 and "does not exist on sm_89" in err and "--arch sm_90" in err
    suggest = ["suggest-swizzle", "--shape", "64x64", "--dtype", "f16", "--access", "stmatrix.x4"]
    assert run(suggest + ["--arch", "sm_80"])[0] == 2


def test_huge_layout_is_refused_at_once_with_its_size() -> None:
    """2^40 elements: refused before anything is built (well within a CPU second), the size in the message."""
    argv = ["banks", "(1048576,1048576):(1048576,1)", "--dtype", "f16", "--access", "ldmatrix.x4"]
    (code, _, err), _ = within(1.0, lambda: run(argv))
    assert code == 2 and "1099511627776 = 2^40 elements" in err


def test_python_arch_argument() -> None:
    """``arch=`` on wavefronts, report, analyze and suggest_swizzle sets the same limits as --arch."""
    from layoutalg import banks
    from layoutalg.core.layout import Layout
    from layoutalg.errors import LayoutError

    high = [100 * 1024 + 16 * lane for lane in range(32)]  # 100 KiB up: inside sm_90's 227 KiB, past sm_86's 99
    assert banks.wavefronts("ld.shared.v4.b32", high, arch="sm_90") == 4
    with pytest.raises(LayoutError, match="sm_86"):
        banks.wavefronts("ld.shared.v4.b32", high, arch="sm_86")
    with pytest.raises(LayoutError, match="sm_86"):
        banks.report("ld.shared.v4.b32", high, arch="sm_86")
    rows = [16 * lane for lane in range(32)]
    with pytest.raises(LayoutError, match="stmatrix does not exist on sm_80"):
        banks.wavefronts("stmatrix.sync.aligned.m8n8.x4.shared.b16", rows, arch="sm_80")
    tile = Layout((256, 128), (128, 1))  # 128 KiB of f32
    assert banks.analyze(tile, "ld.shared.v4.b32", "f32", arch="sm_90").conflict_free
    with pytest.raises(LayoutError, match="131072 bytes"):
        banks.analyze(tile, "ld.shared.v4.b32", "f32", arch="sm_86")
    with pytest.raises(LayoutError, match="2\\^40"):
        within(1.0, lambda: banks.analyze(Layout((1 << 20, 1 << 20), (1 << 20, 1)), "ld.shared.b32", "f32"))
    with pytest.raises(LayoutError, match="sm_120"):
        banks.suggest_swizzle((256, 128), "f32", "ld.shared.v4.b32", arch="sm_120")
    with pytest.raises(LayoutError, match="unknown arch"):
        banks.wavefronts("ld.shared.b32", [0] * 32, arch="sm_7")


def test_analyze_evaluates_only_the_accessed_points_of_a_huge_composed_layout() -> None:
    """A 2^40-element layout with a layout (not a swizzle) outside: an access of one warp costs a warp's work,
    and the addresses equal the composed function evaluated point by point."""
    import numpy as np

    from layoutalg import banks
    from layoutalg.core.layout import Layout
    from layoutalg.swizzle.composed import ComposedLayout

    huge = ComposedLayout(Layout((1 << 20, 1 << 20), (1, 1 << 20)), 4, Layout((1 << 20, 1 << 20), (8, 1)))
    lane = np.arange(32)
    access = banks.Access("ld.shared.b32", np.stack([lane // 8, lane % 8], axis=-1)[None], ("i",))
    analysis, _ = within(1.0, lambda: banks.analyze(huge, access, "f32"))
    expected = [4 * huge(int(r), int(c)) for r, c in zip(lane // 8, lane % 8)]
    assert analysis.addresses[0].tolist() == expected

"""``layoutalg prove`` (``layoutalg.prove.runner``): what its report says, cell by cell and line by line.

The table's cells, the detail lines under it (claim, explanation, notes, the error of a failing theorem),
the summary of files that did not load, ``-k`` selecting nothing, the progress line on stderr, the defaults
of :func:`runner.run`, the exit statuses of argument errors and ``--help``, and ``python -m
layoutalg.prove.runner``.  The expected counterexamples are the only points where the claims fail
(``x == 5`` is the one value of ``x != 5`` that fails; a broadcast layout collides where the lanes differ).
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import runner
from layoutalg.prove.config import settings
from layoutalg.prove.theorem import run_theorem

ROOT = Path(__file__).resolve().parent.parent

MIXED = '''
from layoutalg.prove import forall, theorem, var

@theorem(expect="refuted")
def five_is_skipped():
    """Refuted by enumeration (f2 is not applicable to [2, 10), which the notes say)."""
    x = var("x", lo=2, hi=10)
    return forall(x != 5, [x])

@theorem
def squares_are_non_negative():
    x = var("x", lo=0, hi=16)
    return forall(x * x >= 0, [x])

@theorem
def broken():
    raise RuntimeError("first line of the bug\\nsecond line of the bug")
'''

UNKNOWN = '''
from layoutalg.prove import forall, theorem, var

@theorem
def factoring_is_hard():
    x, y = var("x", lo=2, hi=1 << 31), var("y", lo=2, hi=1 << 31)
    return forall(x * y != 1073741789 * 1073741783, [x, y], method="z3", timeout=0.05)
'''


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(textwrap.dedent(text))
    return p


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with settings(cross_check=False):  # LAYOUTALG_CROSS_CHECK=1 in the environment must not change the methods
        rc = runner.run_cli(argv, out=out, err=err)
    return rc, out.getvalue(), err.getvalue()


def table_rows(out: str) -> dict[str, list[str]]:
    """The table's rows by theorem name (a leading ``!! `` marks a failure), cells split on two spaces."""
    lines = out.splitlines()
    rows: dict[str, list[str]] = {}
    for line in lines[2:]:
        if not line:
            break
        cells = [c.strip() for c in line.split("  ") if c.strip()]
        rows[cells[0].removeprefix("!! ")] = cells
    return rows


def details(out: str, name: str) -> list[str]:
    """The detail lines printed under the table for theorem ``name``: its heading and its indented lines."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{name}: "))
    block = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        block.append(line)
    return block


def test_table_cells_show_the_method_and_the_counterexample_or_first_error_line(tmp_path: Path) -> None:
    write(tmp_path, "thm_mixed.py", MIXED)
    rc, out, _ = run_cli([str(tmp_path)])
    assert rc == 1  # broken is an error, not proved
    rows = table_rows(out)
    assert rows["five_is_skipped"] == ["five_is_skipped", "refuted", "refuted", rows["five_is_skipped"][3], "enum",
                                       "x=5"]
    proved = rows["squares_are_non_negative"]
    assert proved[1:3] == ["proved", "proved"] and len(proved) == 5  # a method, and no counterexample cell
    assert proved[4] != "-"
    assert rows["broken"][1:] == ["error", "proved", rows["broken"][3], "-",
                                  "RuntimeError: first line of the bug"]


def test_details_give_the_claim_explanation_and_the_whole_indented_error(tmp_path: Path) -> None:
    write(tmp_path, "thm_mixed.py", MIXED)
    _, out, _ = run_cli([str(tmp_path)])
    refuted = details(out, "five_is_skipped")
    assert refuted[:3] == ["five_is_skipped: refuted (as expected)", "  claim: predicate for all x in [2, 10)",
                           "  at x=5: predicate is false"]
    assert not any("note:" in line for line in refuted)  # notes only with -v (or for unknown)
    broken = details(out, "broken")
    assert broken[:3] == ["broken: error (EXPECTED PROVED)", "  RuntimeError: first line of the bug",
                          "  second line of the bug"]
    assert "squares_are_non_negative: " not in out  # proved as expected: no details


def test_verbose_adds_the_engines_notes_to_a_refuted_theorem(tmp_path: Path) -> None:
    write(tmp_path, "thm_mixed.py", MIXED)
    _, out, _ = run_cli([str(tmp_path), "-v", "-k", "five"])
    assert "  note: f2 not applicable: variable x in [2, 10) is not a plain power-of-two range starting at 0" in (
        details(out, "five_is_skipped"))


def test_an_unknown_theorem_shows_why_without_verbose(tmp_path: Path) -> None:
    write(tmp_path, "thm_unknown.py", UNKNOWN)
    rc, out, _ = run_cli([str(tmp_path)])
    assert rc == 1
    block = details(out, "factoring_is_hard")
    assert block[0] == "factoring_is_hard: unknown (EXPECTED PROVED)"
    assert any(line.startswith("  note: z3") for line in block), block


def test_print_table_without_verbose_leaves_the_notes_out(tmp_path: Path) -> None:
    write(tmp_path, "thm_mixed.py", MIXED)
    theorems, _ = runner.collect([str(tmp_path)])
    outcomes = [run_theorem(t) for t in theorems if t.name == "five_is_skipped"]
    assert outcomes[0].result is not None and outcomes[0].result.notes  # there are notes to leave out
    out = io.StringIO()
    runner.print_table(outcomes, out)
    assert "note:" not in out.getvalue() and "1/1 theorems as expected" in out.getvalue()


def test_to_json_without_files_gives_every_theorem_a_null_file(tmp_path: Path) -> None:
    write(tmp_path, "thm_mixed.py", MIXED)
    theorems, _ = runner.collect([str(tmp_path)])
    outcomes = [run_theorem(t) for t in theorems]
    rows = runner.to_json(outcomes)
    assert [(r["theorem"], r["file"], r["status"]) for r in rows] == [
        ("five_is_skipped", None, "refuted"), ("squares_are_non_negative", None, "proved"), ("broken", None, "error")]


def test_to_json_gives_each_theorems_time_to_the_microsecond(tmp_path: Path) -> None:
    write(tmp_path, "thm_mixed.py", MIXED)
    theorems, _ = runner.collect([str(tmp_path)])
    timed = [dataclasses.replace(run_theorem(t), seconds=s)
             for t, s in zip(theorems, (1.23456789, 0.0000004, 2.5))]
    assert [row["seconds"] for row in runner.to_json(timed)] == [1.234568, 0.0, 2.5]


def test_run_defaults_to_a_plain_table_one_engine_no_notes_and_no_progress(tmp_path: Path) -> None:
    path = write(tmp_path, "thm_mixed.py", MIXED)
    out, err = io.StringIO(), io.StringIO()
    with settings(cross_check=False):
        rc = runner.run([str(path)], select="five", out=out, err=err)
    assert rc == 0 and err.getvalue() == ""  # no progress line (a StringIO is not a terminal)
    assert out.getvalue().startswith("theorem ")  # the table, not JSON
    assert table_rows(out.getvalue())["five_is_skipped"][4] == "enum"  # one engine: no "+z3" cross-check
    assert "note:" not in out.getvalue()
    out = io.StringIO()
    with settings(cross_check=False):
        runner.run([str(path)], select="five", cross_check=True, out=out, err=err)
    assert table_rows(out.getvalue())["five_is_skipped"][4].startswith("enum+")


@pytest.mark.parametrize("broken, heading", [(1, "1 theorem file did not load:"), (2, "2 theorem files did not load:")])
def test_the_files_that_did_not_load_are_counted_in_words(tmp_path: Path, broken: int, heading: str) -> None:
    for i in range(broken):
        write(tmp_path, f"thm_broken{i}.py", "raise ValueError('broken file')\n")
    rc, out, _ = run_cli([str(tmp_path)])
    assert rc == 2
    assert heading in out.splitlines()


def test_select_matching_no_theorem_names_the_text_and_the_count(tmp_path: Path) -> None:
    write(tmp_path, "thm_mixed.py", MIXED)
    rc, out, err = run_cli([str(tmp_path), "-k", "nothing_like_this"])
    assert rc == 2 and out == ""
    assert err == "layoutalg prove: no theorem name contains 'nothing_like_this' (of the 3 collected)\n"
    with pytest.raises(ProofError, match="no theorem name contains"):
        runner.run([str(tmp_path)], select="nothing_like_this", out=io.StringIO(), err=io.StringIO())


def test_progress_counts_theorems_from_one_shows_elapsed_time_and_names_in_a_60_wide_field(tmp_path: Path) -> None:
    whole, cut = "a" * 60, "b" * 61
    write(tmp_path, "thm_names.py", f'''
        from layoutalg.prove import forall, theorem, var

        @theorem
        def {whole}():
            x = var("x", lo=0, hi=4)
            return forall(x >= 0, [x])

        @theorem
        def {cut}():
            x = var("x", lo=0, hi=4)
            return forall(x < 4, [x])
        ''')
    started = time.perf_counter()
    rc, _, err = run_cli([str(tmp_path), "--progress"])
    elapsed = time.perf_counter() - started
    assert rc == 0
    assert err.startswith("\r") and err.endswith("\n")
    lines = err[1:-1].split("\r")
    assert len(lines) == 3
    assert len({len(line) for line in lines}) == 1  # each line overwrites the previous one whole
    shown = []
    for line in lines:
        count, seconds, rest = line.split(maxsplit=2)
        assert 0.0 <= float(seconds.removesuffix("s")) <= elapsed + 0.05
        shown.append((count, rest.rstrip()))
    assert shown == [("[1/2]", whole), ("[2/2]", "b" * 59 + "…"), ("[2/2]", "done")]


def test_help_exits_zero_and_bad_arguments_exit_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert runner.run_cli(["--help"]) == 0
    assert "only theorems whose name contains TEXT" in capsys.readouterr().out
    path = write(tmp_path, "thm_mixed.py", MIXED)
    assert runner.run_cli([str(path), "--no-such-option"]) == 2
    assert runner.run_cli([]) == 2  # PATH is required
    assert "layoutalg prove" in capsys.readouterr().err


def test_main_reads_the_paths_after_the_program_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "thm_mixed.py", MIXED)
    monkeypatch.setattr(sys, "argv", ["layoutalg-prove", str(path), "-k", "squares", "--json"])
    with pytest.raises(SystemExit) as info:
        runner.main()
    assert info.value.code == 0
    assert [r["theorem"] for r in json.loads(capsys.readouterr().out)] == ["squares_are_non_negative"]


def test_python_dash_m_runner_proves_a_file(tmp_path: Path) -> None:
    path = write(tmp_path, "thm_mixed.py", MIXED)
    done = subprocess.run([sys.executable, "-m", "layoutalg.prove.runner", str(path), "-k", "squares"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "1/1 theorems as expected" in done.stdout

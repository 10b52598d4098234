"""``layoutalg prove`` file handling: which files are theorem files, how missing or odd paths are reported,
loading, collection, and the table's cells."""

from __future__ import annotations

import dataclasses
import errno
import io
import textwrap
from pathlib import Path

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import runner

ONE = '''
from layoutalg.core.layout import Layout
from layoutalg.prove import injective, theorem

@theorem
def NAME():
    return injective(Layout((2, 4), (4, 1)), {"row": 2, "col": 4})
'''


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(textwrap.dedent(text))
    return p


def test_is_theorem_file_answers_a_bool_for_every_kind_of_name(tmp_path: Path) -> None:
    for name, expected in [("notes.txt", False), ("conftest.py", False), ("test_x.py", False), ("_x.py", False),
                           ("thm_x.py", True), ("x_thm.py", True), ("x.py", False)]:
        assert runner.is_theorem_file(tmp_path / name) is expected, name


def test_hidden_and_pycache_folders_are_skipped_at_any_depth(tmp_path: Path) -> None:
    for folder in [tmp_path / ".hidden", tmp_path / "sub" / ".hidden", tmp_path / "__pycache__",
                   tmp_path / "sub" / "__pycache__" / "deep"]:
        write(folder, "thm_skipped.py", "raise RuntimeError('must not be collected')\n")
    kept = [write(tmp_path, "thm_top.py", ONE), write(tmp_path / "sub", "thm_nested.py", ONE),
            write(tmp_path / "sub" / "deeper", "thm_deep.py", ONE)]
    assert sorted(runner.theorem_files([str(tmp_path)])) == sorted(kept)


@pytest.mark.parametrize("length, shown_length", [(80, 80), (81, 80)])
def test_a_missing_path_is_named_in_full_up_to_80_characters(tmp_path: Path, length: int, shown_length: int) -> None:
    raw = str(tmp_path / "m").ljust(length, "x")
    with pytest.raises(ProofError) as info:
        runner.collect_files([raw])
    shown = str(info.value).removeprefix("no such file or directory: ")
    assert len(shown) == shown_length
    assert shown == (raw if length <= 80 else raw[:77] + "...")


@pytest.mark.parametrize("length", [80, 81])
def test_a_path_the_file_system_refuses_is_reported_as_missing_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, length: int
) -> None:
    def refuse(self: Path) -> bool:
        raise OSError(errno.ENAMETOOLONG, "File name too long")

    monkeypatch.setattr(Path, "is_file", refuse)
    raw = str(tmp_path / "m").ljust(length, "x")
    with pytest.raises(ProofError) as info:
        runner.collect_files([raw])
    shown = raw if length <= 80 else raw[:77] + "..."
    assert str(info.value) == f"no such file or directory: {shown} (File name too long)"


def test_a_real_over_long_file_name_is_reported_not_raised_as_oserror(tmp_path: Path) -> None:
    raw = str(tmp_path / ("n" * 300))
    with pytest.raises(ProofError, match=r"no such file or directory: .*\.\.\. \("):
        runner.collect_files([raw])


def test_load_module_refuses_a_file_that_is_not_python(tmp_path: Path) -> None:
    p = write(tmp_path, "thm_notes.txt", "x = 1\n")
    with pytest.raises(ImportError, match="not a Python file"):
        runner.load_module(p)


def test_collect_returns_the_theorems_and_the_files_that_did_not_load(tmp_path: Path) -> None:
    write(tmp_path, "thm_good.py", ONE.replace("NAME", "small_tile_is_injective"))
    write(tmp_path, "thm_bad.py", "raise ValueError('broken file')\n")
    theorems, failures = runner.collect([str(tmp_path)])
    assert [t.name for t in theorems] == ["small_tile_is_injective"]
    assert [Path(f.file).name for f in failures] == ["thm_bad.py"] and "broken file" in failures[0].error


def test_a_load_failure_record_is_immutable(tmp_path: Path) -> None:
    failure = runner.LoadFailure("thm_x.py", 3, "ValueError: x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        failure.line = 4  # type: ignore[misc]
    assert {failure} == {runner.LoadFailure("thm_x.py", 3, "ValueError: x")}


@pytest.mark.parametrize("name, cell", [
    ("tile_is_injective", "tile_is_injective"),  # the widest name sets the column: shown whole
    ("t" * 61, "t" * 59 + "…"),                   # past 60 characters: cut with an ellipsis
])
def test_the_table_shows_a_name_whole_unless_it_passes_the_column_limit(tmp_path: Path, name: str, cell: str) -> None:
    write(tmp_path, "thm_one.py", ONE.replace("NAME", name))
    out, err = io.StringIO(), io.StringIO()
    assert runner.run_cli([str(tmp_path)], out=out, err=err) == 0
    row = out.getvalue().splitlines()[2]
    assert row.split("  ")[0] == cell


def test_one_file_named_twice_runs_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A theorem file given relative and absolute (or through a symlinked folder) is one file: its theorems ran
    and counted twice."""
    f = write(tmp_path / "proofs", "one.py", ONE.replace("NAME", "once"))
    (tmp_path / "link").symlink_to(tmp_path / "proofs")
    monkeypatch.chdir(tmp_path)
    found = runner.theorem_files(["proofs/one.py", str(f), "link/one.py", "proofs"])
    assert found == [Path("proofs/one.py")]

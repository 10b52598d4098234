"""The mutation map stays valid across docstring and comment edits that move no line, and only those."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))
from map_stamps import code_shape, date_from_git, digest, restamp  # noqa: E402

MAPPED = b'''"""Module docstring,
on two lines."""

def scale(x):
    """Scale x."""
    return x * 2  # double it
'''

SAME_CODE = {
    "reworded module docstring": MAPPED.replace(b"on two lines", b"reworded, still two lines"),
    "reworded function docstring": MAPPED.replace(b"Scale x.", b"Twice x, as documented."),
    "reworded comment": MAPPED.replace(b"# double it", b"# twice"),
}

OTHER_CODE = {
    "changed constant": MAPPED.replace(b"x * 2", b"x * 3"),
    "changed operator": MAPPED.replace(b"x * 2", b"x + 2"),
    "docstring gained a line": MAPPED.replace(b"on two lines.", b"on\nthree lines."),
    "blank line added": MAPPED.replace(b"def scale", b"\ndef scale"),
    "statement shifted right": MAPPED.replace(b"    return x * 2", b"    return  x * 2"),
    "a string that is no docstring": MAPPED.replace(b'    """Scale x."""\n', b'    y = "Scale x."\n'),
}


@pytest.mark.parametrize("edit", sorted(SAME_CODE))
def test_an_edit_of_docstrings_or_comments_keeps_the_code_shape(edit: str) -> None:
    assert code_shape(SAME_CODE[edit]) == code_shape(MAPPED)


@pytest.mark.parametrize("edit", sorted(OTHER_CODE))
def test_an_edit_that_changes_code_or_moves_a_line_changes_the_code_shape(edit: str) -> None:
    assert code_shape(OTHER_CODE[edit]) != code_shape(MAPPED)


def test_unparsable_source_has_no_code_shape() -> None:
    assert code_shape(b"def (:\n") is None


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                   capture_output=True)


def mapped_repository(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose ``pkg/mod.py`` was mapped (by digest) at its first commit."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_bytes(MAPPED)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "mapped")
    map_dir = tmp_path / "map"
    map_dir.mkdir()
    (map_dir / "tests__test_mod.py.json").write_text(json.dumps({"sources": {"pkg/mod.py": digest(MAPPED)}}))
    return tmp_path, map_dir


def stored_digest(map_dir: Path) -> str:
    return str(json.loads((map_dir / "tests__test_mod.py.json").read_text())["sources"]["pkg/mod.py"])


@pytest.mark.parametrize("edit", sorted(SAME_CODE)[:1])
def test_restamp_takes_the_new_digest_after_a_docstring_edit_committed_or_not(tmp_path: Path, edit: str) -> None:
    root, map_dir = mapped_repository(tmp_path)
    (root / "pkg" / "mod.py").write_bytes(SAME_CODE[edit])
    assert restamp(root, map_dir) == ["pkg/mod.py"]
    assert stored_digest(map_dir) == digest(SAME_CODE[edit])


@pytest.mark.parametrize("edit", ["changed constant", "docstring gained a line"])
def test_restamp_leaves_a_code_edit_stale(tmp_path: Path, edit: str) -> None:
    root, map_dir = mapped_repository(tmp_path)
    (root / "pkg" / "mod.py").write_bytes(OTHER_CODE[edit])
    git(root, "commit", "-q", "-am", "edit")
    assert restamp(root, map_dir) == []
    assert stored_digest(map_dir) == digest(MAPPED)


def test_restamp_leaves_stale_a_mapped_version_git_does_not_have(tmp_path: Path) -> None:
    root, map_dir = mapped_repository(tmp_path)
    unknown = SAME_CODE["reworded comment"]
    (map_dir / "tests__test_mod.py.json").write_text(json.dumps({"sources": {"pkg/mod.py": digest(unknown)}}))
    assert restamp(root, map_dir) == []
    assert stored_digest(map_dir) == digest(unknown)


def test_date_from_git_dates_a_committed_test_file_by_its_commit_and_an_edited_one_by_now(tmp_path: Path) -> None:
    root, map_dir = mapped_repository(tmp_path)
    (root / "tests").mkdir()
    for name in ("test_mod.py", "test_other.py"):
        (root / "tests" / name).write_text("def test_x():\n    pass\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "tests", "--date=@1000000000")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--amend", "--no-edit",
                    "--date=@1000000000"], cwd=root, check=True, capture_output=True,
                   env={"GIT_COMMITTER_DATE": "@1000000000", "PATH": "/usr/bin:/bin"})
    (map_dir / "tests__test_other.py.json").write_text("{}")
    (root / "tests" / "test_other.py").write_text("def test_x():\n    assert True\n")  # edited, not committed
    before = time.time()
    dated = date_from_git(root, map_dir, margin_s=3600)
    assert dated["tests/test_mod.py"] == 1000000000 + 3600
    assert (map_dir / "tests__test_mod.py.json").stat().st_mtime == 1000000000 + 3600
    assert dated["tests/test_other.py"] >= before

"""A map entry is stale when a source it covers changed, or when its own test file changed (tests were added)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))
import run  # noqa: E402


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    for name in ("test_a.py", "test_b.py", "test_old.py"):
        (tmp_path / "tests" / name).write_text("def test_f():\n    assert True\n")
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run, "MAP_DIR", tmp_path / ".mutation" / "map")
    run.MAP_DIR.mkdir(parents=True)
    for name in ("test_a.py", "test_b.py"):
        entry = {"sources": {"pkg/mod.py": run.sha("pkg/mod.py"), f"tests/{name}": run.sha(f"tests/{name}")}}
        run.map_file(f"tests/{name}").write_text(json.dumps(entry))
    # an entry written before test files were stamped: it cannot tell whether its tests changed
    run.map_file("tests/test_old.py").write_text(json.dumps({"sources": {"pkg/mod.py": run.sha("pkg/mod.py")}}))
    return tmp_path


def test_a_test_file_with_a_new_test_is_stale_and_an_unchanged_one_is_not(tree: Path) -> None:
    (tree / "tests" / "test_a.py").write_text("def test_f():\n    assert True\n\n\ndef test_g():\n    assert 1\n")
    assert run.stale_test_files() == ["tests/test_a.py", "tests/test_old.py"]


def test_a_changed_source_makes_every_test_file_covering_it_stale(tree: Path) -> None:
    (tree / "pkg" / "mod.py").write_text("def f():\n    return 2\n")
    assert run.stale_test_files() == ["tests/test_a.py", "tests/test_b.py", "tests/test_old.py"]

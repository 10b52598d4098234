"""Which lines of layoutalg run before any test does: at import, or while pytest collects the test files.

The per-test coverage map (``run.py map``) starts measuring after collection, so it cannot tell a line that only
runs at import (a helper building a module's tables, a parametrize list computed by a library call) from a line
that never runs.  A mutant on such a line must be judged by a fresh import of the mutated source; a mutant on a
line that runs neither under a test nor before one is *uncovered*, and needs no judging at all.

    python tools/mutation/import_lines.py OUT.json

imports every module of ``layoutalg`` and collects ``tests/`` under coverage and writes
``{"digest": ..., "lines": {path: [line, ...]}}``.  :func:`import_lines` keeps the result in
``.mutation/import_lines.json`` and builds it again (about half a minute) when a source or test file changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".mutation" / "import_lines.json"


def tree_digest() -> str:
    """A digest of every layoutalg source and test file: what import and collection run depends on."""
    digest = hashlib.sha256()
    for path in sorted([*(ROOT / "layoutalg").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def import_lines() -> dict[str, set[int]]:
    """``{source path: lines}`` run at import or collection, from the cache when it matches the tree."""
    digest = tree_digest()
    if CACHE.exists():
        cached = json.loads(CACHE.read_text())
        if cached.get("digest") == digest:
            return {path: set(lines) for path, lines in cached["lines"].items()}
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(Path(__file__).resolve()), str(CACHE)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cached = json.loads(CACHE.read_text())
    return {path: set(lines) for path, lines in cached["lines"].items()}


def _measure(out: Path) -> None:
    import importlib

    import coverage

    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    digest = tree_digest()
    cov = coverage.Coverage(data_file=None, include=[str(ROOT / "layoutalg" / "*")], config_file=False)
    cov.start()
    for path in sorted((ROOT / "layoutalg").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__main__":  # runs the CLI on this script's arguments
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        try:
            importlib.import_module(name)
        except Exception:  # an optional front end (cupy, triton) may not import here: its lines stay unseen
            pass
    import pytest

    pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "tests"])
    cov.stop()
    data = cov.get_data()
    lines = {os.path.relpath(f, ROOT): sorted(data.lines(f) or []) for f in data.measured_files()}
    out.write_text(json.dumps({"digest": digest, "lines": lines}))


if __name__ == "__main__":
    _measure(Path(sys.argv[1]))

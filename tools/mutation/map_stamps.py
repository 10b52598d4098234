"""Whether a stale map entry is really stale: a source edit that moves no statement keeps the map valid.

The map (``.mutation/map/``) stores, per test file, the digest of every layoutalg source its tests ran,
and ``run`` refuses a module whose digest changed since.  Coverage is recorded per line, so an edit that
only rewords a docstring or a comment, on the same number of lines, changes the digest but no line any
test runs, no mutant's position (``file:line:col``) and no covering set.  ``restamp`` finds, for each
changed source, the version that was mapped (the git blob whose digest the map stored), compares the two
versions' syntax trees with every node's position kept and every docstring's text blanked, and where they
are equal stores the current digest.  Everything else stays stale: a moved line, any changed code, a
docstring that gained a line, a mapped version that git no longer has.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import time
from pathlib import Path

DOCSTRING_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def digest(text: bytes) -> str:
    """The map's digest of one source version: the first 16 hex digits of its sha256."""
    return hashlib.sha256(text).hexdigest()[:16]


def code_shape(source: bytes) -> str | None:
    """The syntax tree with positions, docstring texts (and their column spans) blanked; None if unparsable."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, DOCSTRING_OWNERS) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                first.value.value = ""
                for part in (first, first.value):
                    part.col_offset = part.end_col_offset = 0
    return ast.dump(tree, include_attributes=True)


def mapped_version(root: Path, path: str, stored: str) -> bytes | None:
    """The text of ``path`` in git history whose digest is ``stored`` (newest first), or None."""
    revisions = subprocess.run(["git", "log", "--format=%H", "--", path], cwd=root, capture_output=True,
                               text=True, check=False).stdout.split()
    for revision in revisions:
        shown = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=root, capture_output=True, check=False)
        if shown.returncode == 0 and digest(shown.stdout) == stored:
            return shown.stdout
    return None


def restamp(root: Path, map_dir: Path) -> list[str]:
    """Store the current digest wherever the mapped version differs from it only in docstrings and comments.

    Returns the sources restamped.  A map file is rewritten only where one of its digests changes.
    """
    verdicts: dict[tuple[str, str], bool] = {}
    restamped: set[str] = set()
    for map_path in sorted(map_dir.glob("*.json")):
        data = json.loads(map_path.read_text())
        sources = data.get("sources", {})
        changed = False
        for source, stored in sources.items():
            current_path = root / source
            if not current_path.exists():
                continue
            current = current_path.read_bytes()
            if digest(current) == stored:
                continue
            if (source, stored) not in verdicts:
                old = mapped_version(root, source, stored)
                old_shape = code_shape(old) if old is not None else None
                verdicts[source, stored] = old_shape is not None and old_shape == code_shape(current)
            if verdicts[source, stored]:
                sources[source] = digest(current)
                restamped.add(source)
                changed = True
        if changed:
            map_path.write_text(json.dumps(data))
    return sorted(restamped)


def date_from_git(root: Path, map_dir: Path, margin_s: float) -> dict[str, float]:
    """Date each map entry by when its test file last changed, so a fresh checkout's map re-judges fairly.

    A survivor stored in a results file is re-judged only on the tests of files mapped after its verdict
    (``judged_at``; the map's file times).  A map built today in a fresh checkout is newer than every stored
    verdict, so each survivor would meet its whole covering set again (minutes each in core/), though only the
    test files changed since its verdict can change it.  This sets each map entry's time to its test file's
    last commit plus ``margin_s`` (a file committed shortly before a verdict may not have been mapped when
    it was given; the margin re-runs those too), or to now where the file has uncommitted changes or no
    commit.  Returns the times set, by test file.
    """
    dated: dict[str, float] = {}
    now = time.time()
    for map_path in sorted(map_dir.glob("*.json")):
        test_file = map_path.name[:-len(".json")].replace("__", "/")
        changed = subprocess.run(["git", "status", "--porcelain", "--", test_file], cwd=root, capture_output=True,
                                 text=True, check=False).stdout.strip()
        committed = subprocess.run(["git", "log", "-1", "--format=%ct", "--", test_file], cwd=root,
                                   capture_output=True, text=True, check=False).stdout.strip()
        when = now if changed or not committed else min(now, int(committed) + margin_s)
        os.utime(map_path, (when, when))
        dated[test_file] = when
    return dated

"""The API reference site (mkdocs + mkdocstrings, ``mkdocs.yml``) builds from the docstrings with warnings as errors,
and its pages document the public entry points."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_api_reference_builds_strict_and_documents_the_entry_points(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")  # the only skip: mkdocstrings comes with it in the test extra, so a missing
    # handler fails the build below instead of skipping it
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    pages = {p.parent.name: p.read_text() for p in (site / "api").glob("*/index.html")}
    expected = {"interop": ["layoutalg.interop.live.as_layout", "layoutalg.interop.triton.to_triton",
                            "layoutalg.interop.text.parse"],
                "dtypes": ["layoutalg.core.dtypes.dtype"], "layout": ["layoutalg.core.layout.Layout"],
                "banks": ["layoutalg.banks.analyze.analyze"], "viz": ["layoutalg.viz.notebook.TVLayout"]}
    for page, anchors in expected.items():
        for anchor in anchors:
            assert f'id="{anchor}"' in pages[page], (page, anchor)


def test_every_api_page_is_in_the_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    for page in (ROOT / "docs" / "api").glob("*.md"):
        assert f"api/{page.name}" in config, page.name

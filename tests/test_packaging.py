"""What an installed layoutalg holds: the data it reads at run time, its licence, one version.

The wheel is built from a copy of the package (setuptools' PEP 517 backend, no network, nothing written into
the checkout), unpacked into a scratch folder, and imported from there in a fresh interpreter whose working
directory is elsewhere -- so nothing can be found through ``tests/`` or a relative path.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import layoutalg
from layoutalg.errors import LayoutError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "layoutalg", source / "layoutalg", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    code = f"from setuptools import build_meta\nprint(build_meta.build_wheel({str(out)!r}))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=source, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out / proc.stdout.strip().splitlines()[-1]


def test_wheel_ships_the_recordings_the_library_reads(wheel: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        zf.extractall(tmp_path / "site")
    assert "layoutalg/data/h200_smem_wavefronts_calibration.json" in names
    assert "layoutalg/py.typed" in names
    code = ("from layoutalg.gpu.bank_check import calibration_patterns\n"
            "import layoutalg\nprint(layoutalg.__file__, len(calibration_patterns()))")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    where, count = proc.stdout.split()
    assert where.startswith(str(tmp_path / "site")) and count == "142"


def test_wheel_metadata_version_licence(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        metadata = next(zf.read(n).decode() for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        licence = [n for n in zf.namelist() if re.search(r"\.dist-info/(licenses/)?LICENSE$", n)]
    assert re.search(rf"^Version: {re.escape(layoutalg.__version__)}$", metadata, re.M)
    assert "Apache-2.0" in metadata and licence


def test_version_lives_in_one_place() -> None:
    """pyproject reads the version from layoutalg.__version__ (no second copy to drift)."""
    text = (ROOT / "pyproject.toml").read_text()
    assert not re.search(r"^version\s*=\s*\"", text, re.M)  # no literal version string
    assert 'version = { attr = "layoutalg.__version__" }' in text
    assert "Apache License" in (ROOT / "LICENSE").read_text() and "Version 2.0" in (ROOT / "LICENSE").read_text()
    assert f"## {layoutalg.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_missing_package_data_is_a_loud_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from layoutalg.gpu import bank_check

    assert len(bank_check.calibration_patterns()) == 142
    monkeypatch.setattr(bank_check, "CALIBRATION", "no_such_recording.json")
    with pytest.raises(LayoutError, match="data/no_such_recording.json is missing"):
        bank_check.calibration_patterns()
    with pytest.raises(LayoutError, match="does not exist"):
        bank_check.calibration_patterns(ROOT / "no_such_file.json")
    cases = json.loads((ROOT / "layoutalg" / "data" / "h200_smem_wavefronts_calibration.json").read_text())["cases"]
    assert [p["name"] for p in bank_check.calibration_patterns(
        ROOT / "layoutalg" / "data" / "h200_smem_wavefronts_calibration.json")] == [
        f"calibration: {c['name']}" for c in cases]

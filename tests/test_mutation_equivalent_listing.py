"""An equivalent.txt line names one replacement of a mutant (``ident replacement``) or all of them (``ident``)."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))
import run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODULE = "layoutalg/core/flat.py"


def ident_with_two_replacements() -> tuple[str, str, str]:
    by_ident = defaultdict(list)
    for m in run.find_mutants(MODULE, (ROOT / MODULE).read_text()):
        by_ident[m.ident].append(m.replacement)
    ident, replacements = next((i, r) for i, r in by_ident.items() if len(r) >= 2)
    return ident, replacements[0], replacements[1]


def test_a_listing_with_a_replacement_covers_that_replacement_only_and_one_without_covers_all() -> None:
    listed = {"a.py:1:2:constant 3": "only 3", "b.py:4:5:compare": "any"}
    assert run.listing(listed, "a.py:1:2:constant 3") == "only 3"
    assert run.listing(listed, "a.py:1:2:constant 1") is None
    assert run.listing(listed, "b.py:4:5:compare <=") == "any"
    assert run.listing(listed, "c.py:1:1:compare <") is None


def test_the_report_counts_a_replacement_listing_as_equivalent_and_its_sibling_as_a_survivor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ident, first, second = ident_with_two_replacements()
    listed = tmp_path / "equivalent.txt"
    listed.write_text(f"{ident} {first}  this replacement alone cannot be told apart\n")
    monkeypatch.setattr(run, "EQUIVALENT", listed)
    path, line = ident.split(":")[0], int(ident.split(":")[1])
    entry = {"path": path, "line": line, "operator": "x", "verdict": "survived", "seconds": 1.0}
    results = {f"{ident} {first}": dict(entry, original="o", replacement=first),
               f"{ident} {second}": dict(entry, original="o", replacement=second)}
    out = tmp_path / "results.json"
    out.write_text(json.dumps(results))
    run.report(out)
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| layoutalg/core"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1:5] == ["2", "0", "1", "1"]  # mutants, killed, equivalent, survived
    assert cells[9] == "0"  # two verdicts of a whole module are a sample: its other mutants are not unjudged

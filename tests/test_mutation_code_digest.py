"""A stored verdict holds for the code it was judged on: a fix that moves or rewrites lines must not let an
old kill stand for the expression that now sits at its place."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))
from mutants import find_mutants  # noqa: E402
from run import ROOT, code_digest, function_spans, key_of, listing, load_equivalent, report, stored_verdict  # noqa: E402

SOURCE = '''TABLE = (1, 2)


def first(x):
    return x + 1


def second(x):
    return x * 3
'''


def mutant_in(source: str, line: int):
    return next(m for m in find_mutants("pkg/mod.py", source) if m.line == line)


def test_a_verdict_stays_with_its_function_while_another_function_changes() -> None:
    changed_elsewhere = SOURCE.replace("x * 3", "x * 4")
    before, after = mutant_in(SOURCE, 5), mutant_in(changed_elsewhere, 5)
    assert key_of(before) == key_of(after)
    assert code_digest(SOURCE, before, function_spans(SOURCE)) == \
        code_digest(changed_elsewhere, after, function_spans(changed_elsewhere))


def test_a_verdict_is_dropped_when_its_function_changed() -> None:
    # the same key (line, column, operator, replacement) now names a mutant of other code
    rewritten = SOURCE.replace("return x + 1", "return x + 2")
    before, after = mutant_in(SOURCE, 5), mutant_in(rewritten, 5)
    assert key_of(before) == key_of(after)
    stored = {key_of(before): {"verdict": "killed", "code": code_digest(SOURCE, before, function_spans(SOURCE))}}
    assert stored_verdict(stored, before, SOURCE, function_spans(SOURCE)) is not None
    assert stored_verdict(stored, after, rewritten, function_spans(rewritten)) is None


def test_a_module_level_verdict_is_dropped_when_anything_in_its_module_changed() -> None:
    changed = SOURCE.replace("x * 3", "x * 4")
    before, after = mutant_in(SOURCE, 1), mutant_in(changed, 1)
    assert code_digest(SOURCE, before, function_spans(SOURCE)) != code_digest(changed, after, function_spans(changed))


def test_a_verdict_stored_before_digests_is_kept() -> None:
    mutant = mutant_in(SOURCE, 5)
    stored = {key_of(mutant): {"verdict": "killed"}}
    assert stored_verdict(stored, mutant, SOURCE, function_spans(SOURCE)) == {"verdict": "killed"}


def test_the_report_counts_a_kill_judged_on_other_code_as_stale_and_a_moved_mutant_as_unjudged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = "layoutalg/core/flat.py"
    source = (ROOT / path).read_text()
    spans = function_spans(source)
    mutants = find_mutants(path, source)
    listed = load_equivalent()
    unlisted = [m for m in mutants if listing(listed, key_of(m)) is None]
    first, second, third, *rest = unlisted
    moved = rest[-2:]  # a sweep's file without these two: their lines moved since
    entry = {"path": path, "line": 1, "operator": "x", "original": "a", "replacement": "b", "verdict": "killed"}
    results = {key_of(m): dict(entry) for m in mutants if m not in moved}  # unstamped kills
    results[key_of(first)]["code"] = code_digest(source, first, spans)
    results[key_of(second)]["code"] = "judged on other code"
    out = tmp_path / "results.json"
    out.write_text(json.dumps(results))
    report(out)
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| layoutalg/core"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == str(len(mutants))  # every current mutant of a swept module counts
    assert cells[8] == "1" and cells[9] == "2"  # stale, unjudged
    assert cells[2] == str(len(mutants) - 3)  # neither the stale kill nor the moved mutants are kills
    assert cells[13] == str(len(mutants) - 2 - 2)  # unstamped: all but the stamped, the stale and the moved

"""Two mutation runs writing one results file keep each other's verdicts."""

from __future__ import annotations

import json
import multiprocessing
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))
from run import store  # noqa: E402


def store_many(out: str, prefix: str, count: int) -> None:
    for index in range(count):
        store(Path(out), {f"{prefix}{index}": {"verdict": "killed"}})


def test_a_store_keeps_the_entries_it_did_not_judge(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    out.write_text(json.dumps({"earlier": {"verdict": "survived"}}))
    store(out, {"new": {"verdict": "killed"}})
    store(out, {"earlier": {"verdict": "killed"}})
    assert json.loads(out.read_text()) == {"earlier": {"verdict": "killed"}, "new": {"verdict": "killed"}}


def test_two_processes_storing_at_once_lose_no_verdict(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    writers = [multiprocessing.get_context("fork").Process(target=store_many, args=(str(out), prefix, 60))
               for prefix in ("sweep-", "rejudge-")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
    assert [writer.exitcode for writer in writers] == [0, 0]
    stored = json.loads(out.read_text())
    assert set(stored) == {f"{prefix}{index}" for prefix in ("sweep-", "rejudge-") for index in range(60)}


def test_a_seeded_sample_is_drawn_from_every_mutant_so_a_second_run_judges_the_same_ones() -> None:
    from run import find_mutants, sample_candidates
    modules = ["layoutalg/core/flat.py", "layoutalg/core/leaf_digits.py"]
    root = Path(__file__).resolve().parents[1]
    every = {m.ident + m.replacement for path in modules for m in find_mutants(path, (root / path).read_text())}
    first = [m.ident + m.replacement for m, _, _ in sample_candidates(modules, 25, seed=11)]
    again = [m.ident + m.replacement for m, _, _ in sample_candidates(modules, 25, seed=11)]
    other = [m.ident + m.replacement for m, _, _ in sample_candidates(modules, 25, seed=12)]
    assert len(set(first)) == 25 and set(first) <= every
    assert again == first
    assert set(other) != set(first)
    assert len(sample_candidates(modules, None, seed=11)) == len(every)

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

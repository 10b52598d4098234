"""A mutant in a helper that runs both at import and under tests is judged for both effects."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))
from mutants import find_mutants  # noqa: E402
from run import Job, _as_import_time, confirmation_job, function_spans  # noqa: E402

SOURCE = '''def build(n):
    return [i * 2 for i in range(n)]


TABLE = build(4)
'''


class StubMap:
    """Line 2 runs under ``test_build`` and at import; the module's tests are ``test_build`` and ``test_table``."""

    def __init__(self, at_import: set[int]) -> None:
        self.lines = defaultdict(dict, {"pkg/mod.py": {2: {"t::test_build"}, 5: {"t::test_table"}}})
        self.at_import = at_import
        self.seconds = {"t::test_build": 0.1, "t::test_table": 0.1}
        self.broken: set[str] = set()
        self.mapped_at: dict[str, float] = {}

    def tests(self, path: str, lines: list[int] | None) -> set[str]:
        by_line = self.lines[path]
        chosen = by_line.values() if lines is None else [by_line.get(line, set()) for line in lines]
        return set().union(*chosen)

    def runs_before_tests(self, path: str, lines: list[int]) -> bool:
        return any(line in self.at_import for line in lines)


def job_for(at_import: set[int]) -> Job:
    mutant = next(m for m in find_mutants("pkg/mod.py", SOURCE) if m.line == 2 and m.operator == "binop")
    return Job(mutant, SOURCE, function_spans(SOURCE), StubMap(at_import))  # type: ignore[arg-type]


def test_a_helper_line_that_also_runs_at_import_is_judged_again_as_import_time_data() -> None:
    job = job_for(at_import={2, 5})
    assert job.qualname == "build" and job.tests == {"t::test_build"} and job.also_at_import
    again = _as_import_time(job, StubMap({2, 5}))  # type: ignore[arg-type]
    assert again.qualname is None and again.import_function == ("build", 1)
    assert again.tests == {"t::test_build", "t::test_table"} and not again.also_at_import


def test_a_helper_line_that_runs_only_under_tests_is_judged_by_the_code_swap_alone() -> None:
    assert not job_for(at_import={5}).also_at_import


def test_a_kill_of_import_time_data_is_confirmed_as_import_time_data_on_its_killer_alone() -> None:
    stub = StubMap({2, 5})
    again = confirmation_job(job_for(at_import={2, 5}), {"mode": "rerun", "killer": "t::test_table"}, stub)  # type: ignore[arg-type]
    assert again.qualname is None and again.import_function == ("build", 1) and again.tests == {"t::test_table"}


def test_a_kill_by_the_code_swap_is_confirmed_by_the_code_swap_on_its_killer_alone() -> None:
    stub = StubMap({2, 5})
    again = confirmation_job(job_for(at_import={2, 5}), {"mode": "code", "killer": "t::test_build"}, stub)  # type: ignore[arg-type]
    assert again.qualname == "build" and again.tests == {"t::test_build"}

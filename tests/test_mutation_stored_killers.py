"""A re-judgment tries first the tests that killed a neighbour of the same function in an earlier run."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))
from run import function_lines, stored_killers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODULE = "layoutalg/core/flat.py"


def two_functions() -> tuple[tuple[int, int, str], tuple[int, int, str]]:
    tree = ast.parse((ROOT / MODULE).read_text())
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    first, second = defs[0], defs[1]
    return ((first.body[0].lineno, first.end_lineno or 0, first.name),
            (second.body[0].lineno, second.end_lineno or 0, second.name))


def test_function_lines_places_every_body_line_in_its_own_function() -> None:
    (a_first, a_last, a_name), (b_first, b_last, b_name) = two_functions()
    found = function_lines((ROOT / MODULE).read_text())
    assert (a_first, a_last, a_name) in found and (b_first, b_last, b_name) in found
    assert a_last < b_first


def test_killers_of_a_functions_neighbours_come_most_frequent_first_and_only_for_that_function() -> None:
    (a_first, _, a_name), (b_first, _, b_name) = two_functions()
    results = {
        "k1": {"path": MODULE, "line": a_first, "verdict": "killed", "killer": "tests/t.py::rare"},
        "k2": {"path": MODULE, "line": a_first, "verdict": "killed", "killer": "tests/t.py::often"},
        "k3": {"path": MODULE, "line": a_first, "verdict": "killed", "killer": "tests/t.py::often"},
        "s1": {"path": MODULE, "line": a_first, "verdict": "survived", "killer": None},
        "k4": {"path": MODULE, "line": b_first, "verdict": "killed", "killer": "tests/t.py::other_function"},
        "k5": {"path": "layoutalg/core/other.py", "line": a_first, "verdict": "killed", "killer": "tests/t.py::x"},
    }
    job = SimpleNamespace(mutant=SimpleNamespace(path=MODULE), qualname=a_name)
    killers = stored_killers(results, [job])  # type: ignore[list-item]
    assert killers[(MODULE, a_name)] == ["tests/t.py::often", "tests/t.py::rare"]
    assert (MODULE, b_name) not in killers or killers[(MODULE, b_name)] == []  # no job there: nothing gathered

"""Mutation testing of layoutalg: does the test suite notice a small wrong change?

    python tools/mutation/run.py map                      # once: which tests cover which lines
    python tools/mutation/run.py run layoutalg/banks [layoutalg/prove ...]
        [--sample N] [--seed S] [--budget-s T] [--jobs J] [--out .mutation/results.json]
    python tools/mutation/run.py report [--out ...]       # per-package table (markdown)

``map`` runs the whole suite once under coverage with per-test contexts
(pytest-cov's ``--cov-context=test``) and stores, for every line of the
package, the test functions that execute it (``.mutation/line_tests.json``).
``run`` enumerates the mutants of every module under the given folders
(``mutants.find_mutants``), optionally a seeded sample of them, and for each
one copies the mutated file into a scratch copy of the repository and runs
only the tests that cover the mutated line (``-x``, a time limit per mutant:
a mutant that hangs is killed by the timeout).  A mutant is *killed* when
those tests fail, *survived* when they pass, *uncovered* when no test runs
its line (a survivor too).  Survivors listed in ``tools/mutation/equivalent.txt``
(``ident  reason``, one per line) are *equivalent*.  Results accumulate in the
output file, so a run can stop at its budget and a later one continues.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutants import Mutant, find_mutants  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STATE = ROOT / ".mutation"
LINE_TESTS = STATE / "line_tests.json"
EQUIVALENT = Path(__file__).resolve().parent / "equivalent.txt"
PER_MUTANT_TIMEOUT_S = 120
IMPORT_TIME = "<import>"
"""Marks a line run while modules were imported (no test context): every test file touching the module runs."""


def tests_for_line(file_lines: dict[str, list[str]], line: int) -> list[str]:
    """The test functions covering ``line``; for import-time lines, the test files that cover the module."""
    tests = file_lines.get(str(line), [])
    if IMPORT_TIME not in tests:
        return tests
    files = {t.split("::")[0] for ts in file_lines.values() for t in ts if t != IMPORT_TIME}
    return sorted(files | {t for t in tests if t != IMPORT_TIME})


def build_map(test_paths: list[str]) -> None:
    """Run the tests (default: the suite) under coverage with test contexts; save line -> test node ids."""
    STATE.mkdir(exist_ok=True)
    data_file = STATE / "coverage.sqlite"
    env = dict(os.environ, COVERAGE_FILE=str(data_file))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=layoutalg",
                    "--cov-context=test", "--cov-report=", *(test_paths or ["tests"])], cwd=ROOT, env=env, check=False)
    import coverage  # type: ignore[import-not-found]

    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    line_tests: dict[str, dict[str, list[str]]] = {}
    for measured in data.measured_files():
        rel = os.path.relpath(measured, ROOT)
        if not rel.startswith("layoutalg"):
            continue
        by_line: dict[str, set[str]] = defaultdict(set)
        for line, contexts in data.contexts_by_lineno(measured).items():
            for ctx in contexts:
                by_line[str(line)].add(ctx.split("|")[0].split("[")[0] if ctx else IMPORT_TIME)
        line_tests[rel] = {line: sorted(tests) for line, tests in by_line.items()}
    LINE_TESTS.write_text(json.dumps(line_tests))
    print(f"mapped {len(line_tests)} files -> {LINE_TESTS}")


def load_equivalent() -> dict[str, str]:
    if not EQUIVALENT.exists():
        return {}
    out = {}
    for raw in EQUIVALENT.read_text().splitlines():
        if raw.strip() and not raw.startswith("#"):
            ident, _, reason = raw.partition("  ")
            out[ident.strip()] = reason.strip()
    return out


def modules_under(folders: list[str]) -> list[str]:
    files: list[str] = []
    for folder in folders:
        path = ROOT / folder
        files += sorted(str(p.relative_to(ROOT)) for p in ([path] if path.is_file() else path.rglob("*.py")))
    return files


def scratch_copy() -> Path:
    dest = Path(tempfile.mkdtemp(prefix="layoutalg-mutation-"))
    for name in ("layoutalg", "tests", "proofs", "examples", "pyproject.toml", "README.md", "docs", "benchmarks",
                 "tools"):
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif src.exists():
            shutil.copy2(src, dest / name)
    return dest


class Runner:
    """One scratch copy of the repository and its warm fork server (``forkserver.py``)."""

    def __init__(self) -> None:
        self.work = scratch_copy()
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve().parent / "forkserver.py"),
                                      str(self.work)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env)
        assert self.proc.stdout is not None
        json.loads(self.proc.stdout.readline())  # {"ready": true}

    def verdict(self, mutant: Mutant, tests: list[str], original: str) -> tuple[str, float]:
        """killed (tests fail or hang), survived (tests pass) or error (pytest could not run them)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        target = self.work / mutant.path
        target.write_text(mutant.apply(original))
        started = time.monotonic()
        try:
            self.proc.stdin.write(json.dumps({"tests": tests, "timeout": PER_MUTANT_TIMEOUT_S}) + "\n")
            self.proc.stdin.flush()
            code = json.loads(self.proc.stdout.readline())["code"]
        finally:
            target.write_text(original)
        verdict = "survived" if code == 0 else "killed" if code in (1, -9) else "error"
        return verdict, time.monotonic() - started

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()
        shutil.rmtree(self.work, ignore_errors=True)


def run(folders: list[str], sample: int | None, seed: int, budget_s: float, jobs: int, out: Path) -> None:
    line_tests = json.loads(LINE_TESTS.read_text()) if LINE_TESTS.exists() else {}
    if not line_tests:
        raise SystemExit("no coverage map: run `python tools/mutation/run.py map` first")
    results = json.loads(out.read_text()) if out.exists() else {}
    todo: list[tuple[Mutant, list[str]]] = []
    for path in modules_under(folders):
        source = (ROOT / path).read_text()
        for mutant in find_mutants(path, source):
            if mutant.ident + " " + mutant.replacement in results:
                continue
            todo.append((mutant, tests_for_line(line_tests.get(path, {}), mutant.line)))
    rng = random.Random(seed)
    rng.shuffle(todo)
    if sample is not None:
        todo = todo[:sample]
    print(f"{len(todo)} mutants to run", flush=True)
    deadline = time.monotonic() + budget_s
    runners = [Runner() for _ in range(jobs)]
    originals = {path: (ROOT / path).read_text() for path in {m.path for m, _ in todo}}

    save_lock = threading.Lock()

    def worker(index: int) -> None:
        runner = runners[index]
        for k in range(index, len(todo), jobs):
            if time.monotonic() > deadline:
                return
            mutant, tests = todo[k]
            if not tests:
                verdict, seconds = "uncovered", 0.0
            else:
                verdict, seconds = runner.verdict(mutant, tests, originals[mutant.path])
            results[mutant.ident + " " + mutant.replacement] = {
                "path": mutant.path, "line": mutant.line, "operator": mutant.operator,
                "original": mutant.original, "replacement": mutant.replacement, "verdict": verdict,
                "seconds": round(seconds, 2), "tests": len(tests)}
            print(f"{verdict:9s} {mutant.describe()}", flush=True)
            with save_lock:
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(json.dumps(results, indent=1, sort_keys=True))

    started = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(worker, range(jobs)))
    for runner in runners:
        runner.close()
    print(f"ran in {time.monotonic() - started:.0f} s; results in {out}")
    report(out)


def report(out: Path) -> None:
    results = json.loads(out.read_text())
    equivalent = load_equivalent()
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    survivors = []
    for key, r in results.items():
        package = "/".join(r["path"].split("/")[:2])
        verdict = r["verdict"]
        if verdict in ("survived", "uncovered") and key.split(" ")[0] in equivalent:
            verdict = "equivalent"
        table[package][verdict] += 1
        table[package]["total"] += 1
        if verdict in ("survived", "uncovered"):
            survivors.append(f"- {key}  ({r['original']!r} -> {r['replacement']!r}, {verdict})")
    print("| package | mutants | killed | equivalent | survived | uncovered | kill rate (non-equivalent) |")
    print("|---|---|---|---|---|---|---|")
    for package, c in sorted(table.items()):
        live = c["total"] - c["equivalent"]
        rate = 100.0 * c["killed"] / live if live else 100.0
        print(f"| {package} | {c['total']} | {c['killed']} | {c['equivalent']} | {c['survived']} | "
              f"{c['uncovered']} | {rate:.1f}% |")
    if survivors:
        print("\nsurvivors:\n" + "\n".join(sorted(survivors)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    map_p = sub.add_parser("map")
    map_p.add_argument("tests", nargs="*", help="test files (default: the whole suite)")
    run_p = sub.add_parser("run")
    run_p.add_argument("folders", nargs="+")
    run_p.add_argument("--sample", type=int)
    run_p.add_argument("--seed", type=int, default=0)
    run_p.add_argument("--budget-s", type=float, default=3600)
    run_p.add_argument("--jobs", type=int, default=1)
    run_p.add_argument("--out", type=Path, default=STATE / "results.json")
    rep = sub.add_parser("report")
    rep.add_argument("--out", type=Path, default=STATE / "results.json")
    args = parser.parse_args()
    if args.command == "map":
        build_map(args.tests)
    elif args.command == "run":
        run(args.folders, args.sample, args.seed, args.budget_s, args.jobs, args.out)
    else:
        report(args.out)


if __name__ == "__main__":
    main()

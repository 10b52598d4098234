"""Mutation testing of layoutalg: does the test suite notice a small wrong change?

    python tools/mutation/run.py map [TEST_FILE...] [--stale] [--budget-s T]
    python tools/mutation/run.py map --date-from-git [--margin-h H]
    python tools/mutation/run.py run PATH... [--sample N] [--seed S] [--budget-s T] [--out FILE]
    python tools/mutation/run.py report [--out FILE]

``map`` runs test files (default: every one not mapped yet; ``--stale``: those
whose mapped layoutalg sources changed since, other than in docstrings and
comments that move no line: ``map_stamps.restamp``) in the warm server
(``server.py``), under coverage with one context per test, and stores per test
file the lines each test runs, each test's duration and its unmutated outcome
(``.mutation/map/``).  A test that fails unmutated is never used to judge a
mutant.

``run`` enumerates the mutants of every module under the given paths
(``mutants.find_mutants``; ``--sample N --seed S``: a seeded random sample) and
judges each against the tests covering its line: a mutant inside a function
against the tests that run that line, a module-level one against every test
that runs the module (and every test of the module's own test files, those
named after it).  Covering tests run cheapest first, those that killed an
earlier mutant of the same function before them (a quick judgment adds the
module's own cheap tests after its cut); the first failure kills
(``-x``), and so does a test running past ``10 s + 5 x`` its mapped time
(all of them past ``10 s + 3 x`` their sum) or a crash.  The mutant is applied in the warm server by swapping the mutated
function's code object (no copy, no re-import, no collection); a mutant the swap
cannot reach (module level) is judged by a fresh import of the mutated source and
``pytest.main``; with ``--confirm`` so is every *survivor* of the swap (a swap
that misses a copy of the function can only make a false survivor, never a false
kill).  Only a test failure, a hang or a crash kills; a survivor has met every
covering test.
A mutant on a line no test runs is *uncovered* (counted as survived).  Survivors
listed in ``tools/mutation/equivalent.txt`` (``ident  reason``) are *equivalent*.
Results accumulate in ``--out``; a run stopped by its budget continues where it
stopped; survivors run again on every later run (a new test may kill them).
"""

from __future__ import annotations

import argparse
import ast
import copy
import fcntl
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_lines import import_lines  # noqa: E402
from map_stamps import date_from_git, digest, restamp  # noqa: E402
from mutants import Mutant, find_mutants  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STATE = ROOT / ".mutation"
MAP_DIR = STATE / "map"
EQUIVALENT = Path(__file__).resolve().parent / "equivalent.txt"
MAX_TIMEOUT_S = 600.0
REIMPORT_FIRST = 20
"""A module-level mutant's fresh import first runs only this many of its cheapest covering tests."""
HANG_PATIENCE = 6.0
"""A timeout is confirmed only by a second one under this many times the sweep's limits, on its test alone."""


def store(out: Path, verdicts: dict[str, Any]) -> None:
    """Write ``verdicts`` into the results file ``out``, keeping every other entry as it is on disk now.

    Two runs may share one results file (a sweep, and a re-judgment of one module beside it): each writes
    only what it judged, under an exclusive lock, and replaces the file in one rename, so neither loses the
    other's verdicts and no reader sees half a file.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_name(out.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        on_disk: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
        on_disk.update(verdicts)
        partial = out.with_name(f"{out.name}.{os.getpid()}.partial")
        partial.write_text(json.dumps(on_disk, indent=0, sort_keys=True))
        partial.replace(out)


def sha(path: str) -> str:
    return digest((ROOT / path).read_bytes())


class Server:
    """The warm pytest session of ``server.py`` over the given test paths."""

    def __init__(self, test_paths: list[str]) -> None:
        STATE.mkdir(exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve().parent / "server.py"),
                                      *test_paths], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     cwd=ROOT)
        ready = self.read()
        if not ready.get("ready"):
            raise SystemExit(f"mutation server did not start (see {STATE}/server_PID.log)")
        self.items: list[str] = ready["items"]

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"mutation server stopped (see {STATE}/server_PID.log)")
        return dict(json.loads(line))

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


# ---- the coverage map -------------------------------------------------------------------------------------------

def map_file(test_file: str) -> Path:
    return MAP_DIR / (test_file.replace("/", "__") + ".json")


def all_test_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py"))


def stale_test_files() -> list[str]:
    stale = []
    for test_file in all_test_files():
        path = map_file(test_file)
        if not path.exists():
            continue
        sources = json.loads(path.read_text()).get("sources", {})
        if test_file not in sources or any(not (ROOT / src).exists() or sha(src) != digest
                                           for src, digest in sources.items()):
            stale.append(test_file)  # a covered source changed, or the test file itself (tests added to it)
    return stale


def build_map(test_files: list[str], stale: bool, budget_s: float) -> None:
    MAP_DIR.mkdir(parents=True, exist_ok=True)
    if stale and not test_files:
        for source in restamp(ROOT, MAP_DIR):
            print(f"{source}: changed only in docstrings or comments, no line moved; its map entries stay valid")
    if not test_files:
        test_files = stale_test_files() if stale else [f for f in all_test_files() if not map_file(f).exists()]
    if not test_files:
        print("map is complete and current")
        return
    deadline = time.monotonic() + budget_s
    server = Server(test_files)
    by_file: dict[str, list[str]] = defaultdict(list)
    for nodeid in server.items:
        by_file[nodeid.split("::")[0]].append(nodeid)
    try:
        for test_file in test_files:
            if time.monotonic() > deadline:
                print("budget spent; run map again to continue")
                break
            started = time.monotonic()
            scratch = STATE / f"map_scratch_{os.getpid()}.json"
            reply = server.ask({"op": "map", "tests": by_file.get(test_file, []), "out": str(scratch),
                                "timeout": MAX_TIMEOUT_S * 3})
            if reply["code"] != 0:
                print(f"map of {test_file} failed (code {reply['code']}); not stored")
                continue
            data = json.loads(scratch.read_text())
            data["sources"] = {src: sha(src) for src in [*data["lines"], test_file]}
            map_file(test_file).write_text(json.dumps(data))
            failed = [t for t, info in data["tests"].items() if info["outcome"] == "failed"]
            print(f"mapped {test_file}: {len(data['tests'])} tests in {time.monotonic() - started:.0f} s"
                  + (f"; {len(failed)} fail unmutated (never used): {failed[:3]}" if failed else ""), flush=True)
    finally:
        server.close()


class CoverageMap:
    """Merged view of every mapped test file."""

    def __init__(self) -> None:
        self.lines: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.seconds: dict[str, float] = {}
        self.broken: set[str] = set()
        self.sources: dict[str, dict[str, str]] = defaultdict(dict)
        self.mapped_at: dict[str, float] = {}
        self.before_tests: dict[str, set[int]] | None = None
        self.loaded_at = time.time()
        """A verdict is as new as the map it was judged with: a test file mapped after this is new to it."""
        for path in sorted(MAP_DIR.glob("*.json")):
            data = json.loads(path.read_text())
            test_file = path.name[: -len(".json")].replace("__", "/")
            self.mapped_at[test_file] = path.stat().st_mtime
            fixture_seconds = data.get("fixture_seconds", {})
            for nodeid, info in data["tests"].items():
                # a judged fork sets every wide fixture up afresh: a test's cost is its own time plus the setup
                # of each module- or session-scoped fixture it uses (the map charged those to the first user only)
                own = info["seconds"] - info.get("fixture_setup", 0.0)
                self.seconds[nodeid] = round(own + sum(fixture_seconds.get(f, 0.0) for f in info.get("fixtures", ())),
                                             4)
                if info["outcome"] == "failed":
                    self.broken.add(nodeid)
            for src, lines in data["lines"].items():
                for line, tests in lines.items():
                    self.lines[src][int(line)].update(tests)
            for src, stored in data.get("sources", {}).items():
                self.sources[src][test_file] = stored

    def stale_for(self, path: str) -> list[str]:
        current = sha(path)
        return sorted(f for f, stored in self.sources.get(path, {}).items() if stored != current)

    def runs_before_tests(self, path: str, lines: list[int]) -> bool:
        """Whether any of ``lines`` runs at import or collection (``import_lines``), where no test context is."""
        if self.before_tests is None:
            self.before_tests = import_lines()
        seen = self.before_tests.get(path, set())
        return any(line in seen for line in lines)

    def tests(self, path: str, lines: list[int] | None) -> set[str]:
        by_line = self.lines.get(path, {})
        if lines is None:
            found = set().union(*by_line.values()) if by_line else set()
        else:
            found = set().union(*(by_line.get(line, set()) for line in lines))
        return found - self.broken


# ---- the run ----------------------------------------------------------------------------------------------------

def module_functions(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """Every def at module or class level with its qualname (``Class.method``)."""
    found: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((node, prefix + node.name))

    visit(tree.body, "")
    return found


def function_spans(source: str) -> list[tuple[int, int, str, int]]:
    """(body start, end offset, qualname, first line) of every def at module or class level."""
    starts = [0]
    for text in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(text.encode("utf-8")))
    raw = source.encode("utf-8")

    def offset(line: int, col: int) -> int:
        return len(raw[: starts[line - 1] + col].decode("utf-8", "replace"))

    return [(offset(node.body[0].lineno, node.body[0].col_offset),
             offset(node.end_lineno or node.lineno, node.end_col_offset or 0),
             name, min([node.lineno] + [d.lineno for d in node.decorator_list]))
            for node, name in module_functions(ast.parse(source))]


def code_digest(source: str, mutant: Mutant, spans: list[tuple[int, int, str, int]]) -> str:
    """A digest of the code a verdict on ``mutant`` was judged with: the body of the def holding it (its
    qualname included), or the whole module for a module-level mutant.

    Verdicts are keyed by place (``path:line:col:operator replacement``); when a fix moves or rewrites lines,
    another expression can come to sit at a stored key.  A stored verdict whose digest differs from the current
    code's is not reused (``run`` judges the mutant afresh, ``report`` counts it as stale)."""
    inside = [s for s in spans if s[0] <= mutant.start < s[1]]
    text = f"{inside[0][2]}\n{source[inside[0][0]:inside[0][1]]}" if inside else source
    return digest(text.encode("utf-8"))


def judged_on_other_code(verdict: dict[str, Any], code: str) -> bool:
    """Whether a stored ``verdict`` carries another digest than ``code``, the current code's (an unstamped
    verdict, stored before digests were, is taken as it is)."""
    return verdict.get("code", None) not in (None, code)


def stored_verdict(results: dict[str, Any], mutant: Mutant, source: str,
                   spans: list[tuple[int, int, str, int]]) -> dict[str, Any] | None:
    """The stored verdict on ``mutant`` in its current ``source``; None where there is none, or where it was
    judged on other code (its function, or its module for a module-level mutant, changed since)."""
    done = results.get(key_of(mutant))
    if done is not None and judged_on_other_code(done, code_digest(source, mutant, spans)):
        return None
    return done


def module_name(path: str) -> str:
    parts = path[: -len(".py")].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def load_equivalent() -> dict[str, str]:
    if not EQUIVALENT.exists():
        return {}
    out = {}
    for raw in EQUIVALENT.read_text().splitlines():
        if raw.strip() and not raw.startswith("#"):
            ident, _, reason = raw.partition("  ")
            out[ident.strip()] = reason.strip()
    return out


def listing(equivalent: dict[str, str], key: str) -> str | None:
    """The reason ``equivalent.txt`` gives for a mutant's key (``ident replacement``: that replacement alone) or
    its ident (every replacement of it), or None when it is not listed."""
    return equivalent.get(key, equivalent.get(key.split(" ")[0]))


def modules_under(paths: list[str]) -> list[str]:
    files: list[str] = []
    for given in paths:
        path = ROOT / given
        for found in ([path] if path.is_file() else sorted(path.rglob("*.py"))):
            rel = str(found.relative_to(ROOT))
            if rel not in files:
                files.append(rel)
    return files


def key_of(mutant: Mutant) -> str:
    return mutant.ident + " " + mutant.replacement


class Job:
    """One mutant with where it lives and which tests judge it."""

    def __init__(self, mutant: Mutant, source: str, spans: list[tuple[int, int, str, int]], cmap: CoverageMap,
                 judged_at: float | None = None):
        self.mutant = mutant
        self.source = source
        self.mutated = mutant.apply(source)
        self.import_function: tuple[str, int] | None = None
        """(qualname, first line) of the function holding a mutant whose line runs only at import."""
        self.code = code_digest(source, mutant, spans)
        """The digest of the code this judgment sees (:func:`code_digest`), stored with the verdict."""
        inside = [s for s in spans if s[0] <= mutant.start < s[1]]
        self.qualname: str | None = inside[0][2] if inside else None
        self.firstlineno = inside[0][3] if inside else 0
        lines = sorted({mutant.line, mutant.stmt_line or mutant.line}) if inside else None
        self.tests = cmap.tests(mutant.path, lines)
        if inside and not self.tests and lines and cmap.runs_before_tests(mutant.path, lines):
            # No test runs this line, but it runs at import or collection (a helper that builds a module's
            # tables), where the map has no test context.  Judge it as a module-level mutant, by a fresh import
            # of the mutated source on the tests of the module.  A line that runs nowhere stays uncovered.
            self.tests = cmap.tests(mutant.path, None)
            if self.tests:
                self.import_function = (inside[0][2], inside[0][3])
                self.qualname, self.firstlineno = None, 0
        self.also_at_import = bool(inside and self.tests and lines and cmap.runs_before_tests(mutant.path, lines))
        """The line runs under tests and also at import (a helper that builds a module's tables and is called
        again later): a survivor of the code swap is judged again as an import-time mutant, since the swap
        leaves the tables built at import as they were."""
        if self.qualname is None and self.tests:
            # A module-level mutant (a decorator's argument, a table) is also judged by the module's own test
            # files: a dataclass's generated methods, for one, run no line of the module under coverage.
            self.tests |= {t for t in cmap.seconds if names_module(t, mutant.path)} - cmap.broken
        self.all_tests = len(self.tests)
        self.rejudge = judged_at is not None
        if judged_at is not None:
            # a survivor already met every covering test of an unchanged source (a changed source makes the map
            # stale and ``run`` refuses): only tests of files mapped since its verdict can change it
            self.tests = {t for t in self.tests if cmap.mapped_at.get(t.split("::")[0], 0.0) > judged_at}


def sample_candidates(modules: list[str], sample: int | None, seed: int) -> list[tuple[Mutant, str, Any]]:
    """Every mutant of ``modules`` (with its module's source and function spans), or a seeded sample of them.

    The sample is drawn from every mutant, before a results file skips any, so running a sample again (after
    new tests, or without ``--quick``) re-judges the same mutants instead of drawing others.
    """
    candidates = []
    for path in modules:
        source = (ROOT / path).read_text()
        spans = function_spans(source)
        candidates += [(mutant, source, spans) for mutant in find_mutants(path, source)]
    if sample is not None:
        random.Random(seed).shuffle(candidates)
        candidates = candidates[:sample]
    return candidates


def run(paths: list[str], sample: int | None, seed: int, budget_s: float, out: Path, confirm: bool,
        new_only: bool = False, full: bool = False, quick: int | None = None,
        quick_s: float | None = None, judged_only: bool = False) -> None:
    cmap = CoverageMap()
    if not cmap.lines:
        raise SystemExit("no coverage map: run `python tools/mutation/run.py map` first")
    modules = modules_under(paths)
    stale = sorted({f for path in modules for f in cmap.stale_for(path)})
    if stale:
        raise SystemExit(f"the map is stale for {len(stale)} test files ({stale[:4]}...): "
                         "run `python tools/mutation/run.py map --stale` first")
    results: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    jobs: list[Job] = []
    equivalent = load_equivalent()
    candidates = sample_candidates(modules, sample, seed)
    for mutant, source, spans in candidates:
        done = stored_verdict(results, mutant, source, spans)
        if done is None and judged_only and key_of(mutant) not in results:
            continue  # a re-judgment of earlier verdicts only: no new mutant
        if done is not None and (new_only or done["verdict"] not in ("survived", "uncovered", "error", "unresolved")
                                 or listing(equivalent, key_of(mutant)) is not None):
            continue  # survivors (and tool errors) run again (tests may have been added since) unless --new-only
        if done is not None and done["verdict"] == "unresolved" and quick is None:
            judged_at = None  # a full judgment: every covering test
        elif done is None or done["verdict"] not in ("survived", "unresolved") or full:
            judged_at = None
        else:
            judged_at = done.get("judged_at")
        job = Job(mutant, source, spans, cmap, judged_at)
        if job.rejudge and not job.tests:
            continue  # no test mapped since it survived: the verdict stands
        jobs.append(job)
    jobs.sort(key=lambda j: key_of(j.mutant) not in results)  # earlier survivors first, else in source order
    test_files = sorted({t.split("::")[0] for j in jobs for t in j.tests})
    print(f"{len(jobs)} mutants to run over {len(test_files)} test files", flush=True)
    if not jobs:
        report(out)
        return
    started = time.monotonic()
    deadline = started + budget_s
    server = Server(test_files) if test_files else None
    killers = stored_killers(results, jobs)
    counts: dict[str, int] = defaultdict(int)
    try:
        for job in jobs:
            if time.monotonic() > deadline:
                print("budget spent; run again to continue", flush=True)
                break
            verdict, seconds, killer, mode = judge(server, job, cmap, killers, confirm, quick, quick_s)
            if verdict == "survived" and job.rejudge and results[key_of(job.mutant)]["verdict"] == "unresolved":
                verdict = "unresolved"  # passed the new tests only: still not judged on all of them
            m = job.mutant
            results[key_of(m)] = {"path": m.path, "line": m.line, "operator": m.operator, "original": m.original,
                                  "replacement": m.replacement, "verdict": verdict, "seconds": round(seconds, 2),
                                  "tests": job.all_tests, "killer": killer, "mode": mode, "judged_at": cmap.loaded_at,
                                  "code": job.code}
            counts[verdict] += 1
            print(f"{verdict:9s} {seconds:6.1f}s {mode:8s} {m.describe()}", flush=True)
            store(out, {key_of(m): results[key_of(m)]})
    finally:
        if server is not None:
            server.close()
    elapsed = time.monotonic() - started
    ran = sum(counts.values())
    print(f"ran {ran} mutants in {elapsed:.0f} s ({60 * ran / max(elapsed, 1e-9):.1f}/min): {dict(counts)}; "
          f"results in {out}")
    report(out)


def names_module(test: str, path: str) -> bool:
    """Whether ``test`` lives in a test file named after the module at ``path`` (its stem in the file's name)."""
    parts = Path(path).with_suffix("").parts
    stem = parts[-2] if parts[-1] == "__init__" else parts[-1]
    return stem in Path(test.split("::")[0]).stem


def own_test(test: str, path: str, cmap: CoverageMap) -> bool:
    """Whether ``test`` is a cheap (mapped at 2 s or less) test in a file named after the module at ``path``.

    A module's own test file (``tests/test_prove_terms_contract.py`` for ``layoutalg/prove/terms.py``) states
    its contract: a quick judgment runs those tests too, after its cheapest covering tests, so a mutant that
    only the module's own tests notice is not left unresolved.
    """
    return names_module(test, path) and cmap.seconds.get(test, 1.0) <= 2.0


def _fitting(tests: list[str], cmap: CoverageMap, budget_s: float, at_least_one: bool) -> int:
    """How many of ``tests``, from the first, fit ``budget_s`` mapped seconds (one at least, if asked)."""
    spent, count = 0.0, 0
    for t in tests:
        spent += cmap.seconds.get(t, 1.0)
        if spent > budget_s and (count or not at_least_one):
            break
        count += 1
    return count


def stored_killers(results: dict[str, Any], jobs: list[Job]) -> dict[tuple[str, str | None], list[str]]:
    """Per (module, function) of the jobs, the tests that killed a mutant of that function in an earlier run, as
    the results file stores them, most frequent first.  ``judge`` runs them before the cheapest tests and past a
    quick cut, so a survivor of a quick cut that a neighbour's killer would kill is judged on that test without
    running its whole covering set."""
    killers: dict[tuple[str, str | None], list[str]] = defaultdict(list)
    wanted = {(job.mutant.path, job.qualname) for job in jobs}
    functions: dict[str, list[tuple[int, int, str]]] = {}
    tally: dict[tuple[str, str | None], Counter[str]] = defaultdict(Counter)
    for entry in results.values():
        path, killer = entry.get("path"), entry.get("killer")
        if entry.get("verdict") != "killed" or not killer or not any(path == p for p, _ in wanted):
            continue
        if path not in functions:
            functions[path] = function_lines((ROOT / path).read_text())
        inside = [name for first, last, name in functions[path] if first <= entry["line"] <= last]
        place = (path, inside[0] if inside else None)
        if place in wanted:
            tally[place][killer] += 1
    for place, counted in tally.items():
        killers[place] = [test for test, _ in counted.most_common()]
    return killers


def function_lines(source: str) -> list[tuple[int, int, str]]:
    """(first body line, last line, qualname) of every def at module or class level (``function_spans`` by line)."""
    return [(node.body[0].lineno, node.end_lineno or node.lineno, name)
            for node, name in module_functions(ast.parse(source))]


def judge(server: Server | None, job: Job, cmap: CoverageMap, killers: dict[tuple[str, str | None], list[str]],
          confirm: bool, quick: int | None = None, quick_s: float | None = None,
          patience: float = 1.0) -> tuple[str, float, str | None, str]:
    if not job.tests or server is None:
        return "uncovered", 0.0, None, "-"
    place = (job.mutant.path, job.qualname)
    earlier = [t for t in killers[place] if t in job.tests]
    ordered = earlier + sorted(job.tests - set(earlier), key=lambda t: (cmap.seconds.get(t, 1.0), t))
    keep = len(ordered) if quick is None or job.rejudge else len(earlier) + quick  # new tests all run
    if quick_s is not None and not job.rejudge:  # and only as many as fit quick_s mapped seconds (at least one)
        keep = len(earlier) + _fitting(ordered[len(earlier):keep], cmap, quick_s, at_least_one=True)
    if len(ordered) > keep:  # a quick judgment: the cheapest tests, then the module's own (as many as fit quick_s)
        own = [t for t in ordered[keep:] if own_test(t, job.mutant.path, cmap)]
        if quick_s is not None:
            own = own[:_fitting(own, cmap, quick_s, at_least_one=False)]
        ordered = ordered[:keep] + own
    cut = len(ordered) < len(job.tests)
    # a test may run 10 s + 5x its mapped time, the set 10 s + 3x their sum (``patience`` times as long when a
    # timeout is judged again)
    timeout = min(MAX_TIMEOUT_S, patience * (10.0 + 3.0 * sum(cmap.seconds.get(t, 1.0) for t in ordered)))
    request = {"op": "mutant", "module": module_name(job.mutant.path), "path": job.mutant.path,
               "source": job.mutated, "qualname": job.qualname, "firstlineno": job.firstlineno, "tests": ordered,
               "timeout": timeout, "limits": {t: min(MAX_TIMEOUT_S, patience * (10.0 + 5.0 * cmap.seconds.get(t, 1.0))) for t in ordered}}
    started = time.monotonic()
    if job.qualname is None:  # a module-level mutant: rebinding the live global first is cheap when it applies
        reply = server.ask(dict(request, rebind_line=job.mutant.line, tests=ordered[:REIMPORT_FIRST]))
        code = reply["code"]
        # 1: a covering test failed; 124/-9: past its time limit; other negative: the process crashed (exit 3 would be
        # an exception in the harness itself: not a verdict, so the fresh import below decides)
        if reply.get("mode") != "no-rebind" and (code == 1 or code < 0 or code == 124):
            if reply.get("killer"):
                killers[place].insert(0, reply["killer"])
            verdict = "timeout" if code in (-9, 124) else "killed" if code == 1 else "crash"
            return verdict, time.monotonic() - started, reply.get("killer"), "global"
    if job.qualname is None:  # re-running the module's import-time data in the live process is cheaper still
        by_rerun = _judge_by_rerun(server, job, request, killers)
        if by_rerun is not None:
            return by_rerun[0], time.monotonic() - started, by_rerun[1], "rerun"
    fresh_import = dict(request, qualname=None, timeout=min(MAX_TIMEOUT_S, timeout + 60))  # every covering test
    if job.qualname is None and len(ordered) > REIMPORT_FIRST:
        # a fresh import collects every test file it is given: try the cheapest tests alone first
        reply = server.ask(dict(request, tests=ordered[:REIMPORT_FIRST]))
        if reply["code"] == 0:
            reply = server.ask(fresh_import)
    else:
        reply = server.ask(request)
    if reply["code"] not in (0, 1, -9, 124) and reply.get("mode") in ("code", None):
        # the swapped process failed outside any test (a mutant of a helper that pytest's hooks or our plugin
        # call, such as ``describe``): no verdict from the swap, so a fresh import decides (a package that no
        # longer imports is a kill there)
        reply = dict(server.ask(fresh_import), mode="reimport")
    if confirm and reply["code"] == 0 and reply.get("mode") == "code":  # a survivor of the swap: a fresh import
        reply = dict(server.ask(fresh_import), mode="confirm")
    seconds = time.monotonic() - started
    code, mode, killer = reply["code"], reply.get("mode", "?"), reply.get("killer")
    if code == 0 and mode == "code" and job.also_at_import:
        at_import = _as_import_time(job, cmap)
        verdict, more, killer, how = judge(server, at_import, cmap, killers, confirm, quick, quick_s, patience)
        if verdict in ("killed", "timeout", "crash"):
            return verdict, seconds + more, killer, how
        return ("unresolved" if cut or verdict == "unresolved" else "survived"), seconds + more, None, mode
    if code == 0:
        return ("unresolved" if cut else "survived"), seconds, None, mode
    if code == 1 or (mode != "code" and code == 2):  # 2: the mutated module failed to import during collection
        if killer:
            killers[place].insert(0, killer)
        return "killed", seconds, killer, mode
    if code in (-9, 124):
        return "timeout", seconds, killer, mode
    if code < 0:
        return "crash", seconds, None, mode
    return "error", seconds, None, mode


def _as_import_time(job: Job, cmap: CoverageMap) -> Job:
    """``job`` judged as a mutant of the module's import-time data: every test of the module, no code swap."""
    at_import = copy.copy(job)
    at_import.import_function = (job.qualname or "", job.firstlineno)
    at_import.qualname, at_import.firstlineno = None, 0
    at_import.tests = (cmap.tests(job.mutant.path, None)
                       | {t for t in cmap.seconds if names_module(t, job.mutant.path)}) - cmap.broken
    at_import.rejudge, at_import.also_at_import = False, False
    return at_import


CONTROL_PASSES: dict[tuple[str, str], bool] = {}
"""(module path, test) -> whether that test passes after a re-run of the unmutated module's data."""


def _judge_by_rerun(server: Server, job: Job, request: dict[str, Any],
                    killers: dict[tuple[str, str | None], list[str]]) -> tuple[str, str] | None:
    """A kill of an import-time mutant by ``rerun.rerun_data`` in the live process: (verdict, killer), or None.

    Only a failure or a timeout counts, and only where the same re-run of the unmutated source passes that test
    (the control, once per module and test): a failure the re-run itself causes is no verdict.  None: the
    fresh import decides (a pass here may be a value the re-run did not reach).
    """
    reply = server.ask(dict(request, rerun=True, rerun_line=job.mutant.line, rerun_function=job.import_function))
    code, killer = reply["code"], reply.get("killer")
    if reply.get("mode") != "rerun" or code not in (1, 124, -9) or not killer:
        return None
    control_key = (job.mutant.path, killer)
    if control_key not in CONTROL_PASSES:
        control = server.ask(dict(request, source=job.source, rerun=True, rerun_line=None, rerun_function=None,
                                  tests=[killer]))
        CONTROL_PASSES[control_key] = control.get("mode") == "rerun" and control["code"] == 0
    if not CONTROL_PASSES[control_key]:
        return None
    killers[(job.mutant.path, job.qualname)].insert(0, killer)
    return ("killed" if code == 1 else "timeout"), killer


def confirmation_job(job: Job, done: dict[str, Any], cmap: CoverageMap) -> Job:
    """``job`` judged again on the test that killed it (``done``, its stored verdict), alone and the way it was
    killed: a kill of import-time data (mode ``global``, ``rerun`` or ``reimport``) as import-time data, which the
    code swap alone would not reach."""
    if done.get("mode") not in ("code", None) and job.qualname is not None:
        job = _as_import_time(job, cmap)
    job.tests = {done["killer"]}
    return job


def confirm_kills(paths: list[str], out: Path, hangs_only: bool = False, kills_only: bool = False) -> None:
    """Judge every mutant killed by a failing test again on that test alone, in a fresh fork of the server.

    A test that failed under a loaded machine or after an earlier test changed shared state would credit a kill
    the mutant does not cause; a kill that does not reproduce becomes ``unresolved`` (not killed), and the next
    run judges it again.  A kill of import-time data (mode ``global``, ``rerun`` or ``reimport``) is judged again
    as import-time data, on that test alone (the code swap alone would not reach the data).  A confirmed verdict
    stores the digest of the code it was confirmed on (:func:`code_digest`); one confirmed on other code is
    confirmed again.  A hang (``timeout``) is judged again on the test that was running when it was stopped
    (on its 30 cheapest covering tests if that is not known), alone, with ``HANG_PATIENCE`` times the sweep's
    limits: on a loaded machine a slow test passes its limit without any hang, and a mutant that only slows a
    test (a fast path disabled) is not a kill; only a failure or a second timeout at that patience confirms it.
    Until then ``report`` counts it apart.  Crashes are not re-run.  ``hangs_only`` confirms the timeouts only,
    ``kills_only`` the kills by a failing test only (a hang costs up to ``HANG_PATIENCE`` times its limits).
    """
    cmap = CoverageMap()
    results: dict[str, Any] = json.loads(out.read_text())
    wanted = set(modules_under(paths)) if paths else None
    jobs: list[tuple[str, Job]] = []
    for path in sorted({r["path"] for r in results.values()}):
        if wanted is not None and path not in wanted:
            continue
        source = (ROOT / path).read_text()
        spans = function_spans(source)
        for mutant in find_mutants(path, source):
            done = results.get(key_of(mutant))
            if done and judged_on_other_code(done, code_digest(source, mutant, spans)):
                done = dict(done, confirmed=False)  # confirmed on other code: confirmed again on this one
            if (done and done["verdict"] == "killed" and done.get("killer") and not done.get("confirmed")
                    and not hangs_only):
                jobs.append((key_of(mutant), confirmation_job(Job(mutant, source, spans, cmap), done, cmap)))
            elif done and done["verdict"] == "timeout" and not done.get("confirmed") and not kills_only:
                job = Job(mutant, source, spans, cmap)
                if done.get("killer") and done["killer"] in job.tests:
                    job.tests = {done["killer"]}
                jobs.append((key_of(mutant), job))
    print(f"{len(jobs)} kills to confirm", flush=True)
    if not jobs:
        return
    server = Server(sorted({t.split("::")[0] for _, job in jobs for t in job.tests}))
    counts: dict[str, int] = defaultdict(int)
    try:
        for key, job in jobs:
            hang = results[key]["verdict"] == "timeout"
            verdict, seconds, killer, mode = judge(server, job, cmap, defaultdict(list), False, 30 if hang else None,
                                                   patience=HANG_PATIENCE if hang else 1.0)
            results[key]["code"] = job.code  # judged now, on the current code
            if verdict in KILLED:
                results[key]["confirmed"] = True
                counts["confirmed"] += 1
            else:
                what = "the hang" if hang else f"kill by {next(iter(job.tests))}"
                results[key].update(verdict="unresolved", killer=None, judged_at=0.0,
                                    note=f"{what} did not reproduce alone ({verdict})")
                counts["not reproduced"] += 1
                print(f"not reproduced: {job.mutant.describe()}", flush=True)
            store(out, {key: results[key]})
    finally:
        server.close()
    print(dict(counts))


# ---- the report -------------------------------------------------------------------------------------------------

KILLED = ("killed", "timeout", "crash")


def report(out: Path, by: str = "package") -> None:
    """Per group: mutants, killed, equivalent, not killed by kind, the kill rate, and the rate without the hangs.

    A ``timeout`` counts as killed in the first rate; ``hangs?`` counts those not confirmed by ``confirm`` (a
    second timeout at ``HANG_PATIENCE`` times the limits, on the stopped test alone), and the second rate counts
    them as not killed: on a loaded machine a test can pass its limit without any hang.  A verdict stored with
    another code digest than the current code's (:func:`code_digest`) is ``stale``, not killed; ``unstamped``
    counts verdicts stored before digests were (trusted as they are until ``confirm`` or a run stamps them).
    In a module whose current mutants the file judged at least half of (a sweep, not a sample), a current
    mutant without a verdict (a fix moved its line) is ``unjudged``, not killed: the rate falls until a run
    judges it.
    """
    results = json.loads(out.read_text())
    current: dict[str, str] = {}
    for path in sorted({r["path"] for r in results.values()}):
        if (ROOT / path).exists():
            source = (ROOT / path).read_text()
            spans = function_spans(source)
            current.update((key_of(m), code_digest(source, m, spans)) for m in find_mutants(path, source))
    results = {key: r for key, r in results.items() if key in current}  # mutants of an older source are dropped
    judged_in: dict[str, int] = defaultdict(int)
    current_in: dict[str, int] = defaultdict(int)
    for key in current:
        current_in[key.split(":", 1)[0]] += 1
        judged_in[key.split(":", 1)[0]] += key in results
    for key in current.keys() - results.keys():  # a swept module's mutant with no verdict: its line moved
        path = key.split(":", 1)[0]
        if 2 * judged_in[path] >= current_in[path]:  # a sample judges a few mutants of a module, a sweep all
            results[key] = {"path": path, "verdict": "unjudged", "original": "?",
                            "replacement": key.rsplit(" ", 1)[1], "code": current[key]}
    equivalent = load_equivalent()
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    survivors = []
    contradictions: list[str] = []
    hangs: list[str] = []
    seconds: dict[str, float] = defaultdict(float)
    for key, r in results.items():
        group = r["path"] if by == "module" else "/".join(r["path"].split("/")[:2])
        verdict = "killed" if r["verdict"] in KILLED else r["verdict"]
        if r.get("code", None) is None:
            table[group]["unstamped"] += 1
        elif judged_on_other_code(r, current[key]):
            verdict = "stale"  # judged on other code: not a verdict on this one (``run`` judges it again)
        reason = listing(equivalent, key)
        if reason is not None and r["verdict"] != "killed":
            # A test failure is a kill (an ident's listing may be meant for a sibling replacement).  A timeout
            # or crash of a listed equivalent is not trusted: the machine's load, or a wrong listing to check.
            if verdict == "killed":
                contradictions.append(f"- {key}  ({r['verdict']}; listed: {reason})")
            verdict = "equivalent"
        table[group][verdict] += 1
        table[group]["total"] += 1
        if verdict == "killed" and r["verdict"] == "timeout" and not r.get("confirmed"):
            table[group]["hangs?"] += 1
            hangs.append(f"- {key}  (stopped in {r.get('killer')})")
        seconds[group] += r.get("seconds", 0.0)
        if verdict in ("survived", "uncovered", "error", "unresolved", "stale", "unjudged"):
            survivors.append(f"- {key}  ({r['original']!r} -> {r['replacement']!r}, {verdict})")
    print(f"| {by} | mutants | killed | equivalent | survived | unresolved | uncovered | error | stale | unjudged "
          "| kill rate (non-equivalent) | hangs? | rate, hangs? not killed | unstamped | time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for group, c in sorted(table.items()):
        live = c["total"] - c["equivalent"]
        rate = 100.0 * c["killed"] / live if live else 100.0
        strict = 100.0 * (c["killed"] - c["hangs?"]) / live if live else 100.0
        print(f"| {group} | {c['total']} | {c['killed']} | {c['equivalent']} | {c['survived']} | {c['unresolved']} | "
              f"{c['uncovered']} | {c['error']} | {c['stale']} | {c['unjudged']} | {rate:.1f}% | {c['hangs?']} | "
              f"{strict:.1f}% | {c['unstamped']} | {seconds[group]:.0f} |")
    if survivors:
        print("\nsurvivors:\n" + "\n".join(sorted(survivors)))
    if hangs:
        print("\ntimeouts not confirmed alone (`confirm --hangs`):\n" + "\n".join(sorted(hangs)))
    if contradictions:
        print("\nlisted as equivalent but timed out or crashed (counted as equivalent; check the listing or the load):\n"
              + "\n".join(sorted(contradictions)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    map_p = sub.add_parser("map")
    map_p.add_argument("tests", nargs="*", help="test files (default: those not mapped yet)")
    map_p.add_argument("--stale", action="store_true", help="re-map test files whose covered sources changed")
    map_p.add_argument("--budget-s", type=float, default=1200)
    map_p.add_argument("--date-from-git", action="store_true",
                       help="map nothing; date each map entry by its test file's last commit plus the margin "
                            "(a fresh checkout's map, so stored survivors meet only test files changed since)")
    map_p.add_argument("--margin-h", type=float, default=6.0)
    run_p = sub.add_parser("run")
    run_p.add_argument("paths", nargs="+")
    run_p.add_argument("--sample", type=int)
    run_p.add_argument("--seed", type=int, default=0)
    run_p.add_argument("--budget-s", type=float, default=1200)
    run_p.add_argument("--out", type=Path, default=STATE / "results.json")
    run_p.add_argument("--confirm", action="store_true",
                       help="judge every survivor of the code swap again by a fresh import (twice the time)")
    run_p.add_argument("--new-only", action="store_true", help="skip mutants already judged, survivors included")
    run_p.add_argument("--judged-only", action="store_true",
                       help="judge again only mutants the results file holds (survivors on new tests): no new mutant")
    run_p.add_argument("--quick", type=int, metavar="K",
                       help="judge each mutant on its K cheapest covering tests (after those that killed a "
                            "neighbour); one that passes them is 'unresolved', counted as not killed until a "
                            "run without --quick judges it on every covering test")
    run_p.add_argument("--quick-s", type=float, metavar="S",
                       help="with --quick: also stop the first judgment once its tests' mapped seconds pass S "
                            "(at least one test runs); a mutant that passes them is unresolved")
    run_p.add_argument("--full", action="store_true",
                       help="judge earlier survivors on every covering test again (default: only on tests of "
                            "files mapped since their verdict)")
    run_p.add_argument("--jobs", type=int, choices=(1,), default=1, help="one warm server (the box has 2 cores)")
    con = sub.add_parser("confirm", help="re-judge each kill by a failing test on that test alone")
    con.add_argument("paths", nargs="*")
    con.add_argument("--out", type=Path, default=STATE / "results.json")
    con.add_argument("--hangs", action="store_true", help="confirm only the timeouts")
    con.add_argument("--kills", action="store_true", help="confirm only the kills by a failing test")
    rep = sub.add_parser("report")
    rep.add_argument("--out", type=Path, default=STATE / "results.json")
    rep.add_argument("--by", choices=("package", "module"), default="package")
    args = parser.parse_args()
    if args.command == "map" and args.date_from_git:
        dated = date_from_git(ROOT, MAP_DIR, args.margin_h * 3600)
        print(f"dated {len(dated)} map entries by their test files' last commits (+{args.margin_h} h)")
    elif args.command == "map":
        build_map(args.tests, args.stale, args.budget_s)
    elif args.command == "confirm":
        confirm_kills(args.paths, args.out, args.hangs, args.kills)
    elif args.command == "run":
        run(args.paths, args.sample, args.seed, args.budget_s, args.out, args.confirm, args.new_only, args.full, args.quick,
            args.quick_s, args.judged_only)
    else:
        report(args.out, args.by)


if __name__ == "__main__":
    main()

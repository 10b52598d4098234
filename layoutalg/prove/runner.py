"""``layoutalg prove PATH... [--json] [--timeout S]``: collect theorem files, run them, report.

Collection (the same rule as the pytest plugin, :func:`is_theorem_file`): a
file argument is loaded as it is; a directory is searched recursively, in
sorted order, for *theorem files*: ``thm_*.py``, ``*_thm.py``, and every
``.py`` inside a folder named ``proofs`` -- never a file whose name starts with
``_``, ``test_`` or is ``conftest.py``, nor anything in hidden folders or
``__pycache__``.  Every module-level function decorated with ``@theorem`` is a
theorem, run in file order.

A theorem file that fails to import is an error, never skipped in silence: it
is reported with its path and the line of the exception in that file
(:class:`LoadFailure`), in the text and in the JSON, and the exit status is 2.

Output: a table (theorem, status, expected, seconds, counterexample) on
stdout, then the full counterexample of each refuted theorem and the error of
each failing one, then the files that did not load; with ``--json`` a list of
objects with keys ``theorem``, ``file``, ``line``, ``status``, ``expected``,
``seconds``, ``method``, ``counterexample``, ``error`` -- one per theorem, and
one per file that did not load (``theorem`` null, ``status`` ``"error"``).  A
progress line is written to stderr while running when stderr is a terminal
(or with ``--progress``).  The exit status is 0 when every outcome equals its
expectation, 1 when one differs, 2 on bad arguments, no theorem found or a file
that does not load (2 wins over 1).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove.theorem import Outcome, Theorem, run_theorem, theorem_of


def is_theorem_file(path: Path, base: Path | None = None) -> bool:
    """``thm_*.py``, ``*_thm.py`` or any ``.py`` in a folder named ``proofs`` (folders counted from ``base``
    and including ``base`` itself when given); never ``_*``, ``test_*`` or ``conftest.py``."""
    name = path.name
    if path.suffix != ".py" or name == "conftest.py" or name.startswith(("_", "test_", ".")):
        return False
    if name.startswith("thm_") or name.endswith("_thm.py"):
        return True
    folders: tuple[str, ...] = path.parent.parts
    if base is not None:  # as written first (a symlinked folder counts where it is linked), then resolved
        for parent, root in ((path.parent.absolute(), base.absolute()), (path.resolve().parent, base.resolve())):
            try:
                folders = (root.name, *parent.relative_to(root).parts)
                break
            except ValueError:
                continue
    return "proofs" in folders


def theorem_files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        try:
            is_file, is_dir = p.is_file(), p.is_dir()
        except OSError as exc:  # e.g. a name longer than the file system allows
            shown = raw if len(raw) <= 80 else raw[:77] + "..."
            raise FileNotFoundError(f"no such file or directory: {shown} ({exc.strerror})") from None
        if is_file:
            found.append(p)
        elif is_dir:
            for f in sorted(p.rglob("*.py")):
                rel = f.relative_to(p).parts
                if any(part.startswith(".") or part == "__pycache__" for part in rel[:-1]):
                    continue
                if is_theorem_file(f, p):
                    found.append(f)
        else:
            raise FileNotFoundError(f"no such file or directory: {raw if len(raw) <= 80 else raw[:77] + '...'}")
    unique: dict[Path, Path] = {}
    for f in found:  # one file named twice (relative and absolute, through a symlink) runs once
        unique.setdefault(f.resolve(), f)
    return list(unique.values())


def load_module(path: Path) -> Any:
    """Import a theorem file under a unique module name (its folder is put on sys.path for local imports)."""
    if path.suffix != ".py":
        raise ImportError(f"{path} is not a Python file (theorem files end in .py)")
    resolved = path.resolve()
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:10]
    name = f"layoutalg_theorems_{resolved.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    folder = str(resolved.parent)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)
    return module


def theorems_in(module: Any) -> list[Theorem]:
    out = []
    for value in list(vars(module).values()):
        t = theorem_of(value)
        if t is not None and getattr(value, "__module__", None) == module.__name__:
            out.append(t)
    return out


@dataclass(frozen=True)
class LoadFailure:
    """A theorem file that did not import: its path, the line of the exception in it (None if no frame of
    the traceback is in the file), and the error."""

    file: str
    line: int | None
    error: str

    @property
    def where(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return {"theorem": None, "file": self.file, "line": self.line, "status": "error", "expected": None,
                "seconds": 0.0, "method": None, "counterexample": None, "error": self.error}


def failure_line(exc: BaseException, path: Path) -> int | None:
    """The line in ``path`` where ``exc`` arose: a SyntaxError's own line, else the last traceback frame in it."""
    target = str(path.resolve())
    if isinstance(exc, SyntaxError) and exc.filename and str(Path(exc.filename).resolve()) == target:
        return exc.lineno
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if str(Path(tb.tb_frame.f_code.co_filename).resolve()) == target:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def theorem_line(t: Theorem) -> int | None:
    code = getattr(t.fn, "__code__", None)
    return None if code is None else int(code.co_firstlineno)


def collect_files(paths: list[str]) -> tuple[list[tuple[str, Theorem]], list[LoadFailure]]:
    """Every theorem of the theorem files under ``paths`` with its file, and the files that did not load.

    Raises :class:`ProofError` for a path that does not exist.
    """
    found: list[tuple[str, Theorem]] = []
    failures: list[LoadFailure] = []
    try:
        files = theorem_files(paths)
    except FileNotFoundError as exc:
        raise ProofError(str(exc)) from None
    for f in files:
        try:
            module = load_module(f)
        except Exception as exc:  # a broken file is reported (and fails the run); the others still run
            failures.append(LoadFailure(str(f), failure_line(exc, f), f"{type(exc).__name__}: {exc}"))
            continue
        found.extend((str(f), t) for t in theorems_in(module))
    return found, failures


def collect(paths: list[str], err: TextIO | None = None) -> tuple[list[Theorem], list[LoadFailure]]:
    """The theorems under ``paths`` and the files that did not load (see :func:`collect_files`)."""
    found, failures = collect_files(paths)
    return [t for _, t in found], failures


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _cex_text(o: Outcome) -> str:
    if o.status == "error":
        return o.error.splitlines()[0] if o.error else "error"
    if o.result is None:
        return ""
    return o.result.counterexample_text()


def print_table(outcomes: list[Outcome], out: TextIO, verbose: bool = False,
                failures: list[LoadFailure] | None = None) -> None:
    rows = [
        (
            ("" if o.ok else "!! ") + o.theorem.name,
            o.status,
            o.theorem.expect,
            f"{o.seconds:.3f}",
            o.result.method if o.result is not None else "-",
            _cex_text(o),
        )
        for o in outcomes
    ]
    head = ("theorem", "status", "expected", "seconds", "method", "counterexample")
    widths = [min(max(len(r[i]) for r in [head, *rows]), 60 if i == 0 else 90) for i in range(len(head))]
    out.write("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for r in rows:
        out.write("  ".join(_cell(c, w).ljust(w) for c, w in zip(r, widths)).rstrip() + "\n")
    details = [o for o in outcomes if o.status in ("refuted", "error", "unknown") or not o.ok]
    if details:
        out.write("\n")
    for o in details:
        mark = "as expected" if o.ok else f"EXPECTED {o.theorem.expect.upper()}"
        out.write(f"{o.theorem.name}: {o.status} ({mark})\n")
        if o.result is not None:
            out.write(f"  claim: {o.result.claim}\n")
            if o.result.explanation:
                out.write(f"  {o.result.explanation}\n")
            if verbose or o.status == "unknown":
                for note in o.result.notes:
                    out.write(f"  note: {note}\n")
        if o.error:
            out.write("  " + o.error.replace("\n", "\n  ").rstrip() + "\n")
    failures = failures or []
    if failures:
        out.write(f"\n{len(failures)} theorem file{'s' if len(failures) > 1 else ''} did not load:\n")
        for f in failures:
            out.write(f"  {f.where}: {f.error.splitlines()[0] if f.error else 'error'}\n")
    failed = sum(not o.ok for o in outcomes)
    total = sum(o.seconds for o in outcomes)
    out.write(f"\n{len(outcomes) - failed}/{len(outcomes)} theorems as expected ({total:.2f}s)")
    problems = ([f"{failed} differ from their expectation"] if failed else []) + (
        [f"ERROR: {len(failures)} file{'s' if len(failures) > 1 else ''} did not load, "
         "so their theorems did not run"] if failures else [])
    out.write("".join(f"; {p}" for p in problems) + "\n")


def to_json(outcomes: list[Outcome], files: list[str] | None = None,
            failures: list[LoadFailure] | None = None) -> list[dict[str, Any]]:
    """One object per theorem (``files[i]`` is the file of ``outcomes[i]``), then one per file that did not load."""
    paths: list[str | None] = list(files) if files is not None else [None] * len(outcomes)
    rows: list[dict[str, Any]] = [
        {
            "theorem": o.theorem.name,
            "file": path,
            "line": theorem_line(o.theorem),
            "status": o.status,
            "expected": o.theorem.expect,
            "seconds": round(o.seconds, 6),
            "method": o.result.method if o.result is not None else None,
            "counterexample": o.result.counterexample if o.result is not None else None,
            "error": o.error or None,
        }
        for o, path in zip(outcomes, paths)
    ]
    return rows + [f.to_json() for f in failures or []]


def exit_status(outcomes: list[Outcome], failures: list[LoadFailure]) -> int:
    """2 if a file did not load, else 1 if an outcome differs from its expectation, else 0."""
    if failures:
        return 2
    return 0 if all(o.ok for o in outcomes) else 1


NO_THEOREM = ("no @theorem found (in a folder, theorem files are thm_*.py, *_thm.py and every .py under a "
              "folder named proofs; or pass the files themselves)")


def run(paths: list[str], *, as_json: bool = False, timeout: float | None = None, cross_check: bool = False,
        progress: bool = False, verbose: bool = False, select: str | None = None, out: TextIO | None = None,
        err: TextIO | None = None) -> int:
    """Collect, run and report (see the module doc); returns the exit status.

    Raises :class:`ProofError` for a missing path, a bad ``timeout`` or when no theorem is found (the CLI turns
    these into its own messages); a file that does not load is reported, not raised.
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if timeout is not None and not timeout > 0:  # inf: no limit; NaN fails this test too
        raise ProofError(f"timeout must be a positive number of seconds (inf for none), got {timeout}")
    found, failures = collect_files(paths)
    if select:
        collected = len(found)
        found = [(f, t) for f, t in found if select in t.name]
        if collected and not found and not failures:
            raise ProofError(f"no theorem name contains {describe(select)} (of the {collected} collected)")
    for failure in failures:
        fix = "fix the file at that line" if failure.line is not None else "pass a Python theorem file"
        err.write(f"layoutalg prove: error: cannot load {failure.where}: {failure.error}\n"
                  f"  hint: {fix}, or leave it out of the PATHs; the other files' theorems still ran\n")
    if not found and not failures:
        raise ProofError(NO_THEOREM)
    show = progress or (hasattr(err, "isatty") and err.isatty())
    outcomes: list[Outcome] = []
    start = time.perf_counter()
    for i, (_, t) in enumerate(found):
        if show:
            err.write(f"\r[{i + 1}/{len(found)}] {time.perf_counter() - start:6.1f}s  {_cell(t.name, 60):<60}")
            err.flush()
        outcomes.append(run_theorem(t, timeout=timeout, cross_check=True if cross_check else None))
    if show:
        err.write(f"\r[{len(found)}/{len(found)}] {time.perf_counter() - start:6.1f}s  done{' ' * 56}\n")
    if as_json:
        json.dump(to_json(outcomes, [f for f, _ in found], failures), out, indent=2)
        out.write("\n")
    else:
        print_table(outcomes, out, verbose=verbose, failures=failures)
    return exit_status(outcomes, failures)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``layoutalg prove`` (shared by the CLI's parser and :func:`run_cli`)."""
    parser.add_argument("paths", nargs="+", metavar="PATH", help="theorem files or folders (searched recursively)")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of the table")
    parser.add_argument("--timeout", type=float, default=None, metavar="S",
                        help="time limit per claim in seconds, every engine included (default 10; inf for none)")
    parser.add_argument("--cross-check", action="store_true",
                        help="decide every claim with two engines; fail loudly if they disagree")
    parser.add_argument("--progress", action="store_true",
                        help="show progress on stderr even when it is not a terminal")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print which engines were tried and why")
    parser.add_argument("-k", dest="select", default=None, metavar="TEXT",
                        help="only theorems whose name contains TEXT")


def run_cli(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``python -m layoutalg.prove.runner``: the same as ``layoutalg prove``; returns the exit status."""
    err = sys.stderr if err is None else err
    parser = argparse.ArgumentParser(prog="layoutalg prove", description="Prove every @theorem in the given files or folders.")
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 2  # argparse exits 0 after --help, 2 on a bad argument
    try:
        return run(args.paths, as_json=args.json, timeout=args.timeout, cross_check=args.cross_check,
                   progress=args.progress, verbose=args.verbose, select=args.select, out=out, err=err)
    except ProofError as exc:
        err.write(f"layoutalg prove: {exc}\n")
        return 2


def main() -> None:
    sys.exit(run_cli(sys.argv[1:]))


if __name__ == "__main__":
    main()


__all__ = ["run", "run_cli", "add_arguments", "is_theorem_file", "theorem_files", "load_module", "theorems_in", "collect",
           "collect_files", "LoadFailure", "exit_status", "to_json", "print_table"]

"""``layoutalg prove PATH... [--json] [--timeout S]``: collect theorem files, run them, report.

Collection (the same rule as the pytest plugin, :func:`is_theorem_file`): a
file argument is loaded as it is; a directory is searched recursively, in
sorted order, for *theorem files*: ``thm_*.py``, ``*_thm.py``, and every
``.py`` inside a folder named ``proofs`` -- never a file whose name starts with
``_``, ``test_`` or is ``conftest.py``, nor anything in hidden folders or
``__pycache__``.  Every module-level function decorated with ``@theorem`` is a
theorem, run in file order.

Output: a table (theorem, status, expected, seconds, counterexample) on
stdout, then the full counterexample of each refuted theorem and the error of
each failing one; with ``--json`` a list of objects with keys ``theorem``,
``status``, ``expected``, ``seconds``, ``method``, ``counterexample``.  A
progress line is written to stderr while running when stderr is a terminal
(or with ``--progress``).  The exit status is 0 when every outcome equals
its expectation, 1 otherwise, 2 on bad arguments or no theorem found.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

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
    if base is not None:
        try:
            folders = (base.resolve().name, *path.resolve().parent.relative_to(base.resolve()).parts)
        except ValueError:
            pass
    return "proofs" in folders


def theorem_files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            found.append(p)
        elif p.is_dir():
            for f in sorted(p.rglob("*.py")):
                rel = f.relative_to(p).parts
                if any(part.startswith(".") or part == "__pycache__" for part in rel[:-1]):
                    continue
                if is_theorem_file(f, p):
                    found.append(f)
        else:
            raise FileNotFoundError(f"no such file or directory: {raw}")
    return list(dict.fromkeys(found))


def load_module(path: Path) -> Any:
    """Import a theorem file under a unique module name (its folder is put on sys.path for local imports)."""
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


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _cex_text(o: Outcome) -> str:
    if o.status == "error":
        return o.error.splitlines()[0] if o.error else "error"
    if o.result is None:
        return ""
    return o.result.counterexample_text()


def print_table(outcomes: list[Outcome], out: TextIO, verbose: bool = False) -> None:
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
    failed = sum(not o.ok for o in outcomes)
    total = sum(o.seconds for o in outcomes)
    out.write(f"\n{len(outcomes) - failed}/{len(outcomes)} theorems as expected ({total:.2f}s)")
    out.write(f"; {failed} differ from their expectation\n" if failed else "\n")


def to_json(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    return [
        {
            "theorem": o.theorem.name,
            "status": o.status,
            "expected": o.theorem.expect,
            "seconds": round(o.seconds, 6),
            "method": o.result.method if o.result is not None else None,
            "counterexample": o.result.counterexample if o.result is not None else None,
        }
        for o in outcomes
    ]


def collect(paths: list[str], err: TextIO) -> tuple[list[Theorem], list[tuple[str, str]]]:
    theorems: list[Theorem] = []
    failures: list[tuple[str, str]] = []
    for f in theorem_files(paths):
        try:
            module = load_module(f)
        except Exception as exc:  # a broken file is reported, the others still run
            failures.append((str(f), f"{type(exc).__name__}: {exc}"))
            continue
        theorems.extend(theorems_in(module))
    return theorems, failures


def run_cli(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point for ``layoutalg prove``; returns the exit status."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    parser = argparse.ArgumentParser(prog="layoutalg prove", description="Prove every @theorem in the given files or folders.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="theorem files or folders (searched recursively)")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of the table")
    parser.add_argument("--timeout", type=float, default=None, metavar="S", help="time limit per claim in seconds, every engine included (default 10; inf for none)")
    parser.add_argument("--cross-check", action="store_true", help="decide every claim with two engines; fail loudly if they disagree")
    parser.add_argument("--progress", action="store_true", help="show progress on stderr even when it is not a terminal")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print which engines were tried and why")
    parser.add_argument("-k", dest="select", default=None, metavar="TEXT", help="only theorems whose name contains TEXT")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else 2
    if args.timeout is not None and not args.timeout > 0:
        err.write("layoutalg prove: --timeout must be positive\n")
        return 2
    try:
        theorems, failures = collect(args.paths, err)
    except FileNotFoundError as exc:
        err.write(f"layoutalg prove: {exc}\n")
        return 2
    if args.select:
        theorems = [t for t in theorems if args.select in t.name]
    for path, msg in failures:
        err.write(f"layoutalg prove: cannot load {path}: {msg}\n")
    if not theorems:
        err.write(
            "layoutalg prove: no @theorem found (in a folder, theorem files are thm_*.py, *_thm.py "
            "and every .py under a folder named proofs; or pass the files themselves)\n"
        )
        return 2
    show = args.progress or (hasattr(err, "isatty") and err.isatty())
    outcomes: list[Outcome] = []
    start = time.perf_counter()
    for i, t in enumerate(theorems):
        if show:
            err.write(f"\r[{i + 1}/{len(theorems)}] {time.perf_counter() - start:6.1f}s  {_cell(t.name, 60):<60}")
            err.flush()
        outcomes.append(run_theorem(t, timeout=args.timeout, cross_check=True if args.cross_check else None))
    if show:
        err.write(f"\r[{len(theorems)}/{len(theorems)}] {time.perf_counter() - start:6.1f}s  done{' ' * 56}\n")
    if args.json:
        json.dump(to_json(outcomes), out, indent=2)
        out.write("\n")
    else:
        print_table(outcomes, out, verbose=args.verbose)
    return 0 if all(o.ok for o in outcomes) and not failures else 1


def main() -> None:
    sys.exit(run_cli(sys.argv[1:]))


if __name__ == "__main__":
    main()


__all__ = ["run_cli", "is_theorem_file", "theorem_files", "load_module", "theorems_in", "collect", "to_json", "print_table"]

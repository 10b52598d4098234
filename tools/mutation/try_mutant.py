"""Does a given test kill one mutant?  For writing a test against a survivor without a whole run.

    python tools/mutation/try_mutant.py IDENT [--replacement TEXT] -- PYTEST_ARGS...

``IDENT`` is a mutant's ``path:line:col:operator`` (as the run's report lists it); ``--replacement``
picks one where an ident has several (``'1' -> '0'`` and ``'1' -> '2'``).  The mutant is written into
the source file, pytest runs with the given arguments in a fresh process, and the file is restored
(also on Ctrl-C, SIGTERM and SIGHUP).  Prints ``KILLED`` (pytest failed, exit 1/2) or ``SURVIVED`` (exit 0) and exits 0 / 1.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutants import find_mutants  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    argv = sys.argv[1:]
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ident")
    parser.add_argument("--replacement")
    args = parser.parse_args(own)
    path = args.ident.split(":")[0]
    source_path = ROOT / path
    source = source_path.read_text()
    found = [m for m in find_mutants(path, source) if m.ident == args.ident
             and (args.replacement is None or m.replacement == args.replacement)]
    if len(found) != 1:
        choices = [m.describe() for m in find_mutants(path, source) if m.ident == args.ident]
        raise SystemExit(f"{len(found)} mutants match {args.ident!r} (replacement {args.replacement!r}): {choices}")
    mutant = found[0]
    print(mutant.describe(), flush=True)
    def restore_and_stop(signum: int, frame: object) -> None:
        source_path.write_text(source)
        raise SystemExit(f"stopped by signal {signum}; {path} restored")

    signal.signal(signal.SIGTERM, restore_and_stop)
    signal.signal(signal.SIGHUP, restore_and_stop)
    try:
        source_path.write_text(mutant.apply(source))
        # No bytecode for the mutant: a restore within the same second and at the same size (``return keys`` ->
        # ``return None``) would leave its .pyc looking current, and later imports would run the mutant.
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        code = subprocess.call([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *pytest_args],
                               cwd=ROOT, env=env)
    finally:
        source_path.write_text(source)
    print("KILLED" if code in (1, 2) else "SURVIVED" if code == 0 else f"pytest exit {code}")
    return 0 if code in (1, 2) else 1


if __name__ == "__main__":
    raise SystemExit(main())

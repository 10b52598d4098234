"""The long fuzz run, one command: the public API fuzzer and the CLI fuzzer, with their totals.

    python tools/fuzz_long.py                         # 100,000 API calls + 5,000 command lines, seed 13
    python tools/fuzz_long.py --calls 20000 --cli-lines 1000 --seed 7

Runs ``tests/adversarial/test_fuzz_api.py`` with ``LAYOUTALG_FUZZ_CALLS`` (spread evenly over every public
function and method; hypothesis stops early on targets with few distinct inputs, so the totals line counts the
calls made) and ``tests/adversarial/test_fuzz_cli.py`` with ``LAYOUTALG_FUZZ_EXAMPLES`` (each command line runs
in-process under a CPU-time box), both under ``LAYOUTALG_FUZZ_SEED``, and prints each fuzzer's totals line:
calls made, non-LayoutError escapes, hangs.  Exit status: 0 when both found nothing, else 1.  A CLI line costs
about 50 times an API call (argument parsing, printing), hence the smaller default.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=104_000, help="API calls asked (about 100,600 made)")
    parser.add_argument("--cli-lines", type=int, default=5_000, help="CLI command lines")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--bound", type=float, default=5.0, help="seconds one API call may take")
    args = parser.parse_args()
    with tempfile.NamedTemporaryFile("r", suffix=".txt", delete=False) as tmp:
        report = tmp.name
    env = dict(os.environ, LAYOUTALG_FUZZ_CALLS=str(args.calls), LAYOUTALG_FUZZ_EXAMPLES=str(args.cli_lines),
               LAYOUTALG_FUZZ_SEED=str(args.seed), LAYOUTALG_FUZZ_BOUND=str(args.bound),
               LAYOUTALG_FUZZ_REPORT=report,
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    status = 0
    for test in ("tests/adversarial/test_fuzz_api.py", "tests/adversarial/test_fuzz_cli.py"):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider"], cwd=ROOT,
                              env=env, capture_output=True, text=True)
        print(f"{test}: exit {proc.returncode} after {time.perf_counter() - start:.0f} s", flush=True)
        if proc.returncode != 0:
            status = 1
            print(proc.stdout[-6000:])
    print(Path(report).read_text())
    os.unlink(report)
    return status


if __name__ == "__main__":
    sys.exit(main())

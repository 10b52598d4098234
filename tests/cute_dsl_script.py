"""Run a CuTe DSL script in a fresh interpreter and read back its result (CuTe DSL objects exist only inside a
``@cute.jit`` trace, and printing one after the trace crashed the interpreter: each test's script judges inside
the trace and prints one ``RESULT<json>`` line).  The JIT cache goes under the test's ``tmp_path``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def run_cute_dsl_script(tmp_path: Path, source: str, *args: str, timeout: int = 600) -> Any:
    """The JSON the script printed after ``RESULT``; the test fails with the script's stderr if it did not run."""
    script = tmp_path / "cute_dsl_script.py"
    script.write_text(source)
    env = dict(os.environ, TMPDIR=str(tmp_path), CUTE_DSL_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(next(x for x in proc.stdout.splitlines() if x.startswith("RESULT"))[len("RESULT"):])

"""A warm test runner for mutants: imports the heavy libraries once, forks a child per mutant.

    python tools/mutation/forkserver.py WORKDIR

Reads one JSON request per line on stdin: ``{"tests": [...], "timeout": s}``
(the mutated file is already written into WORKDIR by the caller), forks, and in
the child drops every ``layoutalg`` and test module from ``sys.modules`` so the
mutated source is imported fresh, then runs ``pytest.main`` on the tests.  The
reply (one JSON line) is ``{"code": exit_code}``, ``code`` = -9 on timeout.
numpy, z3, sympy and hypothesis stay imported in the parent, so a mutant costs
the tests' own time plus layoutalg's import, not the interpreter's start.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time


def main() -> None:
    work = os.path.abspath(sys.argv[1])
    os.chdir(work)
    sys.path.insert(0, work)
    import hypothesis  # noqa: F401
    import numpy  # noqa: F401
    import pytest
    import sympy  # noqa: F401
    import z3  # noqa: F401

    print(json.dumps({"ready": True}), flush=True)
    for raw in sys.stdin:
        request = json.loads(raw)
        pid = os.fork()
        if pid == 0:
            for name in list(sys.modules):
                if name == "layoutalg" or name.startswith(("layoutalg.", "tests", "conftest", "test_")):
                    del sys.modules[name]
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            code = pytest.main(["-x", "-q", "-p", "no:cacheprovider", "--hypothesis-seed=0", *request["tests"]])
            os._exit(int(code))
        deadline = time.monotonic() + float(request.get("timeout", 120))
        code = None
        while code is None:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
            elif time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                code = -9
            else:
                time.sleep(0.02)
        print(json.dumps({"code": code}), flush=True)


if __name__ == "__main__":
    main()

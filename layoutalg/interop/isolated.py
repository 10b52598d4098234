"""A library call that may abort the whole process, run in a forked child so that it cannot.

Triton's C++ checks its layout parameters with ``assert``: an ``NVMMADistributedLayout`` of version 1, a
``DotOperandLayout`` whose ``k_width`` is not a power of two or a warp count that is not one reach
``abort()`` inside ``to_linear_layout`` (seen with Triton 3.6: "Assertion `isHopper()' failed",
"LinearLayout::strided1D ... isPowerOf2_32(size)"), and no Python handler runs.  :func:`run_isolated` calls
the function in a ``fork`` of this process (about 8 ms) and brings back its picklable result; a child that
dies, raises or runs past the time limit becomes a :class:`~layoutalg.errors.LayoutError` that quotes what the
library printed.  Where ``os.fork`` does not exist the function is called directly.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import tempfile
import time
from typing import Any, Callable

from layoutalg.errors import LayoutError

#: Seconds a child may run before it is killed.
TIME_LIMIT = 60.0


def _last_lines(text: bytes, count: int = 3) -> str:
    lines = [line.strip() for line in text.decode("utf-8", "replace").splitlines() if line.strip()]
    return " | ".join(lines[-count:])


def _child(fn: Callable[..., Any], args: tuple[Any, ...], result_fd: int, stderr_fd: int) -> None:
    """Runs in the child: the function's result (or its error's text) pickled to ``result_fd``; never returns."""
    try:
        os.dup2(stderr_fd, 2)
        faulthandler.disable()  # an abort is the expected failure here, not one to dump the parent's stack for
        try:
            payload: tuple[str, Any] = ("ok", fn(*args))
        except Exception as exc:  # noqa: BLE001 - any library error is reported to the parent as text
            payload = ("error", f"{type(exc).__name__}: {str(exc).strip()}")
        data = pickle.dumps(payload)
        while data:
            data = data[os.write(result_fd, data):]
    finally:
        os._exit(0)


def _read_all(fd: int, pid: int, what: str) -> bytes:
    chunks: list[bytes] = []
    deadline = time.monotonic() + TIME_LIMIT
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(0.0, left))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise LayoutError(f"{what}: the library did not answer within {TIME_LIMIT:.0f} s")
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def run_isolated(fn: Callable[..., Any], args: tuple[Any, ...], what: str) -> Any:
    """``fn(*args)`` computed in a forked child (see the module docstring); ``what`` names the call in errors."""
    if not hasattr(os, "fork"):
        return fn(*args)
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as stderr_file:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's lines run in another process
            os.close(read_fd)
            _child(fn, args, write_fd, stderr_file.fileno())
        os.close(write_fd)
        try:
            data = _read_all(read_fd, pid, what)
        finally:
            os.close(read_fd)
        _, status = os.waitpid(pid, 0)
        stderr_file.seek(0)
        printed = _last_lines(stderr_file.read())
    if not data:
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit status {os.WEXITSTATUS(status)}"
        raise LayoutError(f"{what}: the library aborted ({how}){': ' + printed if printed else ''}")
    kind, value = pickle.loads(data)
    if kind == "error":
        raise LayoutError(f"{what}: the library refused it: {value}")
    return value


__all__ = ["run_isolated", "TIME_LIMIT"]

"""Run many CuTe DSL operations in one ``@cute.jit`` trace and get plain Python results back.

CuTe DSL's layout algebra only runs while a ``@cute.jit`` function is being
traced (on the CPU; no GPU or libcuda needed).  Each trace costs a few ms, so
batch: about 0.2 ms per operation when a thousand share one trace.  DSL
objects must not escape the trace (printing one afterwards has segfaulted), so
everything is converted to ints and tuples inside it.

Usage::

    from oracles.cute_dsl import Batch, Lay, Swz, Composed

    batch = Batch()
    h1 = batch.call("composition", Lay((8, 2), (1, 4)), Lay(4, 2))
    h2 = batch.call("complement", Lay(4, 2), 16)
    h3 = batch.call("logical_divide", Lay((8, 4)), (Lay(2), Lay(2)))    # by-mode tiler
    h4 = batch.custom(lambda cute, x: cute.size(x), Lay((4, 8)))         # any function of cute
    h5 = batch.call("composition", Lay(8), Lay(4, 2), evaluate=True)   # also read every value
    h6 = batch.call("coalesce", Lay((2, 2)), target_profile=(1,))       # keyword arguments
    results = batch.run()
    results[h1]  # Result(ok=True, value=((2,2),(1,8)) as a LayoutValue, values=None, error=None)

Arguments are plain descriptions built inside the trace: :class:`Lay`
(``cute.make_layout``), :class:`Swz` (``cute.make_swizzle``),
:class:`Composed` (``cute.make_composed_layout``), ints, and tuples/lists of
these (kept as Python tuples, CuTe's by-mode tilers).  A result is converted
recursively: anything with ``.shape``/``.stride`` becomes a
:class:`LayoutValue`, ints stay ints, tuples stay tuples; ``evaluate=True``
also returns ``[r(i) for i in range(size(r))]`` computed by CuTe DSL itself
(use it for swizzled results; plain layouts are cheaper to evaluate in Python).
An exception inside one operation (``MLIRError`` "unable to compute
composition", ``ValueError`` for unsupported argument kinds, ...) is caught and
reported as ``Result(ok=False, error="MLIRError: ...")``; the other operations in
the batch still run.  Known wrong answers (see shared/ORACLES.md): divisibility
violations are not checked, so judge results by their function, never by
agreement alone.

The scratch cache goes to ``$LAYOUTALG_ORACLE_TMP`` (default: a folder under
the system temp dir); it is set before CuTe DSL is imported.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable

_SCRATCH = os.environ.get("LAYOUTALG_ORACLE_TMP") or os.path.join(tempfile.gettempdir(), "layoutalg_cute_dsl")
os.makedirs(_SCRATCH, exist_ok=True)
os.environ.setdefault("CUTE_DSL_CACHE_DIR", os.path.join(_SCRATCH, "cache"))

_cute: Any = None


def cute_module() -> Any:
    """Import ``cutlass.cute`` once (TMPDIR pointed at the scratch folder while importing)."""
    global _cute
    if _cute is None:
        old = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = _SCRATCH
        try:
            import cutlass.cute as cute
        finally:
            if old is None:
                os.environ.pop("TMPDIR", None)
            else:
                os.environ["TMPDIR"] = old
        _cute = cute
    return _cute


@dataclass(frozen=True)
class Lay:
    """A plain layout ``shape:stride`` (stride None: CuTe's default, column-major)."""

    shape: Any
    stride: Any = None


@dataclass(frozen=True)
class Swz:
    """``cute.make_swizzle(bits, base, shift)``."""

    bits: int
    base: int
    shift: int


@dataclass(frozen=True)
class Composed:
    """``cute.make_composed_layout(outer, offset, inner)``."""

    outer: Any
    offset: int
    inner: Any


@dataclass(frozen=True)
class LayoutValue:
    """A layout read back from CuTe DSL as plain ints and tuples."""

    shape: Any
    stride: Any

    def __str__(self) -> str:
        return f"{_fmt(self.shape)}:{_fmt(self.stride)}"


def _fmt(t: Any) -> str:
    if isinstance(t, tuple):
        return "(" + ",".join(_fmt(e) for e in t) + ")"
    return str(t)


@dataclass
class Result:
    ok: bool
    value: Any = None
    values: list[int] | None = None
    error: str | None = None


@dataclass
class _Op:
    fn: Any  # a cute function name (str) or a module-level callable fn(cute, *args)
    args: tuple[Any, ...]
    evaluate: bool
    max_values: int
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Batch:
    """A list of operations run together by :meth:`run` in one trace."""

    ops: list[_Op] = field(default_factory=list)

    def call(self, name: str, *args: Any, evaluate: bool = False, max_values: int = 4096, **kwargs: Any) -> int:
        """Queue ``cute.<name>(*args, **kwargs)``; returns the index of its result."""
        self.ops.append(_Op(name, args, evaluate, max_values, kwargs))
        return len(self.ops) - 1

    def custom(self, fn: Callable[..., Any], *args: Any, evaluate: bool = False, max_values: int = 4096) -> int:
        """Queue ``fn(cute, *built_args)``; returns the index of its result."""
        self.ops.append(_Op(fn, args, evaluate, max_values))
        return len(self.ops) - 1

    def run(self, isolate: bool = True) -> list[Result]:
        """Trace once, running every queued operation; results in queue order.

        With ``isolate`` (the default) the trace runs in a separate worker
        process (started once, reused): some inputs crash CuTe DSL natively
        (SIGFPE inside its C++), which would kill the caller.  After a crash the
        worker is restarted and the batch split in halves, so only the crashing
        operation comes back as ``Result(False, error="crashed: ...")``.
        Isolation needs picklable operations: :meth:`call` always is; a batch
        holding a :meth:`custom` function that is a local closure runs in this
        process instead (define it at module level to isolate it).
        """
        if not isolate or not _picklable(self.ops):
            return _trace(self.ops)  # local closures cannot travel to the worker: run here
        return _isolated(self.ops)


def _picklable(ops: list[_Op]) -> bool:
    import pickle

    try:
        pickle.dumps(ops)
    except Exception:
        return False
    return True


def _trace(ops: list[_Op]) -> list[Result]:
    cute = cute_module()
    results: list[Result] = [Result(False, error="not run") for _ in ops]

    @cute.jit
    def trace() -> None:
        for k, op in enumerate(ops):
            results[k] = _run_one(cute, op)

    trace()
    return results


_worker: Any = None


def _serve() -> None:
    """Worker loop on stdin/stdout: receive pickled op lists, trace them, send pickled results."""
    import pickle
    import struct

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # CuTe DSL's own prints must not corrupt the channel
    cute_module()
    while True:
        head = inp.read(8)
        if len(head) < 8:
            return
        ops = pickle.loads(inp.read(struct.unpack("<Q", head)[0]))
        data = pickle.dumps(_trace(ops))
        out.write(struct.pack("<Q", len(data)) + data)
        out.flush()


def _start_worker() -> Any:
    import subprocess

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = f"import sys; sys.path.insert(0, {here!r}); from oracles.cute_dsl import _serve; _serve()"
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def _exchange(proc: Any, ops: list[_Op]) -> list[Result]:
    import pickle
    import struct

    data = pickle.dumps(ops)
    proc.stdin.write(struct.pack("<Q", len(data)) + data)
    proc.stdin.flush()
    head = proc.stdout.read(8)
    if len(head) < 8:
        raise EOFError("worker died")
    return pickle.loads(proc.stdout.read(struct.unpack("<Q", head)[0]))  # type: ignore[no-any-return]


def _isolated(ops: list[_Op]) -> list[Result]:
    global _worker
    if not ops:
        return []
    if _worker is None or _worker.poll() is not None:
        _worker = _start_worker()
    try:
        return _exchange(_worker, ops)
    except (EOFError, OSError):
        code = _worker.wait(timeout=10)
        _worker = None
    if len(ops) == 1:
        return [Result(False, error=f"crashed: exit code {code}")]
    half = len(ops) // 2
    return _isolated(ops[:half]) + _isolated(ops[half:])


def run(name: str, *args: Any, evaluate: bool = False) -> Result:
    """One operation in its own trace (a few ms; prefer :class:`Batch`)."""
    batch = Batch()
    batch.call(name, *args, evaluate=evaluate)
    return batch.run()[0]


def _build(cute: Any, x: Any) -> Any:
    if isinstance(x, Lay):
        if x.stride is None:
            return cute.make_layout(x.shape)
        return cute.make_layout(x.shape, stride=x.stride)
    if isinstance(x, Swz):
        return cute.make_swizzle(x.bits, x.base, x.shift)
    if isinstance(x, Composed):
        return cute.make_composed_layout(_build(cute, x.outer), x.offset, _build(cute, x.inner))
    if isinstance(x, (tuple, list)):
        return tuple(_build(cute, e) for e in x)
    return x


def _plain(x: Any) -> Any:
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, tuple):
        return tuple(_plain(e) for e in x)
    if hasattr(x, "shape") and hasattr(x, "stride"):
        return LayoutValue(_plain(x.shape), _plain(x.stride))
    try:
        return int(x)
    except Exception as err:  # a dynamic value: not comparable as a static answer
        raise TypeError(f"result holds a non-static value {type(x).__name__}") from err


def _run_one(cute: Any, op: _Op) -> Result:
    try:
        args = [_build(cute, a) for a in op.args]
        kwargs = {k: _build(cute, v) for k, v in op.kwargs.items()}
        raw = getattr(cute, op.fn)(*args, **kwargs) if isinstance(op.fn, str) else op.fn(cute, *args, **kwargs)
        value = _plain(raw)
        values = None
        if op.evaluate:
            n = int(cute.size(raw))
            if n > op.max_values:
                raise ValueError(f"size {n} is over max_values {op.max_values}")
            values = [int(raw(i)) for i in range(n)]
        return Result(True, value, values)
    except Exception as err:  # every DSL failure is data for the caller
        return Result(False, error=f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:300])


__all__ = ["Batch", "Lay", "Swz", "Composed", "LayoutValue", "Result", "run", "cute_module"]

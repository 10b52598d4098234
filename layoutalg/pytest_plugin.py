"""pytest plugin (entry point ``pytest11: layoutalg``): theorem files run as tests, plus assertion helpers.

**Collection.**  A ``.py`` file is a theorem file when its name matches
``thm_*.py`` or ``*_thm.py``, or when it lies in a folder named ``proofs``
(at any depth below pytest's rootdir) -- the same files ``layoutalg prove`` runs -- unless its name
starts with ``_``, ``test_`` or is ``conftest.py`` (those belong to pytest's
own collection).  Each ``@theorem`` in it becomes one test item; the item
passes when the theorem's outcome equals its ``expect``, and otherwise fails
with the claim, the verdict and the counterexample in the kernel's terms.
``pytest proofs/`` therefore runs a repository's proofs with its tests; the
``--prove-timeout S`` option sets z3's limit per claim.

**Helpers** (for ordinary tests): :func:`assert_equivalent`,
:func:`assert_bijective`, :func:`assert_injective`, :func:`assert_fragment`,
:func:`assert_conflict_free` -- each raises ``AssertionError`` whose message is
the rendered result (counterexample included) unless the claim is proved;
:func:`assert_kernel_conflict_free`, :func:`assert_kernel_wavefronts` trace a
kernel's PTX (``layoutalg.kernel.trace``) and check its shared-memory counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from layoutalg.prove.result import ProofResult
from layoutalg.prove.runner import is_theorem_file


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("layoutalg")
    group.addoption("--prove-timeout", type=float, default=None, metavar="S", help="z3 time limit per claim in theorem files")


def pytest_collect_file(file_path: Path, parent: Any) -> Any:
    """Folders count from pytest's rootdir, so a checkout that happens to live under some ``proofs/``
    folder does not turn every module into a theorem file."""
    if is_theorem_file(Path(file_path), Path(parent.config.rootpath)):
        return TheoremFile.from_parent(parent, path=Path(file_path))
    return None


class TheoremFile(pytest.File):
    def collect(self) -> Any:
        from layoutalg.prove.runner import load_module, theorems_in

        module = load_module(Path(self.path))
        for t in theorems_in(module):
            yield TheoremItem.from_parent(self, name=t.name, theorem=t)


class TheoremFailedError(Exception):
    """A theorem whose outcome differs from its expectation (the message is the rendered outcome)."""


class TheoremItem(pytest.Item):
    def __init__(self, *, theorem: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.theorem = theorem

    def runtest(self) -> None:
        from layoutalg.prove.theorem import run_theorem

        timeout = self.config.getoption("--prove-timeout", default=None)
        outcome = run_theorem(self.theorem, timeout=timeout)
        if not outcome.ok:
            lines = [f"theorem {self.theorem.name}: expected {self.theorem.expect}, got {outcome.status}"]
            if outcome.result is not None:
                lines.append(outcome.result.render())
            if outcome.error:
                lines.append(outcome.error)
            raise TheoremFailedError("\n".join(lines))

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, TheoremFailedError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"theorem {self.theorem.name} (expect {self.theorem.expect})"


# ------------------------------------------------------------------ assertion helpers
def _require(result: ProofResult) -> ProofResult:
    __tracebackhide__ = True
    if result.status != "proved":
        raise AssertionError(result.render())
    return result


def assert_equivalent(f: Any, g: Any, domain: Any = None, **kwargs: Any) -> ProofResult:
    """Assert ``f == g`` on the domain (see :func:`layoutalg.prove.equivalent`)."""
    __tracebackhide__ = True
    from layoutalg.prove import equivalent

    return _require(equivalent(f, g, domain, **kwargs))


def assert_injective(f: Any, domain: Any = None, **kwargs: Any) -> ProofResult:
    __tracebackhide__ = True
    from layoutalg.prove import injective

    return _require(injective(f, domain, **kwargs))


def assert_bijective(f: Any, n: int | None = None, domain: Any = None, **kwargs: Any) -> ProofResult:
    """Assert ``f`` is a bijection onto ``[0, n)`` (``n`` defaults to the number of domain points)."""
    __tracebackhide__ = True
    from layoutalg.prove import bijective_onto
    from layoutalg.prove.claims import make_fn

    if n is None:
        fn = make_fn(f, domain)
        n = 1
        for v in fn.variables:
            n *= v.count()
    return _require(bijective_onto(f, n, domain, **kwargs))


def assert_fragment(actual: Any, expected: Any, *, lanes: int = 32, values: int | None = None, names: tuple[str, str] = ("actual", "expected"), **kwargs: Any) -> ProofResult:
    """Assert two thread-value maps agree for every lane and value.

    ``actual`` and ``expected`` are TV layouts (``(lane, value) -> index``, e.g. an
    atom's ``a_layout``) or functions ``(lane, value) -> term or (row, col)``;
    ``values`` defaults to the size of a TV layout's value mode.
    """
    __tracebackhide__ = True
    from layoutalg.core.layout import Layout
    from layoutalg.prove import equivalent

    if values is None:
        for candidate in (actual, expected):
            if isinstance(candidate, Layout) and candidate.rank() >= 2:
                values = candidate[1].size()
                break
    if values is None:
        raise AssertionError("assert_fragment: pass values= (the number of values each lane holds)")
    return _require(equivalent(actual, expected, {"lane": lanes, "value": values}, names=names, **kwargs))


def assert_conflict_free(*args: Any, **kwargs: Any) -> Any:
    """Assert ``layoutalg.banks.conflict_free(*args, **kwargs)`` proves the access bank-conflict free."""
    __tracebackhide__ = True
    from layoutalg import banks

    result = banks.conflict_free(*args, **kwargs)
    status = getattr(result, "status", None)
    if status != "proved":
        render = getattr(result, "render", None)
        raise AssertionError(render() if callable(render) else str(result))
    return result


def assert_kernel_conflict_free(ptx: Any, **trace_kwargs: Any) -> Any:
    """Trace a launch (``layoutalg.kernel.trace(ptx, **trace_kwargs)``) and assert every shared-memory
    instruction is at its ideal wavefront count, with nothing unmodelled or data-dependent; returns the trace."""
    __tracebackhide__ = True
    from layoutalg.kernel import trace

    t = trace(ptx, **trace_kwargs)
    if not t.complete or any(s.excess for s in t.instructions):
        raise AssertionError("kernel is not provably conflict-free:\n" + t.report())
    return t


def assert_kernel_wavefronts(ptx: Any, expected: Any, **trace_kwargs: Any) -> Any:
    """Trace a launch and assert its counts: ``expected`` maps Nsight metric names (e.g.
    ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum``) to whole-launch values, and/or PTX line
    numbers to that instruction's wavefronts.  Fails on anything unmodelled or data-dependent; returns the trace."""
    __tracebackhide__ = True
    from layoutalg.kernel import trace

    t = trace(ptx, **trace_kwargs)
    if not t.complete:
        raise AssertionError("kernel trace is incomplete (unmodelled or data-dependent accesses):\n" + t.report())
    counters = t.counters
    wrong = []
    for key, want in dict(expected).items():
        if isinstance(key, int):
            got = next((s.wavefronts for s in t.instructions if s.line == key), None)
            what = f"PTX line {key}"
        else:
            if key not in counters:
                raise AssertionError(f"unknown counter {key!r}; known: {', '.join(counters)}")
            got, what = counters[key], key
        if got != want:
            wrong.append(f"{what}: expected {want}, traced {got}")
    if wrong:
        raise AssertionError("\n".join(wrong) + "\n" + t.report())
    return t


__all__ = [
    "assert_kernel_conflict_free",
    "assert_kernel_wavefronts",
    "is_theorem_file",
    "assert_equivalent",
    "assert_injective",
    "assert_bijective",
    "assert_fragment",
    "assert_conflict_free",
    "TheoremFile",
    "TheoremItem",
]

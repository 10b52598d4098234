"""pytest plugin (entry point ``pytest11: layoutalg``): theorem files run as tests, plus assertion helpers.

**Collection is opt-in**: installing layoutalg does not make pytest collect anything new.  Ask for it with

* ``--layoutalg-proofs`` on the command line: every theorem file pytest visits is collected, folders counted
  from pytest's rootdir; or
* the ini option ``layoutalg_proofs`` (a list of folders, relative to the ini file): the theorem files under
  those folders, folders counted from each (``layoutalg_proofs = proofs`` in ``pytest.ini``, or
  ``layoutalg_proofs = ["proofs"]`` under ``[tool.pytest.ini_options]``).

A theorem file is what ``layoutalg prove`` runs (:func:`~layoutalg.prove.runner.is_theorem_file`):
``thm_*.py``, ``*_thm.py``, or any ``.py`` in a folder named ``proofs`` -- never ``_*``, ``test_*`` or
``conftest.py`` (those belong to pytest's own collection).  Each ``@theorem`` in it becomes one test item;
the item passes when the theorem's outcome equals its ``expect``, and otherwise fails with the claim, the
verdict and the counterexample in the kernel's terms.  ``--prove-timeout S`` sets z3's limit per claim.
``-p no:layoutalg`` turns the plugin off altogether.

**Helpers** (for ordinary tests): :func:`assert_equivalent`,
:func:`assert_bijective`, :func:`assert_injective`, :func:`assert_fragment`,
:func:`assert_conflict_free` -- each raises ``AssertionError`` whose message is
the rendered result (counterexample included) unless the claim is proved
("unknown" fails too), and fails when its arguments differ in size;
:func:`assert_kernel_conflict_free`, :func:`assert_kernel_wavefronts` trace a
kernel's PTX (``layoutalg.kernel.trace``) and check its shared-memory counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from layoutalg.core.validate import describe
from layoutalg.prove.result import ProofResult
from layoutalg.prove.runner import is_theorem_file


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("layoutalg")
    group.addoption("--prove-timeout", type=float, default=None, metavar="S", help="z3 time limit per claim in theorem files")
    group.addoption("--layoutalg-proofs", action="store_true", default=False,
                    help="collect layoutalg theorem files (thm_*.py, *_thm.py, .py under a folder named proofs) "
                         "among the files pytest visits")
    parser.addini("layoutalg_proofs", type="paths", default=[],
                  help="folders whose layoutalg theorem files pytest collects (off when empty)")


def proof_roots(config: Any) -> list[Path]:
    """The folders theorem files are collected from: none unless asked for (see the module doc)."""
    roots = [Path(p) for p in config.getini("layoutalg_proofs") or []]
    if config.getoption("--layoutalg-proofs", default=False):
        roots.append(Path(config.rootpath))
    return roots


def pytest_collect_file(file_path: Path, parent: Any) -> Any:
    """A theorem file under one of :func:`proof_roots`, its folders counted from that root (so a checkout that
    happens to live under some ``proofs/`` folder does not turn every module into a theorem file)."""
    path = Path(file_path)
    for root in proof_roots(parent.config):
        if _under(path, root) and is_theorem_file(path, root):
            return TheoremFile.from_parent(parent, path=path)
    return None


def _under(path: Path, root: Path) -> bool:
    """``path`` lies in ``root``, as written (a symlinked folder counts where it is linked) or resolved."""
    for p, r in ((path.absolute(), root.absolute()), (path.resolve(), root.resolve())):
        try:
            p.relative_to(r)
            return True
        except ValueError:
            pass
    return False


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


def _domain_size(f: Any) -> int | None:
    size = getattr(f, "size", None)
    if callable(size) and hasattr(f, "shape"):
        return int(size())
    return None


def assert_equivalent(f: Any, g: Any, domain: Any = None, **kwargs: Any) -> ProofResult:
    """Assert ``f == g`` on the domain (see :func:`layoutalg.prove.equivalent`).

    Without ``domain``, two layouts must also have the same size (else the claim compares different domains).
    """
    __tracebackhide__ = True
    from layoutalg.prove import equivalent

    if domain is None:
        sizes = _domain_size(f), _domain_size(g)
        if None not in sizes and sizes[0] != sizes[1]:
            raise AssertionError(f"not equivalent: {f} has {sizes[0]} points, {g} has {sizes[1]}")
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


def _tv_extents(tv: Any, name: str) -> tuple[int, int] | None:
    """``(lanes, values)`` of a TV layout (its two modes' sizes); None for a function."""
    if not (hasattr(tv, "shape") and callable(getattr(tv, "size", None))):
        return None
    shape = tv.shape
    if not isinstance(shape, tuple) or len(shape) != 2:
        raise AssertionError(f"assert_fragment: {name} {tv} is not a (lane, value) layout: it must have two modes")
    return tv[0].size(), tv[1].size()


def assert_fragment(actual: Any, expected: Any, *, lanes: int = 32, values: int | None = None, names: tuple[str, str] = ("actual", "expected"), **kwargs: Any) -> ProofResult:
    """Assert two thread-value maps agree for every lane and value, and have the same extents.

    ``actual`` and ``expected`` are TV layouts (``(lane, value) -> index``, e.g. an
    atom's ``a_layout``) or functions ``(lane, value) -> term or (row, col)``.
    A TV layout's lane mode must hold ``lanes`` lanes and its value mode ``values``
    values (default: the value count of the TV layouts, which must agree), so
    fragments of different sizes never pass by agreeing on the smaller one.
    """
    __tracebackhide__ = True
    from layoutalg.prove import equivalent

    extents = {name: e for name, e in ((names[0], _tv_extents(actual, names[0])),
                                       (names[1], _tv_extents(expected, names[1]))) if e is not None}
    if values is None:
        counts = sorted({v for _, v in extents.values()})
        if len(counts) > 1:
            raise AssertionError("fragments differ in size: " + ", ".join(
                f"{n} holds {v} values per lane" for n, (_, v) in extents.items()))
        if not counts:
            raise AssertionError("assert_fragment: pass values= (the number of values each lane holds)")
        values = counts[0]
    for name, (n_lanes, n_values) in extents.items():
        if n_lanes != lanes or n_values != values:
            raise AssertionError(f"fragments differ in size: {name} covers {n_lanes} lanes x {n_values} values, "
                                 f"the claim {lanes} lanes x {values} values")
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
                raise AssertionError(f"unknown counter {describe(key)}; known: {', '.join(counters)}")
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

"""A warm pytest session that maps the suite and runs mutants without re-collecting.

    python tools/mutation/server.py TEST_PATH...

Collects the given tests once (pytest's own collection, conftest included), then
serves JSON requests, one a line, on the stdin it was started with and answers on
its stdout (pytest's own output goes to ``.mutation/server.log``).  Every request
forks a child, so nothing a test or a mutant does survives into the next one.

``{"op": "map", "tests": [nodeid...], "out": path}``
    runs the tests under coverage, one dynamic context per test, each starting with empty caches (as a judged
    fork has them: ``functools`` caches and computed ``cached_property`` values), and writes
    ``{"tests": {nodeid: {"seconds", "outcome", "fixture_setup", "fixtures"}}, "fixture_seconds": {fixture:
    seconds}, "lines": {file: {line: [nodeid...]}}}`` to ``out``: the per-test durations and the unmutated
    outcome (the baseline).  A module- or session-scoped fixture is set up by the first test that needs it
    (``fixture_setup``: its seconds inside that test's), and every judged fork sets it up afresh: each test
    names the wide fixtures it uses, and ``fixture_seconds`` their setup times, so that a judge can charge
    them to whichever test runs first (a CuTe DSL oracle fixture took 40 s under a test mapped at 0.3 s).

``{"op": "mutant", "module", "path", "source", "qualname", "firstlineno", "tests", "timeout"}``
    applies the mutated ``source`` of ``module`` *in process*: the live function
    ``qualname`` (defined at ``firstlineno``) gets the mutated code object
    (``__code__`` swap, so every reference to it, ``from x import f`` included,
    runs the mutant), every ``functools`` cache and computed ``cached_property`` is cleared, and the collected
    items ``tests`` run in order through pytest's ``runtestprotocol``, stopping at
    the first failure.  With ``qualname`` null (a module-level mutant) or when
    the function cannot be found, the child instead drops ``layoutalg`` and the
    test modules from ``sys.modules``, serves the mutated source through an
    import hook and runs ``pytest.main`` on the tests (a fresh import: slower,
    but it sees module-level code, default arguments, decorators).
    The reply: ``{"code": 0 | 1 | -9 | other, "killer": nodeid | null, "mode": "code" | "global" | "no-rebind" |
    "reimport"}``; with ``rebind_line`` a module-level assignment is re-run in the live module instead
    (:func:`rebind_global`; "no-rebind" when it cannot be); with ``rerun`` the module's import-time data is
    re-run in the live process (:func:`rerun_in_place`, mode "rerun"; "no-rerun" when it cannot be);
    0 every test passed, 1 a test failed, -9 the time ran out, anything else a crash.

Hypothesis runs derandomized, without a database and without deadlines (a slow
machine must not turn into a kill).
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.abc
import importlib.util
import json
import os
import signal
import sys
import time
import types
import weakref
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rerun import covers_line, rerun_data  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PROGRESS = ROOT / ".mutation" / f"current_test_{os.getpid()}"
"""Which test the forked judge is running (one file per server process, so two servers can run side by side)."""


def _hypothesis_profile() -> None:
    """Hypothesis for judging mutants: derandomized, no database, and no shrinking.

    A failing example kills the mutant as it is; shrinking it (seconds per kill) only makes a smaller report,
    never a different verdict.  Tests' own ``@settings`` inherit these phases (loaded before collection).
    """
    from hypothesis import HealthCheck, Phase, settings

    settings.register_profile("mutation", deadline=None, derandomize=True, database=None, print_blob=False,
                              suppress_health_check=list(HealthCheck),
                              phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target))
    settings.load_profile("mutation")


def _find_code(code: types.CodeType, qualname: str, firstlineno: int) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if getattr(const, "co_qualname", None) == qualname and const.co_firstlineno == firstlineno:
                return const
            found = _find_code(const, qualname, firstlineno)
            if found is not None:
                return found
    return None


def _functions_of(namespace: dict[str, Any], module_name: str, seen: set[int]) -> list[types.FunctionType]:
    """Every function reachable from a module's or class's namespace (unwrapping methods and decorators)."""
    out: list[types.FunctionType] = []
    for value in list(namespace.values()):
        if id(value) in seen:
            continue
        seen.add(id(value))
        candidates = [value]
        if isinstance(value, (staticmethod, classmethod)):
            candidates = [value.__func__]
        elif isinstance(value, property):
            candidates = [f for f in (value.fget, value.fset, value.fdel) if f is not None]
        elif isinstance(value, type) and value.__module__ == module_name:
            out += _functions_of(dict(vars(value)), module_name, seen)
            continue
        for candidate in candidates:
            while True:
                if isinstance(candidate, types.FunctionType):
                    out.append(candidate)
                wrapped = getattr(candidate, "__wrapped__", None)
                if wrapped is None or wrapped is candidate:
                    break
                candidate = wrapped
    return out


OWN_PACKAGES = ("layoutalg",)
"""Packages whose caches a judge clears: their ``functools`` caches, and every ``cached_property`` they computed."""

_COMPUTED: list[tuple[Any, str]] = []
"""(reference to the instance, attribute name) of each cached_property of our packages computed so far."""


def track_cached_properties() -> None:
    """Record every ``functools.cached_property`` our packages compute, so :func:`_clear_caches` can drop it.

    A cached property lives in its instance's ``__dict__`` and is computed once: an atom's layout fitted while
    the tests were collected (before any fork) would hide a mutant of the fitting code from every judge, and a
    layout fitted by one test would leave the next one's coverage without the fitting lines.  The descriptor's
    ``__get__`` runs only when the value is computed (a stored value shadows it), so wrapping it records
    exactly the computations.
    """
    compute = functools.cached_property.__get__
    if getattr(compute, "tracked", False):
        return

    def tracked(self: Any, instance: Any, owner: Any = None) -> Any:
        value = compute(self, instance, owner)
        if instance is not None and type(instance).__module__.split(".")[0] in OWN_PACKAGES:
            try:
                ref: Any = weakref.ref(instance)
            except TypeError:
                ref = functools.partial(lambda kept: kept, instance)
            _COMPUTED.append((ref, self.attrname))
        return value

    tracked.tracked = True  # type: ignore[attr-defined]
    functools.cached_property.__get__ = tracked  # type: ignore[method-assign]


def _clear_caches() -> None:
    """Empty every ``functools`` cache of our modules and drop every cached property they computed."""
    for ref, name in _COMPUTED:
        instance = ref()
        if instance is not None:
            vars(instance).pop(name, None)
    _COMPUTED.clear()
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in OWN_PACKAGES or module is None:
            continue
        for value in list(vars(module).values()):
            targets = [value] + (list(vars(value).values()) if isinstance(value, type) else [])
            for target in targets:
                target = getattr(target, "__func__", target)
                clear = getattr(target, "cache_clear", None)
                if callable(clear) and isinstance(target, functools._lru_cache_wrapper):
                    clear()


def _live_module(module_name: str) -> types.ModuleType | None:
    """The imported module (importing the original if the code under test loads it lazily), or None."""
    module = sys.modules.get(module_name)
    if module is None:
        try:
            module = importlib.import_module(module_name)
        except Exception:
            return None
    return module


def swap_code(module_name: str, path: str, source: str, qualname: str, firstlineno: int) -> bool:
    """Put the mutated code of ``qualname`` into the live function; False when that is not possible."""
    module = _live_module(module_name)
    if module is None:
        return False
    new_code = _find_code(compile(source, path, "exec"), qualname, firstlineno)
    if new_code is None:
        return False
    live = [f for f in _functions_of(dict(vars(module)), module_name, set())
            if getattr(f.__code__, "co_qualname", None) == qualname and f.__code__.co_firstlineno == firstlineno]
    if not live or any(f.__code__.co_freevars != new_code.co_freevars for f in live):
        return False
    old_code = live[0].__code__
    for function in live:
        function.__code__ = new_code
    _swap_nested(old_code, new_code)
    _clear_caches()
    return True


def _code_tree(code: types.CodeType) -> list[types.CodeType]:
    """``code`` and every code object nested in it (closures, lambdas, comprehensions)."""
    out = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out.extend(_code_tree(const))
    return out


def _swap_nested(old_code: types.CodeType, new_code: types.CodeType) -> None:
    """Give every live function made from a code object nested in ``old_code`` (a decorator's wrapper, a closure
    built at import) the matching mutated code: swapping the outer function alone changes only functions made
    after the swap, so a mutant inside an import-time closure would otherwise never run."""
    import gc

    old_nested = {id(c) for c in _code_tree(old_code)[1:]}
    if not old_nested:
        return
    matching = {(getattr(c, "co_qualname", c.co_name), c.co_firstlineno): c for c in _code_tree(new_code)[1:]}
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and id(obj.__code__) in old_nested:
            code = obj.__code__
            replacement = matching.get((getattr(code, "co_qualname", code.co_name), code.co_firstlineno))
            if replacement is not None and replacement.co_freevars == code.co_freevars:
                obj.__code__ = replacement


def rebind_global(module_name: str, path: str, source: str, line: int) -> bool:
    """Re-run the mutated module-level assignment holding ``line`` in the live module; False when not possible.

    Only a plain ``NAME = value`` (or ``NAME: T = value``) whose value calls nothing (literals, arithmetic,
    names, containers, comprehensions without calls) is rebound: re-running it has no side effect.  A module
    that copied the old value (``from m import NAME``) keeps it, so a survivor here may be a false survivor
    (the caller then judges it by a fresh import); a kill is real.
    """
    module = _live_module(module_name)
    if module is None:
        return False
    tree = ast.parse(source)
    found = [node for node in tree.body if node.lineno <= line <= (node.end_lineno or node.lineno)]
    if len(found) != 1:
        return False
    statement = found[0]
    if isinstance(statement, ast.Assign):
        targets, value = statement.targets, statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets, value = [statement.target], statement.value
    else:
        return False
    if not all(isinstance(t, ast.Name) for t in targets) or any(isinstance(n, ast.Call) for n in ast.walk(value)):
        return False
    try:
        exec(compile(ast.Module(body=[statement], type_ignores=[]), path, "exec"), vars(module))
    except Exception:
        return False
    _clear_caches()
    return True


def rerun_in_place(request: dict[str, Any], items: list[Any]) -> bool:
    """Apply an import-time mutant by re-running its module's data (``rerun.rerun_data``); False when not possible.

    ``rerun_function`` (qualname, first line): the mutant is inside that function, whose code is swapped first;
    else ``rerun_line``, when given, must lie in a data statement (a mutant in a class body or a default argument
    is not re-run).  Neither: a control run of the source as given.  A re-run that raises is not possible here
    (the fresh import then judges it, where the module fails to import).
    """
    module = _live_module(request["module"])
    if module is None:
        return False
    path = str(ROOT / request["path"])
    function = request.get("rerun_function")
    if function:
        if not swap_code(request["module"], path, request["source"], function[0], function[1]):
            return False
    elif request.get("rerun_line") is not None and not covers_line(request["source"], request["rerun_line"]):
        return False
    try:
        rebuild = rerun_data(module, request["source"], path, ROOT)
    except Exception:
        return False
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", None)
        if params:
            for name, value in list(params.items()):
                params[name] = rebuild.renew(value)
    _clear_caches()
    return True


def fixture_key(fixturedef: Any) -> str:
    return f"{getattr(fixturedef, 'baseid', '')}::{getattr(fixturedef, 'argname', '?')}"


def wide_fixtures(item: Any) -> list[str]:
    """The module-, class-, package- or session-scoped fixtures ``item`` uses (the definitions it resolves to)."""
    info = getattr(item, "_fixtureinfo", None)
    found = []
    for definitions in (getattr(info, "name2fixturedefs", None) or {}).values():
        if definitions and str(getattr(definitions[-1], "scope", "function")) != "function":
            found.append(fixture_key(definitions[-1]))
    return sorted(found)


class _MutatedSource(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the mutated source for one module name; every other import goes the usual way."""

    def __init__(self, module_name: str, path: str, source: str) -> None:
        self.module_name, self.path, self.source = module_name, path, source

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.module_name:
            return None
        package = self.path.endswith("__init__.py")
        spec = importlib.util.spec_from_loader(fullname, self, origin=self.path, is_package=package)
        assert spec is not None
        spec.has_location = True
        if package:
            spec.submodule_search_locations = [os.path.dirname(self.path)]
        return spec

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.__file__ = self.path
        exec(compile(self.source, self.path, "exec"), vars(module))


def _reimport_and_run(request: dict[str, Any]) -> int:
    import pytest

    for name in list(sys.modules):
        if name == "layoutalg" or name.startswith(("layoutalg.", "tests", "conftest", "test_")):
            del sys.modules[name]
    sys.meta_path.insert(0, _MutatedSource(request["module"], str(ROOT / request["path"]), request["source"]))
    try:
        importlib.import_module(request["module"])
    except (Exception, SystemExit):  # the mutated module no longer imports (a frozen dataclass under a non-frozen
        return 2  # base; `if __name__ != "__main__": main()` exiting at import): every test that reaches it fails

    # --assert=plain: pytest's assertion-rewriting import hook would otherwise load layoutalg (marked for rewriting
    # as the package of an entry-point plugin) from disk ahead of the mutated source.
    files = sorted({nodeid.split("::")[0] for nodeid in request["tests"]})
    return int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "--assert=plain", *files],
                           plugins=[_OnlyThese(request["tests"])]))


class _OnlyThese:
    """Keep only the requested tests, in the requested order (chosen after collection: a parametrized id such as
    ``[['--json']]`` or one with escapes cannot be named on pytest's command line)."""

    def __init__(self, nodeids: list[str]) -> None:
        self.order = {nodeid: index for index, nodeid in enumerate(nodeids)}

    def pytest_collection_modifyitems(self, config: Any, items: list[Any]) -> None:
        kept = sorted((item for item in items if item.nodeid in self.order), key=lambda item: self.order[item.nodeid])
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in self.order])
        items[:] = kept


class Server:
    """The pytest plugin: takes over the run loop once the session has collected."""

    def __init__(self, requests: Any, replies: Any) -> None:
        self.requests, self.replies = requests, replies
        self.fixture_seconds: dict[str, float] = {}
        """Setup seconds of each module-, class-, package- or session-scoped fixture (``baseid::name``)."""
        self.wide_setup = 0.0
        """Seconds the current test spent setting up such fixtures (outermost ones only: no double count)."""
        self._wide_depth = 0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Any:
        wide = str(getattr(fixturedef, "scope", "function")) != "function"
        started = time.perf_counter()
        self._wide_depth += wide
        try:
            outcome = yield
        finally:
            self._wide_depth -= wide
        if wide:
            seconds = time.perf_counter() - started
            key = fixture_key(fixturedef)
            self.fixture_seconds[key] = max(self.fixture_seconds.get(key, 0.0), round(seconds, 4))
            if self._wide_depth == 0:
                self.wide_setup += seconds
        return outcome

    def pytest_runtestloop(self, session: Any) -> bool:
        items = {item.nodeid: item for item in session.items}
        self.reply({"ready": True, "items": list(items)})
        for raw in self.requests:
            request = json.loads(raw)
            if request["op"] == "map":
                self.reply(self.fork(lambda w, r=request: self.map(items, r, w), request.get("timeout", 3600)))
            else:
                self.reply(self.fork(lambda w, r=request: self.mutant(items, r, w), request["timeout"]))
        return True

    def reply(self, message: dict[str, Any]) -> None:
        self.replies.write(json.dumps(message) + "\n")
        self.replies.flush()

    @staticmethod
    def fork(child: Any, timeout: float) -> dict[str, Any]:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            exit_code = 3
            try:
                exit_code = child(write_end)
            finally:
                os._exit(exit_code)
        os.close(write_end)
        deadline = time.monotonic() + timeout
        code: int | None = None
        while code is None:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
            elif time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                code = -9
            else:
                time.sleep(0.005)
        with os.fdopen(read_end) as pipe:
            text = pipe.read()
        message = json.loads(text) if text else {}
        if code == -signal.SIGALRM:  # a test ran past its limit
            code = 124
            message.update(mode="code", killer=PROGRESS.read_text())
        message["code"] = code
        return message

    @staticmethod
    def run_items(selected: list[Any], stop_on_failure: bool, on_done: Any, before: Any = None) -> int:
        from _pytest.runner import runtestprotocol

        for index, item in enumerate(selected):
            if before is not None:
                before(item)
            started = time.perf_counter()
            reports = runtestprotocol(item, nextitem=selected[index + 1] if index + 1 < len(selected) else None,
                                      log=False)
            failed = any(report.failed for report in reports)
            skipped = not failed and any(report.skipped for report in reports)
            on_done(item, time.perf_counter() - started, "failed" if failed else "skipped" if skipped else "passed")
            if failed and stop_on_failure:
                return 1
        return 0

    def map(self, items: dict[str, Any], request: dict[str, Any], write_end: int) -> int:
        import coverage

        selected = [items[t] for t in request["tests"] if t in items]
        cov = coverage.Coverage(data_file=None, include=[str(ROOT / "layoutalg" / "*")], config_file=False)
        tests: dict[str, dict[str, Any]] = {}

        def done(item: Any, seconds: float, outcome: str) -> None:
            tests[item.nodeid] = {"seconds": round(seconds, 4), "outcome": outcome,
                                  "fixture_setup": round(self.wide_setup, 4), "fixtures": wide_fixtures(item)}

        def before(item: Any) -> None:
            # each test starts with empty caches, as in a judged fork: a line that an earlier test's cached
            # result would skip is still recorded as this test's
            _clear_caches()
            self.wide_setup = 0.0
            cov.switch_context(item.nodeid)

        cov.start()
        self.run_items(selected, False, done, before)
        cov.stop()
        data = cov.get_data()
        lines: dict[str, dict[str, list[str]]] = {}
        for measured in data.measured_files():
            rel = os.path.relpath(measured, ROOT)
            by_line = data.contexts_by_lineno(measured)
            lines[rel] = {str(line): sorted(c for c in contexts if c) for line, contexts in by_line.items()}
        Path(request["out"]).write_text(json.dumps({"tests": tests, "fixture_seconds": self.fixture_seconds,
                                                    "lines": lines}))
        os.write(write_end, json.dumps({"ran": len(tests)}).encode())
        return 0

    def mutant(self, items: dict[str, Any], request: dict[str, Any], write_end: int) -> int:
        devnull = os.open(os.environ.get("MUTATION_CHILD_LOG", os.devnull), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        qualname: str = request.get("qualname") or ""
        if request.get("rerun"):
            swapped = rerun_in_place(request, [items[t] for t in request["tests"] if t in items])
            mode = "rerun"
        elif request.get("rebind_line"):
            swapped = rebind_global(request["module"], str(ROOT / request["path"]), request["source"],
                                    request["rebind_line"])
            mode = "global"
        else:
            swapped = bool(qualname) and swap_code(request["module"], str(ROOT / request["path"]),
                                                   request["source"], qualname, request["firstlineno"])
            mode = "code"
        if not swapped:
            if request.get("rerun"):
                os.write(write_end, json.dumps({"mode": "no-rerun"}).encode())
                return 0  # the caller goes on to a fresh import
            if request.get("rebind_line"):
                os.write(write_end, json.dumps({"mode": "no-rebind"}).encode())
                return 0  # the caller goes on to a fresh import
            os.write(write_end, json.dumps({"mode": "reimport"}).encode())
            return _reimport_and_run(request)
        killer: list[str] = []

        def done(item: Any, seconds: float, outcome: str) -> None:
            if outcome == "failed":
                killer.append(item.nodeid)

        selected = [items[t] for t in request["tests"] if t in items]
        limits = request.get("limits", {})

        progress = os.open(PROGRESS, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)

        def before(item: Any) -> None:
            # SIGALRM's default action ends the child at once, even inside z3's C code (a Python handler would
            # wait for the call to return); the parent reads which test was running from PROGRESS
            os.ftruncate(progress, 0)
            os.pwrite(progress, item.nodeid.encode(), 0)
            signal.setitimer(signal.ITIMER_REAL, float(limits.get(item.nodeid, request["timeout"])))

        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        code = self.run_items(selected, True, done, before)
        signal.setitimer(signal.ITIMER_REAL, 0)
        os.write(write_end, json.dumps({"mode": mode, "killer": killer[0] if killer else None}).encode())
        return code


def main() -> None:
    requests = os.fdopen(os.dup(0), "r")
    replies = os.fdopen(os.dup(1), "w")
    log = os.open(ROOT / ".mutation" / f"server_{os.getpid()}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    _hypothesis_profile()
    track_cached_properties()
    pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]], plugins=[Server(requests, replies)])


if __name__ == "__main__":
    main()

"""Re-run a module's import-time data in the live process: the quick judgment of an import-time mutant.

A mutant on a line that runs only at import (a module-level table, a helper that builds one at import) is
out of reach of the code swap: what it changes is data built before any test ran.  The reliable judgment
is a fresh import of the package and a new pytest collection (10-30 s a mutant).  This one takes about a
second, in the forked judge that already holds the collected tests:

1. the caller swaps in the mutated function's code, where the mutant is inside a function;
2. every top-level *data statement* of the mutated module (anything but ``def``, ``class``, imports, and
   compound statements holding one of those) runs again, in order, in the live module's namespace:
   functions, classes and imported names stay the same objects, so everything rebuilt keeps its class;
3. every loaded layoutalg or test module that holds a replaced value under some name (``from m import
   TABLE``) is given the new value, and a layoutalg module that held one, or held a re-run module itself,
   re-runs its own data statements in turn (at most ``MAX_RERUNS`` times each);
4. the caller gives each collected test's parameters their new values (``_Rebuild.renew``: the elements of a
   replaced table are paired with the new table's by position, where that pairs each unchanged element with
   itself; a table whose elements moved (a mutant that reorders a sorted catalogue) raises
   :class:`MovedElementsError`, and the fresh import judges the mutant: paired by position, a test parametrized over
   one atom would be handed its neighbour and fail for a reason the mutant does not cause).

Soundness.  A value kept some other way (inside a container of an untouched module, a test's parameters,
fixed at collection) only makes this judgment miss a kill: a pass here is no verdict, and the fresh import
follows.  A failure here can also come from the re-run itself (a statement with a side effect, a registry
that refuses a second entry), so the caller counts a kill only where the same re-run of the *unmutated*
source passes the failing test (a control run).
"""

from __future__ import annotations

import ast
import sys
import types
from pathlib import Path

MAX_RERUNS = 3
"""How often one module's data statements may run again in one judgment (a module reached twice by the
propagation, before and after one of its own dependencies was rebuilt)."""

MAX_CHANGED_PAIRS = 256
"""The most changed positions of one table checked for moved elements (a pair test each); more is refused."""

CONTAINER_DEPTH = 2
"""How deep into a replaced tuple, list or dict its elements are paired with the new one's, by position or key."""

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def data_statements(source: str) -> list[ast.stmt]:
    """The top-level statements of ``source`` that build data: no definition or import inside, no docstring."""
    tree = ast.parse(source)
    kept = []
    for index, statement in enumerate(tree.body):
        if index == 0 and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue
        if any(isinstance(node, _DEFINITIONS) for node in ast.walk(statement)):
            continue
        kept.append(statement)
    return kept


def covers_line(source: str, line: int) -> bool:
    """Whether ``line`` lies in one of the data statements of ``source`` (so that re-running them runs it)."""
    return any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in data_statements(source))


def _in_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _is_test_module(module: types.ModuleType, tests_root: Path) -> bool:
    return (getattr(module, "__file__", None) or "").startswith(str(tests_root))


class MovedElementsError(Exception):
    """A rebuilt table holds an old element at another position: pairing by position would be wrong."""


def _equal(a: object, b: object) -> bool | None:
    """``a == b``, or None where the comparison raises or is no truth value (numpy arrays inside)."""
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - any failure to compare is "unknown"
        return None


def check_in_place(old: tuple[object, ...] | list[object], new: tuple[object, ...] | list[object]) -> None:
    """Raise :class:`MovedElementsError` unless ``new`` is ``old`` changed in place (same length assumed).

    The changed positions are those whose old and new elements are not known equal.  One changed position is an
    element changed in place.  With more, an old element equal (or not known unequal) to the new element at
    another changed position has moved, or may have: the pairing is refused."""
    changed = [i for i, (a, b) in enumerate(zip(old, new)) if _equal(a, b) is not True]
    if len(changed) <= 1:
        return
    if len(changed) > MAX_CHANGED_PAIRS:
        raise MovedElementsError(f"{len(changed)} positions changed; more than {MAX_CHANGED_PAIRS} are not checked")
    for i in changed:
        for j in changed:
            if i != j and _equal(old[i], new[j]) is not False:
                raise MovedElementsError(f"the element at {i} may now be at {j}")


class _Rebuild:
    """The values replaced so far, each with the generation (the count of re-runs) that replaced it."""

    def __init__(self) -> None:
        self.generation = 0
        self.replaced: dict[int, tuple[object, object, int]] = {}
        """id(old value) -> (old, new, generation); the old object is kept alive here, so its id stays unique."""
        self.rebuilt: dict[int, int] = {}
        """id(module) -> the generation of its latest re-run."""

    def run_data(self, module: types.ModuleType, source: str, path: str) -> None:
        """Run the data statements of ``source`` in ``module``, recording each name's old value -> new value."""
        self.generation += 1
        namespace = vars(module)
        before = dict(namespace)
        exec(compile(ast.Module(body=data_statements(source), type_ignores=[]), path, "exec"), namespace)
        for name, new in namespace.items():
            old = before.get(name, new)
            if old is not new and not isinstance(old, (types.ModuleType, types.FunctionType, type)):
                self.pair(old, new, CONTAINER_DEPTH)
        self.rebuilt[id(module)] = self.generation

    def pair(self, old: object, new: object, depth: int) -> None:
        """Record ``old -> new``, and the elements of equally shaped containers position by position (a test
        parametrized over a table holds its elements, not the table); :class:`MovedElementsError` where elements
        moved."""
        if old is new or isinstance(old, (int, float, str, bytes, bool, type(None))):
            return
        self.replaced[id(old)] = (old, new, self.generation)
        if depth == 0:
            return
        if isinstance(old, (tuple, list)) and isinstance(new, (tuple, list)) and len(old) == len(new):
            check_in_place(old, new)
            for old_item, new_item in zip(old, new):
                self.pair(old_item, new_item, depth - 1)
        elif isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
            for key, old_item in old.items():
                self.pair(old_item, new[key], depth - 1)

    def renew(self, value: object) -> object:
        """The newest replacement of ``value`` (itself when it was not replaced)."""
        for _ in range(MAX_RERUNS * 64):
            entry = self.replaced.get(id(value))
            if entry is None or entry[0] is not value:
                return value
            value = entry[1]
        return value

    def carry_into(self, other: types.ModuleType) -> int:
        """Give ``other`` the new value of every replaced one it holds; the newest generation it depended on."""
        namespace = vars(other)
        newest = 0
        for key, value in list(namespace.items()):
            entry = self.replaced.get(id(value))
            if entry is not None and entry[0] is value:
                namespace[key] = entry[1]
                newest = max(newest, entry[2])
            elif isinstance(value, types.ModuleType) and value is not other:
                newest = max(newest, self.rebuilt.get(id(value), 0))
        return newest


def rerun_data(module: types.ModuleType, source: str, path: str, root: Path, package: str = "layoutalg") -> _Rebuild:
    """Re-run ``module``'s data statements from ``source`` and carry the new values to every module that
    copied the old ones (see the module docstring; ``package``'s modules are re-run, those under ``root/tests``
    only given the new values); the record of what was replaced (``renew`` gives a test
    parameter its new value).  Raises whatever a re-run statement raises, and
    :class:`MovedElementsError` where a rebuilt table's elements moved (the caller then judges by a fresh import)."""
    rebuild = _Rebuild()
    rebuild.run_data(module, source, path)
    runs = {module.__name__: 1}
    changed = True
    while changed:
        changed = False
        for name, other in list(sys.modules.items()):
            if other is None or other is module:
                continue
            in_package = _in_package(name, package)
            if not in_package and not _is_test_module(other, root / "tests"):
                continue
            newest = rebuild.carry_into(other)
            origin = getattr(other, "__file__", None)
            stale = newest > rebuild.rebuilt.get(id(other), 0)
            if stale and in_package and origin and origin.endswith(".py") \
                    and runs.get(name, 0) < MAX_RERUNS:
                runs[name] = runs.get(name, 0) + 1
                rebuild.run_data(other, Path(origin).read_text(), origin)
                changed = True
    return rebuild

"""Re-running a module's import-time data carries a mutated table to every module and test parameter that copied it."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))
from rerun import MovedElementsError, check_in_place, covers_line, data_statements, rerun_data  # noqa: E402

TABLES = '''"""Tables built at import."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Atom:
    name: str
    width: int


def _build():
    return [Atom("a", 8), Atom("b", 16)]


ATOMS = tuple(_build())
BY_NAME = {}
for atom in ATOMS:
    BY_NAME[atom.name] = atom
'''

USER = '''from fakepkg.tables import ATOMS, Atom

WIDTHS = tuple(atom.width for atom in ATOMS)


def total():
    return sum(WIDTHS)
'''


@pytest.fixture
def fakepkg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    package = tmp_path / "fakepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tables.py").write_text(TABLES)
    (package / "user.py").write_text(USER)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("fakepkg.tables"), importlib.import_module("fakepkg.user"), tmp_path
    for name in [n for n in sys.modules if n == "fakepkg" or n.startswith("fakepkg.")]:
        del sys.modules[name]


def test_data_statements_are_the_top_level_code_that_is_no_definition_import_or_docstring() -> None:
    kinds = [type(statement).__name__ for statement in data_statements(TABLES)]
    assert kinds == ["Assign", "Assign", "For"]
    assert covers_line(TABLES, TABLES.splitlines().index("ATOMS = tuple(_build())") + 1)
    assert not covers_line(TABLES, TABLES.splitlines().index("    width: int") + 1)


def test_a_mutated_table_reaches_the_module_and_every_module_that_copied_it(fakepkg) -> None:
    tables, user, root = fakepkg
    old_atoms, atom_class = tables.ATOMS, tables.Atom
    mutated = TABLES.replace("ATOMS = tuple(_build())", "ATOMS = (_build()[0], Atom('b', 24))")
    rebuild = rerun_data(tables, mutated, str(root / "fakepkg" / "tables.py"), root, package="fakepkg")
    assert [atom.width for atom in tables.ATOMS] == [8, 24]
    assert user.ATOMS is tables.ATOMS and user.WIDTHS == (8, 24)
    assert tables.Atom is atom_class and all(type(atom) is atom_class for atom in tables.ATOMS)
    assert rebuild.renew(old_atoms[1]) is tables.ATOMS[1]  # a test parametrized over the old table
    assert rebuild.renew(old_atoms[0]) is tables.ATOMS[0]
    assert rebuild.renew(old_atoms) is tables.ATOMS
    assert rebuild.renew("unrelated") == "unrelated"


def test_a_table_whose_elements_moved_is_refused_so_no_test_is_handed_another_element(fakepkg) -> None:
    # paired by position, a test parametrized over atom "b" would be given atom "a" and fail for that reason
    tables, _, root = fakepkg
    mutated = TABLES.replace("ATOMS = tuple(_build())", "ATOMS = tuple(_build())[::-1]")
    with pytest.raises(MovedElementsError):
        rerun_data(tables, mutated, str(root / "fakepkg" / "tables.py"), root, package="fakepkg")


def test_moved_elements_are_told_from_elements_changed_in_place() -> None:
    check_in_place((1, 2, 3), (1, 5, 3))  # one element changed in place
    check_in_place((1, 2, 3), (7, 8, 9))  # every element changed in place, none equal to another's old value
    with pytest.raises(MovedElementsError):
        check_in_place((1, 2, 3), (2, 1, 3))
    with pytest.raises(MovedElementsError):
        check_in_place((1, 2, 3), (1, 3, 4))  # 3 moved to position 1
    check_in_place((1, np.arange(3)), (1, np.arange(4)))  # only the last position may have changed
    with pytest.raises(MovedElementsError):  # two positions not known equal and not known different: refused
        check_in_place((np.arange(2), np.arange(3)), (np.arange(3), np.arange(2)))


def test_the_unmutated_source_rebuilds_equal_tables(fakepkg) -> None:
    tables, user, root = fakepkg
    before = (tables.ATOMS, user.WIDTHS)
    rerun_data(tables, TABLES, str(root / "fakepkg" / "tables.py"), root, package="fakepkg")
    assert (tables.ATOMS, user.WIDTHS) == before


def test_a_mutated_builder_swapped_in_first_rebuilds_every_derived_table(fakepkg) -> None:
    tables, user, root = fakepkg
    path = str(root / "fakepkg" / "tables.py")
    mutated = TABLES.replace('Atom("b", 16)', 'Atom("b", 32)')
    namespace: dict[str, object] = {}
    exec(compile(mutated, path, "exec"), namespace)
    tables._build.__code__ = namespace["_build"].__code__  # what the judge's code swap does
    rerun_data(tables, mutated, path, root, package="fakepkg")
    assert tables.BY_NAME["b"].width == 32 and user.total() == 40


def test_a_module_outside_the_package_keeps_its_values(fakepkg, tmp_path: Path) -> None:
    tables, _, root = fakepkg
    (tmp_path / "outsider.py").write_text("from fakepkg.tables import ATOMS\n")
    outsider = importlib.import_module("outsider")
    try:
        old = outsider.ATOMS
        rerun_data(tables, TABLES.replace("tuple(_build())", "tuple(_build()[:1])"), str(root / "fakepkg" / "tables.py"),
                   root, package="fakepkg")
        assert outsider.ATOMS is old and len(tables.ATOMS) == 1
    finally:
        del sys.modules["outsider"]

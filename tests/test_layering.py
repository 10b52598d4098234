"""The layers of docs/DESIGN.md: a lower layer never imports an upper one.

Reads every module's import statements (without importing it) and checks that
each ``layoutalg.X`` it names belongs to the same or a lower layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "layoutalg"

LAYER_OF = {
    "errors": 0,
    "core": 1,
    "swizzle": 2,
    "atoms": 3,
    "prove": 4,
    "banks": 5,
    "kernel": 6,
    "gpu": 7,
    "cli": 8,
    "pytest_plugin": 8,
    "viz": 8,
    "interop": 8,
    "strategies": 8,
    "__main__": 8,
    "__init__": 8,
}


def layer_of_module(dotted: str) -> int | None:
    parts = dotted.split(".")
    if parts[0] != "layoutalg":
        return None
    if len(parts) == 1:
        return 8  # the package root re-exports; only front ends may import it
    return LAYER_OF.get(parts[1])


def imported_modules(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


def module_layer(path: Path) -> int:
    relative = path.relative_to(PACKAGE)
    top = relative.parts[0].removesuffix(".py")
    return LAYER_OF[top]


def test_every_module_has_a_layer() -> None:
    for path in PACKAGE.rglob("*.py"):
        top = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        assert top in LAYER_OF, f"{path} is in no layer; add it to docs/DESIGN.md and LAYER_OF"


# The one sanctioned upward reference: ``layoutalg.prove.conflict_free`` forwards to the
# banks layer at call time (it is spelled with importlib so the symbolic layer never loads it).
FACADES = {("layoutalg/prove/__init__.py", "layoutalg.banks.proof"),
           # notebook pictures: _repr_html_/_repr_svg_ draw through the front end only when a notebook asks
           ("layoutalg/core/display.py", "layoutalg.viz.notebook")}


def test_facades_are_lazy() -> None:
    for module_path, target in FACADES:
        source = (PACKAGE.parent / module_path).read_text()
        assert f'importlib.import_module("{target}")' in source, f"{module_path} no longer forwards to {target}"


def test_no_upward_imports() -> None:
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = module_layer(path)
        if own == 8:
            continue
        for name, line in imported_modules(path):
            target = layer_of_module(name)
            if target is not None and target > own:
                violations.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {name} (layer {target} > {own})")
    assert not violations, "upward imports:\n" + "\n".join(violations)

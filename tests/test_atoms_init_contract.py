"""The atoms package's lazy attributes (layoutalg/atoms/__init__.py): the tiled-partitioning names load
layoutalg.atoms.tiled on first use; a dunder probe (copy, pickle, inspect, star-imports ask for
``__all__``, ``__wrapped__`` ...) is answered without loading it, so it cannot start that import."""

from __future__ import annotations

import sys

import pytest

from layoutalg import atoms


@pytest.mark.parametrize("name", ["__wrapped__", "__all__", "__test__"])
def test_a_dunder_probe_is_answered_without_loading_the_tiled_layer(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setitem(sys.modules, "layoutalg.atoms.tiled", None)  # importing it now raises ImportError
    assert not hasattr(atoms, name)
    with pytest.raises(AttributeError):
        getattr(atoms, name)


def test_a_tiled_name_is_served_and_an_unknown_name_raises_attribute_error_naming_it() -> None:
    from layoutalg.atoms.tiled import make_tiled_mma

    assert atoms.make_tiled_mma is make_tiled_mma
    with pytest.raises(AttributeError, match="module 'layoutalg.atoms' has no attribute 'no_such_atom_helper'"):
        atoms.no_such_atom_helper  # noqa: B018

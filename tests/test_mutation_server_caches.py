"""A judged fork and each mapped test start without cached results, cached properties included."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))
import server  # noqa: E402


class Fitted:
    """Stands for an atom whose layout is fitted once, on first use."""

    fits = 0

    @functools.cached_property
    def layout(self) -> int:
        Fitted.fits += 1
        return Fitted.fits


class Foreign:
    @functools.cached_property
    def value(self) -> list[int]:
        return []


@pytest.fixture
def tracking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(functools.cached_property, "__get__", functools.cached_property.__get__)
    monkeypatch.setattr(server, "OWN_PACKAGES", (Fitted.__module__.split(".")[0],))
    monkeypatch.setattr(server, "_COMPUTED", [])
    server.track_cached_properties()


def test_clearing_caches_makes_a_computed_cached_property_compute_again(tracking: None) -> None:
    atom = Fitted()
    first = atom.layout
    assert atom.layout == first  # cached: computed once
    server._clear_caches()
    assert atom.layout == first + 1  # the fitting code runs again, as a mutant of it must


def test_tracking_twice_wraps_once_and_a_dead_instance_is_skipped(tracking: None) -> None:
    server.track_cached_properties()
    atom = Fitted()
    _ = atom.layout
    assert len(server._COMPUTED) == 1
    del atom
    server._clear_caches()
    assert server._COMPUTED == []


def test_cached_properties_of_other_packages_are_left_alone(tracking: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "OWN_PACKAGES", ("layoutalg",))
    other = Foreign()
    kept = other.value
    server._clear_caches()
    assert other.value is kept

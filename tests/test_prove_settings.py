"""Prover settings: their documented defaults as behaviour (engine choice, limits, environment), immutability."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from layoutalg.prove import config, forall, settings

CROSS_CHECK_ENV = "LAYOUTALG_CROSS_CHECK"


def test_settings_values_are_immutable() -> None:
    with settings(timeout=5) as chosen:
        assert chosen.timeout == 5
        with pytest.raises(dataclasses.FrozenInstanceError):
            chosen.timeout = 1  # type: ignore[misc]


def test_settings_given_none_keep_the_current_value() -> None:
    with settings(timeout=5):
        with settings(timeout=None, cross_check=None) as inner:
            assert inner.timeout == 5
            assert forall(True).proved


def test_cross_check_default_is_switched_on_by_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}
    try:
        for value in (None, "", "0", "1", "yes"):
            if value is None:
                monkeypatch.delenv(CROSS_CHECK_ENV, raising=False)
            else:
                monkeypatch.setenv(CROSS_CHECK_ENV, value)
            importlib.reload(config)
            seen[value] = config.current().cross_check
    finally:
        monkeypatch.undo()
        importlib.reload(config)
    assert seen == {None: False, "": False, "0": False, "1": True, "yes": True}


def test_auto_enumerates_up_to_two_to_the_sixteen_points_then_asks_z3() -> None:
    """``x % 3`` is not bit-linear, so auto chooses between enumeration and z3 by the domain's size alone."""
    at_limit = forall(lambda x: x % 3 < 3, {"x": 1 << 16})
    past_limit = forall(lambda x: x % 3 < 3, {"x": (1 << 16) + 1})
    assert at_limit.proved and at_limit.method == "enum"
    assert past_limit.proved and past_limit.method == "z3"


def test_enumeration_takes_up_to_two_to_the_twenty_two_points() -> None:
    at_limit = forall(lambda x: x != 0, {"x": 1 << 22}, method="enum")
    past_limit = forall(lambda x: x != 0, {"x": (1 << 22) + 1}, method="enum")
    assert at_limit.refuted and at_limit.counterexample == {"x": 0}
    assert past_limit.status == "unknown"
    assert any("more than the enumeration limit 4194304" in note for note in past_limit.notes)

"""``@theorem`` and ``run_theorem`` (``layoutalg.prove.theorem``): what the decorator records and refuses, how a
run turns a theorem's return value or exception into an outcome, whose timeout applies, and what an error shows."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import config, forall, theorem, var
from layoutalg.prove.theorem import MARK, Outcome, Theorem, run_theorem, theorem_of


def _proved() -> Any:
    x = var("x", 8)
    return forall(x < 8)


def _refuted() -> Any:
    x = var("x", 8)
    return forall(x < 3)


def test_bare_theorem_records_the_function_its_name_and_docstring_expecting_a_proof() -> None:
    def tiles_are_disjoint() -> Any:
        """  Every tile has its own rows.

        """
        return _proved()

    assert theorem(tiles_are_disjoint) is tiles_are_disjoint
    t = theorem_of(tiles_are_disjoint)
    assert t == Theorem(tiles_are_disjoint, "proved", "tiles_are_disjoint", "Every tile has its own rows.", None)


def test_theorem_with_arguments_records_expect_name_and_timeout() -> None:
    def scheme() -> Any:
        return _refuted()

    decorate = theorem(expect="refuted", name="no_trans_fails", timeout=2.5)
    assert decorate(scheme) is scheme
    assert theorem_of(scheme) == Theorem(scheme, "refuted", "no_trans_fails", "", 2.5)


@pytest.mark.parametrize("expect", ["unknown", "error", "Proved", None])
def test_theorem_refuses_an_expectation_other_than_proved_or_refuted(expect: Any) -> None:
    with pytest.raises(ProofError, match=r"^theorem expect must be one of \('proved', 'refuted'\), got "):
        theorem(expect=expect)


@pytest.mark.parametrize("not_a_function", [5, "name", 3.5])
def test_theorem_refuses_to_decorate_something_that_is_not_callable(not_a_function: Any) -> None:
    with pytest.raises(ProofError, match=rf"^@theorem decorates a function, got {not_a_function!r}$"):
        theorem(not_a_function)
    with pytest.raises(ProofError, match=rf"^@theorem decorates a function, got {not_a_function!r}$"):
        theorem(expect="refuted")(not_a_function)


def test_theorem_of_finds_only_what_theorem_marked() -> None:
    def plain() -> None:
        pass

    assert theorem_of(plain) is None
    setattr(plain, MARK, "not a Theorem")
    assert theorem_of(plain) is None
    assert theorem_of(5) is None


def _outcome(fn: Any, expect: str = "proved", **kwargs: Any) -> Outcome:
    before = time.perf_counter()
    out = run_theorem(Theorem(fn, expect, fn.__name__, ""), **kwargs)
    wall = time.perf_counter() - before
    assert 0 <= out.seconds <= wall
    return out


def test_run_theorem_reports_the_results_status_and_whether_it_met_the_expectation() -> None:
    proved = _outcome(_proved)
    assert (proved.status, proved.ok, proved.error) == ("proved", True, "")
    assert proved.result is not None and proved.result.status == "proved"
    refuted = _outcome(_refuted)
    assert (refuted.status, refuted.ok) == ("refuted", False)
    assert refuted.result is not None and refuted.result.counterexample is not None
    assert refuted.result.counterexample["x"] in range(3, 8)  # any x >= 3 breaks x < 3
    assert _outcome(_refuted, "refuted").ok


def test_a_list_or_tuple_of_results_is_proved_only_if_all_are() -> None:
    def both() -> Any:
        return [_proved(), _proved()]

    def one_fails() -> Any:
        return (_proved(), _refuted())

    assert _outcome(both).status == "proved"
    assert _outcome(one_fails).status == "refuted"


@pytest.mark.parametrize("value", [None, 5, [], (), "proved", [5], ["proved"], (None,)])
def test_a_theorem_returning_anything_but_results_is_an_error_naming_the_value(value: Any) -> None:
    def bad() -> Any:
        return value

    out = _outcome(bad)
    assert (out.status, out.ok, out.result) == ("error", False, None)
    assert out.error.startswith(f"ProofError: theorem bad must return a ProofResult (or a list of them), got {value!r}\n")


def test_an_error_is_reported_with_the_three_innermost_frames() -> None:
    def innermost() -> Any:
        raise ValueError("tile index out of range")

    def middle() -> Any:
        return innermost()

    def failing_theorem() -> Any:
        return middle()

    out = _outcome(failing_theorem)
    assert (out.status, out.ok, out.result) == ("error", False, None)
    assert out.error.startswith("ValueError: tile index out of range\n")
    frames = [line.split(" in ")[-1] for line in out.error.splitlines() if line.startswith("  File ")]
    assert frames == ["failing_theorem", "middle", "innermost"]


def test_a_theorems_own_timeout_wins_over_the_runners() -> None:
    seen: list[float] = []

    def records_timeout() -> Any:
        seen.append(config.current().timeout)
        return _proved()

    run_theorem(Theorem(records_timeout, "proved", "t", "", 2.5), timeout=7.0)
    run_theorem(Theorem(records_timeout, "proved", "t", "", None), timeout=7.0)
    run_theorem(Theorem(records_timeout, "proved", "t", "", 2.5), timeout=None)
    run_theorem(Theorem(records_timeout, "proved", "t", "", None), timeout=None)
    assert seen == [2.5, 7.0, 2.5, config.current().timeout]


def test_a_theorem_and_its_outcome_are_frozen() -> None:
    t = Theorem(_proved, "proved", "p", "")
    out = run_theorem(t)
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.status = "refuted"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.expect = "refuted"  # type: ignore[misc]
    assert out.ok and t.expect == "proved"

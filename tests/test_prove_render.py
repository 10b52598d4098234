"""How claims word their results: counterexample names (components, repeated names, show=) and notes."""

from __future__ import annotations

from layoutalg.prove import equivalent, forall


def test_a_repeated_counterexample_name_is_kept_with_a_numbered_suffix() -> None:
    r = equivalent(lambda x: x, lambda x: x + 1, {"x": 4}, names=("x", "x"))
    assert r.refuted
    cex = r.counterexample or {}
    assert list(cex) == ["x", "x#2", "x#3"]
    assert cex["x#2"] == cex["x"] and cex["x#3"] == cex["x"] + 1


def test_named_outputs_are_dotted_and_positional_outputs_indexed() -> None:
    named = equivalent(lambda i: {"row": i // 4, "col": i % 4}, lambda i: {"row": i // 4, "col": 3 - i % 4}, {"i": 16})
    assert list(named.counterexample or {}) == ["i", "lhs.row", "lhs.col", "rhs.row", "rhs.col"]
    indexed = equivalent(lambda i: (i, i), lambda i: (i, i + 1), {"i": 16})
    assert list(indexed.counterexample or {}) == ["i", "lhs[0]", "lhs[1]", "rhs[0]", "rhs[1]"]
    cex = indexed.counterexample or {}
    assert cex["rhs[1]"] == cex["i"] + 1 == cex["lhs[1]"] + 1


def test_show_adds_named_values_at_the_counterexample() -> None:
    r = forall(lambda x: x < 3, {"x": 8}, show={"double": lambda x: 2 * x})
    cex = r.counterexample or {}
    assert list(cex) == ["x", "double"] and cex["double"] == 2 * cex["x"] and cex["x"] >= 3
    assert r.explanation == f"at x={cex['x']}: predicate is false (double={cex['double']})"


def test_an_engine_that_does_not_apply_is_noted_once() -> None:
    r = forall(lambda x: x % 3 < 3, {"x": 8}, method="f2")
    assert r.status == "unknown"
    assert len(r.notes) == 1 and r.notes[0].startswith("f2 not applicable: ")


def test_a_decided_claim_does_not_repeat_the_engines_own_remark_as_a_note() -> None:
    r = forall(lambda x: x % 3 < 3, {"x": 8})
    assert r.proved and r.method == "enum"
    assert len(r.notes) == 1 and r.notes[0].startswith("f2 not applicable: ")

"""The claim API's contract at its edges: argument order, names in claims and errors, guards, defaults.

Each test pins one observable behaviour of :mod:`layoutalg.prove.claims` (a verdict, the claim text,
a counterexample's names, an error and its message) that the mutation run of issue 17 found unguarded.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import aligned, contiguous, equivalent, forall, var


def test_equivalent_accepts_a_function_and_a_layout_in_either_order() -> None:
    """Without a domain the layout supplies it, whichever side it is on; names follow their functions."""
    fn_first = equivalent(lambda i: i, Layout(4, 2), names=("f", "L"))
    layout_first = equivalent(Layout(4, 2), lambda i: i, names=("L", "f"))
    for r in (fn_first, layout_first):
        assert r.status == "refuted"
        assert r.claim == "L == f for all index in [0, 4)"
        assert r.counterexample == {"index": 1, "L": 2, "f": 1}


def test_equivalent_of_two_layouts_keeps_the_given_order_in_claim_and_explanation() -> None:
    r = equivalent(Layout(4, 1), Layout(4, 2), names=("A", "B"))
    assert r.status == "refuted"
    assert r.claim == "A == B for all index in [0, 4)"
    assert r.explanation == "at index=1: A=1 but B=2"
    assert list(r.counterexample or {}) == ["index", "A", "B"]


def test_equivalent_refuses_layouts_of_different_sizes_naming_each() -> None:
    with pytest.raises(ProofError, match=r"^A has size 4 but B has size 8: pass domain="):
        equivalent(Layout(4), Layout(8), names=("A", "B"))


def test_equivalent_refuses_functions_with_different_output_counts_naming_each() -> None:
    with pytest.raises(ProofError, match=r"^A has 2 outputs but B has 1$"):
        equivalent(lambda i: (i, i), lambda i: i, 4, names=("A", "B"))


def test_a_claims_reported_seconds_is_its_own_duration() -> None:
    before = time.perf_counter()
    r = equivalent(lambda i: i, lambda i: i + 0, 4)
    elapsed = time.perf_counter() - before
    assert r.proved
    assert 0 <= r.seconds <= elapsed


def test_forall_of_a_constant_truth_value_needs_no_domain() -> None:
    assert forall(True).status == "proved"
    assert forall(False).status == "refuted"


def test_forall_refuses_a_python_predicate_without_a_domain() -> None:
    x = var("x", 8)
    with pytest.raises(ProofError, match=r"^forall: a Python function needs domain=$"):
        forall(lambda: x < 4)


def test_forall_refuses_a_python_where_without_a_domain() -> None:
    x = var("x", 8)
    with pytest.raises(ProofError, match=r"^forall: a Python function as where= needs domain=$"):
        forall(x < 9, where=lambda: x < 4)


def test_a_term_nested_too_deeply_is_a_proof_error_naming_the_claim() -> None:
    i = var("i", 4)
    term = i
    for _ in range(3000):
        term = term + 1
    with pytest.raises(ProofError, match=r"^forall: a term is nested too deeply to analyse"):
        forall(term >= 0, method="enum")


def test_aligned_counts_offsets_as_single_bytes_by_default() -> None:
    r = aligned(lambda i: i, 2, 4)
    assert r.status == "refuted"
    assert r.counterexample == {"index": 1, "offset": 1, "offset_bytes": 1}
    assert r.claim.startswith("offset * 1 B is 2-byte aligned")


def test_contiguous_considers_only_runs_inside_the_domain() -> None:
    """``i + i // 10`` is contiguous in runs of 4 over [0, 8); its first jump (at 10) lies outside."""
    r = contiguous(lambda i: i + i // 10, 4, {"i": 8})
    assert r.status == "proved"
    assert r.claim.startswith("offset is contiguous in runs of 4 along i for all i_run in [0, 2), i_elem in [0, 4)")


def test_contiguous_over_several_variables_needs_along() -> None:
    with pytest.raises(ProofError, match=r"^contiguous: say which variable the run is along \(along=one of \['i', 'j'\]\)$"):
        contiguous(lambda i, j: i + j, 4, {"i": 8, "j": 4})


def test_contiguous_refuses_along_that_is_not_a_domain_variable() -> None:
    with pytest.raises(ProofError, match=r"^contiguous: along='k' is not a domain variable \(\['i'\]\)$"):
        contiguous(lambda i: i, 4, {"i": 8}, along="k")


def test_prove_run_cli_returns_the_runners_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from layoutalg import prove

    (tmp_path / "thm_truth.py").write_text(
        "from layoutalg.prove import forall, theorem\n\n@theorem\ndef truth():\n    return forall(True)\n"
    )
    assert prove.run_cli([str(tmp_path)]) == 0
    assert prove.run_cli([str(tmp_path / "missing")]) == 2
    capsys.readouterr()

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
from layoutalg.prove import aligned, bijective_onto, contiguous, disjoint, equivalent, forall, injective, var


def test_equivalent_accepts_a_function_and_a_layout_in_either_order() -> None:
    """Without a domain the layout supplies it, whichever side it is on; names follow their functions."""
    fn_first = equivalent(lambda i: i, Layout(4, 2), names=("f", "L"))
    layout_first = equivalent(Layout(4, 2), lambda i: i, names=("L", "f"))
    for r in (fn_first, layout_first):
        assert r.status == "refuted"
        assert r.claim == "L == f for all index in [0, 4)"
        cex = r.counterexample or {}
        assert list(cex) == ["index", "L", "f"]
        assert cex["L"] == 2 * cex["index"] != cex["f"] == cex["index"]


def test_equivalent_of_two_layouts_keeps_the_given_order_in_claim_and_explanation() -> None:
    r = equivalent(Layout(4, 1), Layout(4, 2), names=("A", "B"))
    assert r.status == "refuted"
    assert r.claim == "A == B for all index in [0, 4)"
    cex = r.counterexample or {}
    assert list(cex) == ["index", "A", "B"]
    assert r.explanation == f"at index={cex['index']}: A={cex['A']} but B={cex['B']}"
    assert cex["A"] == cex["index"] != cex["B"] == 2 * cex["index"]


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
    cex = r.counterexample or {}
    assert list(cex) == ["index", "offset", "offset_bytes"]
    assert cex["offset_bytes"] == cex["offset"] == cex["index"] and cex["index"] % 2 == 1
    assert r.claim.startswith("offset * 1 B is 2-byte aligned")


def test_contiguous_considers_only_runs_inside_the_domain() -> None:
    """``i + i // 10`` is contiguous in runs of 4 over [0, 8); its first jump (at 10) lies outside."""
    r = contiguous(lambda i: i + i // 10, 4, {"i": 8})
    assert r.status == "proved"
    assert r.claim.startswith("offset is contiguous in runs of 4 along i for all i_run in [0, 2), i_elem in [0, 4)")


def test_contiguous_counterexample_gives_the_failing_position_along_the_variable() -> None:
    """``i + i // 6`` breaks the run [4, 8) at i = 6: the counterexample names i itself, its offset and the run start."""
    r = contiguous(lambda i: i + i // 6, 4, {"i": 8})
    assert r.status == "refuted"
    cex = r.counterexample or {}
    assert list(cex) == ["i_run", "i_elem", "i", "offset", "offset_run_start"]
    run, elem, i = cex["i_run"], cex["i_elem"], cex["i"]
    assert run == 1 and i == 4 * run + elem and i >= 6
    assert cex["offset"] == i + i // 6 and cex["offset_run_start"] == 4
    assert r.explanation.startswith(f"at i_run={run}, i_elem={elem} (i={i}): offset={cex['offset']} but the run starts at 4")
    assert r.explanation.endswith(f"so element {elem} should be at {4 + elem}")


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


def test_a_collision_claims_reported_seconds_is_its_own_duration() -> None:
    before = time.perf_counter()
    r = injective(lambda i: i // 2, 4)
    elapsed = time.perf_counter() - before
    assert r.refuted
    assert 0 <= r.seconds <= elapsed


def test_disjoint_names_each_function_in_claim_counterexample_and_explanation() -> None:
    r = disjoint(lambda i: i, lambda i: i + 2, 4, names=("A", "B"))
    assert r.status == "refuted"
    assert r.claim == "A and B never overlap over index in [0, 4)"
    cex = r.counterexample or {}
    assert list(cex) == ["index", "index'", "A"]
    assert cex["A"] == cex["index"] == cex["index'"] + 2
    primed = cex["index'"]
    assert r.explanation == f"A at index={cex['index']} and B at index'={primed} both give A={cex['A']}"


def test_disjoint_names_the_second_function_when_calling_it_fails() -> None:
    with pytest.raises(ProofError, match=r"^B: calling it on the symbolic domain"):
        disjoint(lambda i: i, lambda i: {}[i], 4, names=("A", "B"))


def test_disjoint_refuses_functions_with_different_output_counts_naming_each() -> None:
    with pytest.raises(ProofError, match=r"^A has 2 outputs but B has 1$"):
        disjoint(lambda i: (i, i), lambda i: i, 4, names=("A", "B"))


@pytest.mark.parametrize("n", [0, -1, True, 4.0])
def test_bijective_onto_refuses_a_target_size_that_is_not_a_positive_int(n: object) -> None:
    with pytest.raises(ProofError, match=r"^bijective_onto: n must be a positive int, got "):
        bijective_onto(Layout(4), n)  # type: ignore[arg-type]


def test_bijective_onto_a_single_offset() -> None:
    assert bijective_onto(Layout(1), 1).proved


def test_bijective_onto_refuses_a_function_with_two_outputs() -> None:
    with pytest.raises(ProofError, match=r"^bijective_onto: offset must have one output, it has 2$"):
        bijective_onto(lambda i: (i, i), 4, 4)


def test_bijective_onto_refutes_by_count_when_the_domain_size_differs() -> None:
    before = time.perf_counter()
    r = bijective_onto(Layout(4), 8)
    elapsed = time.perf_counter() - before
    assert r.refuted and r.method == "count"
    assert r.counterexample == {"domain_size": 4, "n": 8}
    assert 0 <= r.seconds <= elapsed


@pytest.mark.parametrize("along", [var("i", lo=4, hi=12), var("i", 12, multiple_of=2), var("i", 16, pow2=True),
                                   var("i", 10)], ids=["starts-at-4", "multiple-of-2", "power-of-two", "extent-10"])
def test_contiguous_refuses_a_run_variable_that_is_not_a_plain_range_from_zero_divisible_by_n(along: object) -> None:
    """Runs are ``n*run + elem`` over ``[0, hi)``: any other start, a constraint or a ragged end is refused, each alone."""
    with pytest.raises(ProofError, match=r"^contiguous: i in \[.*must start at 0 and have an extent divisible by n=4$"):
        contiguous(lambda i: i, 4, [along])

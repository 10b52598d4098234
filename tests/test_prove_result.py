"""ProofResult and combine(): the value every claim returns, its text forms, and how parts add up."""

from __future__ import annotations

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import ProofResult
from layoutalg.prove.result import combine


def _r(status: str, claim: str = "c", **kw: object) -> ProofResult:
    return ProofResult(status, kw.pop("cex", None), 0.25, "enum", claim, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("status", ["maybe", 1, None])
def test_a_result_refuses_a_status_outside_proved_refuted_unknown(status: object) -> None:
    with pytest.raises(ProofError, match=r"^status must be one of \('proved', 'refuted', 'unknown'\)"):
        ProofResult(status, None, 0.0, "enum", "c")  # type: ignore[arg-type]


def test_render_gives_claim_verdict_explanation_and_notes_on_their_own_lines() -> None:
    r = ProofResult("refuted", {"x": 3}, 0.25, "z3", "x < 3", "at x=3: false", ("one", "two"))
    assert r.render() == "refuted: x < 3  [z3, 0.250s]\n  at x=3: false\n  note: one\n  note: two"
    assert str(r) == r.render()


def test_render_without_explanation_lists_the_counterexample() -> None:
    r = ProofResult("refuted", {"x": 3, "y": 1}, 0.5, "enum", "x < 3")
    assert r.render() == "refuted: x < 3  [enum, 0.500s]\n  counterexample: x=3, y=1"


def test_to_dict_holds_every_field_but_the_notes() -> None:
    r = ProofResult("refuted", {"x": 3}, 0.25, "z3", "x < 3", "why", ("n",))
    assert r.to_dict() == {"status": "refuted", "counterexample": {"x": 3}, "seconds": 0.25, "method": "z3",
                           "claim": "x < 3", "explanation": "why"}


@pytest.mark.parametrize(("results", "message"), [
    (5, r"^combine takes an iterable of ProofResults, got 5"),
    (ProofResult("proved", None, 0.0, "enum", "c"), r"^combine takes an iterable of ProofResults"),
    ([], r"^combine\(\) needs at least one result$"),
    ([ProofResult("proved", None, 0.0, "enum", "c"), 3], r"^combine takes ProofResults, got 3"),
])
def test_combine_refuses_what_is_not_a_nonempty_iterable_of_results(results: object, message: str) -> None:
    with pytest.raises(ProofError, match=message):
        combine(results)  # type: ignore[arg-type]


def test_combine_refuses_a_claim_that_is_not_text() -> None:
    with pytest.raises(ProofError, match=r"^combine: claim must be a str, got 3"):
        combine([_r("proved")], claim=3)  # type: ignore[arg-type]


def test_combine_joins_the_parts_claims_and_adds_their_time() -> None:
    r = combine([_r("proved", "a"), _r("proved", "b")])
    assert r.proved and r.claim == "a and b" and r.seconds == 0.5 and r.method == "enum"


def test_combine_names_an_undecided_part_that_has_no_explanation() -> None:
    r = combine([_r("proved", "a"), _r("unknown", "b")])
    assert r.status == "unknown" and r.explanation == "(undecided part: b)"
    kept = combine([_r("unknown", "b", explanation="z3 timed out")])
    assert kept.explanation == "z3 timed out"

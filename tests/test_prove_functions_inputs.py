"""How claims read their function and domain arguments: refusals by name, variables found in a term."""

from __future__ import annotations

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import claims
from layoutalg.prove import expr as ex


def test_a_string_domain_is_refused_naming_the_accepted_forms() -> None:
    with pytest.raises(ProofError, match=r"^domain must be an int, a dict or a list of variables, got 'lanes'"):
        claims.equivalent(lambda i: i, lambda i: i, "lanes")


def test_a_function_returning_an_empty_tuple_is_refused() -> None:
    with pytest.raises(ProofError, match=r"returned an empty tuple$"):
        claims.equivalent(lambda i: (), lambda i: (), {"i": 4})


def test_a_where_that_is_neither_term_predicate_nor_function_is_refused_by_name() -> None:
    with pytest.raises(ProofError, match=r"^where must be a term, a predicate or a function of the domain, got 2\.5"):
        claims.forall(lambda i: i >= 0, {"i": 4}, where=2.5)


def test_terms_without_a_domain_are_quantified_over_their_own_variables() -> None:
    x = ex.var("x", 8)
    assert claims.equivalent(x * 2, x + x).proved
    refuted = claims.equivalent(x * 2, x + 1)
    assert refuted.refuted and refuted.counterexample is not None
    c = refuted.counterexample["x"]
    assert 0 <= c < 8 and c != 1
    assert (refuted.counterexample["lhs"], refuted.counterexample["rhs"]) == (2 * c, c + 1)


def test_a_domain_entry_given_as_lo_hi_covers_exactly_that_range() -> None:
    assert claims.forall(lambda i: (i >= 2) & (i < 6), {"i": (2, 6)}).proved
    below = claims.forall(lambda i: i >= 3, {"i": (2, 6)})
    assert below.refuted and (below.counterexample or {})["i"] == 2


def test_a_list_domain_of_plain_ints_is_refused() -> None:
    with pytest.raises(ProofError, match=r"^domain must be an int, a dict or a list of variables"):
        claims.forall(lambda i: i >= 0, [3])

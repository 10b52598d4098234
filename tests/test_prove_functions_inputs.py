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


def test_a_layout_wrapped_by_sym_is_a_function_of_its_own_index_domain() -> None:
    from layoutalg.core.layout import Layout

    row_major = Layout((4, 8), (8, 1))  # offsets 0..31, each once: injective (brute force below)
    assert len({row_major(i) for i in range(32)}) == 32
    assert claims.injective(ex.sym(row_major)).proved
    assert not claims.injective(ex.sym(Layout((4, 8), (0, 1)))).proved


def test_a_single_variable_is_a_domain_of_its_own() -> None:
    x = ex.var("x", 8)
    assert claims.forall(lambda v: v < 8, x).proved
    assert claims.forall(lambda v: v < 7, x).refuted


def test_a_bool_domain_is_refused_not_read_as_an_int() -> None:
    with pytest.raises(ProofError, match=r"^domain must be an int, a dict or a list of variables, got True"):
        claims.forall(lambda i: i >= 0, True)


def test_a_domain_key_naming_another_variable_is_refused() -> None:
    with pytest.raises(ProofError, match=r"^domain key 'a' names the variable 'b'"):
        claims.forall(lambda v: v >= 0, {"a": ex.var("b", 4)})


def test_a_function_returning_an_empty_dict_is_refused() -> None:
    with pytest.raises(ProofError, match=r"returned an empty dict$"):
        claims.equivalent(lambda i: {}, lambda i: {}, {"i": 4})


def test_two_domain_variables_with_one_name_are_refused() -> None:
    with pytest.raises(ProofError, match="two domain variables share a name"):
        claims.injective(lambda a, b: a * 4 + b, [ex.var("x", 4), ex.var("x", 4)])


def test_a_layout_error_raised_by_the_users_function_reaches_the_caller_unchanged() -> None:
    from layoutalg.errors import ShapeError

    def bad(i: ex.Expr) -> ex.Expr:
        raise ShapeError("shape (3, 5) does not tile (4, 8)")

    with pytest.raises(ShapeError, match=r"^shape \(3, 5\) does not tile \(4, 8\)$") as info:
        claims.injective(bad, {"i": 4})
    assert type(info.value) is ShapeError


def test_a_normalised_function_is_immutable() -> None:
    import dataclasses

    from layoutalg.prove.functions import make_fn

    fn = make_fn(lambda i: i * 2, {"i": 4})
    assert [v.name for v in fn.variables] == ["i"] and len(fn.terms) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        fn.name = "g"  # type: ignore[misc]

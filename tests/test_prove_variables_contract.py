"""Variables of the term language (``layoutalg.prove.variables``): the values a ``var``/``param`` takes (range,
``multiple_of``, ``pow2``) checked against brute-force enumeration, the defaults of ``var``/``param``, keys that
keep generated variables apart from a user's, and ProofError naming the variable for every bad argument."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import param, var
from layoutalg.prove.expr import Var, evaluate

RANGES = [(0, 1), (0, 8), (3, 17), (-9, 6), (-8, -1), (5, 6), (1, 64)]


def brute_force(lo: int, hi: int, multiple_of: int, pow2: bool) -> list[int]:
    return [v for v in range(lo, hi) if v % multiple_of == 0 and (not pow2 or (v > 0 and v & (v - 1) == 0))]


def constrained_vars() -> list[tuple[Var, list[int]]]:
    out = []
    for (lo, hi), multiple_of, pow2 in itertools.product(RANGES, [1, 2, 3, 4, 8], [False, True]):
        expected = brute_force(lo, hi, multiple_of, pow2)
        if expected:
            out.append((param("p", lo=lo, hi=hi, multiple_of=multiple_of, pow2=pow2), expected))
    return out


def test_values_count_and_admits_agree_with_brute_force_enumeration() -> None:
    cases = constrained_vars()
    assert len(cases) > 40
    for v, expected in cases:
        assert list(v.values_iter()) == expected, v.describe()
        assert v.count() == len(expected), v.describe()
        assert v.extent == v.hi - v.lo
        for value in range(v.lo - 5, v.hi + 5):
            assert v.admits(value) == (value in expected), (v.describe(), value)


def test_values_iter_stops_after_limit_values() -> None:
    for v, expected in constrained_vars():
        for limit in range(1, len(expected) + 2):
            assert list(v.values_iter(limit=limit)) == expected[:limit], (v.describe(), limit)


def test_a_variable_without_any_admitted_value_is_refused() -> None:
    with pytest.raises(ProofError, match=r"^variable 'p' has no value satisfying its constraints$"):
        param("p", lo=1, hi=4, multiple_of=4)
    with pytest.raises(ProofError, match=r"^variable 'p' has no value satisfying its constraints$"):
        param("p", lo=5, hi=8, pow2=True)
    with pytest.raises(ProofError, match=r"^variable 'p' has no value satisfying its constraints$"):
        param("p", lo=-8, hi=1, pow2=True)


def test_var_and_param_default_to_every_integer_of_zero_to_extent() -> None:
    for make, kind in ((var, "var"), (param, "param")):
        v = make("n", 6)
        assert list(v.values_iter()) == [0, 1, 2, 3, 4, 5]
        assert (v.lo, v.hi, v.extent, v.count()) == (0, 6, 6, 6)
        assert (v.multiple_of, v.pow2, v.kind) == (1, False, kind)
        assert v.is_plain()
        assert v.describe() == "n in [0, 6)"
    direct = Var("n", 0, 6)
    assert list(direct.values_iter()) == [0, 1, 2, 3, 4, 5]
    assert (direct.multiple_of, direct.pow2, direct.kind) == (1, False, "var")


def test_extent_counts_from_lo_and_hi_is_exclusive() -> None:
    v = var("v", 5, lo=3)
    assert (v.lo, v.hi, v.extent) == (3, 8, 5)
    assert list(v.values_iter()) == [3, 4, 5, 6, 7]
    w = param("w", lo=-2, hi=3)
    assert (w.extent, list(w.values_iter())) == (5, [-2, -1, 0, 1, 2])
    assert list(var("one", 1).values_iter()) == [0]


def test_a_variable_is_plain_only_without_multiple_of_and_pow2() -> None:
    assert var("a", 8).is_plain()
    assert not var("b", 8, multiple_of=2).is_plain()
    assert not var("c", 8, pow2=True).is_plain()
    assert not var("d", 8, multiple_of=2, pow2=True).is_plain()


def test_describe_names_the_range_and_each_constraint() -> None:
    assert var("lane", 32).describe() == "lane in [0, 32)"
    assert param("ld", lo=8, hi=4097, multiple_of=8).describe() == "ld in [8, 4097), multiple of 8"
    assert param("n", lo=1, hi=65, multiple_of=2).describe() == "n in [1, 65), multiple of 2"
    assert param("n", lo=1, hi=65, pow2=True).describe() == "n in [1, 65), power of two"
    assert param("n", lo=1, hi=65, multiple_of=4, pow2=True).describe() == "n in [1, 65), multiple of 4, power of two"


def test_a_users_variable_is_looked_up_by_its_name() -> None:
    x = var("x", 8)
    assert repr(x) == "x"
    assert x.generated is False
    for v in range(8):
        assert evaluate(x * 3 + 1, {"x": v}) == 3 * v + 1


def test_a_generated_variable_is_never_confused_with_a_users_variable_of_the_same_name() -> None:
    user = var("lane", 32)
    made = Var.fresh("lane", 0, 32)
    copy = user.fresh_copy()
    assert made.generated is True and copy.generated is True
    assert repr(made) == "lane" and repr(copy) == "lane"
    env = {"lane": 10, made.key: 1, copy.key: 100}
    assert evaluate(user + made + copy, env) == 111
    assert evaluate(made - user, env) == -9
    assert (copy.lo, copy.hi, copy.kind) == (0, 32, "var")
    assert list(made.values_iter()) == list(range(32)) and made.is_plain() and made.kind == "var"


def test_a_generated_variable_may_carry_any_label() -> None:
    made = Var.fresh("copy of lane #2", 0, 4)
    assert made.name == "copy of lane #2"
    assert repr(made.key).startswith("<fresh copy of lane #2 at 0x")
    assert evaluate(made + 1, {made.key: 3}) == 4


def test_with_range_keeps_the_variable_and_narrows_its_values() -> None:
    user = param("k", 16, multiple_of=2)
    narrow = user.with_range(4, 9)
    assert list(narrow.values_iter()) == [4, 6, 8] and narrow.kind == "param"
    assert evaluate(narrow + user, {"k": 6}) == 12
    made = Var.fresh("t", 0, 16)
    assert evaluate(made.with_range(2, 5) * 2, {made.key: 3}) == 6


@pytest.mark.parametrize("name", ["1lane", "two words", "", "lane-1"])
def test_a_users_variable_name_must_be_an_identifier(name: str) -> None:
    with pytest.raises(ProofError, match=rf"^variable name must be an identifier, got {name!r}$"):
        var(name, 4)
    with pytest.raises(ProofError, match=r"^variable name must be an identifier"):
        Var(name, 0, 4)


@pytest.mark.parametrize("name", [5, None, ("a",)])
def test_a_variable_name_that_is_not_a_str_is_refused(name: Any) -> None:
    with pytest.raises(ProofError, match="^variable name must be an identifier, got " + re.escape(repr(name)) + "$"):
        param(name, 4)


def test_a_generated_variable_needs_a_fresh_key_and_a_str_label() -> None:
    from layoutalg.prove.variables import Fresh

    key = Fresh("t")
    with pytest.raises(ProofError, match=r"^a generated variable needs a Fresh key and a str label, got 'x', 'x'$"):
        Var("x", 0, 4, key="x")  # type: ignore[arg-type]
    with pytest.raises(ProofError, match=r"^a generated variable needs a Fresh key and a str label, got <fresh t at 0x"):
        Var(5, 0, 4, key=key)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "label", "shown"),
    [
        ({"extent": 4, "lo": True}, "lo", "True"),
        ({"extent": 4, "lo": 0.5}, "lo", "0.5"),
        ({"hi": 4.0}, "hi", "4.0"),
        ({"hi": False, "lo": -2}, "hi", "False"),
        ({"extent": 4, "multiple_of": 2.0}, "multiple_of", "2.0"),
        ({"extent": 4, "multiple_of": True}, "multiple_of", "True"),
    ],
)
def test_bounds_and_multiple_of_must_be_ints(kwargs: dict[str, Any], label: str, shown: str) -> None:
    with pytest.raises(ProofError, match=rf"^variable 'v': {label} must be an int, got {shown}$"):
        var("v", **kwargs)


@pytest.mark.parametrize(("lo", "hi"), [(3, 3), (5, 2), (0, 0), (-1, -4)])
def test_an_empty_range_is_refused_naming_it(lo: int, hi: int) -> None:
    with pytest.raises(ProofError, match=rf"^variable 'v' has an empty range \[{lo}, {hi}\)$"):
        param("v", lo=lo, hi=hi)
    with pytest.raises(ProofError, match=rf"^variable 'v' has an empty range \[{lo}, {hi}\)$"):
        Var("v", lo, hi)


@pytest.mark.parametrize("multiple_of", [0, -1, -4])
def test_multiple_of_below_one_is_refused(multiple_of: int) -> None:
    with pytest.raises(ProofError, match=rf"^variable 'v': multiple_of must be >= 1, got {multiple_of}$"):
        var("v", 8, multiple_of=multiple_of)


@pytest.mark.parametrize("kind", ["const", "", None])
def test_kind_must_be_var_or_param(kind: Any) -> None:
    with pytest.raises(ProofError, match=rf"^variable 'v': kind must be 'var' or 'param', got {kind!r}$"):
        Var("v", 0, 4, kind=kind)


@pytest.mark.parametrize("kwargs", [{}, {"extent": 4, "hi": 4}, {"extent": 2, "hi": 8, "lo": 6}])
def test_exactly_one_of_extent_or_hi_is_required(kwargs: dict[str, Any]) -> None:
    for make in (var, param):
        with pytest.raises(ProofError, match=r"^variable 'v': give exactly one of extent or hi$"):
            make("v", **kwargs)


@pytest.mark.parametrize("extent", [0, -1, True, False, 2.5, "4"])
def test_extent_must_be_a_positive_int(extent: Any) -> None:
    for make in (var, param):
        with pytest.raises(ProofError, match="^variable 'v': extent must be a positive int, got " + re.escape(repr(extent)) + "$"):
            make("v", extent)


def test_a_variable_is_immutable() -> None:
    x = var("x", 8)
    for attribute in ("name", "lo", "hi", "multiple_of", "pow2", "kind", "key"):
        with pytest.raises(AttributeError, match="^terms are immutable$"):
            setattr(x, attribute, 1)
    assert (x.lo, x.hi, list(x.values_iter())) == (0, 8, list(range(8)))

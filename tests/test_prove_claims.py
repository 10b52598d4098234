"""The claim API: each claim's meaning, its counterexamples in kernel terms, timeouts, cross-checking, errors."""

from __future__ import annotations

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import (
    EngineDisagreementError,
    ProofResult,
    aligned,
    bijective_onto,
    contiguous,
    disjoint,
    equivalent,
    forall,
    in_bounds,
    injective,
    param,
    settings,
    sym,
    var,
)
from layoutalg.prove import claims as claims_mod
from layoutalg.prove.problem import Outcome
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

METHODS = ("auto", "f2", "z3", "enum")


def decided(r: ProofResult, status: str) -> bool:
    return r.status == status or (r.method == "f2" and r.status == "unknown")


@pytest.mark.parametrize("method", METHODS)
def test_row_major_vs_column_major(method: str) -> None:
    rm, cm = Layout((4, 8), (8, 1)), Layout((4, 8), (1, 4))
    r = equivalent(rm, cm, {"row": 4, "col": 8}, method=method)
    assert r.status == "refuted"
    row, col = r.counterexample["row"], r.counterexample["col"]  # type: ignore[index]
    assert 8 * row + col != row + 4 * col
    assert r.counterexample["lhs"] == 8 * row + col and r.counterexample["rhs"] == row + 4 * col  # type: ignore[index]
    assert "row=" in r.explanation and "but" in r.explanation


def test_timeout_is_unknown_never_proved() -> None:
    """A hard z3 query (factoring a 60-bit semiprime) under a tiny time limit comes back 'unknown'."""
    p, q = 1073741789, 1073741783  # primes below 2**30
    x, y = var("x", lo=2, hi=1 << 31), var("y", lo=2, hi=1 << 31)
    r = forall(x * y != p * q, [x, y], method="z3", timeout=0.05)
    assert r.status == "unknown"
    assert not r
    assert any("z3" in n for n in r.notes)


def test_auto_falls_back_to_enumeration_when_z3_gives_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from layoutalg.prove import engine_z3

    monkeypatch.setattr(engine_z3, "decide", lambda p, timeout=None: Outcome("unknown", note="z3: timeout"))
    i = var("i", 1 << 17)  # too big for the automatic enumeration, small enough for the fallback
    r = forall((i * 3) % 7 < 7, [i])
    assert r.status == "proved" and r.method == "enum"


def test_cross_check_raises_when_engines_disagree(monkeypatch: pytest.MonkeyPatch) -> None:
    from layoutalg.prove import engine_enum

    monkeypatch.setattr(engine_enum, "decide", lambda p, timeout=None, limit=0: Outcome("proved"))
    i = var("i", 16)
    with pytest.raises(EngineDisagreementError, match="disagree"):
        forall(i * 3 != 9, [i], method="z3", cross_check=True)


def test_a_counterexample_that_does_not_refute_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    from layoutalg.prove import engine_z3

    monkeypatch.setattr(engine_z3, "decide", lambda p, timeout=None: Outcome("refuted", {"i": 1}))
    i = var("i", 16)
    with pytest.raises(EngineDisagreementError, match="holds"):
        forall(i < 16, [i], method="z3")


def test_cross_check_reports_both_engines() -> None:
    r = equivalent(Layout((4, 8)), Layout((4, 8)), cross_check=True)
    assert r.status == "proved" and "+" in r.method
    with settings(cross_check=True):
        assert "+" in injective(Layout((4, 8), (8, 1))).method


@pytest.mark.parametrize("method", METHODS)
def test_injective_counterexample_names_both_points(method: str) -> None:
    r = injective(Layout((4, 4), (1, 2)), {"lane": 4, "reg": 4}, method=method)
    if method == "f2":
        assert r.status == "unknown"  # 1*a + 2*b has carries: not GF(2)-linear
        return
    assert r.status == "refuted"
    cex = r.counterexample
    assert cex is not None
    a = (cex["lane"], cex["reg"])
    b = (cex["lane'"], cex["reg'"])
    assert a != b and a[0] + 2 * a[1] == b[0] + 2 * b[1]


def test_injective_for_every_parameter_value() -> None:
    k = param("k", 8)
    assert injective(lambda t: t * 8 + k, {"t": 16}).proved
    r = injective(lambda t: (t * k) % 16, {"t": 16})
    assert r.status == "refuted"


@pytest.mark.parametrize("method", METHODS)
def test_bijective_onto(method: str) -> None:
    sw = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
    assert decided(bijective_onto(sw, 512, method=method), "proved")
    assert decided(bijective_onto(Layout((8, 64), (64, 2)), 512, method=method), "refuted")
    assert bijective_onto(Layout((8, 64), (64, 1)), 1024, method=method).status == "refuted"  # too few points


def test_in_bounds_with_symbolic_bound() -> None:
    n = param("n", lo=1, hi=64)
    i = var("i", 64)
    assert in_bounds(i, n, [i], where=i < n).proved
    r = in_bounds(i, n, [i])
    assert r.status == "refuted" and r.counterexample["i"] >= r.counterexample["n"]  # type: ignore[index]


@pytest.mark.parametrize("method", METHODS)
def test_aligned(method: str) -> None:
    assert decided(aligned(lambda t: t * 8, 16, {"t": 32}, element_bytes=2, method=method), "proved")
    r = aligned(lambda t: t * 4, 16, {"t": 32}, element_bytes=2, method=method)
    assert decided(r, "refuted")
    if r.status == "refuted":
        assert (r.counterexample["t"] * 8) % 16 != 0  # type: ignore[index]


@pytest.mark.parametrize("method", METHODS)
def test_contiguous(method: str) -> None:
    assert decided(contiguous(Layout((8, 4), (1, 64)), 8, method=method), "proved")
    r = contiguous(Layout((8, 4), (1, 64)), 16, method=method)
    assert decided(r, "refuted")
    with pytest.raises(ProofError, match="divisible"):
        contiguous(Layout((8, 4), (1, 64)), 5)


@pytest.mark.parametrize("method", METHODS)
def test_disjoint(method: str) -> None:
    assert decided(disjoint(lambda t: 2 * t, lambda t: 2 * t + 1, {"t": 32}, method=method), "proved")
    r = disjoint(lambda t: 2 * t, lambda t: 3 * t + 1, {"t": 32}, method=method)
    if method != "f2":
        assert r.status == "refuted"
        assert 2 * r.counterexample["t"] == 3 * r.counterexample["t'"] + 1  # type: ignore[index]


def test_forall_with_where_and_show() -> None:
    lane = var("lane", 32)
    r = forall(lambda lane: lane % 4 < 3, [lane], where=lambda lane: lane < 16, show={"quad": lambda lane: lane // 4})
    assert r.status == "refuted"
    assert r.counterexample["lane"] % 4 == 3 and r.counterexample["lane"] < 16  # type: ignore[index]
    assert r.counterexample["quad"] == r.counterexample["lane"] // 4  # type: ignore[index]


def test_dict_outputs_are_named_in_the_counterexample() -> None:
    r = equivalent(lambda n: {"row": n // 4, "col": n % 4}, lambda n: {"row": n // 4, "col": 3 - n % 4}, {"lane": 32}, names=("ldmatrix", "mma"))
    assert r.status == "refuted"
    assert {"ldmatrix.row", "ldmatrix.col", "mma.row", "mma.col"} <= set(r.counterexample)  # type: ignore[arg-type]


def test_errors_name_the_argument() -> None:
    with pytest.raises(ProofError, match="size 32 but rhs has size 16"):
        equivalent(Layout((4, 8)), Layout((4, 4)))
    with pytest.raises(ProofError, match="domain="):
        equivalent(lambda i: i, lambda i: i)
    with pytest.raises(ProofError, match="not in its domain"):
        equivalent(lambda i: i + var("j", 4), lambda i: i, {"i": 4})
    with pytest.raises(ProofError, match="two different variables"):
        forall(var("i", 4) < var("i", 8))
    with pytest.raises(ProofError, match="method"):
        equivalent(Layout(4), Layout(4), method="magic")
    with pytest.raises(ProofError, match="bare swizzle"):
        injective(Swizzle(3, 3, 3))
    with pytest.raises(ProofError, match="truth value"):
        bool(var("i", 4) == 1)
    with pytest.raises(ProofError):
        var("i", 0)
    with pytest.raises(ProofError):
        param("p", lo=3, hi=4, multiple_of=8)  # no value


def test_a_swizzle_with_a_domain_and_sym_in_lambdas() -> None:
    sw = Swizzle(2, 0, 3)
    assert injective(sw, 64).proved
    assert equivalent(lambda i: sym(sw)(sym(sw)(i)), lambda i: i, 1024).proved


def test_results_are_truthy_only_when_proved() -> None:
    assert equivalent(Layout(4), Layout(4))
    assert not equivalent(Layout(4), Layout(4, 2))


def test_run_problem_rejects_unknown_methods() -> None:
    with pytest.raises(ProofError):
        claims_mod.run_problem(None, "nope", None, None)  # type: ignore[arg-type]


def test_a_very_deep_term_is_a_proof_error_not_a_crash() -> None:
    i = var("i", 4)
    t = i
    for _ in range(5000):
        t = t + 1
    with pytest.raises(ProofError, match="too deeply"):
        forall(t > 0, [i])


def test_more_bad_inputs_are_proof_errors() -> None:
    with pytest.raises(ProofError, match="KeyError"):
        equivalent(lambda i: {}[i], Layout(32), {"index": 32})
    with pytest.raises(ProofError, match="timeout"):
        equivalent(Layout(4), Layout(4), timeout=-1)
    with pytest.raises(ProofError, match="identifiers"):
        from layoutalg.prove import formula

        formula(Layout((4, 8)), names=[1, 2])


def test_constant_predicates_and_layouts_of_different_sizes() -> None:
    assert forall(True, {"i": 4}).proved
    assert forall(False, {"i": 4}).status == "refuted"
    a, b = Layout((4, 8), (8, 1)), Layout((2, 2), (1, 2))
    r = disjoint(a, b)
    assert r.status == "refuted" and a(r.counterexample["index"]) == b(r.counterexample["index'"])  # type: ignore[index]
    assert disjoint(Layout((4, 8), (8, 1)), lambda j: j + 32, None, {"j": 4}).proved


def test_z3_counterexamples_are_made_small() -> None:
    """Kernel authors read counterexamples: after z3 refutes, small values are preferred (and re-checked)."""
    lda = param("lda", lo=64, hi=1 << 16)
    r = aligned(lambda t: t * lda, 16, {"t": 1 << 10}, element_bytes=2)
    assert r.status == "refuted" and r.method == "z3"
    assert (r.counterexample["t"], r.counterexample["lda"]) == (1, 65)  # type: ignore[index]
    x = var("x", 1 << 20)
    r = forall(x % 1000 != 999, [x], method="z3")
    assert r.counterexample == {"x": 999}  # the only value below 1024 that refutes it

"""Red team for widths: values and variables of more than 64 bits, in every engine.

The GF(2) engine packs bit columns side by side, z3's bit-vector encoding picks a width, enumeration picks
int64 or Python integers: each must derive its width from the domain, or refuse.  Random bit-linear claims
(shifts by up to 70, XOR, masks, disjoint sums, power-of-two division and modulus) over small domains are
judged by brute force (Python integers); claims over variables of 65 to 130 bits, too large to enumerate, are
judged by their arithmetic.  ``LAYOUTALG_ADVERSARIAL_EXAMPLES`` scales the random part (default 40)::

    LAYOUTALG_ADVERSARIAL_EXAMPLES=5000 python -m pytest tests/adversarial

(``LAYOUTALG_ADVERSARIAL_SEED=N`` shifts the fixed seed, for a different sample.)
"""

from __future__ import annotations

import itertools
import os
import random
from collections import Counter
from typing import Any, Callable

import pytest

from layoutalg.core.layout import Layout
from layoutalg.prove import disjoint, equivalent, forall, in_bounds, injective
from layoutalg.prove import settings as prove_settings
from layoutalg.prove.expr import Const, Expr, Var, var

EXAMPLES = int(os.environ.get("LAYOUTALG_ADVERSARIAL_EXAMPLES", "0") or 0) or 40
SEED = 65 + int(os.environ.get("LAYOUTALG_ADVERSARIAL_SEED", "0") or 0)
CONFIGS = (("f2", "auto"), ("z3", "int"), ("z3", "bv"), ("enum", "auto"), ("auto", "auto"))
Term = tuple[Expr, Callable[[dict[str, int]], int], str]


def _linear_term(rng: random.Random, xs: list[Var], depth: int) -> Term:
    """A random bit-linear term (GF(2) may apply) whose values reach past 64 bits."""
    if depth <= 0 or rng.random() < 0.25:
        v = rng.choice(xs)
        return v, (lambda env: env[v.name]), v.name
    a, fa, ta = _linear_term(rng, xs, depth - 1)
    r = rng.random()
    if r < 0.25:
        k = rng.choice((1, 7, 31, 60, 62, 63, 64, 65, 70))
        return a << k, (lambda env: fa(env) << k), f"({ta} << {k})"
    if r < 0.4:
        k = rng.choice((1, 3, 60, 63, 64, 65))
        return a >> k, (lambda env: fa(env) >> k), f"({ta} >> {k})"
    if r < 0.55:
        m = rng.choice(((1 << 64) - 1, 1 << 64, (1 << 65) | 0xF0, (1 << 70) - (1 << 62), 0xFF))
        return a & m, (lambda env: fa(env) & m), f"({ta} & {m})"
    if r < 0.65:
        k = rng.choice((2, 64, 65))
        return a % (1 << k), (lambda env: fa(env) % (1 << k)), f"({ta} % 2**{k})"
    if r < 0.72:
        k = rng.choice((1, 64))
        return a // (1 << k), (lambda env: fa(env) // (1 << k)), f"({ta} // 2**{k})"
    b, fb, tb = _linear_term(rng, xs, depth - 1)
    if r < 0.9:
        return a ^ b, (lambda env: fa(env) ^ fb(env)), f"({ta} ^ {tb})"
    k = rng.choice((8, 64, 66))
    return (a << k) + b, (lambda env: (fa(env) << k) + fb(env)), f"(({ta} << {k}) + {tb})"


def _small_domain(rng: random.Random) -> list[Var]:
    return [var(f"x{k}", 1 << rng.choice((1, 2, 3))) for k in range(rng.choice((1, 2, 3)))]


def _points(xs: list[Var]) -> list[dict[str, int]]:
    return [dict(zip([v.name for v in xs], vals)) for vals in itertools.product(*[range(v.lo, v.hi) for v in xs])]


def _check(result: Any, truth: bool, label: str, text: str, tally: Counter[str]) -> str | None:
    """None when ``result`` agrees with brute force (or is an allowed unknown), else what went wrong."""
    tally[f"{label}:{result.status}"] += 1
    if result.status == "unknown":
        allowed = label.startswith(("f2/", "z3/"))  # GF(2) off its fragment, z3's integer encoding on bit operations
        return None if allowed else f"{label}: unknown on a small claim {text}: {result.notes}"
    if result.status != ("proved" if truth else "refuted"):
        return f"{label}: {result.status}, brute force says {truth}: {text}"
    return None


def test_random_wide_bit_linear_claims_match_brute_force_in_every_engine() -> None:
    rng = random.Random(SEED)
    tally: Counter[str] = Counter()
    problems: list[str] = []
    for _ in range(EXAMPLES):
        xs = _small_domain(rng)
        t, ft, text = _linear_term(rng, xs, 3)
        pts = _points(xs)
        kind = rng.random()
        if kind < 0.4:  # a bound at a power of two around 64 bits
            m = rng.choice((62, 63, 64, 65, 66, 70, 72, 130))
            pred, truth = t < (1 << m), all(ft(p) < (1 << m) for p in pts)
        elif kind < 0.7:  # equality with another term
            u, fu, _ = _linear_term(rng, xs, 2)
            pred, truth = t == u, all(ft(p) == fu(p) for p in pts)
        else:  # injectivity
            values = [ft(p) for p in pts]
            truth = len(set(values)) == len(values)
            for method, encoding in CONFIGS:
                with prove_settings(z3_encoding=encoding):
                    r = injective(t, xs, method=method, timeout=2)
                msg = _check(r, truth, f"{method}/{encoding}", f"injective {text}", tally)
                problems += [msg] if msg else []
            continue
        for method, encoding in CONFIGS:
            with prove_settings(z3_encoding=encoding):
                r = forall(pred, xs, method=method, timeout=2)
            msg = _check(r, truth, f"{method}/{encoding}", text, tally)
            problems += [msg] if msg else []
    assert not problems, "\n".join(problems[:10])
    assert tally["f2/auto:proved"] + tally["f2/auto:refuted"] >= EXAMPLES // 3, tally  # GF(2) really decided many


@pytest.mark.parametrize("method", ["auto", "f2", "z3"])
def test_a_65_bit_layout_is_not_inside_2_to_the_64(method: str) -> None:
    refuted = in_bounds(Layout(2**65), 2**64, method=method)
    assert refuted.status == "refuted", refuted
    assert refuted.counterexample is not None and refuted.counterexample["index"] >= 2**64
    proved = in_bounds(Layout(2**65), 2**65, method=method)
    assert proved.status == "proved", proved


@pytest.mark.parametrize("bits", [63, 64, 65, 70, 130])
@pytest.mark.parametrize("method", ["auto", "f2", "z3"])
def test_top_bit_of_a_wide_variable(bits: int, method: str) -> None:
    """x in [0, 2**bits): x >> (bits - 1) < 2 holds; < 1 fails exactly at x >= 2**(bits - 1)."""
    x = var("x", 1 << bits)
    assert forall((x >> (bits - 1)) < 2, [x], method=method).status == "proved"
    r = forall((x >> (bits - 1)) < 1, [x], method=method)
    assert r.status == "refuted" and r.counterexample is not None and r.counterexample["x"] >= 1 << (bits - 1)


@pytest.mark.parametrize("method", ["auto", "f2", "z3"])
def test_wide_injectivity_and_disjointness(method: str) -> None:
    x, y = var("x", 4), var("y", 1 << 64)
    assert injective((x << 64) ^ y, [x, y], method=method).status == "proved"
    r = injective((x << 63) ^ y, [x, y], method=method)
    assert r.status == "refuted"
    cex = r.counterexample or {}
    assert (cex["x"] << 63) ^ cex["y"] == (cex["x'"] << 63) ^ cex["y'"]
    assert (cex["x"], cex["y"]) != (cex["x'"], cex["y'"])
    z = var("z", 1 << 64)
    assert disjoint(z, z + (1 << 64), [z], method=method).status in ("proved", "unknown")  # f2: a sum with a carry
    assert disjoint(z, z ^ (1 << 64), [z], method=method).status == "proved"
    assert disjoint(z, z ^ (1 << 63), [z], method=method).status == "refuted"


@pytest.mark.parametrize("method", ["auto", "f2", "z3"])
def test_wide_equivalence_of_masks_and_shifts(method: str) -> None:
    x = var("x", 1 << 70)
    assert equivalent(x ^ ((x >> 64) << 64), x & ((1 << 64) - 1), {"x": x}, method=method).status == "proved"
    r = equivalent(x ^ ((x >> 63) << 63), x & ((1 << 64) - 1), {"x": x}, method=method)
    assert r.status == "refuted" and (r.counterexample or {}).get("x", 0) >> 63 & 1


@pytest.mark.parametrize("method", ["auto", "enum", "z3"])
def test_values_past_int64_in_small_domains(method: str) -> None:
    """Enumeration must not compute these in int64 (overflow), and every engine must agree with Python."""
    x = var("x", lo=(1 << 63) - 2, hi=(1 << 63) + 2)
    assert forall(x + 1 > x, [x], method=method).status == "proved"
    assert forall((x * 3) // 3 == x, [x], method=method).status == "proved"
    assert forall((x << 1) >> 1 == x, [x], method=method).status == "proved"
    assert forall(x < (1 << 63), [x], method=method).status == "refuted"
    far = var("far", lo=1 << 70, hi=(1 << 70) + 3)
    assert forall(Const(1) == 1, [far], method=method).status == "proved"  # an unused huge variable
    small = var("s", 8)
    assert forall(small * (1 << 62) * 4 >= 0, [small], method=method).status == "proved"
    assert forall(small * (1 << 62) * 4 < 1 << 64, [small], method=method).status == "refuted"

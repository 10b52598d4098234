"""Soundness of every engine against brute force, on thousands of random true and false claims.

Each claim (equivalence or injectivity of random layouts, swizzled layouts and
composed layouts; random integer predicates with floor division, modulus and
bit operations on signed values) is decided by GF(2), z3 and enumeration and
compared with a brute-force answer computed here from the objects' own
``__call__`` (``Layout``, ``Swizzle``, ``ComposedLayout``) or from Python
integer arithmetic.  A decided answer that differs from brute force fails the
test; "unknown" is allowed only where an engine does not apply (GF(2) on a
non-linear claim).  Every counterexample is checked to really violate the claim.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutalg.core.layout import Layout
from layoutalg.prove import equivalent, forall, injective, sym, var
from layoutalg.prove import settings as prove_settings
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

ENGINES = ("f2", "z3", "z3-bv", "enum")  # z3-bv: z3 forced onto its bit-vector encoding
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
TALLY: Counter[str] = Counter()


# ----------------------------------------------------------------- strategies
@st.composite
def layouts(draw: Any, max_rank: int = 3, pow2: bool = False, signed: bool = True) -> Layout:
    rank = draw(st.integers(1, max_rank))
    if pow2:
        shape = [1 << draw(st.integers(0, 3)) for _ in range(rank)]
        stride = [draw(st.sampled_from([0, 1, 2, 4, 8, 16, 32, 64])) for _ in range(rank)]
    else:
        shape = [draw(st.integers(1, 6)) for _ in range(rank)]
        lo = -8 if signed else 0
        stride = [draw(st.integers(lo, 24)) for _ in range(rank)]
    if rank >= 2 and draw(st.booleans()):  # nest the first two modes
        return Layout(((shape[0], shape[1]), *shape[2:]), ((stride[0], stride[1]), *stride[2:]))
    return Layout(tuple(shape), tuple(stride)) if rank > 1 else Layout(shape[0], stride[0])


@st.composite
def swizzles(draw: Any) -> Swizzle:
    bits = draw(st.integers(0, 3))
    base = draw(st.integers(0, 4))
    mag = draw(st.integers(max(bits, 1), 4))
    return Swizzle(bits, base, mag if draw(st.booleans()) else -mag)


@st.composite
def composed(draw: Any, pow2: bool = False) -> ComposedLayout:
    inner = draw(layouts(pow2=pow2, signed=not pow2))
    offset = draw(st.sampled_from([0, 0, 8, 64, 256])) if pow2 else draw(st.integers(-16, 64))
    return ComposedLayout(draw(swizzles()), offset, inner)


@st.composite
def layout_composed(draw: Any) -> ComposedLayout:
    """``outer o offset o inner`` with a Layout outer (non-negative, so the outer index is a valid index)."""
    inner = draw(layouts(signed=False))
    outer = draw(layouts(signed=False))
    return ComposedLayout(outer, draw(st.integers(0, 12)), inner)


def _flat(layout: Layout) -> list[tuple[int, int]]:
    f = layout.flat()
    if isinstance(f.shape, int):
        return [(f.shape, f.stride)]  # type: ignore[list-item]
    return list(zip(f.shape, f.stride))  # type: ignore[arg-type]


def rewrite(draw: Any, layout: Layout) -> Layout:
    """A layout that is *usually* the same function (split/merge/insert size-1), sometimes mutated."""
    pairs = _flat(layout)
    choice = draw(st.integers(0, 4))
    if choice == 0:  # split a mode s:d -> (a, s/a):(d, a*d)
        k = draw(st.integers(0, len(pairs) - 1))
        s, d = pairs[k]
        divisors = [a for a in range(1, s + 1) if s % a == 0]
        a = draw(st.sampled_from(divisors))
        pairs[k : k + 1] = [(a, d), (s // a, a * d)]
    elif choice == 1:  # insert a size-1 mode with any stride
        k = draw(st.integers(0, len(pairs)))
        pairs.insert(k, (1, draw(st.integers(-5, 5))))
    elif choice == 2:  # merge two adjacent modes when they continue each other
        for k in range(len(pairs) - 1):
            (s0, d0), (s1, d1) = pairs[k], pairs[k + 1]
            if d1 == s0 * d0:
                pairs[k : k + 2] = [(s0 * s1, d0)]
                break
    elif choice == 3:  # mutate one stride
        k = draw(st.integers(0, len(pairs) - 1))
        s, d = pairs[k]
        pairs[k] = (s, d + draw(st.sampled_from([-2, -1, 1, 2, 8])))
    else:  # swap two modes (same size only if shapes agree, else a different function)
        if len(pairs) >= 2:
            pairs[0], pairs[1] = pairs[1], pairs[0]
    if len(pairs) == 1:
        return Layout(pairs[0][0], pairs[0][1])
    return Layout(tuple(s for s, _ in pairs), tuple(d for _, d in pairs))


# ----------------------------------------------------------------- comparison
def check(result_by_engine: dict[str, Any], truth: bool, verify: Any) -> None:
    expected = "proved" if truth else "refuted"
    for engine, r in result_by_engine.items():
        TALLY[f"{engine}:{r.status}"] += 1
        if r.status == "unknown":
            assert engine == "f2", f"{engine} gave unknown on a small claim: {r}"
            assert any("not applicable" in n for n in r.notes), r
            continue
        assert r.status == expected, f"{engine} says {r.status}, brute force says {expected}: {r}"
        if r.status == "refuted":
            assert verify(r.counterexample), f"{engine}'s counterexample does not violate the claim: {r}"


def decide_all(make: Any) -> dict[str, Any]:
    out = {}
    for e in ENGINES:
        if e == "z3-bv":
            with prove_settings(z3_encoding="bv"):
                out[e] = make("z3")
        else:
            out[e] = make(e)
    return out


def values(f: Any, n: int) -> list[int]:
    return [f(i) for i in range(n)]


# ----------------------------------------------------------------- equivalence
@SETTINGS
@given(st.data())
def test_equivalence_of_layouts_matches_brute_force(data: Any) -> None:
    a = data.draw(layouts())
    b = rewrite(data.draw, a)
    if a.size() != b.size():
        return
    truth = values(a, a.size()) == values(b, b.size())
    rs = decide_all(lambda e: equivalent(a, b, method=e))
    check(rs, truth, lambda cex: a(cex["index"]) != b(cex["index"]))


@SETTINGS
@given(st.data())
def test_equivalence_of_pow2_swizzled_layouts_matches_brute_force(data: Any) -> None:
    c = data.draw(composed(pow2=True))
    if data.draw(st.booleans()):
        other = ComposedLayout(c.outer, c.offset, rewrite(data.draw, c.inner))
    else:
        other = ComposedLayout(data.draw(swizzles()), c.offset, c.inner)
    if other.size() != c.size():
        return
    truth = values(c, c.size()) == values(other, other.size())
    rs = decide_all(lambda e: equivalent(c, other, method=e))
    check(rs, truth, lambda cex: c(cex["index"]) != other(cex["index"]))


@SETTINGS
@given(layout_composed(), st.data())
def test_equivalence_of_layout_outer_compositions(c: ComposedLayout, data: Any) -> None:
    """``outer(offset + inner(i))`` against the same with the outer layout re-factored or mutated."""
    other = ComposedLayout(rewrite(data.draw, c.outer), c.offset, c.inner)
    n = c.size()
    truth = values(c, n) == values(other, n)
    rs = decide_all(lambda e: equivalent(c, other, method=e))
    check(rs, truth, lambda cex: c(cex["index"]) != other(cex["index"]))


@SETTINGS
@given(composed(), st.integers(0, 3))
def test_swizzle_involution_and_identity_claims(c: ComposedLayout, variant: int) -> None:
    """``Sw(Sw(x)) == x`` (true) and ``Sw(x) == x`` (true only for trivial swizzles) over composed layouts."""
    sw = c.outer
    n = c.size()
    if variant % 2 == 0:
        truth = all(sw(c(i)) == c.offset + c.inner(i) for i in range(n))
        rs = decide_all(lambda e: equivalent(lambda i: sym(sw)(sym(c)(i)), lambda i: c.offset + sym(c.inner)(i), n, method=e))
        check(rs, truth, lambda cex: sw(c(cex["index"])) != c.offset + c.inner(cex["index"]))
    else:
        truth = all(c(i) == c.offset + c.inner(i) for i in range(n))
        rs = decide_all(lambda e: equivalent(c, lambda i: c.offset + sym(c.inner)(i), n, method=e))
        check(rs, truth, lambda cex: c(cex["index"]) != c.offset + c.inner(cex["index"]))


# ----------------------------------------------------------------- injectivity
@SETTINGS
@given(st.one_of(layouts(), layouts(pow2=True), composed(), composed(pow2=True), layout_composed()))
def test_injectivity_matches_brute_force(f: Any) -> None:
    n = f.size()
    vals = values(f, n)
    truth = len(set(vals)) == n
    rs = decide_all(lambda e: injective(f, method=e))

    def verify(cex: dict[str, int]) -> bool:
        i, j = cex["index"], cex["index'"]
        return i != j and f(i) == f(j)

    check(rs, truth, verify)


@SETTINGS
@given(layouts(max_rank=2), layouts(max_rank=2))
def test_injectivity_of_coordinate_pairs(a: Layout, b: Layout) -> None:
    """Two-output functions (a(i), b(i)) over a shared domain: injective iff no pair repeats."""
    n = min(a.size(), b.size())
    pairs = [(a(i), b(i)) for i in range(n)]
    truth = len(set(pairs)) == n
    rs = decide_all(lambda e: injective(lambda i: (sym(a)(i), sym(b)(i)), n, method=e))
    check(rs, truth, lambda cex: cex["index"] != cex["index'"] and pairs[cex["index"]] == pairs[cex["index'"]])


# ----------------------------------------------------------------- arithmetic predicates
OPS = ("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>")


@st.composite
def terms(draw: Any, depth: int = 3) -> tuple[Any, Any]:
    """A random term over x in [-8, 8), y in [0, 12) as (symbolic builder, Python function)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        leaf = draw(st.sampled_from(["x", "y", "c"]))
        if leaf == "c":
            c = draw(st.integers(-9, 17))
            return (lambda x, y, c=c: c), (lambda x, y, c=c: c)
        return (lambda x, y, leaf=leaf: x if leaf == "x" else y), (lambda x, y, leaf=leaf: x if leaf == "x" else y)
    op = draw(st.sampled_from(OPS))
    sa, fa = draw(terms(depth - 1))
    if op in ("<<", ">>"):
        k = draw(st.integers(0, 3))
        if op == "<<":
            return (lambda x, y: sa(x, y) << k), (lambda x, y: fa(x, y) << k)
        return (lambda x, y: sa(x, y) >> k), (lambda x, y: fa(x, y) >> k)
    if op in ("//", "%"):
        d = draw(st.sampled_from([-7, -4, -3, -1, 1, 2, 3, 5, 8]))  # constant non-zero divisors of both signs
        if op == "//":
            return (lambda x, y: sa(x, y) // d), (lambda x, y: fa(x, y) // d)
        return (lambda x, y: sa(x, y) % d), (lambda x, y: fa(x, y) % d)
    sb, fb = draw(terms(depth - 1))
    table = {
        "+": lambda p, q: p + q,
        "-": lambda p, q: p - q,
        "*": lambda p, q: p * q,
        "&": lambda p, q: p & q,
        "|": lambda p, q: p | q,
        "^": lambda p, q: p ^ q,
    }
    fn = table[op]
    return (lambda x, y: fn(sa(x, y), sb(x, y))), (lambda x, y: fn(fa(x, y), fb(x, y)))


@SETTINGS
@given(terms(), st.sampled_from(["==", "!=", "<=", ">"]), st.integers(-3, 3))
def test_arithmetic_predicates_match_python_semantics(term: tuple[Any, Any], cmp: str, shift: int) -> None:
    """``forall x, y: t(x, y) <cmp> c`` with c near a value t takes, so both outcomes occur."""
    build, py = term
    domain = list(itertools.product(range(-8, 8), range(12)))
    vals = [py(x, y) for x, y in domain]
    c = vals[len(vals) // 3] + shift
    rel = {"==": lambda v: v == c, "!=": lambda v: v != c, "<=": lambda v: v <= c, ">": lambda v: v > c}[cmp]
    truth = all(rel(v) for v in vals)
    x, y = var("x", lo=-8, hi=8), var("y", 12)

    def pred(x: Any, y: Any) -> Any:
        t = build(x, y)
        t = t if not isinstance(t, int) else x * 0 + t
        return {"==": lambda: t == c, "!=": lambda: t != c, "<=": lambda: t <= c, ">": lambda: t > c}[cmp]()

    rs = decide_all(lambda e: forall(pred, [x, y], method=e))
    check(rs, truth, lambda cex: not rel(py(cex["x"], cex["y"])))


# ----------------------------------------------------------------- disjointness, bounds, alignment, contiguity
@SETTINGS
@given(layouts(max_rank=2, pow2=True), layouts(max_rank=2, pow2=True), st.sampled_from([0, 1, 4, 16, 64]), st.sampled_from([0, 1, 8, 32]), st.integers(0, 40))
def test_disjointness_with_a_shared_parameter(a: Layout, b: Layout, step_a: int, step_b: int, offset: int) -> None:
    """``a(i) + k*step_a`` and ``b(j) + k*step_b + offset`` never meet, for every ``k < 4``?"""
    from layoutalg.prove import disjoint, param

    k = param("k", 4)
    truth = all(
        not ({a(i) + kk * step_a for i in range(a.size())} & {b(j) + kk * step_b + offset for j in range(b.size())})
        for kk in range(4)
    )
    rs = decide_all(
        lambda e: disjoint(
            lambda i: sym(a)(i) + k * step_a, lambda j: sym(b)(j) + k * step_b + offset, {"i": a.size()}, {"j": b.size()}, method=e
        )
    )

    def verify(cex: dict[str, int]) -> bool:
        return a(cex["i"]) + cex["k"] * step_a == b(cex["j'"]) + cex["k"] * step_b + offset

    check(rs, truth, verify)


@SETTINGS
@given(st.one_of(layouts(pow2=True), composed(pow2=True), layouts(signed=False)), st.integers(1, 300), st.sampled_from([1, 2, 4, 8, 16]), st.sampled_from([1, 2]))
def test_bounds_alignment_contiguity(f: Any, n: int, align: int, elem: int) -> None:
    from layoutalg.prove import aligned, contiguous, in_bounds

    size = f.size()
    vals = values(f, size)
    if n % 3 == 0:
        n = 1 << max(0, n.bit_length() - 1)  # exercise power-of-two bounds (the GF(2) route) too
    check(decide_all(lambda e: in_bounds(f, n, method=e)), all(0 <= v < n for v in vals), lambda c: not 0 <= f(c["index"]) < n)
    check(
        decide_all(lambda e: aligned(f, align, element_bytes=elem, method=e)),
        all((v * elem) % align == 0 for v in vals),
        lambda c: (f(c["index"]) * elem) % align != 0,
    )
    run = 1 << (align.bit_length() - 1) if size % align == 0 else 1
    truth = all(f(r + e) == f(r) + e for r in range(0, size, run) for e in range(run))
    check(
        decide_all(lambda e: contiguous(f, run, method=e)),
        truth,
        lambda c: f(c["index"]) != f(c["index"] - c["index_elem"]) + c["index_elem"],
    )


def test_engines_decided_both_ways() -> None:
    """The random claims above exercised every engine on true and false claims (run last in this file)."""
    for engine in ("z3", "z3-bv", "enum"):
        assert TALLY[f"{engine}:proved"] > 50 and TALLY[f"{engine}:refuted"] > 50, TALLY
    assert TALLY["f2:proved"] > 20 and TALLY["f2:refuted"] > 20, TALLY
    print(dict(TALLY))
    assert sum(TALLY.values()) >= 3000, TALLY

"""Fresh random cases of PyCuTe's operations, judged like the recorded ones (``tests/oracles/pycute_parity.py``).

Run: ``python tools/fresh_pycute_cases.py [--n 200] [--seed 16]``

Each case is a PyCuTe expression (int, ``E`` or ``F2`` strides; symbolic ones with a sympy
``X``/``N``) evaluated by ``tests/oracles/pycute_names.py`` and checked against the
operation's brute-force definition (the judge's ``SPECS``; symbolic cases on substituted
values).  PyCuTe itself cannot be run here (not installable, not copyable), so the judge is
the definition, not PyCuTe's answer.  Prints per operation: checked / refused (a LayoutError:
the input has no answer or is outside the operation's domain) / wrong (must be 0).
"""

from __future__ import annotations

import collections
import os
import random
import sys
from typing import Any, Callable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tests.oracles import pycute_parity as judge  # noqa: E402


def _shape(r: random.Random, max_rank: int = 3) -> list[int]:
    return [r.choice([1, 2, 2, 3, 4, 4, 5, 6, 8]) for _ in range(r.randint(1, max_rank))]


def _layout(r: random.Random, kind: str = "int") -> str:
    shape = _shape(r)
    if kind == "E":
        stride = [f"{r.choice([1, 1, 2, 3])}*E({r.randint(0, 2)})" if r.random() < 0.85 else "0" for _ in shape]
    elif kind == "F2":
        stride = [f"F2({r.randint(0, 31)})" for _ in shape]
    elif kind == "sym":
        stride = [f"{r.choice([0, 1, 2, 3, 4, 6, 8])}*X" for _ in shape]
    else:
        stride = [str(r.choice([0, 1, 2, 3, 4, 6, 8, 12, 16, 32, 5, 7])) for _ in shape]
    if len(shape) == 1:
        return f"Layout({shape[0]}, {stride[0]})"
    return f"Layout(({', '.join(map(str, shape))},), ({', '.join(stride)},))"


def _chained(r: random.Random) -> str:
    shape, stride, cur = _shape(r), [], 1
    for s in shape:
        cur *= r.choice([1, 1, 2, 3])
        stride.append(cur)
        cur *= s
    return f"Layout(({', '.join(map(str, shape))},), ({', '.join(map(str, stride))},))"


GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "coalesce": lambda r: f"coalesce({_layout(r, r.choice(['int', 'int', 'E', 'F2', 'sym']))})",
    "coalesce_z": lambda r: f"coalesce_z({_layout(r, r.choice(['int', 'E', 'F2']))})",
    "composition": lambda r: f"composition({_layout(r, r.choice(['int', 'int', 'E']))}, {_layout(r)})",
    "complement": lambda r: f"complement({r.choice([_chained(r), _layout(r), _layout(r, 'E')])})",
    "right_inverse": lambda r: f"right_inverse({_layout(r, r.choice(['int', 'int', 'E', 'F2']))})",
    "left_inverse": lambda r: f"left_inverse({r.choice([_chained(r), _layout(r), _layout(r, 'F2')])})",
    "nullspace": lambda r: f"nullspace({_layout(r, r.choice(['int', 'F2']))})",
    "layout_add": lambda r: (lambda s: f"layout_add(Layout({s}, {r.randint(0, 9)}), Layout({s}, {r.randint(0, 9)}))")(
        r.choice([4, 6, 8])),
}


def _leaves(r: random.Random, strides: list[int], max_rank: int = 3) -> tuple[list[int], list[int]]:
    shape = _shape(r, max_rank)
    return shape, [r.choice(strides) for _ in shape]


def _tree(r: random.Random, shape: list[int], stride: list[int]) -> str:
    """``Layout(shape, stride)``, the first two leaves grouped into one mode now and then (a nested shape)."""
    sh: Any = tuple(shape)
    st: Any = tuple(stride)
    if len(shape) >= 2 and r.random() < 0.3:
        sh, st = (sh[:2],) + sh[2:], (st[:2],) + st[2:]
    elif len(shape) == 1:
        sh, st = sh[0], st[0]
    return f"Layout({sh!r}, {st!r})"


def _int_layout(r: random.Random, max_rank: int = 3, strides: list[int] | None = None) -> str:
    """An int-strided layout: any strides (stride 0, extent 1, non-powers of two), chained ones, nested ones."""
    if r.random() < 0.35:
        shape, stride, cur = _shape(r, max_rank), [], 1
        for s in shape:
            cur *= r.choice([1, 1, 2, 3])
            stride.append(cur)
            cur *= s
        if r.random() < 0.3:
            r.shuffle(stride)
        return _tree(r, shape, stride)
    return _tree(r, *_leaves(r, strides or [0, 1, 1, 2, 3, 4, 6, 8, 12, 16, 24, 5, 7], max_rank))


_RATIOS = ["1", "2", "3", "4", "6", "8", "16", "5", "12", "Fraction(1, 2)", "Fraction(1, 3)", "Fraction(1, 4)",
           "Fraction(1, 6)", "Fraction(1, 8)", "Fraction(2, 3)", "Fraction(3, 2)", "Fraction(3, 4)", "Fraction(4, 3)",
           "Fraction(8, 3)", "Fraction(2, 5)", "Fraction(6, 4)", "Fraction(5, 2)"]


def _ordered(r: random.Random) -> str:
    shape: Any = tuple(_shape(r, 4))
    order: Any = tuple(r.choice([0, 1, 2, 3, 5, 7, 42]) for _ in shape)
    if len(shape) >= 2 and r.random() < 0.3:  # a nested shape, the order congruent to it
        shape, order = (shape[:2],) + shape[2:], (order[:2],) + order[2:]
    elif len(shape) == 1:
        shape, order = shape[0], order[0]
    return f"make_ordered_layout({shape!r}, {order!r})"


def _same_rank_pair(r: random.Random) -> str:
    k = r.choice([1, 2, 2, 3])
    pick = [1, 2, 3, 4, 6, 8, 0, 5]
    a = _tree(r, *(lambda sh: (sh, [r.choice(pick) for _ in sh]))([r.choice([1, 2, 3, 4, 5]) for _ in range(k)]))
    if r.random() < 0.5:
        a = _chained_k(r, k)
    b = _chained_k(r, k) if r.random() < 0.6 else _tree(r, *(lambda sh: (sh, [r.choice(pick) for _ in sh]))(
        [r.choice([1, 2, 3, 4]) for _ in range(k)]))
    return f"{a}, {b}"


def _chained_k(r: random.Random, k: int) -> str:
    shape, stride, cur = [r.choice([1, 2, 3, 4, 5]) for _ in range(k)], [], 1
    for s in shape:
        cur *= r.choice([1, 1, 2, 3])
        stride.append(cur)
        cur *= s
    if r.random() < 0.4:
        r.shuffle(stride)
    return _tree(r, shape, stride)


def _small(r: random.Random) -> str:
    return _int_layout(r, 2, [0, 1, 1, 2, 3, 4, 6])


GENERATORS.update({
    "recast": lambda r: f"recast({_int_layout(r)}, {r.choice(_RATIOS)})",
    "make_layout_like": lambda r: f"make_layout_like({r.choice([_int_layout(r, 4), _int_layout(r, 4), _layout(r, 'E')])})",
    "make_ordered_layout": _ordered,
    "blocked_product": lambda r: f"blocked_product({_same_rank_pair(r)})",
    "raked_product": lambda r: f"raked_product({_same_rank_pair(r)})",
    "complement_cotarget": lambda r: (lambda a, t: f"complement({a}, {r.choice([str(t), f'Layout({t}, 1).shape', f'({t}, 2)'])})")(
        r.choice([_chained(r), _int_layout(r)]), r.choice([1, 2, 5, 6, 12, 16, 20, 24, 30, 48, 64, 100])),
    "logical_divide": lambda r: f"logical_divide({_int_layout(r)}, {_small(r)})",
    "logical_product": lambda r: f"logical_product({_int_layout(r)}, {_small(r)})",
})


def _call_args(src: str) -> list[Any]:
    import ast

    from tests.oracles.pycute_names import evaluate

    call = ast.parse(src, mode="eval").body
    assert isinstance(call, ast.Call)
    return [evaluate(ast.unparse(x)) for x in call.args]


def recast_refusal_has_answer(src: str) -> bool:
    """Brute force (the judge's leaf rule): every leaf of extent > 1 meets PyCuTe's divisibility precondition (or
    has stride 0 or 1), so an answer exists."""
    a, ratio = _call_args(src)
    return judge.recast_answer_exists(a, ratio)


def floored_complement(layout: Any, target: int | None) -> tuple[list[int], list[int]] | None:
    """The complement PyCuTe documents (its ``complement`` docstring), written out independently: A's non-trivial
    leaves sorted by stride ``d_1 <= d_2 <= ...``; each gap ``floor(d_k / e_(k-1))`` at stride ``e_(k-1)``, where
    ``e_k = d_k s_k`` is mode k's end (``e_0 = 1``), then the rest mode at ``e_n``, ``ceil(target / e_n)`` long (1
    without a target).  None where a mode starts inside the span below it (``d_k < e_(k-1)``: PyCuTe's
    precondition fails).  Where the strides chain (each ``e_(k-1)`` divides ``d_k``) every definition agrees, and
    ``(A, R)`` is checked to enumerate ``[0, size(A) * size(R))`` once each; otherwise it is the weak complement
    (ordered, disjoint from A, under-filling)."""
    leaves = sorted((d, s) for s, d in zip(judge.ref.flat(layout.shape), judge.ref.flat(layout.stride))
                    if d != 0 and s != 1)
    shape, stride, cur, chained = [], [], 1, True
    for d, s in leaves:
        if d < cur:
            return None
        chained = chained and d % cur == 0
        shape.append(d // cur)
        stride.append(cur)
        cur = d * s
    shape.append(1 if target is None else -(-target // cur))
    stride.append(cur)
    if chained:
        mine = [0]
        for s, d in zip(shape, stride):
            mine = [v + c * d for c in range(s) for v in mine]
        image = sorted(a + c for a in set(judge.values(layout)) for c in mine)
        assert image == list(range(len(image))), (layout, shape, stride)
    return shape, stride


def _layout_src(shape: list[Any], stride: list[Any]) -> str:
    return f"Layout({tuple(shape)!r}, {tuple(stride)!r})"


def divide_refusal_has_answer(src: str) -> bool:
    """``A / B = A o (B, B*)`` with ``B*`` the complement of B for ``size(A)`` (:func:`floored_complement`): an
    answer exists exactly when that composition has a layout (:func:`composition_answer_exists`)."""
    a, b = _call_args(src)
    rest = floored_complement(b, judge.ref.size(a.shape))
    if rest is None:
        return False  # B breaks PyCuTe's precondition (a mode inside the span of those below it)
    whole = f"Layout(({b.shape!r}, {tuple(rest[0])!r}), ({b.stride!r}, {tuple(rest[1])!r}))"
    return composition_answer_exists(f"composition({_layout_src(list(judge.ref.flat(a.shape)), list(judge.ref.flat(a.stride)))}, {whole})")


def product_refusal_has_answer(src: str) -> bool:
    """``A x B = (A, A* o B)`` with ``A*`` the complement of A (:func:`floored_complement`; its rest mode goes on
    past its size): an answer exists exactly when ``A* o B`` has a layout of B's shape (blocked/raked products
    rearrange that one, for equal ranks)."""
    a, b = _call_args(src)
    if src.startswith(("blocked_product", "raked_product")) and len(judge.ref.top_sizes(a.shape)) != len(
            judge.ref.top_sizes(b.shape)):
        return False
    rest = floored_complement(a, None)
    if rest is None:
        return False
    b_src = f"Layout({b.shape!r}, {b.stride!r})"
    return composition_answer_exists(f"composition({_layout_src(*rest)}, {b_src})")


def complement_refusal_has_answer(src: str) -> bool:
    """PyCuTe's precondition: sorted by stride, each non-trivial mode starts at or past the end of the ones below
    it (``d_k >= s_(k-1) d_(k-1)``); then its construction answers."""
    a = _call_args(src)[0]
    cur = 1
    for d, s in sorted((d, s) for s, d in zip(judge.ref.flat(a.shape), judge.ref.flat(a.stride)) if d != 0 and s != 1):
        if d < cur:
            return False
        cur = d * s
    return True


#: Operations whose refusals are checked: a refusal where brute force finds an answer counts as wrong.
ANSWER_EXISTS: dict[str, Callable[[str], bool]] = {
    "recast": recast_refusal_has_answer, "logical_divide": divide_refusal_has_answer,
    "logical_product": product_refusal_has_answer, "blocked_product": product_refusal_has_answer,
    "raked_product": product_refusal_has_answer, "complement_cotarget": complement_refusal_has_answer,
}


def _factorizations(m: int) -> list[tuple[int, ...]]:
    """Every ordered factorization of ``m`` into factors >= 2 (``()`` for 1)."""
    if m == 1:
        return [()]
    return [(f,) + rest for f in range(2, m + 1) if m % f == 0 for rest in _factorizations(m // f)]


def _mode_fits(w: list[Any]) -> bool:
    """Whether some flat layout ``(s1, s2, ...):(d1, d2, ...)`` with ``s1*s2*... == len(w)`` has the values ``w``
    (each ``d_t`` is then the value at the prefix product, so trying every factorization decides)."""
    if not w[0] == 0:
        return False
    for factors in _factorizations(len(w)):
        strides, running = [], 1
        for f in factors:
            strides.append(w[running])
            running *= f
        fits = True
        for c, want in enumerate(w):
            total: Any = 0
            for f, d in zip(factors, strides):
                total = total + d * (c % f)
                c //= f
            if not total == want:
                fits = False
                break
        if fits:
            return True
    return False


def composition_answer_exists(src: str) -> bool:
    """Brute force: whether some layout whose shape refines B's (flat) leaves has the function ``i -> A(B(i))``.

    Such a layout's value is the sum over B's leaves of a flat layout of each leaf's coordinate, so the values
    must be additive over the leaves, and each leaf's values must be a flat layout's (:func:`_mode_fits`).  The
    value objects' own ``+`` and ``* int`` are the arithmetic (ints, basis vectors, F2 with XOR and clmul)."""
    import ast

    from tests.oracles.pycute_names import evaluate

    call = ast.parse(src, mode="eval").body
    assert isinstance(call, ast.Call)
    a, b = (evaluate(ast.unparse(x)) for x in call.args)
    sizes = list(judge.ref.flat(b.shape))
    want = [judge.ev(a, x) for x in judge.values(b)]
    units = []
    running = 1
    for m in sizes:
        units.append([want[running * c] for c in range(m)])
        running *= m
    for i, value in enumerate(want):
        total: Any = 0
        for m, w in zip(sizes, units):
            total = total + w[i % m]
            i //= m
        if not total == value:
            return False
    return all(_mode_fits(w) for w in units)


def main() -> None:
    n = int(sys.argv[sys.argv.index("--n") + 1]) if "--n" in sys.argv else 200
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 16
    r = random.Random(seed)
    totals: dict[str, collections.Counter[str]] = {}
    bad = []
    for op, gen in GENERATORS.items():
        counts: collections.Counter[str] = collections.Counter()
        for _ in range(n):
            src = gen(r)
            status, note = judge.classify({"file": "fresh", "line": 0, "kind": "call", "src": src})
            kind = {"match": "checked", "refused": "refused"}.get(status, "wrong")
            if status == "match" and note == "unchecked":
                kind = "unchecked"
            if status == "refused" and op == "composition" and composition_answer_exists(src):
                kind, note = "wrong", f"refused, yet brute force finds a layout of B's shape: {note}"
            if status == "refused" and op in ANSWER_EXISTS and ANSWER_EXISTS[op](src):
                kind, note = "wrong", f"refused, yet brute force finds an answer: {note}"
            counts[kind] += 1
            if kind == "wrong":
                bad.append(f"{src}: {note}")
        totals[op] = counts
        print(f"{op:15s} " + " ".join(f"{k}={counts[k]}" for k in ("checked", "unchecked", "refused", "wrong")))
    for line in bad[:20]:
        print("WRONG", line)


if __name__ == "__main__":
    main()

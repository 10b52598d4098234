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
            counts[kind] += 1
            if kind == "wrong":
                bad.append(f"{src}: {note}")
        totals[op] = counts
        print(f"{op:15s} " + " ".join(f"{k}={counts[k]}" for k in ("checked", "unchecked", "refused", "wrong")))
    for line in bad[:20]:
        print("WRONG", line)


if __name__ == "__main__":
    main()

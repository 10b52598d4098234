"""Fresh random cases of PyCuTe's operations, judged like the recorded ones (``tests/oracles/pycute_parity.py``).

Run: ``python tools/fresh_pycute_cases.py [--n 200] [--seed 16] [--ops zipped_divide,composition ...]`` (``--ops``: only those forms, from a different random stream).

Each case is a PyCuTe expression (int, ``E`` or ``F2`` strides; symbolic ones with a sympy
``X``/``N``) evaluated by ``tests/oracles/pycute_names.py`` and checked against the
operation's brute-force definition (the judge's ``SPECS``; symbolic cases on substituted
values).  PyCuTe itself cannot be run here (not installable, not copyable), so the judge is
the definition, not PyCuTe's answer.  Prints per operation: checked / refused (a LayoutError:
the input has no answer or is outside the operation's domain) / wrong (must be 0).
"""

from __future__ import annotations

import collections
import math
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


def _chained_strides(r: random.Random, shape: list[int]) -> list[int]:
    """Strides that chain over ``shape``: each the span below it times 1, 2 or 3."""
    stride, cur = [], 1
    for s in shape:
        cur *= r.choice([1, 1, 2, 3])
        stride.append(cur)
        cur *= s
    return stride


def _chained(r: random.Random) -> str:
    shape = _shape(r)
    stride = _chained_strides(r, shape)
    return f"Layout(({', '.join(map(str, shape))},), ({', '.join(map(str, stride))},))"


GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "coalesce": lambda r: f"coalesce({_layout(r, r.choice(['int', 'int', 'E', 'F2', 'sym']))})",
    "coalesce_z": lambda r: f"coalesce_z({_layout(r, r.choice(['int', 'E', 'F2']))})",
    "composition": lambda r: f"composition({_layout(r, r.choice(['int', 'int', 'E']))}, {_layout(r)})",
    "complement": lambda r: f"complement({r.choice([_chained(r), _layout(r), _layout(r, 'E')])})",
    "right_inverse": lambda r: f"right_inverse({_layout(r, r.choice(['int', 'int', 'E', 'F2']))})",
    "left_inverse": lambda r: f"left_inverse({r.choice([_chained(r), _layout(r), _layout(r, 'F2'), _layout(r, 'E')])})",
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
        shape = _shape(r, max_rank)
        stride = _chained_strides(r, shape)
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
    shape = [r.choice([1, 2, 3, 4, 5]) for _ in range(k)]
    stride = _chained_strides(r, shape)
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
    a = judge.promoted(a)  # PyCuTe reads an int or a tuple A as tiler_to_layout(A)
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


# ---------------------------------------------------------------------------
# shape lattice, greatest_common_domain, prefix products, tilers, tile_to_shape, nested coalesce_z
# ---------------------------------------------------------------------------
_LEAVES = [1, 2, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10, 12, 16]


def _nested(r: random.Random, depth: int = 2, max_rank: int = 3, leaves: list[int] | None = None) -> Any:
    """A random shape: an int or a tuple of 1..max_rank modes, each a leaf or (below ``depth``) a nested shape."""
    pool = leaves or _LEAVES
    if depth == 0 or r.random() < 0.25:
        return r.choice(pool)
    return tuple(_nested(r, depth - 1, max_rank, pool) if r.random() < 0.3 else r.choice(pool)
                 for _ in range(r.randint(1, max_rank)))


def _primes(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def _group(r: random.Random, factors: list[int], depth: int) -> Any:
    """The factors, in order, grouped into a random shape (products as leaves, nested tuples, stray 1s)."""
    if not factors:
        return 1
    if depth == 0 or len(factors) == 1 or r.random() < 0.2:
        return math.prod(factors)
    cuts = sorted(r.sample(range(1, len(factors)), r.randint(1, min(3, len(factors) - 1))))
    parts = [factors[i:j] for i, j in zip([0] + cuts, cuts + [len(factors)])]
    modes = [_group(r, p, depth - 1) for p in parts]
    if r.random() < 0.15:
        modes.insert(r.randint(0, len(modes)), 1)
    return tuple(modes)


def _refactor(r: random.Random, n: int) -> Any:
    """A random shape of size ``n`` (its prime factors shuffled, then grouped)."""
    factors = _primes(n)
    r.shuffle(factors)
    return _group(r, factors, 2)


def _refine(r: random.Random, s: Any) -> Any:
    """A random refinement of ``s`` (``compatible(s, result)``): some int leaves become shapes of their size."""
    if isinstance(s, tuple):
        return tuple(_refine(r, m) for m in s)
    return _refactor(r, s) if type(s) is int and r.random() < 0.5 else s


def _coarsen(r: random.Random, s: Any) -> Any:
    """A random coarsening of ``s`` (``compatible(result, s)``): some sub-trees become their sizes."""
    if not isinstance(s, tuple):
        return s
    if r.random() < 0.25:
        return math.prod(_flat(s))
    return tuple(_coarsen(r, m) for m in s)


def _flat(s: Any) -> list[int]:
    return [x for m in s for x in _flat(m)] if isinstance(s, tuple) else [s]


def _as_arg(r: random.Random, s: Any) -> str:
    """A shape as PyCuTe takes it: itself, or (sometimes) a Layout of it with int or basis strides, or a Tensor."""
    kind = r.random()
    if kind < 0.05:
        return f"make_tensor(Layout({s!r}))"
    if kind < 0.25:
        strides = [str(r.choice([0, 1, 2, 3, 5, 8])) if kind < 0.2 else f"{r.choice([1, 2])}*E({r.randint(0, 1)})"
                   for _ in _flat(s)]
        stride_it = iter(strides)

        def rebuild(t: Any) -> str:
            if isinstance(t, tuple):
                return "(" + ", ".join(rebuild(m) for m in t) + ("," if len(t) == 1 else "") + ")"
            return next(stride_it)
        return f"Layout({s!r}, {rebuild(s)})"
    return repr(s)


def _shape_pair(r: random.Random) -> tuple[Any, Any]:
    """Two shapes, mostly related: refinement/coarsening of each other, two refinements of one shape, two
    coarsenings of one, two shapes of one size, or unrelated."""
    s = _nested(r)
    kind = r.random()
    if kind < 0.2:
        pair = (s, _refine(r, s))
    elif kind < 0.35:
        pair = (_coarsen(r, s), s)
    elif kind < 0.5:
        pair = (_coarsen(r, s), _coarsen(r, s))
    elif kind < 0.65:
        c = _coarsen(r, s)
        pair = (_refine(r, c), _refine(r, c))
    elif kind < 0.85:
        n = math.prod(_flat(s))
        pair = (_refactor(r, n), _refactor(r, n))
    else:
        pair = (s, _nested(r))
    return pair if r.random() < 0.5 else (pair[1], pair[0])


def _symbolic(r: random.Random, s: Any) -> Any:
    """``s`` with some leaves (at least one) made the symbol ``N`` or ``M`` (PyCuTe's sympy extents)."""
    import sympy

    names = [sympy.Symbol(n, positive=True, integer=True) for n in ("N", "M")]
    flat = _flat(s)
    pick = {r.randrange(len(flat))} | {k for k in range(len(flat)) if r.random() < 0.2}
    leaves = iter([r.choice(names) if k in pick else x for k, x in enumerate(flat)])

    def rebuild(t: Any) -> Any:
        return tuple(rebuild(m) for m in t) if isinstance(t, tuple) else next(leaves)

    return rebuild(s)


def _symbolic_pair(r: random.Random) -> tuple[Any, Any]:
    """Two related shapes with symbolic leaves (a refinement / coarsening of one shape, two of them): their sizes
    agree wherever they are compared, so substituting values for the symbols cannot make a size match by chance."""
    s = _symbolic(r, _nested(r))
    c = _coarsen(r, s)
    pair = r.choice([(s, _refine(r, s)), (c, s), (c, _coarsen(r, s)), (_refine(r, c), _refine(r, c))])
    return pair if r.random() < 0.5 else (pair[1], pair[0])


def _pair_call(op: str) -> Callable[[random.Random], str]:
    def gen(r: random.Random) -> str:
        if r.random() < 0.1:
            a, b = _symbolic_pair(r)
            return f"{op}({a!r}, {b!r})"
        a, b = _shape_pair(r)
        return f"{op}({_as_arg(r, a)}, {_as_arg(r, b)})"
    return gen


def _gcd_case(r: random.Random) -> str:
    a, b = _shape_pair(r)
    if r.random() < 0.25:  # many composite leaves: their split points inside leaves matter
        pool = [1, 2, 3, 4, 6, 8, 9, 12, 16, 18, 24, 5, 10]
        a, b = (tuple(r.choice(pool) for _ in range(r.randint(1, 6))) for _ in range(2))
    elif r.random() < 0.3:  # unequal sizes: a common prefix of factors, then anything
        n = math.prod(_flat(a))
        b = _refactor(r, n * r.choice([2, 3, 5, 7])) if r.random() < 0.5 else _refactor(r, max(1, n // r.choice([1, 2, 3])))
    wrap = r.random()
    if wrap < 0.1:
        return f"greatest_common_domain(make_tensor(Layout({a!r})), make_tensor(Layout({b!r})))"
    return f"greatest_common_domain({_as_arg(r, a)}, {_as_arg(r, b)})"


def _scalar_init(r: random.Random) -> str:
    return r.choice([str(r.choice([0, 1, 2, 3, 5, 7])), f"{r.choice([1, 2, 3])}*E({r.randint(0, 2)})",
                     f"F2({r.randint(1, 13)})", "X"])


def _init_like(r: random.Random, s: Any) -> str:
    """An init weakly congruent to ``s``: a scalar, or (for a tuple) one init per mode."""
    if not isinstance(s, tuple) or r.random() < 0.5:
        return _scalar_init(r)
    return "(" + ", ".join(_init_like(r, m) for m in s) + ("," if len(s) == 1 else "") + ")"


def _prefix_case(r: random.Random) -> str:
    if r.random() < 0.1:  # a symbolic extent (an int or symbolic init: an ArithTuple scales only by an int)
        return f"prefix_product(({r.choice([2, 3])}, N, 4){r.choice(['', ', 3', ', X'])})"
    s = _nested(r, leaves=[1, 2, 3, 4, 5, 6, 7, 8])
    shape = repr(s)
    if r.random() < 0.25:
        return f"prefix_product({shape})"
    return f"prefix_product({shape}, {_init_like(r, s)})"


def _tiler(r: random.Random, depth: int = 2) -> str:
    """A tiler: an int, a Layout (int strides, nested shapes, stride 0, extent 1), or a tuple of tilers."""
    kind = r.random()
    if depth == 0 or kind < 0.35:
        return str(r.choice([1, 2, 3, 4, 5, 6, 8]))
    if kind < 0.6:
        s = _nested(r, 1, 2, [1, 2, 3, 4, 5, 6])
        strides = iter([str(r.choice([0, 1, 2, 3, 4, 7])) for _ in _flat(s)])

        def rebuild(t: Any) -> str:
            if isinstance(t, tuple):
                return "(" + ", ".join(rebuild(m) for m in t) + ("," if len(t) == 1 else "") + ")"
            return next(strides)
        return f"Layout({s!r}, {rebuild(s)})"
    modes = [_tiler(r, depth - 1) for _ in range(r.randint(1, 3))]
    return "(" + ", ".join(modes) + ("," if len(modes) == 1 else "") + ")"


def _block(r: random.Random) -> tuple[str, list[int]]:
    """A tile_to_shape block: compact in a random mode order, or with gaps between its modes, a stride-0 mode, an
    extent-1 mode, a nested mode; and its top-level sizes."""
    shape = [r.choice([1, 2, 2, 3, 4, 4, 6, 8]) for _ in range(r.randint(1, 3))]
    nested = [s == 4 and r.random() < 0.4 for s in shape]
    leaves = [(2, 2) if n else s for s, n in zip(shape, nested)]
    flat_sizes = [x for leaf in leaves for x in (leaf if isinstance(leaf, tuple) else (leaf,))]
    order = list(range(len(flat_sizes)))
    r.shuffle(order)
    strides, running = [0] * len(flat_sizes), 1
    for k in order:
        if r.random() < 0.1:
            continue  # a stride-0 leaf
        running *= r.choice([1, 1, 1, 2, 3]) if r.random() < 0.3 else 1
        strides[k] = running
        running *= flat_sizes[k]
    it_d = iter(strides)
    parts_s, parts_d = [], []
    for leaf in leaves:
        if isinstance(leaf, tuple):
            parts_s.append(f"({leaf[0]}, {leaf[1]})")
            parts_d.append(f"({next(it_d)}, {next(it_d)})")
        else:
            parts_s.append(str(leaf))
            parts_d.append(str(next(it_d)))
    if len(shape) == 1 and r.random() < 0.5:
        return f"Layout({parts_s[0]}, {parts_d[0]})", shape
    return f"Layout(({', '.join(parts_s)},), ({', '.join(parts_d)},))", shape


def _tile_to_shape_case(r: random.Random) -> str:
    block, sizes = _block(r)
    if r.random() < 0.15:  # a swizzled atom (CuTe C++'s ComposedLayout): the swizzle stays outside the tiling
        bits = r.randint(1, 3)
        block = f"composition(Swizzle({bits}, {r.randint(0, 3)}, {r.randint(bits, 4)}), {block})"
    rank = len(sizes) + r.choice([0, 0, 0, 1])
    target = []
    for k in range(rank):
        b = sizes[k] if k < len(sizes) else 1
        want = b * r.choice([1, 2, 3, 4]) + (1 if r.random() < 0.05 else 0)  # now and then not a multiple
        target.append(repr(_refactor(r, want)) if r.random() < 0.2 else str(want))
    shape = f"({', '.join(target)},)" if rank > 1 or r.random() < 0.5 or "(" in target[0] else target[0]
    if r.random() < 0.4:
        return f"tile_to_shape({block}, {shape})"
    order = list(range(rank))
    r.shuffle(order)
    return f"tile_to_shape({block}, {shape}, ({', '.join(map(str, order))},))"


def _nested_layout(r: random.Random, kind: str, symbolic_extent: bool = False) -> str:
    """A layout of a nested shape (int, basis, F2 or symbolic strides; a chained run now and then, so that modes
    merge); with ``symbolic_extent``, a leading mode ``N`` (PyCuTe folds no concrete extent into a symbolic one)."""
    s = _nested(r, 2, 3, [1, 1, 2, 3, 4, 6, 8])
    if not isinstance(s, tuple):
        s = (s, (r.choice([1, 2, 4]), r.choice([1, 2, 3])))
    if symbolic_extent:
        import sympy

        s = (sympy.Symbol("N", positive=True, integer=True),) + s
    if kind == "E":
        pick = lambda: f"{r.choice([1, 2, 3])}*E({r.randint(0, 1)})" if r.random() < 0.85 else "0"  # noqa: E731
    elif kind == "F2":
        pick = lambda: f"F2({r.randint(0, 31)})"  # noqa: E731
    elif kind == "sym":
        pick = lambda: f"{r.choice([0, 1, 2, 3, 4])}*X"  # noqa: E731
    else:
        pick = lambda: str(r.choice([0, 1, 2, 3, 4, 6, 8, 12, 16, 5, 7]))  # noqa: E731
    # a chained run now and then, so that modes merge
    chained = r.random() < 0.4 and kind == "int"
    running = 1

    def rebuild(t: Any) -> str:
        nonlocal running
        if isinstance(t, tuple):
            return "(" + ", ".join(rebuild(m) for m in t) + ("," if len(t) == 1 else "") + ")"
        if chained:
            d, running = running, running * t
            return str(d)
        return pick()
    return f"Layout({s!r}, {rebuild(s)})"


def _profile(r: random.Random, rank: int) -> str:
    picks = [r.choice(["1", "1", "None", "(1,)" if False else "1"]) for _ in range(r.randint(1, rank))]
    return f"({', '.join(picks)},)"


def _coalesce_z_nested(r: random.Random) -> str:
    if r.random() < 0.1:  # PyCuTe promotes an int or a tuple by tiler_to_layout
        return f"coalesce_z({_nested(r, 2, 3, [1, 2, 3, 4])!r})"
    kind = r.choice(["int", "int", "E", "F2", "sym"])
    layout = _nested_layout(r, kind, symbolic_extent=kind in ("int", "sym") and r.random() < 0.15)
    if r.random() < 0.3:
        from tests.oracles.pycute_names import evaluate

        rank = len(evaluate(layout).shape)
        return f"coalesce_z({layout}, {_profile(r, rank)})"
    return f"coalesce_z({layout})"


def _coalesce_by_mode(r: random.Random) -> str:
    from tests.oracles.pycute_names import evaluate

    if r.random() < 0.1:  # PyCuTe promotes an int or a tuple by tiler_to_layout
        s = _nested(r, 2, 3, [1, 2, 3, 4])
        return f"coalesce({s!r}, {_profile(r, len(s) if isinstance(s, tuple) else 1)})"

    kind = r.choice(["int", "int", "E", "F2", "sym"])
    layout = _nested_layout(r, kind, symbolic_extent=kind in ("int", "sym") and r.random() < 0.15)
    return f"coalesce({layout}, {_profile(r, len(evaluate(layout).shape))})"


GENERATORS.update({
    "greatest_common_domain": _gcd_case,
    "common_refinement": _pair_call("common_refinement"),
    "common_coarsening": _pair_call("common_coarsening"),
    "compatible": _pair_call("compatible"),
    "product_each": lambda r: (f"product_each({_nested(r, 3, 4)!r})" if r.random() < 0.8 else
                               f"product_each({r.randint(1, 9)})" if r.random() < 0.5 else
                               f"product_each({_symbolic(r, _nested(r, 3, 4))!r})"),
    "prefix_product": _prefix_case,
    "tiler_to_layout": lambda r: f"tiler_to_layout({_tiler(r)})" if r.random() < 0.7 else r.choice([
        "tiler_to_layout(N)", "tiler_to_layout(N, 3)", "tiler_to_layout(Layout((N, 2), (X, 1)))",
        f"tiler_to_layout({r.choice([3, 4])}, X)", "tiler_to_layout(Layout((2, 3), (1, 2)), X)"]) if r.random() < 0.2 else (
        f"tiler_to_layout({_tiler(r, r.choice([0, 1, 1, 2]))}, "
        f"{r.choice(['2', '3', 'E(1)', '2*E(0)', 'F2(3)', 'F2(1)', 'F2(6)'])})"),
    "tile_to_shape": _tile_to_shape_case,
    "coalesce_z nested": _coalesce_z_nested,
    "coalesce by mode": _coalesce_by_mode,
})


def _call_args(src: str) -> list[Any]:
    import ast

    from tests.oracles.pycute_names import evaluate

    call = ast.parse(src, mode="eval").body
    assert isinstance(call, ast.Call)
    return [evaluate(ast.unparse(x)) for x in call.args]


def _tile_to_shape_answer_exists(src: str) -> bool:
    """Brute force: whether a layout with the target's mode sizes has tile_to_shape's function: the block's rank at
    most the target's, each block mode's size dividing the target mode's, the values additive over the target's
    modes and each mode's values a flat layout's (:func:`_mode_fits`)."""
    args = _call_args(src)
    block, shape = getattr(args[0], "inner", args[0]), args[1]
    target = list(shape) if isinstance(shape, tuple) else [shape]
    sizes = list(judge.ref.top_sizes(block.shape))
    if len(sizes) > len(target) or any(judge.ref.size(t) % b for t, b in zip(target, sizes)):
        return False
    tsizes, want = judge.tile_to_shape_values(*args)
    units, running = [], 1
    for m in tsizes:
        units.append([want[running * c] for c in range(m)])
        running *= m
    for i, value in enumerate(want):
        total = 0
        for m, w in zip(tsizes, units):
            total += w[i % m]
            i //= m
        if total != value:
            return False
    return all(_mode_fits(w) for w in units)


def _prefix_answer_exists(src: str) -> bool:
    args = _call_args(src)
    try:
        judge._prefix_want(args[0], args[1] if len(args) > 1 else 1)
    except ValueError:
        return False
    return True


def _nullspace_answer_exists(src: str) -> bool:
    """Brute force (``reference.listing_exists``): whether some flat layout, int or F2 strides, lists A's zero set,
    each index once (sets of more than 24 zeros are not searched and count as having an answer, so they are never
    called wrong)."""
    from tests.oracles import reference

    a = judge.promoted(_call_args(src)[0])  # PyCuTe reads an int or a tuple A as tiler_to_layout(A)
    zeros = {i for i, v in enumerate(judge.values(a)) if v == 0}
    if len(zeros) <= 2 or len(zeros) > 24:
        return True
    return reference.listing_exists(zeros, xor=False) or reference.listing_exists(zeros, xor=True)


# More operations whose refusals are judged: whether an answer exists (a refusal where one does is wrong).
ANSWER_EXISTS.update({
    "composition": composition_answer_exists,
    "common_refinement": lambda src: judge.refinement_exists(*_call_args(src)),
    "common_coarsening": lambda src: bool(judge.coarsenings(judge._shape_arg(_call_args(src)[0]))
                                          & judge.coarsenings(judge._shape_arg(_call_args(src)[1]))),
    "tile_to_shape": _tile_to_shape_answer_exists,
    "prefix_product": _prefix_answer_exists,
    "nullspace": _nullspace_answer_exists,
    **{op: (lambda src: True) for op in ("greatest_common_domain", "compatible", "product_each", "tiler_to_layout",
                                         "coalesce_z nested", "coalesce by mode")},
})


# ---------------------------------------------------------------------------
# an int or a tuple first argument, which PyCuTe promotes by tiler_to_layout
# ---------------------------------------------------------------------------
def _promotable(r: random.Random) -> str:
    """An int, or a tuple of tilers (ints, Layouts with int strides -- stride 0, extent 1, nested shapes -- and
    tuples of ints) of size at most 2048: what PyCuTe's algebra reads as ``tiler_to_layout`` of it."""
    if r.random() < 0.15:
        return str(r.choice([1, 2, 3, 4, 5, 6, 8]))
    for _ in range(20):
        modes = [_tiler(r, 1) for _ in range(r.randint(1, 3))]
        src = "(" + ", ".join(modes) + ("," if len(modes) == 1 else "") + ")"
        if _size_of(src) <= 2048:
            break
    return src


def _size_of(src: str) -> int:
    from tests.oracles.pycute_names import evaluate

    return int(judge.ref.size(judge._tiler_shape(evaluate(src))))


def _rank_of(src: str) -> int:
    from tests.oracles.pycute_names import evaluate

    x = evaluate(src)
    return len(x) if isinstance(x, tuple) else 1


def _chained_promotable(r: random.Random) -> str:
    """As :func:`_promotable`, its Layout leaves' strides a divisor chain (:func:`_chained`), so that each codomain
    axis has CuTe's complement for any extent."""
    if r.random() < 0.15:
        return str(r.choice([1, 2, 3, 4, 5, 6, 8]))

    def whole() -> str:
        return "(" + ", ".join(mode(1) for _ in range(r.randint(1, 3))) + ",)"

    def mode(depth: int) -> str:
        k = r.random()
        if k < 0.4 or depth == 0:
            return str(r.choice([1, 2, 3, 4, 5, 6, 8]))
        if k < 0.7:
            return _chained(r)
        return "(" + ", ".join(mode(depth - 1) for _ in range(r.randint(1, 2))) + ",)"

    for _ in range(20):
        src = whole()
        if _size_of(src) <= 2048:
            break
    return src


def _extend_for(r: random.Random, t: str) -> str:
    """A shape for ``complement(T, extend)`` congruent to T's codomain profile (an extent per int or Layout leaf of
    T, a tuple per tuple), now and then one extra top-level extent (an axis T does not reach); at most ~4096
    points."""
    from tests.oracles.pycute_names import evaluate

    budget = [4096]

    def extent() -> int:
        e = r.choice([1, 2, 3, 4, 6, 8, 12, 16])
        e = e if e <= budget[0] else 1
        budget[0] //= e
        return e

    def like(x: Any) -> str:
        if isinstance(x, tuple):
            return "(" + ", ".join(like(m) for m in x) + ("," if len(x) == 1 else "") + ")"
        return str(extent())

    x = evaluate(t)
    if not isinstance(x, tuple):
        return str(r.choice([1, 4, 6, 8, 12, 16, 24]))
    if r.random() < 0.2:
        x = x + (1,)
    return like(x)


def _same_rank_layout(r: random.Random, rank: int) -> str:
    shape = [r.choice([1, 2, 3, 4]) for _ in range(rank)]
    stride = [str(r.choice([0, 1, 2, 3, 4, 8])) for _ in range(rank)]
    if rank == 1:
        return f"Layout({shape[0]}, {stride[0]})"
    return f"Layout(({', '.join(map(str, shape))},), ({', '.join(stride)},))"


def _blocked_raked(op: str) -> Callable[[random.Random], str]:
    def gen(r: random.Random) -> str:
        t = _promotable(r)
        return f"{op}({t}, {_same_rank_layout(r, _rank_of(t))})"
    return gen


def _tiled(op: str) -> Callable[[random.Random], str]:
    """``op(T, tiler)``: a tuple tiler mostly of at most T's rank (a longer one is refused, by PyCuTe too)."""
    def gen(r: random.Random) -> str:
        t = _promotable(r)
        tiler = _tiler(r, 1)
        for _ in range(4):
            if not tiler.startswith("(") or _rank_of(tiler) <= _rank_of(t):
                break
            tiler = _tiler(r, 1)
        return f"{op}({t}, {tiler})"
    return gen


def _complement_promoted(r: random.Random) -> str:
    if r.random() < 0.5:
        t = _chained_promotable(r)
        return f"complement({t}, {_extend_for(r, t)})"
    return f"complement({_promotable(r)})"


def _weak_complement_exists(src: str) -> bool:
    """``complement(T)`` (one argument) has an answer unless PyCuTe's own precondition fails: on some codomain
    axis, with T's leaves there sorted by stride (stride 0 and extent 1 left out), a stride below the end
    ``d_{k-1} * s_{k-1}`` of the one before (PyCuTe raises "Non-injective layout in complement" exactly there).
    ``complement(T, extend)`` of :func:`_chained_promotable` always has one: each axis is an int leaf or a divisor
    chain, where CuTe's complement's divisions are exact."""
    args = _call_args(src)
    if len(args) > 1:
        return True
    a = judge.promoted(args[0])
    axes: dict[Any, list[tuple[int, int]]] = {}
    for s, d in zip(judge.ref.flat(a.shape), judge.ref.flat(a.stride)):
        if s == 1 or d == 0:
            continue
        if isinstance(d, judge.la.ArithTuple):
            (v, path), = d.terms()
        else:
            v, path = d, ()
        axes.setdefault(path, []).append((int(v), s))
    for modes in axes.values():
        end = 1
        for d, s in sorted(modes):
            if d < end:
                return False
            end = d * s
    return True


GENERATORS.update({
    "right_inverse promoted": lambda r: f"right_inverse({_promotable(r)})",
    "left_inverse promoted": lambda r: f"left_inverse({_promotable(r)})",
    "nullspace promoted": lambda r: f"nullspace({_promotable(r)})",
    "complement promoted": _complement_promoted,
    "composition promoted": lambda r: f"composition({_promotable(r)}, {r.choice([_layout(r), _chained(r)])})",
    "logical_divide promoted": _tiled("logical_divide"),
    "zipped_divide promoted": _tiled("zipped_divide"),
    "logical_product promoted": _tiled("logical_product"),
    "blocked_product promoted": _blocked_raked("blocked_product"),
    "raked_product promoted": _blocked_raked("raked_product"),
})


def _mixed_axes_layout(r: random.Random) -> str:
    """A basis-stride layout over 2 axes, each axis int (``k*E(i)``) or F2 (``F2(k)*E(i)``): PyCuTe's swizzled
    axis beside a plain one."""
    shape = _shape(r)
    kinds = [r.choice(["F2", "int"]) for _ in range(2)]
    strides = []
    for _ in shape:
        axis = r.randint(0, 1)
        strides.append(f"F2({r.randint(0, 15)})*E({axis})" if kinds[axis] == "F2" else f"{r.choice([0, 1, 2, 3, 4])}*E({axis})")
    if len(shape) == 1:
        return f"Layout({shape[0]}, {strides[0]})"
    return f"Layout(({', '.join(map(str, shape))},), ({', '.join(strides)},))"


def _one_mode(r: random.Random) -> str:
    """``Layout(s, d)``: one mode, any extent, a small stride."""
    return f"Layout({r.choice([2, 3, 4, 5, 6, 8])}, {r.choice([0, 1, 2, 3, 4, 5])})"


def _same_shape_pair(r: random.Random, op: str) -> str:
    """``op(A, B)`` of two layouts of one shape (1-3 modes), both int, both basis or both F2 strides."""
    shape = _shape(r)
    kind = r.choice(["int", "E", "F2"])

    def strides() -> str:
        if kind == "int":
            out = [str(r.choice([0, 1, 2, 3, 4, 6, 8, -1, -2])) for _ in shape]
        elif kind == "E":
            out = [f"{r.choice([0, 1, 2, 3])}*E({r.randint(0, 1)})" for _ in shape]
        else:
            out = [f"F2({r.randint(0, 15)})" for _ in shape]
        return "(" + ", ".join(out) + ",)"

    shape_src = "(" + ", ".join(map(str, shape)) + ",)"
    return f"{op}(Layout({shape_src}, {strides()}), Layout({shape_src}, {strides()}))"


GENERATORS.update({
    # B mostly one mode or chained (most other Bs have no answer: A's values along them are no layout's)
    "composition F2": lambda r: f"composition({_layout(r, 'F2')}, {r.choice([_one_mode(r), _chained(r), _layout(r, 'F2')])})",
    "composition mixed axes": lambda r: f"composition({_mixed_axes_layout(r)}, {r.choice([_one_mode(r), _chained(r)])})",
    "layout_add modes": lambda r: _same_shape_pair(r, "layout_add"),
    "right_inverse mixed axes": lambda r: f"right_inverse({_mixed_axes_layout(r)})",
    "left_inverse mixed axes": lambda r: f"left_inverse({_mixed_axes_layout(r)})",
    "coalesce mixed axes": lambda r: f"coalesce({_mixed_axes_layout(r)})",
})


def _tree_size(shape: Any) -> int:
    return math.prod(_tree_size(m) for m in shape) if isinstance(shape, tuple) else shape


def _coordinate_of(r: random.Random, shape: Any, overflow: bool) -> str:
    """A coordinate of ``shape``: an int for the whole (in range, or past it when ``overflow``), or a tuple
    following the shape's tree, some sub-trees given as one int."""
    if not isinstance(shape, tuple) or r.random() < 0.25:
        return str(r.randint(0, _tree_size(shape) - 1 + (2 * _tree_size(shape) if overflow else 0)))
    parts = [_coordinate_of(r, m, overflow and r.random() < 0.3) for m in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _basis_value(r: random.Random, shape: Any) -> str:
    """A basis value naming a coordinate of ``shape`` (its first level): ``E(i)``, ``k*E(i)``, ``ArithTuple``."""
    rank = len(shape) if isinstance(shape, tuple) else 1
    flat_modes = [k for k in range(rank) if not isinstance(shape, tuple) or isinstance(shape[k], int)]
    if not flat_modes:
        return "E(0)*0"
    k = r.choice(flat_modes)
    extent = shape[k] if isinstance(shape, tuple) else shape
    return r.choice([f"E({k})", f"{r.randint(0, extent - 1)}*E({k})",
                     f"ArithTuple({tuple(r.randint(0, 3) if j in flat_modes else 0 for j in range(rank))!r})"])


def _idx2crd_case(r: random.Random) -> str:
    shape = _nested(r, 2, 4)
    roll = r.random()
    if roll < 0.15 and isinstance(shape, tuple):
        return f"idx2crd({_basis_value(r, shape)}, {shape!r})"
    if roll < 0.35:
        return f"idx2crd({_coordinate_of(r, shape, r.random() < 0.3)}, {shape!r})"
    return f"idx2crd({r.randint(0, 2 * _tree_size(shape) + 3)}, {shape!r})"


def _strides_like(r: random.Random, shape: Any, kind: str) -> str:
    if isinstance(shape, tuple):
        parts = [_strides_like(r, m, kind) for m in shape]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if kind == "E":
        return f"{r.choice([0, 1, 2, 3])}*E({r.randint(0, 2)})"
    if kind == "F2":
        return f"F2({r.randint(0, 31)})"
    return str(r.choice([0, 1, 2, 3, 5, 8, -1, -4]))


def _crd2idx_case(r: random.Random) -> str:
    shape = _nested(r, 2, 4)
    if r.random() < 0.1 and isinstance(shape, tuple):
        coordinate = _basis_value(r, shape)
    else:
        coordinate = _coordinate_of(r, shape, r.random() < 0.3)
    if r.random() < 0.5:
        return f"crd2idx({coordinate}, {shape!r})"
    return f"crd2idx({coordinate}, {shape!r}, {_strides_like(r, shape, r.choice(['int', 'int', 'E', 'F2']))})"


def _in_bounds_case(r: random.Random) -> str:
    """``in_bounds(crd, shape)``: a coordinate in range or past it (an int, a tuple with sub-trees as ints,
    negative leaves now and then), or a basis value."""
    shape = _nested(r, 2, 4)
    if r.random() < 0.15 and isinstance(shape, tuple):
        return f"in_bounds({_basis_value(r, shape)}, {shape!r})"
    coordinate = _coordinate_of(r, shape, r.random() < 0.5)
    if r.random() < 0.15:
        coordinate = coordinate.replace("0", "-1", 1)
    return f"in_bounds({coordinate}, {shape!r})"


GENERATORS.update({"idx2crd": _idx2crd_case, "crd2idx": _crd2idx_case, "in_bounds": _in_bounds_case,
                   "coordinates": lambda r: f"coordinates({_nested(r, 2, 3, [1, 2, 3, 4])!r})"})


def _left_inverse_exists(src: str) -> bool:
    """z3 (``tests/oracles/reference.py``: every radix sequence, any factors): a layout L with ``L(A(i)) == i``
    (injective A) or ``A(L(x)) == x`` on every offset (the generalized inverse) exists.  Decided for an
    int- or F2-stride A (F2 values read as integers) whose values lie in ``0..40``, and for a basis-stride A
    whose values lie in ``0..12`` on each axis (at most 3 axes: one top mode of L per axis,
    ``reference.coordinate_left_inverse_exists``); larger ones and negative offsets (L is read on non-negative
    ones) are not judged (False)."""
    from tests.oracles import reference

    a = judge.promoted(_call_args(src)[0])
    if isinstance(a, judge.la.StrideLayout) and all(
            isinstance(d, judge.la.ArithTuple) or d == 0 for _, d in a.pairs()):
        return _coordinate_left_inverse_exists(a)
    if isinstance(a, judge.la.Layout):
        values = reference.values(a.shape, a.stride)
    elif isinstance(a, judge.la.StrideLayout) and all(isinstance(d, judge.la.F2) for _, d in a.pairs()):
        values = [int(a(i)) for i in range(a.size())]  # F2 values read as integers, as layoutalg's answer reads them
    else:
        return False
    if min(values) < 0 or max(values) > 40:
        return False
    if len(set(values)) == len(values):
        return reference.left_inverse_exists(values)
    return reference.generalized_left_inverse_exists(values)


def _coordinate_left_inverse_exists(a: Any) -> bool:
    """:func:`_left_inverse_exists` for a basis-stride A with non-negative int coefficients (else False)."""
    from tests.oracles import reference

    coshape = judge.la.coshape(a)
    rank = len(coshape) if isinstance(coshape, tuple) else 1
    values = []
    for v in a.values():
        terms = v.terms() if isinstance(v, judge.la.ArithTuple) else []
        if any(type(c) is not int or c < 0 or len(p) != 1 for c, p in terms):
            return False
        plain = [0] * rank
        for c, p in terms:
            plain[p[0]] += c
        values.append(tuple(plain))
    if rank > 3 or max(max(v) for v in values) > 12:
        return False
    return reference.coordinate_left_inverse_exists(values)


ANSWER_EXISTS.update({
    "left_inverse": _left_inverse_exists,
    "left_inverse promoted": _left_inverse_exists,
    "right_inverse promoted": lambda src: True,  # R = 1:0 always meets R(A(R(i))) == R(i); PyCuTe never refuses
    "nullspace promoted": _nullspace_answer_exists,
    "complement promoted": _weak_complement_exists,
    "complement": _weak_complement_exists,  # PyCuTe's precondition decides existence for the plain form too
    "composition promoted": composition_answer_exists,
    "composition F2": composition_answer_exists,
    "composition mixed axes": composition_answer_exists,
})


def main() -> None:
    n = int(sys.argv[sys.argv.index("--n") + 1]) if "--n" in sys.argv else 200
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 16
    only = sys.argv[sys.argv.index("--ops") + 1].split(",") if "--ops" in sys.argv else None  # (a different stream)
    r = random.Random(seed)
    totals: dict[str, collections.Counter[str]] = {}
    bad = []
    for op, gen in GENERATORS.items():
        if only is not None and op not in only:
            continue
        counts: collections.Counter[str] = collections.Counter()
        for _ in range(n):
            src = gen(r)
            status, note = judge.classify({"file": "fresh", "line": 0, "kind": "call", "src": src})
            kind = {"match": "checked", "refused": "refused"}.get(status, "wrong")
            if status == "match" and note == "unchecked":
                kind = "unchecked"
            if status == "refused" and op == "composition" and composition_answer_exists(src):
                kind, note = "wrong", f"refused, yet brute force finds a layout of B's shape: {note}"
            elif status == "refused" and op != "composition" and op in ANSWER_EXISTS and ANSWER_EXISTS[op](src):
                kind, note = "wrong", f"refused, yet an answer exists: {note}"
            counts[kind] += 1
            if kind == "wrong":
                bad.append(f"{src}: {note}")
        totals[op] = counts
        print(f"{op:15s} " + " ".join(f"{k}={counts[k]}" for k in ("checked", "unchecked", "refused", "wrong")))
    for line in bad[:20]:
        print("WRONG", line)


if __name__ == "__main__":
    main()

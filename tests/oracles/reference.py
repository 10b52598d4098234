"""Independent plain-Python references for judging layout results by their function.

Nothing here imports layoutalg: these are the definitions written out again,
so a test can check layoutalg and the oracles against the same yardstick.
A layout is given as ``(shape, stride)`` nested tuples/ints.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator


def flat(t: Any) -> list[int]:
    if isinstance(t, tuple):
        return [x for e in t for x in flat(e)]
    return [t]


def size(shape: Any) -> int:
    n = 1
    for s in flat(shape):
        n *= s
    return n


def prefix_products(shape: Any, init: int = 1) -> tuple[Any, int]:
    """Exclusive running products over the leaves, left to right, from ``init`` (CuTe's compact column-major
    strides when ``init`` is 1), and the product after the last leaf."""
    if isinstance(shape, int):
        return init, init * shape
    out = []
    for mode in shape:
        value, init = prefix_products(mode, init)
        out.append(value)
    return tuple(out), init


def top_sizes(shape: Any) -> tuple[int, ...]:
    """Sizes of the top-level modes (an int shape is one mode)."""
    if isinstance(shape, tuple):
        return tuple(size(m) for m in shape)
    return (shape,)


def evaluate(shape: Any, stride: Any, i: int) -> int:
    """``L(i)`` by colexicographic digits; the last leaf is not wrapped (CuTe's extension past size)."""
    shapes, strides = flat(shape), flat(stride)
    total = 0
    for k, (s, d) in enumerate(zip(shapes, strides)):
        if k == len(shapes) - 1:
            total += i * d
        else:
            total += (i % s) * d
            i //= s
    return total


def values(shape: Any, stride: Any) -> list[int]:
    """Every ``L(i)`` for ``i < size``, colexicographic (the first leaf varies fastest)."""
    out = [0]
    for s, d in zip(flat(shape), flat(stride)):
        out = [v + k * d for k in range(s) for v in out]
    return out


def ordered_factorizations(n: int) -> Iterator[tuple[int, ...]]:
    """Every ordered factorization of n into factors > 1 (n = 1: the empty one)."""
    if n == 1:
        yield ()
        return
    for f in range(2, n + 1):
        if n % f == 0:
            for rest in ordered_factorizations(n // f):
                yield (f,) + rest


def representable_1d(vals: list[int]) -> bool:
    """Exhaustive search: is there a flat layout whose values on [0, len) are ``vals``?

    Tries every ordered factorization ``(t1, t2, ...)`` of the size, where the
    strides are forced (stride k is the value at the index whose only nonzero
    digit is 1 in mode k); a branch is cut as soon as its modes disagree with
    ``vals`` on the indices they cover.
    """
    n = len(vals)
    if not vals or vals[0] != 0:
        return False

    def search(covered: int) -> bool:
        if covered == n:
            return True
        stride = vals[covered]
        for t in range(2, n // covered + 1):
            if (n // covered) % t:
                continue
            if all(vals[j + covered * k] == vals[j] + k * stride for k in range(1, t) for j in range(covered)):
                if search(covered * t):
                    return True
        return False

    return search(1)


def composition_exists(vals: list[int], sizes: tuple[int, ...]) -> bool:
    """Is there a layout with top-level mode sizes ``sizes`` whose values (colex) are ``vals``?"""
    import itertools

    per_mode = []
    stride = 1
    for n in sizes:
        per_mode.append([vals[j * stride] for j in range(n)])
        stride *= n
    for crd in itertools.product(*[range(n) for n in sizes]):
        idx, run = 0, 1
        for c, n in zip(crd, sizes):
            idx += c * run
            run *= n
        if vals[idx] != sum(per_mode[k][c] for k, c in enumerate(crd)):
            return False
    return all(representable_1d(m) for m in per_mode)


def left_inverse_exists(offsets: list[int]) -> bool:
    """Is there a layout L with ``L(offsets[i]) == i`` for every i?  Decided by z3, radices by brute force
    (:func:`_some_layout_sends`): none where an offset repeats."""
    if len(set(offsets)) != len(offsets):
        return False
    return _some_layout_sends({x: [i] for i, x in enumerate(offsets)})


def generalized_left_inverse_exists(values: list[int], allowed: Callable[[int], bool] | None = None) -> bool:
    """Is there a layout L with ``A(L(x)) == x`` for every offset ``x`` of the layout whose values (index
    order) are ``values`` -- ``L(x)`` an index ``i < len(values)`` with ``values[i] == x`` (and, given
    ``allowed``, ``allowed(i)``)?  (:func:`_some_layout_sends` each offset into its preimages.)"""
    preimages: dict[int, list[int]] = {}
    for i, v in enumerate(values):
        preimages.setdefault(v, [])
        if allowed is None or allowed(i):
            preimages[v].append(i)
    if not all(preimages.values()):
        return False
    return _some_layout_sends(preimages)


def coordinate_left_inverse_exists(values: list[tuple[int, ...]]) -> bool:
    """Is there a layout ``L`` over a coordinate codomain -- one top mode per axis, so
    ``L(c) = L_0(c_0) + L_1(c_1) + ...`` -- with ``A(L(c)) == c`` for every value ``c`` of the basis-stride
    layout whose values (index order, non-negative coordinate tuples of one length) are ``values``?

    Tries every radix sequence of every axis (any factors > 1, product at most the axis's largest value,
    closed by an unbounded mode: :func:`_some_layout_sends`'s argument, axis by axis); for each combination z3
    decides whether integer strides exist.  The combinations multiply, so keep each axis's values small."""
    import itertools

    import z3

    preimages: dict[tuple[int, ...], list[int]] = {}
    for i, v in enumerate(values):
        preimages.setdefault(v, []).append(i)
    rank = len(values[0])
    tops = [max(v[k] for v in values) for k in range(rank)]
    choices = [[r for product in range(1, top + 1) for r in ordered_factorizations(product)] or [()]
               for top in tops]
    for radices in itertools.product(*choices):
        solver = z3.Solver()
        strides = [[z3.Int(f"d{k}_{m}") for m in range(len(r) + 1)] for k, r in enumerate(radices)]
        for c, allowed in preimages.items():
            terms = []
            for k, r in enumerate(radices):
                rest = c[k]
                for m, t in enumerate(r):
                    rest, digit = divmod(rest, t)
                    terms.append(digit * strides[k][m])
                terms.append(rest * strides[k][len(r)])
            total = z3.Sum(terms + [z3.IntVal(0)])
            solver.add(z3.Or([total == t for t in allowed]))
        if solver.check() == z3.sat:
            return True
    return False


def listing_exists(values: set[int], xor: bool) -> bool:
    """Brute force: is there a flat layout ``(f1..fk):(d1..dk)``, ``f1*...*fk == len(values)``, whose values (sums
    ``c*d``, or XORs of carry-less products ``c (x) d`` with ``xor``) are exactly ``values``, each once?  Its
    strides are its values at unit coordinates, so every ordered factorization and every choice of distinct
    strides from the non-zero values is tried (exponential: small sets only)."""
    import itertools

    def clmul(a: int, b: int) -> int:
        out = 0
        while a:
            if a & 1:
                out ^= b
            a, b = a >> 1, b << 1
        return out

    nonzero = sorted(values - {0})
    for factors in ordered_factorizations(len(values)):
        for strides in itertools.permutations(nonzero, len(factors)):
            listed = {0}
            for f, d in zip(factors, strides):
                listed = {(v ^ clmul(c, d)) if xor else v + c * d for c in range(f) for v in listed}
            if len(listed) == len(values) and listed == values:
                return True
    return 0 in values and len(values) == 1


def _some_layout_sends(targets: dict[int, list[int]]) -> bool:
    """Is there a layout L with ``L(x)`` in ``targets[x]`` for every ``x``?  Decided by z3, radices by brute
    force.

    Tries every radix sequence ``(t1, ..., tk)`` (any factors > 1, not only
    primes) with ``t1*...*tk <= max(x)``, closed by an unbounded last
    mode; any layout's function on ``[0, max]`` is one of these (a mode that
    starts past the largest offset reads 0 there).  For each, z3 decides
    whether integer strides exist (linear integer arithmetic with one disjunction per ``x``, exact).
    """
    import z3

    top = max(targets)
    for product in range(1, top + 1):
        for radices in ordered_factorizations(product):
            strides = [z3.Int(f"d{k}") for k in range(len(radices) + 1)]
            solver = z3.Solver()
            for x, allowed in targets.items():
                digits = []
                rest = x
                for t in radices:
                    rest, digit = divmod(rest, t)
                    digits.append(digit)
                digits.append(rest)
                value = z3.Sum([c * d for c, d in zip(digits, strides)] + [z3.IntVal(0)])
                solver.add(z3.Or([value == t for t in allowed]))
            if solver.check() == z3.sat:
                return True
    return False

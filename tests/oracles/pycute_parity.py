"""Judge layoutalg on every recorded PyCuTe test input (``tests/data/pycute_cases.json``).

Each case is evaluated with :mod:`tests.oracles.pycute_names` and classified:

* ``match``: PyCuTe's stated answer holds (layouts compared as functions on their whole
  domain; ``exact`` when the shape and strides are PyCuTe's too), and an operation's
  result meets its definition by brute force;
* ``wrong``: an answer that contradicts PyCuTe's stated one or the definition, or a crash;
* ``missing``: an operation, argument kind or stride kind layoutalg does not offer;
* ``refused``: a LayoutError where PyCuTe answers;
* ``pycute_wrong``: layoutalg differs from PyCuTe where PyCuTe is wrong or refuses an input
  that has an answer; each such case is listed in :data:`KNOWN` with the reason, and the
  brute-force check of layoutalg's answer must still pass.

``python -m tests.oracles.pycute_parity`` prints the counts and every non-match.
"""

from __future__ import annotations

import ast
import collections
import json
import os
from typing import Any, Callable

import layoutalg as la
from layoutalg.core import int_tuple as it
from tests.oracles import reference as ref
from tests.oracles.pycute_names import MissingFeatureError, evaluate

CASES = os.path.join(os.path.dirname(__file__), "..", "data", "pycute_cases.json")

_NOT_INJECTIVE = ("PyCuTe refuses a non-injective layout; layoutalg returns the generalized left inverse "
                  "(A(L(A(i))) == A(i) for every i, checked by brute force), sending each offset to its smallest preimage")
_NO_CHAIN = ("PyCuTe refuses strides that do not chain, 'a deliberate simplification even though a layout left "
             "inverse exists' (its own comment); layoutalg's complete search finds it (checked by brute force)")
_PAD_RANK = ("CuTe C++ pads block and tiler to the larger rank (append<R>) and answers; PyCuTe requires equal ranks. "
             "layoutalg follows C++ (size and rank checked)")

_F2_GAP = ("PyCuTe refuses F2 strides whose chain gap is not 1 ('rather than return a layout whose shape holds an "
           "F2'); layoutalg's left inverse is GF(2) linear algebra, an F2-stride layout with an int shape, checked by "
           "brute force (A(L(A(i))) == A(i))")

#: Cases where layoutalg's outcome differs from PyCuTe's on purpose: "file:line text" -> reason.  The brute-force
#: check of layoutalg's answer still runs on each.
KNOWN: dict[str, str] = {
    "test/test_blocked_raked.py:59 blocked_product(Layout(4, 1), Layout((2, 3), 1))": _PAD_RANK,
    "test/test_blocked_raked.py:102 raked_product(Layout(4, 1), Layout((2, 3), 1))": _PAD_RANK,
    "test/test_composition.py:100 composition(Layout((5, 3), (7, 1)), Layout(2, 3))": (
        "PyCuTe refuses (CuTe's stride-divisibility condition fails: 3 does not divide A's first extent 5), but "
        "2:21 is A o B: A(B(0)) = 0, A(B(1)) = A(3) = 21 (checked by brute force)"),
    "test/test_inverse_left.py:82 left_inverse(Layout((63, 2), (1, 1)))": _NOT_INJECTIVE,
    "test/test_inverse_left.py:84 left_inverse(Layout((2, 2), (1, 1)))": _NOT_INJECTIVE,
    "test/test_inverse_left.py:86 left_inverse(Layout((2, 3), (2, 1)))": _NOT_INJECTIVE,
    "test/test_inverse_left.py:91 left_inverse(Layout((2, 2), (2, 3)))": _NO_CHAIN,
    "test/test_inverse_left.py:93 left_inverse(Layout((2, 2), (2, 5)))": _NO_CHAIN,
    "test/test_inverse_left.py:42 left_inverse(Layout(8, F2(2)))": _F2_GAP,
    "test/test_inverse_left.py:42 left_inverse(Layout((8, 8), (F2(1), F2(9))))": _F2_GAP,
    "test/test_inverse_left.py:42 left_inverse(Layout((4, 4), (F2(1), F2(5))))": _F2_GAP,
    "test/test_inverse_right.py:121 size(right_inverse(Layout((8, 8), (F2(1), F2(13))))) == 8": (
        "PyCuTe's chain walk stops after mode 0, but (8,8):(F2(1),F2(13)) is a bijection of [0, 64) (its GF(2) "
        "matrix has full rank), so the largest right inverse has size 64; layoutalg's is checked (L(R(v)) == v "
        "for every v < 64) by brute force"),
    "test/test_make_layout.py:359 make_ordered_layout((4, (8, 2)), (0, 1))": (
        "CuTe C++'s compact_order takes an order weakly congruent to the shape (product_like): the sub-mode (8,2) "
        "is ordered as one mode, compact inside, giving (4,(8,2)):(1,(4,32)); PyCuTe requires full congruence "
        "(compactness and the order checked)"),
}


def load_cases() -> list[dict[str, Any]]:
    with open(CASES, encoding="utf-8") as f:
        return json.load(f)["cases"]  # type: ignore[no-any-return]


def case_key(case: dict[str, Any]) -> str:
    text = case.get("src") or f"{case['lhs']} {case['op']} {case['rhs']}"
    return f"{case['file']}:{case['line']} {text}"


# ---------------------------------------------------------------------------
# layouts as functions
# ---------------------------------------------------------------------------
def is_layout(x: Any) -> bool:
    return isinstance(x, (la.Layout, la.StrideLayout))


# ---------------------------------------------------------------------------
# symbolic (sympy) values: judged structurally, else on substituted values
# ---------------------------------------------------------------------------
#: Values substituted for the symbols (PyCuTe declares them positive integers): small, large, odd and even.
SUBSTITUTIONS = ((2, 3, 5, 7, 4, 6), (3, 2, 8, 5, 9, 4), (8, 12, 3, 16, 2, 5), (5, 7, 2, 3, 11, 13), (16, 4, 6, 2, 3, 8))


def is_symbolic(x: Any) -> bool:
    if isinstance(x, (tuple, list)):
        return any(is_symbolic(e) for e in x)
    return isinstance(x, la.SymbolicLayout) or type(x).__module__.startswith("sympy")


def free_symbols(x: Any) -> set[Any]:
    if isinstance(x, (tuple, list)):
        return set().union(*(free_symbols(e) for e in x)) if x else set()
    if isinstance(x, la.SymbolicLayout):
        return x.free_symbols()
    return set(getattr(x, "free_symbols", set()))


def environments(*xs: Any) -> list[dict[Any, int]]:
    """A few assignments of positive integers to the symbols of ``xs`` (fixed, so the judge is deterministic)."""
    names = sorted(set().union(*(free_symbols(x) for x in xs)), key=str)
    return [{n: values[k % len(values)] for k, n in enumerate(names)} for values in SUBSTITUTIONS]


def substitute(x: Any, env: dict[Any, int]) -> Any:
    if isinstance(x, tuple):
        return tuple(substitute(e, env) for e in x)
    if isinstance(x, la.SymbolicLayout):
        return x.subs(env)
    if type(x).__module__.startswith("sympy"):
        v = x.subs(env)
        return int(v) if v.is_number and v == int(v) else v
    return x


def values(layout: Any, extra: int = 0) -> list[Any]:
    """``L(i)`` for ``i < size + extra`` by the independent reference evaluator (stride layouts: by their own
    evaluation, whose scalar arithmetic is checked in test_stride_scalars)."""
    n = ref.size(layout.shape)
    if isinstance(layout, la.StrideLayout):
        return [layout(i) for i in range(n + extra)]
    out = ref.values(layout.shape, layout.stride)
    return out + [ref.evaluate(layout.shape, layout.stride, i) for i in range(n, n + extra)]


def same(a: Any, b: Any, extended: bool = False) -> str | None:
    """'exact', 'function' (same values on the domain, other form) or None.

    Symbolic values: 'exact' when structurally equal (sympy), else 'function' when equal under every
    substitution of :data:`SUBSTITUTIONS` for the symbols."""
    if is_symbolic(a) or is_symbolic(b):
        try:
            if isinstance(a, la.SymbolicLayout) and a == b or not isinstance(a, (tuple, list, la.SymbolicLayout)) \
                    and not isinstance(b, (tuple, list, la.SymbolicLayout)) and bool(a == b):
                return "exact"
        except TypeError:
            pass
        if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
            parts = [same(x, y, extended) for x, y in zip(a, b)]
            if all(p is not None for p in parts):
                return "exact" if all(p == "exact" for p in parts) else "function"
        verdicts = [same(substitute(a, env), substitute(b, env), extended) for env in environments(a, b)]
        return "function" if all(v is not None for v in verdicts) and not any(is_symbolic(
            substitute(a, env)) for env in environments(a, b)) else None
    if is_layout(a) and is_layout(b):
        if type(a) is type(b) and a == b:
            return "exact"
        if ref.size(a.shape) != ref.size(b.shape):
            return None
        extra = 16 if extended else 0
        va, vb = values(a, extra), values(b, extra)
        return "function" if all(_same_value(x, y) for x, y in zip(va, vb)) else None
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b):
            return None
        parts = [same(x, y, extended) for x, y in zip(a, b)]
        if any(p is None for p in parts):
            return None
        return "exact" if all(p == "exact" for p in parts) else "function"
    if is_layout(a) or is_layout(b):
        return None
    try:
        return "exact" if a == b else None
    except Exception:
        return None


def _same_value(x: Any, y: Any) -> bool:
    """Equal offsets/coordinates; an F2 value equals only an F2 of the same bits (or 0 = 0)."""
    if isinstance(x, la.F2) or isinstance(y, la.F2):
        return isinstance(x, la.F2) and isinstance(y, la.F2) and int(x) == int(y) or (x == 0 and y == 0)
    return bool(x == y)


def compare(lhs: Any, op: str, rhs: Any, extended: bool) -> str | None:
    if op == "==":
        return same(lhs, rhs, extended)
    if op == "!=":
        return "exact" if not (is_layout(lhs) and is_layout(rhs) and lhs == rhs) and lhs != rhs else None
    table: dict[str, Callable[[Any, Any], bool]] = {
        "<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
        "in": lambda x, y: x in y, "not in": lambda x, y: x not in y,
    }
    return "exact" if table[op](lhs, rhs) else None


# ---------------------------------------------------------------------------
# brute-force definitions of the operations (call cases)
# ---------------------------------------------------------------------------
def ev(layout: Any, x: Any) -> Any:
    """``layout(x)`` for an index (reference evaluator for int strides) or a coordinate (a basis value)."""
    if isinstance(x, la.ArithTuple):
        from layoutalg.core.stride_layout_ops import _as_coordinate

        return layout(_as_coordinate(x, layout.shape))
    if isinstance(layout, la.StrideLayout):
        return layout(x)
    return ref.evaluate(layout.shape, layout.stride, int(x))


def _all_same(xs: list[Any], ys: list[Any]) -> bool:
    return len(xs) == len(ys) and all(_same_value(x, y) for x, y in zip(xs, ys))


def coarsens(a: Any, b: Any) -> bool:
    """PyCuTe's ``compatible(a, b)``: ``a`` is ``b`` with sub-trees replaced by their sizes (same size)."""
    if not isinstance(a, tuple):
        return a == ref.size(b)
    return isinstance(b, tuple) and len(a) == len(b) and all(coarsens(x, y) for x, y in zip(a, b))


def spec_composition(args: list[Any], r: Any) -> str | None:
    a, b = args
    if not (is_layout(a) and is_layout(b)):
        return None
    if not coarsens(b.shape, r.shape):
        return f"shape {r.shape} is not compatible with B's {b.shape}"
    for i, (x, got) in enumerate(zip(values(b), values(r))):
        want = ev(a, x)
        if not _same_value(got, want):
            return f"R({i}) != A(B({i})) = {want}"
    return ""


def spec_coalesce(args: list[Any], r: Any) -> str | None:
    a = args[0]
    if len(args) > 1 or not is_layout(a):
        return None
    if ref.size(r.shape) != ref.size(a.shape) or not _all_same(values(r), values(a)):
        return "not the same function"
    return "" if it.depth(r.shape) <= 1 else "depth > 1"


def spec_coalesce_z(args: list[Any], r: Any) -> str | None:
    a = args[0]
    if len(args) > 1 or not is_layout(a):
        return None
    n = ref.size(a.shape) + 10
    if not _all_same([ev(r, i) for i in range(n)], [ev(a, i) for i in range(n)]):
        return "not the same function on the extended domain"
    return "" if it.depth(r.shape) <= 1 and ref.size(r.shape) == ref.size(a.shape) else "depth > 1 or other size"


def spec_weak_complement(args: list[Any], r: Any) -> str | None:
    a = args[0]
    if len(args) > 1 or not is_layout(a):
        return None
    image = values(a)
    vals = [ev(r, i) for i in range(ref.size(r.shape) + 10)]
    if any(not x < y for x, y in zip(vals, vals[1:])):
        return "not ordered on the extended domain"
    if any(any(_same_value(v, w) for w in image) for v in vals[1:]):
        return "hits an offset of A"
    return ""


def spec_right_inverse(args: list[Any], r: Any) -> str | None:
    """PyCuTe's generalized right inverse: ``R(A(R(i))) == R(i)``, and ``A(R(i)) == i`` for an int codomain."""
    a = args[0]
    for i in range(ref.size(r.shape)):
        try:
            j = ev(r, i)
        except la.ShapeError as err:  # R mixes an F2 axis with an int one (PyCuTe documents the same)
            if "F2 adds only F2" in str(err):
                continue
            raise
        v = ev(a, j)
        if isinstance(v, la.ArithTuple) or isinstance(v, la.F2):
            try:
                back = ev(r, v)
            except la.ShapeError as err:  # an F2 axis beside an int axis: PyCuTe raises here too
                if "F2 adds only F2" in str(err):
                    continue
                raise
            if back != j:
                return f"R(A(R({i}))) != R({i})"
        elif v != i:
            return f"A(R({i})) != {i}"
    return ""


def spec_left_inverse(args: list[Any], r: Any) -> str | None:
    a = args[0]
    for i, v in enumerate(values(a)):
        if not _same_value(ev(a, ev(r, v)), v):
            return f"A(R(A({i}))) != A({i})"
    return ""


def spec_nullspace(args: list[Any], r: Any) -> str | None:
    a = args[0]
    zeros = [i for i, v in enumerate(values(a)) if v == 0]
    got = values(r)
    if sorted(got) != zeros:
        return f"indices {sorted(got)[:8]} are not A's zero set {zeros[:8]}"
    return ""


def spec_layout_add(args: list[Any], r: Any) -> str | None:
    a, b = args
    if not (is_layout(a) and is_layout(b)):
        return None
    if ref.size(r.shape) != ref.size(a.shape):
        return "size differs"
    if not _all_same(values(r), [x + y for x, y in zip(values(a), values(b))]):
        return "R(i) != A(i) + B(i)"
    return ""


def spec_block_product(args: list[Any], r: Any) -> str | None:
    a, b = args
    if not (is_layout(a) and is_layout(b)):
        return None
    if ref.size(r.shape) != ref.size(a.shape) * ref.size(b.shape):
        return "size is not size(A) * size(B)"
    rank = max(len(ref.top_sizes(a.shape)), len(ref.top_sizes(b.shape)))
    return "" if len(ref.top_sizes(r.shape)) == rank else f"rank is not {rank}"


def spec_ordered_layout(args: list[Any], r: Any) -> str | None:
    shape, order = args
    if r.shape != shape:
        return f"shape {r.shape} is not {shape}"
    vals = values(r)
    if sorted(vals) != list(range(len(vals))):
        return "not compact"
    strides = ref.flat(r.stride)
    keys = [(o, k) for k, o in enumerate(ref.flat(order))] if ref.flat(order) and len(ref.flat(order)) == len(strides) else None
    if keys is not None:
        ranked = [strides[k] for _, k in sorted(keys)]
        if ranked != sorted(ranked):
            return "strides do not grow with the order"
    return ""


SPECS: dict[str, Callable[[list[Any], Any], str | None]] = {
    "blocked_product": spec_block_product, "raked_product": spec_block_product,
    "make_ordered_layout": spec_ordered_layout,
    "composition": spec_composition, "coalesce": spec_coalesce, "coalesce_z": spec_coalesce_z,
    "complement": spec_weak_complement, "right_inverse": spec_right_inverse, "left_inverse": spec_left_inverse,
    "nullspace": spec_nullspace, "layout_add": spec_layout_add,
}


def spec_check(case: dict[str, Any], result: Any) -> str | None:
    """'' when the result meets the operation's definition, the reason when not, None when not checkable."""
    node = ast.parse(case["src"], mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.keywords:
        return None
    spec = SPECS.get(node.func.id)
    if spec is None or not (is_layout(result) or isinstance(result, la.SymbolicLayout)):
        return None
    try:
        args = [evaluate(ast.unparse(a)) for a in node.args]
    except (MissingFeatureError, la.LayoutError):
        return None
    if is_symbolic(args) or is_symbolic(result):  # the definition on every substitution of the symbols
        envs = environments(args, result)
        if node.func.id == "make_ordered_layout":  # symbolic orders rank above the static ones, left to right
            leaves = ref.flat(args[1])
            top = max([v for v in leaves if isinstance(v, int)], default=0)
            envs = [{v: top + 1 + k for k, v in enumerate(x for x in leaves if not isinstance(x, int))}]
        for env in envs:
            concrete_args, concrete = substitute(tuple(args), env), substitute(result, env)
            if is_symbolic(concrete_args) or is_symbolic(concrete):
                return "a symbol is left after substitution"
            why = spec(list(concrete_args), concrete)
            if why:
                return f"with {env}: {why}"
        return ""
    return spec(args, result)


# ---------------------------------------------------------------------------
# classification
# ---------------------------------------------------------------------------
EXTENDED = ("complement(", "coalesce_z(", "_complement(")


def classify(case: dict[str, Any]) -> tuple[str, str]:
    raises = case.get("raises")
    known = KNOWN.get(case_key(case))
    try:
        if case["kind"] == "compare":
            lhs, rhs = evaluate(case["lhs"]), evaluate(case["rhs"])
            ext = any(case["lhs"].startswith(p) or case["rhs"].startswith(p) for p in EXTENDED)
            verdict = compare(lhs, case["op"], rhs, ext)
            if verdict:
                return "match", verdict
            return ("pycute_wrong", known) if known else ("wrong", f"{case['lhs']} gave {lhs}, expected {case['op']} {rhs}")
        result = evaluate(case["src"])
    except MissingFeatureError as err:
        return "missing", str(err)
    except la.LayoutError as err:
        if raises or case.get("expect", True) is None:
            return "match", "both refuse"
        return ("pycute_wrong", known) if known else ("refused", f"{type(err).__name__}: {err}")
    except Exception as err:  # a crash inside layoutalg or a missing adapter path
        if raises == type(err).__name__ == "TypeError":
            return "match", "both reject the call's form"
        return "wrong", f"crash {type(err).__name__}: {err}"
    if case["kind"] == "truth":
        expect = case["expect"]
        if expect is None:
            return ("pycute_wrong", known) if known else ("wrong", f"answered {result} where PyCuTe raises")
        if bool(result) == expect:
            return "match", "exact"
        return ("pycute_wrong", known) if known else ("wrong", f"{case['src']} is {result}")
    try:
        why = spec_check(case, result)
    except Exception as err:  # the result does not even fit its definition's evaluation
        why = f"its check fails: {type(err).__name__}: {err}"
    if why:
        return "wrong", why
    if raises:
        return ("pycute_wrong", known) if known else ("wrong", f"answered {result} where PyCuTe raises {raises}")
    return "match", "checked" if why == "" else "unchecked"


def run() -> tuple[collections.Counter[str], list[tuple[dict[str, Any], str, str]]]:
    counts: collections.Counter[str] = collections.Counter()
    rows = []
    for case in load_cases():
        status, note = classify(case)
        counts[status] += 1
        rows.append((case, status, note))
    return counts, rows


if __name__ == "__main__":
    totals, table = run()
    print(dict(totals))
    missing = collections.Counter(note for _, s, note in table if s == "missing")
    for note, n in missing.most_common():
        print(f"  missing {n:5d}  {note}")
    for case, status, note in table:
        if status in ("wrong", "refused"):
            print(f"{status}: {case_key(case)}  -- {note}")

"""Interval analysis of terms (``layoutalg.prove.interval``) against brute-force enumeration.

The bounds decide the bit-vector widths of the z3 encoding: a bound that misses a reachable value would let
a bit-vector wrap and a false claim be "proved", a bound wider than needed only costs solver time.  So every
operator is checked for soundness over small ranges of every sign, and the rules that are exact (a full
period of ``%``, the sign cases of the bitwise operators, the corner rules) are checked to give the true
range, enumerated with Python's own integer operators.
"""

from __future__ import annotations

import itertools
import operator
from typing import Callable

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import expr as ex
from layoutalg.prove.terms import BinOp, Const
from layoutalg.prove.variables import Var

PY_OPS: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
}

# closed ranges [lo, hi]: points, from zero, strictly positive, crossing zero, negative
RANGES = [(0, 0), (3, 3), (-3, -3), (0, 5), (0, 12), (1, 3), (5, 6), (9, 11), (5, 8), (-2, 1), (-1, 7),
          (-1, 0), (-1, 1), (-4, 3), (-6, -2), (-8, -5)]


def _operand(name: str, lo: int, hi: int) -> ex.Expr:
    return Const(lo) if lo == hi else Var(name, lo, hi + 1)


def _term(op: str, a: tuple[int, int], b: tuple[int, int]) -> ex.Expr:
    return BinOp(op, _operand("a", *a), _operand("b", *b))


def _true_range(op: str, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    values = [PY_OPS[op](x, y) for x in range(a[0], a[1] + 1) for y in range(b[0], b[1] + 1)]
    return min(values), max(values)


def _defined(op: str, b: tuple[int, int]) -> bool:
    if op in ("//", "%"):
        return not b[0] <= 0 <= b[1]
    if op in ("<<", ">>"):
        return b[0] == b[1] >= 0
    return True


CASES = [(op, a, b) for op in PY_OPS for a, b in itertools.product(RANGES, RANGES) if _defined(op, b)]


@pytest.mark.parametrize("op", list(PY_OPS))
def test_interval_contains_every_value_the_term_takes(op: str) -> None:
    for a, b in itertools.product(RANGES, RANGES):
        if not _defined(op, b):
            continue
        lo, hi = ex.interval(_term(op, a, b))
        true_lo, true_hi = _true_range(op, a, b)
        assert lo <= true_lo and true_hi <= hi, (op, a, b, (lo, hi), (true_lo, true_hi))


@pytest.mark.parametrize("op", ["+", "-", "*", "//", "<<", ">>"])
def test_interval_of_monotone_operators_is_the_exact_range(op: str) -> None:
    # each of these is monotone in each operand on a box whose divisor range excludes zero: the corners are exact
    for a, b in itertools.product(RANGES, RANGES):
        if _defined(op, b):
            assert ex.interval(_term(op, a, b)) == _true_range(op, a, b), (op, a, b)


@pytest.mark.parametrize("a, b", [
    ((9, 11), (8, 8)),    # one period of a constant divisor, no wrap: the exact residues 1..3
    ((-6, -2), (8, 8)),   # negative dividend, no wrap: 2..6
    ((0, 12), (5, 8)),    # a full period of every divisor: 0 .. bhi - 1
    ((0, 12), (3, 3)),    # a wrapping constant divisor: 0 .. 2
    ((0, 12), (-8, -5)),  # negative divisors: Python's residue lies in (b, 0], -7 .. 0
    ((0, 5), (-3, -3)),
])
def test_interval_of_modulo_is_the_exact_range_when_a_period_is_covered(a: tuple[int, int], b: tuple[int, int]) -> None:
    assert ex.interval(_term("%", a, b)) == _true_range("%", a, b)


def test_interval_of_modulo_by_a_divisor_range_wraps_even_when_the_first_quotient_is_constant() -> None:
    # 5 // 5 == 6 // 5, but 5 % 6 == 5 and 6 % 7 == 6: the no-wrap shortcut holds for one divisor only
    a, b = (5, 6), (5, 8)
    lo, hi = ex.interval(_term("%", a, b))
    true_lo, true_hi = _true_range("%", a, b)
    assert lo <= true_lo and true_hi <= hi == 7


@pytest.mark.parametrize("op, a, b", [
    ("&", (0, 12), (0, 5)),   # both non-negative: 0 .. min(ahi, bhi)
    ("&", (0, 5), (0, 12)),
    ("|", (0, 5), (0, 3)),    # both non-negative: 0 .. 2**k - 1 with k the wider bit length
    ("^", (0, 5), (0, 3)),
    ("&", (0, 3), (-2, 1)),   # one non-negative operand bounds an AND: 0 .. its hi (the other may be -1)
    ("&", (-2, 1), (0, 5)),
    ("^", (-1, 7), (-1, 0)),  # mixed signs: -(2**k) .. 2**k - 1 is reached (7 ^ -1 == -8, 7 | 0 == 7)
    ("^", (-1, 1), (-1, 1)),  # the narrowest signed case: -2 .. 1 (1 ^ -1 == -2)
])
def test_interval_of_bitwise_operators_is_the_exact_range_in_each_sign_case(
    op: str, a: tuple[int, int], b: tuple[int, int]
) -> None:
    assert ex.interval(_term(op, a, b)) == _true_range(op, a, b)


def test_interval_of_a_constant_operand_and_a_range_is_not_collapsed_to_a_point() -> None:
    # only two single points give the operator's exact value; one point and a range is still a range
    assert ex.interval(_term("+", (3, 3), (0, 5))) == (3, 8)
    assert ex.interval(_term("+", (0, 5), (3, 3))) == (3, 8)


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.parametrize("b", [(0, 3), (-3, 0), (-2, 1)])
def test_interval_refuses_a_divisor_range_that_contains_zero(op: str, b: tuple[int, int]) -> None:
    with pytest.raises(ProofError, match="may be zero"):
        ex.interval(_term(op, (0, 5), b))


@pytest.mark.parametrize("op", ["<<", ">>"])
@pytest.mark.parametrize("b", [(0, 2), (1, 3), (-1, -1)])
def test_interval_refuses_a_shift_by_a_range_or_a_negative_amount(op: str, b: tuple[int, int]) -> None:
    with pytest.raises(ProofError, match="shift amount"):
        ex.interval(_term(op, (0, 5), b))


def test_interval_of_a_shift_by_zero_is_the_operand_range() -> None:
    assert ex.interval(_term("<<", (-2, 5), (0, 0))) == (-2, 5)
    assert ex.interval(_term(">>", (-2, 5), (0, 0))) == (-2, 5)


def test_interval_refuses_a_predicate_or_a_python_object_as_a_term() -> None:
    x = Var("x", 0, 4)
    with pytest.raises(ProofError, match="not an integer term"):
        ex.interval(x == 1)
    with pytest.raises(ProofError, match="not an integer term"):
        ex.interval(BinOp("+", x, "1"))  # type: ignore[arg-type]


@pytest.mark.parametrize("lo, hi", [(0, 0), (0, 1), (0, 2), (0, 7), (0, 8), (3, 100), (-1, 0), (-1, 1), (-8, 7),
                                    (-9, 0), (-200, 3)])
def test_signed_width_holds_the_range_and_is_minimal_for_non_negative_ranges(lo: int, hi: int) -> None:
    # never narrower than 2 bits (a sign bit and a value bit), otherwise the narrowest two's complement that fits
    width = ex.signed_width(lo, hi)
    assert -(1 << (width - 1)) <= lo and hi <= (1 << (width - 1)) - 1
    if lo >= 0:
        minimal = next(w for w in range(2, 64) if hi <= (1 << (w - 1)) - 1)
        assert width == minimal


def test_domain_size_counts_every_assignment_of_the_variables() -> None:
    variables = [Var("x", 0, 6), Var("y", -3, 10, multiple_of=4), Var("z", 0, 70, pow2=True)]
    admitted = [[x for x in range(-10, 80) if v.admits(x)] for v in variables]  # y: 0, 4, 8; z: 1, 2, .., 64
    assert ex.domain_size(variables) == len(list(itertools.product(*admitted))) == 6 * 3 * 7
    assert ex.domain_size([]) == 1

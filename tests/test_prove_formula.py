"""``formula(layout)``: the sympy rendering evaluates to the layout's own values at every coordinate."""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.core.layout import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import formula
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


def test_row_major_reads_as_the_textbook_formula() -> None:
    f = formula(Layout((4, 8), (8, 1)), names=["row", "col"])
    row, col = f.symbols
    assert sympy.simplify(f.expr - (8 * row + col)) == 0
    assert str(f) == "f(row, col) = 8*row + col"
    assert f.latex() == "f(row, col) = 8 row + col"


def test_nested_mode_uses_floor_and_mod() -> None:
    f = formula(Layout(((2, 4), 8), ((1, 16), 2)))
    text = str(f)
    assert "floor(i/2)" in text and "Mod(i, 2)" in text and "2*j" in text
    assert r"\bmod" in f.latex() and r"\left\lfloor" in f.latex()


def test_swizzle_renders_xor_and_mask() -> None:
    f = formula(Swizzle(3, 3, 3))
    assert "XOR" in str(f) and "0x1c0" in str(f)
    assert r"\oplus" in f.latex()


@settings(max_examples=60, deadline=None, database=None)
@given(
    st.lists(st.tuples(st.integers(1, 5), st.integers(-6, 20)), min_size=1, max_size=3),
    st.booleans(),
)
def test_formula_evaluates_to_the_layout(modes: list[tuple[int, int]], index_form: bool) -> None:
    layout = Layout(tuple(s for s, _ in modes), tuple(d for _, d in modes))
    f = formula(layout, form="index" if index_form else "coord")
    if index_form:
        for i in range(layout.size()):
            assert f(i) == layout(i)
    else:
        for crd in itertools.product(*(range(s) for s, _ in modes)):
            assert f(*crd) == layout(crd)


@pytest.mark.parametrize("sw", [Swizzle(3, 3, 3), Swizzle(2, 0, -3), Swizzle(1, 4, 2)])
def test_composed_formula_evaluates_to_the_composed_layout(sw: Swizzle) -> None:
    c = ComposedLayout(sw, 16, Layout((8, 16), (16, 1)))
    f = formula(c)
    for i, j in itertools.product(range(8), range(16)):
        assert f(i, j) == c(i, j)


def test_bad_arguments() -> None:
    with pytest.raises(ProofError, match="names"):
        formula(Layout((4, 8)), names=["i"])
    with pytest.raises(ProofError, match="form"):
        formula(Layout(4), form="matrix")
    with pytest.raises(ProofError):
        formula("4:1")
    with pytest.raises(ProofError, match="takes 2 values"):
        formula(Layout((4, 8)))(1)


def test_the_package_name_stays_the_function_after_a_call() -> None:
    """Calling prove.formula imports its module lazily; the module must not shadow the function."""
    import layoutalg.prove as prove_pkg

    prove_pkg.formula(Layout((2, 2)))
    from layoutalg.prove import formula as again

    assert callable(again)
    assert str(again(Layout((2, 2)))) == str(prove_pkg.formula(Layout((2, 2))))


def test_a_composed_formula_keeps_an_offset_of_one() -> None:
    c = ComposedLayout(Swizzle(2, 0, -3), 1, Layout((4, 8), (8, 1)))
    f = formula(c)
    for i, j in itertools.product(range(4), range(8)):
        assert f(i, j) == c(i, j)


def test_a_swizzle_without_bits_renders_as_its_argument() -> None:
    f = formula(Swizzle(0, 4, 3))
    (x,) = f.symbols
    assert f.expr == x and [f(k) for k in range(64)] == [Swizzle(0, 4, 3)(k) for k in range(64)]


def test_a_formula_substituted_one_coordinate_at_a_time_reaches_the_layouts_value() -> None:
    c = ComposedLayout(Swizzle(2, 0, -3), 1, Layout((4, 8), (8, 1)))
    f = formula(c)
    i, j = f.symbols
    for a, b in itertools.product(range(4), range(8)):
        assert int(f.expr.subs(i, a).subs(j, b)) == c(a, b)


def test_xor_with_zero_is_the_other_operand() -> None:
    bit_xor = formula(Swizzle(1, 0, 1)).expr.func  # x XOR floor((x AND 2) / 2)
    x = sympy.Symbol("x", integer=True, nonnegative=True)
    assert bit_xor(x, 0) == x and bit_xor(0, x) == x
    assert bit_xor(5, 3) == 6


def test_and_with_zero_is_zero() -> None:
    expr = formula(Swizzle(1, 0, 1)).expr
    bit_and = next(a.func for a in sympy.preorder_traversal(expr) if type(a).__name__ == "BitAnd")
    x = sympy.Symbol("x", integer=True, nonnegative=True)
    assert bit_and(x, 0) == 0 and bit_and(0, x) == 0 and bit_and(6, 3) == 2


def test_sums_inside_bit_operations_are_parenthesized_in_text_and_sized_in_latex() -> None:
    f = formula(ComposedLayout(Swizzle(1, 0, 1), 16, Layout(4, 1)))
    text = str(f).split(" = ", 1)[1]
    assert text.startswith("((16 + i) XOR") and "((16 + i) AND 0x2)" in text
    body = f.latex().split(" = ", 1)[1]
    # every grouping parenthesis in the LaTeX is sized (\left( ... \right)), and the sum is grouped
    assert body.count("(") == body.count(r"\left(") and body.count(")") == body.count(r"\right)")
    assert r"\left(16 + i\right) \oplus" in body and r"\left(\left(16 + i\right) \mathbin{\&} \mathtt{0x2}\right)" in body

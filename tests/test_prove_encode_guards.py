"""The z3 encoders refuse what they cannot represent (found by mutation testing).

An encoder sees only *lowered* terms (layouts, swizzles and composed layouts expanded into primitive
operators by ``lowering.lower``); a layout application handed to it directly must be a ProofError that
says to lower it, never a half-built z3 expression or an internal NameError.  A divisor whose range
holds zero is refused by either encoding, and the domain constraint of a ``pow2`` parameter admits 1.
"""

from __future__ import annotations

import pytest

from layoutalg import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import encode, forall, param, sym, var
from layoutalg.prove.config import settings
from layoutalg.prove.terms import BoolOp


@pytest.mark.parametrize("encoder", ["bit-vector", "integer"])
def test_an_unlowered_layout_application_is_refused_by_both_encoders(encoder):
    x = var("x", 16)
    claim = sym(Layout((4, 4), (4, 1)))(x) == x
    enc = encode.encoder_for([claim], [x]) if encoder == "bit-vector" else encode.IntEncoder({})
    with pytest.raises(ProofError, match="lower"):
        enc.pred(claim)


@pytest.mark.parametrize("encoding", ["bv", "int"])
def test_a_divisor_whose_range_holds_zero_is_refused_by_either_encoding(encoding):
    with settings(z3_encoding=encoding), pytest.raises(ProofError, match="divisor .* may be zero"):
        forall(lambda x, y: x // y >= 0, {"x": 16, "y": 16}, method="z3")


@pytest.mark.parametrize("encoding", ["bv", "int"])
def test_a_power_of_two_parameter_may_be_one_in_either_encoding(encoding):
    # false only at p == 1 (2**0): the encoding must not exclude 1 from the powers of two
    p, x = param("p", 1 << 10, pow2=True), var("x", 16)
    with settings(z3_encoding=encoding):
        result = forall(p + x != 1 + x, method="z3")
    assert result.status == "refuted"
    assert result.counterexample is not None and result.counterexample["p"] == 1


@pytest.mark.parametrize("encoder", ["bit-vector", "integer"])
@pytest.mark.parametrize("shift", ["<<", ">>"])
def test_an_encoder_built_directly_refuses_shifts_it_cannot_represent(encoder, shift):
    # negative constant amounts and variable amounts: a variable must never be encoded by its low bits
    x, y = var("x", 16), var("y", 4)
    enc = encode.Encoder(16, {}) if encoder == "bit-vector" else encode.IntEncoder({})
    negative = x << -1 if shift == "<<" else x >> -1
    by_variable = x << y if shift == "<<" else x >> y
    with pytest.raises(ProofError, match="non-negative constant"):
        enc.term(negative)
    with pytest.raises(ProofError, match="constant"):
        enc.term(by_variable)


@pytest.mark.parametrize("make", [lambda x, y: x ^ y, lambda x, y: x | y, lambda x, y: x & y])
def test_the_integer_encoder_refuses_bit_operations_without_an_exact_integer_form(make):
    x, y = var("x", 16), var("y", 16)
    with pytest.raises(ProofError, match="no exact integer encoding"):
        encode.IntEncoder({}).term(make(x, y))


@pytest.mark.parametrize("encoding", ["bv", "int"])
@pytest.mark.parametrize("power", [2, 4, 512])
def test_every_power_of_two_below_a_parameters_bound_is_admitted(encoding, power):
    # p < 1000: 512 is the largest power of two admitted; each claim is false only at p == power
    p, x = param("p", 1000, pow2=True), var("x", 16)
    with settings(z3_encoding=encoding):
        result = forall(p + x != power + x, method="z3")
    assert result.status == "refuted"
    assert result.counterexample is not None and result.counterexample["p"] == power


@pytest.mark.parametrize("mask", [0, 1, 3, 255])
def test_the_integer_encoding_proves_claims_about_a_low_mask_and(mask):
    x = var("x", 1 << 12)
    with settings(z3_encoding="int"):
        assert forall((x & mask) == x % (mask + 1), method="z3").status == "proved"


@pytest.mark.parametrize("encoder", ["bit-vector", "integer"])
@pytest.mark.parametrize("make", [lambda x, y: x // y, lambda x, y: x % y])
def test_an_encoder_built_directly_refuses_a_divisor_whose_range_holds_zero(encoder, make):
    x, y = var("x", 16), var("y", 16)
    enc = encode.Encoder(16, {}) if encoder == "bit-vector" else encode.IntEncoder({})
    with pytest.raises(ProofError, match="may be zero"):
        enc.term(make(x, y))


def test_z3_keeps_two_variables_of_the_same_name_apart_in_an_injectivity_claim():
    from layoutalg.prove import injective

    assert injective(lambda x: x % 4, {"x": 16}, method="z3").status == "refuted"
    assert injective(lambda x: (x ^ 5) % 4, {"x": 16}, method="z3").status == "refuted"
    assert injective(lambda x: x ^ 5, {"x": 16}, method="z3").status == "proved"


def test_the_bit_vector_encoding_keeps_a_variable_to_its_multiples_of_two():
    from layoutalg.prove import forall, var

    x = var("x", hi=64, multiple_of=2)
    assert forall((x ^ 1) == x + 1, method="z3").status == "proved"
    odd = var("y", lo=1, hi=64, multiple_of=1)
    assert forall((odd ^ 1) == odd + 1, method="z3").status == "refuted"


def test_two_generated_variables_with_the_same_label_are_different_unknowns_to_z3():
    from layoutalg.prove import forall
    from layoutalg.prove.variables import Var

    first, second = Var.fresh("t", 0, 16), Var.fresh("t", 0, 16)
    assert forall(first == second, method="z3").status == "refuted"
    assert forall((first ^ 1) == (second ^ 1), method="z3").status == "refuted"


def test_an_arithmetic_shift_right_past_the_width_leaves_the_sign_of_a_negative_value():
    from layoutalg.prove import forall, var

    x = var("x", lo=-8, hi=8)
    assert forall(((x ^ 1) >> 100) == ((x ^ 1) >> 3), method="z3").status == "proved"
    assert forall(((x ^ 1) >> 100) == 0, method="z3").status == "refuted"


@pytest.mark.parametrize("encoder", ["bit-vector", "integer"])
@pytest.mark.parametrize("lo, hi", [(0, 16), (-4, 1), (-4, 4)])
def test_a_divisor_range_that_starts_ends_or_passes_through_zero_is_refused(encoder, lo, hi):
    x, y = var("x", 16), var("y", lo=lo, hi=hi)
    enc = encode.Encoder(16, {}) if encoder == "bit-vector" else encode.IntEncoder({})
    with pytest.raises(ProofError, match="may be zero"):
        enc.term(x // y)


def test_the_integer_encoding_keeps_a_variable_to_its_multiples_of_two():
    x = var("x", hi=64, multiple_of=2)
    with settings(z3_encoding="int"):
        assert forall(x % 2 == 0, method="z3").status == "proved"
        assert forall(x % 4 == 0, method="z3").status == "refuted"


def test_operators_without_an_exact_integer_meaning_are_reported_as_such():
    x, y = var("x", 16), var("y", 16)
    assert encode.int_expressible([x | y]) is False
    assert encode.int_expressible([x ^ y]) is False
    assert encode.int_expressible([x << y]) is False
    assert encode.int_expressible([x >> -1]) is False
    assert encode.int_expressible([x & y]) is False
    assert encode.int_expressible([x & 7, x << 2, x % 3]) is True


@pytest.mark.parametrize("encoding", ["int", "bv"])
def test_z3_reads_each_comparison_at_its_boundary(encoding):
    x = var("x", 16)
    with settings(z3_encoding=encoding):
        assert forall(x <= 15, method="z3").status == "proved"
        assert forall(x < 15, method="z3").status == "refuted"
        assert forall(x > 0, method="z3").status == "refuted"
        assert forall(x >= 0, method="z3").status == "proved"
        assert forall(x != 16, method="z3").status == "proved"


def test_an_empty_disjunction_is_false_and_an_empty_conjunction_true_to_z3():
    import z3

    from layoutalg.prove import expr as ex

    x = var("x", 4)

    solver = z3.Solver()
    solver.add(encode.IntEncoder({}).pred(ex.BoolOp("or", ())))
    assert solver.check() == z3.unsat
    solver = z3.Solver()
    solver.add(z3.Not(encode.IntEncoder({}).pred(ex.BoolOp("and", ()))))
    assert solver.check() == z3.unsat
    assert forall(ex.any_of(x == 0, x != 0), method="z3").status == "proved"


def test_an_encoder_refuses_a_term_where_a_predicate_is_needed():
    from layoutalg.prove import expr as ex

    with pytest.raises(ProofError, match="not a predicate"):
        encode.IntEncoder({}).pred(ex.Const(3))


def test_an_empty_conjunction_holds_and_an_empty_disjunction_fails_under_z3():
    x = var("x", 4)
    assert forall(BoolOp("and", []), [x], method="z3").status == "proved"
    assert forall(BoolOp("or", []), [x], method="z3").status == "refuted"


def test_an_and_without_a_low_mask_is_decided_exactly_by_z3():
    # x & 5 and x & y have no exact integer form: z3 must take the bit-vector encoding, not fail
    assert forall(lambda x: (x & 5) <= x, {"x": 16}, method="z3").status == "proved"
    assert forall(lambda x, y: (x & y) <= x, {"x": 16, "y": 16}, method="z3").status == "proved"
    assert forall(lambda x: (x & 5) < x, {"x": 16}, method="z3").status == "refuted"


def test_the_integer_encoding_floors_a_quotient_by_a_divisor_that_starts_at_one():
    # y in [1, 4): 3 // 2 is 1 (floor), not 2; the remainder stays in [0, y)
    x, y = var("x", 8), var("y", 4, lo=1)
    with settings(z3_encoding="int"):
        assert forall((x // y) * y <= x, method="z3").status == "proved"
        assert forall(x % y < y, method="z3").status == "proved"
        assert forall((x // y) * y + y > x, method="z3").status == "proved"

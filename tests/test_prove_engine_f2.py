"""The GF(2) engine (``method="f2"``) on terms whose constants are wider than its column slots.

Constants are kept apart from the packed columns and may have any width: a right shift past every
column (``k >= slot``) must still shift the constant.
"""

from __future__ import annotations

from layoutalg.prove import disjoint, forall


def test_a_shift_past_every_column_keeps_the_shifted_wide_constant():
    assert forall(lambda x: ((x ^ (1 << 100)) >> 70) == (1 << 30), {"x": 16}, method="f2").status == "proved"
    assert forall(lambda x: ((x ^ (1 << 100)) >> 70) == (1 << 31), {"x": 16}, method="f2").status == "refuted"
    assert forall(lambda x: ((x ^ (3 << 90)) >> 64) == (3 << 26), {"x": 1 << 8}, method="f2").status == "proved"


def test_a_mask_wider_than_a_column_slot_keeps_every_bit_of_the_masked_value():
    assert forall(lambda x, y: ((x ^ y) & ((1 << 100) - 1)) == (x ^ y), {"x": 256, "y": 256},
                  method="f2").status == "proved"
    assert forall(lambda x, y: ((x ^ y) & ((1 << 100) - 2)) == (x ^ y), {"x": 256, "y": 256},
                  method="f2").status == "refuted"
    # bit 67 of the mask lies past a 64-bit slot: it must not reach bit 3 of the next column
    assert forall(lambda x, y: ((x ^ y) & ((1 << 67) | 0xF0)) == ((x ^ y) & 0xF0), {"x": 256, "y": 256},
                  method="f2").status == "proved"
    assert forall(lambda x, y: ((x ^ y) & ((1 << 64) | 0xF0)) == ((x ^ y) & 0xF0), {"x": 256, "y": 256},
                  method="f2").status == "proved"


def test_a_bit_space_refuses_a_variable_as_wide_as_its_slot_and_names_the_bits_needed():
    import pytest

    from layoutalg.prove.engine_f2 import BitSpace, WideColumns
    from layoutalg.prove.variables import var

    with pytest.raises(WideColumns) as caught:
        BitSpace((var("x", 1 << 64),), slot=64)
    assert caught.value.bits == 65
    assert BitSpace((var("x", 1 << 63),), slot=64).nbits == 63


def _f2(predicate, domain):
    return forall(predicate, domain, method="f2")


def test_subtracting_a_nonzero_constant_is_not_gf2_linear_and_leaves_the_claim_unknown():
    for constant in (1, 3):
        result = _f2(lambda x, c=constant: (x ^ 5) - c == (x ^ 5), {"x": 16})
        assert result.status == "unknown"
        assert any("subtraction is not GF(2)-linear" in note for note in result.notes)
    assert _f2(lambda x: (x ^ 5) - 0 == (x ^ 5), {"x": 16}).status == "proved"


def test_and_with_a_constant_on_either_side_is_a_mask_and_of_two_variable_terms_is_refused_by_name():
    assert _f2(lambda x, y: (0xF0 & (x ^ y)) == ((x ^ y) & 0xF0), {"x": 256, "y": 256}).status == "proved"
    result = _f2(lambda x, y: ((x ^ 1) & (y ^ 2)) == 0, {"x": 16, "y": 4})
    assert result.status == "unknown" and any("AND of two variable terms" in note for note in result.notes)


def test_a_variable_divisor_is_refused_even_when_its_constant_part_is_a_power_of_two():
    result = _f2(lambda x, y: x // (y + 4) == x // 4, {"x": 16, "y": 4})  # y + 4 is 4..7, GF(2)-linear
    assert result.status == "unknown" and any("variable shift or divisor" in note for note in result.notes)


def test_a_constant_quotient_and_remainder_by_a_non_power_of_two_are_folded():
    assert _f2(lambda x: ((x ^ x) + 7) // 3 == 2, {"x": 16}).status == "proved"
    assert _f2(lambda x: ((x ^ x) + 7) % 3 == 1, {"x": 16}).status == "proved"
    assert _f2(lambda x: ((x ^ x) + 7) // 3 == 1, {"x": 16}).status == "refuted"


def test_a_zero_constant_is_a_constant_not_a_negative_one():
    assert _f2(lambda x: ((x ^ 3) & 0) == 0, {"x": 16}).status == "proved"


def test_a_refutation_names_a_point_where_the_claim_is_false():
    result = _f2(lambda x, y: ((x ^ y) & 1) == 0, {"x": 4, "y": 4})
    assert result.status == "refuted"
    point = result.counterexample
    assert (point["x"] ^ point["y"]) & 1 == 1


def test_a_long_term_in_a_refusal_is_cut_to_80_characters():
    result = _f2(lambda x, y: ((((x ^ 1) ^ 2) ^ 4) ^ 8 ^ 16 ^ 32 ^ 64 ^ 128 ^ 256 ^ 512 ^ 1024 ^ 2048) - (y ^ 1) == 0,
                 {"x": 16, "y": 4})
    note = next(note for note in result.notes if "subtraction" in note)
    term = note[len("f2 not applicable: "): note.index(": subtraction")]
    assert len(term) == 80 and term.endswith("...")
    short = _f2(lambda x, y: (x ^ 1) - (y ^ 1) == 0, {"x": 16, "y": 4})
    assert any(note == "f2 not applicable: ((x ^ 1) - (y ^ 1)): subtraction is not GF(2)-linear" for note in short.notes)


def test_compiling_terms_without_a_memo_and_refusing_a_variable_outside_the_domain():
    import pytest

    from layoutalg.prove import expr as ex
    from layoutalg.prove.engine_f2 import BitSpace, compile_term
    from layoutalg.prove.problem import NotApplicableError
    from layoutalg.prove.variables import var

    x, y = var("x", 16), var("y", 16)
    space = BitSpace((x,))
    assert compile_term(ex.lower(x ^ 5), space).at(3) == 3 ^ 5
    with pytest.raises(NotApplicableError, match="variable 'y' is not in the domain"):
        space.var(y)


def test_a_term_of_exactly_80_characters_is_shown_whole():
    big = 10**51  # 52 digits: the term's text is 80 characters
    result = _f2(lambda x, y: ((x ^ big) ^ 12345) - (y ^ 1) == 0, {"x": 16, "y": 4})
    note = next(note for note in result.notes if "subtraction" in note)
    assert note == f"f2 not applicable: (((x ^ {big}) ^ 12345) - (y ^ 1)): subtraction is not GF(2)-linear"
    assert len(f"(((x ^ {big}) ^ 12345) - (y ^ 1))") == 80


def test_a_refutation_point_is_read_back_in_each_variables_own_bits():
    # y's low bit alone decides; a witness mixing x's bits into y's column would name a point where the claim holds
    result = _f2(lambda x, y: ((x & 1) ^ ((x ^ y) & 1)) == 0, {"x": 4, "y": 4})
    assert result.status == "refuted" and result.counterexample["y"] & 1 == 1


def test_rank_counts_linearly_independent_bit_vectors():
    from layoutalg.prove.engine_f2 import rank

    assert rank([]) == 0
    assert rank([0b01, 0b10, 0b11]) == 2
    assert rank([0b100, 0b010, 0b001]) == 3


def test_injectivity_of_several_outputs_packs_them_apart():
    from layoutalg.prove import injective

    assert injective(lambda x: (x & 3, x >> 2), {"x": 16}, method="f2").status == "proved"
    refuted = injective(lambda x: (x & 3, (x >> 2) & 1), {"x": 16}, method="f2")
    assert refuted.status == "refuted"


def test_a_map_that_is_a_nonzero_constant_at_zero_is_refuted_at_the_zero_input():
    result = _f2(lambda x: ((x & 1) ^ 1) == 0, {"x": 4})
    assert result.status == "refuted" and result.counterexample == {"x": 0}


def test_a_disjunction_is_not_a_conjunction_of_linear_facts():
    from layoutalg.prove import expr as ex
    from layoutalg.prove.variables import var

    x = var("x", 4)
    either = ex.any_of((x & 1) == 0, (x & 1) == 1)
    result = forall(either, method="f2")
    assert result.status == "unknown" and any("not a conjunction" in note for note in result.notes)
    assert forall(either, method="enum").status == "proved"


def test_the_gf2_engine_honours_the_deadline_it_is_handed_and_otherwise_the_open_limit():
    import time

    import pytest

    from layoutalg.prove import budget, engine_f2
    from layoutalg.prove import expr as ex
    from layoutalg.prove.problem import Forall
    from layoutalg.prove.variables import var

    x = var("x", 16)
    problem = Forall((x,), ex.lower(ex.as_pred((x ^ 3) ^ 3 == x)))
    with pytest.raises(budget.DeadlineExceededError):
        engine_f2.decide(problem, budget.Deadline(time.monotonic() - 1.0))
    assert engine_f2.decide(problem).status == "proved"


def test_the_gf2_engine_does_not_compare_functions_with_different_numbers_of_outputs():
    import pytest

    from layoutalg.prove import budget, engine_f2
    from layoutalg.prove import expr as ex
    from layoutalg.prove.problem import Collision, NotApplicableError
    from layoutalg.prove.variables import var

    x, y = var("x", 4), var("y", 4)
    problem = Collision((), (x,), (y,), (ex.lower(x), ex.lower(x ^ 1)), (ex.lower(y),), False)
    with pytest.raises(NotApplicableError, match="different numbers of outputs"):
        engine_f2.decide(problem, budget.UNLIMITED)


def test_division_and_remainder_by_one_are_gf2_linear():
    assert _f2(lambda x: (x ^ 3) // 1 == (x ^ 3), {"x": 16}).status == "proved"
    assert _f2(lambda x: (x ^ 3) % 1 == 0, {"x": 16}).status == "proved"


def test_a_sum_of_terms_on_disjoint_bits_is_their_xor():
    assert _f2(lambda x, y: x + (y << 4) == x ^ (y << 4), {"x": 16, "y": 16}).status == "proved"
    assert _f2(lambda x, y: (x & 3) + ((y & 3) << 2) + (x & 48) == (x & 51) ^ ((y & 3) << 2),
               {"x": 64, "y": 16}).status == "proved"


def test_disjoint_images_separated_only_by_a_later_output_are_proved_disjoint():
    # the first outputs coincide (x == y); only the second output keeps the two images apart, so the
    # packed difference must keep the second output's bits past the first output's
    assert disjoint(lambda x: (x, 0), lambda y: (y, 1), {"x": 4}, method="f2").status == "proved"
    assert disjoint(lambda x: (x, x ^ 2), lambda y: (y, y), {"x": 4}, method="f2").status == "proved"
    assert disjoint(lambda x: (x, (x ^ 8) >> 3), lambda y: (y, y >> 3), {"x": 16}, method="f2").status == "proved"
    overlapping = disjoint(lambda x: (x, x & 1), lambda y: (y, y & 1), {"x": 4}, method="f2")
    assert overlapping.status == "refuted"


def test_disjoint_images_whose_later_output_differs_in_a_high_bit_are_not_refuted():
    # first outputs agree whenever x & 3 == y & 3; the second outputs always differ in bit 0, and their
    # variable part sits in bit 4: the packed second output must start past the first (bits 0-1)
    result = disjoint(lambda x: (x & 3, x & 16), lambda y: (y & 3, (y & 16) ^ 1), {"x": 32}, method="f2")
    assert result.status == "proved"


def test_a_lower_bound_of_one_is_not_a_gf2_fact_but_a_bound_of_zero_always_holds():
    # 1 <= t fails at t == 0; only 0 <= t (or a negative constant) holds for every linear t
    assert _f2(lambda x: 0 <= (x ^ 1), {"x": 4}).status == "proved"
    assert _f2(lambda x: 1 <= (x ^ 1), {"x": 4}).status == "unknown"
    assert forall(lambda x: 1 <= (x ^ 1), {"x": 4}).status == "refuted"


def test_an_upper_bound_is_a_gf2_fact_only_when_the_bound_is_a_power_of_two():
    # t < 2**k is "the bits of t from k up are zero"; t < 3 and t <= 4 are not linear facts
    assert _f2(lambda x: (x ^ 0) < 4, {"x": 4}).status == "proved"
    assert _f2(lambda x: (x ^ 0) <= 3, {"x": 4}).status == "proved"
    assert _f2(lambda x: (x ^ 0) <= 3, {"x": 8}).status == "refuted"
    assert _f2(lambda x: (x ^ 0) < 3, {"x": 3}).status == "unknown"
    assert _f2(lambda x: (x ^ 0) <= 4, {"x": 5}).status == "unknown"
    assert forall(lambda x: (x ^ 0) <= 4, {"x": 5}).status == "proved"


def test_an_injectivity_counterexample_is_two_inputs_with_one_output():
    from layoutalg.prove import injective

    result = injective(lambda x, y: x ^ (y << 1), {"x": 4, "y": 4}, method="f2")
    assert result.status == "refuted"
    cex = result.counterexample
    assert cex is not None
    first, second = (cex["x"], cex["y"]), (cex["x'"], cex["y'"])
    assert first != second and first[0] ^ (first[1] << 1) == second[0] ^ (second[1] << 1)


def test_an_injectivity_counterexample_beyond_the_small_values_is_two_inputs_with_one_output():
    from layoutalg.prove import injective

    # the only collisions pair x with x ^ 64: none lies among the small values tried first, so the
    # counterexample is the GF(2) engine's own (a kernel vector against the zero point)
    result = injective(lambda x: (x & 63) ^ ((x >> 7) << 6), {"x": 256}, method="f2")
    assert result.status == "refuted"
    cex = result.counterexample
    assert cex is not None and cex["x"] != cex["x'"]
    f = lambda x: (x & 63) ^ ((x >> 7) << 6)  # noqa: E731
    assert f(cex["x"]) == f(cex["x'"])


def test_a_sum_of_a_narrow_term_and_a_constant_past_the_column_slot_is_their_xor():
    # the constant's bit 64 or 65 lies past every 64-bit column but is still disjoint from the term's bits
    assert forall(lambda x: x + (1 << 65) == x ^ (1 << 65), {"x": 4}, method="f2").status == "proved"
    assert forall(lambda x: (x >> 1) + (1 << 64) == (x >> 1) ^ (1 << 64), {"x": 4}, method="f2").status == "proved"
    assert forall(lambda x: x + (1 << 65) == x, {"x": 4}, method="f2").status == "refuted"

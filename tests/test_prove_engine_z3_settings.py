"""The z3 engine's settings and time split, seen through the public claims (found by mutation testing).

* ``z3_encoding`` accepts only ``auto``, ``int`` and ``bv``; anything else is a ProofError naming it.
* ``z3_encoding="int"`` never falls back to bit-vectors: an integer attempt that runs out of time is
  "unknown" with the integer note only.
* A counterexample from z3 is minimized greedily: each variable, in domain order, at the smallest value
  for which a counterexample still exists.

The claim used: no cube is a sum of two cubes (Fermat, n = 3) -- true, nonlinear, and beyond z3 in
a fraction of a second.
"""

from __future__ import annotations

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import forall
from layoutalg.prove.config import settings


def _no_cube_is_a_sum_of_two_cubes(x, y, z):
    return x * x * x + y * y * y != z * z * z


def test_an_unknown_z3_encoding_setting_is_refused_with_its_name():
    with settings(z3_encoding="fast"), pytest.raises(ProofError, match="z3_encoding.*'fast'"):
        forall(lambda x: x + 1 > x, {"x": 16}, method="z3")


def test_integer_only_z3_that_times_out_is_unknown_and_never_tries_bit_vectors():
    big = {"x": (1, 1 << 12), "y": (1, 1 << 12), "z": (1, 1 << 12)}
    with settings(z3_encoding="int"):
        result = forall(_no_cube_is_a_sum_of_two_cubes, big, method="z3", timeout=0.3)
    assert result.status == "unknown"
    assert any("z3 over the integers" in note for note in result.notes)
    assert not any("bit vectors" in note or "-bit" in note for note in result.notes)


def test_z3_counterexamples_pin_each_variable_to_its_smallest_feasible_value_in_domain_order():
    # x * y == 12: the smallest x with a counterexample is 1 (then y = 12); with x >= 5 it is 6 (y = 2)
    assert forall(lambda x, y: x * y != 12, {"x": 1 << 20, "y": 1 << 20}, method="z3").counterexample == {
        "x": 1, "y": 12}
    assert forall(lambda x, y: x * y != 12, {"x": (5, 1 << 20), "y": 1 << 20},
                  method="z3").counterexample == {"x": 6, "y": 2}
    # a bit operation (bit-vector encoding): x = 0 admits the counterexample y = 4
    assert forall(lambda x, y: (x ^ y) * 3 != 12 + x, {"x": 1 << 20, "y": 1 << 20},
                  method="z3").counterexample == {"x": 0, "y": 4}

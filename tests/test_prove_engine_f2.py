"""The GF(2) engine (``method="f2"``) on terms whose constants are wider than its column slots.

Constants are kept apart from the packed columns and may have any width: a right shift past every
column (``k >= slot``) must still shift the constant.
"""

from __future__ import annotations

from layoutalg.prove import forall


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

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

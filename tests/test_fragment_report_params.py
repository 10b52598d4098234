"""A kernel's own parameter keeps its value in a fragment counterexample, whatever it is called.

The counterexample dict holds the parameters, then ``lane``, ``reg``, ``half``, ``row``, ``col``, ``element``...;
a parameter named ``row`` or ``col`` (in ``origin=`` or ``addresses=``) was overwritten by the element's row, so
the dict named a point that is not the counterexample.  Now the parameter keeps its name and value and the field
is ``row#2`` (the rule of every other claim's counterexample).
"""

from __future__ import annotations

from layoutalg.core.layout import Layout
from layoutalg.prove import fragment_delivers, param

F16 = "mma.m16n8k16.f16"


def test_a_parameter_named_row_keeps_its_value_in_a_wrong_element() -> None:
    smem = Layout((48, 16), (1, 48))  # column-major A: the k runs are not contiguous, refuted in every tile
    row = param("row", 3)
    result = fragment_delivers("ldmatrix.x4", smem, F16, "A", origin=(16 * row, 0))
    cex = result.counterexample
    assert result.refuted and cex is not None
    assert result.explanation.startswith(f"at row={cex['row']}: ")
    assert smem(cex["row#2"], cex["col"]) == cex["element"]
    assert smem(cex["expected_row"], cex["expected_col"]) == cex["expected_element"]


def test_a_parameter_named_col_keeps_its_value_outside_the_tile() -> None:
    col = param("col", 3)  # origin rows 1, 17, 33: the last tile reaches row 48 of 48
    result = fragment_delivers("ldmatrix.x4", Layout((48, 16), (16, 1)), F16, "A", origin=(16 * col + 1, 0))
    cex = result.counterexample
    assert result.refuted and cex is not None
    assert result.explanation.startswith(f"at col={cex['col']}: ") and cex["col"] == 2
    assert cex["row"] >= 48 and "col#2" in cex

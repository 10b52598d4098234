"""Matrix specs of the mma check (layoutalg/kernel/dataflow/specs.py): parsing ``PARAM@LAYOUT`` and
``(PARAM, layout)``, resolving against a kernel's parameters, tabulating the layout (offset of (r, c) =
r * row stride + c * column stride, written out here) and its inverse, and the LayoutErrors naming the matrix."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from layoutalg.atoms.layout_text import parse
from layoutalg.errors import LayoutError
from layoutalg.kernel.dataflow import specs
from layoutalg.kernel.dataflow.specs import MatrixSpec, check_shapes, parse_spec, resolve

FN = SimpleNamespace(params=[SimpleNamespace(name=n) for n in ("pA", "pB", "pC", "n")])
BUFFERS = ["pA", "pB", "pC"]


def resolved(role: str, value: object) -> MatrixSpec:
    s = parse_spec(role, value)
    resolve(s, FN, BUFFERS)
    return s


def test_parse_spec_reads_param_and_layout_in_every_accepted_form() -> None:
    s = parse_spec("A", " 1 @ (16,32):(32,1)")
    assert (s.role, s.param, str(s.layout)) == ("A", 1, str(parse("(16,32):(32,1)")))
    assert s.text == f"A=1@{s.layout}"
    s = parse_spec("B", "pB@(8,4):(1,8)")
    assert s.param == "pB" and s.buffer == -1 and (s.rows, s.cols) == (0, 0)
    assert parse_spec("C", ("pC", "(4,4):(4,1)")).param == "pC"
    assert parse_spec("C", ["pC", parse("(4,4):(4,1)")]).param == "pC"
    again = parse_spec("B", s)
    assert (again.role, again.param, again.layout) == ("B", "pB", s.layout)


@pytest.mark.parametrize("value,words", [
    ("pA(16,32):(32,1)", "is not PARAM@LAYOUT"),
    ("@(16,32):(32,1)", "names no parameter"),
    (("pA",), "expected 'PARAM@LAYOUT' or (PARAM, layout)"),
    (("pA", "x", 3), "expected 'PARAM@LAYOUT' or (PARAM, layout)"),
    (7, "expected 'PARAM@LAYOUT' or (PARAM, layout)"),
    (("pA", 5), "must be a Layout or a swizzled"),
])
def test_parse_spec_refuses_malformed_specs_naming_the_matrix(value: object, words: str) -> None:
    with pytest.raises(LayoutError, match=r"^A: .*") as err:
        parse_spec("A", value)
    assert words in str(err.value)


@pytest.mark.parametrize("value", ["0@(4,8):(8,1)", "pA@(4,8):(8,1)", ("pA", "(4,8):(8,1)")])
def test_resolve_finds_the_buffer_by_index_or_name(value: object) -> None:
    assert resolved("A", value).buffer == 0
    assert resolved("C", "2@(4,8):(1,4)").buffer == 2


@pytest.mark.parametrize("value,words", [
    ("4@(4,8):(8,1)", "parameter index 4 out of range (the kernel has 4 parameters)"),
    ("-1@(4,8):(8,1)", "no kernel parameter '-1'"),
    ("pX@(4,8):(8,1)", "no kernel parameter 'pX'; parameters (index:name): 0:pA, 1:pB, 2:pC, 3:n"),
    ("3@(4,8):(8,1)", "parameter 3 (n) is not a buffer"),
    ("n@(4,8):(8,1)", "is not a buffer (pass it as buf)"),
    ("0@(4,8,2):(16,2,1)", "must have two top-level modes"),
    ("0@32:1", "must have two top-level modes"),
    ("0@(4,4):(1,2)", "maps two coordinates to one element"),
])
def test_resolve_refuses_bad_specs_naming_the_matrix(value: str, words: str) -> None:
    with pytest.raises(LayoutError, match="^A: ") as err:
        resolved("A", value)
    assert words in str(err.value)


def test_resolve_refuses_a_parameter_holding_several_buffers() -> None:
    with pytest.raises(LayoutError, match="holds several buffers"):
        resolve(parse_spec("A", "pA@(2,2):(2,1)"), FN, ["pA", "pA"])


def test_resolve_refuses_layouts_past_the_element_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(specs, "MAX_ELEMENTS", 16)
    resolved("A", "0@(4,4):(4,1)")  # exactly 16 elements reaching offset 15: accepted
    with pytest.raises(LayoutError, match="4 x 5 elements; the check handles at most 16"):
        resolved("A", "0@(4,5):(5,1)")
    resolved("A", "0@(2,2):(62,1)")  # reaches offset 63: 64 = 4 * 16 element slots, accepted
    with pytest.raises(LayoutError, match="reaches offset 64; the check handles at most 64"):
        resolved("A", "0@(2,2):(63,1)")


def test_the_limits_are_2_to_the_26_elements_and_4_times_that_offset() -> None:
    assert specs.MAX_ELEMENTS == 2**26


@pytest.mark.parametrize("text,rows,cols,sr,sc", [("(4,8):(8,1)", 4, 8, 8, 1), ("(4,8):(1,4)", 4, 8, 1, 4),
                                                  ("(3,5):(10,1)", 3, 5, 10, 1), ("(2,3):(1,7)", 2, 3, 1, 7)])
def test_resolve_tabulates_offsets_and_their_inverse(text: str, rows: int, cols: int, sr: int, sc: int) -> None:
    s = resolved("B", f"1@{text}")
    assert (s.rows, s.cols) == (rows, cols)
    want = [r * sr + c * sc for c in range(cols) for r in range(rows)]  # index r + rows * c
    assert s.offsets is not None and s.offsets.tolist() == want
    elems = np.arange(-2, max(want) + 4)
    r, c, ok = s.coordinate(elems)
    for e, rr, cc, v in zip(elems.tolist(), r.tolist(), c.tolist(), ok.tolist()):
        hit = [(i % rows, i // rows) for i, o in enumerate(want) if o == e]
        assert v == bool(hit) and (not hit or (rr, cc) == hit[0]), e


def test_check_shapes_reads_m_n_k_and_refuses_disagreeing_shapes() -> None:
    a, b, c = resolved("A", "0@(16,32):(32,1)"), resolved("B", "1@(32,8):(8,1)"), resolved("C", "2@(16,8):(8,1)")
    assert check_shapes(a, b, c) == (16, 8, 32)
    with pytest.raises(LayoutError, match=r"B has 8 rows but A has 32 columns"):
        check_shapes(a, resolved("B", "1@(8,32):(32,1)"), c)
    with pytest.raises(LayoutError, match=r"C is 8 x 16 but A and B make it 16 x 8"):
        check_shapes(a, b, resolved("C", "2@(8,16):(16,1)"))
    with pytest.raises(LayoutError, match=r"C is 16 x 4 but A and B make it 16 x 8"):
        check_shapes(a, b, resolved("C", "2@(16,4):(4,1)"))


def test_parse_spec_splits_at_the_first_at_sign_and_the_layout_parser_refuses_the_rest() -> None:
    with pytest.raises(LayoutError, match="unexpected text after the layout"):
        parse_spec("A", "pA@(4,8):(8,1)@x")


@pytest.mark.parametrize("value", ["0@(4,8):(-8,1)", "0@(4,8):(1,-4)"])
def test_resolve_refuses_a_layout_with_negative_offsets_naming_the_matrix(value: str) -> None:
    with pytest.raises(LayoutError, match=r"^A: the layout \(4,8\):\(.*\) gives negative offsets"):
        resolved("A", value)


def test_a_one_element_matrix_reads_every_other_offset_as_outside_it() -> None:
    # (1,1):(1,1): only element offset 0 is the matrix's (its (0, 0)); offsets before and past it are invalid
    s = resolved("A", "0@(1,1):(1,1)")
    r, c, ok = s.coordinate(np.array([-3, -1, 0, 1, 2]))
    assert ok.tolist() == [False, False, True, False, False]
    assert (int(r[2]), int(c[2])) == (0, 0)

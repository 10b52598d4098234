"""Triton LinearLayout contract (triton/Tools/LinearLayout.h): XOR-of-bases semantics checked by brute force,
the printed forms' error positions, and every refused argument named in its LayoutError."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, ParseError
from layoutalg.swizzle.triton import TritonLinearLayout, from_triton, parse_triton, to_triton


def xor_of_bases(bases: dict[str, list[list[int]]], width: int, inputs: dict[str, int]) -> tuple[int, ...]:
    """LinearLayout::apply written from its definition: XOR the basis of every set bit of every input."""
    out = [0] * width
    for name, vectors in bases.items():
        for i, vec in enumerate(vectors):
            if inputs.get(name, 0) >> i & 1:
                out = [o ^ v for o, v in zip(out, vec)]
    return tuple(out)


OVERLAPPING = {"register": [[1, 0], [3, 2], [0, 1]], "lane": [[2, 3], [1, 1]]}


def overlapping_layout() -> TritonLinearLayout:
    return TritonLinearLayout.make(OVERLAPPING, {"dim0": 4, "dim1": 4})


def test_call_xors_the_bases_of_every_set_input_bit_over_the_whole_domain() -> None:
    tll = overlapping_layout()
    for reg, lane in itertools.product(range(8), range(4)):
        assert tll(register=reg, lane=lane) == xor_of_bases(OVERLAPPING, 2, {"register": reg, "lane": lane})


def test_input_dim_sizes_are_two_to_the_number_of_bases() -> None:
    tll = TritonLinearLayout.make({"register": [[1], [2], [4]], "lane": [], "warp": [[0]]}, {"dim0": 8})
    assert tll.in_dims() == [("register", 8), ("lane", 1), ("warp", 2)]
    assert [tll.in_dim_size(n) for n in ("register", "lane", "warp")] == [8, 1, 2]


def test_str_is_the_toString_form() -> None:
    tll = overlapping_layout()
    assert str(tll) == tll.to_string()
    assert " - register=1 -> (1, 0)\n   register=2 -> (3, 2)" in str(tll)


def test_layout_is_immutable_and_hashable_by_value() -> None:
    a, b = overlapping_layout(), overlapping_layout()
    assert hash(a) == hash(b) and {a: 1}[b] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.bases = ()  # type: ignore[misc]


@pytest.mark.parametrize("value", [-1, 8, True, 2.0])
def test_call_refuses_an_input_outside_its_range_naming_it(value: object) -> None:
    with pytest.raises(LayoutError, match=r"input register=.* is outside \[0, 8\)"):
        overlapping_layout()(register=value)  # type: ignore[arg-type]


def test_call_refuses_an_unknown_input_dim() -> None:
    with pytest.raises(LayoutError, match="unknown input dimension 'block'"):
        overlapping_layout()(block=0)


# -- construction checks ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "shown"), [(12, "12"), (0, "0"), (-4, "-4")])
def test_output_size_must_be_a_positive_power_of_two(size: object, shown: str) -> None:
    with pytest.raises(LayoutError, match=f"size of output dimension 'dim1' must be a positive power of two, got {shown}"):
        TritonLinearLayout.make({}, {"dim0": 4, "dim1": size})  # type: ignore[dict-item]


def test_bad_output_size_message_names_the_dim_not_the_value() -> None:
    with pytest.raises(LayoutError, match="out_dims 'dim0'"):
        TritonLinearLayout.make({}, {"dim0": "x"})  # type: ignore[dict-item]


@pytest.mark.parametrize("pair", [("dim0",), ("dim0", 4, 5), (0, 4), "dim0"])
def test_out_dims_entries_must_be_name_value_pairs(pair: object) -> None:
    with pytest.raises(LayoutError, match=r"out_dims\[1\] must be a \(name, value\) pair"):
        TritonLinearLayout((), (("dimA", 4), pair))  # type: ignore[arg-type]


@pytest.mark.parametrize("vectors", [5, [1, 2], "ab"])
def test_bases_must_be_lists_of_vectors(vectors: object) -> None:
    with pytest.raises(LayoutError, match="bases 'lane' must be a list of basis vectors"):
        TritonLinearLayout.make({"lane": vectors}, {"dim0": 4})  # type: ignore[dict-item]


def test_duplicate_dimension_names_are_refused() -> None:
    with pytest.raises(LayoutError, match="duplicate output dimension names"):
        TritonLinearLayout((), (("dim0", 4), ("dim0", 4)))
    with pytest.raises(LayoutError, match="duplicate input dimension names"):
        TritonLinearLayout((("lane", ((1,),)), ("lane", ())), (("dim0", 4),))


def test_basis_of_wrong_width_is_refused_naming_its_bit() -> None:
    with pytest.raises(LayoutError, match=r"basis lane=2 has 1 entries, expected one per output dim \['dim0', 'dim1'\]"):
        TritonLinearLayout.make({"lane": [[1, 0], [1]]}, {"dim0": 4, "dim1": 4})


def test_basis_entry_outside_its_output_dim_is_refused_naming_its_bit() -> None:
    with pytest.raises(LayoutError, match=r"basis lane=4 -> 4 is outside output dim dim0 \(size 4\)"):
        TritonLinearLayout.make({"lane": [[1], [2], [4]]}, {"dim0": 4})


# -- text forms ---------------------------------------------------------------------------------------------


def test_integer_token_length_limit_is_1240_digits() -> None:
    at_limit = "1" * 1240
    with pytest.raises(ParseError, match="out of order") as ok:
        parse_triton(f" - register={at_limit} -> (0)\nwhere out dims are: [dim0 (size 1)]")
    assert "too large" not in str(ok.value)
    with pytest.raises(ParseError, match="an integer of 1241 digits is too large") as err:
        parse_triton(f" - register=1 -> ({at_limit}1)\nwhere out dims are: [dim0 (size 1)]")
    assert err.value.column == 1


def test_basis_entry_that_is_not_an_integer_is_a_parse_error_at_column_one() -> None:
    with pytest.raises(ParseError, match="basis entry: 'x' is not an integer") as err:
        parse_triton(" - register=1 -> (0, x)\nwhere out dims are: [dim0 (size 1), dim1 (size 1)]")
    assert err.value.column == 1


def test_bases_out_of_order_name_the_expected_bit() -> None:
    with pytest.raises(ParseError, match=r"basis register=2 out of order \(expected register=1\)") as err:
        parse_triton(" - register=2 -> (0)\nwhere out dims are: [dim0 (size 1)]")
    assert err.value.column == 1
    with pytest.raises(ParseError, match=r"basis register=4 out of order \(expected register=2\)"):
        parse_triton(" - register=1 -> (0)\n   register=4 -> (0)\nwhere out dims are: [dim0 (size 1)]")


def test_to_string_text_parses_back_to_its_dims_and_bases() -> None:
    tll = overlapping_layout()
    back = parse_triton(tll.to_string())
    assert back.out_dims == (("dim0", 4), ("dim1", 4))
    assert back == tll


def test_bad_output_dim_is_located_at_its_column() -> None:
    line = "where out dims are: [dim0 (size 4), dim1 size 4]"
    with pytest.raises(ParseError, match="output dim 'dim1 size 4' is not 'name \\(size N\\)'") as err:
        parse_triton(" - register=1 -> (1, 0)\n" + line)
    assert err.value.column == line.index(" dim1 size") + 1
    assert err.value.text == line


def test_unknown_line_is_a_parse_error_at_column_one() -> None:
    with pytest.raises(ParseError, match="not a Triton linear layout line") as err:
        parse_triton(" - register=1 -> (1)\nregister: 1\nwhere out dims are: [dim0 (size 2)]")
    assert err.value.column == 1 and err.value.text == "register: 1"


@pytest.mark.parametrize("text", ["#ttg.linear{register = [[1]]}", "#ttg.linear<{register = [[1]]}",
                                  "#ttg.linear{register = [[1]]}>"])
def test_attribute_without_angle_brackets_is_refused_after_the_keyword(text: str) -> None:
    with pytest.raises(ParseError, match=r"expected #ttg.linear<\{...\}>") as err:
        parse_triton(text)
    assert err.value.column == len("#ttg.linear") + 1


@pytest.mark.parametrize("text", ["#ttg.linear<register = [[1]]>", "{register = [[1]]", "#ttg.linear<{register = [[1]]>"])
def test_attribute_without_braces_is_refused(text: str) -> None:
    with pytest.raises(ParseError, match=r"expected \{name = \[\[...\]\], ...\}") as err:
        parse_triton(text)
    assert err.value.column == 1


@pytest.mark.parametrize("text", ["{}", "#ttg.linear<{ }>", "{register: [[1]]}"])
def test_attribute_without_basis_lists_is_refused(text: str) -> None:
    with pytest.raises(ParseError, match="no basis lists found") as err:
        parse_triton(text)
    assert err.value.column == 1


def test_attribute_entry_that_is_not_an_integer_names_its_input_dim() -> None:
    with pytest.raises(ParseError, match="basis entry of 'lane': 'x' is not an integer"):
        parse_triton("{register = [[1, 0]], lane = [[0, x]]}")


def test_attribute_without_shape_takes_each_dim_up_to_its_largest_entry() -> None:
    tll = parse_triton("#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [4, 0], [0, 0]]}>")
    assert tll.out_dims == (("dim0", 8), ("dim1", 4))
    assert tll.in_dims() == [("register", 4), ("lane", 8)]
    assert parse_triton("{register = [[0, 0]]}").out_dims == (("dim0", 1), ("dim1", 1))


def test_attribute_with_shape_uses_it_and_refuses_a_wrong_rank() -> None:
    tll = parse_triton("{register = [[0, 1], [0, 2]], lane = [[1, 0]]}", shape=[16, 4])
    assert tll.out_dims == (("dim0", 16), ("dim1", 4))
    with pytest.raises(LayoutError, match=r"tensor shape \[16\] has 1 dims, the bases have 2 entries"):
        parse_triton("{register = [[0, 1]]}", shape=[16])
    with pytest.raises(LayoutError, match="tensor shape must be a list of ints"):
        parse_triton("{register = [[0, 1]]}", shape=16)  # type: ignore[arg-type]


def test_attribute_with_no_basis_vectors_has_no_output_dims() -> None:
    tll = parse_triton("{register = [], lane = []}", shape=[])
    assert tll.out_dims == () and tll.in_dims() == [("register", 1), ("lane", 1)]


# -- conversion ---------------------------------------------------------------------------------------------


def test_to_triton_defaults_name_a_rank_one_layout_offset_and_cover_its_offsets() -> None:
    tll = to_triton(Layout(8, 1))
    assert tll.in_dims() == [("offset", 8)] and tll.out_dims == (("dim0", 8),)
    assert [tll(offset=i) for i in range(8)] == [(i,) for i in range(8)]
    zero = to_triton(Layout(4, 0))
    assert zero.out_dims == (("dim0", 1),) and all(zero(offset=i) == (0,) for i in range(4))


def test_to_triton_refuses_mismatched_names_and_shapes() -> None:
    with pytest.raises(LayoutError, match=r"out_names \['a'\] and out_shape \[4, 2\] differ in length"):
        to_triton(Layout((4, 2), (1, 4)), out_shape=[4, 2], out_names=["a"])
    with pytest.raises(LayoutError, match="out_names must be a list of dimension names"):
        to_triton(Layout(8, 1), out_names=[0])  # type: ignore[list-item]
    with pytest.raises(LayoutError, match="out_shape must be a list of ints"):
        to_triton(Layout(8, 1), out_shape=8)  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match=r"size of input dim 'a' must be a positive power of two, got 3"):
        to_triton(Layout(8, 1), in_dims=[("a", 3)])


def test_from_triton_refuses_unknown_input_dims_and_incomplete_out_order() -> None:
    tll = overlapping_layout()
    with pytest.raises(LayoutError, match=r"unknown input dimension 'warp'; this layout has \['register', 'lane'\]"):
        from_triton(tll, in_order=["warp"])
    with pytest.raises(LayoutError, match=r"out_order \['dim0'\] must list every output dim \['dim0', 'dim1'\] once"):
        from_triton(tll, out_order=["dim0"])
    with pytest.raises(LayoutError, match="in_order must be a list of dimension names"):
        from_triton(tll, in_order=[1])  # type: ignore[list-item]


def test_call_and_text_agree_with_tritons_own_linear_layout() -> None:
    """Triton's C++ LinearLayout (through its Python binding) as the oracle, over the whole input domain."""
    triton_ll = pytest.importorskip("triton._C.libtriton.linear_layout")
    bases = [*OVERLAPPING.items(), ("warp", [])]
    theirs = triton_ll.LinearLayout.from_bases(bases, ["dim0", "dim1"], [4, 4], require_surjective=False)
    ours = TritonLinearLayout.make(dict(bases), {"dim0": 4, "dim1": 4})
    assert ours.to_string() == str(theirs)
    for reg, lane in itertools.product(range(8), range(4)):
        expected = theirs.apply({"register": reg, "lane": lane, "warp": 0})
        assert ours(register=reg, lane=lane) == (expected["dim0"], expected["dim1"])


def _triton_values(theirs: object, dims: list[tuple[str, int]], out: list[tuple[str, int]]) -> list[int]:
    """Triton's own ``apply`` over the whole input domain: the input dims take the index bits in order (the first
    the lowest), the output is read as the colexicographic index of its dims."""
    total = 1
    for _, size in dims:
        total *= size
    values = []
    for index in range(total):
        inputs, rest = {}, index
        for name, size in dims:
            inputs[name], rest = rest % size, rest // size
        result = theirs.apply(inputs)  # type: ignore[attr-defined]
        flat, scale = 0, 1
        for name, size in out:
            flat += result[name] * scale
            scale *= size
        values.append(flat)
    return values


@pytest.mark.parametrize("bases, out", [
    ({"offset": [[3], [1], [7]]}, [("dim0", 8)]),
    ({"in0": [[1, 1]], "in1": [[0, 1], [1, 0]]}, [("dim0", 2), ("dim1", 2)]),
    (OVERLAPPING, [("dim0", 4), ("dim1", 4)]),
])
def test_gf2_maps_of_no_swizzle_form_read_as_f2_stride_layouts_and_written_back(
        bases: dict[str, list[list[int]]], out: list[tuple[str, int]]) -> None:
    """A linear layout whose map no (swizzled) layout has (two bases XOR into one output bit) is read as the layout
    with one F2 stride per input bit, equal to Triton's own ``apply`` at every point (it was refused), and such a
    layout (with F2 strides) is written back to the same bases (``to_triton`` refused it too)."""
    triton_ll = pytest.importorskip("triton._C.libtriton.linear_layout")
    theirs = triton_ll.LinearLayout.from_bases(list(bases.items()), [n for n, _ in out], [s for _, s in out],
                                               require_surjective=False)
    tll = TritonLinearLayout.make(bases, dict(out))
    ours = from_triton(tll)
    dims = [(name, 1 << len(vectors)) for name, vectors in bases.items()]
    assert [int(ours(i)) for i in range(ours.size())] == _triton_values(theirs, dims, out)
    again = to_triton(ours, in_dims=dims, out_shape=[s for _, s in out])
    assert again.bases == tll.bases

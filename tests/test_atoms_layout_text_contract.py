"""Layout text with CUTLASS's shared-memory atom names (layoutalg.atoms.layout_text): the three printed
notations read alike, atom names with a type / dtype= / in bits give the atom for that width, and each
misuse is refused with a LayoutError that names what to write."""

from __future__ import annotations

import pytest

from layoutalg.atoms.layout_text import MissingDtypeError, normalise_notation, parse, smem_atom, smem_atom_names
from layoutalg.atoms.smem import get_smem_atom
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError, ParseError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle


def test_cute_dsl_and_pycute_swizzle_spellings_become_cute_cpps() -> None:
    assert normalise_notation("S<3,4,3> o 0 o (8,64):(64,1)") == "Sw<3,4,3> o 0 o (8,64):(64,1)"
    assert normalise_notation("SW_3_4_3 o _0 o (8,64):(64,1)") == "Sw<3,4,3> o _0 o (8,64):(64,1)"
    assert normalise_notation("Sw<1,2,3>") == "Sw<1,2,3>"  # CuTe C++ itself is left alone
    cpp = parse("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)")
    assert cpp == ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    assert parse("S<3,4,3> o 0 o (8,64):(64,1)") == cpp == parse("SW_3_4_3 o 0 o (8,64):(64,1)")


def test_a_dynamic_value_is_refused_at_its_column() -> None:
    with pytest.raises(ParseError) as err:
        normalise_notation("(8,?):(1,8)")
    assert err.value.column == 4


def test_an_atom_name_reads_with_its_type_with_dtype_or_in_bits() -> None:
    want = get_smem_atom("Layout_K_SW128_Atom", 16)
    assert parse("GMMA::Layout_K_SW128_Atom<bf16>") == want == parse("Layout_K_SW128_Atom", dtype="half")
    assert smem_atom("Layout_K_SW128_Atom", 16) == want
    bits = smem_atom("Layout_K_SW128_Atom_Bits")
    assert bits.inner == Layout((8, 1024), (1024, 1))  # CUTLASS's definition in bits
    assert smem_atom("Layout_K_SW128_Atom_Bits", 1) == bits
    names = smem_atom_names()
    assert len(names) == 4 + 8 + 8 and "Sm80_SW3_Atom" in names and "Layout_MN_INTER_Atom_Bits" in names


def test_an_atom_named_without_a_width_is_refused_saying_how_to_give_one() -> None:
    with pytest.raises(MissingDtypeError, match="Layout_MN_SW64_Atom depends on the element width: write "
                                                "Layout_MN_SW64_Atom<bf16>"):
        smem_atom("Layout_MN_SW64_Atom")


def test_an_atom_in_bits_refuses_a_wider_element_type() -> None:
    with pytest.raises(LayoutError, match="Layout_K_SW32_Atom_Bits is in bits; drop the element type or use "
                                          "Layout_K_SW32_Atom<bf16>"):
        smem_atom("Layout_K_SW32_Atom_Bits", "bf16")


def test_an_unknown_atom_name_suggests_the_three_closest() -> None:
    with pytest.raises(LayoutError, match="unknown shared-memory atom 'Layout_K_SW12_Atom'; did you mean") as err:
        smem_atom("Layout_K_SW12_Atom", 16)
    hint = str(err.value).split("did you mean ")[1].split("? ")[0]
    assert len(hint.split(" or ")) == 3 and "Layout_K_SW128_Atom" in hint


def test_a_cute_cpp_type_string_reads_as_its_layout() -> None:
    assert parse("Layout<Shape<_8,_64>,Stride<_64,_1>>") == Layout((8, 64), (64, 1))
    assert parse("cute::Swizzle<3,4,3>") == Swizzle(3, 4, 3)


def test_a_type_in_the_text_must_agree_with_dtype() -> None:
    with pytest.raises(LayoutError, match=r"Layout_K_SW128_Atom<bf16> disagrees with dtype='f32'"):
        parse("Layout_K_SW128_Atom<bf16>", dtype="f32")


@pytest.mark.parametrize("text, kind", [(5, "int"), (None, "NoneType"), (Layout(4), "Layout")])
def test_text_that_is_not_a_str_is_refused_naming_its_type(text: object, kind: str) -> None:
    with pytest.raises(LayoutError, match=f"layout text must be a str, got {kind}; for objects use layoutalg.as_layout"):
        parse(text)  # type: ignore[arg-type]


def test_empty_text_is_refused() -> None:
    with pytest.raises(ParseError, match="empty layout text") as err:
        parse("   ")
    assert err.value.column == 1


# pycute's repr, which `layoutalg convert` prints on its pycute line, reads back as the layout it came from.
PYCUTE_REPRS = {
    "Layout((8, 64),(64, 1))": "(8,64):(64,1)",
    "Layout(8,1)": "8:1",
    "Layout((8, 64))": "(8,64):(1,8)",
    "Layout((8, (2, 4)),(1, (-8, 16)))": "(8,(2,4)):(1,(-8,16))",
    "ComposedLayout(Swizzle(3,3,3),0,Layout((8, 64),(64, 1)))": "Sw<3,3,3> o _0 o (8,64):(64,1)",
    "pycute.Swizzle(2,4,3)": "Sw<2,4,3>",
}


@pytest.mark.parametrize("text", sorted(PYCUTE_REPRS))
def test_pycute_repr_reads_back(text: str) -> None:
    assert str(parse(text)) == PYCUTE_REPRS[text]


@pytest.mark.parametrize("text", ["Layout((8,64),(64,1.5))", "Layout(__import__('os'))", "Layout((8,64),(64,1)",
                                  "Layout(" * 500 + ")" * 500, "Layout(8, stride=1)", "Layout(8\x00)"])
def test_a_bad_pycute_repr_is_a_parse_error_never_evaluated(text: str) -> None:
    with pytest.raises(LayoutError, match="not a pycute layout"):
        parse(text)


def test_every_line_convert_prints_for_a_layout_parses_back() -> None:
    pytest.importorskip("pycute")
    from layoutalg.interop import to_cpp, to_pycute

    for layout in ("Sw<3,3,3> o _0 o (8,64):(64,1)", "((2,4),8):((1,16),2)", "(4,2):(-5,1)"):
        want = parse(layout)
        for text in (to_cpp(want), repr(to_pycute(want))):
            assert str(parse(text)) == str(want), text


@pytest.mark.parametrize("text", [
    "const cute::Layout<cute::tuple<cute::C<8>, cute::C<64>>, cute::tuple<cute::C<64>, cute::C<1>>> &",
    "Layout<Shape<_8,_64>,Stride<_64,_1>> const&", "const Layout<Shape<_8,_64>,Stride<_64,_1>>&&",
])
def test_a_cpp_type_as_a_signature_prints_it_with_const_and_a_reference_is_read(text: str) -> None:
    assert str(parse(text)) == "(8,64):(64,1)"
    assert str(parse("const GMMA::Layout_K_SW128_Atom<bf16>&")) == "Sw<3,3,3> o _0 o (8,64):(64,1)"

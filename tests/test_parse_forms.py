"""``layoutalg.parse`` and every CLI LAYOUT read C++ types as source writes them and compilers print them, every
GMMA atom with its element type, and CuTe's prints with static negatives; judged by function values written here."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import Layout, LayoutError
from layoutalg.cli import main

# ----------------------------------------------------------------------------- C++ types


@pytest.mark.parametrize("text", [
    "Layout<Shape<_8,_64>, Stride<_64,_1>>",
    "Layout<Shape<_8,_64>,Stride<_64,_1>>{}",
    "cute::Layout<cute::Shape<cute::_8, cute::_64>, cute::Stride<cute::_64, cute::_1>>",
    "cute::Layout<cute::tuple<cute::C<8>, cute::C<64> >, cute::tuple<cute::C<64>, cute::C<1> > >",
    "cute::Layout<cute::tuple<std::integral_constant<int, 8>, cute::Int<64>>, cute::tuple<cute::C<64>, cute::_1>>",
    "(_8,_64):(_64,_1)",
    "(8,64):(64,1)",
])
def test_row_major_tile_in_every_spelling(text: str) -> None:
    layout = la.parse(text)
    assert [layout(m, n) for m in range(8) for n in range(64)] == [64 * m + n for m in range(8) for n in range(64)]


def swizzle(bits: int, base: int, shift: int, x: int) -> int:
    return x ^ ((x >> shift) & (((1 << bits) - 1) << base))


@pytest.mark.parametrize("text", [
    "ComposedLayout<Swizzle<3,3,3>, _0, Layout<Shape<_8,_64>,Stride<_64,_1>>>",
    "cute::ComposedLayout<cute::Swizzle<3, 3, 3>, cute::C<0>, cute::Layout<cute::tuple<cute::C<8>, cute::C<64> >, "
    "cute::tuple<cute::C<64>, cute::C<1> > > >",
    "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
    "S<3,3,3> o 0 o (8,64):(64,1)",
    "SW_3_3_3 o 0 o (8,64):(64,1)",
])
def test_swizzled_tile_in_every_spelling(text: str) -> None:
    layout = la.parse(text)
    assert [layout(m, n) for m in range(8) for n in range(64)] == \
        [swizzle(3, 3, 3, 64 * m + n) for m in range(8) for n in range(64)]


def test_bare_swizzle_types() -> None:
    for text in ("Swizzle<2,4,3>", "cute::Swizzle<2, 4, 3>{}", "Sw<2,4,3>", "S<2,4,3>"):
        sw = la.parse(text)
        assert [sw(x) for x in range(1024)] == [swizzle(2, 4, 3, x) for x in range(1024)], text


# ----------------------------------------------------------------------------- GMMA atoms with their element type

# CUTLASS cute/atom/mma_traits_sm90_gmma.hpp: Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T> is the _Bits atom
# (rows of 16 << B bytes, Swizzle<B,4,3> on byte addresses) upcast to sizeof_bits<T>.
SWIZZLE_BITS = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}
ELEMENT_TYPES = [("cutlass::half_t", 16), ("half_t", 16), ("bf16", 16), ("cutlass::bfloat16_t", 16), ("float", 32),
                 ("cutlass::tfloat32_t", 32), ("cutlass::float_e4m3_t", 8), ("cutlass::float_e5m2_t", 8),
                 ("int8_t", 8), ("uint8_t", 8), ("double", 64), ("torch.float16", 16)]


def gmma_element_offset(major: str, kind: str, bits: int, mn: int, k: int) -> int:
    b = SWIZZLE_BITS[kind]
    row_bits = 8 * (16 << b)
    bit_offset = mn * row_bits + k * bits if major == "K" else mn * bits + k * row_bits
    byte, bit = divmod(bit_offset, 8)
    return (swizzle(b, 4, 3, byte) * 8 + bit) // bits


@pytest.mark.parametrize("major", ["K", "MN"])
@pytest.mark.parametrize("kind", sorted(SWIZZLE_BITS))
def test_every_gmma_atom_with_every_element_type(major: str, kind: str) -> None:
    for element, bits in ELEMENT_TYPES:
        for prefix in ("", "GMMA::", "cute::SM90::GMMA::"):
            atom = la.parse(f"{prefix}Layout_{major}_{kind}_Atom<{element}>")
            row_elements = 8 * (16 << SWIZZLE_BITS[kind]) // bits
            extents = (8, row_elements) if major == "K" else (row_elements, 8)
            assert la.shape(atom) == extents, (major, kind, element)
            for mn in range(extents[0]):  # both atoms are (MN, K) tiles: K-major rows run along K, MN-major along MN
                for k in range(extents[1]):
                    assert atom(mn, k) == gmma_element_offset(major, kind, bits, mn, k), (major, kind, element, mn, k)


def test_bits_atoms_and_dtype_argument() -> None:
    bits_atom = la.parse("GMMA::Layout_K_SW64_Atom_Bits")
    assert [bits_atom(0, j) for j in range(512)] == [gmma_element_offset("K", "SW64", 1, 0, j) for j in range(512)]
    assert la.parse("Layout_K_SW128_Atom", dtype="bf16") == la.parse("Layout_K_SW128_Atom<cutlass::bfloat16_t>")
    with pytest.raises(LayoutError, match="element width"):
        la.parse("Layout_K_SW128_Atom")
    with pytest.raises(LayoutError, match="disagrees"):
        la.parse("Layout_K_SW128_Atom<float>", dtype="f16")
    with pytest.raises(LayoutError, match="did you mean Layout_K_SW128_Atom"):
        la.parse("Layout_K_SW129_Atom<half_t>")
    with pytest.raises(LayoutError, match="nearest"):
        la.parse("Layout_K_SW128_Atom<half16>")


# ----------------------------------------------------------------------------- static negatives


def test_static_negative_strides_as_cute_prints_them() -> None:
    layout = la.parse("(_8,(_2,_4)):(_-5,(_m1,_16))")
    assert layout == Layout((8, (2, 4)), (-5, (-1, 16)))
    assert la.parse("((_4,_2)):((_-3,_1))")(3) == -9
    composed = la.parse("Sw<1,2,3> o _0 o (_4,_8):(_-8,_1)")
    assert [composed(m, n) for m in range(4) for n in range(8)] == \
        [swizzle(1, 2, 3, -8 * m + n) for m in range(4) for n in range(8)]


def test_static_negatives_pasted_into_a_cpp_type_read_as_c_minus_n() -> None:
    assert la.parse("Layout<Shape<_4,_8>,Stride<_-5,_1>>") == la.parse("Layout<Shape<_4,_8>,Stride<C<-5>,_1>>") \
        == Layout((4, 8), (-5, 1))
    assert la.parse("ComposedLayout<Swizzle<1,2,3>,_0,Layout<_8,_-1>>")(3) == swizzle(1, 2, 3, -3)
    with pytest.raises(LayoutError, match="column 28"):  # '_ -5' is two tokens, not a static negative
        la.parse("Layout<Shape<_4,_8>,Stride<_ -5,_1>>")


def test_cpp_reader_bounds_digits_and_nesting_with_a_parse_error() -> None:
    from layoutalg.errors import ParseError

    for text in ("Layout<Shape<_" + "9" * 5000 + ">>", "Layout<Shape<C<-" + "9" * 5000 + ">>>",
                 "Layout<Stride<_-" + "9" * 5000 + ">>", "Layout<" + "Shape<" * 100 + "_1" + ">" * 100 + ">"):
        with pytest.raises(ParseError, match="digits|nesting"):
            la.parse(text)


def cute_print(t: Any) -> str:
    """CuTe C++'s print of a static int tuple: every integer as _N (negatives _-N)."""
    if isinstance(t, tuple):
        return "(" + ",".join(cute_print(e) for e in t) + ")"
    return f"_{t}"


shapes = st.recursive(st.integers(1, 6), lambda inner: st.lists(inner, min_size=1, max_size=3).map(tuple),
                      max_leaves=6)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(shapes, st.data())
def test_cute_prints_with_negative_statics_round_trip(shape: Any, data: st.DataObject) -> None:
    def strides(s: Any) -> Any:
        return tuple(strides(e) for e in s) if isinstance(s, tuple) else data.draw(st.integers(-40, 40))

    layout = Layout(shape, strides(shape))
    assert la.parse(f"{cute_print(layout.shape)}:{cute_print(layout.stride)}") == layout


# ----------------------------------------------------------------------------- the same forms in every CLI option


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = main([*args, "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip() else json.loads(out.err or "{}")


def test_cli_options_read_the_same_forms(capsys: pytest.CaptureFixture[str]) -> None:
    code, by_type = run_cli(capsys, "show", "GMMA::Layout_K_SW128_Atom<cutlass::bfloat16_t>")
    assert code == 0
    code, by_option = run_cli(capsys, "show", "Layout_K_SW128_Atom", "--dtype", "torch.bfloat16")
    assert code == 0 and by_type == by_option
    code, converted = run_cli(capsys, "convert", "(_8,_4):(_-5,_1)")
    assert code == 0 and converted["cute"] == "(8,4):(-5,1)"
    code, cpp = run_cli(capsys, "convert", "cute::Layout<cute::tuple<cute::C<8>, cute::C<4>>, cute::tuple<cute::C<4>, "
                                           "cute::C<1>>>")
    assert code == 0 and cpp["cute"] == "(8,4):(4,1)"
    code, banks = run_cli(capsys, "banks", "ComposedLayout<Swizzle<3,3,3>,_0,Layout<Shape<_64,_64>,Stride<_64,_1>>>",
                          "--dtype", "cutlass.Float16", "--access", "ldmatrix.x4")
    code_printed, banks_printed = run_cli(capsys, "banks", "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", "--dtype", "f16",
                                          "--access", "ldmatrix.x4")
    assert code == code_printed == 0
    assert banks["instructions"] == banks_printed["instructions"]
    code, tv = run_cli(capsys, "show", "--tv", "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", "--tile", "16x8")
    assert code == 0


# ----------------------------------------------------------------------------- the same forms in the lower layers


def test_prove_and_kernel_layers_read_cpp_types_and_atom_names() -> None:
    """Layout text given to the prover (``smem=``) and to the kernel layer (``PARAM@LAYOUT``) is read by the same
    reader as ``la.parse``: C++ types, compiler prints and atom names give the same answers as the print form."""
    from layoutalg.atoms import catalog
    from layoutalg.kernel.dataflow.specs import parse_spec
    from layoutalg.prove.fragment import fragment_delivers

    ldsm, mma = catalog.get("SM75_U32x4_LDSM_N"), catalog.get("SM80_16x8x16_F32F16F16F32_TN")
    printed = fragment_delivers(ldsm, "Sw<3,3,3> o _0 o (64,64):(64,1)", mma, "A")
    typed = fragment_delivers(ldsm, "cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>, "
                                    "cute::Layout<cute::tuple<cute::C<64>, cute::C<64> >, "
                                    "cute::tuple<cute::C<64>, cute::C<1> > > >", mma, "A")
    assert printed.status == typed.status and printed.counterexample == typed.counterexample
    assert parse_spec("A", "0@Layout<Shape<_128,_64>,Stride<_64,_1>>").layout == Layout((128, 64), (64, 1))
    assert parse_spec("A", "0@GMMA::Layout_K_SW128_Atom<half_t>").layout == la.parse("Sw<3,3,3> o 0 o (8,64):(64,1)")

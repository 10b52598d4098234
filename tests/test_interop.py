"""Interop: C++ type strings, pycute and CuTe DSL objects and prints, judged by function values."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg import Layout, LayoutError
from layoutalg.errors import ParseError
from layoutalg.interop import from_cpp, from_pycute, from_string, normalise_notation, to_cpp, to_dsl_string, to_pycute


def values(layout: object, n: int) -> list[int]:
    return [int(layout(i)) for i in range(n)]  # type: ignore[operator]


def swizzle333(offset: int) -> int:
    """CuTe Swizzle<3,3,3>: bits [6,9) XORed into bits [3,6), written out here."""
    return offset ^ ((offset >> 3) & 0b111000)


@st.composite
def layouts(draw: st.DrawFn, depth: int = 2) -> Layout:
    def tree(d: int) -> object:
        if d == 0 or draw(st.booleans()):
            return draw(st.integers(1, 6))
        return tuple(tree(d - 1) for _ in range(draw(st.integers(1, 3))))

    shape = tree(depth)

    def strides(s: object) -> object:
        if isinstance(s, tuple):
            return tuple(strides(e) for e in s)
        return draw(st.integers(-4, 40))

    layout = Layout(shape, strides(shape))
    assume(layout.size() <= 1024)  # keep element-by-element comparison cheap
    return layout


# ----------------------------------------------------------------------------- C++ type strings


def test_cpp_row_major_tile() -> None:
    layout = from_cpp("Layout<Shape<_8,_64>,Stride<_64,_1>>")
    assert layout == Layout((8, 64), (64, 1))
    assert layout(3, 5) == 3 * 64 + 5


def test_cpp_compiler_spelling_with_namespaces_and_constants() -> None:
    text = ("cute::Layout<cute::tuple<cute::C<8>, cute::tuple<cute::C<2>, cute::C<4> > >, "
            "cute::tuple<cute::C<64>, cute::tuple<std::integral_constant<int, 1>, cute::Int<16> > > >")
    assert from_cpp(text) == Layout((8, (2, 4)), (64, (1, 16)))
    assert from_cpp("Layout<Shape<_8,_64>,Stride<_64,_1>>{}") == Layout((8, 64), (64, 1))


def test_cpp_default_stride_is_column_major() -> None:
    assert from_cpp("Layout<Shape<_8,_4>>") == Layout((8, 4), (1, 8))
    assert from_cpp("Layout<_8>") == Layout(8, 1)


def sw128_bytes(byte_address: int) -> int:
    """The GMMA 128-byte swizzle on byte addresses: bits [7,10) XORed into bits [4,7) (16-byte chunks)."""
    return byte_address ^ ((byte_address >> 3) & 0b1110000)


def test_cpp_gmma_sw128_atom_swizzles_byte_addresses() -> None:
    # CUTLASS GMMA::Layout_K_SW128_Atom<half_t>: Swizzle<3,4,3> on the smem *byte* address, inner layout in halves.
    text = "ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<16>, Layout<Shape<_8,_64>,Stride<_64,_1>>>"
    composed = from_cpp(text)
    assert composed.offset == 0
    for m in range(8):
        for n in range(64):
            assert 2 * composed(m + 8 * n) == sw128_bytes(2 * (64 * m + n))
    # The same atom in bits (smem_ptr_flag = smem_ptr_flag_bits<1>) and in 32-bit elements.
    bits = from_cpp("ComposedLayout<Swizzle<3,4,3>,smem_ptr_flag,Layout<Shape<_8,_1024>,Stride<_1024,_1>>>")
    for i in range(0, 8 * 1024, 16):
        assert bits(i) == 8 * sw128_bytes(bits.inner(i) // 8) + bits.inner(i) % 8
    words = from_cpp("ComposedLayout<Swizzle<3,4,3>,smem_ptr_flag_bits<32>,Layout<Shape<_8,_32>,Stride<_32,_1>>>")
    assert all(4 * words(i) == sw128_bytes(4 * words.inner(i)) for i in range(256))
    # The printed form of the same value.
    printed = from_string("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)")
    assert [printed(i) for i in range(512)] == [composed(i) for i in range(512)]
    with pytest.raises(ParseError, match="splits"):
        from_cpp("ComposedLayout<Swizzle<3,0,3>,smem_ptr_flag_bits<16>,Layout<_8>>")
    plain = from_cpp("ComposedLayout<Swizzle<2,3,3>,_0,Layout<Shape<_8,_32>,Stride<_32,_1>>>")
    assert plain(1 + 8 * 0) == (32 ^ ((32 >> 3) & 0b11000))


@pytest.mark.parametrize(
    "text, column, words",
    [
        ("Layout<Shape<_8,int>,Stride<_64,_1>>", 17, "dynamic"),
        ("Layout<Shape<_8,_64>,Stride<_64,_1>", 36, "end of text"),
        ("Layout<Shape<_8,_64>,Stride<_64>>", 1, "congruent"),
        ("Layout<Shape<_8,_64>,Stride<_64,_1>> x", 38, "after the layout"),
        ("Tensor<Shape<_8>>", 1, "expected Layout"),
        ("Layout<Shape<_8,$>>", 17, "unexpected character"),
        ("ComposedLayout<Foo<1>,_0,Layout<_8>>", 16, "Swizzle"),
        ("Layout<Shape<_0>>", 1, "positive"),
    ],
)
def test_cpp_errors_name_the_column(text: str, column: int, words: str) -> None:
    with pytest.raises(ParseError, match=words) as info:
        from_cpp(text)
    assert info.value.column == column


@settings(max_examples=200, deadline=None)
@given(layouts())
def test_cpp_round_trip(layout: Layout) -> None:
    text = to_cpp(layout)
    assert from_cpp(text) == layout


def test_to_cpp_negative_and_nested() -> None:
    assert to_cpp(Layout((2, (3, 4)), (-1, (0, 5)))) == "Layout<Shape<_2,Shape<_3,_4>>,Stride<C<-1>,Stride<_0,_5>>>"


# ----------------------------------------------------------------------------- printed notations


def test_normalise_dsl_and_pycute_spellings() -> None:
    assert normalise_notation("S<3,3,3> o 0 o (8,64):(64,1)") == "Sw<3,3,3> o 0 o (8,64):(64,1)"
    assert normalise_notation("SW_3_4_3 o 0 o (8, 64):(64, 1)") == "Sw<3,4,3> o 0 o (8, 64):(64, 1)"
    assert normalise_notation("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)") == "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"
    with pytest.raises(ParseError, match="dynamic"):
        normalise_notation("(8,?):(?,1)")


def test_from_string_reads_every_notation() -> None:
    expected = Layout((8, 64), (64, 1))
    assert from_string("(8,64):(64,1)") == expected
    assert from_string("(_8,_64):(_64,_1)") == expected
    assert from_string("  Layout<Shape<_8,_64>,Stride<_64,_1>>  ") == expected
    for text in ("S<3,3,3> o 0 o (8,64):(64,1)", "SW_3_3_3 o 0 o (8, 64):(64, 1)", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"):
        composed = from_string(text)
        assert [composed(i) for i in range(512)] == [swizzle333(64 * (i % 8) + i // 8) for i in range(512)]
    with pytest.raises(LayoutError):
        from_string("")
    with pytest.raises(LayoutError):
        from_string(42)  # type: ignore[arg-type]


def test_dsl_string_form() -> None:
    composed = from_string("Sw<3,3,3> o 0 o (8,64):(64,1)")
    assert to_dsl_string(composed) == "S<3,3,3> o 0 o (8,64):(64,1)"
    assert from_string(to_dsl_string(composed)) == composed


# ----------------------------------------------------------------------------- pycute


@settings(max_examples=100, deadline=None)
@given(layouts())
def test_pycute_round_trip_by_function(layout: Layout) -> None:
    theirs = to_pycute(layout)
    assert [theirs(i) for i in range(layout.size())] == values(layout, layout.size())
    assert from_pycute(theirs) == layout


def test_pycute_composed_both_ways() -> None:
    import pycute

    theirs = pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((8, 64), (64, 1)))
    ours = from_pycute(theirs)
    assert [ours(i) for i in range(512)] == [theirs(i) for i in range(512)]
    assert [ours(i) for i in range(512)] == [swizzle333(64 * (i % 8) + i // 8) for i in range(512)]
    back = to_pycute(ours)
    assert [back(i) for i in range(512)] == [theirs(i) for i in range(512)]
    with pytest.raises(LayoutError):
        from_pycute(Layout(4))


@pytest.mark.parametrize("text", ["Sw<0,0,0>", "Sw<0,3,0>", "Sw<0,2,0> o _17 o (8,8):(1,8)"])
def test_pycute_export_of_a_shift_0_swizzle_evaluates(text: str) -> None:
    """pycute's Swizzle recurses forever when called with shift 0; the identity swizzle Sw<0,M,0> is exported as
    the same function (pycute must evaluate it, and it reads back as the same function)."""
    ours = la.parse(text)
    theirs = to_pycute(ours)
    n = 256 if isinstance(ours, la.Swizzle) else ours.size()
    assert [theirs(i) for i in range(n)] == [ours(i) for i in range(n)]
    back = from_pycute(theirs)
    assert [back(i) for i in range(n)] == [ours(i) for i in range(n)]


# ----------------------------------------------------------------------------- CuTe DSL (inside a trace)

DSL_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import cutlass.cute as cute
    from layoutalg import Layout
    from layoutalg.interop import from_cute_dsl, from_string, to_cute_dsl
    cases = [Layout((8, 64), (64, 1)), Layout(((2, 4), 8), ((1, 16), 2)), Layout(8, 0), Layout((3, (2, 5)), (10, (1, 2)))]
    composed = from_string("Sw<3,3,3> o 0 o (8,64):(64,1)")
    out = {}

    @cute.jit
    def run():
        for i, layout in enumerate(cases + [composed]):
            theirs = to_cute_dsl(layout)
            text = str(theirs)
            n = layout.size()
            their_values = [int(theirs(k)) for k in range(n)]
            out[i] = {"text": text, "from_obj": str(from_cute_dsl(theirs)), "from_text": str(from_string(text)),
                      "ok_values": their_values == [int(layout(k)) for k in range(n)], "ours": str(layout)}
        mk = cute.make_composed_layout(cute.make_swizzle(2, 3, 3), 0, cute.make_layout((8, 32), stride=(32, 1)))
        out["native"] = {"text": str(mk), "from_obj": str(from_cute_dsl(mk))}

    run()
    sys.stdout.write("RESULT" + json.dumps(out) + "\\n")
    """
)


@pytest.mark.oracle
def test_cute_dsl_objects_and_prints(tmp_path: Path) -> None:
    pytest.importorskip("cutlass.cute")
    from cute_dsl_script import run_cute_dsl_script

    result = run_cute_dsl_script(tmp_path, DSL_SCRIPT, timeout=300)
    for key, case in result.items():
        if key == "native":
            continue
        assert case["ok_values"], case
        assert case["from_obj"] == case["ours"] == case["from_text"]
    assert result["0"]["text"] == "(8,64):(64,1)"
    assert result["4"]["text"] == "S<3,3,3> o 0 o (8,64):(64,1)"
    assert result["native"]["text"] == "S<2,3,3> o 0 o (8,32):(32,1)"
    assert result["native"]["from_obj"] == str(from_string("Sw<2,3,3> o 0 o (8,32):(32,1)"))


DSL_TUPLE_TILER_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import cutlass.cute as cute
    from layoutalg.interop import to_cute_dsl
    from layoutalg import Layout
    cases = [(Layout((4, 5)), (2,)), (Layout(((6, 2), 5), ((8, 2), 1)), (Layout((4, 3), (3, 1)),)),
             (Layout((6, 4), (4, 1)), (3,)), (Layout((6, 4), (4, 1)), (3, 2))]
    out = []

    @cute.jit
    def run():
        for a, tiler in cases:
            theirs = tuple(to_cute_dsl(t) if isinstance(t, Layout) else t for t in tiler)
            out.append(str(cute.composition(to_cute_dsl(a), theirs)))

    run()
    sys.stdout.write("RESULT" + json.dumps(out) + "\\n")
    """
)


@pytest.mark.oracle
def test_composition_by_a_short_tuple_tiler_drops_modes_as_cute_dsl_does(tmp_path: Path) -> None:
    """CuTe DSL (as CuTe C++: "Drop any modes of lhs that aren't hit by rhs") keeps only the modes a tuple tiler
    names: ``(4,5):(1,4) o (2,)`` is ``(2):(1)``; layoutalg prints the same layout for each case."""
    pytest.importorskip("cutlass.cute")
    from cute_dsl_script import run_cute_dsl_script

    from layoutalg import composition, parse

    theirs = run_cute_dsl_script(tmp_path, DSL_TUPLE_TILER_SCRIPT, timeout=300)
    cases = [(Layout((4, 5)), (2,)), (Layout(((6, 2), 5), ((8, 2), 1)), (Layout((4, 3), (3, 1)),)),
             (Layout((6, 4), (4, 1)), (3,)), (Layout((6, 4), (4, 1)), (3, 2))]
    assert theirs[0] == "(2):(1)"
    for (a, tiler), text in zip(cases, theirs):
        assert composition(a, tiler) == parse(text), (a, tiler, text)


# ----------------------------------------------------------------------------- Triton linear layouts


def test_triton_round_trip_of_mma_accumulator_layout() -> None:
    from layoutalg.interop import from_triton, to_triton

    # mma.m16n8 C fragment, CuTe TV layout (lane, i) -> row + 16 * col with
    # row = lane/4 + 8*(i/2), col = 2*(lane%4) + i%2 (PTX ISA), written here independently.
    tv = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))
    linear = to_triton(tv, in_dims=[("lane", 32), ("register", 4)], out_shape=(16, 8))
    for lane in range(32):
        for i in range(4):
            row, col = lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2
            assert linear(lane=lane, register=i) == (row, col)
    back = from_triton(linear)
    assert [back(k) for k in range(128)] == [tv(k) for k in range(128)]
    assert from_string(linear.to_attribute()) == from_triton(linear)
    assert [from_string(linear.to_string())(k) for k in range(128)] == [tv(k) for k in range(128)]


DSL_SLICE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import cutlass.cute as cute
    from layoutalg.interop import to_cute_dsl
    from layoutalg import parse
    cases = json.loads(sys.argv[1])
    out = []

    def coordinate(c):
        return tuple(coordinate(x) for x in c) if isinstance(c, list) else c

    @cute.jit
    def run():
        for text, crd in cases:
            out.append(str(cute.slice_(to_cute_dsl(parse(text)), coordinate(crd))))

    run()
    sys.stdout.write("RESULT" + json.dumps(out) + "\\n")
    """
)


def _slice_cases(seed: int, count: int) -> list[tuple[str, Any]]:
    """Nested layouts and coordinates holding None (CuTe's ``_``) somewhere, from a seeded random stream."""
    import random

    r = random.Random(seed)

    def shape(depth: int) -> Any:
        if depth == 0 or r.random() < 0.5:
            return r.choice([1, 2, 3, 4])
        return tuple(shape(depth - 1) for _ in range(r.randint(1, 3)))

    def crd(s: Any) -> Any:
        if r.random() < 0.35:
            return None
        if isinstance(s, int):
            return r.randrange(s)
        return [crd(x) for x in s]

    out: list[tuple[str, Any]] = []
    while len(out) < count:
        s = tuple(shape(2) for _ in range(r.randint(1, 3)))
        c = [crd(x) for x in s]
        if "None" not in repr(c):
            continue
        out.append((str(Layout(s)), c))
    return out


@pytest.mark.oracle
def test_slices_keep_their_kept_modes_a_tuple_as_cute_dsl_does(tmp_path: Path) -> None:
    """CuTe DSL's ``slice_`` (as CuTe C++'s ``slice``: the kept modes joined by ``tuple_cat``) keeps the kept modes
    a tuple even when one is kept (``(4,4):(4,1)`` by ``(1, _)`` is ``(4):(1)``); layoutalg's ``slice_layout`` is
    the same layout on 40 random nested cases."""
    import json

    pytest.importorskip("cutlass.cute")
    from cute_dsl_script import run_cute_dsl_script

    from layoutalg import parse, slice_layout

    cases = [("(4,4):(4,1)", [1, None])] + _slice_cases(2027, 40)
    theirs = run_cute_dsl_script(tmp_path, DSL_SLICE_SCRIPT, json.dumps(cases), timeout=300)
    assert theirs[0] == "(4):(1)"

    def coordinate(c: Any) -> Any:
        return tuple(coordinate(x) for x in c) if isinstance(c, list) else c

    for (text, crd), want in zip(cases, theirs):
        assert slice_layout(parse(text), coordinate(crd)) == parse(want), (text, crd, want)

"""Matrix copy and mma atoms by the names a kernel author writes (layoutalg.atoms.short_names): every spelling
the module docstring lists reaches the atom the catalog gives for the same PTX instruction, and every name it
cannot read is refused with an InstructionError that says what to write instead."""

from __future__ import annotations

import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.copy import CopyAtom
from layoutalg.atoms.short_names import copy_atom, mma_atom
from layoutalg.errors import InstructionError

# --- copies ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, kind, num, trans", [
    ("ldmatrix.x1", "ldmatrix", 1, False), ("ldmatrix.x4.trans", "ldmatrix", 4, True), ("stmatrix.x2", "stmatrix", 2, False),
    ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "ldmatrix", 4, True),
    ("stmatrix.sync.aligned.m8n8.x1.trans.shared::cta.b16", "stmatrix", 1, True),
    ("  LDMATRIX.X2  ", "ldmatrix", 2, False), ("cute::ldmatrix.x4", "ldmatrix", 4, False),
])
def test_a_short_or_full_ptx_matrix_copy_name_gives_the_catalogs_atom(text: str, kind: str, num: int, trans: bool) -> None:
    want = catalog.ldmatrix(num, trans) if kind == "ldmatrix" else catalog.stmatrix(num, trans)
    assert copy_atom(text) == (want, None)
    assert isinstance(want, CopyAtom)  # without bits=, the catalog gives the unbound atom
    assert want.num_matrices == num and want.trans == trans and f".x{num}." in want.ptx


@pytest.mark.parametrize("text", ["movmatrix", "movmatrix.sync.aligned.m8n8.trans.b16", "movmatrix.trans"])
def test_every_spelling_of_movmatrix_is_the_one_transposing_atom(text: str) -> None:
    assert copy_atom(text) == (catalog.movmatrix(), None)
    assert catalog.movmatrix().ptx == "movmatrix.sync.aligned.m8n8.trans.b16"


# PTX requires .num; one rule for every reader (layoutalg.banks.instruction refuses the same spellings)
NO_COUNT = ["ldmatrix", "stmatrix", "ldmatrix.trans", "stmatrix.trans", "ldmatrix.sync.aligned.m8n8.shared.b16",
            "ldmatrix.x2.x4", "ldmatrix.trans.x4.x2.x1", "stmatrix.x1.x1"]


@pytest.mark.parametrize("text", NO_COUNT)
def test_a_matrix_copy_without_exactly_one_count_is_refused_naming_the_counts(text: str) -> None:
    kind = text.split(".")[0]
    with pytest.raises(InstructionError, match=rf"{kind} needs exactly one of \.x1, \.x2, \.x4 \(PTX's \.num.*"
                                               rf"'{kind}\.x1' for CuTe's SM\d\d_U32x1_"):
        copy_atom(text)


@pytest.mark.parametrize("text", NO_COUNT + ["ldmatrix.x1", "ldmatrix.x4.trans", "stmatrix.x2",
                                             "ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16"])
def test_the_bank_model_reads_every_matrix_copy_spelling_as_the_fragment_prover_does(text: str) -> None:
    from layoutalg.banks.instruction import expand_short_form, parse_instruction
    from layoutalg.errors import LayoutError

    try:
        atom = copy_atom(text)[0]
    except InstructionError:
        atom = None
    try:
        ins = parse_instruction(expand_short_form(text))
    except LayoutError as exc:
        assert atom is None and "needs exactly one of .x1, .x2, .x4" in str(exc)
        return
    assert atom is not None and (ins.kind, ins.matrices, ins.transpose) == (atom.kind, atom.num_matrices, atom.trans)


def test_cutes_one_matrix_names_are_the_x1_forms() -> None:
    assert copy_atom("SM75_U32x1_LDSM_N")[0] == copy_atom("ldmatrix.x1")[0]
    assert copy_atom("SM90_U32x1_STSM_N")[0] == copy_atom("stmatrix.x1")[0]


def test_a_cute_name_an_atom_and_a_bound_atom_are_read_as_such() -> None:
    ld4t = catalog.ldmatrix(4, True)
    assert copy_atom("SM75_U16x8_LDSM_T") == (ld4t, None) and copy_atom("cute::SM75_U16x8_LDSM_T") == (ld4t, None)
    assert copy_atom(ld4t) == (ld4t, None)
    assert copy_atom(catalog.stmatrix(2, False, bits=16)) == (catalog.stmatrix(2, False), 16)


@pytest.mark.parametrize("text", ["movmatrix.x2", "movmatrix.x4.trans"])
def test_movmatrix_of_more_than_one_matrix_is_refused(text: str) -> None:
    with pytest.raises(InstructionError, match="movmatrix exists only as movmatrix.sync.aligned.m8n8.trans.b16"):
        copy_atom(text)


@pytest.mark.parametrize("text, word", [("ldmatrix.x3", "x3"), ("stmatrix.x4.b32", "b32"), ("ldmatrix.m16n16", "m16n16")])
def test_a_word_the_mnemonic_does_not_take_is_named(text: str, word: str) -> None:
    with pytest.raises(InstructionError, match=f"'{word}' is not a word of {text.split('.')[0]}"):
        copy_atom(text)


@pytest.mark.parametrize("spec", ["UniversalCopy<uint128_t>", "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"])
def test_a_per_thread_copy_is_refused_as_no_warp_wide_matrix_instruction(spec: str) -> None:
    with pytest.raises(InstructionError, match="is a per-thread copy: a fragment theorem needs a warp-wide"):
        copy_atom(spec)
    with pytest.raises(InstructionError, match="is a per-thread copy"):
        copy_atom(catalog.get(spec))


def test_an_mma_name_given_as_a_copy_is_refused_naming_what_it_is() -> None:
    with pytest.raises(InstructionError, match="names mma.sync.aligned.m16n8k16.*, not a copy instruction"):
        copy_atom("SM80_16x8x16_F32F16F16F32_TN")


@pytest.mark.parametrize("spec, match", [
    (5, r"copy must be an atom or its name \(a str\), got 5 \(int\)"),
    (None, r"copy must be an atom or its name \(a str\), got None \(NoneType\)"),
    ("", r"copy '' is not an instruction name \(empty or longer than 200 characters\)"),
    ("   ", r"is not an instruction name"),
    ("cute::", r"is not an instruction name"),
    ("l" * 201, r"copy 'l{60}'\.\.\. is not an instruction name"),
])
def test_a_copy_spec_that_is_no_name_is_refused(spec: object, match: str) -> None:
    with pytest.raises(InstructionError, match=match):
        copy_atom(spec)


def test_a_name_of_exactly_200_characters_is_looked_up_not_refused_for_its_length() -> None:
    with pytest.raises(InstructionError) as err:
        copy_atom("ldmatrix." + "x" * 191)
    assert "not a word of ldmatrix" in str(err.value)


# --- mma.sync --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, shape, a, b, c, layout", [
    ("mma.m16n8k16.f16", "m16n8k16", "f16", "f16", "f32", "row.col"),
    ("mma.m16n8k16.bf16", "m16n8k16", "bf16", "bf16", "f32", "row.col"),
    ("mma.m16n8k32.s8", "m16n8k32", "s8", "s8", "s32", "row.col"),
    ("mma.m16n8k64.u4", "m16n8k64", "u4", "u4", "s32", "row.col"),
    ("mma.m8n8k4.f64", "m8n8k4", "f64", "f64", "f64", "row.col"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "m16n8k16", "f16", "f16", "f32", "row.col"),
    ("mma.m16n8k16.f16.f16.f16.f16", "m16n8k16", "f16", "f16", "f16", "row.col"),
    ("mma.m16n8k32.s32.s8.u8.s32", "m16n8k32", "s8", "u8", "s32", "row.col"),
    ("mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32", "m8n8k4", "f16", "f16", "f32", "col.row"),
    ("MMA.M16N8K8.TF32", "m16n8k8", "tf32", "tf32", "f32", "row.col"),
])
def test_an_mma_name_gives_the_catalogs_atom_with_the_usual_accumulator(
        text: str, shape: str, a: str, b: str, c: str, layout: str) -> None:
    atom = mma_atom(text)
    assert atom is catalog.mma(shape, a=a, b=b, c=c, layout=layout)
    assert (atom.a_type, atom.b_type, atom.c_type) == (a, b, c)


def test_an_mma_atom_and_its_cute_name_are_read_as_such() -> None:
    atom = catalog.get("SM80_16x8x16_F32F16F16F32_TN")
    assert mma_atom(atom) is atom and mma_atom("SM80_16x8x16_F32F16F16F32_TN") is atom
    wg = catalog.wgmma(64, a="f16", c="f32")
    assert mma_atom(wg) is wg


@pytest.mark.parametrize("text, match", [
    ("mma.m16n8k16.f16.f16.f16.f32", "have D of C's type; got D f16, C f32"),
    ("mma.m16n8k16.f16.f16", r"give one type \(A and B, e.g. 'mma.m16n8k16.f16'\) or four"),
    ("mma.m16n8k16.f32.f16.f16", "give one type"),
    ("mma.m16n8k16.f17", "'f17' is not an mma type"),
    ("mma.m16n8k16.row.f16", "'row' is not an mma type"),
    ("mma.m16n8k16", "unknown mma 'mma.m16n8k16': write mma.SHAPE.TYPE"),
    ("mma.16n8k16.f16", "unknown mma"),
    ("mma.sync.aligned", "unknown mma"),
    ("SM75_U32x4_LDSM_N", "is not an mma.sync instruction: name one such as 'mma.m16n8k16.f16'"),
    (7, r"mma must be an atom or its name \(a str\), got 7 \(int\)"),
])
def test_an_mma_name_that_cannot_be_read_is_refused_saying_what_to_write(text: object, match: str) -> None:
    with pytest.raises(InstructionError, match=match):
        mma_atom(text)


# --- wgmma ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, n, a, c", [
    ("wgmma.m64n64k16.f32.bf16.bf16", 64, "bf16", "f32"),
    ("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", 128, "f16", "f32"),
    ("wgmma.m64n8k16.f16.f16.f16", 8, "f16", "f16"),
    ("WGMMA.M64N256K16.F32.F16.F16", 256, "f16", "f32"),
])
def test_a_wgmma_name_gives_the_catalogs_smem_a_atom(text: str, n: int, a: str, c: str) -> None:
    atom = mma_atom(text)
    assert atom is catalog.wgmma(n, a=a, c=c)
    assert atom.shape_mnk == (64, n, 16)


@pytest.mark.parametrize("text", [
    "wgmma.", "wgmma.sync.aligned", "wgmma.m64n64k16", "wgmma.m64n64k16.f32.f16", "wgmma.m64n64k8.f32.f16.f16",
    "wgmma.m32n64k16.f32.f16.f16", "wgmma.m64nxk16.f32.f16.f16", "wgmma.m64n64k16.f32.f16.f16.f16",
    "wgmma.m64n-8k16.f32.f16.f16",
])
def test_a_wgmma_name_not_of_the_form_m64nNk16_d_a_b_is_refused(text: str) -> None:
    with pytest.raises(InstructionError, match=r"unknown wgmma .*: write wgmma.m64nNk16.D.A.B"):
        mma_atom(text)


def test_a_wgmma_of_two_input_types_is_refused_naming_both() -> None:
    with pytest.raises(InstructionError, match="take A and B of one type, got f16 and bf16"):
        mma_atom("wgmma.m64n64k16.f32.f16.bf16")


@pytest.mark.parametrize("text, match", [
    ("mma.m8n8k4.col.row", r"^'mma.m8n8k4.col.row': give one type \(A and B"),  # a layout and no type
    ("mma.m8n8k4.row", r"^'mma.m8n8k4.row': 'row' is not an mma type"),  # half a layout is a (bad) type
    ("mma.m8n8k4.f16.row", r"^'mma.m8n8k4.f16.row': 'row' is not an mma type"),  # a layout only right after the shape
])
def test_an_mma_layout_is_read_only_as_two_words_right_after_the_shape(text: str, match: str) -> None:
    with pytest.raises(InstructionError, match=match):
        mma_atom(text)
    assert mma_atom("mma.m8n8k4.col.row.f16").name == "SM70_8x8x4_F32F16F16F32_NT"


@pytest.mark.parametrize("spec, shown", [("x" * 201, "'" + "x" * 60 + "'..."), (" " * 61, "'" + " " * 60 + "'..."),
                                         (" " * 60, "'" + " " * 60 + "'")])
def test_a_refused_name_is_shown_by_its_first_60_characters_and_dots_only_past_them(spec: str, shown: str) -> None:
    """Too long, or empty once stripped (blanks): the message shows at most 60 characters, '...' when cut."""
    with pytest.raises(InstructionError, match=f"^copy {shown} is not an instruction name"):
        copy_atom(spec)


@pytest.mark.parametrize("spec", ["SM100_U8x16_LDSM_T", "SM100_SU4_DU8x16_x4_LDSM_N", "SM100_U8x16_STSM_T"])
def test_an_8_bit_matrix_form_is_refused_as_what_it_is(spec: str) -> None:
    """ldmatrix.m16n16/.m8n16 and stmatrix.m16n8 .b8 are warp-wide matrix instructions (PTX ISA, sm_100a); they were
    refused as 'a per-thread copy', which they are not."""
    for given in (spec, catalog.get(spec)):
        with pytest.raises(InstructionError, match=r"is an 8-bit (ldmatrix|stmatrix) form \(sm_100a/sm_120a\)") as info:
            copy_atom(given)
        assert "per-thread" not in str(info.value)


@pytest.mark.parametrize("text, ptx", [
    ("mma.m16n8k16.float16", "mma.m16n8k16.f16"), ("mma.m16n8k16.half", "mma.m16n8k16.f16"),
    ("mma.m16n8k16.bfloat16", "mma.m16n8k16.bf16"), ("mma.m16n8k32.int8", "mma.m16n8k32.s8"),
    ("mma.m16n8k32.float8_e4m3fn", "mma.m16n8k32.e4m3"), ("mma.m16n8k8.tfloat32", "mma.m16n8k8.tf32"),
    ("mma.m16n8k16.float32.half.half.float32", "mma.m16n8k16.f32.f16.f16.f32"),
    ("wgmma.m64n64k16.float32.bfloat16.bfloat16", "wgmma.m64n64k16.f32.bf16.bf16"),
])
def test_an_mma_names_its_types_in_any_spelling_of_the_dtype_table(text: str, ptx: str) -> None:
    assert mma_atom(text) == mma_atom(ptx)


@pytest.mark.parametrize("spec", ["ld.shared.v4", "ld.shared.v4.u32", "cp.async.cg", "st.shared.b32"])
def test_a_per_thread_ptx_copy_is_refused_as_such_not_as_an_unknown_atom(spec: str) -> None:
    with pytest.raises(InstructionError, match="is a per-thread copy: a fragment theorem needs a warp-wide"):
        copy_atom(spec)

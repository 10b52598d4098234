"""What ``parse_instruction`` / ``expand_short_form`` read from a PTX mnemonic, and how they refuse the rest.

Expected values are PTX ISA facts (sections ld, st, ldmatrix, stmatrix, cp.async): the bytes one lane moves
(vector count x type width), the 8x8 matrices of ldmatrix .xN whose row addresses come from lanes 0..8N-1,
and cp.async's copy size (.cg: 16 only; .ca: 4, 8 or 16).
"""

from __future__ import annotations

import pytest

from layoutalg.banks.instruction import MAX_MNEMONIC_CHARS, expand_short_form, parse_instruction
from layoutalg.errors import InstructionError

# text -> (kind, bytes per lane, matrices, transpose, cache, stores?, active lanes, canonical spelling)
VALID = {
    "ld.shared.u8": ("ld", 1, 0, False, "", False, 32, "ld.shared.u8"),
    "ld.shared.s8": ("ld", 1, 0, False, "", False, 32, "ld.shared.u8"),
    "st.shared.b16": ("st", 2, 0, False, "", True, 32, "st.shared.u16"),
    "ld.shared.f32": ("ld", 4, 0, False, "", False, 32, "ld.shared.b32"),
    "ld.shared::cta.volatile.s32": ("ld", 4, 0, False, "", False, 32, "ld.shared.b32"),
    "ld.shared.relaxed.cta.b32": ("ld", 4, 0, False, "", False, 32, "ld.shared.b32"),
    "ld.shared.v2.b32": ("ld", 8, 0, False, "", False, 32, "ld.shared.b64"),
    "st.shared.f64": ("st", 8, 0, False, "", True, 32, "st.shared.b64"),
    "ld.shared.v2.f64": ("ld", 16, 0, False, "", False, 32, "ld.shared.v4.b32"),
    "ld.shared.v4.u16": ("ld", 8, 0, False, "", False, 32, "ld.shared.b64"),
    "ld.shared.v8.b16": ("ld", 16, 0, False, "", False, 32, "ld.shared.v4.b32"),
    "st.shared.b128": ("st", 16, 0, False, "", True, 32, "st.shared.v4.b32"),
    "LD.SHARED.V4.B32": ("ld", 16, 0, False, "", False, 32, "ld.shared.v4.b32"),
    "ldmatrix.sync.aligned.m8n8.x1.shared.b16":
        ("ldmatrix", 16, 1, False, "", False, 8, "ldmatrix.sync.aligned.m8n8.x1.shared.b16"),
    "ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16":
        ("ldmatrix", 16, 2, True, "", False, 16, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"),
    "stmatrix.sync.aligned.m8n8.x4.shared.b16":
        ("stmatrix", 16, 4, False, "", True, 32, "stmatrix.sync.aligned.m8n8.x4.shared.b16"),
    "ldmatrix.x4.trans": ("ldmatrix", 16, 4, True, "", False, 32, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"),
    "stmatrix.trans.x1": ("stmatrix", 16, 1, True, "", True, 8, "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16"),
    "cp.async.cg.shared.global": ("cp.async", 16, 0, False, "cg", True, 32, "cp.async.cg.shared.global, 16"),
    "cp.async.cg.shared.global, 16": ("cp.async", 16, 0, False, "cg", True, 32, "cp.async.cg.shared.global, 16"),
    "cp.async.ca.shared::cta.global, 4": ("cp.async", 4, 0, False, "ca", True, 32, "cp.async.ca.shared.global, 4"),
    "cp.async.ca.shared.global.L2::128B, 8": ("cp.async", 8, 0, False, "ca", True, 32,
                                              "cp.async.ca.shared.global, 8"),
    "cp.async.ca": ("cp.async", 16, 0, False, "ca", True, 32, "cp.async.ca.shared.global, 16"),
    "cp.async.ca.4": ("cp.async", 4, 0, False, "ca", True, 32, "cp.async.ca.shared.global, 4"),
}


@pytest.mark.parametrize("text", sorted(VALID))
def test_parse_instruction_reads_kind_width_matrices_and_cache_as_ptx_defines_them(text: str) -> None:
    kind, nbytes, matrices, trans, cache, store, lanes, canonical = VALID[text]
    ins = parse_instruction(text)
    assert (ins.kind, ins.access_bytes, ins.matrices, ins.transpose, ins.cache) == (kind, nbytes, matrices, trans, cache)
    assert ins.is_store is store
    assert ins.active_lanes == range(lanes)
    assert ins.canonical == canonical
    assert parse_instruction(ins.canonical).canonical == canonical  # the canonical spelling parses to itself
    assert ins.text == text


# short spelling (element bytes) -> the PTX mnemonic it stands for
SHORT = {
    ("cp.async.cg", None): "cp.async.cg.shared.global",
    ("cp.async.cg.16", None): "cp.async.cg.shared.global",
    ("cp.async.cg.8", None): "cp.async.cg.shared.global, 8",
    ("cp.async.ca", None): "cp.async.ca.shared.global, 16",
    ("cp.async.ca.4", None): "cp.async.ca.shared.global, 4",
    ("ldmatrix.x2", None): "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
    ("stmatrix.x1.trans", None): "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
    ("ld.b32", None): "ld.shared.b32",
    ("st.v2", None): "st.shared.v2.b32",
    ("ld.shared.v4", None): "ld.shared.v4.b32",
    ("ld.shared.v8", None): "ld.shared.v8.b32",
    ("ld.shared", 1): "ld.shared.u8",
    ("st.shared", 2): "st.shared.u16",
    ("ld.shared", 4): "ld.shared.b32",
    ("ld", 8): "ld.shared.b64",
    ("st.shared::cta", 16): "st.shared::cta.v4.b32",
    ("  LD.B32  ", None): "ld.shared.b32",
    ("ld.global.b32", None): "ld.global.b32",
    ("  cp.async.ca.shared.global, 8 ", None): "cp.async.ca.shared.global, 8",
    (" mov.b32 ", None): "mov.b32",
    ("ldmatrix", None): "ldmatrix",
    ("ldmatrix.trans.x4.x2.x1", None): "ldmatrix.sync.aligned.m8n8.x4.x2.x1.trans.shared.b16",  # refused by the parse
    ("cp.async.ca.shared.global", None): "cp.async.ca.shared.global",
}


@pytest.mark.parametrize("short, element", sorted(SHORT, key=str))
def test_expand_short_form_spells_out_the_ptx_mnemonic(short: str, element: int | None) -> None:
    assert expand_short_form(short, element) == SHORT[(short, element)]


# text -> a fragment of the refusal naming what is wrong
INVALID = {
    "": "empty mnemonic",
    "...": "empty mnemonic",
    "mov.b32": "unknown mnemonic 'mov'",
    "cp.b32": "unknown mnemonic 'cp'",
    "cp": "unknown mnemonic 'cp'",
    "ld.global.b32": "no .shared state space",
    "ld.shared.b32, 4": "ld.shared takes no size operand",
    "st.shared.b32, 4": "st.shared takes no size operand",
    "ld.shared.foo.b32": "unknown qualifier(s) ['foo']",
    "ld.shared.b32.u32": "needs exactly one type",
    "ld.shared.v2.v4.b32": "more than one vector qualifier",
    "ld.shared.v4.b64": "access of 32 bytes per lane",
    "ld.shared.v8.b32": "access of 32 bytes per lane",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16, 4": "ldmatrix takes no size operand",
    "ldmatrix.sync.aligned.m16n16.x4.shared.b16": "only the .m8n8 shape of ldmatrix",
    "ldmatrix.sync.aligned.m8n8.shared.b16": "ldmatrix needs exactly one of .x1, .x2, .x4",
    "ldmatrix.x2.x4": "ldmatrix needs exactly one of .x1, .x2, .x4",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b8": "ldmatrix.m8n8 needs type .b16",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16.foo": "unknown qualifier(s) ['foo']",
    "ldmatrix": "ldmatrix needs exactly one of .x1, .x2, .x4",
    "ldmatrix.foo.x4": "unknown qualifier(s) ['foo']",
    "cp.async.cg.shared.global.8": "copies 16 bytes only",
    "cp.async.cg.shared.global.foo": "unknown qualifier(s) ['foo']",
    "cp.async.ca.shared.global.8, 4": "give the copy size once",
    "SM75_U32x1_MOVM_T": "unknown mnemonic 'movmatrix'",
    "SM100_U8x8_LDSM_T": "only the .m8n8 shape of ldmatrix",
    "ldmatrix.trans": "ldmatrix needs exactly one of .x1, .x2, .x4",
    "ldmatrix.trans.x4.x2.x1": "ldmatrix needs exactly one of .x1, .x2, .x4",
    "cp.async, 16": "no .shared state space",
    "cp.async.bulk.shared.global": "cp.async.bulk (TMA)",
    "cp.async.ca.shared.local, 8": "must copy from .global",
    "cp.async.ca.cg.shared.global, 16": "exactly one of .ca, .cg",
    "cp.async": "exactly one of .ca, .cg",
    "cp.async.cg.shared.global, 8": "copies 16 bytes only",
    "cp.async.cg.8": "copies 16 bytes only",
    "cp.async.ca.shared.global": "needs its copy size",
    "cp.async.ca.shared.global, 2": "copy size 2; must be 4, 8 or 16",
    "cp.async.ca.shared.global, 32": "copy size 32; must be 4, 8 or 16",
    "cp.async.ca.shared.global, ٨": "must copy from .global",  # not an ASCII size: no size operand read
    "cp.async.ca.8.4": "short form is cp.async.{ca,cg}[.SIZE]",
    "cp.async.ca.eight": "short form is cp.async.{ca,cg}[.SIZE]",
    "ld.shared": "moves one element: give the type (ld.shared.b32)",
    "st": "moves one element: give the type (st.shared.b32)",
}


@pytest.mark.parametrize("text", sorted(INVALID))
def test_parse_instruction_refuses_a_bad_mnemonic_naming_what_is_wrong(text: str) -> None:
    with pytest.raises(InstructionError) as info:
        parse_instruction(text)
    assert INVALID[text] in str(info.value)
    assert repr(text) in str(info.value) or "no PTX mnemonic" in str(info.value)


def test_a_typeless_ld_needs_an_element_type_of_one_ptx_width() -> None:
    with pytest.raises(InstructionError, match="no single 3-byte type; give the type, e.g. st.shared.b32"):
        expand_short_form("st.shared", 3)
    with pytest.raises(InstructionError, match="no single 32-byte type"):
        expand_short_form("ld.shared", 32)
    with pytest.raises(InstructionError, match=r"ld.shared without a type moves one element"):
        expand_short_form("ld.shared")


@pytest.mark.parametrize("bad", [None, 42, b"ld.shared.b32", ["ld.shared.b32"]])
def test_a_non_string_instruction_is_refused_with_its_type(bad: object) -> None:
    for fn in (parse_instruction, expand_short_form):
        with pytest.raises(InstructionError, match=f"must be a PTX mnemonic string, got {type(bad).__name__}"):
            fn(bad)  # type: ignore[operator]


def test_a_parsed_instruction_is_an_immutable_hashable_value() -> None:
    import dataclasses

    a, b = parse_instruction("ld.shared.v4.b32"), parse_instruction("ld.shared.v4.b32")
    assert a == b and len({a, b}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.access_bytes = 8  # type: ignore[misc]


def test_instruction_text_is_read_up_to_the_length_limit_and_refused_past_it() -> None:
    longest = "ld.shared.b32" + "." * (MAX_MNEMONIC_CHARS - len("ld.shared.b32"))
    assert len(longest) == MAX_MNEMONIC_CHARS
    assert parse_instruction(longest).access_bytes == 4  # empty words between dots are skipped
    with pytest.raises(InstructionError, match=f"{MAX_MNEMONIC_CHARS + 1} characters"):
        parse_instruction(longest + ".")


# Spellings PTX and CuTe also use, read as the same access: .shared (generic addressing) and the other words
# short_names leaves optional may be left out, cp.async's size may be a last word or its third operand, a PTX
# line's operands and ';' are ignored, and a CuTe copy atom names the instruction it issues.
SAME_AS = {
    "ldmatrix.sync.aligned.m8n8.x4.b16": "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
    "ldmatrix.x4.b16": "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
    "ldmatrix.m8n8.x2.trans": "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
    "ldmatrix.x4.trans.shared": "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
    "stmatrix.aligned.x4.shared::cta": "stmatrix.sync.aligned.m8n8.x4.shared.b16",
    "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];":
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
    "ldmatrix.x4;": "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
    "ld.shared.v4.b32 {%r1, %r2, %r3, %r4}, [%r5];": "ld.shared.v4.b32",
    "cp.async.ca.shared.global.4": "cp.async.ca.shared.global, 4",
    "cp.async.cg.shared.global.16": "cp.async.cg.shared.global, 16",
    "cp.async.ca.shared.global [dst], [src], 8;": "cp.async.ca.shared.global, 8",
    "cp.async.ca.shared.global.L2::cache_hint [%rd1], [%rd3], 8, 4, %rd6;": "cp.async.ca.shared.global, 8",
    "SM75_U16x8_LDSM_T": "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
    "cute::SM90_U32x2_STSM_N": "stmatrix.sync.aligned.m8n8.x2.shared.b16",
    "SM80_CP_ASYNC_CACHEALWAYS<uint64_t>": "cp.async.ca.shared.global, 8",
    "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>": "cp.async.cg.shared.global, 16",
    "UniversalCopy<uint128_t>": "ld.shared.v4.b32",
}


@pytest.mark.parametrize("text", sorted(SAME_AS))
def test_every_spelling_ptx_short_names_or_cute_use_is_the_same_access(text: str) -> None:
    assert parse_instruction(text).canonical == SAME_AS[text]


@pytest.mark.parametrize("text", ["ldmatrix.x4.trans", "ldmatrix.sync.aligned.m8n8.x2.b16", "stmatrix.m8n8.x1.trans",
                                  "SM75_U32x4_LDSM_N", "ldmatrix.x4.trans;"])
def test_banks_and_prove_fragment_read_a_matrix_copy_alike(text: str) -> None:
    from layoutalg.atoms.short_names import copy_atom

    assert parse_instruction(text).canonical == copy_atom(text)[0].ptx


@pytest.mark.parametrize("text, guess", [("LDSM.16.M88.4", "ldmatrix"), ("ldsm.x4", "ldmatrix"), ("STS.128", "st.shared"),
                                         ("LDGSTS.E.BYPASS.128", "cp.async"), ("ldmatrx.x4", "ldmatrix")])
def test_a_sass_name_or_a_misspelt_mnemonic_is_refused_with_the_ptx_to_write(text: str, guess: str) -> None:
    with pytest.raises(InstructionError, match=f"did you mean {guess}\\?"):
        parse_instruction(text)

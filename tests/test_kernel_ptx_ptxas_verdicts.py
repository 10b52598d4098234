"""The PTX reader agrees with ptxas: tests/data/ptxas_reader_verdicts.json (tools/ptxas_reader_verdicts.py).

Every case is a module ptxas 13.0 compiled (``ptxas -v -arch=ARCH``).  A module ptxas refuses must be refused by
``trace`` with a KernelError naming the line ptxas names; one it accepts must trace, except the few valid forms
the tracer does not model (``NOT_MODELLED``: refused with a message saying so); where ptxas reports the static
shared memory of a sized ``.extern .shared`` case, the traced layout takes as many bytes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel import trace
from layoutalg.kernel.ptx.operands import parse_operand
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.ptx.target import Target
from layoutalg.kernel.sass import ptx_inventory

DATA = json.loads((Path(__file__).parent / "data" / "ptxas_reader_verdicts.json").read_text())
CASES = {c["id"]: c for c in DATA["cases"]}

#: valid PTX (ptxas accepts it) that the tracer refuses as outside its model, with the reason it gives
NOT_MODELLED = {
    "tensormap_04": r"generic addressing\) is not supported",  # tensormap.replace without a state space
    "tensormap_38": r"global_stride ordinal 4 is not modelled",
    "tensormap_51": r"swizzle_atomicity.* is not modelled",
    "tensormap_value_21": r"swizzle_atomicity.* is not modelled",
    **{f"tensormap_target_{k}": r"swizzle_atomicity.* is not modelled" for k in (46, 47, 48)},
}


def _trace(case: dict[str, Any]) -> Any:
    dynamic_smem = 128 if case["item"].startswith("tensormap") else 0  # the tensor-map is the dynamic array
    return trace(case["ptx"], kernel="k", block=32, args={"g": "buf"}, dynamic_smem=dynamic_smem)


def test_the_recording_names_its_ptxas_and_holds_both_verdicts() -> None:
    assert "cuda_13.0" in DATA["meta"]["ptxas"]
    assert {c["ptxas_rc"] != 0 for c in DATA["cases"]} == {True, False}
    assert set(NOT_MODELLED) <= {cid for cid, c in CASES.items() if c["ptxas_rc"] == 0}


@pytest.mark.parametrize("cid", sorted(c["id"] for c in DATA["cases"] if c["ptxas_rc"] != 0))
def test_what_ptxas_refuses_is_refused_naming_its_line(cid: str) -> None:
    case = CASES[cid]
    with pytest.raises(KernelError) as e:
        _trace(case)
    if case["ptxas_error_line"] is not None:
        assert e.value.line == case["ptxas_error_line"], (str(e.value), case["ptxas_error"])


@pytest.mark.parametrize("cid", sorted(c["id"] for c in DATA["cases"] if c["ptxas_rc"] == 0))
def test_what_ptxas_accepts_traces_or_is_refused_as_not_modelled(cid: str) -> None:
    case = CASES[cid]
    if cid in NOT_MODELLED:
        with pytest.raises(KernelError, match=NOT_MODELLED[cid]):
            _trace(case)
        return
    t = _trace(case)
    if case["item"] == "extern" and "[]" not in case["ptx"]:  # no dynamic array: the layout is the static bytes
        assert t.shared_bytes == (case["smem_bytes"] or 0)  # ptxas -v prints no "bytes smem" for none


# ----------------------------------------------------------------------------- item by item
def test_a_linkage_qualified_variable_in_a_function_body_is_refused_naming_its_line() -> None:
    with pytest.raises(KernelError, match=r"\.extern variable inside a function body.*module scope") as e:
        _trace(CASES["body_extern_shared_unsized"])
    assert e.value.line == 8


def test_a_sized_extern_shared_variable_is_static_and_placed_in_declaration_order() -> None:
    # ptxas: "ignoring extern qualifier"; 208 bytes smem = t[64] + s[128] + u[16], so s is between t and u
    t = _trace(CASES["module_extern_sized_between_statics"])
    assert t.shared_layout == {"t": 1024, "s": 1088, "u": 1216}
    assert t.shared_bytes == CASES["module_extern_sized_between_statics"]["smem_bytes"] == 208


def test_a_replace_with_its_state_space_before_its_field_traces_as_the_isa_order_does() -> None:
    # ptxas 13.0 reads the modifiers as a set: tensormap_01 (space first) and tensormap_02 (reversed) compile
    accesses = []
    for cid in ("tensormap_00", "tensormap_01", "tensormap_02"):
        t = _trace(CASES[cid])
        accesses.append([(r.part, r.access_bytes) for r in t.accesses])
    assert accesses[0] == accesses[1] == accesses[2] == [("STS +0x0", 8)]


def test_the_sass_inventory_counts_a_space_first_replace_as_the_isa_order() -> None:
    # kernel.sass compares the PTX's shared accesses with the SASS: the same STS.64 whatever the modifier order
    for cid in ("tensormap_00", "tensormap_01", "tensormap_02"):
        inventory, _ = ptx_inventory(parse_module(CASES[cid]["ptx"]).entries["k"])
        assert inventory == {("st", 8): 1}


def test_a_four_part_replace_is_refused_for_its_missing_size_and_type() -> None:
    with pytest.raises(KernelError, match=r"line 13.*tensormap.replace: \.b1024 is required \(ISA: "):
        _trace(CASES["tensormap_03"])


def test_a_descriptor_copy_without_its_shared_cta_source_is_refused() -> None:
    with pytest.raises(KernelError, match=r"line 13.*state spaces are \.global\.shared::cta .*got \.global \(ISA"):
        _trace(CASES["tensormap_60"])


def test_a_predicate_pair_of_three_names_is_refused_naming_the_operand() -> None:
    with pytest.raises(KernelError, match=re.escape("predicate pair '%p|%q|%r' must name exactly two registers")):
        parse_operand("%p|%q|%r", 3)


def test_an_omitted_address_size_is_32_and_the_module_traces_with_64_bit_pointers() -> None:
    # PTX ISA ".address_size": omitted means 32; ptxas 13.0 compiles this module (its pointers are 64-bit)
    case = CASES["omitted_64_bit_pointers"]
    assert parse_module(case["ptx"]).address_size == 32
    assert _trace(case).shared_layout == {"s": 1024}


@pytest.mark.parametrize(("cid", "message"), [
    ("tensormap_value_04", r"\.elemtype value 16 is not in 0\.\.15"),
    ("tensormap_value_05", r"\.elemtype value -1 is not in 0\.\.15"),
    ("tensormap_value_10", r"\.interleave_layout value 3 is not in 0\.\.2"),
    ("tensormap_value_14", r"\.swizzle_mode value 5 is not in 0\.\.4"),
    ("tensormap_value_19", r"\.fill_mode value 2 is not in 0\.\.1"),
    ("tensormap_value_22", r"\.swizzle_atomicity value 4 is not in 0\.\.3"),
])
def test_a_field_value_outside_the_isa_table_is_refused_naming_the_line_field_and_range(cid: str,
                                                                                        message: str) -> None:
    # PTX ISA "tensormap.replace", table "Tensormap new_val validity"; ptxas 13.0: "value 'v' expected to be in
    # range [0..n]" (sm_90a; swizzle_atomicity on sm_100a)
    with pytest.raises(KernelError, match=r"line 13.*tensormap\.replace: " + message):
        _trace(CASES[cid])


@pytest.mark.parametrize(("cid", "message"), [
    ("tensormap_target_00", r"tensormap\.replace is not supported on \.target sm_90 \(Target ISA Notes: sm_90a, sm_100a"),
    ("tensormap_target_01", r"tensormap\.replace requires PTX ISA \.version 8\.3 or later \(the module's: 8\.2\)"),
    ("tensormap_target_17", r"tensormap\.replace is not supported on \.target sm_90 "),  # the last platform listed
    ("tensormap_value_02", r"\.elemtype value 13\.\.15 requires PTX ISA \.version 8\.7 or later \(the module's: 8\.5\)"),
    ("tensormap_target_23", r"\.elemtype value 13\.\.15 is not supported on \.target sm_90a \(Target ISA Notes: sm_100a"),
    ("tensormap_target_36", r"\.swizzle_mode value 4 is not supported on \.target sm_103f \(Target ISA Notes: sm_103a\)"),
    ("tensormap_target_38", r"\.swizzle_mode value 4 requires PTX ISA \.version 8\.8 or later"),
    ("tensormap_target_44", r"tensormap\.replace\.swizzle_atomicity is not supported on \.target sm_90a"),
])
def test_a_replace_the_module_target_or_version_lacks_is_refused_naming_both(cid: str, message: str) -> None:
    # PTX ISA "tensormap.replace", PTX ISA Notes and Target ISA Notes; ptxas 13.0 refuses each on line 13
    with pytest.raises(KernelError, match=r"line 13, tensormap\.replace[.\w:]*: " + message):
        _trace(CASES[cid])


def test_an_elemtype_or_swizzle_mode_only_later_targets_take_traces_there_as_any_value_of_its_field() -> None:
    # ptxas 13.0 takes .elemtype 13..15 from sm_100a/PTX 8.7 and .swizzle_mode 4 on sm_103a/PTX 8.8; its SASS
    # for .elemtype (sm_100a) is one LDS and one STS of the flag word 0x8 whatever the value, as the tracer records
    def replaces(cid: str) -> list[tuple[str, int]]:
        return [(r.part, r.access_bytes) for r in _trace(CASES[cid]).accesses]

    flag_word = [("LDS +0x8", 4), ("STS +0x8", 4)]
    assert replaces("tensormap_target_26") == replaces("tensormap_target_34") == flag_word  # elemtype 14, 12
    assert replaces("tensormap_value_07") == replaces("tensormap_target_31") == flag_word  # elemtype 15
    assert replaces("tensormap_target_35") == replaces("tensormap_target_43") == flag_word  # swizzle_mode 4, 3


@pytest.mark.parametrize(("cid", "isa"), [
    ("tensormap_target_35", Target(103, "a", (9, 0))),
    ("tensormap_target_16", Target(90, "a", (8, 5))),  # .target sm_90a, texmode_independent
    ("tensormap_target_18", Target(90, "a", (8, 5))),  # .target sm_90, sm_90a: ptxas takes the last platform
    ("proto_plain_then_def_plain", Target(90, "", (8, 0))),
])
def test_the_module_keeps_its_target_and_version(cid: str, isa: Target) -> None:
    assert parse_module(CASES[cid]["ptx"]).isa == isa


@pytest.mark.parametrize("cid", ["tensormap_target_19", "tensormap_target_20", "tensormap_target_21",
                                 "tensormap_target_22"])
def test_a_target_list_ptxas_cannot_read_is_refused_naming_its_line(cid: str) -> None:
    # no platform, an unknown word, two words without a comma, map_f64_to_f32 (ptxas: not from sm_13 on)
    with pytest.raises(KernelError, match=r"line 2, \.target: cannot read .*\.target takes platforms"):
        parse_module(CASES[cid]["ptx"])


def test_an_extern_func_prototype_in_a_body_declares_the_function_as_one_at_module_scope() -> None:
    # PTX ISA: .extern .func [(returns)] name (params); ptxas 13.0 compiles it inside a body
    m = parse_module(CASES["extern_func_returns"]["ptx"])
    f = m.functions["f"]
    assert (f.defined, [(v.space, v.type) for v in f.returns], [(v.space, v.type) for v in f.params]) == (
        False, [("param", "b32")], [("param", "b32")])
    assert _trace(CASES["extern_func_noreturn_next_line"]).shared_bytes == 0


@pytest.mark.parametrize(("cid", "message"), [
    ("extern_func_other_param_type", r"line 9, \.extern: func f is declared with other parameters.* than at line 8"),
    ("extern_func_against_module_prototype", r"line 9, \.extern: func f is declared with other parameters.* line 4"),
    ("extern_func_of_a_defined_function", r"line 12, \.extern: f is defined in this module \(line 4\)"),
    ("visible_func", r"line 8, \.visible: a function declared inside a function body must be an \.extern \.func"),
    ("extern_func_maxntid", r"line 8, \.extern: a prototype takes no directive but \.noreturn, not \.maxntid"),
    ("callprototype_unlabelled", r"line 8, \.callprototype: \.callprototype must come right after its label"),
    ("callprototype_named", r"line 8, \.callprototype: a \.callprototype is named _ .*\(got f\)"),
])
def test_a_function_declaration_ptxas_refuses_in_a_body_is_refused_naming_why(cid: str, message: str) -> None:
    with pytest.raises(KernelError, match=message):
        _trace(CASES[cid])


# ----------------------------------------------------------------------------- function linkage and definition
@pytest.mark.parametrize(("cid", "message"), [
    ("proto_plain_never_defined", r"line 4, \.func: func f is declared without linkage but never defined in this "
                                  r"module.*unresolved extern function"),
    ("entry_proto_visible_never_defined", r"line 4, \.entry: entry e is declared \.visible but never defined"),
    ("proto_plain_then_def_visible", r"line 6, \.visible: f is declared \.visible here and without linkage at line 4"),
    ("proto_extern_then_def_plain", r"line 6, \.func: f is declared without linkage here and \.extern at line 4"),
    ("module_proto_plain_then_body_extern", r"line 7, \.extern: f is declared \.extern here and without linkage"),
    ("def_visible_then_proto_extern", r"line 8, \.extern: f is defined in this module \(line 4\).*duplicate"),
    ("extern_def", r"line 7, \.extern: func f is \.extern, declared as defined elsewhere, and has a body"),
    ("proto_reg_then_def_param", r"line 6, \.func: func f is declared with other parameters.* than at line 4"),
    ("entry_reg_param_multiline", r"line 7, \.visible: entry parameter a must be in the \.param state space"),
    ("proto_then_def_noreturn_next_line", r"line 9, \.func: func f is declared with other .*noreturn"),
    ("common_func_proto", r"line 4, \.common: \.common \.func: a function takes one linkage directive at most"),
])
def test_a_function_declared_against_its_other_declarations_is_refused_naming_why(cid: str, message: str) -> None:
    # ptxas 13.0: "Unresolved extern function", "Inconsistent redefinition", "Duplicate definition",
    # "Function definition conflicts with '.extern' declaration", "Inconsistent prototypes ... state space differ"
    with pytest.raises(KernelError, match=message):
        parse_module(CASES[cid]["ptx"])


def test_a_definition_takes_the_linkage_of_its_prototype_and_reg_parameters_stay_reg() -> None:
    # ptxas 13.0 compiles ".visible .func f(...);" then ".func f(...) {...}" (the definition is .visible) and a
    # .func whose parameters are .reg (PTX ISA "Function declarations and definitions")
    f = parse_module(CASES["proto_visible_then_def_plain"]["ptx"]).functions["f"]
    assert (f.defined, f.linkage, f.line) == (True, "visible", 5)
    g = parse_module(CASES["def_reg_params"]["ptx"]).functions["f"]
    assert [(p.space, p.type) for p in g.params] == [("reg", "b32"), ("reg", "b64")]
    assert parse_module(CASES["proto_extern_never_defined"]["ptx"]).functions["f"].linkage == "extern"

"""PTX parser (layoutalg.kernel.ptx.parser): each directive and statement form it accepts gives the right
node, and malformed PTX raises KernelError naming the offending line."""

from __future__ import annotations

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.nodes import Addr, Not, Reg, Sym
from layoutalg.kernel.ptx.parser import parse_module

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def entry(body: str, header: str = ".visible .entry k()") -> str:
    return HEAD + header + "\n{\n" + body + "\nret;\n}\n"


def test_module_header_variables_and_prototypes() -> None:
    m = parse_module(HEAD + '.pragma "nounroll";\n'
                     ".global .align 8 .b32 table[4] = {1, 0x10, 0f3F800000, 0d3FF0000000000000};\n"
                     ".const .b8 bytes[] = {1, 2, 3, };\n"
                     ".extern .shared .align 16 .b8 dyn[];\n"
                     ".extern .func (.param .b32 r) helper (.param .b32 x);\n"
                     + ".visible .entry k()\n{\nret;\n}\n")
    assert (m.version, m.target, m.address_size) == ("8.0", "sm_90", 64)
    table, data, dyn = m.variables
    assert (table.name, table.space, table.type, table.align, table.count) == ("table", "global", "b32", 8, 4)
    assert table.initializer == (1, 16, 0x3F800000, 0x3FF0000000000000)
    assert (data.count, data.initializer) == (3, (1, 2, 3))  # [] takes the initializer's length
    assert (dyn.extern, dyn.count, dyn.align) == (True, 0, 16)
    helper = m.functions["helper"]
    assert helper.defined is False and [p.name for p in helper.params] == ["x"]
    assert [r.name for r in helper.returns] == ["r"]
    assert m.entry("k") is m.entries["k"]


def test_entry_header_params_and_performance_directives() -> None:
    m = parse_module(entry(".maxnreg 64;\n.reg .b32 %r<3>, %flag;\n.reg .pred p;",
                           ".visible .entry k(.param .u64 .ptr .global .align 16 a, .param .u32 n) "
                           ".maxntid 128, 1, 1 .minnctapersm 2"))
    fn = m.entries["k"]
    assert [(p.name, p.space, p.type, p.is_pointer) for p in fn.params] == [("a", "param", "u64", True),
                                                                          ("n", "param", "u32", False)]
    assert fn.params[0].align == 16
    assert fn.directives == {"maxntid": (128, 1, 1), "minnctapersm": (2,), "maxnreg": (64,)}
    assert fn.registers == {"%r0": "b32", "%r1": "b32", "%r2": "b32", "%flag": "b32", "p": "pred"}


def test_bare_registers_in_operands_addresses_and_guards_are_renamed_per_scope() -> None:
    body = (".reg .b64 %rd<2>;\n{\n.reg .pred p;\n.reg .b64 q;\n"
            "setp.eq.u64 p, %rd1, 0;\n@!p mov.b64 q, %rd1;\nld.shared.b32 %rd0, [q+4];\n"
            "selp.b64 %rd0, q, %rd1, !p;\n}")
    fn = parse_module(entry(body)).entries["k"]
    setp, mov, ld, selp = fn.body[:4]
    assert setp.operands[0] == Reg("p#1")
    assert mov.guard == ("p#1", True) and mov.operands[0] == Reg("q#1")
    assert ld.operands[1] == Addr(Reg("q#1"), 4)
    assert selp.operands[1] == Reg("q#1") and selp.operands[3] == Not(Reg("p#1"))


def test_a_ptr_attribute_names_the_pointee_space_not_the_variables() -> None:
    """ISA: ``.param .u64 .ptr .shared .align 8 p``: p is a parameter that points into shared memory."""
    fn = parse_module(entry(".param .u64 .ptr .shared .align 8 p;\n.local .b32 .ptr .global q;")).entries["k"]
    assert [(v.name, v.space, v.is_pointer, v.align) for v in fn.variables] == [("p", "param", True, 8),
                                                                               ("q", "local", True, 4)]


def test_scoped_shared_variables_and_symbols_keep_their_names() -> None:
    body = "{\n.shared .align 4 .b32 buf[8];\n.reg .b64 %rd<2>;\nmov.u64 %rd0, buf;\nld.shared.b32 %rd1, [buf+8];\n}"
    fn = parse_module(entry(body)).entries["k"]
    assert [v.name for v in fn.variables] == ["buf#1"]
    assert fn.body[0].operands[1] == Sym("buf#1")
    assert fn.body[1].operands[1] == Addr(Sym("buf#1"), 8)


def test_file_and_loc_give_instruction_locations() -> None:
    body = ('.loc 1 10 3\nmov.b32 %r1, 1;\n.loc 1 20 5, function_name $f, inlined_at 1 10 3\n'
            "mov.b32 %r1, 2;")
    m = parse_module(HEAD + '.file 1 "k.cu"\n' + entry(".reg .b32 %r<2>;\n" + body)[len(HEAD):])
    first, second = m.entries["k"].body[:2]
    assert (str(first.loc), str(second.loc)) == ("k.cu:10", "k.cu:20")
    assert str(second.site) == "k.cu:10"


def test_a_triton_loc_comment_takes_the_outermost_call_site_of_its_nested_chain() -> None:
    # Triton writes the inlining chain as a comment, innermost first: "standard.py:170:27 @[ standard.py:191:40
    # @[ tri.py:26:19 ] ]" -- the user's line is the last (outermost) one, tri.py:26
    body = (".loc 2 170 27 // standard.py:170:27 @[ standard.py:191:40 @[ tri.py:26:19 ] ]\nmov.b32 %r1, 1;\n"
            ".loc 2 191 40 // standard.py:191:40 @[ tri.py:30:5 ]\nmov.b32 %r1, 2;")
    files = '.file 1 "/home/u/tri.py"\n.file 2 "/lib/triton/language/standard.py"\n'
    m = parse_module(HEAD + files + entry(".reg .b32 %r<2>;\n" + body)[len(HEAD):])
    first, second = m.entries["k"].body[:2]
    assert (str(first.loc), str(first.site)) == ("/lib/triton/language/standard.py:170", "/home/u/tri.py:26")
    assert (str(second.loc), str(second.site)) == ("/lib/triton/language/standard.py:191", "/home/u/tri.py:30")


@pytest.mark.parametrize(("ptx", "line", "message"), [
    (HEAD + ".global .align x .b32 a;\n", 4, ".align needs a positive integer"),
    (HEAD + ".global .align 0 .b32 a;\n", 4, ".align needs a positive integer"),
    (HEAD + ".global .v4 .b32 a;\n", 4, "vector variables"),
    (HEAD + ".global .b32;\n", 4, "cannot read declaration"),
    (HEAD + ".global .b32 a[x];\n", 4, "cannot read declared name"),
    (HEAD + ".global .b32 a[2] = {1, two};\n", 4, "initializer element 'two'"),
    (HEAD + ".address_size 32\n", 4, ".address_size 32 is not supported"),
    (HEAD + "mov.b32 %r1, 1;\n", 4, "unknown module-level statement"),
    (HEAD + "{\nret;\n}\n", 4, "a '{' block outside any function"),
    (HEAD + "}\n", 4, "unmatched '}'"),
    (HEAD + "L1:\n", 4, "label L1 outside any function"),
    (HEAD + ".visible .entry 9k()\n{\nret;\n}\n", 4, "cannot read the function name"),
    (HEAD + ".visible .entry k() .bogus 3\n{\nret;\n}\n", 4, "unknown function directive .bogus"),
    (HEAD + ".visible .entry k((.param .b32 a)\n{\nret;\n}\n", 4, "unbalanced parentheses"),
    (HEAD + ".visible .entry k()\n{\nret;\n", 4, "function k is not closed"),
    (entry(".reg %r1;"), 6, "cannot read register declaration"),
    (entry(".reg .v4 .b32 %r<2>;"), 6, "vector registers"),
    (entry(".reg .q32 %r<2>;"), 6, "unknown register type .q32"),
    (entry(".reg .b32 %r<2>, 9x;"), 6, "cannot read register name '9x'"),
    (entry(".loc 1 x 2"), 6, "cannot read '.loc 1 x 2'"),
    (entry(".file x"), 6, "cannot read '.file x'"),
    (entry(".bogus 1;"), 6, "unknown directive .bogus in a function body"),
    (entry("@ mov.b32 %r1, 1;"), 6, "cannot read the guard"),
    (entry("9mov.b32 %r1, 1;"), 6, "cannot read instruction"),
    (entry("mov.b32 %r1, 1;"), 6, "register %r1 is not declared"),
    (entry(".reg .b32 q;\nmov.b32 q, q+4;"), 7, r"register q cannot take an offset \(q\+4\)"),
    (HEAD + ".global .b32 a[2] = {1, 2} = {3};\n", 4, r"initializer element '2\s+=\s+3'"),
    (HEAD + ".global .b32 .align;\n", 4, ".align needs a positive integer"),
    (HEAD + ".extern .b32 a;\n", 4, "cannot read declaration"),
    (HEAD + ".visible .entry k() .entry\n{\nret;\n}\n", 4, "unknown function directive .entry"),
    (HEAD + ".visible .entry (.param .b32 r) k()\n{\nret;\n}\n", 4, "cannot read the function name"),
    (entry(".param .b32 r0;\ncall.uni (r0), f);"), 7, "cannot read operand 'f\\)'"),
    (entry(".reg .pred %p<3>;\nsetp.eq.s32 %p0|%p1|%p2, 1, 0;"), 7, "must name exactly two registers"),
    (entry(".reg .pred %p<2>;\n@!%p2 ret;"), 7, "guard register %p2 is not declared"),
    (entry("{\n.reg .pred p;\n}\n@p ret;"), 9, "guard register p is not declared"),
    # ptxas 13.0 compiles an .extern .func prototype in a body (tests/data/ptxas_reader_verdicts.json), not these
    (entry(".visible .func (.param .b32 r) f (.param .b32 a);"), 6, "must be an .extern .func prototype"),
    (entry(".extern .func f (.param .b32 a);\n.extern .func f (.param .b64 a);"), 7, "other parameters"),
])
def test_malformed_ptx_raises_naming_the_line(ptx: str, line: int, message: str) -> None:
    with pytest.raises(KernelError, match=message) as e:
        parse_module(ptx)
    assert e.value.line == line


def test_non_text_and_nested_headers_are_refused() -> None:
    with pytest.raises(KernelError, match="PTX must be text, got bytes"):
        parse_module(b".version 8.0")  # type: ignore[arg-type]
    with pytest.raises(KernelError, match="unexpected block") as e:
        parse_module(entry(".visible .entry inner()\n{\nret;\n}"))
    assert e.value.line == 6


def test_an_unknown_module_statement_is_quoted_to_60_characters() -> None:
    text = "bogus " + "x" * 100
    with pytest.raises(KernelError) as e:
        parse_module(HEAD + text + ";\n")
    assert repr(text[:60]) in str(e.value) and repr(text[:61]) not in str(e.value)


def test_a_target_keeps_every_comma_separated_option() -> None:
    m = parse_module(HEAD.replace(".target sm_90", ".target sm_90a, debug") + ".visible .entry k()\n{\nret;\n}\n")
    assert m.target == "sm_90a, debug"


def test_a_parenthesised_operand_list_keeps_all_its_items() -> None:
    decls = ".extern .func (.param .b32 r) f (.param .b64 a, .param .b64 b);\n"
    body = "{\n.param .b64 p0;\n.param .b64 p1;\n.param .b32 r0;\ncall.uni (r0), f, (p0, p1);\n}"
    m = parse_module(HEAD + decls + ".visible .entry k()\n{\n" + body + "\nret;\n}\n")
    call = next(i for i in m.entries["k"].body if i.root == "call")
    ret, _, args = call.operands
    assert [x.name.split("#")[0] for x in ret.items] == ["r0"]  # block-scoped names carry a scope suffix
    assert [x.name.split("#")[0] for x in args.items] == ["p0", "p1"]


def test_an_unexpected_block_is_named_by_its_first_60_characters() -> None:
    text = ".visible .entry inner_" + "x" * 70 + "()"
    with pytest.raises(KernelError) as info:
        parse_module(entry(text + "\n{\nret;\n}"))
    msg = str(info.value)
    assert f"unexpected block {text[:60]!r} inside function k" in msg, msg


def test_a_plain_variable_is_not_extern() -> None:
    m = parse_module(HEAD + ".global .b32 a;\n.extern .global .b32 b;\n")
    assert [(v.name, v.extern) for v in m.variables] == [("a", False), ("b", True)]


def test_a_bad_function_name_is_quoted_to_80_characters() -> None:
    text = ".visible .entry 9" + "x" * 100 + "()"
    with pytest.raises(KernelError) as e:
        parse_module(HEAD + text + "\n{\nret;\n}\n")
    assert repr(text[:80]) in str(e.value) and repr(text[:81]) not in str(e.value)


def test_a_directive_right_after_the_parameter_list_is_read() -> None:
    m = parse_module(HEAD + ".visible .entry k(.param .b32 n).maxntid 128\n{\nret;\n}\n")
    assert m.entries["k"].directives == {"maxntid": (128,)}
    assert [p.name for p in m.entries["k"].params] == ["n"]


def _sites(locs: list[str], files: str = '.file 1 "k.cu"\n') -> list[tuple[str, str]]:
    body = ".reg .b32 %r<2>;\n" + "".join(f"{loc}\nmov.b32 %r1, {k};\n" for k, loc in enumerate(locs))
    fn = parse_module(HEAD + files + entry(body)[len(HEAD):]).entries["k"]
    return [(str(i.loc), str(i.site)) for i in fn.body if i.root == "mov"]


def test_an_inline_chain_of_three_levels_keeps_the_outermost_call_site() -> None:
    # nvcc: ".loc F L C, function_name f, inlined_at F' L' C'" -- the site is the outermost caller
    assert _sites([".loc 1 10 3", ".loc 1 20 5, function_name $a, inlined_at 1 10 3",
                   ".loc 1 30 7, function_name $b, inlined_at 1 20 5"]) == [
        ("k.cu:10", "k.cu:10"), ("k.cu:20", "k.cu:10"), ("k.cu:30", "k.cu:10")]


def test_a_call_site_seen_for_the_first_time_is_the_site() -> None:
    assert _sites([".loc 1 20 5, function_name $a, inlined_at 1 10 3"]) == [("k.cu:20", "k.cu:10")]
    assert _sites([".loc 1 5 1", ".loc 1 20 5, function_name $a, inlined_at 1 10 3"]) == [
        ("k.cu:5", "k.cu:5"), ("k.cu:20", "k.cu:10")]


def test_a_deep_inline_chain_keeps_its_outermost_call_site() -> None:
    locs = [".loc 1 1 1"] + [f".loc 1 {d + 1} 1, function_name $f, inlined_at 1 {d} 1" for d in range(1, 70)]
    locs.append(".loc 1 200 1, function_name $g, inlined_at 1 69 1")  # a second call from level 69
    assert _sites(locs)[-2:] == [("k.cu:70", "k.cu:1"), ("k.cu:200", "k.cu:1")]


def test_a_later_call_from_an_earlier_inlined_function_reaches_the_outermost_site() -> None:
    # 64 levels L1..L64 (line d), two calls from L64 (lines 100, 101), a new statement, then a call from line 101:
    # its chain is 101 -> 64 -> ... -> 1, so the site is line 1
    locs = [".loc 1 1 1"] + [f".loc 1 {d + 1} 1, function_name $f, inlined_at 1 {d} 1" for d in range(1, 63)]
    locs += [".loc 1 100 1, function_name $g, inlined_at 1 63 1", ".loc 1 101 1, function_name $g, inlined_at 1 63 1",
             ".loc 1 500 1", ".loc 1 600 1, function_name $h, inlined_at 1 101 1"]
    assert _sites(locs)[-4:] == [("k.cu:100", "k.cu:1"), ("k.cu:101", "k.cu:1"), ("k.cu:500", "k.cu:500"),
                                 ("k.cu:600", "k.cu:1")]


def test_a_triton_site_takes_the_file_whose_path_ends_with_the_comment_name() -> None:
    files = '.file 1 "/lib/triton/language/standard.py"\n.file 2 "/home/u/tri.py"\n.file 3 "tri2.py"\n'
    locs = [".loc 1 191 40 // standard.py:191:40 @[ tri.py:30:5 ]", ".loc 1 191 40 // standard.py:191:40 @[ tri2.py:7:1 ]"]
    assert _sites(locs, files) == [("/lib/triton/language/standard.py:191", "/home/u/tri.py:30"),
                                   ("/lib/triton/language/standard.py:191", "tri2.py:7")]


def test_a_file_directive_after_the_function_still_names_its_locations() -> None:
    m = parse_module(entry(".reg .b32 %r1;\n.loc 1 10 3\nmov.b32 %r1, 1;") + '.file 1 "late.cu"\n')
    assert str(m.entries["k"].body[0].loc) == "late.cu:10"


def test_an_address_of_a_module_variable_keeps_its_symbol() -> None:
    m = parse_module(HEAD + ".shared .b32 g[4];\n" + entry(".reg .b32 %r1;\nld.shared.b32 %r1, [g+4];")[len(HEAD):])
    assert m.entries["k"].body[0].operands[1] == Addr(Sym("g"), 4)


def test_body_prototypes_and_pragmas_are_ignored() -> None:
    body = ('.pragma "nounroll";\n.alias f, g;\nprototype_0 : .callprototype ()_ (.param .b32 _, .param .b64 _);\n'
            ".reg .b32 %r1;\nmov.b32 %r1, 1;")
    fn = parse_module(entry(body)).entries["k"]
    assert fn.directives == {} and fn.variables == []
    assert [i.root for i in fn.body] == ["mov", "ret"]


def test_sibling_scopes_get_their_own_names_and_labels() -> None:
    body = ("{\n.reg .pred p;\nL: setp.eq.s32 p, 1, 0;\n@p bra L;\n}\n"
            "{\n.reg .pred p;\nL: setp.eq.s32 p, 1, 0;\n@p bra L;\n}\nM: bra M;")
    fn = parse_module(entry(body)).entries["k"]
    s1, b1, s2, b2, b3 = fn.body[:5]
    assert (s1.operands[0], b1.guard, b1.operands) == (Reg("p#1"), ("p#1", False), (Sym("L#1"),))
    assert (s2.operands[0], b2.guard, b2.operands) == (Reg("p#2"), ("p#2", False), (Sym("L#2"),))
    assert b3.operands == (Sym("M"),)
    assert fn.labels == {"L#1": 0, "L#2": 2, "M": 4}


def test_every_function_of_a_module_is_read() -> None:
    m = parse_module(HEAD + ".visible .entry a()\n{\nret;\n}\n.visible .entry b()\n{\nret;\n}\n"
                     ".global .b32 g;\n")
    assert list(m.entries) == ["a", "b"] and [v.name for v in m.variables] == ["g"]


def test_a_loc_naming_an_undeclared_file_index_is_located_in_file_and_that_index() -> None:
    # only file 1 is declared: file index 3 has no name, so its lines read "file3:<line>" (not the line or column)
    assert _sites([".loc 3 10 7"]) == [("file3:10", "file3:10")]
    assert _sites([".loc 3 20 5, function_name $a, inlined_at 1 10 3"]) == [("file3:20", "k.cu:10")]


def test_an_alignment_of_one_byte_is_accepted() -> None:
    # ISA "Variables": .align takes a power of two; 1 is the smallest
    fn = parse_module(entry(".shared .align 1 .b8 s[3];")).entries["k"]
    assert [(v.name, v.align, v.count) for v in fn.variables] == [("s", 1, 3)]
    m = parse_module(HEAD + ".global .align 1 .b8 g[5];\n")
    assert [(v.name, v.align, v.count) for v in m.variables] == [("g", 1, 5)]


@pytest.mark.parametrize(("decl", "message"), [
    (".reg .b32;", "cannot read register declaration"),  # no name (ISA: .reg .type name)
    (".reg xb32 %r1;", "cannot read register declaration"),  # the type must be a dotted .type
    (".reg b32 %r1;", "cannot read register declaration"),
])
def test_a_register_declaration_without_a_dotted_type_and_a_name_is_refused(decl: str, message: str) -> None:
    with pytest.raises(KernelError, match=message) as e:
        parse_module(entry(decl))
    assert e.value.line == 6


def test_a_bare_register_of_a_closed_scope_does_not_hide_a_module_symbol_of_its_name() -> None:
    # ISA "Scope": names declared in a { } block are visible only inside it; after the block, p is the global p
    ptx = HEAD + (".global .align 4 .b32 p;\n.visible .entry k()\n{\n.reg .b64 %rd<2>;\n"
                  "{\n.reg .pred p;\nsetp.eq.u32 p, 1, 1;\n}\nmov.u64 %rd1, p;\nret;\n}\n")
    setp, mov, _ = parse_module(ptx).entries["k"].body
    assert setp.operands[0] == Reg("p#1")
    assert mov.operands == (Reg("%rd1"), Sym("p"))


def test_a_call_from_the_chain_s_first_entry_cuts_the_chain_there() -> None:
    # chains (outermost first), by the rule "inlined_at names an entry of the current chain: cut after it":
    # [10], [30], [30, 10], [30, 10, 30], [30, 10, 50] (inlined_at 10: entry 1), then inlined_at 30 names entry 0
    # only: [30, 60], site line 30.  The recorded callers of 30 and 10 (each other's, from lines 3 and 4) must not
    # replace the current chain.
    locs = [".loc 1 10 0", ".loc 1 30 0", ".loc 1 10 0, function_name $g, inlined_at 1 30 0",
            ".loc 1 30 0, function_name $h, inlined_at 1 10 0", ".loc 1 50 0, function_name $f, inlined_at 1 10 0",
            ".loc 1 60 0, function_name $f, inlined_at 1 30 0"]
    assert _sites(locs) == [("k.cu:10", "k.cu:10"), ("k.cu:30", "k.cu:30"), ("k.cu:10", "k.cu:30"),
                            ("k.cu:30", "k.cu:30"), ("k.cu:50", "k.cu:30"), ("k.cu:60", "k.cu:30")]


def test_a_later_call_from_a_level_past_64_still_reaches_the_outermost_site() -> None:
    # 70 levels L1..L70 (line d), a new statement, then a call from line 70: its chain is 70 -> 69 -> ... -> 1
    # (each level was inlined at the one before), so the site is line 1 however deep the chain is
    locs = [".loc 1 1 1"] + [f".loc 1 {d + 1} 1, function_name $f, inlined_at 1 {d} 1" for d in range(1, 70)]
    locs += [".loc 1 500 1", ".loc 1 600 1, function_name $h, inlined_at 1 70 1"]
    assert _sites(locs)[-2:] == [("k.cu:500", "k.cu:500"), ("k.cu:600", "k.cu:1")]

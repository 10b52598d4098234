"""PTX statement splitter (layoutalg.kernel.ptx.lexer): initializer braces are not blocks, debug sections are
skipped whole, and unterminated input raises KernelError naming the line where it starts."""

from __future__ import annotations

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.lexer import split_statements


def test_initializer_braces_stay_inside_the_statement_and_sections_are_skipped() -> None:
    out = split_statements(".global .b32 a[2] = {1, 2};\n.section .debug_info\n{\n.b8 1\n}\n.version 8.0\n")
    assert [(s.kind, s.text, s.line) for s in out] == [("stmt", ".global .b32 a[2] = {1, 2}", 1),
                                                      ("stmt", ".version 8.0", 6)]


@pytest.mark.parametrize(("text", "line", "message"), [
    (".version 8.0\n.section .debug_info {\n.b8 1\n", 2, "block is not closed"),
    (".version 8.0\nmov.b32 %r1, 1\n", 2, "is missing its ';'"),
    (".version 8.0\n{\nmov.b32 %r1, 1\n}\n", 3, "is missing its ';'"),
])
def test_unterminated_input_raises_naming_its_first_line(text: str, line: int, message: str) -> None:
    with pytest.raises(KernelError, match=message) as e:
        split_statements(text)
    assert e.value.line == line


def test_a_long_unterminated_statement_is_quoted_to_60_characters() -> None:
    body = "mov.b32 %r1, " + "1" * 100
    with pytest.raises(KernelError) as e:
        split_statements(".version 8.0\n" + body + "\n")
    assert repr(body[:60]) in str(e.value) and repr(body[:61]) not in str(e.value)
    with pytest.raises(KernelError) as e:
        split_statements("{\n" + body + "\n}\n")
    assert repr(body[:60]) in str(e.value) and repr(body[:61]) not in str(e.value)


def test_statements_are_immutable_hashable_values() -> None:
    first, again = split_statements("ret;"), split_statements("ret;")
    assert {first[0]} == {again[0]}
    with pytest.raises(AttributeError):
        first[0].text = "exit"  # type: ignore[misc]


def test_a_statement_over_several_lines_is_reported_at_its_first_line_and_comments_inside_are_dropped() -> None:
    out = split_statements("add.s32 %r1, // dest\n  %r2,\n  1;  \nret;\n")
    assert [(s.kind, s.text, s.line) for s in out] == [("stmt", "add.s32 %r1, \n  %r2,\n  1", 1), ("stmt", "ret", 4)]


def test_a_double_colon_in_an_opcode_is_kept_and_is_not_a_label() -> None:
    out = split_statements("L1: ld.shared::cta.b32 %r1, [%rd1];\n")
    assert [(s.kind, s.text, s.line) for s in out] == [("label", "L1", 1), ("stmt", "ld.shared::cta.b32 %r1, [%rd1]", 1)]


def test_an_initializer_is_not_a_function_block_even_after_an_entry_header() -> None:
    # "= {" opens an initializer (ISA "Variables"), never a body: the text stays one statement and lacks its ';'
    with pytest.raises(KernelError, match="is missing its ';'") as e:
        split_statements(".version 8.0\n.visible .entry k() = {\nret;\n}\n")
    assert e.value.line == 2


@pytest.mark.parametrize("head", [".visible .global", ".weak .global", ".extern .shared"])
def test_a_brace_after_a_variable_header_stays_in_the_statement(head: str) -> None:
    # only a .entry/.func header, an empty header (nested scope) or .section opens a block (module doc, ISA
    # "Syntax"); a brace after a linkage-qualified variable belongs to that statement, whatever it holds
    out = split_statements(f"{head} .b32 a[2] {{1, 2}};\nret;\n")
    assert [(s.kind, s.text, s.line) for s in out] == [("stmt", f"{head} .b32 a[2] {{1, 2}}", 1), ("stmt", "ret", 2)]

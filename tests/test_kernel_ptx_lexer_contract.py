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

"""Split PTX text into statements, each with the line it starts on.

PTX (ISA 8.x, "Syntax") is a sequence of statements: directives and instructions
end with ``;``; labels end with ``:``; ``{`` / ``}`` open and close blocks (a
function body, a nested scope such as nvcc's inline-asm blocks, a ``.section``).
Braces inside a statement (vector operands ``{%r1, %r2}``, initializers
``= {1, 2}``) belong to the statement.  Comments (``//`` and ``/* */``) are dropped;
string literals (``.file 1 "a.cu"``, ``.pragma "nounroll"``) are kept whole.

Each :class:`Statement` has ``kind`` ``"stmt"`` (text without the ``;``; the directives of
:data:`LINE_DIRECTIVES` -- ``.version``, ``.target``, ``.loc``, ``.maxntid`` ... -- end at the end of
their line instead), ``"label"``
(text = the label), ``"open"`` (text = the block's header, e.g. ``.visible .entry
k(...) .maxntid 128, 1, 1``, or empty for a nested scope) or ``"close"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from layoutalg.errors import KernelError

_LABEL = re.compile(r"^\s*([A-Za-z_$%][\w$]*)\s*:(?!:)")
#: directives that end at the end of their line (no ``;``)
LINE_DIRECTIVES = frozenset({".version", ".target", ".address_size", ".file", ".loc", ".maxntid", ".reqntid",
                             ".minnctapersm", ".maxnctapersm", ".maxnreg", ".reqnctapercluster", ".explicitcluster",
                             ".maxclusterrank", ".noreturn", ".abi_preserve", ".abi_preserve_control"})
_BLOCK_HEADERS = (".entry", ".func", ".section", ".visible", ".weak", ".extern", ".callprototype")


@dataclass(frozen=True)
class Statement:
    kind: str
    text: str
    line: int


def _is_block_header(text: str) -> bool:
    stripped = text.strip()
    if not stripped or "=" in stripped:
        return False
    head = stripped.split()[0]
    return head in _BLOCK_HEADERS and (".entry" in stripped or ".func" in stripped or head == ".section")


def split_statements(text: str) -> list[Statement]:
    """The statements of ``text`` in order (see the module doc)."""
    out: list[Statement] = []
    buf: list[str] = []
    nonempty = False  # buf holds more than whitespace
    start_line = 0
    line = 1
    depth = 0  # braces inside the current statement
    i, n = 0, len(text)

    def reset() -> None:
        nonlocal buf, nonempty
        buf = []
        nonempty = False

    def take_labels() -> None:
        """Move every ``label:`` at the start of the statement buffer into ``out``."""
        nonlocal buf, nonempty, start_line
        current = "".join(buf)
        at = start_line
        while True:
            m = _LABEL.match(current)
            if not m:
                break
            out.append(Statement("label", m.group(1), at))
            current = current[m.end():]
            body = current.lstrip()
            at = line - body.count("\n")
        buf = [current]
        nonempty = bool(current.strip())
        start_line = at

    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            if j < 0:
                raise KernelError("unterminated /* comment", line)
            line += text.count("\n", i, j)
            buf.append(" ")
            i = j + 2
            continue
        if c == "\n":
            if nonempty and depth == 0 and "".join(buf).split(None, 1)[0] in LINE_DIRECTIVES:
                out.append(Statement("stmt", "".join(buf).strip(), start_line))
                reset()
            else:
                buf.append(c)
            line += 1
            i += 1
            continue
        if c.isspace():
            buf.append(c)
            i += 1
            continue
        if not nonempty:
            start_line = line
            nonempty = True
        if c == '"':
            j = text.find('"', i + 1)
            if j < 0:
                raise KernelError("unterminated string literal", line)
            buf.append(text[i: j + 1])
            line += text.count("\n", i, j)
            i = j + 1
            continue
        if c == ":" and depth == 0:
            if i + 1 < n and text[i + 1] == ":":
                buf.append("::")
                i += 2
                continue
            buf.append(c)
            i += 1
            take_labels()
            continue
        if c == ";" and depth == 0:
            out.append(Statement("stmt", "".join(buf).strip(), start_line))
            reset()
            i += 1
            continue
        if c == "{" and depth == 0:
            current = "".join(buf)
            if not current.strip() or _is_block_header(current):
                header = " ".join(current.split())
                if header.startswith(".section"):  # debug data: line-based, no ';' -- skipped whole
                    j = text.find("}", i)
                    if j < 0:
                        raise KernelError(f"{header} block is not closed", start_line)
                    line += text.count("\n", i, j)
                    reset()
                    i = j + 1
                    continue
                out.append(Statement("open", header, start_line))
                reset()
                i += 1
                continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                if "".join(buf).strip():
                    raise KernelError(f"statement {''.join(buf).strip()[:60]!r} is missing its ';'", start_line)
                out.append(Statement("close", "", line))
                reset()
                i += 1
                continue
            depth -= 1
        buf.append(c)
        i += 1
    if nonempty and "".join(buf).split(None, 1)[0] in LINE_DIRECTIVES:
        out.append(Statement("stmt", "".join(buf).strip(), start_line))
    elif nonempty:
        raise KernelError(f"statement {''.join(buf).strip()[:60]!r} is missing its ';'", start_line)
    return out

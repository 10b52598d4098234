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
from dataclasses import dataclass, field

from layoutalg.errors import KernelError

_LABEL = re.compile(r"^\s*([A-Za-z_$%][\w$]*)\s*:(?!:)")
#: directives that end at the end of their line (no ``;``)
LINE_DIRECTIVES = frozenset({".version", ".target", ".address_size", ".file", ".loc", ".maxntid", ".reqntid",
                             ".minnctapersm", ".maxnctapersm", ".maxnreg", ".reqnctapercluster", ".explicitcluster",
                             ".maxclusterrank", ".noreturn", ".abi_preserve", ".abi_preserve_control"})
_BLOCK_HEADERS = (".entry", ".func", ".section", ".visible", ".weak", ".extern", ".callprototype")


@dataclass(frozen=True)
class Statement:
    """``raw``: the source from the statement's first character to its terminator (``;``, ``{``, the end of
    a line directive's line), comments blanked and line breaks kept, so :meth:`line_at` can name the line of
    any part of it (ptxas reports a function declaration where it ends, not where it starts)."""

    kind: str
    text: str
    line: int
    raw: str = field(default="", compare=False, repr=False)

    def line_at(self, index: int) -> int:
        """The line of ``raw[index]`` (``len(raw)``: the terminator's line)."""
        return self.line + self.raw.count("\n", 0, index)


def _is_block_header(text: str) -> bool:
    stripped = text.strip()
    if not stripped or "=" in stripped:
        return False
    head = stripped.split()[0]
    return head in _BLOCK_HEADERS and (".entry" in stripped or ".func" in stripped or head == ".section")


def _statement(kind: str, source: str, line: int) -> Statement:
    return Statement(kind, source.strip(), line, source.lstrip())


_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"[^"]*"|[;{}:\n]', re.S)


def split_statements(text: str) -> list[Statement]:
    """The statements of ``text`` in order (see the module doc)."""
    out: list[Statement] = []
    buf: list[str] = []
    nonempty = False  # buf holds more than whitespace
    start_line = 0
    line = 1
    depth = 0  # braces inside the current statement
    pos = 0
    n = len(text)

    def add_text(chunk: str) -> None:
        nonlocal nonempty, start_line
        if not nonempty and chunk.strip():
            nonempty = True
            start_line = line
        buf.append(chunk)

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
            at = line
        buf = [current]
        nonempty = bool(current.strip())
        start_line = at

    for m in _TOKEN.finditer(text):
        if m.start() < pos:  # inside a skipped .section block
            continue
        if m.start() > pos:
            add_text(text[pos: m.start()])
        pos = m.end()
        tok = m.group()
        c = tok[0]
        if tok.startswith("//"):
            if nonempty and "@[" in tok and "".join(buf).lstrip().startswith(".loc"):
                buf.append(" " + tok)  # Triton writes the inlining chain of a .loc in its comment
            continue
        if tok.startswith("/*"):
            line += tok.count("\n")
            buf.append(" " + "\n" * tok.count("\n"))  # its line breaks stay, for Statement.line_at
            continue
        if c == '"':
            add_text(tok)
            line += tok.count("\n")
            continue
        if c == "\n":
            if nonempty and depth == 0 and "".join(buf).split(None, 1)[0] in LINE_DIRECTIVES:
                out.append(_statement("stmt", "".join(buf), start_line))
                reset()
            else:
                buf.append(c)
            line += 1
            continue
        if c == ":" and depth == 0:
            if pos < n and text[pos] == ":":
                add_text("::")
                pos += 1
                continue
            add_text(":")
            take_labels()
            continue
        if c == ":":
            add_text(":")
            continue
        if c == ";" and depth == 0:
            if nonempty:
                out.append(_statement("stmt", "".join(buf), start_line))
            reset()
            continue
        if c == "{" and depth == 0:
            current = "".join(buf)
            if not current.strip() or _is_block_header(current):
                header = " ".join(current.split())
                open_line = start_line if nonempty else line
                if header.startswith(".section"):  # debug data: line-based, no ';' -- skipped whole
                    j = text.find("}", pos)
                    if j < 0:
                        raise KernelError(f"{header} block is not closed", open_line)
                    line += text.count("\n", pos, j)
                    reset()
                    pos = j + 1
                    continue
                out.append(Statement("open", header, open_line, current.lstrip()))
                reset()
                continue
        if c == "{":
            depth += 1
            add_text(c)
            continue
        if c == "}":
            if depth == 0:
                if nonempty:
                    raise KernelError(f"statement {''.join(buf).strip()[:60]!r} is missing its ';'", start_line)
                out.append(Statement("close", "", line))
                reset()
                continue
            depth -= 1
            add_text(c)
            continue
        add_text(c)
    if pos < n:
        add_text(text[pos:])
    if nonempty and "".join(buf).split(None, 1)[0] in LINE_DIRECTIVES:
        out.append(_statement("stmt", "".join(buf), start_line))
    elif nonempty:
        raise KernelError(f"statement {''.join(buf).strip()[:60]!r} is missing its ';'", start_line)
    return out

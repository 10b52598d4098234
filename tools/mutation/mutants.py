"""Mutants of one Python source file, found on its AST and applied as text edits.

A mutant is one small change at one place: an operator swapped, a constant
shifted, a comparison flipped, a guard (``raise``) deleted, a boolean operator
swapped, a ``not`` dropped, a returned value replaced.  Each is a text edit of
the original source over the exact span of one AST node (or operator token), so
the rest of the file keeps its formatting and line numbers, and the mutated
line can be mapped to the tests that cover it.

Mutants that would not compile are dropped; the rest are listed in source order
with a stable id ``path:line:col:operator``.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import tokenize
from dataclasses import dataclass

BINOP_SWAPS: dict[type, tuple[type, ...]] = {
    ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.Mult: (ast.FloorDiv, ast.Add), ast.FloorDiv: (ast.Mult, ast.Mod),
    ast.Mod: (ast.FloorDiv,), ast.LShift: (ast.RShift,), ast.RShift: (ast.LShift,), ast.BitAnd: (ast.BitOr,),
    ast.BitOr: (ast.BitAnd, ast.BitXor), ast.BitXor: (ast.BitOr,), ast.Pow: (ast.Mult,), ast.Div: (ast.Mult,),
}
CMP_SWAPS: dict[type, tuple[type, ...]] = {
    ast.Lt: (ast.LtE,), ast.LtE: (ast.Lt,), ast.Gt: (ast.GtE,), ast.GtE: (ast.Gt,), ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,), ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,),
}
OP_TEXT: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.Pow: "**", ast.Div: "/", ast.Lt: "<", ast.LtE: "<=",
    ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
    ast.NotIn: "not in",
}


@dataclass(frozen=True)
class Mutant:
    """One text edit: replace ``source[start:end]`` (absolute character offsets) by ``replacement``."""

    path: str
    line: int
    col: int
    operator: str
    start: int
    end: int
    original: str
    replacement: str
    stmt_line: int = 0
    """First line of the innermost statement holding the mutant (coverage records only that line of a
    statement spanning several lines)."""

    @property
    def ident(self) -> str:
        return f"{self.path}:{self.line}:{self.col}:{self.operator}"

    def apply(self, source: str) -> str:
        return source[: self.start] + self.replacement + source[self.end:]

    def describe(self) -> str:
        return f"{self.ident}: {self.original!r} -> {self.replacement!r}"


class _Offsets:
    """(line, col) in utf-8 bytes, as the AST reports them -> absolute character offset."""

    def __init__(self, source: str) -> None:
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for text in self.lines:
            self.starts.append(self.starts[-1] + len(text))

    def __call__(self, line: int, col_bytes: int) -> int:
        text = self.lines[line - 1]
        return self.starts[line - 1] + len(text.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _operator_span(source: str, offsets: _Offsets, left: ast.AST, right: ast.AST, text: str) -> tuple[int, int] | None:
    """The span of operator token ``text`` between two operand nodes (skipping parentheses and comments)."""
    lo = offsets(left.end_lineno or 0, left.end_col_offset or 0)  # type: ignore[attr-defined]
    hi = offsets(right.lineno, right.col_offset)  # type: ignore[attr-defined]
    gap = source[lo:hi]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(gap).readline))
    except (tokenize.TokenError, IndentationError):
        return None
    words = text.split()
    found = [t for t in tokens if t.type in (tokenize.OP, tokenize.NAME) and t.string not in ("(", ")")]
    strings = [t.string for t in found]
    if strings != words:
        return None
    gap_offsets = _Offsets(gap)
    first, last = found[0], found[-1]
    return lo + gap_offsets(first.start[0], first.start[1]), lo + gap_offsets(last.end[0], last.end[1])


def _shifted_constants(value: object) -> list[str]:
    if isinstance(value, bool):
        return [repr(not value)]
    if isinstance(value, int):
        return [repr(value + 1)] + ([repr(value - 1)] if value != 0 else [])
    return []


def _annotation_nodes(tree: ast.Module) -> set[int]:
    """Nodes inside annotations, when ``from __future__ import annotations`` makes them strings, never run."""
    lazy = any(isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations"
               for a in n.names) for n in tree.body)
    if not lazy:
        return set()
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    return {id(n) for root in roots for n in ast.walk(root)}


def find_mutants(path: str, source: str) -> list[Mutant]:
    """Every mutant of ``source`` (the file at ``path``) that still compiles (annotations are left alone
    where ``from __future__ import annotations`` keeps them as strings: no mutant of one can run)."""
    tree = ast.parse(source)
    offsets = _Offsets(source)
    docstrings = _docstring_nodes(tree) | _annotation_nodes(tree)
    found: list[Mutant] = []
    statements = [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree) if isinstance(n, ast.stmt)]

    def stmt_line(line: int) -> int:
        holding = [first for first, last in statements if first <= line <= last]
        return max(holding, default=line)

    def add(node: ast.AST, operator: str, start: int, end: int, replacement: str) -> None:
        line = node.lineno  # type: ignore[attr-defined]
        found.append(Mutant(path, line, node.col_offset, operator, start, end, source[start:end], replacement,  # type: ignore[attr-defined]
                            stmt_line(line)))

    def span(node: ast.AST) -> tuple[int, int]:
        return (offsets(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                offsets(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    for node in ast.walk(tree):
        if id(node) in docstrings:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAPS:
            op_span = _operator_span(source, offsets, node.left, node.right, OP_TEXT[type(node.op)])
            if op_span:
                for other in BINOP_SWAPS[type(node.op)]:
                    add(node, "binop", *op_span, OP_TEXT[other])
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                op_span = _operator_span(source, offsets, left, right, OP_TEXT[type(op)])
                if op_span:
                    for other in CMP_SWAPS[type(op)]:
                        add(node, "compare", *op_span, OP_TEXT[other])
                left = right
        elif isinstance(node, ast.BoolOp):
            op_span = _operator_span(source, offsets, node.values[0], node.values[1],
                                     "and" if isinstance(node.op, ast.And) else "or")
            if op_span:
                add(node, "boolop", *op_span, "or" if isinstance(node.op, ast.And) else "and")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            start, end = span(node)
            add(node, "drop_not", start, end, "(" + ast.get_source_segment(source, node.operand, padded=False) + ")")  # type: ignore[operator]
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            start, end = span(node)
            add(node, "drop_neg", start, end, ast.get_source_segment(source, node.operand) or "0")
        elif id(node) in docstrings:
            continue
        elif isinstance(node, ast.Constant):
            start, end = span(node)
            for replacement in _shifted_constants(node.value):
                add(node, "constant", start, end, replacement)
        elif isinstance(node, ast.Raise):
            start, end = span(node)
            add(node, "delete_raise", start, end, "pass")
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):  # `return None` -> itself
            start, end = span(node)
            add(node, "return_none", start, end, "return None")
    found.sort(key=lambda m: (m.start, m.operator, m.replacement))
    # two operators of one node (a chained comparison ``a <= 0 <= b``) share the node's line:col: the second and
    # later get ``#k`` after their operator name, so every mutant has its own ident
    seen: dict[tuple[str, str], int] = {}
    unique = []
    for m in found:
        count = seen[(m.ident, m.replacement)] = seen.get((m.ident, m.replacement), 0) + 1
        unique.append(m if count == 1 else dataclasses.replace(m, operator=f"{m.operator}#{count}"))
    return [m for m in unique if _compiles(m.apply(source), path)]


def _compiles(source: str, path: str) -> bool:
    try:
        compile(source, path, "exec")
    except (SyntaxError, ValueError):
        return False
    return True

"""No regular expression in layoutalg, and no parser of user text, is super-linear on adversarial input.

Two layers:

* every literal pattern in the package's source (``re.compile(r"...")``, ``re.match(r"...", ...)``, ...) is
  found with :mod:`ast` and run (``search``, ``fullmatch``, ``findall``) on long runs of each character it
  mentions, with and without a spoiling last character -- the inputs that make nested or overlapping
  quantifiers backtrack.  A quadratic pattern takes a second or more on 20,000 characters, a linear one
  milliseconds;
* every public parser of user strings gets the same treatment end to end, 20,000 characters long (the issue's
  case: the instruction parser took 17 s), and must answer or raise a :class:`LayoutError`.

Time is CPU time of this process, boxed (:mod:`timebox`): a runaway call is stopped at its budget, so a
regression fails in seconds instead of hanging, and a busy machine does not fail the test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from timebox import OverBudgetError, within

from layoutalg.errors import LayoutError

PACKAGE = Path(__file__).resolve().parents[2] / "layoutalg"
RE_FUNCTIONS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}
LIMIT_SECONDS = 1.0
PATTERN_LIMIT_SECONDS = 0.5


def literal_patterns() -> list[tuple[str, str]]:
    """``(where, pattern)`` for every string-literal pattern passed to ``re.<function>`` in the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RE_FUNCTIONS
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.append((f"{path.relative_to(PACKAGE.parent)}:{node.lineno}", node.args[0].value))
    return found


PATTERNS = literal_patterns()


def spoilers(pattern: str, length: int) -> list[str]:
    """Long runs of every character the pattern mentions (and of a space, a letter, a digit), alone and spoiled
    by a character that matches nothing; two runs around each punctuation mark of the pattern (``' '*n + ',' +
    ' '*n`` made the old instruction regex take seconds); and alternating pairs."""
    chars = sorted({c for c in pattern if c.isprintable() and c not in "\\^$?*+{}|"} | {" ", "a", "1", "_", ","})
    marks = [c for c in chars if not c.isalnum() and c != " "]
    half = length // 2
    out = []
    for c in chars:
        out += [c * length, c * length + "\x00", "\x00" + c * length]
    out += [run * half + mark + run * half + "\x00" for run in " a1" for mark in marks]
    out += [(a + b) * half + "\x00" for a in "a1 _,<[(" for b in "a1 _,=<[(" if a != b]
    return out


def cpu_seconds(fn: Callable[[], Any], budget: float) -> float:
    """CPU seconds ``fn`` took (a LayoutError counts as an answer); ``inf`` if it ran past ``budget``."""
    def call() -> None:
        try:
            fn()
        except LayoutError:
            pass

    try:
        return within(budget, call)[1]
    except OverBudgetError:
        return float("inf")


def test_the_package_has_literal_patterns_to_check() -> None:
    assert len(PATTERNS) >= 10, PATTERNS  # the walker found them (an empty list would make the test below vacuous)


@pytest.mark.parametrize("where, pattern", PATTERNS, ids=[w for w, _ in PATTERNS])
def test_every_literal_pattern_is_linear_on_long_runs(where: str, pattern: str) -> None:
    compiled = re.compile(pattern)
    slow = []
    for text in spoilers(pattern, 20_000):
        for op in (compiled.search, compiled.fullmatch, compiled.findall):
            seconds = cpu_seconds(lambda op=op, text=text: op(text), PATTERN_LIMIT_SECONDS)
            if seconds > PATTERN_LIMIT_SECONDS:
                slow.append((op.__name__, repr(text[:12]), len(text), round(seconds, 2)))
    assert not slow, f"{where}: {pattern!r} backtracks: {slow[:3]}"


def _parsers() -> list[tuple[str, Callable[[str], Any]]]:
    from layoutalg import interop
    from layoutalg.banks.instruction import parse_instruction
    from layoutalg.core.notation import parse_layout
    from layoutalg.swizzle.notation import parse
    from layoutalg.swizzle.triton import parse_triton

    return [("parse_instruction", parse_instruction), ("interop.from_string", interop.from_string),
            ("interop.from_cpp", interop.from_cpp), ("swizzle.notation.parse", parse),
            ("core.notation.parse_layout", parse_layout), ("parse_triton", parse_triton)]


ADVERSARIAL_TEXTS = {
    "spaces then junk": "ld.shared" + " " * 20_000 + "x",
    "spaces, comma, junk": " " * 20_000 + ", x",
    "word run in a Triton attribute": "#ttg.linear<{" + "a" * 20_000 + "}>",
    "unclosed Triton basis": "#ttg.linear<{a = [" + "1," * 10_000 + "}>",
    "Triton lines": "a=1 -> (" + "1," * 10_000,
    "nested parentheses": "(" * 10_000 + "1" + ")" * 10_000 + ":1",
    "nested C++ templates": "Layout<" + "Shape<" * 3_000 + "_1" + ">" * 3_000 + ">",
    "many commas": "(" + "1," * 10_000 + "1):(" + "1," * 10_000 + "1)",
    "swizzle prefixes": "Sw<" * 7_000,
    "pycute swizzle prefixes": "SW_1_" * 4_000,
    "dots": "." * 20_000,
    "digits": "9" * 20_000,
}


@pytest.mark.parametrize("name", list(ADVERSARIAL_TEXTS))
def test_parsers_answer_or_refuse_long_text_within_a_second(name: str) -> None:
    """Each public parser of user strings returns or raises a LayoutError on 20,000 adversarial characters, in
    well under a second of CPU (the instruction parser took 17 s on the first case before its regex was fixed)."""
    text = ADVERSARIAL_TEXTS[name]
    for parser_name, parser in _parsers():
        seconds = cpu_seconds(lambda parser=parser: parser(text), LIMIT_SECONDS)
        assert seconds < LIMIT_SECONDS, f"{parser_name} took more than {LIMIT_SECONDS} s on {name!r}"

"""PyCuTe's documented examples as a test module the case recorder runs.

PyCuTe's own ``test/test_docstring_examples.py`` evaluates every example in every docstring of the ``pycute``
package, so those examples are inputs PyCuTe's unit tests exercise.  Their form is PyCuTe's house style (stated in
its ``scripts/gen_api_reference.py``): a docstring's sections are headed by one of :data:`SECTIONS` alone on a line
with a colon; under ``Examples:`` a line is

* ``f(x) == y``: an assertion (any expression: it must be true),
* ``f(bad) -> ValueError``: an expected failure (a builtin exception name),
* ``name = ...``: a statement, binding a name for the lines after it;

a line indented past the section's own level continues the one before, a trailing ``# ...`` is prose, and the
lines of one docstring share a namespace.  The documented docstrings are the module's own, and those of its public
functions and classes (names not starting with ``_``) and of every method of those classes.

:func:`example_module` turns one source file into a module of one ``unittest`` class, one test method per
docstring, each example one statement placed at its line in the source file, so that the recorder
(``tools/extract_pycute_cases.py``) records each case with the file and line where PyCuTe documents it.  Nothing
of PyCuTe is executed: only its text is read.
"""

from __future__ import annotations

import ast
import inspect
import re

#: The section headings of PyCuTe's docstrings.
SECTIONS = ("Args", "Pre-conditions", "Post-conditions", "Notable consequences", "Examples")
_HEADING = re.compile(rf"^\s*({'|'.join(SECTIONS)}):\s*$")


def documented(tree: ast.Module) -> list[tuple[str, ast.Constant]]:
    """``(name, docstring node)`` of the module, its public functions and classes, and their classes' methods."""
    found: list[tuple[str, ast.Constant]] = []
    own = _docstring_node(tree)
    if own is not None:
        found.append(("module", own))
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.name.startswith("_"):
            continue
        doc = _docstring_node(node)
        if doc is not None:
            found.append((node.name, doc))
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                method_doc = _docstring_node(member) if isinstance(member, ast.FunctionDef) else None
                if method_doc is not None:
                    found.append((f"{node.name}.{member.name}", method_doc))  # type: ignore[union-attr]
    return found


def _docstring_node(node: ast.AST) -> ast.Constant | None:
    body = getattr(node, "body", None)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0].value
    return None


def examples(doc: str) -> list[tuple[int, str]]:
    """The examples of a docstring's ``Examples:`` sections: ``(index of the first line in the cleaned docstring,
    the example's text, continuation lines joined by newlines)``."""
    lines = inspect.cleandoc(doc).splitlines()
    out: list[tuple[int, str]] = []
    in_examples = False
    section_lines: list[tuple[int, str]] = []

    def close() -> None:
        if not in_examples:
            return
        body = [(k, text) for k, text in section_lines if text.strip()]
        cut = min((len(text) - len(text.lstrip()) for _, text in body), default=0)
        for k, text in body:
            text = text[cut:]
            if text[0].isspace() and out:
                out[-1] = (out[-1][0], out[-1][1] + "\n" + text)
            else:
                out.append((k, text))

    for k, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading:
            close()
            in_examples = heading.group(1) == "Examples"
            section_lines = []
            continue
        section_lines.append((k, line))
    close()
    return out


def statement(example: str) -> str:
    """The Python statement PyCuTe's runner makes of one example: comments dropped and lines rejoined; ``expr ->
    Exc`` a ``pytest.raises`` block, an expression an ``assert``, anything else as written."""
    code = " ".join(part.split("#")[0].strip() for part in example.splitlines()).strip()
    expression, arrow, expected = code.partition("->")
    if arrow:
        return f"with pytest.raises({expected.strip()}):\n    {expression.strip()}"
    try:
        compile(code, "<example>", "eval")
    except SyntaxError:
        return code
    return f"assert {code}"


def _first_line(doc_node: ast.Constant) -> int:
    """The source line of the cleaned docstring's first line (leading blank lines are dropped by cleaning)."""
    lead = 0
    for raw in doc_node.value.splitlines():
        if raw.strip():
            break
        lead += 1
    return doc_node.lineno + lead


def example_module(source: str, name: str) -> tuple[ast.Module, int]:
    """A module ``from pycute import *`` with one ``unittest.TestCase`` whose ``test_<docstring>`` methods hold the
    examples, each at its source line; and the number of examples."""
    tree = ast.parse(source, name)
    header = ast.parse("import unittest\nimport array\nimport ctypes\nfrom fractions import Fraction\nimport pytest\n"
                       "from pycute import *\n\nclass TestDocstringExamples(unittest.TestCase):\n    pass\n")
    test_class = header.body[-1]
    assert isinstance(test_class, ast.ClassDef)
    test_class.body = []
    count = 0
    for qualname, doc_node in documented(tree):
        found = examples(doc_node.value)
        if not found:
            continue
        first = _first_line(doc_node)
        body: list[ast.stmt] = []
        for index, text in found:
            try:
                parsed = ast.parse(statement(text), mode="exec")
            except SyntaxError:
                continue  # an example not even Python: PyCuTe's runner fails it too
            ast.increment_lineno(parsed, first + index - 1)
            body.extend(parsed.body)
            count += 1
        if not body:
            continue
        method = ast.parse(f"def test_{qualname.replace('.', '_')}(self):\n    pass").body[0]
        assert isinstance(method, ast.FunctionDef)
        ast.increment_lineno(method, first - 1)  # the method at the docstring; its statements at their lines
        method.body = body
        test_class.body.append(method)
    if not test_class.body:
        test_class.body = [ast.Pass()]
    ast.fix_missing_locations(header)
    return header, count


def doc_cases(source: str, rel: str) -> list[dict[str, object]]:
    """Every documented example of one source file as a ``doc`` case, judged by running it as PyCuTe's runner
    does (``tests/oracles/pycute_parity.py``): ``code`` (comments dropped, lines rejoined), ``expect`` (``true``:
    an expression that must hold; ``raises``: with ``raises`` the exception named; ``setup``: a statement),
    and ``setup``: the statements before it in the same docstring (they share a namespace)."""
    out: list[dict[str, object]] = []
    for qualname, doc_node in documented(ast.parse(source, rel)):
        first = _first_line(doc_node)
        out.extend(_cases_of([(first + index, text) for index, text in examples(doc_node.value)], rel, qualname))
    return out


def api_reference_cases(markdown: str, rel: str) -> list[dict[str, object]]:
    """The same ``doc`` cases from PyCuTe's generated ``docs/08_api_reference.md`` (rendered from the docstrings
    at one commit): each ``*Examples:*`` heading is followed by a fenced block of examples, one docstring's."""
    lines = markdown.splitlines()
    out: list[dict[str, object]] = []
    k = 0
    while k < len(lines):
        if lines[k].strip() != "*Examples:*":
            k += 1
            continue
        k += 1
        while k < len(lines) and not lines[k].startswith("```"):
            k += 1
        k += 1
        found: list[tuple[int, str]] = []
        while k < len(lines) and not lines[k].startswith("```"):
            text = lines[k]
            if text.strip():
                if text[0].isspace() and found:
                    found[-1] = (found[-1][0], found[-1][1] + "\n" + text)
                else:
                    found.append((k + 1, text))
            k += 1
        out.extend(_cases_of(found, rel, "api reference"))
    return out


def _cases_of(found: list[tuple[int, str]], rel: str, test: str) -> list[dict[str, object]]:
    """``doc`` cases of one docstring's examples (``(line, text)``), sharing its setup statements."""
    out: list[dict[str, object]] = []
    setup: list[str] = []
    for line, text in found:
        code = " ".join(part.split("#")[0].strip() for part in text.splitlines()).strip()
        expression, arrow, expected = code.partition("->")
        case: dict[str, object] = {"file": rel, "line": line, "test": test, "kind": "doc", "setup": list(setup)}
        if arrow:
            case.update(code=expression.strip(), expect="raises", raises=expected.strip())
        else:
            try:
                compile(code, "<example>", "eval")
                case.update(code=code, expect="true")
            except SyntaxError:
                case.update(code=code, expect="setup")
                setup.append(code)
        out.append(case)
    return out


__all__ = ["SECTIONS", "documented", "examples", "statement", "example_module", "doc_cases", "api_reference_cases"]

"""The Python session shown in README.md runs as written (doctest over its ```pycon blocks)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_session() -> None:
    blocks = re.findall(r"```pycon\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README.md shows no Python session"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for number, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README.md pycon block {number}", str(README), 0)
        assert test.examples
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} README example(s) failed (see output above)"

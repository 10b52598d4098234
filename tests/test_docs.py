"""Every ``layoutalg`` command shown in README.md and docs/*.md runs, and shows what the docs say.

The extractor is generic: in fenced blocks tagged ``console``, ``bash``, ``sh``
or ``shell``, a line whose command (after an optional ``$ ``) starts with
``layoutalg`` or ``pytest`` is run in a shell whose PATH starts with this Python's
``bin`` folder (so it is this install's ``layoutalg``), in a scratch folder that links
the repository's top-level folders (``proofs/``, ``examples/``, ...), so any
picture it writes lands there.  A trailing ``# exits N`` comment states the
expected exit status (default 0).  In ``console`` blocks, the lines after a
command up to the next ``$`` line are its shown output: each one, with numbers
that carry a decimal point masked (timings) and runs of spaces squeezed, must
appear in the real output, in order (``...`` lines skip).

The theorem files under ``examples/`` also run, through ``layoutalg prove``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_TAGS = {"console", "bash", "sh", "shell", "shell-session"}
EXIT_COMMENT = re.compile(r"\s+#\s*exits?\s+(\d+)\s*$")
COMMAND = re.compile(r"^(layoutalg|pytest|python3? -m pytest)(\s|$)")


@dataclass(frozen=True)
class DocCommand:
    file: str
    line: int
    command: str
    expected_exit: int
    shown_output: tuple[str, ...]

    @property
    def test_id(self) -> str:
        return f"{self.file}:{self.line}"


def extract_commands(text: str, file: str) -> list[DocCommand]:
    """The ``layoutalg`` commands of one Markdown text (see the module docstring)."""
    commands: list[DocCommand] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        fence = re.match(r"^\s*(```+|~~~+)\s*([\w-]*)", lines[i])
        if not fence:
            i += 1
            continue
        marker, tag = fence.group(1), fence.group(2).lower()
        body_start = i + 1
        j = body_start
        while j < len(lines) and not lines[j].strip().startswith(marker):
            j += 1
        if tag in SHELL_TAGS:
            commands.extend(_block_commands(lines[body_start:j], body_start + 1, file, tag == "console"))
        i = j + 1
    return commands


def _block_commands(body: list[str], first_line: int, file: str, console: bool) -> list[DocCommand]:
    found: list[DocCommand] = []
    k = 0
    while k < len(body):
        raw = body[k]
        stripped = raw.strip()
        prompt = stripped.startswith("$ ")
        command = stripped[2:].strip() if prompt else stripped
        line_no = first_line + k
        k += 1
        while command.endswith("\\") and k < len(body):
            command = command[:-1].rstrip() + " " + body[k].strip()
            k += 1
        output: list[str] = []
        if console and prompt:
            while k < len(body) and not body[k].strip().startswith("$ "):
                output.append(body[k])
                k += 1
        if not COMMAND.match(command):
            continue
        expected = 0
        exit_match = EXIT_COMMENT.search(command)
        if exit_match:
            expected = int(exit_match.group(1))
            command = command[: exit_match.start()]
        found.append(DocCommand(file, line_no, command.strip(), expected, tuple(output)))
    return found


def all_doc_commands() -> list[DocCommand]:
    commands = []
    for path in DOCS:
        if path.exists():
            commands.extend(extract_commands(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()))
    return commands


def normalise(line: str) -> str:
    line = re.sub(r"\d+\.\d+", "#", line)
    return " ".join(line.split())


def shown_lines_appear(shown: tuple[str, ...], actual: str) -> str | None:
    """``None`` if every shown line appears in ``actual`` in order, else the first missing line."""
    actual_lines = [normalise(x) for x in actual.splitlines()]
    position = 0
    for line in shown:
        wanted = normalise(line)
        if not wanted or wanted in ("...", "…"):
            continue
        while position < len(actual_lines) and actual_lines[position] != wanted:
            position += 1
        if position == len(actual_lines):
            return line
        position += 1
    return None


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder linking the repository's top-level entries, so relative paths in the docs resolve."""
    folder = tmp_path_factory.mktemp("docs_cwd")
    for entry in ROOT.iterdir():
        if entry.name in (".git", ".venv", "build") or entry.name.startswith("."):
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


def run_shell(command: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("TMPDIR", str(cwd))
    env["COLUMNS"] = "120"
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


DOC_COMMANDS = all_doc_commands()


@pytest.mark.parametrize("doc", DOC_COMMANDS, ids=[d.test_id for d in DOC_COMMANDS])
def test_documented_command(doc: DocCommand, scratch: Path) -> None:
    proc = run_shell(doc.command, scratch)
    context = f"{doc.file}:{doc.line}: $ {doc.command}\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
    assert proc.returncode == doc.expected_exit, context
    missing = shown_lines_appear(doc.shown_output, proc.stdout + proc.stderr)
    assert missing is None, f"shown output line not produced: {missing!r}\n{context}"


def test_docs_show_commands() -> None:
    """The docs do show commands (an empty extraction would make the test above vacuous)."""
    assert len(DOC_COMMANDS) >= 5, [d.test_id for d in DOC_COMMANDS]


def test_extractor_reads_console_and_bash_blocks() -> None:
    text = "\n".join([
        "```console",
        "$ layoutalg show '(2,2):(2,1)' \\",
        "    --json",
        "{",
        "$ echo hi",
        "```",
        "```bash",
        "layoutalg prove x/   # exits 1",
        "pip install layoutalg",
        "pytest proofs/",
        "```",
        "```python",
        "layoutalg show no",
        "```",
    ])
    found = extract_commands(text, "t.md")
    assert [(d.command, d.expected_exit, d.shown_output, d.line) for d in found] == [
        ("layoutalg show '(2,2):(2,1)' --json", 0, ("{",), 2),
        ("layoutalg prove x/", 1, (), 8),
        ("pytest proofs/", 0, (), 10),
    ]
    assert shlex.split(found[0].command)[2] == "(2,2):(2,1)"


def test_shown_output_matching() -> None:
    assert shown_lines_appear(("a  b", "...", "c 1.25s"), "x\na b\ny\nc 0.03s\n") is None
    assert shown_lines_appear(("c", "a b"), "a b\nc\n") == "a b"


EXAMPLES = sorted((ROOT / "examples").glob("**/*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.relative_to(ROOT).as_posix() for p in EXAMPLES])
def test_example_theorem_file(example: Path, scratch: Path) -> None:
    """Each theorem file under examples/ proves (or refutes) exactly what it says it does."""
    proc = run_shell(f"layoutalg prove {shlex.quote(str(example))}", scratch)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]

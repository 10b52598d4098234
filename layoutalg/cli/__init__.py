"""``layoutalg``: the command line.

Subcommands (``layoutalg SUBCOMMAND --help`` for each):

  show LAYOUT             print_layout-style table; --tv ATOM for thread-value tables
  banks LAYOUT            wavefronts of each shared-memory instruction of an access
  suggest-swizzle         the cheapest swizzle (or padding) that removes the conflicts
  prove PATH...           run theorem files (layoutalg.prove.runner does the work)
  prove-fragment          prove a copy (ldmatrix/stmatrix/movmatrix) moves exactly an mma fragment
  kernel FILE.ptx         trace a kernel's PTX: every shared-memory access, its wavefronts and Nsight's counters
  gpu-check               run the hardware suite on a GPU (layoutalg.gpu.check does the work)
  convert LAYOUT          the same layout in CuTe C++, CuTe DSL, pycute (and Triton) notation
  atoms                   the instruction atoms layoutalg knows
  kernel FILE.ptx         trace a kernel's PTX: shared-memory wavefronts per instruction and per launch

Every subcommand takes ``--json`` (machine-readable output on stdout, for CI).
The exit statuses are :data:`layoutalg.cli.common.EXIT_CODES` (printed by ``--help``).
Every error is a :class:`UsageError` with a hint by the time it is printed; a
:class:`LayoutError` that reaches :func:`main` untranslated still prints, with a
pointer to the subcommand's ``--help`` (a test checks that none does).
Heavy modules (z3, numpy, Pillow, CuPy) are imported only by the subcommand that
needs them, so ``layoutalg --help`` is fast.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from layoutalg.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    emit_json,
    first_line,
)
from layoutalg.cli.parser import COMMANDS, build_parser, parse_arguments
from layoutalg.errors import LayoutError

FALLBACK_HINT = "run layoutalg {command} --help for the accepted forms"
"""The hint of a LayoutError no command translated (tests/test_cli_errors.py checks none reaches it)."""


def _report_error(exc: LayoutError, as_json: bool, command: str) -> int:
    if isinstance(exc, UsageError):
        hint, code = exc.hint, exc.exit_code
        message = str(exc)
    else:
        hint, code = FALLBACK_HINT.format(command=command or "COMMAND").replace("  ", " "), EXIT_USAGE
        message = first_line(exc)
    if as_json:
        emit_json({"error": message, "type": type(exc).__name__, "hint": hint})
    else:
        sys.stderr.write(f"layoutalg: error: {message}\n  hint: {hint}\n")
    return code


def _global_flags_last(argv: list[str]) -> list[str]:
    """``layoutalg --json show X`` means ``layoutalg show X --json``: leading ``--json`` flags move behind the
    command, once (the rest of the line is left alone)."""
    lead = 0
    while lead < len(argv) and argv[lead] == "--json":
        lead += 1
    if not lead:
        return argv
    return argv[lead:] + ["--json"]


def _silence_stdout() -> None:
    """After the reader of stdout went away: point stdout at /dev/null so the final flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout is not a real file (tests capture it)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``layoutalg`` console script; returns the exit status (see ``layoutalg --help``)."""
    args_list = _global_flags_last(list(sys.argv[1:] if argv is None else argv))
    as_json = "--json" in args_list
    command = args_list[0] if args_list and args_list[0] in COMMANDS else ""
    try:
        try:
            code = _run(args_list, as_json)
        except SystemExit as exc:  # --help, and argparse inside a command's own module
            code = exc.code if isinstance(exc.code, int) else (EXIT_OK if exc.code is None else EXIT_USAGE)
        except LayoutError as exc:
            code = _report_error(exc, as_json, command)
        except KeyboardInterrupt:
            sys.stderr.write("layoutalg: interrupted\n")
            code = EXIT_INTERRUPTED
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # the reader closed the pipe (| head): stop quietly, whatever was running
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _run(args_list: list[str], as_json: bool) -> int:
    parser = build_parser()
    args = parse_arguments(parser, args_list)
    if args.version:
        from layoutalg import __version__

        if as_json:
            emit_json({"version": __version__})
        else:
            sys.stdout.write(f"layoutalg {__version__}\n")
        return EXIT_OK
    if not getattr(args, "run", None):
        if not as_json:
            parser.print_help()
        raise UsageError("no COMMAND given", "name one, e.g. layoutalg show '(8,8):(8,1)'; the commands are "
                         + ", ".join(COMMANDS))
    return int(args.run(args))


__all__ = ["main", "build_parser", "UsageError"]

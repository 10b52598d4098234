"""``layoutalg``: the command line.

Subcommands (``layoutalg SUBCOMMAND --help`` for each):

  show LAYOUT             print_layout-style table; --tv ATOM for thread-value tables
  banks LAYOUT            wavefronts of each shared-memory instruction of an access
  suggest-swizzle         the cheapest swizzle (or padding) that removes the conflicts
  prove PATH...           run theorem files (delegates to layoutalg.prove.runner)
  prove-fragment          prove a copy (ldmatrix/stmatrix/movmatrix) moves exactly an mma fragment
  gpu-check               run the hardware suite on a GPU (delegates to layoutalg.gpu.check)
  convert LAYOUT          the same layout in CuTe C++, CuTe DSL, pycute (and Triton) notation
  atoms                   the instruction atoms layoutalg knows
  kernel FILE.ptx         trace a kernel's PTX: shared-memory wavefronts per instruction and per launch

Every subcommand takes ``--json`` (machine-readable output on stdout, for CI).
Exit status: 0 success; 1 a check failed (a theorem's outcome, a conflict when
``--expect-conflict-free``); 2 bad input, with a message that says what to type;
3 undecided (``prove-fragment`` on a solver timeout).
Heavy modules (z3, numpy, Pillow, CuPy) are imported only by the subcommand that
needs them, so ``layoutalg --help`` is fast.
"""

from __future__ import annotations

import sys
from typing import Sequence

from layoutalg.cli.common import EXIT_OK, EXIT_USAGE, UsageError, emit_json
from layoutalg.cli.parser import build_parser
from layoutalg.errors import LayoutError

# --------------------------------------------------------------------------- delegation


def _delegate(module: str, argv: Sequence[str], install_hint: str) -> int:
    import importlib

    try:
        target = importlib.import_module(module)
    except ImportError as exc:
        raise UsageError(f"{module} is not available: {exc}", install_hint) from exc
    return int(target.run_cli(list(argv)) or 0)


DELEGATED = {
    "prove": ("layoutalg.prove.runner", "layoutalg prove needs the prover (z3-solver): pip install layoutalg"),
    "gpu-check": ("layoutalg.gpu.check", "gpu-check needs CuPy and an NVIDIA GPU: pip install 'layoutalg[gpu]'"),
}


def _wants_json(argv: Sequence[str]) -> bool:
    return "--json" in argv


def _report_error(exc: LayoutError, as_json: bool) -> int:
    hint = getattr(exc, "hint", "")
    if as_json:
        emit_json({"error": str(exc), "type": type(exc).__name__, "hint": hint})
    else:
        sys.stderr.write(f"layoutalg: error: {exc}\n")
        if hint:
            sys.stderr.write(f"  hint: {hint}\n")
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``layoutalg`` console script; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    while args_list and args_list[0] == "--json":  # ``layoutalg --json show ...`` means ``layoutalg show ... --json``
        args_list = args_list[1:] + ["--json"]
    as_json = _wants_json(args_list)
    try:
        if args_list and args_list[0] in DELEGATED:
            module, hint = DELEGATED[args_list[0]]
            return _delegate(module, args_list[1:], hint)
        parser = build_parser()
        args = parser.parse_args(args_list)
        if args.version:
            from layoutalg import __version__

            sys.stdout.write(f"layoutalg {__version__}\n")
            return EXIT_OK
        if not getattr(args, "run", None):
            parser.print_help()
            return EXIT_USAGE
        return int(args.run(args))
    except LayoutError as exc:
        return _report_error(exc, as_json)
    except KeyboardInterrupt:
        sys.stderr.write("layoutalg: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_OK


__all__ = ["main", "build_parser", "UsageError"]

"""``layoutalg prove-fragment``: the flagship theorem (a copy delivers exactly an mma fragment) in one line.

Exit status: 0 proved, 1 refuted, 3 unknown (a solver timeout), 2 bad input
with a ``hint:`` in this command's option names.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from layoutalg.cli.common import EXIT_FAILED, EXIT_OK, UsageError, emit_json, parse_layout, require_offsets, tiled
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError

EXIT_UNKNOWN = 3
EXAMPLES = (
    "examples:\n"
    "  layoutalg prove-fragment --copy ldmatrix.x4.trans --smem 'Sw<3,3,3> o _0 o (64,64):(64,1)' "
    "--mma mma.m16n8k16.f16 --operand B\n"
    "  layoutalg prove-fragment --copy ldmatrix.x4 --smem 'Sw<3,3,3> o _0 o ((8,16),64):((64,512),1)' "
    "--mma SM80_16x8x16_F32F16F16F32_TN --operand A --json\n"
    "  layoutalg prove-fragment --copy stmatrix.x4 --smem Layout_K_SW128_Atom --tile-to 64x64 "
    "--mma mma.m16n8k16.f16 --operand C --dtype bf16\n"
    "  layoutalg prove-fragment --copy movmatrix --mma mma.m16n8k16.f16.f16.f16.f16 --operand B --source C\n"
    "exit status: 0 proved, 1 refuted (the first wrong element is printed), 3 unknown (timeout), 2 bad input"
)
# Python keyword -> this command's option, for messages shared with layoutalg.prove.fragment_delivers
_OPTION_NAMES = (("along='row'", "--along row"), ("smem=", "--smem"), ("smem (", "--smem ("),
                 ("the smem tile", "the --smem tile"), ("source=", "--source"), ("dtype=", "--dtype"),
                 ("mma=", "--mma"), ("operand=", "--operand"))
_COPY_HINT = ("--copy takes ldmatrix or stmatrix with .x1, .x2 or .x4 and optionally .trans (e.g. ldmatrix.x4.trans), "
              "movmatrix, or a CuTe name (list them with: layoutalg atoms LDSM)")
_MMA_HINT = ("--mma takes mma.SHAPE.TYPE (e.g. mma.m16n8k16.f16, mma.m16n8k32.s8), mma.SHAPE.D.A.B.C "
             "(e.g. mma.m16n8k16.f16.f16.f16.f16) or a CuTe name (list them with: layoutalg atoms SM80_16x8)")


def add_prove_fragment(sub: Any) -> None:
    """Register the subcommand on the top-level parser's subparsers."""
    p = sub.add_parser(
        "prove-fragment", help="prove an ldmatrix/stmatrix/movmatrix moves exactly an mma fragment",
        description="Prove, from the PTX ISA, that for every tile of --smem, every lane, register and half, the "
                    "element --copy moves is the element the --mma fragment of --operand holds; or print the first "
                    "wrong element (lane, register, half, row, col) and what it should have been.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--copy", required=True, metavar="INSTR", help="ldmatrix.x4[.trans], stmatrix.x2[.trans], movmatrix, "
                                                                   "a PTX name or a CuTe name (SM75_U16x8_LDSM_T)")
    p.add_argument("--smem", metavar="LAYOUT", help="(row, col) of the operand -> smem element offset, e.g. "
                                                    "'Sw<3,3,3> o _0 o (64,64):(64,1)' (not for movmatrix)")
    p.add_argument("--mma", required=True, metavar="MMA", help="mma.m16n8k16.f16, mma.m16n8k32.s8, ... or a CuTe name")
    p.add_argument("--operand", required=True, metavar="OP", help="A, B, C or D (the accumulator)")
    p.add_argument("--dtype", metavar="T", help="element type as held, when it differs from the mma's (e.g. bf16 "
                                                "accumulators stored by stmatrix)")
    p.add_argument("--tile-to", metavar="MxN", help="repeat --smem (e.g. a smem atom) to MxN first (CuTe tile_to_shape)")
    p.add_argument("--along", choices=["col", "row", "column"], default="col",
                   help="where the fragments of one copy sit side by side when it carries several (default col)")
    p.add_argument("--source", default="C", metavar="OP", help="movmatrix: the operand whose fragment it reads (default C)")
    p.add_argument("--transpose", action="store_true", help="movmatrix: the target matrix is the source's transpose")
    p.add_argument("--timeout", type=float, default=None, metavar="S", help="solver time limit in seconds (default 10)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_cmd_prove_fragment)


def _cli_words(message: str) -> str:
    for python, option in _OPTION_NAMES:
        message = message.replace(python, option)
    return message


def _resolve_names(args: argparse.Namespace) -> tuple[Any, Any]:
    from layoutalg.atoms.short_names import copy_atom, mma_atom

    try:
        atom, bits = copy_atom(args.copy)
        copy = atom if bits is None else atom.bind(bits)  # Copy_Atom<OP, T> keeps its width, checked as in Python
    except LayoutError as exc:
        raise UsageError(f"--copy: {exc}", _COPY_HINT) from exc
    try:
        mma = mma_atom(args.mma)
    except LayoutError as exc:
        raise UsageError(f"--mma: {exc}", _MMA_HINT) from exc
    return copy, mma


def _cmd_prove_fragment(args: argparse.Namespace) -> int:
    from layoutalg.prove.fragment import fragment_delivers

    copy, mma = _resolve_names(args)
    for option, value in (("--operand", args.operand), ("--source", args.source)):
        if str(value).strip().upper() not in ("A", "B", "C", "D"):
            raise UsageError(f"{option} must be A, B, C or D, got {describe(value)}", f"e.g. {option} B (D is the accumulator, as C)")
    if args.timeout is not None and not args.timeout > 0:
        raise UsageError(f"--timeout must be a positive number of seconds, got {args.timeout}", "e.g. --timeout 30")
    smem = None
    if args.smem is not None:
        smem = tiled(parse_layout(args.smem, "--smem", args.dtype or _operand_type(mma, args.operand),
                                  shape=args.tile_to, shape_option="--tile-to"), args.tile_to)
        require_offsets(smem, "--smem")
    elif getattr(copy, "atom", copy).kind != "movmatrix":
        raise UsageError(f"{getattr(copy, 'atom', copy).kind} reads shared memory: give its layout with --smem",
                         "e.g. --smem 'Sw<3,3,3> o _0 o (64,64):(64,1)' ((row, col) of the operand -> element offset)")
    try:
        result = fragment_delivers(copy, smem, mma, args.operand, dtype=args.dtype, along=args.along,
                                   source=args.source, transpose=args.transpose, timeout=args.timeout)
    except UsageError:
        raise
    except LayoutError as exc:
        message = _cli_words(str(exc))
        option = next((o for o in ("--smem", "--copy", "--mma", "--operand", "--dtype", "--source", "--along")
                       if o in message), "")
        raise UsageError(message, (f"change {option} as the message says; " if option else "the message says what "
                                   "would fit; ") + "layoutalg prove-fragment --help shows working examples") from exc
    if args.json:
        emit_json(result.to_dict())
    else:
        _print(result)
    return {"proved": EXIT_OK, "refuted": EXIT_FAILED}.get(result.status, EXIT_UNKNOWN)


def _operand_type(mma: Any, operand: str) -> str | None:
    op = str(operand).strip().upper()
    return {"A": mma.a_type, "B": mma.b_type, "C": mma.c_type, "D": mma.c_type}.get(op)


def _print(result: Any) -> None:
    out = sys.stdout
    out.write(f"{result.status}: {result.claim}\n")
    if result.explanation:
        out.write(f"  {result.explanation}\n")
    for note in result.notes:
        out.write(f"  {note}\n")
    out.write(f"  method: {result.method}, {result.seconds:.3f}s\n")


__all__ = ["add_prove_fragment", "EXIT_UNKNOWN"]

"""The argument parser: every subcommand, its options and examples."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any

from layoutalg.cli.banks import _cmd_banks, _cmd_suggest
from layoutalg.cli.common import (
    EXIT_CODES,
    UsageError,
    add_picture_options,
)
from layoutalg.cli.convert import _cmd_atoms, _cmd_convert
from layoutalg.cli.delegated import _cmd_gpu_check, _cmd_prove
from layoutalg.cli.fragment import add_prove_fragment
from layoutalg.cli.kernel import add_kernel_parser
from layoutalg.cli.show import _cmd_show

COMMANDS = ("show", "banks", "suggest-swizzle", "convert", "atoms", "prove", "prove-fragment", "kernel", "gpu-check")

EXAMPLES = """\
examples:
  layoutalg show '(8,8):(8,1)'
  layoutalg show 'Sw<3,3,3> o 0 o (8,64):(64,1)' --svg smem.svg
  layoutalg show 'Layout<Shape<_8,_64>,Stride<_64,_1>>'
  layoutalg show --tv SM80_16x8x16_F32F16F16F32_TN --operand A --png a_fragment.png
  layoutalg banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x4
  layoutalg suggest-swizzle --shape 64x64 --dtype f16 --access ldmatrix.x4
  layoutalg prove proofs/ --json
  layoutalg prove-fragment --copy ldmatrix.x4.trans --smem 'Sw<3,3,3> o _0 o (64,64):(64,1)' --mma mma.m16n8k16.f16 --operand B
  layoutalg convert '(8,64):(64,1)' --to cpp
  layoutalg kernel transpose.ptx --kernel transpose_naive --grid 2,2 --block 32,8 --arg 2=64
"""

EXIT_STATUS = "exit status:\n" + "\n".join(f"  {code:<3} {meaning}" for code, meaning in EXIT_CODES.items())


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors raised as :class:`UsageError` (so ``--json`` reports them as JSON too),
    each with a hint: the nearest valid choice, the form an option takes, or an example of the command."""

    def _print_message(self, message: str, file: Any = None) -> None:
        """As argparse's, but a closed pipe is not swallowed: main() ends the command quietly with status 141."""
        if message:
            (file or sys.stderr).write(message)

    def error(self, message: str) -> Any:  # type: ignore[override]
        import re

        example = _first_example(self.epilog or "")
        hint = (f"e.g. {example}; " if example else "") + f"{self.prog} --help lists every option"
        wrong = re.search(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)", message[:2000])
        if wrong:
            option = wrong.group(1).split("/")[0]
            prefix = f"{option} " if option.startswith("-") else ""
            choices = [prefix + c for c in re.findall(r"'([^']*)'", wrong.group(3))]
            close = difflib.get_close_matches(prefix + wrong.group(2)[:100], choices, n=1)
            hint = (f"did you mean {close[0]}? " if close else "") + "choose one of " + ", ".join(choices)
            if not prefix:
                hint += f" ({self.prog} --help describes each)"
        typed = re.match(r"argument (\S+): invalid (int|float) value", message)
        if typed:
            kind = "a whole number" if typed.group(2) == "int" else "a number"
            hint = f"{typed.group(1).split('/')[0]} takes {kind}; " + hint
        if message.startswith("unrecognized arguments"):
            extras = message.split(": ", 1)[1].split(" (did you mean")[0].split()
            if any(not e.startswith("-") for e in extras):
                hint = "quote a LAYOUT that contains spaces or shell characters (e.g. 'Sw<3,3,3> o 0 o (8,8):(8,1)'); " + hint
        raise UsageError(message, hint)


def _first_example(epilog: str) -> str:
    for line in epilog.splitlines():
        if line.strip().startswith("layoutalg "):
            return line.strip()
    return ""


def _add_arch(parser: argparse.ArgumentParser) -> None:
    from layoutalg.atoms.arch import ARCHES, DEFAULT_ARCH

    parser.add_argument("--arch", default=DEFAULT_ARCH, metavar="SM",
                        help="GPU architecture: " + ", ".join(ARCHES) + f" (default {DEFAULT_ARCH}); sets the "
                             "shared-memory capacity and which instructions exist")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="layoutalg",
        description="CuTe layout algebra, z3 proofs and exact shared-memory bank-conflict models for CUDA kernel authors.",
        epilog=EXAMPLES + "\n" + EXIT_STATUS + "\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--json", action="store_true", help="machine-readable output (also after the COMMAND)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    show = sub.add_parser(
        "show", help="print a layout as a table (or a thread-value layout with --tv)",
        description="Print a layout like CuTe's print_layout: cell (m, n) holds L(m, n). "
                    "With --tv ATOM, print which thread and value (T#V#) holds each element of an atom's tile.",
        epilog="examples:\n  layoutalg show '(4,8):(8,1)'\n  layoutalg show 'Sw<3,3,3> o 0 o (8,64):(64,1)' --png smem.png\n"
               "  layoutalg show --tv SM80_16x8x16_F32F16F16F32_TN --operand C --svg c.svg\n"
               "  layoutalg show --tv SM75_U32x4_LDSM_N --dtype f16\n"
               "  layoutalg show Layout_K_SW128_Atom --dtype bf16\n"
               "  layoutalg show '((2,4),8):((1,16),2)' --formula\n"
               "  layoutalg show --tv '((4,8),(2,2)):((32,1),(16,8))' --tile 16x8",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("layout", nargs="?", metavar="LAYOUT",
                      help="e.g. '(8,64):(64,1)', 'Sw<3,3,3> o 0 o (8,64):(64,1)', 'Layout<Shape<_8,_64>,Stride<_64,_1>>'")
    show.add_argument("--tv", metavar="ATOM", help="an atom name (CuTe's, e.g. SM75_U32x4_LDSM_N) or a TV layout with --tile")
    show.add_argument("--operand", metavar="OP", help="which TV layout of the atom: A, B, C (MMA) or src, dst (copy); default all")
    show.add_argument("--dtype", metavar="T",
                      help="element type: for copy atoms (their layouts are in bits) and smem atoms (Layout_K_SW128_Atom)")
    show.add_argument("--tile", metavar="MxN", help="the tile a TV layout covers (default: the atom's); the tensor "
                      "shape of #ttg text that carries none (swizzled_shared, nvmma_shared, blocked ...)")
    show.add_argument("--tile-to", metavar="MxN", help="repeat LAYOUT (e.g. a smem atom) to MxN first (CuTe tile_to_shape)")
    show.add_argument("--formula", action="store_true", help="print the index function as a formula (and LaTeX with --json)")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    add_picture_options(show)
    show.set_defaults(run=_cmd_show)

    banks = sub.add_parser(
        "banks", help="shared-memory wavefronts of each instruction of an access",
        description="Count the shared-memory wavefronts each warp-wide instruction of an access costs on LAYOUT "
                    "(a layout of elements of --dtype), against the ideal, with the colliding lanes and banks.",
        epilog="examples:\n  layoutalg banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x4\n"
               "  layoutalg banks 'Sw<3,3,3> o 0 o (64,64):(64,1)' --dtype f16 --access ldmatrix.x4 --json\n"
               "  layoutalg banks '(32,32):(32,1)' --dtype f32 --access ld.shared.b32 --by column\n"
               "  layoutalg banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x4 --png heat.png\n"
               "  layoutalg banks Layout_K_SW128_Atom --dtype bf16 --tile-to 64x64 --access ldmatrix.x4\n"
               "  layoutalg banks 'Sw<3,3,3> o 0 o (64,64):(64,1)' --dtype f16 --access cp.async.cg --global-ld 4096",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    banks.add_argument("layout", metavar="LAYOUT", help="the shared-memory layout, in elements")
    banks.add_argument("--dtype", required=True, metavar="T", help="element type: f16, bf16, f32, s8, ...")
    banks.add_argument("--access", required=True, metavar="INSTR",
                       help="ldmatrix.x4[.trans], stmatrix.x4[.trans], ld.shared.v4 / st.shared.b32 ..., cp.async.16")
    banks.add_argument("--tile-to", metavar="MxN", help="repeat LAYOUT (e.g. a smem atom) to MxN first (CuTe tile_to_shape)")
    banks.add_argument("--by", choices=["row", "column", "col"], default=None,
                       help="for ld/st: lanes walk along rows (default) or down columns")
    banks.add_argument("--global-ld", type=int, default=None, metavar="N",
                       help="cp.async (.cg, .ca): the tile comes from a row-major global matrix with N elements per row")
    banks.add_argument("--expect-conflict-free", action="store_true", help="exit 1 if any instruction has excess wavefronts")
    banks.add_argument("--detail", action="store_true", help="list every colliding word and lane of the worst instruction")
    _add_arch(banks)
    banks.add_argument("--json", action="store_true", help="machine-readable output")
    add_picture_options(banks)
    banks.set_defaults(run=_cmd_banks)

    suggest = sub.add_parser(
        "suggest-swizzle", help="the cheapest swizzle (or padding) that makes the accesses conflict-free",
        description="Search Swizzle<B,M,S> (and, where none works, row padding) for a row-major smem tile of "
                    "--shape elements of --dtype so that every --access (a sweep of the whole tile, as in "
                    "layoutalg banks) is conflict-free; prints the layout and its proof.",
        epilog="examples:\n  layoutalg suggest-swizzle --shape 64x64 --dtype f16 --access ldmatrix.x4\n"
               "  layoutalg suggest-swizzle --shape 32x32 --dtype f32 --access ld.shared.b32 --by column --json\n"
               "  layoutalg suggest-swizzle --shape 64x64 --dtype f16 --access cp.async.cg --access ldmatrix.x4 "
               "--global-ld 4096\n"
               "exit status 1 when no candidate is conflict-free (the fewest-wavefronts one is printed)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    suggest.add_argument("--shape", required=True, metavar="MxN", help="tile extents (row-major), e.g. 64x64")
    suggest.add_argument("--dtype", required=True, metavar="T", help="element type: f16, bf16, f32, ...")
    suggest.add_argument("--access", required=True, action="append", metavar="INSTR",
                         help="an access to make conflict-free (repeat for several)")
    suggest.add_argument("--by", choices=["row", "column", "col"], default=None,
                         help="for ld/st: lanes walk along rows (default) or down columns")
    suggest.add_argument("--global-ld", type=int, default=None, metavar="N",
                         help="cp.async (.cg, .ca): the tile comes from a row-major global matrix with N elements "
                              "per row (at least the tile's columns)")
    suggest.add_argument("--json", action="store_true", help="machine-readable output")
    _add_arch(suggest)
    suggest.set_defaults(run=_cmd_suggest)

    convert = sub.add_parser(
        "convert", help="the same layout in CuTe C++, CuTe DSL, pycute and Triton notation",
        epilog="examples:\n  layoutalg convert '(8,64):(64,1)'\n"
               "  layoutalg convert 'Layout<Shape<_8,_64>,Stride<_64,_1>>' --to cute\n"
               "  layoutalg convert 'S<3,3,3> o 0 o (8,64):(64,1)' --to cpp\n"
               "  layoutalg convert 'Sw<3,3,3> o 0 o (8,64):(64,1)' --dtype f16 --to triton\n"
               "  layoutalg convert '((4,8),(2,2)):((32,1),(16,8))' --tile 16x8 --to triton",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    convert.add_argument("layout", metavar="LAYOUT")
    convert.add_argument("--to", choices=["cute", "cpp", "dsl", "pycute", "triton"], help="only this notation")
    convert.add_argument("--dtype", metavar="T", help="element type: LAYOUT is a shared-memory layout (Triton: the "
                                                      "narrowest #ttg.*_shared encoding; smem atoms: their width)")
    convert.add_argument("--tile", metavar="MxN", help="LAYOUT is a TV layout over an MxN tile (Triton: #ttg.linear)")
    convert.add_argument("--json", action="store_true", help="machine-readable output")
    convert.set_defaults(run=_cmd_convert)

    atoms = sub.add_parser("atoms", help="list the instruction atoms (MMA and copy) by CuTe name",
                           epilog="examples:\n  layoutalg atoms\n  layoutalg atoms LDSM",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    atoms.add_argument("filter", nargs="?", metavar="TEXT", help="only names containing TEXT")
    atoms.add_argument("--json", action="store_true", help="machine-readable output")
    atoms.set_defaults(run=_cmd_atoms)

    add_prove_fragment(sub)
    add_kernel_parser(sub)

    from layoutalg.gpu.check import add_arguments as gpu_check_arguments
    from layoutalg.prove.runner import add_arguments as prove_arguments

    prove = sub.add_parser(
        "prove", help="run theorem files and print a table",
        description="Prove every @theorem in the given files or folders (thm_*.py, *_thm.py, any .py under a "
                    "folder named proofs). A file that does not load is an error, reported with its line.",
        epilog="examples:\n  layoutalg prove proofs/\n  layoutalg prove proofs/ --json > proofs.json\n"
               "  layoutalg prove examples/sm80_gemm_mainloop_thm.py -k ldmatrix\n"
               "exit status 0 every outcome as expected, 1 one differs, 2 bad input or a file that does not load",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    prove_arguments(prove)
    prove.set_defaults(run=_cmd_prove)
    gpu = sub.add_parser(
        "gpu-check", help="run the hardware suite on a GPU, or replay a recording",
        description="Run every instruction experiment on the GPU (CuPy), write a recording of the raw results "
                    "and compare it with layoutalg's models; --replay compares an existing recording (no GPU).",
        epilog="examples:\n  layoutalg gpu-check\n  layoutalg gpu-check --replay tests/data/gpu_recording_nvidia_h200.json\n"
               "exit status 0 all agree, 1 a mismatch, 2 no GPU or a bad --replay file",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gpu_check_arguments(gpu)
    gpu.set_defaults(run=_cmd_gpu_check)
    parser.set_defaults(subparsers=dict(sub.choices))
    return parser


def parse_arguments(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, except that arguments the command does not know are reported by the
    command's own parser (its example, and the nearest option name), not by the top-level one."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        target = getattr(args, "subparsers", {}).get(getattr(args, "command", None), parser)
        known = [o for action in target._actions for o in action.option_strings]
        close = [difflib.get_close_matches(e.split("=")[0], known, n=1) for e in extras if e.startswith("-")]
        message = f"unrecognized arguments: {' '.join(extras)}"
        if any(close):
            target.error(message + f" (did you mean {' '.join(c[0] for c in close if c)}?)")
        target.error(message)
    return args

"""The argument parser: every subcommand, its options and examples."""

from __future__ import annotations

import argparse
import difflib
from typing import Any

from layoutalg.cli.banks import _cmd_banks, _cmd_suggest
from layoutalg.cli.common import (
    UsageError,
    add_picture_options,
)
from layoutalg.cli.convert import _cmd_atoms, _cmd_convert
from layoutalg.cli.show import _cmd_show

EXAMPLES = """\
examples:
  layoutalg show '(8,8):(8,1)'
  layoutalg show 'Sw<3,3,3> o 0 o (8,64):(64,1)' --svg smem.svg
  layoutalg show 'Layout<Shape<_8,_64>,Stride<_64,_1>>'
  layoutalg show --tv SM80_16x8x16_F32F16F16F32_TN --operand A --png a_fragment.png
  layoutalg banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x4
  layoutalg suggest-swizzle --shape 64x64 --dtype f16 --access ldmatrix.x4
  layoutalg prove proofs/ --json
  layoutalg convert '(8,64):(64,1)' --to cpp
"""





class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors raised as :class:`UsageError`, so ``--json`` reports them as JSON too."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        import re

        hint = f"see {self.prog} --help for the options and examples"
        wrong = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if wrong:
            choices = re.findall(r"'([^']*)'", wrong.group(2))
            close = difflib.get_close_matches(wrong.group(1), choices, n=1)
            if close:
                hint = f"did you mean {close[0]}? " + hint
        raise UsageError(message, hint)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="layoutalg",
        description="CuTe layout algebra, z3 proofs and exact shared-memory bank-conflict models for CUDA kernel authors.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
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
    show.add_argument("--tile", metavar="MxN", help="the tile a TV layout covers (default: the atom's)")
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
    banks.add_argument("--by", choices=["row", "column"], default=None,
                       help="for ld/st: lanes walk along rows (default) or down columns")
    banks.add_argument("--global-ld", type=int, default=None, metavar="N",
                       help="cp.async.cg: the tile comes from a row-major global matrix with N elements per row")
    banks.add_argument("--expect-conflict-free", action="store_true", help="exit 1 if any instruction has excess wavefronts")
    banks.add_argument("--detail", action="store_true", help="list every colliding word and lane of the worst instruction")
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
               "exit status 1 when no candidate is conflict-free (the fewest-wavefronts one is printed)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    suggest.add_argument("--shape", required=True, metavar="MxN", help="tile extents (row-major), e.g. 64x64")
    suggest.add_argument("--dtype", required=True, metavar="T", help="element type: f16, bf16, f32, ...")
    suggest.add_argument("--access", required=True, action="append", metavar="INSTR",
                         help="an access to make conflict-free (repeat for several)")
    suggest.add_argument("--by", choices=["row", "column"], default=None,
                         help="for ld/st: lanes walk along rows (default) or down columns")
    suggest.add_argument("--json", action="store_true", help="machine-readable output")
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

    # Delegated subcommands: listed here for --help; their own parsers read the arguments.
    sub.add_parser("prove", help="run theorem files and print a table (layoutalg prove --help)", add_help=False)
    sub.add_parser("gpu-check", help="run the hardware suite on a GPU (layoutalg gpu-check --help)", add_help=False)
    return parser

"""``layoutalg``: the command line.

Subcommands (``layoutalg SUBCOMMAND --help`` for each):

  show LAYOUT             print_layout-style table; --tv ATOM for thread-value tables
  banks LAYOUT            wavefronts of each shared-memory instruction of an access
  suggest-swizzle         the cheapest swizzle (or padding) that removes the conflicts
  prove PATH...           run theorem files (delegates to layoutalg.prove.runner)
  gpu-check               run the hardware suite on a GPU (delegates to layoutalg.gpu.check)
  convert LAYOUT          the same layout in CuTe C++, CuTe DSL, pycute (and Triton) notation
  atoms                   the instruction atoms layoutalg knows

Every subcommand takes ``--json`` (machine-readable output on stdout, for CI).
Exit status: 0 success; 1 a check failed (a theorem's outcome, a conflict when
``--expect-conflict-free``); 2 bad input, with a message that says what to type.
Heavy modules (z3, numpy, Pillow, CuPy) are imported only by the subcommand that
needs them, so ``layoutalg --help`` is fast.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from typing import Any, Sequence

from layoutalg.errors import LayoutError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

DTYPE_BITS = {
    "f64": 64, "fp64": 64, "double": 64,
    "f32": 32, "fp32": 32, "float": 32, "tf32": 32, "s32": 32, "u32": 32, "i32": 32, "b32": 32,
    "f16": 16, "fp16": 16, "half": 16, "bf16": 16, "s16": 16, "u16": 16, "i16": 16, "b16": 16,
    "s8": 8, "u8": 8, "i8": 8, "b8": 8, "e4m3": 8, "e5m2": 8, "fp8": 8, "f8": 8,
    "s4": 4, "u4": 4, "e2m1": 4, "fp4": 4,
}

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


class UsageError(LayoutError):
    """Bad command-line input; ``hint`` says what to type instead."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


# --------------------------------------------------------------------------- output helpers


def _emit_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, default=str) + "\n")


def _dtype_bits(name: str) -> int:
    key = name.strip().lower()
    if key in DTYPE_BITS:
        return DTYPE_BITS[key]
    close = difflib.get_close_matches(key, DTYPE_BITS, n=3)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise UsageError(f"unknown dtype {name!r}", f"{hint}use one of f16, bf16, f32, tf32, f64, s8, e4m3, s4")


def _parse_message(exc: LayoutError) -> str:
    """A parse error as ``message`` plus the text with a caret under the failing column."""
    from layoutalg.errors import ParseError

    first = str(exc).split("\n")[0]
    if not isinstance(exc, ParseError) or not exc.text or exc.column < 1:
        return first
    if first.endswith(repr(exc.text)):
        first = first[: -len(repr(exc.text))].rstrip(": ")
    return f"{first}\n    {exc.text}\n    {' ' * (exc.column - 1)}^"


def _smem_atom(name: str, dtype: str | None) -> Any:
    """A CUTLASS shared-memory layout atom by name (``Layout_K_SW128_Atom``, ``Sm80_SW3_Atom``), or None."""
    import importlib

    if not (name.startswith("Layout_") or name.startswith("Sm80_")) or "<" in name:
        return None
    smem = importlib.import_module("layoutalg.atoms.smem")
    known = list(smem.SM80_ATOM_NAMES) + list(smem.GMMA_ATOM_NAMES)
    if name not in known:
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        raise UsageError(f"unknown shared-memory atom {name!r}",
                         ("did you mean " + " or ".join(close) + "? " if close else "") + "known: " + ", ".join(known))
    if not dtype:
        raise UsageError(f"{name} depends on the element width", f"add --dtype, e.g. layoutalg show {name} --dtype bf16")
    return smem.get_smem_atom(name, _dtype_bits(dtype))


def _parse_layout(text: str, what: str = "LAYOUT", dtype: str | None = None) -> Any:
    """A layout from the command line: CuTe print notation, a C++ type string, or a smem atom name."""
    from layoutalg import interop

    atom = _smem_atom(text.strip(), dtype)
    if atom is not None:
        return atom
    try:
        return interop.from_string(text)
    except LayoutError as exc:
        raise UsageError(
            f"cannot read {what}: {_parse_message(exc)}",
            "write a layout as shape:stride and quote it for the shell, e.g. "
            "layoutalg show '(8,64):(64,1)' or 'Sw<3,3,3> o 0 o (8,64):(64,1)' "
            "or 'Layout<Shape<_8,_64>,Stride<_64,_1>>'",
        ) from exc


def _parse_extents(text: str, what: str) -> tuple[int, ...]:
    parts = text.lower().replace("(", "").replace(")", "").replace(",", "x").split("x")
    try:
        values = tuple(int(p) for p in parts if p.strip())
    except ValueError:
        values = ()
    if len(values) != 2 or min(values) <= 0:
        raise UsageError(f"{what} {text!r} is not two positive extents", f"write it as MxN, e.g. {what} 64x64")
    return values


def _write_picture(grid: Any, args: argparse.Namespace) -> list[str]:
    """Write the --png/--svg/--tikz files asked for; returns their paths."""
    written = []
    if getattr(args, "svg", None):
        from layoutalg.viz.svg import grid_to_svg

        _write_text(args.svg, grid_to_svg(grid))
        written.append(args.svg)
    if getattr(args, "tikz", None):
        from layoutalg.viz.tikz import grid_to_tikz

        _write_text(args.tikz, grid_to_tikz(grid))
        written.append(args.tikz)
    if getattr(args, "png", None):
        from layoutalg.viz.png import write_png

        write_png(grid, args.png)
        written.append(args.png)
    return written


def _suffixed(args: argparse.Namespace, suffix: str) -> argparse.Namespace:
    """``args`` with ``suffix`` inserted before the extension of each picture path."""
    if not suffix:
        return args
    import os

    changed = argparse.Namespace(**vars(args))
    for key in ("png", "svg", "tikz"):
        path = getattr(args, key, None)
        if path:
            stem, ext = os.path.splitext(path)
            setattr(changed, key, f"{stem}{suffix}{ext}")
    return changed


def _write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {exc.strerror}", "pass a path in a writable folder") from exc


def _add_picture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--png", metavar="FILE", help="also write a PNG picture (needs Pillow: pip install 'layoutalg[viz]')")
    parser.add_argument("--svg", metavar="FILE", help="also write an SVG picture")
    parser.add_argument("--tikz", metavar="FILE", help="also write a standalone LaTeX/TikZ picture")


# --------------------------------------------------------------------------- show


def _layout_table(layout: Any) -> str:
    """The print_layout table of a plain or swizzled layout."""
    from layoutalg.viz.text import layout_table

    return layout_table(layout)


def _operand_names(atom: Any) -> list[str]:
    if hasattr(atom, "c_layout"):
        return ["A", "B", "C"]
    return ["src", "dst"]


def _cmd_show(args: argparse.Namespace) -> int:
    from layoutalg.viz.grid import layout_grid

    if args.tv:
        return _show_tv(args)
    if not args.layout:
        raise UsageError("show needs a LAYOUT or --tv ATOM", "e.g. layoutalg show '(8,8):(8,1)' or "
                         "layoutalg show --tv SM80_16x8x16_F32F16F16F32_TN")
    layout = _tiled(_parse_layout(args.layout, dtype=args.dtype), args.tile_to)
    if args.formula:
        return _show_formula(layout, args)
    grid = layout_grid(layout)
    written = _write_picture(grid, args)
    if args.json:
        _emit_json({
            "layout": str(layout),
            "shape": layout.shape,
            "stride": getattr(layout, "stride", None),
            "size": layout.size(),
            "cosize": layout.cosize(),
            "rows": grid.rows,
            "cols": grid.cols,
            "values": [[int(grid.cell(r, c).label) for c in range(grid.cols)] for r in range(grid.rows)],
            "files": written,
        })
        return EXIT_OK
    sys.stdout.write(_layout_table(layout))
    for path in written:
        sys.stdout.write(f"wrote {path}\n")
    return EXIT_OK


def _show_formula(layout: Any, args: argparse.Namespace) -> int:
    """``--formula``: the index function as text and LaTeX (sympy, via :func:`layoutalg.prove.formula`)."""
    from layoutalg.prove import formula

    result = formula(layout)
    if args.json:
        _emit_json({"layout": str(layout), "formula": str(result), "latex": result.latex()})
    else:
        sys.stdout.write(f"{layout}\n{result}\n")
    return EXIT_OK


def _lookup_atom(name: str) -> Any:
    from layoutalg.atoms import catalog

    try:
        return catalog.get(name)
    except LayoutError as exc:
        names = _atom_names()
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        hint = ("did you mean " + " or ".join(close) + "? ") if close else ""
        raise UsageError(f"unknown atom {name!r}", hint + "list the atoms with: layoutalg atoms") from exc


def _atom_names() -> list[str]:
    from layoutalg.atoms import catalog

    for attr in ("names", "all_names", "list_atoms"):
        fn = getattr(catalog, attr, None)
        if callable(fn):
            return sorted(str(n) for n in fn())
    table = getattr(catalog, "ATOMS", None) or getattr(catalog, "CATALOG", None) or {}
    return sorted(str(n) for n in table)


def _tv_of(atom: Any, operand: str, bits: int | None) -> tuple[Any, tuple[int, int], Any]:
    """``(tv_layout, (M, N) tile, thr_id)`` of one operand of an atom, in elements (ATOM's ``operand_tv``)."""
    from layoutalg.atoms.tv import operand_tv

    tv_layout, tile, thr_id = operand_tv(atom, operand, bits)
    return tv_layout, (int(tile[0]), int(tile[1])), thr_id


def _show_tv(args: argparse.Namespace) -> int:
    from layoutalg.viz.grid import tv_grid

    bits = _dtype_bits(args.dtype) if args.dtype else None
    if ":" in args.tv or args.tv.startswith(("Layout<", "cute::")):
        if not args.tile:
            raise UsageError("a TV layout given as notation needs the tile it covers",
                             f"add --tile MxN, e.g. layoutalg show --tv '{args.tv}' --tile 16x16")
        tv_layout = _parse_layout(args.tv, "--tv")
        tile = _parse_extents(args.tile, "--tile")
        panels: list[tuple[str, Any, tuple[int, int], Any, bool]] = [
            ("tv", tv_layout, (tile[0], tile[1]), None, False)]
        atom_name = None
    else:
        atom = _lookup_atom(args.tv)
        atom_name = getattr(atom, "name", args.tv)
        operands = _operand_names(atom)
        is_mma = "C" in operands  # decided before --operand narrows the list
        if args.operand:
            chosen = [o for o in operands if o.lower() == args.operand.lower()]
            if not chosen:
                raise UsageError(f"atom {atom_name} has no operand {args.operand!r}",
                                 f"use --operand {' or '.join(operands)}")
            operands = chosen
        panels = []
        if bits is None and not is_mma:
            bits = 16  # copy atoms are in bits; b16 is what ldmatrix/stmatrix move
        for operand in operands:
            tv_layout, tile, thr_id = _tv_of(atom, operand, bits)
            if args.tile:
                extents = _parse_extents(args.tile, "--tile")
                tile = (extents[0], extents[1])
            # B is indexed (N, K) by CuTe: draw it K x N as the PTX ISA does.  A matrix copy's tile is
            # (values per 16-byte row, rows): draw it one memory row per picture row.
            transpose = (operand == "B") or (not is_mma and tile[0] > 1)
            panels.append((operand, tv_layout, tile, thr_id, transpose))
    grids = []
    for name, tv_layout, tile, thr_id, transpose in panels:
        shown = f"{tile[1]}x{tile[0]}" if transpose else f"{tile[0]}x{tile[1]}"
        title = (f"{atom_name} {name}: " if atom_name else "") + f"{tv_layout} ({shown})"
        grids.append(tv_grid(tv_layout, tile, thr_id, title=title, transpose=transpose))
    written: list[str] = []
    for (name, *_), grid in zip(panels, grids):
        # One operand: the files as named; several: FILE_<operand>.ext for each.
        suffix = "" if len(grids) == 1 else f"_{name}"
        written += _write_picture(grid, _suffixed(args, suffix))
    if args.json:
        _emit_json({
            "atom": atom_name,
            "operands": [
                {
                    "operand": name,
                    "tv_layout": str(tv_layout),
                    "tile": list(tile),
                    "cells": [[g.cell(r, c).label for c in range(g.cols)] for r in range(g.rows)],
                }
                for (name, tv_layout, tile, _, _), g in zip(panels, grids)
            ],
            "files": written,
        })
        return EXIT_OK
    from layoutalg.viz.table import grid_to_text

    for grid in grids:
        sys.stdout.write(grid_to_text(grid) + "\n")
    for path in written:
        sys.stdout.write(f"wrote {path}\n")
    return EXIT_OK


# --------------------------------------------------------------------------- convert


def _cmd_convert(args: argparse.Namespace) -> int:
    from layoutalg import interop

    layout = _parse_layout(args.layout)
    forms: dict[str, str] = {
        "cute": str(layout),
        "cpp": interop.to_cpp(layout),
        "dsl": interop.to_dsl_string(layout),
    }
    try:
        forms["pycute"] = repr(interop.to_pycute(layout))
    except ImportError:
        pass
    if args.to == "triton" or args.to is None:
        try:
            forms["triton"] = interop.to_triton(layout).to_attribute()
        except (ImportError, AttributeError, LayoutError) as exc:
            if args.to == "triton":
                raise UsageError(f"no Triton linear layout for {layout}: {exc}",
                                 "Triton linear layouts need power-of-two extents and strides (GF(2)-linear)") from exc
    if args.to:
        if args.to not in forms:
            raise UsageError(f"cannot convert to {args.to!r} here", "use --to cute, cpp, dsl, pycute or triton")
        forms = {args.to: forms[args.to]}
    if args.json:
        _emit_json(forms)
    elif args.to:
        sys.stdout.write(forms[args.to] + "\n")
    else:
        for key, value in forms.items():
            sys.stdout.write(f"{key:7} {value}\n")
    return EXIT_OK


# --------------------------------------------------------------------------- atoms


def _cmd_atoms(args: argparse.Namespace) -> int:
    names = _atom_names()
    if args.filter:
        names = [n for n in names if args.filter.lower() in n.lower()]
    if args.json:
        _emit_json(names)
    else:
        sys.stdout.write("\n".join(names) + ("\n" if names else ""))
    return EXIT_OK


# --------------------------------------------------------------------------- delegation


def _delegate(module: str, argv: Sequence[str], install_hint: str) -> int:
    import importlib

    try:
        target = importlib.import_module(module)
    except ImportError as exc:
        raise UsageError(f"{module} is not available: {exc}", install_hint) from exc
    return int(target.run_cli(list(argv)) or 0)


# --------------------------------------------------------------------------- parser


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
    _add_picture_options(show)
    show.set_defaults(run=_cmd_show)

    banks = sub.add_parser(
        "banks", help="shared-memory wavefronts of each instruction of an access",
        description="Count the shared-memory wavefronts each warp-wide instruction of an access costs on LAYOUT "
                    "(a layout of elements of --dtype), against the ideal, with the colliding lanes and banks.",
        epilog="examples:\n  layoutalg banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x4\n"
               "  layoutalg banks 'Sw<3,3,3> o 0 o (64,64):(64,1)' --dtype f16 --access ldmatrix.x4 --json\n"
               "  layoutalg banks '(32,32):(32,1)' --dtype f32 --access ld.shared.b32 --by column\n"
               "  layoutalg banks '(64,64):(64,1)' --dtype f16 --access ldmatrix.x4 --png heat.png\n"
               "  layoutalg banks Layout_K_SW128_Atom --dtype bf16 --tile-to 64x64 --access ldmatrix.x4",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    banks.add_argument("layout", metavar="LAYOUT", help="the shared-memory layout, in elements")
    banks.add_argument("--dtype", required=True, metavar="T", help="element type: f16, bf16, f32, s8, ...")
    banks.add_argument("--access", required=True, metavar="INSTR",
                       help="ldmatrix.x4[.trans], stmatrix.x4[.trans], ld.shared.v4 / st.shared.b32 ..., cp.async.16")
    banks.add_argument("--tile-to", metavar="MxN", help="repeat LAYOUT (e.g. a smem atom) to MxN first (CuTe tile_to_shape)")
    banks.add_argument("--by", choices=["row", "column"], default=None,
                       help="for ld/st: lanes walk along rows (default) or down columns")
    banks.add_argument("--expect-conflict-free", action="store_true", help="exit 1 if any instruction has excess wavefronts")
    banks.add_argument("--detail", action="store_true", help="list every colliding word and lane of the worst instruction")
    banks.add_argument("--json", action="store_true", help="machine-readable output")
    _add_picture_options(banks)
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
               "  layoutalg convert 'S<3,3,3> o 0 o (8,64):(64,1)' --to cpp",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    convert.add_argument("layout", metavar="LAYOUT")
    convert.add_argument("--to", choices=["cute", "cpp", "dsl", "pycute", "triton"], help="only this notation")
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


DELEGATED = {
    "prove": ("layoutalg.prove.runner", "layoutalg prove needs the prover (z3-solver): pip install layoutalg"),
    "gpu-check": ("layoutalg.gpu.check", "gpu-check needs CuPy and an NVIDIA GPU: pip install 'layoutalg[gpu]'"),
}


def _wants_json(argv: Sequence[str]) -> bool:
    return "--json" in argv


def _report_error(exc: LayoutError, as_json: bool) -> int:
    hint = getattr(exc, "hint", "")
    if as_json:
        _emit_json({"error": str(exc), "type": type(exc).__name__, "hint": hint})
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


# --------------------------------------------------------------------------- banks

_WIDTH_TYPE = {1: "u8", 2: "u16", 4: "b32", 8: "b64", 16: "v4.b32"}


def expand_access(text: str, element_bytes: int) -> str:
    """The full PTX mnemonic for a short ``--access`` spelling.

    ``ldmatrix.x4[.trans]`` -> ``ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16`` (``stmatrix`` alike);
    ``ld.shared.v4`` -> ``ld.shared.v4.b32``; ``ld.shared`` / ``st.shared`` without a type -> one element of the
    dtype (``.u16`` for f16); a full PTX mnemonic is kept as it is.
    """
    words = text.strip().lower().split(".")
    if words[0] in ("ldmatrix", "stmatrix") and "shared" not in words:
        count = next((w for w in words if w in ("x1", "x2", "x4")), None)
        if count is None:
            raise UsageError(f"--access {text!r}: say how many matrices", f"e.g. --access {words[0]}.x4 or {words[0]}.x4.trans")
        trans = ".trans" if "trans" in words else ""
        return f"{words[0]}.sync.aligned.m8n8.{count}{trans}.shared.b16"
    if words[0] in ("ld", "st"):
        if "shared" not in words:
            words.insert(1, "shared")
        if words[-1] in ("v2", "v4"):
            words.append("b32")
        if words[-1] == "shared":
            if element_bytes not in _WIDTH_TYPE:
                raise UsageError(f"--access {text!r}: no single {element_bytes}-byte type", "give the type, e.g. ld.shared.b32")
            words.extend(_WIDTH_TYPE[element_bytes].split("."))
        return ".".join(words)
    return text.strip()


def _access_bytes(instruction: str) -> tuple[int, str]:
    from layoutalg.banks.instruction import parse_instruction

    ins = parse_instruction(instruction)
    return ins.access_bytes, ins.kind


def access_pattern(rows: int, cols: int, dtype: str, instruction: str, by: str | None) -> list[list[tuple[int, int]]]:
    """For each warp-wide instruction of one sweep of the ``rows x cols`` tile, the (row, col) each lane addresses.

    The sweep is :func:`layoutalg.banks.access.tile_access` (ldmatrix/stmatrix in 16-row blocks, lane ``l`` at
    row ``l % 16``, column ``(l / 16) * E``; ld/st lanes walking the rows, or down the columns with ``--by column``).
    """
    _, kind = _access_bytes(instruction)
    if kind == "cp.async":
        raise UsageError("cp.async writes do not follow the ld/st bank rules and the model refuses them",
                         "count the equivalent st.shared (e.g. --access st.shared.v4) or measure with layoutalg gpu-check")
    from layoutalg.banks.access import tile_access

    try:
        access = tile_access(instruction, (rows, cols), dtype, by or "row")
    except LayoutError as exc:
        raise UsageError(str(exc), "pick a tile and access that fit (layoutalg banks --help lists the sweeps); "
                         "--tile-to MxN repeats an atom to a larger tile") from exc
    coords = access.coords.reshape(-1, 32, 2)
    return [[(int(r), int(c)) for r, c in instance] for instance in coords]


def _tiled(layout: Any, tile_to: str | None) -> Any:
    """``tile_to_shape(layout, (M, N))`` when ``--tile-to MxN`` is given (CuTe's repetition of a smem atom)."""
    if not tile_to:
        return layout
    import importlib

    extents = _parse_extents(tile_to, "--tile-to")
    try:
        return importlib.import_module("layoutalg.atoms.smem").tile_to_shape(layout, extents)
    except LayoutError as exc:
        raise UsageError(f"cannot tile {layout} to {extents[0]}x{extents[1]}: {exc}",
                         "each extent of --tile-to must be a multiple of the layout's") from exc


def _element_offsets(layout: Any) -> tuple[list[int], int, int]:
    from layoutalg.viz.grid import _rank2_extents

    rows, cols = _rank2_extents(layout, "LAYOUT")
    return [int(v) for v in layout.to_numpy()], rows, cols


def _cmd_banks(args: argparse.Namespace) -> int:
    from layoutalg.banks import model

    layout = _tiled(_parse_layout(args.layout, dtype=args.dtype), args.tile_to)
    element_bytes = max(1, _dtype_bits(args.dtype) // 8)
    instruction = expand_access(args.access, element_bytes)
    values, rows, cols = _element_offsets(layout)
    pattern = access_pattern(rows, cols, args.dtype, instruction, args.by)
    reports = []
    for lanes in pattern:
        addresses = [element_bytes * values[r + rows * c] for r, c in lanes]
        reports.append((lanes, addresses, model.report(instruction, addresses)))
    total = sum(rep.wavefronts for _, _, rep in reports)
    ideal = sum(rep.ideal for _, _, rep in reports)
    worst_index = max(range(len(reports)), key=lambda k: (reports[k][2].excess, -k))
    worst_lanes, worst_addresses, worst = reports[worst_index]
    picture_args = args if (args.png or args.svg or args.tikz) else None
    written: list[str] = []
    if picture_args is not None:
        from layoutalg.viz.heatmap import bank_heatmap

        title = f"{layout} {args.dtype} {args.access}: instruction {worst_index}, {worst.wavefronts} wavefronts (ideal {worst.ideal})"
        written = _write_picture(bank_heatmap(instruction, worst_addresses, title), args)
    failed = args.expect_conflict_free and total != ideal
    if args.json:
        from layoutalg.viz.heatmap import heatmap_json

        _emit_json({
            "layout": str(layout), "dtype": args.dtype, "instruction": instruction,
            "instructions": [
                {"index": k, "lanes": [list(rc) for rc in lanes],
                 "byte_addresses": addresses, "wavefronts": rep.wavefronts, "ideal": rep.ideal, "excess": rep.excess}
                for k, (lanes, addresses, rep) in enumerate(reports)
            ],
            "wavefronts": total, "ideal": ideal, "excess": total - ideal, "conflict_free": total == ideal,
            "worst": {"index": worst_index, "report": str(worst), "phases": heatmap_json(instruction, worst_addresses)},
            "files": written,
        })
        return EXIT_FAILED if failed else EXIT_OK
    out = [f"{layout}  {args.dtype}  {instruction}",
           f"{len(reports)} instructions: {total} wavefronts, ideal {ideal}, excess {total - ideal}"
           + ("  (conflict-free)" if total == ideal else ""),
           "", f"{'instr':>5}  {'lane 0 (row,col)':>16}  {'wavefronts':>10}  {'ideal':>5}  {'excess':>6}"]
    for k, (lanes, _, rep) in enumerate(reports):
        first = lanes[0]
        out.append(f"{k:>5}  {str(first).replace(' ', ''):>16}  {rep.wavefronts:>10}  {rep.ideal:>5}  {rep.excess:>6}")
    out += ["", f"worst: instruction {worst_index}"]
    out += [str(worst)] if args.detail else _condensed_report(worst)
    sys.stdout.write("\n".join(out) + "\n")
    for path in written:
        sys.stdout.write(f"wrote {path}\n")
    return EXIT_FAILED if failed else EXIT_OK


def conflict_bits(report: Any) -> list[int]:
    """Byte-address bits in which the words that collide in one bank differ (all above bit 6).

    Two words share a bank when their byte addresses agree in bits 2..6; the bits
    where colliding words differ are the ones a swizzle must XOR into bits 2..6.
    """
    mask = 0
    for phase in report.phases:
        for use in phase.conflicts:
            first = use.words[0] * 4
            for word in use.words[1:]:
                mask |= first ^ (word * 4)
    return [b for b in range(mask.bit_length()) if mask >> b & 1]


def _condensed_report(report: Any) -> list[str]:
    lines = [f"{report.instruction}: {report.wavefronts} wavefronts, ideal {report.ideal}, excess {report.excess}"]
    for k, phase in enumerate(report.phases):
        line = f"  phase {k} (lanes {phase.lanes[0]}-{phase.lanes[-1]}): {phase.wavefronts} wavefronts (ideal {phase.ideal})"
        if phase.conflicts:
            use = max(phase.conflicts, key=lambda u: u.ways)
            lanes = sorted({lane for group in use.lanes for lane in group})
            line += f"; bank {use.bank} is {use.ways}-way: lanes {lanes}"
            if len(phase.conflicts) > 1:
                line += f" (and {len(phase.conflicts) - 1} more banks)"
        lines.append(line)
    bits = conflict_bits(report)
    if bits:
        width, _ = _access_bytes(report.instruction)
        low = min(6, max(2, width.bit_length() - 1))  # XOR below the access width would split one lane's bytes
        lines.append(f"  colliding words differ in address bits {bits}; the bank is bits 2-6, so a swizzle must "
                     f"XOR bits {bits} into bits {low}-6 to spread them (or pad the rows)")
    lines.append("  (--detail lists every colliding word and lane)")
    return lines


def _cmd_suggest(args: argparse.Namespace) -> int:
    import importlib

    rows, cols = _parse_extents(args.shape, "--shape")
    element_bytes = max(1, _dtype_bits(args.dtype) // 8)
    accesses: list[Any] = [expand_access(a, element_bytes) for a in args.access]
    if args.by == "column":
        accesses = [(a, "column") if a.split(".")[0] in ("ld", "st") else a for a in accesses]
    try:
        suggest = importlib.import_module("layoutalg.banks.suggest").suggest_swizzle
    except (ImportError, AttributeError) as exc:
        raise UsageError("suggest-swizzle needs layoutalg.banks.suggest, which this install lacks",
                         "upgrade layoutalg") from exc
    result = suggest((rows, cols), args.dtype, accesses)
    if args.json:
        _emit_json(result.to_json())
    else:
        sys.stdout.write(str(result).rstrip("\n") + "\n")
    return EXIT_OK if result.conflict_free else EXIT_FAILED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

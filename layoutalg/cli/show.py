"""``layoutalg show``: print_layout-style tables, thread-value tables, pictures and formulas."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from layoutalg.cli.common import (
    EXIT_OK,
    UsageError,
    dtype_bits,
    emit_json,
    is_atom_name,
    lookup_atom,
    option_errors,
    parse_extents,
    parse_layout,
    rank2_extents,
    suffixed,
    tiled,
    write_picture,
)
from layoutalg.core.validate import describe

TABLE_HINT = ("show a tile of it (e.g. a smem atom without --tile-to), or print its index function with "
              "layoutalg show LAYOUT --formula")


TV_MAX_POINTS = 1 << 20
"""The most (thread, value) points a TV table evaluates (an atom has at most a few thousand)."""


def _json_value(label: str) -> Any:
    """A cell's value for ``--json``: an int where it is one, else its printed form (``(1,2)``, ``F5``)."""
    try:
        return int(label)
    except ValueError:
        return label


def _layout_table(layout: Any) -> str:
    """The print_layout table of a plain or swizzled layout."""
    from layoutalg.viz.text import layout_table

    return layout_table(layout)


def _operand_names(atom: Any) -> list[str]:
    if hasattr(atom, "c_layout"):
        return ["A", "B", "C"]
    return ["src", "dst"]


def _cmd_show(args: argparse.Namespace) -> int:
    from layoutalg.core.stride_codomain import coshape
    from layoutalg.viz.grid import layout_grid

    if args.tv:
        return _show_tv(args)
    if not args.layout:
        raise UsageError("show needs a LAYOUT or --tv ATOM", "e.g. layoutalg show '(8,8):(8,1)' or "
                         "layoutalg show --tv SM80_16x8x16_F32F16F16F32_TN")
    shape, option = (args.tile, "--tile") if args.tile or not args.tile_to else (args.tile_to, "--tile-to")
    layout = tiled(parse_layout(args.layout, dtype=args.dtype, shape=shape, shape_option=option), args.tile_to)
    if args.formula:
        return _show_formula(layout, args)
    rank2_extents(layout, "LAYOUT")
    with option_errors("LAYOUT", TABLE_HINT):
        grid = layout_grid(layout)
    written = write_picture(grid, args)
    if args.json:
        emit_json({
            "layout": str(layout),
            "shape": layout.shape,
            "stride": getattr(layout, "stride", None),
            "size": layout.size(),
            "cosize": layout.cosize() if hasattr(layout, "cosize") else coshape(layout),  # per axis
            "rows": grid.rows,
            "cols": grid.cols,
            "values": [[_json_value(grid.cell(r, c).label) for c in range(grid.cols)] for r in range(grid.rows)],
            "files": written,
        })
        return EXIT_OK
    with option_errors("LAYOUT", TABLE_HINT):
        table = _layout_table(layout)
    sys.stdout.write(table)
    for path in written:
        sys.stdout.write(f"wrote {path}\n")
    return EXIT_OK


def _show_formula(layout: Any, args: argparse.Namespace) -> int:
    """``--formula``: the index function as text and LaTeX (sympy, via :func:`layoutalg.prove.formula`)."""
    from layoutalg.prove import formula

    with option_errors("--formula", "give a plain or swizzled layout, e.g. layoutalg show '(8,64):(64,1)' --formula"):
        result = formula(layout)
    if args.json:
        emit_json({"layout": str(layout), "formula": str(result), "latex": result.latex()})
    else:
        sys.stdout.write(f"{layout}\n{result}\n")
    return EXIT_OK


def _tv_of(atom: Any, operand: str, bits: int | None) -> tuple[Any, tuple[int, int], Any]:
    """``(tv_layout, (M, N) tile, thr_id)`` of one operand of an atom, in elements (ATOM's ``operand_tv``)."""
    from layoutalg.atoms.tv import operand_tv

    with option_errors(f"--tv {getattr(atom, 'name', atom)}",
                       "copy atoms take a --dtype whose width divides theirs (e.g. --dtype f16); "
                       "MMA atoms fix their own types"):
        tv_layout, tile, thr_id = operand_tv(atom, operand, bits)
    return tv_layout, (int(tile[0]), int(tile[1])), thr_id


def _show_tv(args: argparse.Namespace) -> int:
    from layoutalg.viz.grid import tv_grid

    bits = dtype_bits(args.dtype) if args.dtype else None
    notation = ":" in args.tv or args.tv.lstrip().startswith(("Layout", "cute::", "#", "("))
    if notation and not is_atom_name(args.tv):  # a TV layout written out (cute::SM75_... is still an atom)
        if not args.tile:
            raise UsageError("a TV layout given as notation needs the tile it covers",
                             f"add --tile MxN, e.g. layoutalg show --tv '{args.tv}' --tile 16x16")
        tv_layout = parse_layout(args.tv, "--tv", shape=args.tile)
        tile = parse_extents(args.tile, "--tile")
        panels: list[tuple[str, Any, tuple[int, int], Any, bool]] = [
            ("tv", tv_layout, (tile[0], tile[1]), None, False)]
        atom_name = None
    else:
        atom = lookup_atom(args.tv)
        atom_name = getattr(atom, "name", args.tv)
        operands = _operand_names(atom)
        is_mma = "C" in operands  # decided before --operand narrows the list
        if args.operand:
            wanted = "c" if is_mma and args.operand.strip().lower() == "d" else args.operand.strip().lower()
            chosen = [o for o in operands if o.lower() == wanted]  # D is the accumulator, C, as in prove-fragment
            if not chosen:
                raise UsageError(f"atom {atom_name} has no operand {describe(args.operand)}",
                                 f"use --operand {' or '.join(operands)}")
            operands = chosen
        panels = []
        if bits is None and not is_mma:
            bits = 16  # copy atoms are in bits; b16 is what ldmatrix/stmatrix move
        for operand in operands:
            tv_layout, tile, thr_id = _tv_of(atom, operand, bits)
            if args.tile:
                extents = parse_extents(args.tile, "--tile")
                tile = (extents[0], extents[1])
            # B is indexed (N, K) by CuTe: draw it K x N as the PTX ISA does.  A matrix copy's tile is
            # (values per 16-byte row, rows): draw it one memory row per picture row.
            transpose = (operand == "B") or (not is_mma and tile[0] > 1)
            panels.append((operand, tv_layout, tile, thr_id, transpose))
    grids = []
    for name, tv_layout, tile, thr_id, transpose in panels:
        shown = f"{tile[1]}x{tile[0]}" if transpose else f"{tile[0]}x{tile[1]}"
        title = (f"{atom_name} {name}: " if atom_name else "") + f"{tv_layout} ({shown})"
        with option_errors(f"--tv {args.tv if atom_name is None else atom_name}",
                           "a thread-value layout has rank 2, (thread, value), and maps every (thread, value) "
                           "into the --tile MxN (column-major); pass the tile it covers with --tile"):
            if tv_layout.size() > TV_MAX_POINTS:
                raise UsageError(f"--tv: {tv_layout} has {tv_layout.size()} (thread, value) points",
                                 f"a TV table shows at most {TV_MAX_POINTS}: pass one atom's TV layout to --tv")
            grids.append(tv_grid(tv_layout, tile, thr_id, title=title, transpose=transpose))
    written: list[str] = []
    for (name, *_), grid in zip(panels, grids):
        # One operand: the files as named; several: FILE_<operand>.ext for each.
        suffix = "" if len(grids) == 1 else f"_{name}"
        written += write_picture(grid, suffixed(args, suffix))
    if args.json:
        emit_json({
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

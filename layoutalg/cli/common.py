"""What every subcommand shares: exit codes, element types, UsageError, parsing and picture output."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from typing import Any

from layoutalg.errors import LayoutError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(LayoutError):
    """Bad command-line input; ``hint`` says what to type instead."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


# --------------------------------------------------------------------------- output helpers


def emit_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, default=str) + "\n")


def dtype_bits(name: str) -> int:
    """Bits of the element type named by ``--dtype`` (the package's one table, :mod:`layoutalg.core.dtypes`)."""
    from layoutalg.core.dtypes import dtype

    try:
        return dtype(name).bits
    except LayoutError as exc:
        raise UsageError(f"--dtype: {exc}", "use one of --dtype f16, bf16, f32, tf32, f64, s8, e4m3, s4 "
                                            "(or float16, torch.bfloat16, cutlass.Float16, ...)") from exc


def parse_message(exc: LayoutError) -> str:
    """A parse error as ``message`` plus the text with a caret under the failing column."""
    from layoutalg.errors import ParseError

    first = str(exc).split("\n")[0]
    if not isinstance(exc, ParseError) or not exc.text or exc.column < 1:
        return first
    if first.endswith(repr(exc.text)):
        first = first[: -len(repr(exc.text))].rstrip(": ")
    return f"{first}\n    {exc.text}\n    {' ' * (exc.column - 1)}^"


def parse_layout(text: str, what: str = "LAYOUT", dtype: str | None = None) -> Any:
    """A layout from the command line, read by the package's one reader (:func:`layoutalg.parse`): CuTe print
    notation, a C++ type string, a smem atom name (its element type from ``<T>`` or ``--dtype``), Triton text."""
    from layoutalg.interop.text import MissingDtypeError, parse

    if dtype is not None:
        dtype_bits(dtype)  # a bad --dtype is reported as such, not as a bad layout
    try:
        return parse(text, dtype=dtype)
    except MissingDtypeError as exc:
        name = text.strip()
        raise UsageError(f"{name} depends on the element width",
                         f"add --dtype, e.g. layoutalg show {name} --dtype bf16, or write {name}<bf16>") from exc
    except LayoutError as exc:
        raise UsageError(
            f"cannot read {what}: {parse_message(exc)}",
            "write a layout as shape:stride and quote it for the shell, e.g. "
            "layoutalg show '(8,64):(64,1)' or 'Sw<3,3,3> o 0 o (8,64):(64,1)' "
            "or 'Layout<Shape<_8,_64>,Stride<_64,_1>>'",
        ) from exc


def parse_extents(text: str, what: str) -> tuple[int, ...]:
    parts = text.lower().replace("(", "").replace(")", "").replace(",", "x").split("x")
    try:
        values = tuple(int(p) for p in parts if p.strip())
    except ValueError:
        values = ()
    if len(values) != 2 or min(values) <= 0:
        raise UsageError(f"{what} {text!r} is not two positive extents", f"write it as MxN, e.g. {what} 64x64")
    return values


def write_picture(grid: Any, args: argparse.Namespace) -> list[str]:
    """Write the --png/--svg/--tikz files asked for; returns their paths."""
    written = []
    if getattr(args, "svg", None):
        from layoutalg.viz.svg import grid_to_svg

        write_text(args.svg, grid_to_svg(grid))
        written.append(args.svg)
    if getattr(args, "tikz", None):
        from layoutalg.viz.tikz import grid_to_tikz

        write_text(args.tikz, grid_to_tikz(grid))
        written.append(args.tikz)
    if getattr(args, "png", None):
        from layoutalg.viz.png import write_png

        write_png(grid, args.png)
        written.append(args.png)
    return written


def suffixed(args: argparse.Namespace, suffix: str) -> argparse.Namespace:
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


def write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {exc.strerror}", "pass a path in a writable folder") from exc


def add_picture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--png", metavar="FILE", help="also write a PNG picture (needs Pillow: pip install 'layoutalg[viz]')")
    parser.add_argument("--svg", metavar="FILE", help="also write an SVG picture")
    parser.add_argument("--tikz", metavar="FILE", help="also write a standalone LaTeX/TikZ picture")


def tiled(layout: Any, tile_to: str | None) -> Any:
    """``tile_to_shape(layout, (M, N))`` when ``--tile-to MxN`` is given (CuTe's repetition of a smem atom)."""
    if not tile_to:
        return layout
    import importlib

    extents = parse_extents(tile_to, "--tile-to")
    try:
        return importlib.import_module("layoutalg.atoms.smem").tile_to_shape(layout, extents)
    except LayoutError as exc:
        raise UsageError(f"cannot tile {layout} to {extents[0]}x{extents[1]}: {exc}",
                         "each extent of --tile-to must be a multiple of the layout's") from exc


def lookup_atom(name: str) -> Any:
    from layoutalg.atoms import catalog

    try:
        return catalog.get(name)
    except LayoutError as exc:
        names = atom_names()
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        hint = ("did you mean " + " or ".join(close) + "? ") if close else ""
        raise UsageError(f"unknown atom {name!r}", hint + "list the atoms with: layoutalg atoms") from exc


def atom_names() -> list[str]:
    from layoutalg.atoms import catalog

    return sorted(catalog.names())

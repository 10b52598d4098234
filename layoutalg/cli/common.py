"""What every subcommand shares: exit codes, element types, UsageError, parsing and picture output."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141

EXIT_CODES: dict[int, str] = {
    EXIT_OK: "success (every check held)",
    EXIT_FAILED: "a check failed: a theorem's outcome differs from its expectation, --expect-conflict-free "
                 "found a conflict, suggest-swizzle found no conflict-free layout, gpu-check found a mismatch",
    EXIT_USAGE: "bad input (or a file that does not load): the message ends with a hint: line",
    EXIT_UNKNOWN: "unknown or not modelled: the input is valid but layoutalg cannot decide it "
                  "(prove-fragment: a solver timeout; kernel: an instruction not modelled or data-dependent; "
                  "gpu-check --replay: no case of the recording could be checked)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
    EXIT_BROKEN_PIPE: "the output pipe closed early (e.g. | head); nothing is printed",
}
"""Every exit status of ``layoutalg``: documented in ``--help`` and docs/cli.md (a test compares them)."""

MAX_TEXT_CHARS = 4096
"""The longest LAYOUT (or other text argument) read: far more than any layout's notation, and short enough
that no parser or number conversion can take long."""



class UsageError(LayoutError):
    """Bad command-line input: ``message`` says what is wrong, ``hint`` (required) what to type instead.

    ``exit_code`` is 2 (bad input) unless the input is valid but not decidable here (3).
    """

    def __init__(self, message: str, hint: str, exit_code: int = EXIT_USAGE) -> None:
        if not hint.strip():
            raise TypeError("UsageError needs a hint that says what to type instead")
        super().__init__(message)
        self.hint = hint
        self.exit_code = exit_code


def first_line(exc: BaseException) -> str:
    return str(exc).split("\n")[0]


@contextmanager
def option_errors(what: str, hint: str, exit_code: int = EXIT_USAGE) -> Iterator[None]:
    """Turn a :class:`LayoutError` raised inside the block into a :class:`UsageError` about ``what``
    (a CLI option or argument, e.g. ``--access``) with ``hint``; UsageErrors pass through unchanged."""
    try:
        yield
    except UsageError:
        raise
    except LayoutError as exc:
        raise UsageError(f"{what}: {first_line(exc)}", hint, exit_code) from exc


def check_text(text: str, what: str, example: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text`` unless it is longer than ``limit`` characters (then a UsageError naming ``what``)."""
    if len(text) > limit:
        raise UsageError(f"{what} is {len(text)} characters long; layoutalg reads at most {limit}",
                         f"give {what} in its short form, e.g. {example}")
    return text


# --------------------------------------------------------------------------- output helpers


def emit_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, default=str) + "\n")


def dtype_bits(name: str) -> int:
    """Bits of the element type named by ``--dtype`` (the package's one table, :mod:`layoutalg.core.dtypes`)."""
    from layoutalg.core.dtypes import dtype

    check_text(name, "--dtype", "--dtype f16", 64)
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
    if "\n" not in exc.text:
        return f"{first}\n    {exc.text}\n    {' ' * (exc.column - 1)}^"
    before = exc.text[: exc.column - 1]  # text of several lines: name the line, show it alone with the caret
    line, column = before.count("\n") + 1, exc.column - 1 - (before.rfind("\n") + 1)
    shown = exc.text.split("\n")[line - 1]
    first = first.replace(f"at column {exc.column}", f"at line {line}, column {column + 1}")
    return f"{first}\n    {shown}\n    {' ' * column}^"


LAYOUT_HINT = ("write a layout as shape:stride and quote it for the shell, e.g. "
               "layoutalg show '(8,64):(64,1)' or 'Sw<3,3,3> o 0 o (8,64):(64,1)' "
               "or 'Layout<Shape<_8,_64>,Stride<_64,_1>>'")


def parse_layout(text: str, what: str = "LAYOUT", dtype: str | None = None, shape: Any = None,
                 shape_option: str = "--tile") -> Any:
    """A layout from the command line, read by the package's one reader (:func:`layoutalg.parse`): CuTe print
    notation, a C++ type string, a smem atom name (its element type from ``<T>`` or ``--dtype``), Triton text
    (``shape``: the tensor shape of a ``#ttg`` attribute that carries none, ``MxN`` text from the command's
    ``shape_option``, ``--tile`` or ``--tile-to``, which the hint names when it is missing)."""
    from layoutalg.interop.text import MissingDtypeError, parse

    check_text(text, what, "'(8,64):(64,1)'")
    if dtype is not None:
        dtype_bits(dtype)  # a bad --dtype is reported as such, not as a bad layout
    try:
        if shape is not None and text.lstrip().startswith("#"):  # Triton text (#ttg., #triton_gpu., #alias = ...)
            from layoutalg.interop.triton import from_triton

            extents = parse_extents(shape, shape_option) if isinstance(shape, str) else shape
            return from_triton(text, shape=extents)
        return parse(text, dtype=dtype)
    except MissingDtypeError as exc:
        name = text.strip()
        raise UsageError(f"{name} depends on the element width",
                         f"add --dtype, e.g. layoutalg show {name} --dtype bf16, or write {name}<bf16>") from exc
    except LayoutError as exc:
        hint = (f"give the tensor shape with {shape_option} MxN, e.g. {shape_option} 64x64"
                if "does not carry its shape" in str(exc) else LAYOUT_HINT)
        if is_atom_name(text.strip()):
            hint = (f"{text.strip()} names an instruction atom, not a layout: draw its thread-value layouts with "
                    f"layoutalg show --tv {text.strip()}")
        raise UsageError(f"cannot read {what}: {parse_message(exc)}", hint) from exc


def parse_extents(text: str, what: str) -> tuple[int, ...]:
    """``MxN`` (or ``M,N``) as two positive ints."""
    check_text(text, what, f"{what} 64x64", 64)
    parts = text.lower().replace("(", "").replace(")", "").replace(",", "x").split("x")
    try:
        values = tuple(int(p) for p in parts if p.strip())
    except ValueError:
        values = ()
    if len(values) != 2 or min(values) <= 0:
        raise UsageError(f"{what} {describe(text)} is not two positive extents", f"write it as MxN, e.g. {what} 64x64")
    return values


def require_shape(layout: Any, what: str) -> None:
    """Refuse a bare swizzle (``Sw<3,3,3>``: a function of the offset, with no shape) where a layout is needed."""
    if not hasattr(layout, "shape"):
        raise UsageError(f"{what} {layout} is a bare swizzle: it permutes offsets but has no shape to draw or sweep",
                         f"compose it with the layout it swizzles, e.g. '{layout} o 0 o (8,64):(64,1)'")


def rank2_extents(layout: Any, what: str) -> tuple[int, int]:
    """``(rows, cols)`` of a rank-1 or rank-2 layout (sizes of its top-level modes); UsageError otherwise."""
    require_shape(layout, what)
    shape = layout.shape
    if not isinstance(shape, tuple):
        return layout.size(), 1
    if len(shape) == 1:
        return layout.size(), 1
    if len(shape) == 2:
        return layout[0].size(), layout[1].size()
    if not shape:
        raise UsageError(f"{what} {layout} has no modes (rank 0): there is nothing to draw or sweep",
                         "give a layout with one or two modes, e.g. '(8,64):(64,1)'")
    from layoutalg.viz.grid import _group_text

    stride = getattr(layout, "stride", None)
    grouped = _group_text(shape[:-1], shape[-1]) + (
        ":" + _group_text(stride[:-1], stride[-1]) if isinstance(stride, tuple) else "")
    raise UsageError(f"{what} {layout} has rank {len(shape)}; it must have two modes (rows, columns)",
                     f"group its modes into two, e.g. '{grouped}'")


def write_picture(grid: Any, args: argparse.Namespace) -> list[str]:
    """Write the --png/--svg/--tikz files asked for; returns their paths."""
    written = []
    if getattr(args, "svg", None):
        from layoutalg.viz.svg import grid_to_svg

        write_text(args.svg, grid_to_svg(grid), "--svg")
        written.append(args.svg)
    if getattr(args, "tikz", None):
        from layoutalg.viz.tikz import grid_to_tikz

        write_text(args.tikz, grid_to_tikz(grid), "--tikz")
        written.append(args.tikz)
    if getattr(args, "png", None):
        from layoutalg.viz.png import write_png

        with option_errors(f"--png {args.png}", "pass a path in a writable folder, or use --svg (no Pillow needed)"):
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


def write_text(path: str, text: str, option: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL character
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise UsageError(f"cannot write {describe(path)}: {reason}", f"pass {option} FILE in a writable folder") from exc


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
    require_offsets(layout, "LAYOUT")
    limit = _largest_smem_bytes()
    inner = getattr(layout, "inner", layout)  # a swizzle permutes offsets below a power of two of the inner span
    span = inner.cosize() + abs(int(getattr(layout, "offset", 0)))
    if layout.size() > limit or span > limit:
        raise UsageError(f"--tile-to repeats a shared-memory atom, but LAYOUT {layout} spans {span} elements, more "
                         f"than the {limit} bytes of shared memory any GPU gives a block",
                         "give the atom itself (e.g. layoutalg show Layout_K_SW128_Atom --dtype bf16 --tile-to "
                         "64x64), or drop --tile-to")
    try:
        return importlib.import_module("layoutalg.atoms.smem").tile_to_shape(layout, extents)
    except LayoutError as exc:
        raise UsageError(f"cannot tile {layout} to {extents[0]}x{extents[1]}: {exc}",
                         "each extent of --tile-to must be a multiple of the layout's") from exc


def is_coordinate_layout(layout: Any) -> bool:
    """A layout whose values are coordinates or F2 bit patterns (a ``StrideLayout``), not memory offsets."""
    from layoutalg.core.stride_layout import StrideLayout

    return isinstance(layout, StrideLayout)


def require_offsets(layout: Any, what: str) -> None:
    """Refuse a coordinate or F2 layout (a ``StrideLayout``) or a bare swizzle where memory offsets are needed."""
    require_shape(layout, what)
    if is_coordinate_layout(layout):
        raise UsageError(f"{what} {layout} maps to coordinates or F2 bit patterns, not to memory offsets",
                         f"give {what} as a layout of int strides (or a swizzled one), e.g. '(8,64):(64,1)'; "
                         f"layoutalg show {layout} prints its values")


def _largest_smem_bytes() -> int:
    from layoutalg.atoms.arch import ARCHES

    return max(arch.smem_per_block_bytes for arch in ARCHES.values())


def lookup_atom(name: str) -> Any:
    from layoutalg.atoms import catalog

    check_text(name, "ATOM", "--tv SM80_16x8x16_F32F16F16F32_TN", 200)
    try:
        return catalog.get(name)
    except LayoutError as exc:
        found, why = _read_short_name(name)  # the spellings prove-fragment's --copy / --mma take: ldmatrix.x4.trans
        if found is not None:
            return found
        if why:  # a short name the reader refused (a bare 'ldmatrix' without its count): say why
            raise UsageError(why, "list the atoms with: layoutalg atoms") from exc
        names = atom_names()
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        hint = ("did you mean " + " or ".join(close) + "? ") if close else ""
        raise UsageError(f"unknown atom {describe(name)}", hint + "list the atoms with: layoutalg atoms") from exc


def _read_short_name(name: str) -> tuple[Any, str]:
    """(the atom ``name`` names as prove-fragment's --copy / --mma read it (``ldmatrix.x4.trans``,
    ``mma.m16n8k16.f16``, ``wgmma.m64n64k16.f32.bf16.bf16``), "") or (None, why that reader refused it; "" when
    ``name`` is no such spelling)."""
    from layoutalg.atoms.short_names import copy_atom, mma_atom

    words = name.strip().lower().split(".")
    try:
        if words[0] in ("ldmatrix", "stmatrix", "movmatrix"):
            return copy_atom(name)[0], ""
        if words[0] in ("mma", "wgmma"):
            return mma_atom(name), ""
    except LayoutError as exc:
        return None, str(exc)
    return None, ""


def _by_short_name(name: str) -> Any:
    """The atom ``name`` names as prove-fragment's --copy / --mma read it, or None (:func:`_read_short_name`)."""
    return _read_short_name(name)[0]


def is_atom_name(name: str) -> bool:
    """Whether ``name`` names an atom (CuTe name, ``Copy_Atom<...>``, PTX or short form) rather than a layout."""
    from layoutalg.atoms import catalog

    try:
        catalog.get(name)
    except LayoutError:
        return _by_short_name(name) is not None
    return True


def atom_names() -> list[str]:
    from layoutalg.atoms import catalog

    return sorted(catalog.names())

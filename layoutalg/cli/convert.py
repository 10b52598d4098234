"""``layoutalg convert`` and ``layoutalg atoms``: notations and the atom catalog."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from layoutalg.cli.common import (
    EXIT_OK,
    UsageError,
    atom_names,
    dtype_bits,
    emit_json,
    is_coordinate_layout,
    parse_extents,
    parse_layout,
)
from layoutalg.errors import LayoutError


def _cmd_convert(args: argparse.Namespace) -> int:
    """Every notation of LAYOUT; a form that cannot be written is reported with why, never dropped silently.

    Triton needs to know what the layout is: ``--dtype T`` (a shared-memory layout of T elements: the
    narrowest ``#ttg.*_shared`` encoding) or ``--tile MxN`` (a TV layout over that tile: ``#ttg.linear``).
    """
    from layoutalg import interop

    dtype = getattr(args, "dtype", None)
    tile_text = getattr(args, "tile", None)
    if dtype is not None:
        dtype_bits(dtype)
    layout = parse_layout(args.layout, dtype=dtype, shape=tile_text)
    forms: dict[str, str] = {}
    missing: dict[str, str] = {}
    writers = {
        "cute": lambda: str(layout),
        "cpp": lambda: interop.to_cpp(layout),
        "dsl": lambda: interop.to_dsl_string(layout),
        "pycute": lambda: repr(interop.to_pycute(layout)),
        "triton": lambda: _triton_text(layout, dtype, tile_text),
    }
    for name in [args.to] if args.to else list(writers):
        try:
            forms[name] = writers[name]()
        except UsageError as exc:
            if args.to:
                raise
            missing[name] = f"{exc}; {exc.hint}"
        except (ImportError, LayoutError) as exc:
            reason = str(exc).split("\n")[0]
            if args.to:
                raise UsageError(f"cannot write {layout} as {args.to}: {reason}", _hint(layout, name)) from exc
            missing[name] = reason
    if args.json:
        emit_json({**forms, **({"not_written": missing} if missing else {})})
    elif args.to:
        sys.stdout.write(forms[args.to] + "\n")
    else:
        for key, value in forms.items():
            sys.stdout.write(f"{key:7} {value}\n")
        for key, reason in missing.items():
            sys.stdout.write(f"{key:7} (not written: {reason})\n")
    return EXIT_OK


def _hint(layout: Any, target: str) -> str:
    """What to do when ``layout`` cannot be written for ``target``: cpp, dsl and pycute write every layout of
    int offsets (pycute when installed), so only a coordinate layout, a missing pycute or Triton's limits stop
    them."""
    if is_coordinate_layout(layout):
        return ("a coordinate or F2 layout (basis strides such as 1@0, F2 strides such as F3) is written in CuTe "
                "notation only (--to cute); the other forms take layouts of int offsets")
    if target == "pycute":
        return "pycute needs pip install nvidia-cutlass"
    return ("Triton takes power-of-two layouts linear over GF(2) (plus padding for shared memory); "
            "use --to cute, cpp, dsl or pycute for this one")


def _triton_text(layout: Any, dtype: str | None, tile_text: str | None) -> str:
    from layoutalg.interop.triton import to_triton_text

    if dtype is None and tile_text is None:
        raise UsageError("a Triton layout says what the layout is: a shared-memory layout or a TV layout",
                         "add --dtype T (shared memory, e.g. --dtype f16) or --tile MxN (a TV layout over MxN)")
    if tile_text is not None:
        return to_triton_text(layout, tile=parse_extents(tile_text, "--tile"))
    return to_triton_text(layout, dtype=dtype)


# --------------------------------------------------------------------------- atoms


def _cmd_atoms(args: argparse.Namespace) -> int:
    names = atom_names()
    if args.filter:
        names = _matching_atoms(names, args.filter)
    if args.json:
        emit_json(names)
    else:
        sys.stdout.write("\n".join(names) + ("\n" if names else ""))
    return EXIT_OK


def _matching_atoms(names: list[str], text: str) -> list[str]:
    """The atoms whose CuTe name or PTX instruction contains ``text`` (any case), and the atom ``text`` names as
    prove-fragment's --copy / --mma read it (``ldmatrix.x4.trans``, ``mma.m16n8k16.f16``, ``wgmma.m64n64k16...``)."""
    from layoutalg.atoms import catalog
    from layoutalg.atoms.short_names import copy_atom, mma_atom

    key = text.strip().lower()
    named: set[str] = set()
    for reader in (copy_atom, mma_atom):
        try:
            found = reader(text)
        except LayoutError:
            continue
        named.add((found[0] if isinstance(found, tuple) else found).name)
    return [n for n in names if key in n.lower() or n in named
            or key in str(getattr(catalog.get(n), "ptx", "")).lower()]


"""``layoutalg convert`` and ``layoutalg atoms``: notations and the atom catalog."""

from __future__ import annotations

import argparse
import sys

from layoutalg.cli.common import (
    EXIT_OK,
    UsageError,
    atom_names,
    emit_json,
    parse_layout,
)
from layoutalg.errors import LayoutError


def _cmd_convert(args: argparse.Namespace) -> int:
    from layoutalg import interop

    layout = parse_layout(args.layout)
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
                                 "Triton linear layouts need power-of-two extents and strides (GF(2)-linear); "
                                 "use --to cute, cpp, dsl or pycute for this one") from exc
    if args.to:
        if args.to not in forms:
            raise UsageError(f"cannot convert to {args.to!r} here", "use --to cute, cpp, dsl, pycute or triton")
        forms = {args.to: forms[args.to]}
    if args.json:
        emit_json(forms)
    elif args.to:
        sys.stdout.write(forms[args.to] + "\n")
    else:
        for key, value in forms.items():
            sys.stdout.write(f"{key:7} {value}\n")
    return EXIT_OK


# --------------------------------------------------------------------------- atoms


def _cmd_atoms(args: argparse.Namespace) -> int:
    names = atom_names()
    if args.filter:
        names = [n for n in names if args.filter.lower() in n.lower()]
    if args.json:
        emit_json(names)
    else:
        sys.stdout.write("\n".join(names) + ("\n" if names else ""))
    return EXIT_OK

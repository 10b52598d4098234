"""The one reader of layouts written as text: ``layoutalg.parse`` and every CLI option taking a LAYOUT.

It reads what :mod:`layoutalg.atoms.layout_text` reads (CuTe C++ types as written and as compilers print them,
CUTLASS's shared-memory atom names with their element type, CuTe C++ / CuTe DSL / pycute prints) and Triton
layouts as IR dumps print them (``#ttg.linear<{...}>``, ``#ttg.nvmma_shared<{...}>``, ...; those without a
shape need :func:`layoutalg.from_triton` with ``shape=``) and ``LinearLayout::toString`` text.

Every failure is a :class:`~layoutalg.errors.LayoutError` (a ``ParseError`` with the column where it can say).
"""

from __future__ import annotations

import importlib
from typing import Any

from layoutalg.atoms import layout_text
from layoutalg.atoms.layout_text import MissingDtypeError, normalise_notation, smem_atom, smem_atom_names
from layoutalg.errors import LayoutError


def parse(text: str, dtype: Any = None) -> Any:
    """Any layout written as text (see the module docstring): a ``Layout``, ``Swizzle``, ``ComposedLayout``.

    ``dtype`` gives the element type of a smem atom named without one (``parse("Layout_K_SW128_Atom",
    dtype="bf16")``); a type in the text (``Layout_K_SW128_Atom<bf16>``) must agree with it.
    """
    if not isinstance(text, str):
        raise LayoutError(f"layout text must be a str, got {type(text).__name__}; for objects use layoutalg.as_layout")
    stripped = text.strip()
    if stripped.startswith("#") or "where out dims are" in stripped:  # #ttg / #triton_gpu text, #alias = #ttg...
        return importlib.import_module("layoutalg.interop.triton").from_triton(stripped)
    return layout_text.parse(text, dtype)


#: The reader under its historical name (``layoutalg.interop.from_string``).
from_string = parse

__all__ = ["parse", "from_string", "normalise_notation", "smem_atom", "smem_atom_names", "MissingDtypeError"]

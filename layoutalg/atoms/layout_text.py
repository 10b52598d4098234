"""Layout text with CUTLASS's shared-memory atom names: the reader below Triton's text.

Every layer from atoms up reads layout text here (``prove``'s ``smem=``, the kernel layer's ``PARAM@LAYOUT``);
:func:`layoutalg.parse` (:mod:`layoutalg.interop.text`) adds Triton's ``#ttg`` text on top.  It reads:

* CuTe C++ type strings, as source writes them and as compilers print them
  (``Layout<Shape<_8,_64>,Stride<_64,_1>>``, ``cute::Layout<cute::tuple<cute::C<8>, ...>>``,
  ``ComposedLayout<Swizzle<3,3,3>,_0,Layout<...>>``, ``Swizzle<3,3,3>``): :mod:`layoutalg.swizzle.cpp`;
* shared-memory atom names: ``GMMA::Layout_K_SW128_Atom<bf16>``, ``Layout_MN_SW64_Atom<cutlass::half_t>``,
  ``Layout_K_INTER_Atom_Bits``, ``Sm80_SW3_Atom<f16>``, or the bare name with ``dtype=``;
* printed values of CuTe C++ (``Sw<3,4,3> o _0 o (_8,_64):(_64,_1)``, static negatives ``_-5``,
  ``smem_ptr[16b](unset)`` offsets), CuTe DSL (``S<3,4,3> o 0 o (8,64):(64,1)``) and pycute
  (``SW_3_4_3``): :mod:`layoutalg.swizzle.notation` after :func:`normalise_notation`;
* pycute's ``repr`` (what ``layoutalg convert --to pycute`` writes): ``Layout((8, 64),(64, 1))``,
  ``ComposedLayout(Swizzle(3,3,3),0,Layout(...))``, ``Swizzle(3,3,3)``: :func:`pycute_repr_notation`.

Every failure is a :class:`~layoutalg.errors.LayoutError` (a ``ParseError`` with the column where it can say).
"""

from __future__ import annotations

import ast
import difflib
import re
from typing import Any

from layoutalg.atoms import smem
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError, ParseError
from layoutalg.swizzle import notation as swizzle_notation
from layoutalg.swizzle.cpp import ATOM_NAME, from_cpp


class MissingDtypeError(LayoutError):
    """A shared-memory atom named without its element type (``Layout_K_SW128_Atom`` needs ``<bf16>`` or dtype=)."""


_PYCUTE_SWIZZLE = re.compile(r"SW_(-?\d+)_(-?\d+)_(-?\d+)")
_DSL_SWIZZLE = re.compile(r"(?<![A-Za-z_])S<")
_CPP_TYPE = re.compile(r"^(?:[A-Za-z_]\w*::)*(?:Layout|ComposedLayout|Swizzle)\s*<")
_PYCUTE_CALL = re.compile(r"^(?:pycute\.)?(?:Layout|ComposedLayout|Swizzle)\s*\(")
_NAME = re.compile(r"^(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)\s*(?:<.*>)?\s*(?:\{\s*\})?$", re.S)


def normalise_notation(text: str) -> str:
    """Rewrite the CuTe DSL and pycute spellings of a printed value into CuTe C++'s.

    ``S<3,3,3>`` (CuTe DSL) and ``SW_3_3_3`` (pycute) become ``Sw<3,3,3>``; the
    layout part is already the same in all three (``_8`` or ``8``, spaces anywhere).
    """
    if "?" in text:
        column = text.index("?") + 1
        raise ParseError("a dynamic value '?' has no static value to read; substitute the number", text, column)
    text = _PYCUTE_SWIZZLE.sub(r"Sw<\1,\2,\3>", text)
    return _DSL_SWIZZLE.sub("Sw<", text)


def pycute_repr_notation(text: str) -> str:
    """pycute's ``repr`` of a layout (``Layout((8, 64),(64, 1))``, ``ComposedLayout(Swizzle(3,3,3),0,Layout(...))``,
    ``Swizzle(3,3,3)``) in CuTe's printed notation; read as a Python expression tree, never evaluated."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ParseError(f"not a pycute layout: {exc.msg}", text, exc.offset or 1) from exc
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes; nesting past the parser's stack
        raise ParseError(f"not a pycute layout: {type(exc).__name__}", text, 1) from exc
    return _pycute_node(tree, text)


def _pycute_node(node: ast.expr, text: str) -> str:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return str(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return "-" + _pycute_node(node.operand, text)
    if isinstance(node, ast.Tuple):
        return "(" + ",".join(_pycute_node(e, text) for e in node.elts) + ")"
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        args = [_pycute_node(a, text) for a in node.args]
        if func == "Layout" and len(args) in (1, 2):
            return ":".join(args)
        if func == "Swizzle" and len(args) == 3:
            return f"Sw<{','.join(args)}>"
        if func == "ComposedLayout" and len(args) == 3:
            return " o ".join(args)
    raise ParseError(f"not a pycute layout: {ast.unparse(node)!r} is not an int, a tuple, Layout(shape[, stride]), "
                     "Swizzle(b, m, s) or ComposedLayout(outer, offset, inner)", text, node.col_offset + 1)


_QUALIFIERS = ("const", "volatile")


def _strip_cv_ref(text: str) -> str:
    """``text`` less leading ``const``/``volatile`` words and trailing ``const``/``volatile``/``&``/``&&``: one scan
    from each end by index (no regular expression, no repeated copies: linear whatever the text)."""
    start, end = 0, len(text)
    while True:
        while start < end and text[start].isspace():
            start += 1
        word = next((q for q in _QUALIFIERS if text.startswith(q, start) and start + len(q) < end
                     and text[start + len(q)].isspace()), None)
        if word is None:
            break
        start += len(word)
    while True:
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start and text[end - 1] == "&":
            end -= 1
            continue
        word = next((q for q in _QUALIFIERS if text.endswith(q, start, end) and (
            end - len(q) == start or not (text[end - len(q) - 1].isalnum() or text[end - len(q) - 1] == "_"))), None)
        if word is None:
            break
        end -= len(word)
    return text[start:end]


def _without_cv_ref(text: str) -> str:
    """A C++ type as compilers print it in a signature, less its cv-qualifiers and reference
    (``const cute::Layout<...> &`` -> ``cute::Layout<...>``); other text comes back unchanged."""
    bare = _strip_cv_ref(text).strip()
    return bare if bare != text and (_CPP_TYPE.match(bare) or _NAME.match(bare)) else text


def smem_atom_names() -> list[str]:
    """Every shared-memory atom name :func:`parse` knows (CUTLASS's GMMA atoms and the sm80 ones)."""
    gmma = list(smem.GMMA_ATOM_NAMES)
    return list(smem.SM80_ATOM_NAMES) + gmma + [f"{name}_Bits" for name in gmma]


def smem_atom(name: str, element: Any = None) -> Any:
    """The smem atom ``name`` for elements of type ``element`` (any dtype spelling or a bit width).

    ``Layout_X_Atom_Bits`` is CUTLASS's definition in bits (element width 1) and takes no type.
    """
    from layoutalg.core.dtypes import dtype_bits

    names = smem_atom_names()
    if name not in names:
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        hint = ("did you mean " + " or ".join(close) + "? ") if close else ""
        raise LayoutError(f"unknown shared-memory atom {describe(name)}; {hint}known: {', '.join(names)}")
    if name.endswith("_Bits"):
        if element is not None and dtype_bits(element) != 1:
            raise LayoutError(f"{name} is in bits; drop the element type or use {name[:-len('_Bits')]}<{element}>")
        return smem.gmma_atom(name[: -len("_Bits")], 1)
    if element is None:
        raise MissingDtypeError(f"{name} depends on the element width: write {name}<bf16> (any element type) "
                                "or pass dtype=")
    return smem.get_smem_atom(name, dtype_bits(element))


def parse(text: str, dtype: Any = None) -> Any:
    """A layout written as text (see the module docstring): a ``Layout``, ``Swizzle``, ``ComposedLayout``.

    ``dtype`` gives the element type of a smem atom named without one (``parse("Layout_K_SW128_Atom",
    dtype="bf16")``); a type in the text (``Layout_K_SW128_Atom<bf16>``) must agree with it.
    """
    if not isinstance(text, str):
        raise LayoutError(f"layout text must be a str, got {type(text).__name__}; for objects use layoutalg.as_layout")
    stripped = text.strip()
    if not stripped:
        raise ParseError("empty layout text", text, 1)

    def read_atom(name: str, element: str | None) -> Any:
        if element is not None and dtype is not None:
            from layoutalg.core.dtypes import dtype_bits

            if dtype_bits(element) != dtype_bits(dtype):
                raise LayoutError(f"{name}<{element}> disagrees with dtype={describe(dtype)}")
        return smem_atom(name, element if element is not None else dtype)

    stripped = _without_cv_ref(stripped)
    if _CPP_TYPE.match(stripped):
        return from_cpp(stripped, read_atom)
    if _PYCUTE_CALL.match(stripped):
        return swizzle_notation.parse(pycute_repr_notation(stripped))
    named = _NAME.match(stripped)
    if named and ATOM_NAME.match(named.group(1)):
        return from_cpp(stripped, read_atom)
    return swizzle_notation.parse(normalise_notation(stripped))


def extents_of(x: Any, what: str) -> tuple[int, int]:
    """``(M, N)`` from a pair of positive ints or the command line's ``"MxN"`` (``"M,N"``) text."""
    extents: Any = x
    if isinstance(x, str):
        parts = x.lower().replace("(", "").replace(")", "").replace(",", "x").split("x")
        extents = tuple(int(p) for p in parts if p.strip().isdigit()) if len(parts) == 2 else ()
    if isinstance(extents, list):
        extents = tuple(extents)
    if not (isinstance(extents, tuple) and len(extents) == 2
            and all(isinstance(e, int) and not isinstance(e, bool) and e > 0 for e in extents)):
        raise LayoutError(f"{what} must be (rows, cols) of positive ints or 'MxN' text, got {describe(x)}")
    return extents[0], extents[1]


def layout_of(x: Any, dtype: Any = None, tile_to: Any = None) -> Any:
    """A layout argument as the command line reads its LAYOUT / ``--smem`` and ``--tile-to``: text is read by
    :func:`parse` (a smem atom name takes its width from ``dtype``), and ``tile_to`` (``(M, N)`` or ``"MxN"``)
    repeats it to that shape with CuTe's ``tile_to_shape``; anything else comes back as given."""
    layout = parse(x, dtype) if isinstance(x, str) else x
    if tile_to is None:
        return layout
    extents = extents_of(tile_to, "tile_to")
    if not hasattr(layout, "shape"):
        raise LayoutError(f"tile_to repeats a layout, but {describe(x)} is {type(layout).__name__}")
    return smem.tile_to_shape(layout, extents)


__all__ = ["layout_of", "extents_of", "parse", "normalise_notation", "pycute_repr_notation", "smem_atom", "smem_atom_names", "MissingDtypeError"]
